"""The arithmetic of ``assert_close``: where two NumPy arrays are close, and PyTorch's
mismatch messages, each number computed in the dtype PyTorch computes it in (so that the
messages carry PyTorch's digits). NumPy is imported inside the functions."""

from __future__ import annotations

from typing import Any

from ..dtypes import get_default_dtype
from ._helpers import numpy_dtype

__all__ = ["scalar_mismatch_msg", "values_mismatch"]


def _mismatch_msg(
    identifier: str,
    extra: str,
    rtol: float,
    atol: float,
    abs_diff: Any,
    rel_diff: Any,
    abs_idx: tuple[int, ...] | None = None,
    rel_idx: tuple[int, ...] | None = None,
) -> str:
    """PyTorch's mismatch message: a header, ``extra``, then the absolute and the relative
    difference (the greatest ones, with their index, for tensors)."""
    equality = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if equality else 'close'}!", "", extra.strip()]
    for kind, diff, idx, tol in (
        ("absolute", abs_diff, abs_idx, atol),
        ("relative", rel_diff, rel_idx, rtol),
    ):
        line = (
            f"{kind.title()} difference: {diff}"
            if idx is None
            else f"Greatest {kind} difference: {diff} at index {idx}"
        )
        lines.append(line if equality else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def scalar_mismatch_msg(
    actual: Any, expected: Any, rtol: float, atol: float, identifier: str = "Scalars"
) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    extra = f"Expected {expected} but got {actual}."
    return _mismatch_msg(identifier, extra, rtol, atol, abs_diff, rel_diff)


def values_mismatch(
    actual: Any,
    expected: Any,
    rtol: float,
    atol: float,
    equal_nan: bool,
    identifier: str | None = None,
) -> str | None:
    """PyTorch's message for the arrays ``actual`` and ``expected`` (one dtype, one shape)
    where they are not close, else None. Each step runs in the dtype ``torch.isclose`` and
    the message's arithmetic use, so that the numbers are PyTorch's."""
    import numpy as np

    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    nd = actual.dtype
    floating = nd.kind in "fc" or nd.kind == "V"
    with np.errstate(all="ignore"):
        matches = actual == expected
        if equal_nan and floating:
            matches |= np.isnan(actual) & np.isnan(expected)
        if rtol != 0 or atol != 0:
            matches |= _within(actual, expected, rtol, atol)
        if matches.all():
            return None
        if actual.ndim == 0:
            a, e = actual.item(), expected.item()
            return scalar_mismatch_msg(a, e, rtol, atol, identifier or "Scalars")
        n = matches.size
        bad = n - int(np.count_nonzero(matches))
        extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
        a, e, ok = actual.ravel(), expected.ravel(), matches.ravel()
        if not floating:
            a, e = a.astype(np.int64), e.astype(np.int64)
        diff = a - e
        abs_diff = _abs(diff)
        abs_diff[ok] = 0
        if floating:
            rel_diff = abs_diff / _abs(e)
        else:  # (an integer division gives the default floating dtype)
            real = _default_float()
            rel_diff = abs_diff.astype(real) / np.abs(e).astype(real)
        rel_diff[ok] = 0
        (abs_val, abs_idx), (rel_val, rel_idx) = (
            _greatest(x, actual.shape) for x in (abs_diff, rel_diff)
        )
        if nd == np.complex128:  # the printed values exactly as std::abs (hypot) gives them
            i = int(np.ravel_multi_index(abs_idx, actual.shape))
            abs_val = 0.0 if ok[i] else abs(complex(diff[i]))
            i = int(np.ravel_multi_index(rel_idx, actual.shape))
            rel_val = 0.0 if ok[i] else abs(complex(diff[i])) / abs(complex(e[i]))
    identifier = identifier or "Tensor-likes"
    return _mismatch_msg(identifier, extra, rtol, atol, abs_val, rel_val, abs_idx, rel_idx)


def _within(actual: Any, expected: Any, rtol: float, atol: float) -> Any:
    """Where ``|actual - expected| <= atol + rtol * |expected|`` (and finite), computed as
    ``torch.isclose`` computes it: bool and integers as the default floating dtype, float16
    and bfloat16 in float32 rounded to the dtype after each step, others in their dtype."""
    import numpy as np

    nd = actual.dtype
    if nd.kind in "biu":
        nd = _default_float()
        actual, expected = actual.astype(nd), expected.astype(nd)
    if nd.itemsize == 2:  # float16, bfloat16: PyTorch computes in float32 and rounds
        f32 = np.dtype(np.float32)
        scaled = (np.float32(rtol) * expected.astype(f32)).astype(nd)
        allowed = (np.float32(atol) + np.abs(scaled).astype(f32)).astype(nd)
    else:
        real = {"complex64": np.float32, "complex128": np.float64}.get(nd.name, nd.type)
        allowed = real(atol) + _abs(real(rtol) * expected)
    error = _abs(actual - expected)
    return np.isfinite(error) & (error <= allowed)


def _abs(x: Any) -> Any:
    """``abs`` of array ``x`` as PyTorch's CPU kernels round it: complex magnitudes
    correctly rounded (NumPy's ``hypot`` is off by an ulp at times), through float64 for
    complex64 and through the extended ``longdouble`` for complex128."""
    import numpy as np

    if x.dtype == np.complex64:
        re, im = x.real.astype(np.float64), x.imag.astype(np.float64)
        return np.sqrt(re * re + im * im).astype(np.float32)
    if x.dtype == np.complex128:
        re, im = x.real.astype(np.longdouble), x.imag.astype(np.longdouble)
        return np.sqrt(re * re + im * im).astype(np.float64)
    return np.abs(x)


def _greatest(diff: Any, shape: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
    """The greatest of the flat array ``diff`` (NaN first) as a Python number, and its index
    in ``shape`` (the first, on ties)."""
    import numpy as np

    if diff.dtype.itemsize == 2 and diff.dtype.kind in "fV":
        value = diff.astype(np.float32)  # (exact; argmax of float32 takes NaN first)
    else:
        value = diff
    i = int(np.argmax(value))
    return value[i].item(), tuple(int(k) for k in np.unravel_index(i, shape))


def _default_float() -> Any:

    return numpy_dtype(get_default_dtype())
