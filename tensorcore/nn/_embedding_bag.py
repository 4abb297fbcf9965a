"""The reduction half of ``embedding_bag(sparse=True)``: rows already looked up (by
``embedding``, whose sparse gradient the sparse layout's plugin makes), reduced per bag (sum,
mean; PyTorch refuses max with a sparse gradient) with one ``index_add``, never a loop over
bags. A dense gradient takes the ``_embedding_bag`` operator instead."""

from __future__ import annotations

from .. import dtypes as dt
from .._tensor import Tensor
from ..ops import functions as ops

__all__ = ["bag_ids", "reduce_bags"]


def bag_ids(
    n: int, offsets: Tensor, include_last_offset: bool
) -> tuple[Tensor, Tensor | None, int]:
    """For ``n`` flat indices split at ``offsets`` (checked to start at 0 and end by ``n``):
    each index's bag, whether it belongs to one (``include_last_offset`` ends the last bag at
    ``offsets[-1]``; None when every index does) and the bag count.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn._embedding_bag import bag_ids
    >>> bag, valid, count = bag_ids(5, tc.tensor([0, 2, 2]), False)
    >>> bag.tolist(), valid, count
    ([0, 0, 2, 2, 2], None, 3)
    >>> bag, valid, count = bag_ids(5, tc.tensor([0, 2, 4]), True)
    >>> bag.tolist(), valid.tolist(), count
    ([0, 0, 1, 1, 1], [True, True, True, True, False], 2)
    """
    count = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    pos = ops.arange(n, device=offsets.device)
    bag = ops.searchsorted(offsets.to(dt.int64), pos, right=True) - 1
    if count and not include_last_offset:
        # offsets[0] == 0: every index lies in a bag, the last one running to the end (no
        # mask, which would cost a pass over the looked-up rows).
        return bag, None, count
    valid = (bag >= 0) & (bag < count)
    return bag.clamp(0, max(count - 1, 0)), valid, count


def reduce_bags(
    rows: Tensor,
    bag: Tensor,
    keep: Tensor | None,
    count: int,
    mode: str,
    weights: Tensor | None,
    starts: Tensor,
) -> Tensor:
    """Sum or average (``mode``) ``rows`` (one per index; those with ``keep`` false are left
    out, none where ``keep`` is None) into ``count`` bags starting at ``starts``; an empty bag
    gives zeros.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn._embedding_bag import reduce_bags
    >>> rows = tc.tensor([[1.0], [3.0], [5.0]])
    >>> keep = tc.tensor([True, False, True])
    >>> reduce_bags(rows, tc.tensor([0, 0, 1]), keep, 2, "mean", None, tc.tensor([0, 2]))
    tensor([[1.],
            [5.]])
    >>> reduce_bags(rows, tc.tensor([0, 0, 1]), None, 2, "mean", None, tc.tensor([0, 2]))
    tensor([[2.],
            [5.]])
    """
    dim = rows.shape[-1]
    dev = rows.device
    w = None if keep is None else keep.to(rows.dtype)
    if weights is not None:
        w = weights if w is None else w * weights
    out = ops.zeros(count, dim, dtype=rows.dtype, device=dev)
    values = rows if w is None else rows * w.unsqueeze(1)
    # (without keep, bag_ids' bags lie in [0, count): index_add's bounds check, four passes
    # and a read of the device, would find nothing)
    out = ops.index_put(out, [bag], values, True) if keep is None else out.index_add(0, bag, values)
    if mode == "mean":
        if keep is None:
            # Every index counts: the bags' sizes are the gaps between their starts.
            end = ops.full((1,), rows.shape[0], dtype=dt.int64, device=dev)
            n = ops.diff(starts.to(dt.int64), append=end).to(rows.dtype)
        else:
            n = ops.zeros(count, dtype=rows.dtype, device=dev).index_add(
                0, bag, keep.to(rows.dtype)
            )
        out = out / n.clamp(min=1).unsqueeze(1)
    return out
