"""The collectives and point-to-point operations of ``tensorcore.distributed``.

Each function checks its arguments, finds the group, checks that every rank passes tensors of
the same shapes and dtypes (``_agreement.py``), hands the communication backend contiguous
tensors, and copies results back into non-contiguous ones. Results are written in place, as
in PyTorch; with ``async_op=True`` the function returns a
:class:`~tensorcore.distributed.Work` whose ``wait()`` finishes the operation (the in-place
results are there only after it). ``all_reduce`` of a contiguous tensor keeps what it checked
and prepared for the tensor's next call (``_plan.py``).

The examples run under a launcher, e.g. ``mpiexec -n 2 python script.py`` (they are not run
as doctests: they need several processes).
"""

from __future__ import annotations

from typing import Any

from .. import dtypes, layouts
from .._tensor import Tensor
from ..autograd import grad_mode
from ..ops import functions as ops
from . import _plan
from ._agreement import agree, disagreement, shape_dtype
from ._backend import Disagreement, PremulSum, ProcessGroup, ReduceOp, Work
from ._group import _canonical_rank, _group, _World

__all__ = [
    "all_gather",
    "all_gather_into_tensor",
    "all_reduce",
    "barrier",
    "broadcast",
    "gather",
    "irecv",
    "isend",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "send",
]


def _check(pg: ProcessGroup, t: Any, what: str, arg: str = "tensor") -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}(): argument '{arg}' must be a Tensor, not {type(t).__name__}")
    if t.layout is not layouts.strided:
        raise RuntimeError(
            f"{what}(): argument '{arg}' is a {t.layout} tensor; collectives take strided "
            "tensors (convert with .to_dense())"
        )
    if t.device.type not in pg.devices:
        raise RuntimeError(
            f"{what}(): argument '{arg}' is on {t.device}, but the '{pg.backend}' backend moves "
            f"tensors of {', '.join(pg.devices)}; move it with .to('{pg.devices[0]}')"
        )
    return t


def _inout(t: Tensor) -> tuple[Tensor, Any]:
    """A contiguous tensor the engine may write, and how to copy it back into ``t``."""
    if t.is_contiguous():
        return t, None
    buf = t.contiguous()

    def back() -> None:
        with grad_mode.no_grad():
            t.copy_(buf)

    return buf, back


def _finish(work: Work, async_op: bool, *finishers: Any, outputs: list[Any]) -> Work | None:
    """Run ``finishers`` after ``work``; return it when ``async_op`` (its future carries
    ``outputs``, as PyTorch's), else wait for it and return None."""
    for fn in finishers:
        if fn is not None:
            work.then(fn)
    work.outputs = outputs
    if async_op:
        return work
    work.wait()
    return None


