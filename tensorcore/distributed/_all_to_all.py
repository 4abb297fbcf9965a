"""All-to-all exchanges (``all_to_all``, ``all_to_all_single``) and the deprecated
coalesced collectives (``all_reduce_coalesced``, ``all_gather_coalesced``).

Every rank sends a block to every rank, the blocks of one rank possibly of other sizes than
another's: the agreement check compares what every rank must share (the collective, the
dtype, the trailing dimensions), and the communication backend's
:meth:`~tensorcore.backend.ProcessGroup.alltoall` moves the blocks (MPI: one
``Ialltoallv``; others: a send and a receive per peer).

The examples run under a launcher, e.g. ``mpiexec -n 2 python script.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor import Tensor
from ..autograd import grad_mode
from ..ops import functions as ops
from ._agreement import agree, shape_dtype
from ._backend import ReduceOp, Work
from ._collectives import _check, _concat, _finish, _inout, all_gather, all_reduce
from ._group import _group

__all__ = ["all_gather_coalesced", "all_reduce_coalesced", "all_to_all", "all_to_all_single"]


def _splits(sizes: Any, t: Tensor, n: int, what: str, arg: str) -> list[int]:
    """Rows of ``t`` per rank: ``sizes``, or ``t``'s first dimension in ``n`` equal parts."""
    rows = t.shape[0] if t.dim() else 1
    if sizes is None or len(sizes) == 0:
        if rows % n:
            raise ValueError(
                f"{what}(): {arg} has {rows} rows, which world_size ({n}) does not divide; "
                f"give {arg}_split_sizes"
            )
        return [rows // n] * n
    sizes = [int(k) for k in sizes]
    if len(sizes) != n:
        raise RuntimeError("Number of tensor splits not equal to group size")
    if any(k < 0 for k in sizes) or sum(sizes) != rows:
        raise RuntimeError(
            f"{what}(): {arg}_split_sizes {sizes} must be non-negative and add up to the "
            f"{rows} rows of the {arg} tensor"
        )
    return sizes


def all_to_all_single(
    output: Tensor,
    input: Tensor,
    output_split_sizes: list[int] | None = None,
    input_split_sizes: list[int] | None = None,
    group: Any = None,
    async_op: bool = False,
) -> Work | None:
    """Split ``input`` along its first dimension and send block ``i`` to rank ``i``; the
    blocks received, in rank order, are written into ``output``.

    Parameters
    ----------
    output, input
        Tensors of one dtype and the same trailing dimensions.
    output_split_sizes, input_split_sizes
        The rows received from and sent to each rank (one entry per rank); None (or empty):
        equal blocks, world_size dividing the first dimension.
    group, async_op
        As for the other collectives.

    Raises
    ------
    ValueError
        For tensors of different dtypes, or a first dimension world_size does not divide.
    RuntimeError
        For split sizes of another length than the group's size, or that do not add up to
        the tensor's rows; when the ranks' calls disagree.

    Examples
    --------
    >>> x = tc.arange(2.) + 2 * dist.get_rank()  # on 2 ranks: [0, 1] and [2, 3]  # doctest: +SKIP
    >>> out = tc.empty(2)  # doctest: +SKIP
    >>> dist.all_to_all_single(out, x)  # doctest: +SKIP
    >>> out  # on rank 1  # doctest: +SKIP
    tensor([1., 3.])
    """
    what = "all_to_all_single"
    pg = _group(group, what)
    if pg is None:
        return None
    _check(pg, output, what, "output")
    _check(pg, input, what, "input")
    if output.dtype is not input.dtype:
        raise ValueError(
            f"Invalid usage of tensors with different dtypesFound {output.dtype} and  {input.dtype}"
        )
    n = pg.size()
    outs = _splits(output_split_sizes, output, n, what, "output")
    ins = _splits(input_split_sizes, input, n, what, "input")
    if tuple(output.shape[1:]) != tuple(input.shape[1:]):
        raise RuntimeError(
            f"{what}(): output is {shape_dtype(output)} and input {shape_dtype(input)}; their "
            "dimensions after the first must be the same"
        )
    row = 1
    for k in input.shape[1:]:
        row *= k
    # (what all ranks share: a block's trailing dimensions and the dtype)
    agree(pg, what, input.reshape(-1, *input.shape[1:])[:0] if input.dim() else input)
    with grad_mode.no_grad():
        buf, back = _inout(output)
        work = pg.alltoall(buf.reshape(-1), input.contiguous().reshape(-1),
                           [k * row for k in outs], [k * row for k in ins])  # fmt: skip
        return _finish(work, async_op, back, outputs=[output])


def all_to_all(
    output_tensor_list: list[Tensor],
    input_tensor_list: list[Tensor],
    group: Any = None,
    async_op: bool = False,
) -> Work | None:
    """Send ``input_tensor_list[i]`` to rank ``i`` and receive rank ``i``'s tensor for this
    rank into ``output_tensor_list[i]``; every tensor of one dtype, the shapes free (a
    received tensor must have the sent one's number of elements).

    Examples
    --------
    >>> r = dist.get_rank()  # doctest: +SKIP
    >>> ins = [tc.full((2,), float(10 * r + i)) for i in range(2)]  # doctest: +SKIP
    >>> outs = [tc.empty(2) for _ in range(2)]  # doctest: +SKIP
    >>> dist.all_to_all(outs, ins)  # doctest: +SKIP
    >>> outs  # on rank 1  # doctest: +SKIP
    [tensor([1., 1.]), tensor([11., 11.])]
    """
    what = "all_to_all"
    pg = _group(group, what)
    if pg is None:
        return None
    n = pg.size()
    for arg, ts in (("output_tensor_list", output_tensor_list),
                    ("input_tensor_list", input_tensor_list)):  # fmt: skip
        if not isinstance(ts, (list, tuple)) or len(ts) != n:
            raise RuntimeError(
                f"{what}(): {arg} must be a list of {n} tensors (one per rank of the group), "
                f"got {type(ts).__name__} of length {len(ts) if hasattr(ts, '__len__') else '?'}"
            )
        for i, t in enumerate(ts):
            _check(pg, t, what, f"{arg}[{i}]")
    dtype = input_tensor_list[0].dtype
    for t in [*output_tensor_list, *input_tensor_list]:
        if t.dtype is not dtype:
            raise ValueError(
                f"Invalid usage of tensors with different dtypesFound {dtype} and  {t.dtype}"
            )
    agree(pg, what, ops.empty((0,), dtype=dtype))
    outs = list(output_tensor_list)
    with grad_mode.no_grad():
        flat_in = _concat(list(input_tensor_list)).to(dtype)
        flat_out = ops.empty((sum(t.numel() for t in outs),), dtype=dtype, device=flat_in.device)
        work = pg.alltoall(flat_out, flat_in, [t.numel() for t in outs],
                           [t.numel() for t in input_tensor_list])  # fmt: skip

    def back() -> None:
        at = 0
        with grad_mode.no_grad():
            for t in outs:
                t.copy_(flat_out[at : at + t.numel()].view(tuple(t.shape)))
                at += t.numel()

    return _finish(work, async_op, back, outputs=output_tensor_list)


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`tensorcore.distributed.{name}` will be deprecated (as PyTorch's). If you must use "
        "it, please revisit our documentation later at "
        "https://pytorch.org/docs/main/distributed.html#collective-functions",
        FutureWarning,
        stacklevel=3,
    )


def all_reduce_coalesced(tensors: list[Tensor], op: Any = ReduceOp.SUM, group: Any = None,
                         async_op: bool = False) -> Work | None:  # fmt: skip
    """Deprecated (a ``FutureWarning``, as in PyTorch): ``all_reduce`` of every tensor of
    ``tensors`` (of one dtype), in one message.

    Examples
    --------
    >>> ts = [tc.ones(2), tc.ones(3)]  # doctest: +SKIP
    >>> dist.all_reduce_coalesced(ts)  # doctest: +SKIP
    """
    _deprecated("all_reduce_coalesced")
    what = "all_reduce_coalesced"
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    pg = _group(group, what)
    if pg is None:
        return None
    ts = [_check(pg, t, what, f"tensors[{i}]") for i, t in enumerate(tensors)]
    if not ts:
        return None
    if any(t.dtype is not ts[0].dtype for t in ts):
        raise ValueError(f"{what}(): the tensors must have one dtype")
    with grad_mode.no_grad():
        flat = _concat(ts)
    work = all_reduce(flat, op=op, group=group, async_op=True)
    assert work is not None

    def back() -> None:
        at = 0
        with grad_mode.no_grad():
            for t in ts:
                t.copy_(flat[at : at + t.numel()].view(tuple(t.shape)))
                at += t.numel()

    return _finish(work, async_op, back, outputs=ts)


def all_gather_coalesced(output_tensor_lists: list[list[Tensor]], input_tensor_list: list[Tensor],
                         group: Any = None, async_op: bool = False) -> Work | None:  # fmt: skip
    """Deprecated (a ``FutureWarning``, as in PyTorch): ``all_gather`` of every tensor of
    ``input_tensor_list``; ``output_tensor_lists[i][j]`` gets rank ``i``'s
    ``input_tensor_list[j]``.

    Examples
    --------
    >>> outs = [[tc.empty(2)] for _ in range(dist.get_world_size())]  # doctest: +SKIP
    >>> dist.all_gather_coalesced(outs, [tc.ones(2)])  # doctest: +SKIP
    """
    _deprecated("all_gather_coalesced")
    what = "all_gather_coalesced"
    pg = _group(group, what)
    if pg is None:
        return None
    if not isinstance(output_tensor_lists, (list, tuple)) or len(output_tensor_lists) != pg.size():
        raise ValueError(f"{what}(): output_tensor_lists must hold one list per rank ({pg.size()})")
    ins = [_check(pg, t, what, f"input_tensor_list[{i}]")
           for i, t in enumerate(input_tensor_list)]  # fmt: skip
    for i, outs in enumerate(output_tensor_lists):
        if len(outs) != len(ins) or any(
            tuple(o.shape) != tuple(t.shape) or o.dtype is not t.dtype
            for o, t in zip(outs, ins, strict=True)
        ):
            raise ValueError(
                f"{what}(): output_tensor_lists[{i}] must have the shapes and dtypes of "
                "input_tensor_list"
            )
    if any(t.dtype is not ins[0].dtype for t in ins):
        raise ValueError(f"{what}(): the tensors must have one dtype")
    with grad_mode.no_grad():
        flat = _concat(ins)
        gathered = [ops.empty_like(flat) for _ in range(pg.size())]
    work = all_gather(gathered, flat, group=group, async_op=True)
    assert work is not None

    def back() -> None:
        with grad_mode.no_grad():
            for outs, g in zip(output_tensor_lists, gathered, strict=True):
                at = 0
                for o in outs:
                    o.copy_(g[at : at + o.numel()].view(tuple(o.shape)))
                    at += o.numel()

    return _finish(work, async_op, back, outputs=list(output_tensor_lists))
