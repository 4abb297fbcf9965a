"""``repr`` of tensors in PyTorch's style."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from . import dtypes as dt

if TYPE_CHECKING:
    from ._tensor import Tensor

__all__ = ["format_tensor"]

_SUMMARIZE = 1000
_EDGE = 3


def _fmt_float(values: list[float]) -> Any:
    finite = [abs(v) for v in values if math.isfinite(v)]
    ints = all(v == int(v) for v in values if math.isfinite(v))
    big = max(finite, default=0.0)
    small = min((v for v in finite if v), default=0.0)
    if ints and big < 1e8:
        width = max(
            (len(f"{v:.0f}.") if math.isfinite(v) else len(_special(v)) for v in values), default=1
        )
        return lambda v: (f"{v:.0f}." if math.isfinite(v) else _special(v)).rjust(width)
    if big >= 1e8 or (small and (small < 1e-4 or big / small > 1e3)):
        width = max(
            (len(f"{v:.4e}") if math.isfinite(v) else len(_special(v)) for v in values), default=1
        )
        return lambda v: (f"{v:.4e}" if math.isfinite(v) else _special(v)).rjust(width)
    width = max(
        (len(f"{v:.4f}") if math.isfinite(v) else len(_special(v)) for v in values), default=1
    )
    return lambda v: (f"{v:.4f}" if math.isfinite(v) else _special(v)).rjust(width)


def _special(v: float) -> str:
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def _flat(x: Any) -> list[Any]:
    if isinstance(x, list):
        return [y for e in x for y in _flat(e)]
    return [x]


def _summarize(x: Any, depth: int, ndim: int) -> Any:
    if depth == ndim or not isinstance(x, list):
        return x
    if len(x) > 2 * _EDGE:
        return (
            [_summarize(e, depth + 1, ndim) for e in x[:_EDGE]]
            + ["..."]
            + [_summarize(e, depth + 1, ndim) for e in x[-_EDGE:]]
        )
    return [_summarize(e, depth + 1, ndim) for e in x]


def _render(x: Any, fmt: Any, indent: int) -> str:
    if not isinstance(x, list):
        return "..." if x == "..." else fmt(x)
    if not x or not isinstance(x[0], list):
        # PyTorch pads the ellipsis of a summarised row like an element: "2,  ..., 1997".
        return "[" + ", ".join(" ..." if e == "..." else fmt(e) for e in x) + "]"
    sep = ",\n" + "\n" * (_depth(x) - 2) + " " * (indent + 1)
    return "[" + sep.join("..." if e == "..." else _render(e, fmt, indent + 1) for e in x) + "]"


def _depth(x: Any) -> int:
    d = 0
    while isinstance(x, list) and x:
        d += 1
        x = x[0]
    return d


def format_tensor(t: Tensor) -> str:
    """PyTorch-style text for a tensor, e.g. ``tensor([1., 2.], dtype=tensorcore.float64)``."""
    if t._layout.name != "strided":
        return (
            f"tensor(layout={t._layout}, size={list(t._shape)}, dtype={t._dtype}, "
            f"device='{t._device}')"
        )
    data = t.detach().cpu().tolist() if t._device.type != "cpu" else t.detach().tolist()  # type: ignore[attr-defined]
    n = t.numel()
    if n > _SUMMARIZE:
        data = _summarize(data, 0, t.ndim)
    values = [v for v in _flat(data) if v != "..."]
    d = t._dtype
    if d.is_complex:
        re = _fmt_float([v.real for v in values])
        im = _fmt_float([abs(v.imag) for v in values])

        def fmt(v: Any) -> str:
            return f"{re(v.real)}{'+' if v.imag >= 0 else '-'}{im(abs(v.imag)).strip()}j"
    elif d.is_floating_point:
        fmt = _fmt_float(values)
    elif d is dt.bool_:
        width = max((len(str(v)) for v in values), default=4)

        def fmt(v: Any) -> str:
            return str(v).rjust(width)
    else:
        width = max((len(str(v)) for v in values), default=1)

        def fmt(v: Any) -> str:
            return str(v).rjust(width)

    if n == 0:
        data = []
    body = _render(data, fmt, len("tensor(")) if t.ndim else fmt(data)
    suffix = []
    if n == 0 and t.ndim > 1:
        suffix.append(f"size={tuple(t._shape)}")
    if t._device.type != "cpu":
        suffix.append(f"device='{t._device}'")
    if d not in (
        dt.get_default_dtype(),
        dt.int64,
        dt.bool_,
        dt.get_default_dtype().to_complex(),
    ) or (n == 0 and d is not dt.get_default_dtype()):
        suffix.append(f"dtype={d}")
    if t._grad_fn is not None:
        suffix.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
