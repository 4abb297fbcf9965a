"""The NCCL process group: ``tensorcore.distributed``'s collectives over one NCCL communicator
on one CUDA device, on a stream of its own; how it works is told in
:mod:`tensorcore_cuda.nccl`, the backend's public face."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import tensorcore as tc
from tensorcore.backend import DEFAULT_TIMEOUT, DistBackendError, ProcessGroup, ReduceOp, Work

from ._nccl_plan import NCCLPlan, compare, on_device
from ._nccl_rendezvous import communicator, id_from_bytes, id_to_bytes
from ._nccl_work import NCCLWork, Watchdog, async_error_handling, blocking_wait

__all__ = ["NCCLProcessGroup", "version_string"]


def version_string(code: int) -> str:
    """NCCL's version code as ``major.minor.patch`` (``21803`` is 2.18.3; codes before 2.9
    were ``major * 1000 + minor * 100 + patch``: ``2708`` is 2.7.8).

    Examples
    --------
    >>> from tensorcore_cuda.nccl import version_string
    >>> version_string(21803), version_string(2708)
    ('2.18.3', '2.7.8')
    """
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


# ------------------------------------------------------------------ dtypes and operations
#: tensorcore dtype name -> (NCCL datatype constant, elements per tensor element).
_NATIVE = {
    "bool": ("NCCL_UINT8", 1),
    "uint8": ("NCCL_UINT8", 1),
    "int8": ("NCCL_INT8", 1),
    "int32": ("NCCL_INT32", 1),
    "int64": ("NCCL_INT64", 1),
    "float16": ("NCCL_FLOAT16", 1),
    "float32": ("NCCL_FLOAT32", 1),
    "float64": ("NCCL_FLOAT64", 1),
    "complex64": ("NCCL_FLOAT32", 2),
    "complex128": ("NCCL_FLOAT64", 2),
}
#: Dtypes NCCL cannot reduce, and the dtype they are reduced in.
_WIDER = {"int16": tc.int32, "bfloat16": tc.float32}
_OPS = {
    ReduceOp.SUM: "NCCL_SUM",
    ReduceOp.PRODUCT: "NCCL_PROD",
    ReduceOp.MIN: "NCCL_MIN",
    ReduceOp.MAX: "NCCL_MAX",
}


def _any_source() -> RuntimeError:
    return RuntimeError(
        "recv: the 'nccl' backend does not support receiving from any source "
        "(ProcessGroupNCCL does not support recvAnysource): pass src"
    )


def _returns(value: Any) -> Callable[[], Any]:
    """A finisher that makes ``value`` the Work's result (a receive's sender)."""
    return lambda: value


def _copy(dst: Any, src: Any) -> None:
    with tc.no_grad():  # (a finisher may run in Work.wait, outside the collective's no_grad)
        dst.copy_(src)


class NCCLProcessGroup(ProcessGroup):
    """A process group over one NCCL communicator on one CUDA device (see the module)."""

    backend = "nccl"
    devices = ("cuda",)

    def __init__(
        self,
        cp: Any,
        nccl: Any,
        comm: Any,
        rank: int,
        size: int,
        index: int,
        timeout: timedelta = DEFAULT_TIMEOUT,
        store: Any = None,
        mpi: Any = None,
    ) -> None:
        super().__init__(timeout)
        self._cuda, self._nccl, self._comm = cp.cuda, nccl, comm
        self._cp = cp
        self._rank, self._size, self._index = rank, size, index
        self.device = tc.device("cuda", index)
        self._store, self._mpi = store, mpi
        self._broken: str | None = None
        code = int(nccl.get_version())
        self.nccl_version = version_string(code)
        self._avg = code >= 21000 and hasattr(nccl, "NCCL_AVG")
        self._types = {k: (getattr(nccl, c), n) for k, (c, n) in _NATIVE.items()}
        if code >= 21000 and hasattr(nccl, "NCCL_BFLOAT16"):
            self._types["bfloat16"] = (nccl.NCCL_BFLOAT16, 1)
        self._ops = {op: getattr(nccl, name) for op, name in _OPS.items()}
        with self._cuda.Device(index):
            self._stream = self._cuda.Stream(non_blocking=True)
            self._one = tc.zeros(1, device=self.device)  # the barrier's all-reduce
        #: ``wait()`` blocks the host (``TENSORCORE_NCCL_BLOCKING_WAIT=1``, read here, as
        #: PyTorch reads ``TORCH_NCCL_BLOCKING_WAIT`` when it makes a group).
        self.blocking_wait = blocking_wait()
        #: What the watchdog does on a timeout or an NCCL error: PyTorch's modes of
        #: ``TORCH_NCCL_ASYNC_ERROR_HANDLING`` (``TENSORCORE_NCCL_ASYNC_ERROR_HANDLING``).
        self.async_error_handling = async_error_handling(self.blocking_wait)
        self._watchdog = Watchdog(self)

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    # -------------------------------------------------------------- plumbing
    def _check_tensor(self, t: Any, what: str) -> None:
        if t.device.index != self._index:
            raise ValueError(
                f"{what}: Tensors must be on the process group's device: got a tensor on "
                f"{t.device}, but this 'nccl' group runs on {self.device} (the current "
                "device at init_process_group: call tensorcore.cuda.set_device(local_rank) "
                "before it, and keep the rank's tensors there)"
            )

    def _issue(self, what: str, issue: Callable[[int], None], tensors: tuple[Any, ...]) -> Any:
        """Run ``issue(stream pointer)``, which makes the NCCL calls, on the group's stream
        after the work queued on the current stream; the event recorded after them."""
        if self._broken is not None:
            raise DistBackendError(
                f"{what}: the NCCL communicator was aborted ({self._broken}); the process "
                "group is unusable: destroy it"
            )
        for t in tensors:
            self._check_tensor(t, what)
        cuda = self._cuda
        with cuda.Device(self._index):
            ready = cuda.Event(disable_timing=True)
            ready.record(cuda.get_current_stream())
            self._stream.wait_event(ready)
            try:
                issue(self._stream.ptr)
            except self._nccl.NcclError as exc:
                raise DistBackendError(f"{what}: NCCL failed: {exc}") from None
            done = cuda.Event(disable_timing=True)
            done.record(self._stream)
        return done

    def _work(self, event: Any, what: str, finishers: list[Callable[[], Any]] | None,
              keep: tuple[Any, ...], host: bool = False) -> NCCLWork:  # fmt: skip
        """A Work over ``event``, followed by the watchdog, which holds ``keep`` (the
        tensors the NCCL calls use) until the event is reached."""
        work = NCCLWork(self, event, what, finishers or [], keep, host)
        self._watchdog.watch(work, keep)
        return work

    def _launch(
        self,
        what: str,
        issue: Callable[[int], None],
        tensors: tuple[Any, ...],
        finishers: list[Callable[[], Any]] | None = None,
        host: bool = False,
    ) -> NCCLWork:
        """:meth:`_issue`, and a Work over its completion (``host``: whose ``wait()`` blocks
        the host)."""
        return self._work(self._issue(what, issue, tensors), what, finishers, tensors, host)

    def _check_async(self, what: str) -> None:
        try:
            self._comm.check_async_error()
        except self._nccl.NcclError as exc:
            raise DistBackendError(f"{what}: NCCL failed: {exc}") from None

    def _fail(self, reason: str) -> None:
        """Abort the communicator after a timeout or an NCCL error (PyTorch's watchdog does
        the same): its calls in flight never complete otherwise."""
        if self._broken is None:
            self._broken = reason
            with contextlib.suppress(Exception):
                self._comm.abort()

    def _bytes(self, t: Any) -> tuple[int, int, int]:
        """``(address, count, datatype)`` moving ``t``'s memory as bytes."""
        return t.data_ptr(), t.numel() * t.element_size(), self._nccl.NCCL_UINT8

    def _reduction(
        self, t: Any, op: ReduceOp, what: str, here: bool = True
    ) -> tuple[Any, int, int, int, list[Callable[[], Any]]]:
        """``(tensor NCCL reduces, count, datatype, op, finishers)`` for reducing ``t``;
        the finishers (on the rank that gets the result, ``here``) complete an AVG and copy
        a converted tensor back."""
        name = str(t.dtype).replace("tensorcore.", "")
        fins: list[Callable[[], Any]] = []
        if name not in self._types and name in _WIDER:
            wide = t.to(_WIDER[name])
            buf, count, dtype, nop, inner = self._reduction(wide, op, what, here)
            return buf, count, dtype, nop, [*inner, lambda: _copy(t, wide)] if here else []
        if name not in self._types:
            raise TypeError(f"{what}: the 'nccl' backend cannot reduce {t.dtype} tensors")
        dtype, per = self._types[name]
        if t.dtype.is_complex and op not in (ReduceOp.SUM, ReduceOp.AVG):
            raise ValueError(f"{what} does not support ReduceOp.{op.name} on complex tensors")
        if t.dtype is tc.bool:
            nop = self._ops[ReduceOp.MAX if op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX)
                            else ReduceOp.MIN]  # fmt: skip
        elif op is ReduceOp.AVG:
            floating = t.dtype.is_floating_point or t.dtype.is_complex
            if floating and self._avg:
                nop = self._nccl.NCCL_AVG
            else:
                nop = self._ops[ReduceOp.SUM]
                if here:
                    fins.append(lambda: self._average(t))
        else:
            nop = self._ops[op]
        return t, t.numel() * per, dtype, nop, fins

    def _average(self, t: Any) -> None:
        with tc.no_grad():
            if t.dtype.is_floating_point or t.dtype.is_complex:
                t.div_(self._size)
            else:
                t.copy_(t.div(self._size, rounding_mode="trunc"))

    # -------------------------------------------------------------- collectives
    def allreduce(self, tensor: Any, op: ReduceOp) -> Work:
        what = "all_reduce"
        self._check_tensor(tensor, what)
        t, count, dtype, nop, fins = self._reduction(tensor, op, what)
        ptr, comm = t.data_ptr(), self._comm

        def issue(stream: int) -> None:
            comm.allReduce(ptr, ptr, count, dtype, nop, stream)

        return self._launch(what, issue, (tensor, t), fins)

    def broadcast(self, tensor: Any, src: int) -> Work:
        ptr, count, dtype = self._bytes(tensor)
        comm = self._comm

        def issue(stream: int) -> None:
            comm.broadcast(ptr, ptr, count, dtype, src, stream)

        return self._launch("broadcast", issue, (tensor,))

    def allgather(self, output: Any, input: Any) -> Work:
        send, count, dtype = self._bytes(input)
        recv, comm = output.data_ptr(), self._comm

        def issue(stream: int) -> None:
            comm.allGather(send, recv, count, dtype, stream)

        return self._launch("all_gather", issue, (input, output))

    def reduce_scatter(self, output: Any, input: Any, op: ReduceOp) -> Work:
        what = "reduce_scatter"
        self._check_tensor(input, what)
        self._check_tensor(output, what)
        src, _, dtype, nop, _ = self._reduction(input, op, what, here=False)
        out, count, _, _, fins = self._reduction(output, op, what)
        send, recv, comm = src.data_ptr(), out.data_ptr(), self._comm

        def issue(stream: int) -> None:
            comm.reduceScatter(send, recv, count, dtype, nop, stream)

        return self._launch(what, issue, (input, output, src, out), fins)

    def reduce(self, tensor: Any, dst: int, op: ReduceOp) -> Work:
        what = "reduce"
        self._check_tensor(tensor, what)
        here = self._rank == dst
        t, count, dtype, nop, fins = self._reduction(tensor, op, what, here)
        ptr, comm = t.data_ptr(), self._comm

        def issue(stream: int) -> None:
            comm.reduce(ptr, ptr, count, dtype, nop, dst, stream)

        return self._launch(what, issue, (tensor, t), fins)

    def gather(self, output: Any, input: Any, dst: int) -> Work:
        nccl, comm, me, n = self._nccl, self._comm, self._rank, self._size
        send, count, dtype = self._bytes(input)
        if me == dst:
            self._check_tensor(output, "gather")
            output[me * input.numel() : (me + 1) * input.numel()].copy_(input.reshape(-1))
            base = output.data_ptr()

        def issue(stream: int) -> None:
            nccl.groupStart()
            try:
                if me == dst:
                    for r in range(n):
                        if r != me:
                            comm.recv(base + r * count, count, dtype, r, stream)
                else:
                    comm.send(send, count, dtype, dst, stream)
            finally:
                nccl.groupEnd()

        keep = (input,) if output is None else (input, output)
        return self._launch("gather", issue, keep)

    def scatter(self, output: Any, input: Any, src: int) -> Work:
        nccl, comm, me, n = self._nccl, self._comm, self._rank, self._size
        recv, count, dtype = self._bytes(output)
        if me == src:
            self._check_tensor(input, "scatter")
            output.reshape(-1).copy_(input[me * output.numel() : (me + 1) * output.numel()])
            base = input.data_ptr()

        def issue(stream: int) -> None:
            nccl.groupStart()
            try:
                if me == src:
                    for r in range(n):
                        if r != me:
                            comm.send(base + r * count, count, dtype, r, stream)
                else:
                    comm.recv(recv, count, dtype, src, stream)
            finally:
                nccl.groupEnd()

        keep = (output,) if input is None else (output, input)
        return self._launch("scatter", issue, keep)

    def send(self, tensor: Any, dst: int, tag: int) -> Work:
        ptr, count, dtype = self._bytes(tensor)
        comm = self._comm

        def issue(stream: int) -> None:
            comm.send(ptr, count, dtype, dst, stream)

        return self._launch("send", issue, (tensor,))

    def recv(self, tensor: Any, src: int | None, tag: int) -> Work:
        if src is None:
            raise _any_source()
        ptr, count, dtype = self._bytes(tensor)
        comm = self._comm

        def issue(stream: int) -> None:
            comm.recv(ptr, count, dtype, src, stream)

        return self._launch("recv", issue, (tensor,), [lambda: src])

    def barrier(self) -> Work:
        one, comm = self._one, self._comm
        ptr, dtype, op = one.data_ptr(), self._nccl.NCCL_FLOAT32, self._ops[ReduceOp.SUM]

        def issue(stream: int) -> None:
            comm.allReduce(ptr, ptr, 1, dtype, op, stream)

        # PyTorch's NCCL barrier blocks the host too (it synchronizes its stream).
        return self._launch("barrier", issue, (one,), host=True)

    def batch_p2p(self, ops: list[tuple[str, Any, int | None, int]]) -> list[Work]:
        """Every send and receive of ``ops`` in one NCCL group (``groupStart``/``groupEnd``),
        as PyTorch's ``batch_isend_irecv`` on NCCL: NCCL's sends block until their receiver
        is there, so a ring in which every rank sends first would wait forever, one by one.
        One event follows the group; each operation gets a Work over it."""
        if any(kind == "recv" and peer is None for kind, _, peer, _ in ops):
            raise _any_source()
        nccl, comm = self._nccl, self._comm
        calls = [(kind, *self._bytes(t), peer) for kind, t, peer, _ in ops]
        what = "batch_isend_irecv"

        def issue(stream: int) -> None:
            nccl.groupStart()
            try:
                for kind, ptr, count, dtype, peer in calls:
                    if kind == "send":
                        comm.send(ptr, count, dtype, peer, stream)
                    else:
                        comm.recv(ptr, count, dtype, peer, stream)
            finally:
                nccl.groupEnd()

        tensors = tuple(t for _, t, _, _ in ops)
        event = self._issue(what, issue, tensors)
        return [
            self._work(event, what, [_returns(peer)] if kind == "recv" else [], (t,))
            for kind, t, peer, _ in ops
        ]

    # -------------------------------------------------------------- agreement, groups
    def agree(self, description: str, what: str) -> list[str] | None:
        buf = on_device(self, description)
        return compare(self, buf, buf, description, what)

    def allreduce_plan(self, tensor: Any, op: ReduceOp, description: str | None) -> Any:
        """An :class:`NCCLPlan` for a dtype NCCL reduces natively and an op it supports on
        it; None otherwise (the generic path converts, or raises)."""
        name = str(tensor.dtype).replace("tensorcore.", "")
        if name not in self._types or (
            tensor.dtype.is_complex and op not in (ReduceOp.SUM, ReduceOp.AVG)
        ):
            return None
        self._check_tensor(tensor, "all_reduce")
        _, count, dtype, nop, fins = self._reduction(tensor, op, "all_reduce")
        return NCCLPlan(self, count, dtype, nop, bool(fins), description)

    def _allgather_text(self, text: str, what: str) -> list[str]:
        """Every rank's ``text`` (they are all here: a mismatch was found together)."""
        data = text.encode()
        n = self._size
        sizes = tc.zeros(n, dtype=tc.int64, device=self.device)
        mine = tc.tensor([len(data)], dtype=tc.int64, device=self.device)
        self.allgather(sizes, mine).wait(self.timeout)  # (the host reads them)
        lengths = [int(x) for x in sizes.tolist()]
        width = max(lengths)
        padded = tc.tensor(list(data.ljust(width, b"\0")), dtype=tc.uint8, device=self.device)
        every = tc.zeros(n * width, dtype=tc.uint8, device=self.device)
        self.allgather(every, padded).wait(self.timeout)
        raw = bytes(every.tolist())
        return [raw[r * width : r * width + lengths[r]].decode() for r in range(n)]

    def split(self, ranks: list[int]) -> NCCLProcessGroup | None:
        # The new communicator's id is broadcast over this one, from its first member.
        buf = tc.zeros(129, dtype=tc.uint8, device=self.device)
        if self._rank == ranks[0]:
            data = id_to_bytes(self._nccl.get_unique_id())
            buf = tc.tensor(list(data), dtype=tc.uint8, device=self.device)
        self.broadcast(buf, ranks[0]).wait(self.timeout)
        if self._rank not in ranks:
            return None
        uid = id_from_bytes(bytes(buf.tolist()))
        rank = ranks.index(self._rank)
        comm = communicator(self._cp, self._nccl, len(ranks), uid, rank, self._index,
                             "new_group()")  # fmt: skip
        return NCCLProcessGroup(self._cp, self._nccl, comm, rank, len(ranks), self._index,
                                self.timeout)  # fmt: skip

    def abort(self, code: int = 1) -> None:
        """End the job: MPI's abort in a job started by mpiexec (every rank ends), else
        abort the communicator and exit this process with ``code``."""
        self._end(code, clean_up=True)

    def _end(self, code: int, clean_up: bool) -> None:
        """:meth:`abort`, aborting the communicator before this process exits only when
        ``clean_up`` (the watchdog's modes 1 and 3)."""
        if self._mpi is not None:
            self._mpi.Abort(code)
        if clean_up:
            with contextlib.suppress(Exception):
                self._comm.abort()
        os._exit(code)

    def shutdown(self) -> None:
        """Destroy the communicator (abort it when calls are still in flight) and stop the
        store."""
        self._watchdog.stop()
        comm, self._comm = self._comm, None
        if comm is not None:
            with contextlib.suppress(Exception):
                if self._broken is None and self._stream.done:
                    comm.destroy()
                else:
                    comm.abort()
        if self._store is not None:
            self._store.close()
            self._store = None
