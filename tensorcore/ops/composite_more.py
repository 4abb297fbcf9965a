"""The smaller operators of ``schema/composite_more.py``, written with other operators (so
every backend gets them and autograd differentiates through their parts). The ``*_scatter``
operators write ``src`` into a view of a copy of ``self``: their gradients are autograd's
for an in-place copy into a view."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, _wrap_dim, contiguous_strides, torch_name
from ..autograd.grad_mode import is_grad_enabled
from ..layouts import contiguous_format
from . import functions as ops
from ._validate import keep_message
from .frontends import broadcast_shapes, named_as

__all__ = ["MORE_COMPOSITES", "reduce_loss"]

MORE_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    MORE_COMPOSITES[fn.__name__.rstrip("_")] = fn
    return fn


def _holds_data(t: Tensor) -> bool:
    return t._device.type != "meta"


@_composite
def sgn(self: Tensor) -> Tensor:
    if not self._dtype.is_complex:
        return ops.sign(self)
    a = ops.abs(self)
    zero = ops.eq(a, 0)
    return ops.where(zero, 0, self / ops.where(zero, 1, a))


@_composite
def frac(self: Tensor) -> Tensor:
    return ops.sub(self, ops.trunc(self))


def _gcd(self: Tensor, other: Tensor) -> Tensor:
    dtype = dt.result_type(self, other)
    a, b = ops.broadcast_tensors(ops.abs(self.to(dtype)), ops.abs(other.to(dtype)))
    # Euclid's algorithm on every element at once: at most ~1.44 * bits steps.
    for _ in range(int(1.45 * dtype.itemsize * 8) + 2):
        live = ops.ne(b, 0)
        if _holds_data(live) and not bool(live.any()):
            break
        r = ops.remainder(a, ops.where(live, b, 1))
        a, b = ops.where(live, b, a), ops.where(live, r, 0)
    return a


@_composite
def gcd(self: Any, other: Any) -> Tensor:
    return _gcd(self, other)


@_composite
def lcm(self: Any, other: Any) -> Tensor:
    g = _gcd(self, other)
    zero = ops.eq(g, 0)
    a, b = self.to(g._dtype), other.to(g._dtype)
    return ops.abs(ops.where(zero, 0, ops.floor_divide(a, ops.where(zero, 1, g)) * b))


@_composite
def isneginf(self: Tensor) -> Tensor:
    return ops.eq(self, -math.inf)


@_composite
def isposinf(self: Tensor) -> Tensor:
    return ops.eq(self, math.inf)


@_composite
def isreal(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        return ops.eq(ops.imag(self), 0)
    return ops.ones_like(self, dtype=dt.bool_)


@_composite
def mvlgamma(self: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = self if self._dtype._category >= dt.FLOATING else self.to(dt.get_default_dtype())
    # (one lgamma over a last dim of the p shifts: no Python loop of p steps for a huge p)
    shifts = ops.arange(p, dtype=x._dtype, device=x._device) / 2
    total = ops.lgamma(x.unsqueeze(-1) - shifts).sum(-1)
    return total + p * (p - 1) / 4 * math.log(math.pi)


@_composite
def msort(self: Tensor) -> Tensor:
    return ops.sort(self, 0)[0]


@_composite
def vdot(self: Tensor, other: Tensor) -> Tensor:
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    if self._dtype is not other._dtype:
        raise RuntimeError(
            "vdot : expected both vectors to have same dtype, but found "
            f"{torch_name(self._dtype)} and {torch_name(other._dtype)}"
        )
    return ops.dot(self.conj() if self._dtype.is_complex else self, other)


@_composite
def inner(self: Tensor, other: Tensor) -> Tensor:
    if self.ndim == 0 or other.ndim == 0:
        return ops.mul(self, other)
    if self._shape[-1] != other._shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(self._shape)} and {list(other._shape)}"
        )
    return ops.tensordot(self, other, ([-1], [-1]))


@_composite
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    return ops.diag(self.reshape(-1), offset)


@_composite
def narrow_copy(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    return ops.clone(ops.narrow(self, dim, start, length), memory_format=contiguous_format)


@_composite
def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    if mask._dtype is not dt.bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{torch_name(mask._dtype)}"
        )
    if self._dtype is not source._dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{torch_name(self._dtype)} and {torch_name(source._dtype)}"
        )
    shape = broadcast_shapes(self._shape, mask._shape)
    out = ops.clone(self.expand(shape), memory_format=contiguous_format)
    where = mask.expand(shape)
    if not _holds_data(where):
        return out
    n = int(where.sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return ops.index_put(out, [where], source.reshape(-1)[:n])


def _scatter_into(self: Tensor, src: Tensor, view: Callable[[Tensor], Tensor], what: str) -> Tensor:
    # The view taken of the positions 0..n-1 (row-major) says where its elements sit in
    # ``self``: index_put writes ``src`` there (no in-place copy into a view, so the double
    # backward is index_put's).
    pos = view(ops.arange(self.numel(), device=self._device).reshape(self._shape))
    if pos._shape != src._shape:
        raise RuntimeError(
            f"Expected src to have a size equal to the {what} of self. src size = "
            f"{list(src._shape)}, {what} size = {list(pos._shape)}"
        )
    flat = ops.clone(self, memory_format=contiguous_format).reshape(-1)
    return ops.index_put(flat, [pos.reshape(-1)], src.reshape(-1)).reshape(self._shape)


@_composite
def select_scatter(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    return _scatter_into(self, src, lambda t: ops.select(t, dim, index), "slice")


@_composite
def slice_scatter(
    self: Tensor,
    src: Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> Tensor:
    d = _wrap_dim(dim, self.ndim)
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_into(self, src, lambda t: t[key], "slice")


@_composite
def diagonal_scatter(
    self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    return _scatter_into(self, src, lambda t: ops.diagonal(t, offset, dim1, dim2), "diagonal")


@_composite
def as_strided_scatter(
    self: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    # As PyTorch's: the result lies in a storage of its own laid out as ``self`` is (its
    # strides and storage offset; contiguous from 0 where ``self`` overlaps itself), and
    # ``size``/``stride``/``storage_offset`` (default: that offset) address that storage, so
    # they mean other elements for a transposed or sliced ``self`` than for a contiguous one.
    # ``mem`` says which element of ``self`` each storage position holds (-1 for the gaps
    # of a sliced ``self``: what is written there is not seen).
    n = self.numel()
    strides, offset = self._stride, self._offset
    ordered = sorted((st, d) for d, st in zip(self._shape, strides, strict=True) if d > 1)
    overlaps = any(st < p_st * p_d for (p_st, p_d), (st, _) in itertools.pairwise(ordered))
    if overlaps or (ordered and ordered[0][0] == 0):
        strides, offset = contiguous_strides(self._shape), 0
    extent = offset + 1 + sum((d - 1) * st for d, st in zip(self._shape, strides, strict=True))
    mem = ops.full((extent if n else 0,), -1, dtype=dt.int64, device=self._device)
    ops.as_strided(mem, self._shape, strides, offset).copy_(
        ops.arange(n, device=self._device).reshape(self._shape)
    )
    pos = ops.as_strided(mem, size, stride, offset if storage_offset is None else storage_offset)
    if pos._shape != src._shape:
        raise RuntimeError(
            f"Expected src to have a size equal to the view of self. src size = "
            f"{list(src._shape)}, view size = {list(pos._shape)}"
        )
    # (the gaps' writes go to one extra element, dropped after: no data-dependent shape)
    pos = ops.where(pos >= 0, pos, n).reshape(-1)
    idx = ops.arange(n, device=self._device)
    flat = ops.index_put(self.new_zeros(n + 1), [idx], self.reshape(-1))
    return ops.index_put(flat, [pos], src.reshape(-1))[:n].reshape(self._shape)


@_composite
def one_hot(self: Tensor, num_classes: int = -1) -> Tensor:
    # (the declared check has refused anything but int64 indices in [0, num_classes))
    if num_classes == -1:
        num_classes = int(self.amax()) + 1
    classes = ops.arange(num_classes, device=self._device)
    return (self.unsqueeze(-1) == classes).to(dt.int64)


# ------------------------------------------------------------------ fake quantization
def _check_quant_range(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or equal to `quant_max`.")


def _fake_quantize(
    self: Tensor, scale: Tensor, zero_point: Any, quant_min: int, quant_max: int, node: str
) -> Tensor:
    """``(clamp(q, quant_min, quant_max) - zero_point) * scale``, ``q`` rounded half to even,
    computed as PyTorch's kernel does: in float32 (float64 for a float64 input) with the
    float32 reciprocal of the float32 ``scale``; an integer ``zero_point`` is added after
    rounding, a floating one before. The gradient is the incoming one where ``q`` was within
    the range (NaN, which PyTorch's integer cast sends to ``quant_min``, is not)."""
    if not self._dtype.is_floating_point:
        raise NotImplementedError(
            '"fake_quantize_tensor_cachemask_kernel_type_handling" not implemented for '
            f"'{torch_name(self._dtype)}'"
        )
    cdt = dt.float64 if self._dtype == dt.float64 else dt.float32
    sc = scale.detach().to(dt.float32)  # (the quantization parameters take no gradient)
    if isinstance(zero_point, Tensor):
        zero_point = zero_point.detach()
    xs = self.detach().to(cdt) * ops.reciprocal(sc).to(cdt)
    if isinstance(zero_point, Tensor) and zero_point._dtype.is_floating_point:
        zp: Any = zero_point.to(cdt)
        q = ops.round(xs + zp)
    else:
        zp = zero_point
        q = ops.round(xs) + zp
    clamped = ops.where(ops.isnan(q), quant_min, ops.clamp(q, quant_min, quant_max))
    out = ((clamped - zp) * sc.to(cdt)).to(self._dtype)
    # ``out + 0`` exactly; the gradient (and a forward-mode tangent) flows through ``within``.
    within = ops.where((q >= quant_min) & (q <= quant_max), self, 0)
    return named_as(out + (within - within.detach()), node)


def reduce_loss(loss: Tensor, reduction: str) -> Tensor:
    """An elementwise loss reduced as ``reduction`` ("mean", "sum", "none") says: the losses
    of ``nn.functional`` and the loss operators here."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


@_composite
def mse_loss(self: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    d = self - target
    return reduce_loss(d * d, reduction)


def _constant_qparams(function: str, scale: Any, zero_point: Any) -> None:
    """PyTorch's error for a ``scale`` or ``zero_point`` that requires grad where the graph is
    recorded: its fake-quantize functions differentiate ``self`` alone."""
    for name, v in (("scale", scale), ("zero_point", zero_point)):
        if isinstance(v, Tensor) and v.requires_grad and is_grad_enabled():
            exc = RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )
            keep_message(exc)
            raise exc


@_composite
def fake_quantize_per_tensor_affine(
    self: Tensor, scale: Any, zero_point: Any, quant_min: int, quant_max: int
) -> Tensor:
    _check_quant_range(quant_min, quant_max)
    tensor_qparams = isinstance(scale, Tensor)
    if tensor_qparams:
        _constant_qparams(
            "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams", scale, zero_point
        )
    zp = int(zero_point.item() if isinstance(zero_point, Tensor) else zero_point)
    if not quant_min <= zp <= quant_max:
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    value = float(scale.item() if tensor_qparams else scale)
    sc = ops.full((), value, dtype=dt.float32, device=self._device)
    node = "FakeQuantizePerTensorAffineCachemask" + ("TensorQparams" if tensor_qparams else "")
    return _fake_quantize(self, sc, zp, quant_min, quant_max, node + "Backward0")


@_composite
def fake_quantize_per_channel_affine(
    self: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int, quant_max: int
) -> Tensor:
    _check_quant_range(quant_min, quant_max)
    _constant_qparams("fake_quantize_per_channel_affine_cachemask", scale, zero_point)
    if scale._dtype not in (dt.float32, dt.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {torch_name(scale._dtype)}")
    if zero_point._dtype not in (dt.int32, dt.float32, dt.float16):
        raise RuntimeError(
            f"Zero-point must be Int32, Float or Half, found {torch_name(zero_point._dtype)}"
        )
    axis = _wrap_dim(axis, self.ndim)
    n = self._shape[axis]
    if scale.ndim != 1 or zero_point.ndim != 1 or scale.numel() != n or zero_point.numel() != n:
        raise RuntimeError(
            "dimensions of scale and zero-point are not consistent with input tensor"
        )
    values = _holds_data(zero_point) and not zero_point._dtype.is_floating_point
    if values and n and bool(((zero_point < quant_min) | (zero_point > quant_max)).any()):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")
    shape = [1] * self.ndim
    shape[axis] = n
    return _fake_quantize(
        self,
        scale.view(shape),
        zero_point.view(shape),
        quant_min,
        quant_max,
        "FakeQuantizePerChannelAffineCachemaskBackward0",
    )
