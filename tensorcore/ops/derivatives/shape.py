"""The rules of the shape operators, the views, and the copies and casts."""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

from ..._tensor import Tensor, contiguous_strides
from ...autograd import grad_mode
from ...dispatch import get_op
from .. import functions as ops
from .._call import call
from ..meta_functions import split_sizes
from ._table import _conj, _d, _zeros_of, sum_to


# ------------------------------------------------------------------ shapes and indexing
def _cat(c: Any, g: Tensor) -> tuple[Any, ...]:
    out, start = [], 0
    for shape in (t._shape for t in c.tensors):
        n = shape[c.dim] if len(shape) > c.dim else 0
        out.append(g.narrow(c.dim, start, n) if shape != (0,) or g.ndim == 1 else None)
        start += n
    return tuple(out)


_d("cat", "tensors:spec dim", _cat)
_d("flip", "dims", lambda c, g: (g.flip(c.dims),))
_d("roll", "shifts dims", lambda c, g: (g.roll(tuple(-s for s in c.shifts), c.dims),))


def _repeat(c: Any, g: Tensor) -> tuple[Any, ...]:
    shape = c.self._shape
    reps = c.repeats
    lead = len(reps) - len(shape)
    padded = (1,) * lead + shape
    split_shape: list[int] = []
    for r, s in zip(reps, padded, strict=True):
        split_shape += [r, s]
    gg = g.reshape(tuple(split_shape)).sum(tuple(range(0, 2 * len(reps), 2)))
    return (gg.reshape(shape),)


_d("repeat", "self:spec repeats", _repeat)
_d("tril", "diagonal", lambda c, g: (g.tril(c.diagonal),))
_d("triu", "diagonal", lambda c, g: (g.triu(c.diagonal),))
# ------------------------------------------------------------------ views
_d("view", "self:spec", lambda c, g: (g.reshape(c.self._shape),))
_d("alias", "", lambda c, g: (g,))
_d("conj", "", lambda c, g: (_conj(g),))
# real(z) = (z + conj z) / 2 and imag(z) = (z - conj z) / 2i: the gradients are G and i * G
# (real G; the engine casts the first to the input's complex dtype).
_d("view_as_real", "", lambda c, g: (ops.view_as_complex(g.contiguous()),))
_d("view_as_complex", "", lambda c, g: (ops.view_as_real(g.contiguous()),))
_d("expand", "self:spec", lambda c, g: (sum_to(g, c.self._shape),))
_d("transpose", "dim0 dim1", lambda c, g: (g.transpose(c.dim0, c.dim1),))
# (``t`` is a composite with a strided kernel of its own: recorded as one node, PyTorch's
# ``TBackward0``, ``autograd.step._one_node_composite``)
_d("t", "", lambda c, g: (g.t(),))


def _inverse_perm(dims: tuple[int, ...]) -> tuple[int, ...]:
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return tuple(inv)


_d("permute", "dims", lambda c, g: (g.permute(_inverse_perm(c.dims)),))
_d("squeeze", "self:spec", lambda c, g: (g.reshape(c.self._shape),))
_d("unsqueeze", "self:spec", lambda c, g: (g.reshape(c.self._shape),))


def _narrow_like(
    c: Any, g: Tensor, region: Callable[[Tensor], Tensor], overlapping: bool = False
) -> tuple[Any, ...]:
    return (_embed(_zeros_of(c.self), region, g, overlapping),)


def _embed(
    z: Tensor, region: Callable[[Tensor], Tensor], g: Tensor, overlapping: bool = False
) -> Tensor:
    """``z`` with ``region(z)`` replaced by ``g`` (added up where an ``overlapping`` region
    reads one element several times, as ``unfold``'s windows do)."""
    if not overlapping and not grad_mode.is_grad_enabled():
        # A first-order backward records nothing: write the region in place (three cheap
        # operators instead of the differentiable form's eight).
        region(z).copy_(g)
        return z
    # Differentiable (double backward): no in-place write.
    flat_pos = ops.arange(z.numel(), device=z._device).reshape(z._shape)
    pos = region(flat_pos)
    return (
        z.reshape(-1).index_put([pos.reshape(-1)], g.reshape(-1), accumulate=True).reshape(z._shape)
    )


_d(
    "narrow",
    "self:spec dim start length",
    lambda c, g: _narrow_like(c, g, lambda z: z.narrow(c.dim, c.start, c.length)),
)
_d(
    "select",
    "self:spec dim index",
    lambda c, g: _narrow_like(c, g, lambda z: z.select(c.dim, c.index)),
)
_d(
    "diagonal",
    "self:spec offset dim1 dim2",
    lambda c, g: _narrow_like(c, g, lambda z: z.diagonal(c.offset, c.dim1, c.dim2)),
)
_d(
    "unfold",
    "self:spec dimension size step",
    lambda c, g: _narrow_like(c, g, lambda z: z.unfold(c.dimension, c.size, c.step), True),
)


