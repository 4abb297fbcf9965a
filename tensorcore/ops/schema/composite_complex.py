"""Complex-number operators written with other operators (``ops/composite_complex.py``)."""

from __future__ import annotations

from ._declare import _op

_op(
    "complex(Tensor real, Tensor imag) -> Tensor",
    "conversion composite",
    "The complex tensor ``real + imag * 1j`` from two real tensors of one floating dtype "
    "(broadcast), exact where a part is infinite.",
    method=False,
    out=True,
    out_dtype="exact",
)
_op(
    "polar(Tensor abs, Tensor angle) -> Tensor",
    "conversion composite",
    "The complex tensor of absolute values ``abs`` and arguments ``angle`` (radians): "
    "``abs * cos(angle) + abs * sin(angle) * 1j``.",
    method=False,
    autocast="fp32",
    out=True,
    out_dtype="exact",
)
_op(
    "angle(Tensor self) -> Tensor",
    "conversion composite",
    "The argument of each element in radians: ``atan2(imag, real)`` for complex tensors; pi "
    "for negative real numbers and 0 otherwise (NaN kept), in a floating dtype.",
    out=True,
)
