"""The bad-input cases users reported, one test each: a standard exception that names the
operator, nothing of NumPy leaking through, and nothing written by a call that fails (the
fuzzing harness in ``test_fuzz.py`` covers the same ground across the whole API)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc

F = tc.nn.functional


def _state(t: tc.Tensor) -> Any:
    return t.shape, t.stride(), t.dtype, t._version, repr(t.tolist())


def _refused(exc: type[BaseException], match: str, fn: Callable[[], Any], *inputs: Any) -> None:
    """``fn()`` raises ``exc`` matching ``match`` and changes none of ``inputs``."""
    before = [_state(t) for t in inputs]
    with pytest.raises(exc, match=match) as info:
        fn()
    assert "ufunc" not in str(info.value) and "numpy" not in str(info.value)
    assert [_state(t) for t in inputs] == before


def test_none_never_ends_a_map_silently(device: str) -> None:
    xs = [tc.ones(1, device=device), None, tc.ones(1, device=device)]
    with pytest.raises(TypeError, match=r"exp\(\): argument 'input' must be Tensor, not NoneType"):
        list(map(tc.exp, xs))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda x: tc.add(x, None), r"add\(\): argument 'other' must be Tensor or Number"),
        (lambda x: tc.mul(x, None), r"mul\(\): argument 'other'"),
        (lambda x: F.linear(x, None), r"linear\(\): argument 'weight' must be Tensor"),
        (lambda x: tc.zeros_like(None), r"zeros_like\(\): argument 'input' must be Tensor"),
        (lambda x: x.to(tc.float32, tc.float64), r"to\(\) received an invalid combination"),
        (lambda x: tc.select(x, 0, 1.5), r"select\(\): argument 'index' must be int, not float"),
        (lambda x: tc.unflatten(x, 1, [1.5, 2]), r"unflatten\(\): argument 'sizes'"),
        (lambda x: x.as_strided([1.5], [1]), r"as_strided\(\): argument 'size'"),
        (lambda x: tc.ones(2, dtype="f"), r"ones\(\): argument 'dtype' must be tensorcore.dtype"),
        # A float argument takes a 0-d tensor, but not one with more dims or one that
        # requires grad (PyTorch's argument parser).
        (lambda x: x.uniform_(x[0, :1], 2.0), r"uniform_\(\): argument 'from_' must be float"),
        (
            lambda x: x.uniform_(x.new_tensor(0.5, requires_grad=True), 2.0),
            r"uniform_\(\): argument 'from_' must be float, not Tensor",
        ),
    ],
)
def test_wrong_argument_types(device: str, call: Any, match: str) -> None:
    x = tc.ones(2, 3, device=device)
    _refused(TypeError, match, lambda: call(x), x)


def test_a_float_argument_takes_a_0d_tensor(device: str) -> None:
    # torchvision's RandomResizedCrop: uniform_(log_ratio[0], log_ratio[1]).
    log_ratio = tc.log(tc.tensor([0.75, 4 / 3], device=device))
    x = tc.empty(1000, device=device).uniform_(log_ratio[0], log_ratio[1])
    if device != "meta":
        assert math.log(0.75) <= x.min().item() and x.max().item() <= math.log(4 / 3)
        y = tc.empty(4, device=device).uniform_(tc.tensor(True), tc.tensor(2, device=device))
        assert y.max().item() <= 2.0 and y.min().item() >= 1.0


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda x: x.unfold(1, -1, 1), r"unfold\(\): size is -1 but must be >= 0"),
        (lambda x: x[:1].expand(-5, 3), r"expand\(\): the expanded size of the tensor \(-5\)"),
        (lambda x: x[0, :1].expand(2**64), r"expand\(\): .*int64"),
        (lambda x: x.as_strided([2], [1], -1), r"as_strided\(\): .*storage offset -1"),
        (lambda x: tc.tensor([300], dtype=tc.int8), r"cannot be converted to type int8"),
        (lambda x: tc.arange(0, math.inf), r"arange\(\): unsupported range: 0 -> inf"),
        (lambda x: tc.zeros(2**62, 2**62), r"zeros\(\).*int64"),
    ],
)
def test_impossible_sizes_and_values(device: str, call: Any, match: str) -> None:
    x = tc.ones(2, 3, device=device)
    _refused(RuntimeError, match, lambda: call(x), x)


def test_assigning_none_or_nan_where_they_do_not_fit(device: str) -> None:
    t = tc.ones(3, device=device)
    _refused(
        TypeError, "can't assign a NoneType to a float32 tensor", lambda: t.__setitem__(0, None), t
    )
    i = tc.ones(3, dtype=tc.int64, device=device)
    mask = tc.ones(3, dtype=tc.bool, device=device)
    _refused(
        RuntimeError,
        r"masked_fill_\(\): value cannot be converted to type int64 without overflow",
        lambda: i.masked_fill_(mask, float("nan")),
        i,
    )
    _refused(RuntimeError, "int64 without overflow", lambda: i.__setitem__(1, math.nan), i)
    _refused(RuntimeError, "int8 without overflow", lambda: i.to(tc.int8).fill_(300))


def test_an_unusable_default_device_is_refused_when_set(device: str) -> None:
    with pytest.raises(RuntimeError, match=r"set_default_device.*'nonsense'.*install"):
        tc.set_default_device("nonsense")
    assert tc.zeros(1).device == tc.device("cpu")  # later factories still work


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda d: tc.softmax(tc.ones(3, dtype=tc.int64, device=d), 0), "\"softmax\" .*'Long'"),
        (lambda d: tc.softmax(tc.ones(3, dtype=tc.bool, device=d), 0), "\"softmax\" .*'Bool'"),
        (lambda d: tc.floor(tc.ones(2, dtype=tc.complex64, device=d)), '"floor" .*Complex'),
        (lambda d: tc.ceil(tc.ones(2, dtype=tc.complex64, device=d)), '"ceil" .*Complex'),
        (lambda d: tc.round(tc.ones(2, dtype=tc.complex64, device=d)), '"round" .*Complex'),
        (lambda d: tc.sign(tc.ones(2, dtype=tc.complex64, device=d)), '"sign" .*Complex'),
        (lambda d: tc.lt(tc.ones(2, dtype=tc.complex64, device=d), 1), '"lt" .*Complex'),
        (lambda d: tc.gt(tc.ones(2, dtype=tc.complex64, device=d), 1), '"gt" .*Complex'),
    ],
)
def test_dtypes_pytorch_refuses(device: str, call: Any, match: str) -> None:
    with pytest.raises(NotImplementedError, match=match):
        call(device)


# ------------------------------------------------------------------ a failed call changes nothing
def test_out_of_the_wrong_dtype_is_not_resized(device: str) -> None:
    a = tc.ones(3, device=device)
    calls = [
        lambda o: tc.add(a, a, out=o),
        # (mean: sum and prod compute in an out tensor's dtype instead, as PyTorch's do)
        lambda o: tc.mean(a.reshape(3, 1), 1, out=o),
        lambda o: tc.cat([a, a], out=o),
    ]
    for call in calls:
        o = tc.zeros(0, dtype=tc.int8, device=device)
        _refused(
            RuntimeError,
            "can't be cast to the desired output type Char",
            lambda call=call, o=o: call(o),
            o,
        )


@pytest.mark.parametrize("op", ["sort", "topk"])
def test_index_outputs_must_be_int64(device: str, op: str) -> None:
    x = tc.tensor([3.0, 1.0, 2.0], device=device)
    v = tc.zeros(0, device=device)
    i = tc.zeros(0, dtype=tc.int32, device=device)
    args = (x,) if op == "sort" else (x, 2)
    _refused(
        RuntimeError,
        "Expected out tensor to have dtype long int, but got int instead",
        lambda: getattr(tc, op)(*args, out=(v, i)),
        v,
        i,
    )


def test_a_bad_value_in_an_assigned_list_writes_nothing(device: str) -> None:
    t = tc.arange(3.0, device=device)
    _refused(TypeError, "can't assign", lambda: t.__setitem__(slice(0, 2), [1.0, "a"]), t)
    t[0:2] = [5.0, 6.0]  # (a list of numbers is assigned, as in PyTorch)
    assert t.tolist() == [5.0, 6.0, 2.0]


def test_indexed_writes_are_all_or_nothing(device: str) -> None:
    # Better than PyTorch, which may write the valid indices before it raises.
    t = tc.zeros(4, device=device)
    idx = tc.tensor([0, 1, 9], device=device)
    _refused(IndexError, "index 9 is out of bounds", lambda: t.__setitem__(idx, 1.0), t)
    _refused(
        IndexError, "out of bounds", lambda: t.index_put_((idx,), tc.ones(3, device=device)), t
    )
    src = tc.ones(3, device=device)
    _refused(
        RuntimeError,
        "out of bounds",
        lambda: t.scatter_(0, tc.tensor([0, 1, 9], device=device), src),
        t,
    )


def test_registering_something_that_is_no_plugin() -> None:
    with pytest.raises(TypeError, match=r"register\(\): argument 'plugin' must be a module"):
        tc.backends.register(None)
    with pytest.raises(TypeError, match=r"register\(\): argument 'name' must be str"):
        tc.backends.register(object(), name=3)


# (found by tools/diff_torch_nn.py; PyTorch 2.13's exception types and messages)
@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda x: F.pad(x, (1,)), RuntimeError, "Padding length must be divisible by 2"),
        (lambda x: F.pad(x, (1,) * 6), RuntimeError, "padding length 6 and input of dimension 2"),
        (
            lambda x: F.pad(x[None], (1, 1), mode="reflect", value=0.5),
            RuntimeError,
            'Padding mode "reflect" doesn\'t take in value argument',
        ),
        (
            lambda x: F.conv1d(x, tc.ones(1, 2, 1, device=x.device), stride=2, padding="same"),
            RuntimeError,
            "padding='same' is not supported for strided convolutions",
        ),
        (
            lambda x: F.conv1d(x, tc.ones(1, 2, 1, device=x.device), padding="full"),
            RuntimeError,
            "Invalid padding string: 'full'",
        ),
        (
            lambda x: F.group_norm(x[:1, :1], 1),
            ValueError,
            r"Expected more than 1 value per channel when training, got input size \[1, 1\]",
        ),
        (
            lambda x: F.cross_entropy(x, x.softmax(1), ignore_index=0),
            RuntimeError,
            "ignore_index is not supported for floating point target",
        ),
        (
            lambda x: F.binary_cross_entropy(x * 2, x / 2),
            RuntimeError,
            "all elements of input should be between 0 and 1",
        ),
        (
            lambda x: F.binary_cross_entropy(x * math.nan, x / 2),
            RuntimeError,
            "all elements of input should be between 0 and 1",
        ),
        (
            lambda x: F.embedding_bag(
                tc.tensor([0, 1, 2], device=x.device), x, tc.tensor([1, 2], device=x.device)
            ),
            RuntimeError,
            r"offsets\[0\] has to be 0",
        ),
    ],
)
def test_nn_functional_errors_as_pytorch(device: str, call: Any, exc: Any, match: str) -> None:
    x = tc.ones(2, 3, device=device)
    _refused(exc, match, lambda: call(x), x)


def test_adaptive_pools_are_floating_only(device: str) -> None:
    # PyTorch's kernels' errors: the 1-D pools run the 2-D kernel, the 3-D ones are named
    # per device; a 1 x 1 average is a mean, which refuses integers in its own words.
    x = tc.ones(1, 1, 4, 4, dtype=tc.uint8, device=device)
    with pytest.raises(
        NotImplementedError, match="\"adaptive_avg_pool2d\" not implemented for 'Byte'"
    ):
        F.adaptive_avg_pool2d(x, 2)
    with pytest.raises(
        NotImplementedError, match="\"adaptive_avg_pool2d\" not implemented for 'Byte'"
    ):
        F.interpolate(x, size=(2, 2), mode="area")
    with pytest.raises(
        NotImplementedError, match="\"adaptive_max_pool2d\" not implemented for 'Long'"
    ):
        F.adaptive_max_pool1d(x[0].long(), 2)
    with pytest.raises(
        NotImplementedError, match=f'"adaptive_max_pool3d_{device}" not implemented'
    ):
        F.adaptive_max_pool3d(x[None].bool(), 2, return_indices=True)
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        F.adaptive_avg_pool2d(x.to(tc.complex64), 3)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        F.adaptive_avg_pool2d(x, 1)
    assert F.adaptive_avg_pool2d(x.to(tc.complex64), 1).dtype == tc.complex64
