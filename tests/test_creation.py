"""Creation and conversion: tensor() dtype inference, memory sharing (as_tensor, from_numpy,
numpy(), DLPack), factories, random numbers and generators, to()/casts, item/tolist, repr."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, dtype_unsupported, to_numpy


# ---------------------------------------------------------------- tensor(): inference
@pytest.mark.parametrize(
    ("data", "dtype", "shape"),
    [
        ([1, 2], tc.int64, (2,)),
        ([1.0, 2], tc.float32, (2,)),
        ([True, False], tc.bool, (2,)),
        ([1, True], tc.int64, (2,)),
        ([1.5, True], tc.float32, (2,)),
        ([1j, 2], tc.complex64, (2,)),
        ([[1, 2], [3, 4]], tc.int64, (2, 2)),
        (((1, 2), (3, 4)), tc.int64, (2, 2)),
        ([], tc.float32, (0,)),
        ([[]], tc.float32, (1, 0)),
        (3, tc.int64, ()),
        (3.5, tc.float32, ()),
        (True, tc.bool, ()),
        (2j, tc.complex64, ()),
    ],
    ids=repr,
)
def test_tensor_infers_dtype_and_shape(
    device: str, data: object, dtype: tc.dtype, shape: tuple
) -> None:
    t = tc.tensor(data, device=device)
    assert t.dtype is dtype
    assert tuple(t.shape) == shape
    assert t.device.type == device
    assert_close(t, np.array(data, dtype=np.dtype(dtype.name)).reshape(shape))


@pytest.mark.parametrize(
    "arr",
    [np.array([1, 2], np.int32), np.array([1.5], np.float64), np.array([[1]], np.uint8),
     np.array([True]), np.array([1, 2], np.int16), np.array(2.5, np.float16), np.int32(7)],
    ids=lambda a: f"{type(a).__name__}-{a.dtype}",
)  # fmt: skip
def test_tensor_keeps_numpy_dtypes(device: str, arr: np.ndarray) -> None:
    t = tc.tensor(arr, device=device)
    assert t.dtype.name == np.asarray(arr).dtype.name
    assert_close(t, np.asarray(arr))


def test_numpy_float64_scalar_keeps_its_dtype(device: str) -> None:
    # np.float64 subclasses float, but PyTorch reads its dtype as for any NumPy scalar.
    assert tc.tensor(np.float64(1.5), device=device).dtype is tc.float64
    assert tc.tensor([np.float64(1.5), 1], device=device).dtype is tc.float64


@pytest.mark.parametrize(
    ("data", "want"),
    [
        ([np.int64(1), np.int64(2)], tc.int64),
        ([np.float32(1.5)], tc.float32),
        ([np.int32(3)], tc.int32),
        ([np.bool_(True)], tc.bool),
        ([np.float32(1), 2], tc.float32),  # promote(float32, int64)
        ([np.int64(1), 2.5], tc.float32),  # promote(int64, the default float)
        ([[np.float16(1)]], tc.float16),
        (np.float32(2.0), tc.float32),
        ([np.uint8(3)], tc.uint8),
        ([np.complex64(1j)], tc.complex64),
        ([[1, 2], [3, np.int16(4)]], tc.int64),
    ],
)
def test_tensor_of_numpy_scalars_promotes_their_dtypes(device: str, data: Any, want: Any) -> None:
    t = tc.tensor(data, device=device)
    assert t.dtype is want
    assert_close(t, np.array(data, dtype=np.dtype(want.name) if want is not tc.bool else bool))


def test_tensor_of_tensors_and_numbers_promotes_every_element(device: str) -> None:
    # PyTorch promotes over the elements: a Python int counts as int64, a float as the
    # default dtype (it does not defer to the tensors as an operator's scalar would).
    i32 = tc.tensor(1, dtype=tc.int32)
    assert tc.tensor([i32, 2.5], device=device).dtype is tc.float32
    assert tc.tensor([i32, 2], device=device).dtype is tc.int64
    assert tc.tensor([tc.tensor(True), 2], device=device).dtype is tc.int64
    assert tc.tensor([tc.tensor(1.0, dtype=tc.float16), 2.5], device=device).dtype is tc.float32
    assert tc.tensor([tc.tensor(1.0, dtype=tc.float64), 2], device=device).dtype is tc.float64


def test_tensor_copies_its_input(device: str) -> None:
    a = np.array([1.0, 2.0])
    t = tc.tensor(a, device=device)
    a[0] = 100
    assert t.tolist() == [1.0, 2.0]
    # PyTorch's warning, pointing at the caller; the copy is detached, on the data's device.
    w = t.clone().requires_grad_()
    with pytest.warns(UserWarning, match=r"rather than tensorcore.tensor\(sourceTensor\)") as rec:
        u = tc.tensor(w)
    assert rec[0].filename == __file__
    assert u.untyped_storage() is not w.untyped_storage() and not u.requires_grad
    assert u.tolist() == [1.0, 2.0] and u.device == w.device
    with pytest.warns(UserWarning, match=r"rather than tensor.new_tensor\(sourceTensor\)") as rec:
        v = t.new_tensor(t)
    assert rec[0].filename == __file__ and v.tolist() == [1.0, 2.0]


def test_tensor_dtype_argument(device: str) -> None:
    assert tc.tensor([1, 2], dtype=tc.float64, device=device).tolist() == [1.0, 2.0]
    assert tc.tensor([1.7, -1.7], dtype=tc.int64, device=device).tolist() == [1, -1]
    assert tc.tensor([0, 2], dtype=tc.bool, device=device).tolist() == [False, True]
    if dtype_unsupported(device, tc.bfloat16) is None:
        assert tc.tensor([1.5], dtype=tc.bfloat16, device=device).dtype is tc.bfloat16
    assert tc.tensor([[1, 2]], dtype=tc.complex128, device=device).tolist() == [[1 + 0j, 2 + 0j]]
    assert tc.tensor([tc.tensor(1), tc.tensor(2)], device=device).tolist() == [1, 2]


def test_tensor_rejects_bad_data(device: str) -> None:
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 3\\)"):
        tc.tensor([[1, 2], [3, 4, 5]], device=device)
    with pytest.raises(TypeError):
        tc.tensor(["a"], device=device)
    with pytest.raises(TypeError):
        tc.tensor([object()], device=device)


def test_default_dtype_applies_to_tensor() -> None:
    tc.set_default_dtype(tc.float64)
    assert tc.tensor([1.5]).dtype is tc.float64
    assert tc.tensor([]).dtype is tc.float64
    assert tc.zeros(2).dtype is tc.float64
    assert tc.arange(0.0, 1.0, 0.5).dtype is tc.float64


# ---------------------------------------------------------------- memory sharing with NumPy
def test_from_numpy_shares_memory() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tc.from_numpy(a)
    assert t.dtype is tc.float32 and t.shape == (2, 3) and t.device.type == "cpu"
    a[0, 0] = 100
    assert t[0, 0].item() == 100
    t[1, 2] = -1
    assert a[1, 2] == -1
    s = tc.from_numpy(a[:, ::2])
    assert s.stride() == (3, 2)
    a[1, 2] = 7
    assert s[1, 1].item() == 7


def test_from_numpy_refuses_negative_strides() -> None:
    # PyTorch cannot share memory with negative strides and says so, rather than copying.
    with pytest.raises(ValueError, match="negative"):
        tc.from_numpy(np.arange(4)[::-1])


def test_from_numpy_errors() -> None:
    with pytest.raises(TypeError, match=r"expected np\.ndarray"):
        tc.from_numpy([1, 2])
    with pytest.raises(TypeError, match=r"can't convert np\.ndarray of type uint16"):
        tc.from_numpy(np.zeros(2, np.uint16))


def test_as_tensor_shares_memory(device: str) -> None:
    a = np.array([1.0, 2.0])
    t = tc.as_tensor(a, device=device)
    if device == "cpu":
        a[0] = 5
        assert t[0].item() == 5
    c = tc.as_tensor(a, dtype=tc.float32, device=device)
    a[1] = 9
    assert c[1].item() == 2.0
    x = tc.tensor([1.0], device=device)
    assert tc.as_tensor(x) is x
    assert tc.as_tensor(x, dtype=tc.float64).dtype is tc.float64
    assert tc.as_tensor([1, 2], device=device).dtype is tc.int64


def test_numpy_shares_memory() -> None:
    t = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = t.numpy()
    a[0, 1] = 20
    assert t[0, 1].item() == 20
    v = t.t().numpy()
    assert v.strides == (4, 8)
    t[1, 0] = 30
    assert v[0, 1] == 30
    assert np.asarray(t).base is not None or np.shares_memory(np.asarray(t), a)
    assert np.shares_memory(np.asarray(t), a)
    assert np.array(t, dtype=np.float64).dtype == np.float64
    g = tc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        g.numpy()
    assert g.numpy(force=True).tolist() == [1.0, 1.0]
    assert g.detach().numpy().tolist() == [1.0, 1.0]


def test_dlpack_round_trip_is_zero_copy() -> None:
    t = tc.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(t)
    a[0] = 10
    assert t[0].item() == 10
    n = np.arange(4, dtype=np.int32)
    u = tc.from_dlpack(n)
    assert u.dtype is tc.int32
    u[1] = 40
    assert n[1] == 40
    back = tc.from_dlpack(t)
    assert back.data_ptr() == t.data_ptr()
    assert t.__dlpack_device__()[0] == 1
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        tc.ones(1, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError):
        tc.from_dlpack([1, 2])


# ---------------------------------------------------------------- factories
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_shape_factories(device: str, name: str) -> None:
    fn = getattr(tc, name)
    for args, shape in [
        ((2, 3), (2, 3)),
        (((2, 3),), (2, 3)),
        (([4],), (4,)),
        ((), ()),
        ((0,), (0,)),
    ]:
        t = fn(*args, device=device)
        assert tuple(t.shape) == shape and t.dtype is tc.float32 and t.device.type == device
        assert t.is_contiguous()
    t = fn(2, dtype=tc.int32, device=device)
    assert t.dtype is tc.int32
    if name != "empty":
        value = {"zeros": 0, "ones": 1}[name]
        assert_close(fn(2, 3, device=device), np.full((2, 3), value, np.float32))
        assert fn(2, dtype=tc.bool, device=device).tolist() == [bool(value)] * 2
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        fn(2, -1, device=device)


@pytest.mark.parametrize(
    ("fill", "dtype"), [(1, tc.int64), (1.5, tc.float32), (True, tc.bool), (1j, tc.complex64)]
)
def test_full_infers_dtype_from_fill_value(device: str, fill: object, dtype: tc.dtype) -> None:
    t = tc.full((2, 2), fill, device=device)
    assert t.dtype is dtype
    assert t.tolist() == [[fill, fill], [fill, fill]]
    assert tc.full((3,), 2, dtype=tc.float64, device=device).tolist() == [2.0, 2.0, 2.0]


def test_like_factories(device: str) -> None:
    x = tc.tensor([[1, 2, 3]], dtype=tc.int32, device=device)
    for name in ("zeros_like", "ones_like", "empty_like"):
        t = getattr(tc, name)(x)
        assert t.shape == x.shape and t.dtype is tc.int32 and t.device == x.device
        assert t.untyped_storage() is not x.untyped_storage()
    assert tc.zeros_like(x).tolist() == [[0, 0, 0]]
    assert tc.ones_like(x, dtype=tc.float64).dtype is tc.float64
    assert tc.full_like(x, 7).tolist() == [[7, 7, 7]]
    f = tc.tensor([1.0, 2.0], device=device)
    assert tc.rand_like(f).shape == (2,)
    assert tc.randn_like(f).dtype is tc.float32
    assert tc.zeros_like(x.t()).shape == (3, 1)


#: (input, the strides PyTorch 2.13's ``empty_like`` gives it): ``preserve_format`` copies
#: the strides of a dense input and lays any other out densely in the order of its strides.
LIKE_STRIDES: list[tuple[str, Any, tuple[int, ...]]] = [
    ("contiguous", lambda d: tc.ones(2, 3, 4, device=d), (12, 4, 1)),
    ("transposed", lambda d: tc.ones(3, 4, device=d).t(), (1, 4)),
    ("permuted 3-D", lambda d: tc.ones(2, 3, 4, device=d).permute(2, 0, 1), (1, 12, 4)),
    ("permuted 4-D", lambda d: tc.ones(2, 3, 4, 5, device=d).permute(0, 2, 3, 1),
     (60, 5, 1, 20)),
    ("channels last", lambda d: tc.ones(2, 4, 5, 3, device=d).permute(0, 3, 1, 2),
     (60, 1, 15, 3)),
    ("sliced columns", lambda d: tc.ones(4, 6, device=d)[:, ::2], (3, 1)),
    ("sliced transposed", lambda d: tc.ones(4, 6, device=d).t()[::2], (1, 3)),
    ("sliced permuted 4-D",
     lambda d: tc.ones(2, 3, 4, 5, device=d).permute(0, 2, 3, 1)[:, :, ::2], (36, 3, 1, 12)),
    ("expanded", lambda d: tc.ones(3, 1, device=d).expand(3, 4), (4, 1)),
    ("expanded permuted",
     lambda d: tc.ones(3, 1, 4, device=d).permute(2, 0, 1).expand(4, 3, 5), (5, 20, 1)),
    ("size-1 dim, any stride",
     lambda d: tc.ones(12, device=d).as_strided((3, 1, 4), (4, 100, 1)), (4, 100, 1)),
    ("tied strides", lambda d: tc.ones(12, device=d).as_strided((3, 4), (1, 1)), (1, 3)),
    ("empty permuted", lambda d: tc.ones(2, 0, 3, device=d).permute(2, 0, 1), (1, 3, 3)),
]  # fmt: skip
LIKE = {
    "empty_like": None,
    "zeros_like": 0.0,
    "ones_like": 1.0,
    "full_like": 7.0,
    "rand_like": "uniform",
    "randn_like": "normal",
}


@pytest.mark.parametrize("name", sorted(LIKE))
@pytest.mark.parametrize(
    ("case", "make", "strides"), LIKE_STRIDES, ids=[c[0] for c in LIKE_STRIDES]
)
def test_like_factories_preserve_the_memory_format(
    device: str, name: str, case: str, make: Any, strides: tuple[int, ...]
) -> None:
    x = make(device)
    args = (7.0,) if name == "full_like" else ()
    fn = getattr(tc, name)
    for t in (fn(x, *args), fn(x, *args, memory_format=tc.preserve_format)):
        assert t.shape == x.shape and t.dtype is x.dtype and t.device == x.device
        assert t.stride() == strides
        assert t.numel() == 0 or t.untyped_storage() is not x.untyped_storage()
        values = to_numpy(t)
        if isinstance(LIKE[name], float):
            assert (values == LIKE[name]).all()
        elif LIKE[name] == "uniform":
            assert ((values >= 0) & (values < 1)).all()
    c = fn(x, *args, memory_format=tc.contiguous_format)
    assert c.is_contiguous() and c.shape == x.shape
    assert fn(x, *args, dtype=tc.float64).stride() == strides


def test_like_factories_reject_a_bad_memory_format(device: str) -> None:
    x = tc.ones(2, 3, device=device).t()
    with pytest.raises(TypeError, match="zeros_like\\(\\): argument 'memory_format' must be"):
        tc.zeros_like(x, memory_format="channels_last")


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((5,), {}), ((1, 4), {}), ((0, 1, 0.25), {}), ((5,), {"dtype": tc.float64}),
     ((10, 0, -3), {}), ((0,), {}), ((1.0, 2.5), {}), ((-2, 2, 0.5), {}),
     ((3,), {"dtype": tc.int32})],
    ids=repr,
)  # fmt: skip
def test_arange(device: str, args: tuple, kwargs: dict) -> None:
    t = tc.arange(*args, device=device, **kwargs)
    ints = all(isinstance(a, int) for a in args)
    dtype = kwargs.get("dtype", tc.int64 if ints else tc.float32)
    assert t.dtype is dtype
    assert_close(t, np.arange(*args).astype(np.dtype(dtype.name)))


def test_arange_errors(device: str) -> None:
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tc.arange(0, 5, 0, device=device)
    with pytest.raises(
        RuntimeError, match="upper bound and larger bound inconsistent with step sign"
    ):
        tc.arange(0, 5, -1, device=device)


@pytest.mark.parametrize(
    ("start", "end", "steps"), [(0, 1, 5), (-1, 1, 4), (2, 2, 3), (0, 10, 1), (0, 1, 0)]
)
def test_linspace(device: str, start: float, end: float, steps: int) -> None:
    t = tc.linspace(start, end, steps, device=device)
    assert t.dtype is tc.float32
    assert_close(t, np.linspace(start, end, steps, dtype=np.float32))
    assert tc.linspace(start, end, steps, dtype=tc.float64, device=device).dtype is tc.float64
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        tc.linspace(0, 1, -1, device=device)


def test_linspace_rounds_as_pytorch(device: str) -> None:
    # PyTorch computes the step in the tensor's dtype and each value as start + step * i (end -
    # step * k on the second half) with one rounding for float32/float64 (a fused multiply-add)
    # and one per operation for 16-bit types; NumPy's linspace rounds otherwise. The expected
    # values are PyTorch 2.13's, written as the nearest values of each dtype.
    f32 = tc.linspace(0, 1, 21, device=device).tolist()
    assert [f32[i] for i in (3, 9, 11)] == np.float32([0.15, 0.45000002, 0.55]).tolist()
    assert tc.linspace(-1, 1, 4, device=device)[1].item() == float(np.float32(-0.33333331))
    f64 = tc.linspace(0, 1, 21, dtype=tc.float64, device=device).tolist()
    assert [f64[i] for i in (11, 13)] == [0.5499999999999999, 0.65]
    f16 = tc.linspace(0, 1, 21, dtype=tc.float16, device=device).tolist()
    assert [f16[i] for i in (3, 13)] == [0.14990234375, 0.650390625]
    assert tc.linspace(-2.7, 9.9, 4, dtype=tc.int64, device=device).tolist() == [-2, 1, 5, 9]
    inf = tc.linspace(0, float("inf"), 5, dtype=tc.float64, device=device).tolist()
    assert np.isnan(inf[0]) and inf[1] == float("inf") and np.isnan(inf[2:]).all()


@pytest.mark.parametrize("steps", [2, 3, 16, 17, 101])
def test_float32_linspace_is_the_symmetric_form_rounded_once(device: str, steps: int) -> None:
    # float32: the step in float32, each value start + step * i (end - step * k on the second
    # half) in exact float64 arithmetic, rounded once to float32; the written result the
    # same through a strided out=.
    g = np.random.default_rng(steps)
    for start, end in [(0.0, 1.0), (1.0, 0.0), *(tuple(g.normal(0, 100, 2)) for _ in range(5))]:
        s, e = np.float32(start), np.float32(end)
        step = np.float64((e - s) / np.float32(steps - 1))
        i = np.arange(steps, dtype=np.float64)
        want = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
        want = want.astype(np.float32)
        got = to_numpy(tc.linspace(float(start), float(end), steps, device=device))
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        out = tc.zeros(2 * steps, device=device)
        tc.linspace(float(start), float(end), steps, out=out[::2])
        assert np.array_equal(to_numpy(out[::2]).view(np.uint32), want.view(np.uint32))
        assert not to_numpy(out[1::2]).any()


@pytest.mark.parametrize(
    "args",
    [(16,), (0,), (2, 40, 3), (40, 2, -3), (2**62 - 20, 2**62 - 1, 3), (-(2**63), -(2**63) + 5)],
)
def test_integer_arange_is_the_range(device: str, args: tuple) -> None:
    t = tc.arange(*args, device=device)
    assert t.dtype is tc.int64 and t.tolist() == list(range(*args))


def test_eye(device: str) -> None:
    assert_close(tc.eye(3, device=device), np.eye(3, dtype=np.float32))
    assert_close(tc.eye(2, 4, device=device), np.eye(2, 4, dtype=np.float32))
    assert_close(tc.eye(3, 2, dtype=tc.int64, device=device), np.eye(3, 2, dtype=np.int64))
    assert tc.eye(0, device=device).shape == (0, 0)


# ---------------------------------------------------------------- random
def test_random_factories(device: str) -> None:
    tc.manual_seed(0)
    r = tc.rand(1000, device=device)
    a = to_numpy(r)
    assert r.dtype is tc.float32 and r.shape == (1000,)
    assert a.min() >= 0 and a.max() < 1 and 0.4 < a.mean() < 0.6
    n = to_numpy(tc.randn(2000, dtype=tc.float64, device=device))
    assert abs(n.mean()) < 0.1 and 0.9 < n.std() < 1.1
    i = tc.randint(3, 7, (500,), device=device)
    assert i.dtype is tc.int64
    assert set(to_numpy(i).tolist()) == {3, 4, 5, 6}
    assert set(to_numpy(tc.randint(2, (100,), device=device)).tolist()) == {0, 1}
    p = tc.randperm(10, device=device)
    assert p.dtype is tc.int64 and sorted(p.tolist()) == list(range(10))
    assert tc.randperm(0, device=device).shape == (0,)
    assert tc.rand(2, 3, device=device).shape == (2, 3)
    assert tc.randn((2, 3), device=device).shape == (2, 3)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to'"):
        tc.randint(5, 5, (2,), device=device)


def test_normal(device: str) -> None:
    tc.manual_seed(1)
    x = to_numpy(tc.normal(5.0, 2.0, (4000,), device=device))
    assert abs(x.mean() - 5) < 0.2 and 1.8 < x.std() < 2.2
    mean = tc.tensor([0.0, 100.0], device=device)
    y = tc.normal(mean, 0.001)
    assert y.shape == (2,) and abs(y[1].item() - 100) < 0.1
    z = tc.normal(mean, tc.tensor([[1.0], [2.0]], device=device))
    assert z.shape == (2, 2)


def test_in_place_random_fills(device: str) -> None:
    t = tc.empty(3000, device=device)
    version = t._version
    assert t.uniform_(-2, 3) is t
    a = to_numpy(t)
    assert a.min() >= -2 and a.max() < 3 and 0.3 < a.mean() < 0.7
    assert t._version > version
    t.normal_(10, 0.5)
    a = to_numpy(t)
    assert abs(a.mean() - 10) < 0.1 and 0.4 < a.std() < 0.6
    v = tc.zeros(4, 4, device=device)[:, 1]
    v.uniform_()
    assert (v != 0).all().item()
    i = tc.zeros(100, dtype=tc.int64, device=device)
    i.random_(0, 3)
    assert set(to_numpy(i).tolist()) <= {0, 1, 2}


def test_manual_seed_reproducibility(device: str) -> None:
    tc.manual_seed(42)
    a = tc.rand(5, device=device)
    b = tc.randn(5, device=device)
    tc.manual_seed(42)
    assert tc.rand(5, device=device).tolist() == a.tolist()
    assert tc.randn(5, device=device).tolist() == b.tolist()
    tc.manual_seed(43)
    assert tc.rand(5, device=device).tolist() != a.tolist()
    assert tc.initial_seed() == 43


def test_generators_are_independent_streams(device: str) -> None:
    g1 = tc.Generator(device).manual_seed(3)
    g2 = tc.Generator(device).manual_seed(3)
    x = tc.rand(4, generator=g1, device=device)
    assert tc.rand(4, generator=g2, device=device).tolist() == x.tolist()
    assert tc.rand(4, generator=g1, device=device).tolist() != x.tolist()
    assert g1.initial_seed() == 3
    tc.manual_seed(0)
    expected = tc.rand(3, device=device).tolist()
    tc.manual_seed(0)
    tc.rand(3, generator=tc.Generator(device).manual_seed(9), device=device)
    assert tc.rand(3, device=device).tolist() == expected
    e = tc.empty(3, device=device)
    assert (
        e.normal_(generator=tc.Generator(device).manual_seed(5)).tolist()
        == tc.empty(3, device=device)
        .normal_(generator=tc.Generator(device).manual_seed(5))
        .tolist()
    )
    with pytest.raises(TypeError):
        tc.Generator().manual_seed(1.5)  # type: ignore[arg-type]


# ---------------------------------------------------------------- conversions
def test_to_returns_self_when_nothing_changes(device: str) -> None:
    x = tc.tensor([1.5, -2.5], device=device)
    assert x.to(tc.float32) is x
    assert x.to(device) is x
    assert x.to(device, tc.float32) is x
    assert x.to(dtype=tc.float32, device=device) is x
    assert x.to(x) is x
    c = x.to(tc.float32, copy=True)
    assert c is not x and c.untyped_storage() is not x.untyped_storage()
    d = x.to(tc.float64)
    assert d.dtype is tc.float64 and d.tolist() == [1.5, -2.5]
    i = tc.tensor([1, 2], device=device)
    assert x.to(i).dtype is tc.int64
    assert x.to(i).tolist() == [1, -2]
    assert x.type_as(i).dtype is tc.int64
    with pytest.raises(TypeError):
        x.to(3.5)


@pytest.mark.parametrize(
    ("method", "dtype"),
    [("float", tc.float32), ("double", tc.float64), ("half", tc.float16), ("bfloat16", tc.bfloat16),
     ("int", tc.int32), ("long", tc.int64), ("short", tc.int16), ("char", tc.int8),
     ("byte", tc.uint8), ("bool", tc.bool), ("cfloat", tc.complex64), ("cdouble", tc.complex128)],
)  # fmt: skip
def test_cast_methods(device: str, method: str, dtype: tc.dtype) -> None:
    x = tc.tensor([0.0, 1.75, 2.5], device=device)
    y = getattr(x, method)()
    assert y.dtype is dtype
    if dtype is not tc.bfloat16:
        expected = np.array([0.0, 1.75, 2.5], np.float32).astype(np.dtype(dtype.name))
        assert_close(y, expected)
    assert getattr(y, method)() is y


def test_item_and_tolist(device: str) -> None:
    assert tc.tensor(3, device=device).item() == 3
    assert type(tc.tensor(3, device=device).item()) is int
    assert type(tc.tensor([2.5], device=device).item()) is float
    assert type(tc.tensor(True, device=device).item()) is bool
    assert tc.tensor(1j, device=device).item() == 1j
    with pytest.raises(RuntimeError):
        tc.tensor([1, 2], device=device).item()
    nested = tc.tensor([[1, 2], [3, 4]], device=device).tolist()
    assert nested == [[1, 2], [3, 4]] and type(nested[0][0]) is int
    assert tc.tensor(2.5, device=device).tolist() == 2.5
    assert tc.tensor([[1.0, 2.0]], device=device).t().tolist() == [[1.0], [2.0]]
    assert int(tc.tensor([7], device=device)) == 7
    assert float(tc.tensor(7, device=device)) == 7.0
    assert bool(tc.tensor([0], device=device)) is False
    assert [1, 2, 3][tc.tensor(1, device=device)] == 2
    with pytest.raises(TypeError):
        [1, 2][tc.tensor(1.0, device=device)]
    assert math.isnan(tc.tensor(float("nan"), device=device).item())


def _suffix(device: str) -> str:
    return "" if device == "cpu" else f", device='{tc.empty(0, device=device).device}'"


@pytest.mark.parametrize(
    ("make", "text"),
    [
        (lambda d: tc.tensor([1.0, 2.0], device=d), "tensor([1., 2.]{s})"),
        (lambda d: tc.tensor([1.5, 2.25], device=d), "tensor([1.5000, 2.2500]{s})"),
        (lambda d: tc.tensor([1, 2], device=d), "tensor([1, 2]{s})"),
        (
            lambda d: tc.tensor([1, 2], dtype=tc.int32, device=d),
            "tensor([1, 2]{s}, dtype=tensorcore.int32)",
        ),
        (lambda d: tc.tensor([True, False], device=d), "tensor([ True, False]{s})"),
        (lambda d: tc.tensor(3.0, device=d), "tensor(3.{s})"),
        (lambda d: tc.tensor([[1, 2], [3, 4]], device=d), "tensor([[1, 2],\n        [3, 4]]{s})"),
        (
            lambda d: tc.tensor([1.0, 2.0], dtype=tc.float64, device=d),
            "tensor([1., 2.]{s}, dtype=tensorcore.float64)",
        ),
        (
            lambda d: tc.tensor([1.0, 2.0], requires_grad=True, device=d),
            "tensor([1., 2.]{s}, requires_grad=True)",
        ),
        (lambda d: tc.tensor([], device=d), "tensor([]{s})"),
        (lambda d: tc.zeros(2, 0, device=d), "tensor([]{s}, size=(2, 0))"),
        (lambda d: tc.tensor([1e-5, 1.0], device=d), "tensor([1.0000e-05, 1.0000e+00]{s})"),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_repr_in_pytorch_style(device: str, make: object, text: str) -> None:
    assert repr(make(device)) == text.format(s=_suffix(device))  # type: ignore[operator]


def test_repr_summarizes_large_tensors() -> None:
    text = repr(tc.arange(2000))
    assert text == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
