"""The ``mpi`` process group: collectives through mpi4py's non-blocking MPI calls.

Imported only when ``init_process_group(backend="mpi")`` runs: it imports ``mpi4py.MPI``,
which starts MPI. Tensors reach MPI as raw host memory (``MPI.buffer.fromaddress`` on the
tensor's ``data_ptr()``), so no array library is involved.

* Data movement (broadcast, gathers, scatter, send/recv) moves bytes (``MPI.BYTE``): every
  dtype works, bfloat16 and float16 included.
* Reductions use MPI's typed operations; bfloat16 and float16, which MPI lacks, are reduced
  in a float32 copy and cast back (rounding once, at the end). ``bool`` maps SUM/MAX to a
  logical or and PRODUCT/MIN to a logical and; AVG is a SUM divided by the group's size.
* Every call is non-blocking (``Iallreduce``...), polled by :class:`~._backend.Work` against
  the group's timeout, so a rank that never joins makes the others raise instead of hanging.
"""

from __future__ import annotations

import array
import contextlib
import zlib
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from .. import dtypes
from ._backend import DEFAULT_TIMEOUT, DistBackendError, ProcessGroup, ReduceOp, Work

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = ["MPIProcessGroup"]

_MPI: Any = None


def _mpi() -> Any:
    global _MPI
    if _MPI is None:
        from mpi4py import MPI

        _MPI = MPI
    return _MPI


_TYPES: dict[Any, Any] = {}


def _datatype(dt: Any) -> Any:
    if not _TYPES:
        _TYPES.update(_table())
    return _TYPES.get(dt)


def _table() -> dict[Any, Any]:
    MPI = _mpi()
    return {
        dtypes.bool_: MPI.C_BOOL,
        dtypes.uint8: MPI.UINT8_T,
        dtypes.int8: MPI.INT8_T,
        dtypes.int16: MPI.INT16_T,
        dtypes.int32: MPI.INT32_T,
        dtypes.int64: MPI.INT64_T,
        dtypes.float32: MPI.FLOAT,
        dtypes.float64: MPI.DOUBLE,
        dtypes.complex64: MPI.C_FLOAT_COMPLEX,
        dtypes.complex128: MPI.C_DOUBLE_COMPLEX,
    }


_OPS: dict[ReduceOp, Any] = {}


def _op(op: ReduceOp, dt: Any, what: str) -> Any:
    MPI = _mpi()
    if dt is dtypes.bool_:
        return MPI.LOR if op in (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG) else MPI.LAND
    if dt.is_complex and op in (ReduceOp.MIN, ReduceOp.MAX):
        raise RuntimeError(f"{what}: ReduceOp.{op.name} is not defined for complex tensors")
    if not _OPS:  # built once: a dict per call costs a microsecond on small messages
        _OPS.update({
            ReduceOp.SUM: MPI.SUM,
            ReduceOp.AVG: MPI.SUM,
            ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX,
        })  # fmt: skip
    return _OPS[op]


def _memory(t: Tensor) -> Any:
    # The memory only: the caller keeps the tensor alive until the request completes
    # (Work's ``keep``), or MPI would write into freed memory.
    nbytes = t.numel() * t.element_size()
    if nbytes == 0:
        return bytearray(0)
    MPI = _mpi()
    st = t._storage
    start = t._offset * t._dtype.itemsize
    if st is None:
        return MPI.buffer.fromaddress(t.data_ptr(), nbytes)
    try:
        # Host memory that exports the buffer protocol (the CPU backend's arrays): a slice of
        # it, 0.2 us, where asking the backend for the address costs over 1 us.
        whole = MPI.buffer(st.data)
    except (TypeError, ValueError, BufferError):
        return MPI.buffer.fromaddress(t.data_ptr(), nbytes)
    if whole.readonly or len(whole) < start + nbytes:
        return MPI.buffer.fromaddress(t.data_ptr(), nbytes)
    return whole[start : start + nbytes]


def _raw(t: Tensor) -> Any:
    """A contiguous tensor's memory as an MPI message of bytes; for the vector collectives
    mpi4py splits a buffer into one equal block per rank."""
    return [_memory(t), _mpi().BYTE]


def _typed(t: Tensor) -> Any:
    """A contiguous tensor's memory as a message of its MPI datatype."""
    return [_memory(t), _datatype(t.dtype)]


