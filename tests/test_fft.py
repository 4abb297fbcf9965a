"""``tensorcore.fft`` against NumPy's ``numpy.fft``: every transform with every ``norm``, with
and without ``n``/``s`` (padding and trimming), over several dims, on real, complex and
integer inputs (contiguous or not); the result dtypes, ``out=``, PyTorch's errors, the
frequency factories and the shifts; gradients by finite differences."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

NORMS = (None, "backward", "ortho", "forward")
ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2") + (
    "fftn",
    "ifftn",
    "rfftn",
    "irfftn",
    "hfftn",
    "ihfftn",
)
#: The transforms that take a real input only, and those whose result is real.
REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}
REAL_OUT = {"irfft", "hfft", "irfft2", "irfftn", "hfft2", "hfftn"}
#: A norm read in the other direction (NumPy has no n-D hfft: the oracle writes them with
#: the real transforms of the other direction).
FLIP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}
#: Input dtypes: name -> (tensorcore dtype, NumPy dtype the transform computes in).
INPUTS = {
    "float32": (tc.float32, np.float32),
    "float64": (tc.float64, np.float64),
    "complex64": (tc.complex64, np.complex64),
    "complex128": (tc.complex128, np.complex128),
    "int64": (tc.int64, np.float32),  # integers go through the default float dtype
}


def _data(kind: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "int64":
        return rng.integers(-4, 5, shape)
    x = rng.standard_normal(shape)
    if kind.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(INPUTS[kind][1])


def _tensor(a: np.ndarray, device: str, contiguous: bool) -> tc.Tensor:
    """``a`` as a tensor, or as a permuted (non-contiguous) view holding the same values."""
    if contiguous:
        return tc.tensor(a, device=device)
    t = tc.tensor(np.ascontiguousarray(np.moveaxis(a, 0, -1)), device=device)
    return t.movedim(-1, 0)


def _tol(dtype: tc.dtype) -> dict[str, float]:
    single = dtype in (tc.float32, tc.complex64)
    return {"rtol": 2e-4, "atol": 2e-4} if single else {"rtol": 1e-10, "atol": 1e-10}


def _expected_dtype(name: str, kind: str) -> tc.dtype:
    real = {np.float32: tc.float32, np.float64: tc.float64}[
        np.dtype(INPUTS[kind][1]).type
        if not kind.startswith("complex")
        else (np.float32 if kind == "complex64" else np.float64)
    ]
    return real if name in REAL_OUT else real.to_complex()


def _oracle_nd(
    name: str, a: np.ndarray, s: Sequence[int] | None, dim: Sequence[int] | None, norm: Any
) -> np.ndarray:
    """NumPy's transform with PyTorch's reading of ``s`` and ``dim``: ``s`` alone names the
    last ``len(s)`` dims, ``-1`` keeps a size, and an inverse real transform's last size
    defaults to ``2 * (size - 1)``."""
    if dim is None:
        dim = range(a.ndim - len(s), a.ndim) if s is not None else range(a.ndim)
    axes = [d % a.ndim for d in dim]
    sizes = [a.shape[d] for d in axes] if s is None else list(s)
    sizes = [a.shape[d] if n == -1 else n for n, d in zip(sizes, axes, strict=True)]
    base = name.rstrip("2n")
    if base in ("irfft", "hfft") and (s is None or s[-1] == -1):
        sizes[-1] = 2 * (a.shape[axes[-1]] - 1)
    if base == "hfft":
        return np.fft.irfftn(np.conj(a), s=sizes, axes=axes, norm=FLIP[norm])  # type: ignore[no-any-return]
    if base == "ihfft":
        return np.conj(np.fft.rfftn(a, s=sizes, axes=axes, norm=FLIP[norm]))  # type: ignore[no-any-return]
    fn = getattr(np.fft, base + "n")
    return fn(a, s=sizes, axes=axes, norm=norm)  # type: ignore[no-any-return]


def _cases_1d() -> list[Any]:
    out = []
    for name, kind in itertools.product(ONE_D, INPUTS):
        if name in REAL_IN and kind.startswith("complex"):
            continue
        out.append(pytest.param(name, kind, id=f"{name}-{kind}"))
    return out


@pytest.mark.parametrize(("name", "kind"), _cases_1d())
@pytest.mark.parametrize("norm", NORMS, ids=str)
def test_one_dimensional_transforms_match_numpy(
    device: str, name: str, kind: str, norm: Any
) -> None:
    a = _data(kind, (3, 4, 5))
    fn = getattr(tc.fft, name)
    oracle = getattr(np.fft, name)
    compute = a.astype(INPUTS[kind][1])
    for (n, dim), contiguous in itertools.product(
        [(None, -1), (None, 0), (3, -1), (8, 1), (1, 0), (2, -1)], (True, False)
    ):
        if n is None and name in ("irfft", "hfft") and a.shape[dim] == 1:
            continue
        got = fn(_tensor(a, device, contiguous), n=n, dim=dim, norm=norm)
        want = oracle(compute, n=n, axis=dim, norm=norm)
        assert got.dtype is _expected_dtype(name, kind), (n, dim)
        assert_close(
            got,
            want,
            check_dtype=False,
            msg=lambda m, at=f"n={n} dim={dim}": f"{at}: {m}",
            **_tol(got.dtype),
        )


def _cases_nd() -> list[Any]:
    out = []
    for name, kind in itertools.product(N_D, INPUTS):
        if name in REAL_IN and kind.startswith("complex"):
            continue
        out.append(pytest.param(name, kind, id=f"{name}-{kind}"))
    return out


#: (s, dim) for the n-D transforms; the 2-D ones take the pairs with two dims (or None).
SHAPES_AND_DIMS = [
    (None, None),
    ((3, 6), None),
    ((6,), None),
    (None, (0, 2)),
    ((2, 7), (2, 0)),
    ((-1, 4), (1, 2)),
    (None, (-3, 1)),
    ((5, 2, 3), (0, 1, 2)),
]


@pytest.mark.parametrize(("name", "kind"), _cases_nd())
@pytest.mark.parametrize("norm", NORMS, ids=str)
def test_n_dimensional_transforms_match_numpy(device: str, name: str, kind: str, norm: Any) -> None:
    a = _data(kind, (3, 4, 5))
    fn = getattr(tc.fft, name)
    compute = a.astype(INPUTS[kind][1])
    two = name.endswith("2")
    for (s, dim), contiguous in itertools.product(SHAPES_AND_DIMS, (True, False)):
        if two and ((dim is not None and len(dim) != 2) or (s is not None and len(s) != 2)):
            continue
        kwargs: dict[str, Any] = {"s": s, "norm": norm}
        if dim is not None or not two:
            kwargs["dim"] = dim
        got = fn(_tensor(a, device, contiguous), **kwargs)
        want = _oracle_nd(name, compute, s, dim if dim is not None or not two else (-2, -1), norm)
        assert got.dtype is _expected_dtype(name, kind), (s, dim)
        assert_close(
            got,
            want,
            check_dtype=False,
            msg=lambda m, at=f"s={s} dim={dim}": f"{at}: {m}",
            **_tol(got.dtype),
        )


def test_transforms_keep_single_precision(device: str) -> None:
    x = tc.randn(4, 6, device=device)
    z = tc.randn(4, 6, dtype=tc.complex64, device=device)
    assert tc.fft.fft(x).dtype is tc.complex64
    assert tc.fft.fftn(z).dtype is tc.complex64
    assert tc.fft.rfft2(x).dtype is tc.complex64
    assert tc.fft.irfftn(z).dtype is tc.float32
    assert tc.fft.hfft(z).dtype is tc.float32
    assert tc.fft.ihfft(x.double()).dtype is tc.complex128
    assert tc.fft.irfft(x.double()).dtype is tc.float64  # a real input of irfft: complex128


def test_integer_and_bool_inputs_use_the_default_float(device: str) -> None:
    ints = tc.tensor([1, 2, 3, 4], device=device)
    mask = tc.tensor([True, False, True], device=device)
    assert tc.fft.fft(ints).dtype is tc.complex64
    assert tc.fft.rfft(mask).dtype is tc.complex64
    assert tc.fft.irfft(ints).dtype is tc.float32
    tc.set_default_dtype(tc.float64)
    assert tc.fft.fft(ints).dtype is tc.complex128
    assert tc.fft.hfft(mask).dtype is tc.float64
    assert_close(tc.fft.fft(ints), np.fft.fft(np.array([1.0, 2.0, 3.0, 4.0])))


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16], ids=lambda d: d.name)
@pytest.mark.parametrize("name", ONE_D + N_D)
def test_16_bit_floats_are_refused(device: str, name: str, dtype: tc.dtype) -> None:
    x = tc.ones(2, 4, dtype=dtype, device=device)
    word = "Half" if dtype is tc.float16 else "BFloat16"
    with pytest.raises(RuntimeError, match=f"Unsupported dtype {word}"):
        getattr(tc.fft, name)(x)


def test_round_trips(device: str) -> None:
    a = _data("float64", (3, 5, 4))
    x = tc.tensor(a, device=device)
    for norm in NORMS:
        assert_close(tc.fft.ifft(tc.fft.fft(x, norm=norm), norm=norm).real, a)
        assert_close(tc.fft.irfft(tc.fft.rfft(x, norm=norm), n=4, norm=norm), a)
        assert_close(tc.fft.irfftn(tc.fft.rfftn(x, norm=norm), s=(3, 5, 4), norm=norm), a)
        assert_close(tc.fft.hfft(tc.fft.ihfft(x, norm=norm), n=4, norm=norm), a)
        assert_close(tc.fft.hfftn(tc.fft.ihfftn(x, norm=norm), s=(3, 5, 4), norm=norm), a)
        assert_close(tc.fft.ifft2(tc.fft.fft2(x, norm=norm), norm=norm).real, a)


def test_zero_dimensional_and_empty_inputs(device: str) -> None:
    scalar = tc.tensor(2.0, device=device)
    assert_close(tc.fft.fftn(scalar), np.complex64(2.0))
    assert tc.fft.fftn(tc.ones(2, 3, device=device), dim=()).dtype is tc.complex64
    empty_batch = tc.ones(0, 4, device=device)
    assert tc.fft.fft(empty_batch).shape == (0, 4)
    assert tc.fft.rfft(empty_batch).shape == (0, 3)
    assert tc.fft.irfft(empty_batch, n=6).shape == (0, 6)


# ------------------------------------------------------------------ out=
def test_out_takes_the_result(device: str) -> None:
    a = _data("float64", (2, 6))
    x = tc.tensor(a, device=device)
    out = tc.empty(0, dtype=tc.complex128, device=device)
    res = tc.fft.fft(x, out=out)
    assert res is out
    assert_close(out, np.fft.fft(a))
    out = tc.empty(0, dtype=tc.complex128, device=device)
    tc.fft.ihfft(x, norm="ortho", out=out)
    assert_close(out, np.fft.ihfft(a, norm="ortho"))
    real = tc.empty(0, dtype=tc.float64, device=device)
    tc.fft.irfftn(x, s=(2, 5), out=real)
    assert_close(real, np.fft.irfftn(a, s=(2, 5), axes=(0, 1)))
    single = tc.empty(2, 6, dtype=tc.complex64, device=device)
    tc.fft.fft(x, out=single)  # complex128 into complex64: cast as PyTorch does
    assert_close(single, np.fft.fft(a).astype(np.complex64))
    freq = tc.empty(0, dtype=tc.float64, device=device)
    assert tc.fft.fftfreq(4, out=freq) is freq
    assert_close(freq, np.fft.fftfreq(4))


@pytest.mark.parametrize(
    ("name", "out_dtype", "message"),
    [
        ("fft", tc.float32, "expects a complex output tensor, but got Float"),
        ("rfftn", tc.float64, "expects a complex output tensor, but got Double"),
        ("ihfft", tc.float32, "expects a complex output tensor, but got Float"),
        ("irfft", tc.complex64, "expects a floating point output tensor, but got ComplexFloat"),
        ("hfft", tc.int64, "expects a floating point output tensor, but got Long"),
    ],
)
def test_out_of_the_wrong_kind_is_refused(
    device: str, name: str, out_dtype: tc.dtype, message: str
) -> None:
    out = tc.empty(0, dtype=out_dtype, device=device)
    with pytest.raises(RuntimeError, match=f"{name}\\(\\): {message}"):
        getattr(tc.fft, name)(tc.ones(2, 4, device=device), out=out)
    assert out.shape == (0,)


# ------------------------------------------------------------------ errors
def _raises(exc: type[Exception], match: str, fn: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(exc, match=match):
        fn(*args, **kwargs)


def test_errors_have_pytorchs_types_and_words(device: str) -> None:
    x = tc.ones(2, 3, device=device)
    z = tc.ones(2, 3, dtype=tc.complex64, device=device)
    F = tc.fft
    points = r"Invalid number of data points \({}\) specified"
    _raises(RuntimeError, points.format(0), F.fft, x, n=0)
    _raises(RuntimeError, points.format(-1), F.ifft, x, n=-1)
    _raises(RuntimeError, points.format(0), F.fft, tc.ones(0, device=device))
    _raises(RuntimeError, points.format(0), F.fftn, x, s=(3, 0))
    _raises(RuntimeError, points.format(0), F.irfft, tc.ones(1, device=device))
    _raises(RuntimeError, points.format(0), F.hfft, z, n=0)
    _raises(RuntimeError, points.format(0), F.irfftn, tc.ones(2, 1, device=device))
    _raises(IndexError, "Dimension out of range", F.fft, x, dim=2)
    _raises(IndexError, "Dimension out of range", F.fft2, tc.ones(3, device=device))
    _raises(IndexError, "but tensor has no dimensions", F.fft, tc.tensor(1.0, device=device))
    _raises(RuntimeError, 'Invalid normalization mode: "bad"', F.fft, x, norm="bad")
    _raises(RuntimeError, "expects a real input tensor, but got ComplexFloat", F.rfft, z)
    _raises(RuntimeError, "expects a real input tensor, but got ComplexFloat", F.ihfft, z)
    _raises(RuntimeError, "expects a real input tensor, but got ComplexFloat", F.rfftn, z)
    _raises(RuntimeError, "FFT dims must be unique", F.fftn, x, dim=(0, 0))
    _raises(RuntimeError, "dim and shape arguments must have the same length", F.fftn, x,
            s=(2, 2), dim=(0,))  # fmt: skip
    _raises(RuntimeError, "Got shape with 3 values but input tensor only has 2 dimensions",
            F.fftn, x, s=(1, 2, 3))  # fmt: skip
    _raises(RuntimeError, "rfftn\\(\\): must transform at least one axis", F.rfftn, x, dim=())
    _raises(RuntimeError, "irfftn\\(\\): must transform at least one axis", F.irfftn, x, dim=())
    _raises(TypeError, "argument 'n' must be int", F.fft, x, n=2.0)
    _raises(TypeError, "argument 'norm' must be str", F.fft, x, norm=1)
    _raises(TypeError, "argument 'input' must be Tensor", F.fft, [1.0, 2.0])


def test_primitives_check_their_arguments(device: str) -> None:
    z = tc.ones(2, 3, dtype=tc.complex64, device=device)
    x = tc.ones(2, 4, device=device)
    _raises(RuntimeError, "normalization must be", tc._fft_c2c, z, [1], 3, True)
    _raises(NotImplementedError, "\"_fft_c2c\" not implemented for 'Float'", tc._fft_c2c, x,
            [1], 0, True)  # fmt: skip
    _raises(NotImplementedError, "\"_fft_r2c\" not implemented for 'ComplexFloat'",
            tc._fft_r2c, z, [1], 0, True)  # fmt: skip
    _raises(RuntimeError, "must transform at least one axis", tc._fft_r2c, x, [], 0, True)
    _raises(RuntimeError, "last_dim_size // 2 \\+ 1 = 2 values", tc._fft_c2r, z, [1], 0, 2)
    _raises(RuntimeError, r"Invalid number of data points \(0\)", tc._fft_c2r, z, [1], 0, 0)
    assert tc._fft_c2r(z, [1], 0, 4).shape == (2, 4)
    assert tc._fft_r2c(x, [1], 0, True).shape == (2, 3)
    assert tc._fft_r2c(x, [1, 0], 0, False).shape == (2, 4)


# ------------------------------------------------------------------ frequencies and shifts
@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.25, -2.0])
def test_fftfreq_and_rfftfreq_match_numpy(device: str, n: int, d: float) -> None:
    got = tc.fft.fftfreq(n, d, device=device)
    assert got.dtype is tc.float32 and got.device == tc.empty(0, device=device).device
    assert_close(got, np.fft.fftfreq(n, d).astype(np.float32))
    assert_close(tc.fft.rfftfreq(n, d=d, device=device), np.fft.rfftfreq(n, d).astype(np.float32))
    double = tc.fft.fftfreq(n, d, dtype=tc.float64, device=device)
    assert_close(double, np.fft.fftfreq(n, d))


def test_frequency_factories_options(device: str) -> None:
    f = tc.fft.rfftfreq(6, requires_grad=True, device=device)
    assert f.requires_grad and f.is_leaf
    assert tc.fft.fftfreq(0, device=device).shape == (0,)
    assert tc.fft.fftfreq(4, dtype=tc.float16, device=device).tolist() == [0, 0.25, -0.5, -0.25]
    inf = tc.fft.fftfreq(3, d=0.0, device=device).tolist()
    assert np.isnan(inf[0]) and inf[1:] == [np.inf, -np.inf]
    _raises(RuntimeError, "requires a floating point or complex dtype", tc.fft.fftfreq, 4,
            dtype=tc.int64)  # fmt: skip
    _raises(RuntimeError, "negative dimension -1", tc.fft.rfftfreq, -1)
    _raises(TypeError, "argument 'n' must be int", tc.fft.fftfreq, 4.0)


@pytest.mark.parametrize(
    "dim", [None, 0, 1, -1, (0, 2), (2, 0, 1)], ids=lambda d: f"dim={d}".replace(" ", "")
)
def test_shifts_match_numpy(device: str, dim: Any) -> None:
    a = np.arange(60).reshape(3, 4, 5)
    x = tc.tensor(a, device=device)
    assert_close(tc.fft.fftshift(x, dim), np.fft.fftshift(a, dim))
    assert_close(tc.fft.ifftshift(x, dim=dim), np.fft.ifftshift(a, dim))
    assert_close(tc.fft.ifftshift(tc.fft.fftshift(x, dim), dim), a)
    _raises(IndexError, "Dimension out of range", tc.fft.fftshift, x, 3)


# ------------------------------------------------------------------ gradients
def _grad_inputs(device: str, real: bool) -> tc.Tensor:
    a = _data("float64" if real else "complex128", (3, 4), seed=1)
    return tc.tensor(a, device=device).requires_grad_()


GRAD_CASES = [
    ("fft", True, {}),
    ("fft", False, {"n": 6, "norm": "ortho"}),
    ("ifft", True, {"n": 3, "dim": 0}),
    ("ifft", False, {"norm": "forward"}),
    ("rfft", True, {"n": 5}),
    ("rfft", True, {"dim": 0, "norm": "forward"}),
    ("irfft", False, {}),
    ("irfft", False, {"n": 5, "dim": 0, "norm": "ortho"}),
    ("irfft", True, {"n": 3}),
    ("hfft", False, {"n": 7}),
    ("hfft", False, {"norm": "forward"}),
    ("ihfft", True, {"n": 6, "norm": "ortho"}),
    ("fft2", False, {"s": (2, 5)}),
    ("ifft2", True, {"norm": "ortho"}),
    ("fftn", True, {"dim": (1,)}),
    ("ifftn", False, {"s": (4, 3), "norm": "forward"}),
    ("rfft2", True, {}),
    ("rfftn", True, {"s": (2, 6), "dim": (1, 0), "norm": "ortho"}),
    ("irfft2", False, {"s": (3, 5)}),
    ("irfftn", False, {"dim": (0, 1), "norm": "forward"}),
    ("irfftn", False, {"s": (4,), "dim": (0,)}),
    ("hfft2", False, {"s": (2, 5), "norm": "ortho"}),
    ("hfftn", False, {}),
    ("ihfft2", True, {"norm": "forward"}),
    ("ihfftn", True, {"s": (4, 5), "dim": (1, 0)}),
    ("fftshift", False, {"dim": (0, 1)}),
    ("ifftshift", True, {}),
]


@pytest.mark.parametrize(
    ("name", "real", "kwargs"),
    GRAD_CASES,
    ids=[f"{n}-{'real' if r else 'complex'}-{k}".replace(" ", "") for n, r, k in GRAD_CASES],
)
def test_gradients(device: str, name: str, real: bool, kwargs: dict[str, Any]) -> None:
    x = _grad_inputs(device, real)
    fn = getattr(tc.fft, name)
    assert tc.autograd.gradcheck(lambda t: fn(t, **kwargs), (x,))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "rfftn", "hfftn", "ihfftn"])
def test_second_order_gradients(device: str, name: str) -> None:
    x = _grad_inputs(device, name in ("rfft", "rfftn", "ihfftn"))
    assert tc.autograd.gradgradcheck(lambda t: getattr(tc.fft, name)(t, norm="ortho"), (x,))


def test_gradient_of_a_spectral_loss_flows_to_the_signal(device: str) -> None:
    # The energy of a real signal's spectrum (Parseval): sum |rfft|^2 with the one-sided bins
    # counted as PyTorch counts them; its gradient is analytic.
    a = _data("float64", (8,), seed=3)
    x = tc.tensor(a, device=device, requires_grad=True)
    tc.fft.fft(x, norm="ortho").abs().pow(2).sum().backward()
    assert_close(x.grad, 2 * a)