_BITWISE = (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def _op(pg: ProcessGroup, op: Any, what: str, tensor: Tensor) -> ReduceOp:
    if isinstance(op, ReduceOp):
        rop = op
    elif isinstance(op, str) and op.upper() in ReduceOp.__members__:
        rop = ReduceOp[op.upper()]
    elif isinstance(op, PremulSum):
        rop = ReduceOp.PREMUL_SUM
    else:
        raise ValueError(f"{what}(): op must be a tensorcore.distributed.ReduceOp, got {op!r}")
    if rop is ReduceOp.AVG and tensor.dtype is dtypes.bool_:
        # (no mean of truth values: PyTorch's error, on every communication backend)
        raise TypeError("Cannot use ReduceOp.AVG with boolean inputs")
    if rop in _BITWISE and (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise RuntimeError(f"Cannot use ReduceOp.{rop.name} with non-integral dtype")
    if rop not in pg.reduce_ops:
        backend = pg.backend or type(pg).__name__
        runs = ", ".join(o.name for o in sorted(pg.reduce_ops))
        raise NotImplementedError(
            f"Cannot use ReduceOp.{rop.name} with {backend} (the '{backend}' backend runs {runs})"
        )
    return rop


def all_reduce(tensor: Tensor, op: Any = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """Reduce ``tensor`` over every rank of ``group``; the result is written into ``tensor``
    on every rank.

    Parameters
    ----------
    tensor
        Input and output, of the same shape and dtype on every rank (any dtype; bfloat16 and
        float16 are reduced in float32 by the MPI backend).
    op
        A :class:`ReduceOp`: SUM (default), PRODUCT, MIN, MAX, AVG.
    group
        The process group; the default group when None.
    async_op
        Return a :class:`Work` instead of waiting.

    Examples
    --------
    >>> t = tc.ones(3) * (dist.get_rank() + 1)  # doctest: +SKIP
    >>> dist.all_reduce(t)  # doctest: +SKIP
    >>> t  # on 2 ranks  # doctest: +SKIP
    tensor([3., 3., 3.])
    """
    pg = _World.default if group is None else None
    if pg is None:
        pg = _group(group, "all_reduce")
        if pg is None:
            return None
    plan = _World.plans.get(id(tensor))
    # A tensor that passed the checks below before, and is the same memory, skips them.
    if plan is None or not plan.fits(tensor, pg, op):
        _check(pg, tensor, "all_reduce")
        rop = _op(pg, op, "all_reduce", tensor)
        if not tensor.is_contiguous():
            with grad_mode.no_grad():
                buf, back = _inout(tensor)
            once = _plan.temporary(pg, buf, rop)
            try:
                work = once.run(buf, async_op)
            except Disagreement as exc:
                raise disagreement(pg, "all_reduce", exc.found) from None
            if work is None:
                once.release()
                back()
                return None
            work = work.then(back).then(once.release)
            work.outputs = [tensor]
            return work
        plan = _plan.make(pg, tensor, op, rop)
    try:
        work = plan.run(tensor, async_op)
    except Disagreement as exc:
        raise disagreement(pg, "all_reduce", exc.found) from None
    if work is not None:
        work.outputs = [tensor]
    return work


def broadcast(tensor: Tensor, src: int | None = None, group: Any = None,
              async_op: bool = False, group_src: int | None = None) -> Work | None:  # fmt: skip
    """Copy rank ``src``'s ``tensor`` (a global rank; or ``group_src``, a rank in ``group``:
    one of the two) into ``tensor`` on every rank.

    Examples
    --------
    >>> t = tc.arange(3.) if dist.get_rank() == 0 else tc.zeros(3)  # doctest: +SKIP
    >>> dist.broadcast(t, src=0)  # doctest: +SKIP
    """
    pg = _group(group, "broadcast")
    if pg is None:
        return None
    _check(pg, tensor, "broadcast")
    root = _canonical_rank(pg, src, group_src, "broadcast", "src")
    agree(pg, "broadcast", tensor, f"src={_World.ranks[pg][root]}")
    with grad_mode.no_grad():
        buf, back = _inout(tensor)
        return _finish(pg.broadcast(buf, root), async_op, back, outputs=[tensor])


def _flat(t: Tensor, n: int) -> Tensor:
    return ops.empty((n * t.numel(),), dtype=t.dtype, device=t.device)


def _check_list(pg: ProcessGroup, ts: Any, like: Tensor, what: str, arg: str) -> list[Tensor]:
    if not isinstance(ts, (list, tuple)) or len(ts) != pg.size():
        raise ValueError(
            f"{what}(): argument '{arg}' must be a list of {pg.size()} tensors (one per rank "
            f"of the group), got {type(ts).__name__} of length {len(ts) if hasattr(ts, '__len__') else '?'}"  # noqa: E501
        )
    for i, t in enumerate(ts):
        _check(pg, t, what, f"{arg}[{i}]")
        if tuple(t.shape) != tuple(like.shape) or t.dtype is not like.dtype:
            raise RuntimeError(
                f"{what}(): {arg}[{i}] is {shape_dtype(t)} but the tensor is "
                f"{shape_dtype(like)}; every tensor of the list must have the tensor's shape "
                "and dtype"
            )
    return list(ts)


def _split_into(flat: Tensor, outs: list[Tensor]) -> Any:
    def back() -> None:
        n = outs[0].numel() if outs else 0
        with grad_mode.no_grad():
            for i, t in enumerate(outs):
                t.copy_(flat[i * n : (i + 1) * n].view(tuple(t.shape)))

    return back


def _concat(ts: list[Tensor]) -> Tensor:
    return ops.cat([t.reshape(-1) for t in ts]) if ts else ops.empty((0,))


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: Any = None,
               async_op: bool = False) -> Work | None:  # fmt: skip
    """Gather every rank's ``tensor`` into ``tensor_list`` (one tensor per rank, in rank
    order) on every rank.

    Examples
    --------
    >>> out = [tc.zeros(2) for _ in range(dist.get_world_size())]  # doctest: +SKIP
    >>> dist.all_gather(out, tc.full((2,), float(dist.get_rank())))  # doctest: +SKIP
    """
    pg = _group(group, "all_gather")
    if pg is None:
        return None
    _check(pg, tensor, "all_gather")
    outs = _check_list(pg, tensor_list, tensor, "all_gather", "tensor_list")
    agree(pg, "all_gather", tensor)
    with grad_mode.no_grad():
        flat = _flat(tensor, pg.size())
        work = pg.allgather(flat, tensor.contiguous())
        return _finish(work, async_op, _split_into(flat, outs), outputs=tensor_list)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:  # fmt: skip
    """Gather every rank's ``input_tensor`` into ``output_tensor``, concatenated along the
    first dimension (shape ``(world * d0, ...)``) or stacked (``(world, d0, ...)``).

    Examples
    --------
    >>> out = tc.empty(2 * dist.get_world_size())  # doctest: +SKIP
    >>> dist.all_gather_into_tensor(out, tc.ones(2))  # doctest: +SKIP
    """
    what = "all_gather_into_tensor"
    pg = _group(group, what)
    if pg is None:
        return None
    _check(pg, input_tensor, what, "input_tensor")
    _check(pg, output_tensor, what, "output_tensor")
    if (
        output_tensor.numel() != pg.size() * input_tensor.numel()
        or output_tensor.dtype is not input_tensor.dtype
    ):
        raise RuntimeError(
            f"{what}(): output_tensor is {shape_dtype(output_tensor)}, it must hold world_size "
            f"({pg.size()}) times the input_tensor ({shape_dtype(input_tensor)}), of its dtype"
        )
    agree(pg, what, input_tensor)
    with grad_mode.no_grad():
        buf, back = _inout(output_tensor)
        return _finish(
            pg.allgather(buf, input_tensor.contiguous()), async_op, back, outputs=[output_tensor]
        )


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: Any = ReduceOp.SUM,
                   group: Any = None, async_op: bool = False) -> Work | None:  # fmt: skip
    """Reduce ``input_list`` (one tensor per rank) over the group; rank ``i`` gets the
    reduction of everyone's ``input_list[i]`` in ``output``.

    Examples
    --------
    >>> out = tc.empty(2)  # doctest: +SKIP
    >>> dist.reduce_scatter(out, [tc.ones(2)] * dist.get_world_size())  # doctest: +SKIP
    """
    what = "reduce_scatter"
    pg = _group(group, what)
    if pg is None:
        return None
    _check(pg, output, what, "output")
    ins = _check_list(pg, input_list, output, what, "input_list")
    rop = _op(pg, op, what, output)
    agree(pg, what, output, rop.name)
    with grad_mode.no_grad():
        buf, back = _inout(output)
        return _finish(pg.reduce_scatter(buf, _concat(ins), rop), async_op, back, outputs=[output])


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: Any = ReduceOp.SUM,
                          group: Any = None, async_op: bool = False) -> Work | None:  # fmt: skip
    """``reduce_scatter`` with the inputs as one tensor of ``world_size`` times ``output``'s
    elements (concatenated or stacked along the first dimension).

    Examples
    --------
    >>> out = tc.empty(2)  # doctest: +SKIP
    >>> dist.reduce_scatter_tensor(out, tc.ones(2 * dist.get_world_size()))  # doctest: +SKIP
    """
    what = "reduce_scatter_tensor"
    pg = _group(group, what)
    if pg is None:
        return None
    _check(pg, output, what, "output")
    _check(pg, input, what, "input")
    if input.numel() != pg.size() * output.numel() or input.dtype is not output.dtype:
        raise RuntimeError(
            f"{what}(): input is {shape_dtype(input)}, it must hold world_size ({pg.size()}) times "
            f"the output ({shape_dtype(output)}), of its dtype"
        )
    rop = _op(pg, op, what, input)
    agree(pg, what, input, rop.name)
    with grad_mode.no_grad():
        buf, back = _inout(output)
        return _finish(
            pg.reduce_scatter(buf, input.contiguous(), rop), async_op, back, outputs=[output]
        )