# The views of several outputs, recorded as one node (``split``, ``unbind``: composites
# whose strided kernel makes every view, ``autograd.step._one_node_composite``): the
# outputs' gradients joined back along the dim, with zeros for an output that got none --
# one concatenation where a node per view would fill a zero tensor of the whole input's size
# per view for the engine to add up.
def _pieces(grads: Any, shapes: list[tuple[int, ...]], like: Any) -> list[Tensor]:
    if isinstance(grads, Tensor):  # (a rule of one output gets its gradient itself)
        grads = [grads]
    return [
        ops.zeros(shape, dtype=like._dtype, device=like._device) if g is None else g
        for g, shape in zip(grads, shapes, strict=True)
    ]


def _unbind(c: Any, grads: Any) -> tuple[Any, ...]:
    x = c.self
    d = c.dim % len(x._shape)
    n = x._shape[d]
    one = x._shape[:d] + x._shape[d + 1 :]
    return (ops.stack(_pieces(grads, [one] * n, x), d),)


def _split(c: Any, grads: Any) -> tuple[Any, ...]:
    x = c.self
    d = c.dim % len(x._shape)
    sizes, _ = split_sizes(x._shape[d], c.split_size_or_sections, d)
    shapes = [x._shape[:d] + (s,) + x._shape[d + 1 :] for s in sizes]
    return (ops.cat(_pieces(grads, shapes, x), d),)


_d("unbind", "self:spec dim", _unbind)
_d("split", "self:spec split_size_or_sections dim", _split)

_SLICE = get_op("slice")


def _slice(c: Any, g: Tensor) -> tuple[Any, ...]:
    if c.step == 1 and g._shape == c.self._shape:
        # A slice of step 1 as long as its dim is the whole input (``x[:]``, ``x[..., :n]``
        # with ``n`` the size): its gradient is the output's, with no buffer of zeros to
        # fill and copy into (a rule may hand on the gradient it got, as ``add``'s does; it
        # is differentiable as it is, for a double backward).
        return (g,)

    def region(z: Tensor) -> Tensor:
        return call(_SLICE, (z, c.dim, c.start, c.end, c.step))

    return _narrow_like(c, g, region)


_d("slice", "self:spec dim start end step", _slice)


def _permuted_block(
    x: Any, size: tuple[int, ...], stride: tuple[int, ...], off: int
) -> tuple[int, ...] | None:
    """The dims of the view ``(size, stride, off)``, outermost first, when it is a permutation
    of the contiguous block that the contiguous input ``x`` (its spec) covers (``x.permute(...)``,
    ``x.T``, ``x.mT``, size-1 dims anywhere): then each of x's elements is seen exactly
    once, and the gradient is the output's gradient permuted back. None otherwise."""
    if off != x._offset or x._stride != contiguous_strides(x._shape):
        return None
    n = prod(size)
    if n != prod(x._shape) or n == 0:
        return None
    order = sorted(range(len(size)), key=lambda d: (-stride[d] if size[d] > 1 else 0, d))
    expect = 1
    for d in reversed(order):
        if size[d] > 1:
            if stride[d] != expect:
                return None
            expect *= size[d]
    return tuple(order)


def _as_strided(c: Any, g: Tensor) -> tuple[Any, ...]:
    x = c.self
    size, stride = tuple(c.size), tuple(c.stride)
    off = x._offset if c.storage_offset is None else c.storage_offset
    order = _permuted_block(x, size, stride, off)
    if order is not None:
        # (A view made before its base's ``requires_grad_()`` gets this node: PyTorch's
        # AsStridedBackward0. The general scatter below costs 10x a binary operator's
        # forward on a permuted (64, 128, 32) input; this is one copy. A -0.0 stays -0.0,
        # as PyTorch's copy, where the accumulation into zeros made it +0.0.)
        return (g.permute(order).reshape(x._shape),)
    # Storage positions covered by the input and by the view, relative to the lowest one.
    lo = min(x._offset, off)
    hi = max(_last(x._shape, x._stride, x._offset), _last(size, stride, off))
    extent = max(hi - lo + 1, 0)
    pos = ops.arange(extent, device=g._device)
    flat = ops.zeros(extent, dtype=g._dtype, device=g._device)
    out_pos = pos.as_strided(size, stride, off - lo)
    flat = flat.index_put([out_pos.reshape(-1)], g.reshape(-1), accumulate=True)
    in_pos = pos.as_strided(x._shape, x._stride, x._offset - lo)
    return (flat[in_pos.reshape(-1)].reshape(x._shape),)


def _last(shape: tuple[int, ...], stride: tuple[int, ...], off: int) -> int:
    if any(s == 0 for s in shape):
        return off
    return off + sum((n - 1) * s for n, s in zip(shape, stride, strict=True))


_d("as_strided", "self:spec size stride storage_offset", _as_strided)


# ------------------------------------------------------------------ copies and casts
_d("clone", "", lambda c, g: (g,))
_d(
    "to_dtype",
    "self:spec",
    lambda c, g: (
        g.to(c.self._dtype)
        if not (g._dtype.is_complex and not c.self._dtype.is_complex)
        else g.real.to(c.self._dtype),
    ),
)
_d("fill_", "", lambda c, g: (ops.zeros_like(g),))
_d("to_device", "self:spec", lambda c, g: (g.to(c.self._device),))
_d("copy_", "src:spec", lambda c, g: (ops.zeros_like(g), sum_to(g, c.src._shape)))