def _reducible(t: Tensor) -> tuple[Tensor, Any]:
    """The tensor MPI reduces (a float32 copy of a half-precision one) and how to put the
    result back into ``t``."""
    if _datatype(t.dtype) is not None:
        return t, None
    tmp = t.to(dtypes.float32)

    def back() -> None:
        t.copy_(tmp)

    return tmp, back


class MPIProcessGroup(ProcessGroup):
    """A process group over an MPI communicator (``MPI.COMM_WORLD`` for the default group)."""

    backend = "mpi"
    devices = ("cpu",)

    def __init__(self, comm: Any, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        super().__init__(timeout)
        self.comm = comm
        self._rank, self._size = comm.Get_rank(), comm.Get_size()
        # The agreement check: one reused 2 x int64 buffer, and each description's
        # fingerprint computed once (a program repeats a handful of descriptions).
        self._fp_buf = array.array("q", [0, 0])
        self._fp_msg = [self._fp_buf, _mpi().INT64_T]
        self._fp_of: dict[str, int] = {}

    @classmethod
    def create(
        cls,
        world_size: int = -1,
        rank: int = -1,
        timeout: timedelta = DEFAULT_TIMEOUT,
        init_method: str | None = None,
    ) -> MPIProcessGroup:
        """The default group: ``MPI.COMM_WORLD``, whose rank and size the MPI launcher set;
        ``world_size`` and ``rank``, when given, must agree with them."""
        comm = _mpi().COMM_WORLD
        for name, given, actual in (
            ("world_size", world_size, comm.Get_size()),
            ("rank", rank, comm.Get_rank()),
        ):
            if given not in (-1, None) and given != actual:
                raise ValueError(
                    f"init_process_group(): {name}={given} but MPI says {actual}: under MPI "
                    f"the launcher sets the rank and world size (mpiexec -n N); leave {name} "
                    "out"
                )
        # Our own communicator: a program's raw mpi4py calls cannot match our messages.
        return cls(comm.Dup(), timeout)

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return self._size

    def _work(
        self,
        reqs: list[Any],
        what: str,
        finishers: list[Any] | None = None,
        keep: tuple[Any, ...] = (),
    ) -> Work:
        MPI = _mpi()
        if len(reqs) == 1:
            req = reqs[0]

            def poll() -> bool:
                try:
                    return bool(req.Test())
                except MPI.Exception as exc:
                    raise DistBackendError(f"{what}: MPI failed: {exc}") from None

        else:

            def poll() -> bool:
                try:
                    return bool(MPI.Request.Testall(reqs))
                except MPI.Exception as exc:
                    raise DistBackendError(f"{what}: MPI failed: {exc}") from None

        return Work(poll, self.timeout, what, finishers, keep)

    def _average(self, t: Tensor) -> None:
        if t.dtype.is_floating_point or t.dtype.is_complex:
            t.div_(self._size)
        elif t.dtype is not dtypes.bool_:
            t.copy_(t.div(self._size, rounding_mode="trunc"))

    def _reduce_finishers(self, t: Tensor, back: Any, op: ReduceOp, here: bool) -> list[Any]:
        fins = []
        if here and op is ReduceOp.AVG:
            fins.append(lambda: self._average(t))
        if here and back is not None:
            fins.append(back)
        return fins

    def allreduce(self, tensor: Tensor, op: ReduceOp) -> Work:
        what = "all_reduce"
        t, back = _reducible(tensor)
        req = self.comm.Iallreduce(_mpi().IN_PLACE, _typed(t), _op(op, t.dtype, what))
        return self._work([req], what, self._reduce_finishers(t, back, op, True), (t,))

    def broadcast(self, tensor: Tensor, src: int) -> Work:
        req = self.comm.Ibcast(_raw(tensor), root=src)
        return self._work([req], "broadcast", keep=(tensor,))

    def allgather(self, output: Tensor, input: Tensor) -> Work:
        req = self.comm.Iallgather(_raw(input), _raw(output))
        return self._work([req], "all_gather", keep=(input, output))

    def reduce_scatter(self, output: Tensor, input: Tensor, op: ReduceOp) -> Work:
        what = "reduce_scatter"
        src, _ = _reducible(input)
        out, back = _reducible(output)
        mop = _op(op, src.dtype, what)
        req = self.comm.Ireduce_scatter_block(_typed(src), _typed(out), mop)
        fins = self._reduce_finishers(out, back, op, True)
        return self._work([req], what, fins, (src, out))

    def reduce(self, tensor: Tensor, dst: int, op: ReduceOp) -> Work:
        what = "reduce"
        t, back = _reducible(tensor)
        mop = _op(op, t.dtype, what)
        here = self._rank == dst
        if here:
            req = self.comm.Ireduce(_mpi().IN_PLACE, _typed(t), mop, root=dst)
        else:
            req = self.comm.Ireduce(_typed(t), None, mop, root=dst)
        return self._work([req], what, self._reduce_finishers(t, back, op, here), (t,))

    def gather(self, output: Tensor | None, input: Tensor, dst: int) -> Work:
        recv = _raw(output) if output is not None else None
        req = self.comm.Igather(_raw(input), recv, root=dst)
        return self._work([req], "gather", keep=(input, output))

    def scatter(self, output: Tensor, input: Tensor | None, src: int) -> Work:
        send = _raw(input) if input is not None else None
        req = self.comm.Iscatter(send, _raw(output), root=src)
        return self._work([req], "scatter", keep=(input, output))

    def send(self, tensor: Tensor, dst: int, tag: int) -> Work:
        req = self.comm.Isend(_raw(tensor), dest=dst, tag=tag)
        return self._work([req], "send", keep=(tensor,))

    def recv(self, tensor: Tensor, src: int | None, tag: int) -> Work:
        MPI = _mpi()
        source = MPI.ANY_SOURCE if src is None else src
        req = self.comm.Irecv(_raw(tensor), source=source, tag=tag)
        status = MPI.Status()
        what = f"recv (a tensor of {tuple(tensor.shape)} {tensor.dtype})"

        def poll() -> bool:
            try:
                return bool(req.Test(status))
            except MPI.Exception as exc:
                raise DistBackendError(
                    f"{what}: MPI failed ({exc}); a message larger than the tensor means "
                    "the sender's tensor has another shape or dtype"
                ) from None

        return Work(poll, self.timeout, what, [lambda: status.Get_source()], (tensor,))

    def barrier(self) -> Work:
        return self._work([self.comm.Ibarrier()], "barrier")

    def agree(self, description: str, what: str) -> list[str] | None:
        h = self._fp_of.get(description)
        if h is None:
            data = description.encode()
            h = (zlib.crc32(data) ^ (zlib.adler32(data) << 32)) & ((1 << 62) - 1)
            if len(self._fp_of) < 4096:
                self._fp_of[description] = h
        MPI = _mpi()
        buf = self._fp_buf
        buf[0], buf[1] = h, -h
        # MAX of (h, -h) gives the largest and the smallest fingerprint at once.
        req = self.comm.Iallreduce(MPI.IN_PLACE, self._fp_msg, MPI.MAX)
        # Polled inline (no Work object): this round trip is the whole cost of the check on
        # small messages, so the Python around it is kept to a loop of Test calls.
        try:
            if not req.Test():
                self._work([req], what).wait()
        except MPI.Exception as exc:
            raise DistBackendError(f"{what}: MPI failed: {exc}") from None
        if buf[0] == -buf[1]:
            return None
        # They differ: every rank is here, so a (blocking) gather of the texts is safe.
        return [str(d) for d in self.comm.allgather(description)]

    def split(self, ranks: list[int]) -> MPIProcessGroup | None:
        MPI = _mpi()
        member = self._rank in ranks
        comm = self.comm.Split(0 if member else MPI.UNDEFINED, ranks.index(self._rank)
                               if member else 0)  # fmt: skip
        if comm == MPI.COMM_NULL:
            return None
        return MPIProcessGroup(comm, self.timeout)

    def abort(self, code: int = 1) -> None:
        _mpi().COMM_WORLD.Abort(code)

    def shutdown(self) -> None:
        MPI = _mpi()
        if self.comm != MPI.COMM_NULL:
            # Freed already, or MPI finalized: nothing left to release.
            with contextlib.suppress(MPI.Exception):
                self.comm.Free()
            self.comm = MPI.COMM_NULL