def reduce(tensor: Tensor, dst: int | None = None, op: Any = ReduceOp.SUM, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Work | None:  # fmt: skip
    """Reduce ``tensor`` over the group into rank ``dst``'s ``tensor`` (a global rank; or
    ``group_dst``, a rank in ``group``); the other ranks' tensors are left as they were.

    Examples
    --------
    >>> t = tc.ones(2)  # doctest: +SKIP
    >>> dist.reduce(t, dst=0)  # doctest: +SKIP
    """
    pg = _group(group, "reduce")
    if pg is None:
        return None
    _check(pg, tensor, "reduce")
    root = _canonical_rank(pg, dst, group_dst, "reduce", "dst")
    rop = _op(pg, op, "reduce", tensor)
    agree(pg, "reduce", tensor, f"{rop.name} dst={_World.ranks[pg][root]}")
    with grad_mode.no_grad():
        if pg.rank() == root:
            buf, back = _inout(tensor)
        else:  # the engine may use the send buffer as scratch: keep the caller's intact
            buf, back = tensor.clone(memory_format=layouts.contiguous_format), None
        return _finish(pg.reduce(buf, root, rop), async_op, back, outputs=[tensor])


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:  # fmt: skip
    """Gather every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (a global rank;
    or ``group_dst``, a rank in ``group``); the other ranks pass no list.

    Examples
    --------
    >>> out = [tc.zeros(2) for _ in range(2)] if dist.get_rank() == 0 else None  # doctest: +SKIP
    >>> dist.gather(tc.ones(2), out, dst=0)  # doctest: +SKIP
    """
    pg = _group(group, "gather")
    if pg is None:
        return None
    _check(pg, tensor, "gather")
    root = _canonical_rank(pg, dst, group_dst, "gather", "dst")
    dst = _World.ranks[pg][root]
    here = pg.rank() == root
    if here:
        outs = _check_list(pg, gather_list, tensor, "gather", "gather_list")
    elif gather_list:
        raise ValueError(f"gather(): gather_list must be given on rank {dst} (dst) only")
    agree(pg, "gather", tensor, f"dst={dst}")
    with grad_mode.no_grad():
        flat = _flat(tensor, pg.size()) if here else None
        work = pg.gather(flat, tensor.contiguous(), root)
        split = _split_into(flat, outs) if flat is not None else None
        return _finish(work, async_op, split, outputs=gather_list if here and gather_list else [])


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False,
            group_src: int | None = None) -> Work | None:  # fmt: skip
    """Rank ``src`` (a global rank; or ``group_src``, a rank in ``group``) sends
    ``scatter_list[i]`` to rank ``i``, which receives it into ``tensor``; the other ranks
    pass no list.

    Examples
    --------
    >>> parts = [tc.full((2,), float(i)) for i in range(2)]  # doctest: +SKIP
    >>> out = tc.empty(2)  # doctest: +SKIP
    >>> dist.scatter(out, parts if dist.get_rank() == 0 else None, src=0)  # doctest: +SKIP
    """
    pg = _group(group, "scatter")
    if pg is None:
        return None
    _check(pg, tensor, "scatter")
    root = _canonical_rank(pg, src, group_src, "scatter", "src")
    src = _World.ranks[pg][root]
    here = pg.rank() == root
    if here:
        ins = _check_list(pg, scatter_list, tensor, "scatter", "scatter_list")
    elif scatter_list:
        raise ValueError(f"scatter(): scatter_list must be given on rank {src} (src) only")
    agree(pg, "scatter", tensor, f"src={src}")
    with grad_mode.no_grad():
        buf, back = _inout(tensor)
        work = pg.scatter(buf, _concat(ins) if here else None, root)
        return _finish(work, async_op, back, outputs=[tensor])


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None,
            timeout: Any = None) -> Work | None:  # fmt: skip
    """Wait until every rank of ``group`` reaches the barrier, at most ``timeout`` (a
    ``datetime.timedelta``; the group's timeout when None), then raise
    ``DistBackendError``. ``device_ids`` is accepted for compatibility.

    Examples
    --------
    >>> dist.barrier()  # doctest: +SKIP
    """
    pg = _group(group, "barrier")
    if pg is None:
        return None
    work = pg.barrier()
    work.outputs = []
    if async_op:
        return work
    work.wait(timeout)
    return None


