"""Padding (``tensorcore.nn.functional.pad``), below ``tensorcore.nn``: the operators that pad
(``stft``'s centring) call it too."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._memory_format import layer_format
from .._tensor import Tensor
from ..devices import device as _device
from . import functions as ops
from ._validate import checked
from .frontends import named_as

__all__ = ["pad"]


#: Most positions that a layer's index is built from as Python ints (``positions_tensor``):
#: a conversion of 0.04 us per int against a few tensor operations of 30 to 40 us in all
#: (measured on NumPy: even at 256 positions).
FEW_POSITIONS = 256


def positions_tensor(positions: Sequence[int], device: Any) -> Tensor:
    """An int64 tensor of ``positions`` on ``device``, made by the device in one step (what
    ``tensor()`` makes, without its scan of the data's types)."""
    dev = _device(device)
    return _registry.interface(dev).from_data(list(positions), (len(positions),), dt.int64, dev)


def _pad_index(size: int, lo: int, hi: int, mode: str, device: Any) -> Tensor:
    """Source positions of a dim padded by (lo, hi) in ``mode`` (negative pads crop): for a
    short dim the Python ints of ``_pad_positions``, else from an ``arange`` as tensors."""
    if size + abs(lo) + abs(hi) <= FEW_POSITIONS:
        return positions_tensor(_pad_positions(size, lo, hi, mode), device)
    if mode == "circular":
        start, kept, lo, hi = _circular_crop(size, lo, hi)
        return ops.arange(-lo, kept + hi, device=device).remainder(kept) + start
    pos = ops.arange(-lo, size + hi, device=device)
    if mode == "replicate":
        return pos.clamp(0, size - 1)
    # reflect: mirror without repeating the edge
    period = 2 * (size - 1)
    r = pos.remainder(period) if period else pos * 0
    return ops.where(r >= size, period - r, r)


def _circular_crop(size: int, lo: int, hi: int) -> tuple[int, int, int, int]:
    """A circular pad's crop, which comes first (the padding wraps around what is left of the
    dim): ``(start, kept, lo, hi)`` with the pads made non-negative, or PyTorch's error for a
    pad that would wrap more than once."""
    start = max(-lo, 0)
    kept = size - start - max(-hi, 0)
    lo, hi = max(lo, 0), max(hi, 0)
    if lo > kept or hi > kept:
        raise RuntimeError("Padding value causes wrapping around more than once.")
    return start, kept, lo, hi


@functools.lru_cache(maxsize=256)
def _pad_positions(size: int, lo: int, hi: int, mode: str) -> tuple[int, ...]:
    """``_pad_index``'s positions as Python ints (the same as its tensor operations compute,
    errors included), kept per arguments: a network pads the same sizes at every step, where
    building them from an ``arange`` costs several tensor operations per call and dim."""
    if mode == "circular":
        start, kept, lo, hi = _circular_crop(size, lo, hi)
        if not kept:  # (nothing left to wrap: the error of the remainder it was)
            raise RuntimeError("remainder(): ZeroDivisionError")
        return tuple(p % kept + start for p in range(-lo, kept + hi))
    if size + hi < -lo:  # (a crop past the other end: the error of the arange it was)
        raise RuntimeError("arange(): upper bound and larger bound inconsistent with step sign")
    pos = range(-lo, size + hi)
    if mode == "replicate":
        return tuple(min(max(p, 0), size - 1) for p in pos)
    # reflect: mirror without repeating the edge
    period = 2 * (size - 1)
    if not period:
        return (0,) * len(pos)
    return tuple(period - r if r >= size else r for r in (p % period for p in pos))


def _constant_pad(x: Tensor, pads: tuple[int, ...], shift: int, value: Any) -> Tensor:
    """``x`` padded with ``value`` (negative pads crop) as one result filled with ``value``
    and one copy of the cropped ``x`` into its interior: a pass over the result, where a
    concatenation per padded dim would copy it once per dim. ``pads`` name the last dims of
    ``x`` shifted left by ``shift`` (a channels-last input's moved view)."""
    shape = list(x._shape)
    nd = len(shape)
    at = []  # (dim, offset) of the interior in the result
    for j in range(len(pads) // 2):
        d = nd - 1 - j - shift
        lo, hi = pads[2 * j], pads[2 * j + 1]
        if lo < 0:
            x = x.narrow(d, -lo, x._shape[d] + lo)
        if hi < 0:
            x = x.narrow(d, 0, x._shape[d] + hi)
        lo, hi = max(lo, 0), max(hi, 0)
        if lo or hi:
            shape[d] = x._shape[d] + lo + hi
            at.append((d, lo))
        else:
            shape[d] = x._shape[d]
    if not at:
        return x.clone()  # (cropped only: a new tensor all the same)
    out = ops.full(shape, value, dtype=x._dtype, device=x._device)
    inner = out
    for d, lo in at:
        inner = inner.narrow(d, lo, x._shape[d])
    inner.copy_(x)
    return out


@checked('pad(Tensor input, int[] pad, str mode="constant", float? value=None) -> Tensor')
def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims: ``pad`` is ``(left, right)`` for the last dim,
    then the one before, ...; negative values crop. ``mode`` is ``"constant"`` (``value``,
    default 0), ``"reflect"``, ``"replicate"`` or ``"circular"``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.pad(tc.tensor([[1.0, 2.0]]), (1, 2), value=9.0)
    tensor([[9., 1., 2., 9., 9.]])
    >>> tc.nn.functional.pad(tc.tensor([[1.0, 2.0, 3.0]]), (2, 0), mode="reflect")
    tensor([[3., 2., 1., 2., 3.]])
    """
    pads = tuple(pad)
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) // 2 > input.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension "
            f"but got padding length {len(pads)} and input of dimension {input.ndim}"
        )
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value not in (None, 0, 0.0):
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    # A channels-last input padded in its spatial dims is padded as its (N, *spatial, C)
    # view, which is row-major: the result keeps the format, as PyTorch's does (but for
    # circular padding, whose result PyTorch makes row-major).
    fmt = layer_format(input) if mode != "circular" else None
    cl = fmt is not None and len(pads) // 2 <= input.ndim - 2
    out = input.movedim(1, -1) if cl else input
    shift = 1 if cl else 0  # (a dim's place in ``out``: ``d - shift``)
    if mode == "constant":
        out = _constant_pad(out, pads, shift, 0.0 if value is None else value)
    for j in range(len(pads) // 2 if mode != "constant" else 0):
        d = input.ndim - 1 - j  # (the dim in the input, which errors name)
        lo, hi = pads[2 * j], pads[2 * j + 1]
        if lo == 0 and hi == 0:
            continue
        size = out.shape[d - shift]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                f"{list(input.shape)}"
            )
        out = out.index_select(d - shift, _pad_index(size, lo, hi, mode, out.device))
    out = out.movedim(-1, 1) if cl else out
    if fmt is not None and not cl:
        # (the channel or batch dim padded too: PyTorch's result keeps the format all the same)
        out = out.contiguous(memory_format=fmt)
    if not any(pads):
        out = input.clone()  # a new tensor, as PyTorch's (never the input or a view of it)
    k = len(pads) // 2
    return named_as(out, _PAD_NODES[mode].format(k=k))


#: PyTorch's node names for the padding modes (``k``: how many dims are padded).
_PAD_NODES = {
    "constant": "ConstantPadNdBackward0",
    "reflect": "ReflectionPad{k}DBackward0",
    "replicate": "ReplicationPad{k}DBackward0",
    "circular": "CopySlices",
}
