"""Storing a gradient into a leaf's ``.grad``: PyTorch's gradient layout contract.

A gradient reaching a leaf is often a broadcast view (``sum``'s rule expands the output
gradient; an ``expand`` makes stride-0 dims) or has a memory order of its own. Stored as it
is, ``.grad`` would be a tensor that in-place updates cannot write (``grad.add_(...)`` of an
optimizer's weight decay raises on overlapping memory) and whose layout differs from the
parameter's. So, as PyTorch's ``AccumulateGrad`` does, a stored gradient is

* dense and never an expanded or otherwise overlapping view;
* laid out with the parameter's strides when the parameter is non-overlapping and dense
  (a transposed parameter gets a transposed gradient), and row-major otherwise (a sliced,
  strided or expanded parameter).

The engine owns the gradients it computes, so one that already obeys the contract, and that
no one else can see, is stored without a copy (PyTorch steals it too). A gradient that user
code handed over while keeping a reference to it (a custom ``Function``'s backward returning
a tensor it holds, saved or global) is someone else's: :func:`held_elsewhere` marks it, and
it is copied, as PyTorch copies a gradient whose use count shows another owner.
``tc.autograd.grad`` returns gradients as the rules compute them (expanded views included),
as PyTorch does: it stores nothing.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .._tensor import contiguous_strides, make_tensor
from ..layouts import contiguous_format, strided
from ..ops import functions as ops
from .grad_mode import is_grad_enabled

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "HELD",
    "accumulate",
    "clone_obey_contract",
    "held_elsewhere",
    "is_non_overlapping_and_dense",
    "obeys_contract",
]

#: Storage ids of gradients that user code returned and still refers to (see
#: :func:`held_elsewhere`): never stored as a ``.grad`` without a copy. The engine empties
#: it when its outermost backward ends (an id reused meanwhile only costs a copy).
HELD: set[int] = set()


def _counts(values: tuple[Any, ...]) -> list[int]:
    return [sys.getrefcount(v) for v in values]


# The count of an object that only the tuple passed to ``_counts`` refers to.
_ALONE = _counts((object(),))[0]


def held_elsewhere(values: tuple[Any, ...]) -> None:
    """Mark the storages of the tensors among ``values`` (a backward's results, in the tuple
    it returned) that anything besides that tuple refers to: :func:`accumulate` copies them.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd._accumulate import HELD, held_elsewhere
    >>> kept = tc.ones(2)
    >>> held_elsewhere((kept, tc.zeros(2)))
    >>> id(kept.untyped_storage()) in HELD, len(HELD)
    (True, 1)
    >>> HELD.clear()
    """
    for v, n in zip(values, _counts(values), strict=True):
        if n > _ALONE and getattr(v, "_storage", None) is not None:
            HELD.add(id(v._storage))


def is_non_overlapping_and_dense(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether the elements fill a block of memory exactly once, in some order of the dims
    (PyTorch's ``is_non_overlapping_and_dense``; the strides of size-1 dims do not count).

    Examples
    --------
    >>> from tensorcore.autograd._accumulate import is_non_overlapping_and_dense as dense
    >>> dense((2, 3), (1, 2)), dense((2, 3), (4, 1)), dense((2, 3), (0, 1))
    (True, False, False)
    """
    dims = sorted((st, n) for n, st in zip(shape, stride, strict=True) if n != 1)
    if any(n == 0 for _, n in dims):
        return True
    expected = 1
    for st, n in dims:
        if st != expected:
            return False
        expected *= n
    return True


def obeys_contract(g: Tensor, leaf: Tensor) -> bool:
    """Whether ``g`` may be stored as ``leaf.grad`` as it is: the leaf's strides where the
    leaf is non-overlapping and dense (size-1 dims excepted, unless of stride 0), else
    row-major. A gradient of another layout (sparse) obeys by definition."""
    if g._layout is not strided:
        return True
    gs = g._stride
    if (gs is leaf._stride or gs == leaf._stride) and gs == contiguous_strides(g._shape):
        return True  # the common case: both row-major
    if leaf._layout is not strided or not is_non_overlapping_and_dense(leaf._shape, leaf._stride):
        return g.is_contiguous()
    for n, st, ls in zip(g._shape, gs, leaf._stride, strict=True):
        if n != 1 and st != ls:
            return False
        if n == 1 and st == 0:  # a size-1 dim of stride 0 is a broadcast (PyTorch's check)
            return False
    return True


def clone_obey_contract(g: Tensor, leaf: Tensor) -> Tensor:
    """A copy of ``g`` laid out by the contract (recorded when grad mode is on, so a
    ``create_graph`` gradient keeps its history)."""
    if g._layout is not strided:  # a sparse gradient of a dense leaf stays sparse (PyTorch)
        return g.clone()
    if (
        leaf._layout is not strided
        # A row-major leaf, nothing recorded: one call (the copy below is PyTorch's recorded
        # ``CopyBackwards`` under create_graph, and the path of a leaf of other strides).
        or (not is_grad_enabled() and leaf._stride == contiguous_strides(leaf._shape))
        or not is_non_overlapping_and_dense(leaf._shape, leaf._stride)
    ):
        return g.clone(memory_format=contiguous_format)
    # A dense block of numel elements viewed with the leaf's strides (offset 0).
    flat = ops.empty(g.numel(), dtype=g._dtype, device=g._device)
    out = make_tensor(flat._storage, leaf._shape, leaf._stride, 0, g._dtype, g._device)
    return out.copy_(g)


def _unflagged(g: Tensor) -> Tensor:
    """A sparse COO ``g`` as a new tensor over its indices and values, flagged as PyTorch's
    ``_sparse_coo_tensor_unsafe`` flags it (uncoalesced, unless of fewer than 2 entries)."""
    make = getattr(ops, "_sparse_coo_tensor_unsafe")  # noqa: B009 (an operator of a plugin)
    return make(g._indices(), g._values(), g._shape)


def accumulate(leaf: Tensor, g: Tensor, create_graph: bool, shared: set[int]) -> None:
    """Add ``g`` to ``leaf.grad`` (PyTorch's ``AccumulateGrad``). ``shared`` holds the ids of
    the storages that someone besides the engine can see (gradients the caller passed, a
    hook returned or a ``.grad`` already holds): such a gradient is copied, never stored."""
    if not create_graph:
        g = g.detach()
    old = leaf._grad
    if old is None:
        if g._shape != leaf._shape:
            g = g.expand(leaf._shape)
        # With create_graph the gradient may be saved by the graph being built: a copy keeps
        # an in-place update of .grad from invalidating it (PyTorch copies there too).
        st = id(g._storage)
        if create_graph or st in shared or st in HELD or not obeys_contract(g, leaf):
            g = clone_obey_contract(g, leaf)
        elif g.is_sparse:
            # PyTorch's AccumulateGrad stores a sparse COO gradient it owns as a new tensor
            # over the same indices and values (_sparse_coo_tensor_unsafe), which drops the
            # coalesced flag: leaf.grad.is_coalesced() is False there, so here too.
            g = _unflagged(g)
        shared.add(id(g._storage))
        leaf._grad = g
    elif (
        create_graph
        or old._requires_grad
        or (old._layout is not g._layout and old._layout is not strided)
    ):
        # Out of place: the result follows old's memory order, which obeys the contract
        # (a .grad of a non-strided layout, sparse, cannot absorb another layout in place).
        new = old + g
        if new._layout is strided and not obeys_contract(new, leaf):
            new = clone_obey_contract(new, leaf)
        leaf._grad = new
    else:
        old.add_(g)