def isend(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:  # fmt: skip
    """Start sending ``tensor`` to rank ``dst`` (a global rank; or ``group_dst``, a rank in
    ``group``); ``wait()`` the Work before changing the tensor.

    Examples
    --------
    >>> w = dist.isend(tc.ones(2), dst=1)  # doctest: +SKIP
    >>> w.wait()  # doctest: +SKIP
    True
    """
    pg = _group(group, "isend")
    if pg is None:
        return None
    _, buf, peer, tag, _ = p2p_op(pg, "send", tensor, dst, tag, "isend", group_dst)
    assert peer is not None
    work = pg.send(buf, peer, tag)
    work.outputs = [tensor]
    return work


def irecv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:  # fmt: skip
    """Start receiving into ``tensor`` from rank ``src`` (a global rank; or ``group_src``, a
    rank in ``group``; any rank when both are None); after ``wait()``, ``result()`` is the
    sender's rank in the group.

    Examples
    --------
    >>> t = tc.empty(2)  # doctest: +SKIP
    >>> dist.irecv(t, src=0).wait()  # doctest: +SKIP
    True
    """
    pg = _group(group, "irecv")
    if pg is None:
        return None
    _, buf, peer, tag, back = p2p_op(pg, "recv", tensor, src, tag, "irecv", group_src)
    work = pg.recv(buf, peer, tag)
    work.outputs = [tensor]
    return work.then(back) if back is not None else work


def p2p_op(
    pg: ProcessGroup,
    kind: str,
    tensor: Any,
    peer: int | None,
    tag: int,
    what: str,
    group_peer: int | None = None,
) -> tuple[str, Tensor, int | None, int, Any]:
    """A checked send or receive for ``pg``: ``(kind, contiguous tensor, peer's rank in the
    group, tag, finisher)``, the peer given as a global rank (``peer``) or as a rank in the
    group (``group_peer``); the finisher copies a receive back into a non-contiguous
    ``tensor`` (None when there is nothing to copy)."""
    _check(pg, tensor, what)
    if kind == "send":
        return (
            kind,
            tensor.contiguous(),
            _canonical_rank(pg, peer, group_peer, what, "dst"),
            tag,
            None,
        )
    if peer is None and group_peer is None:
        rank = None  # (any source)
    else:
        rank = _canonical_rank(pg, peer, group_peer, what, "src")
    with grad_mode.no_grad():
        buf, back = _inout(tensor)
    return kind, buf, rank, tag, back


def send(tensor: Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:  # fmt: skip
    """Send ``tensor`` to rank ``dst`` (a global rank; or ``group_dst``, a rank in
    ``group``) and wait until it is sent.

    Examples
    --------
    >>> dist.send(tc.ones(2), dst=1)  # doctest: +SKIP
    """
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:  # fmt: skip
    """Receive into ``tensor`` from rank ``src`` (a global rank; or ``group_src``, a rank in
    ``group``; any rank when both are None); return the sender's global rank (-1 when this
    process is not in ``group``).

    Examples
    --------
    >>> t = tc.empty(2)  # doctest: +SKIP
    >>> dist.recv(t, src=0)  # doctest: +SKIP
    0
    """
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    sender = work.result()
    pg = _group(group, "recv")
    assert pg is not None
    return _World.ranks[pg][sender]
