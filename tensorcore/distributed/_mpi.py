"""The ``mpi`` process group: collectives through mpi4py's non-blocking MPI calls.

Imported only when ``init_process_group(backend="mpi")`` runs: it imports ``mpi4py.MPI``,
which starts MPI. Tensors reach MPI as raw host memory (``MPI.buffer.fromaddress`` on the
tensor's ``data_ptr()``), so no array library is involved.

* Data movement (broadcast, gathers, scatter, send/recv) moves bytes (``MPI.BYTE``): every
  dtype works, bfloat16 and float16 included.
* Reductions use MPI's typed operations; bfloat16 and float16, which MPI lacks, are reduced
  in a float32 copy and cast back (rounding once, at the end). ``bool`` maps SUM/MAX to a
  logical or and PRODUCT/MIN to a logical and; AVG is a SUM divided by the group's size (of
  a bool tensor it is refused before, as PyTorch refuses it).
* Every call is non-blocking (``Iallreduce``...), polled against the group's timeout (by
  :class:`~._backend.Work`, or :func:`~._backend.spin` when the caller waits), so a rank that
  never joins makes the others raise instead of hanging.
* The agreement check is a persistent request (MPI 4's ``Allreduce_init``), made with the
  group: one all-reduce (MAX) of three int64s, a description's fingerprint ``h``, ``-h``, and
  the all-reduce plans' request state (below).
* An all-reduce repeated on the same tensor (:class:`_AllreducePlan`) gets a persistent
  request of its own from its second call on: starting one costs MPICH about 1.5 us less than
  a fresh ``Iallreduce``, which is what puts small all-reduces at par with raw mpi4py. Making
  a persistent collective request is itself a collective call, which every rank must make at
  the same point, while each rank's plans depend on its own tensors' addresses: so the check
  carries each rank's state (0: has a request, 1: has none, 2: has none and wants one), and
  its MAX decides for every rank at once: start the requests (0), all-reduce without one (1),
  or make them now (2).
* With the check off there is no such round trip to agree on requests in, so a small
  all-reduce (up to :data:`_CHANNEL_MAX` bytes) goes through a staging buffer of the group
  instead (:class:`_ChannelPlan`): one per message signature (dtype, op, size: a
  :class:`_Channel`), with its persistent request, made at the signature's first all-reduce.
  A correct program (which is what turning the check off asserts) makes the same calls in
  the same order on every rank, so every rank makes its channels at the same calls and
  starts the same ones, whichever tensors it passes; the copies in and out cost less than
  the 1.2 us a persistent request saves.

MPICH matches persistent collective requests by the order in which they were made, not by
their message: a rank that starts another request than its peers waits until the timeout.
That is why the requests are only ever made at points every rank reaches together, and why
the check cannot ride in the data's own message with a persistent request (a rank whose
tensor differs would start another request, and the check would time out instead of naming
the difference).
"""

from __future__ import annotations

import array
import atexit
import contextlib
import os
import zlib
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from .. import dtypes
from ..autograd import grad_mode
from . import _wireup
from ._backend import (
    DEFAULT_TIMEOUT,
    AllreducePlan,
    Disagreement,
    DistBackendError,
    ProcessGroup,
    ReduceOp,
    Work,
    spin,
)
from ._notice import ABORTED, DESTROYED, EXITED, Notices, left_error

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
        if op is ReduceOp.BXOR:
            return MPI.LXOR
        ors = (ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG, ReduceOp.BOR)
        return MPI.LOR if op in ors else MPI.LAND
    if dt.is_complex and op in (ReduceOp.MIN, ReduceOp.MAX):
        raise RuntimeError(f"{what}: ReduceOp.{op.name} is not defined for complex tensors")
    if not _OPS:  # built once: a dict per call costs a microsecond on small messages
        _OPS.update({
            ReduceOp.SUM: MPI.SUM,
            ReduceOp.AVG: MPI.SUM,
            ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX,
            ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR,
            ReduceOp.BXOR: MPI.BXOR,
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


def _at_address(t: Tensor) -> Any:
    """A contiguous tensor's memory as an MPI buffer that, unlike :func:`_memory`'s, holds
    no reference to it (a plan must not keep memory alive)."""
    nbytes = t.numel() * t.element_size()
    MPI = _mpi()
    st = t._storage
    try:
        address = MPI.buffer(st.data).address + t._offset * t._dtype.itemsize  # type: ignore[union-attr]
    except (AttributeError, TypeError, ValueError, BufferError):
        address = t.data_ptr()
    return MPI.buffer.fromaddress(address, nbytes)


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
    # MPI's own bitwise reductions (MPI_BAND, MPI_BOR, MPI_BXOR; LAND, LOR, LXOR on bool).
    reduce_ops = ProcessGroup.reduce_ops | {ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR}

    def __init__(
        self, comm: Any, timeout: timedelta = DEFAULT_TIMEOUT, notices: Notices | None = None
    ) -> None:
        super().__init__(timeout)
        self.comm = comm
        self._rank, self._size = comm.Get_rank(), comm.Get_size()
        # The exit notices of the world (shared by its subgroups; None: not watched), and
        # the world ranks of this group's other members, whose notices a wait heeds.
        self._notices = notices
        self._world = notices.world_ranks(comm) if notices is not None else list(range(self._size))
        self._others = [r for i, r in enumerate(self._world) if i != self._rank]
        self._watch = self._watch_others if notices is not None else None
        # The agreement check: one reused 3 x int64 buffer (see the module's docstring), and
        # each description's fingerprint computed once (a program repeats a handful).
        MPI = _mpi()
        self._fp_buf = array.array("q", [0, 0, 0])
        self._fp_msg = [self._fp_buf, MPI.INT64_T]
        self._fp_of: dict[str, int] = {}
        # Persistent requests this group made (freed at shutdown, or at exit: MPICH warns
        # about those still there when MPI finalizes).
        self._persistent: dict[int, Any] = {}  # id -> request (requests are unhashable)
        self._fp_req = self._persistent_request(MPI.IN_PLACE, self._fp_msg, MPI.MAX)
        # The staging buffers of small all-reduces without the check, by message signature
        # (oldest first).
        self._channels: dict[tuple[Any, ...], _Channel] = {}
        atexit.register(self._free_requests)

    def _persistent_request(self, *args: Any) -> Any:
        """``comm.Allreduce_init(*args)`` (a collective call: every rank makes it at the same
        point), or None where the MPI library predates MPI 4's persistent collectives."""
        if _mpi().Get_version() < (4, 0):
            return None
        try:
            req = self.comm.Allreduce_init(*args)
        except NotImplementedError:
            return None
        self._persistent[id(req)] = req
        return req

    def _free(self, req: Any) -> None:
        self._persistent.pop(id(req), None)
        with contextlib.suppress(_mpi().Exception):
            req.Free()

    def _free_requests(self) -> None:
        for ch in self._channels.values():
            ch.req = None
        self._channels.clear()
        for req in list(self._persistent.values()):
            self._free(req)
        self._fp_req = None

    def _channel(self, key: tuple[Any, ...], nbytes: int, dt: Any, mop: Any) -> _Channel:
        """The staging buffer of the all-reduces of signature ``key``, made when there is
        none (a collective call: every rank makes it at the same all-reduce, its first one
        of that signature, or the first since the group dropped it). Past
        :data:`_CHANNELS`, the oldest is dropped."""
        ch = self._channels.get(key)
        if ch is None:
            if len(self._channels) >= _CHANNELS:
                old = self._channels.pop(next(iter(self._channels)))
                old.settle()
                if old.req is not None:
                    self._free(old.req)
                    old.req = None
            ch = self._channels[key] = _Channel(self, nbytes, dt, mop)
        return ch

    @classmethod
    def create(
        cls,
        world_size: int = -1,
        rank: int = -1,
        timeout: timedelta = DEFAULT_TIMEOUT,
        init_method: str | None = None,
        device_id: Any = None,
        store: Any = None,
    ) -> MPIProcessGroup:
        """The default group: ``MPI.COMM_WORLD``, whose rank and size the MPI launcher set;
        ``world_size`` and ``rank``, when given, must agree with them. A process that no MPI
        launcher started, given a ``world_size`` above 1, joins the others through rank 0's
        rendezvous first (:mod:`._wireup`), as PyTorch's ranks meet at ``MASTER_ADDR``
        (or through ``store``, where ``init_process_group`` got or made one).
        ``device_id`` (a CPU device: the frontend checked it) binds nothing: host memory is
        one device."""
        wired = False
        alone = not (_wireup.mpi_started() or _wireup.launched_by_mpi())
        if alone and world_size not in (-1, None) and world_size > 1:
            _wireup.wire_up(init_method, rank, world_size, timeout, store)
            wired = True
        comm = _mpi().COMM_WORLD
        if wired:
            _wireup.forget()
            if comm.Get_size() != world_size:
                library = _mpi().Get_library_version().splitlines()[0].strip()
                raise RuntimeError(
                    f"init_process_group(): the MPI library did not join the {world_size} "
                    f"ranks through tensorcore's rendezvous ({library}: only MPICH-family "
                    "libraries speak its PMI-1); "
                    f"start the ranks with that library's launcher instead (mpiexec -n "
                    f"{world_size} python script.py)"
                )
        for name, given, actual in (
            ("world_size", world_size, comm.Get_size()),
            ("rank", rank, comm.Get_rank()),
        ):
            if given not in (-1, None) and given != actual:
                raise ValueError(
                    f"init_process_group(): {name}={given} but MPI says {actual}: under MPI "
                    f"the launcher sets the rank and world size (mpiexec -n N); leave {name} "
                    "out"
                    + (
                        ""
                        if actual != 1 or _wireup.launched_by_mpi()
                        else " (this process started MPI as a world of its own before "
                        "init_process_group: import mpi4py.MPI after it, or start the ranks "
                        "with mpiexec)"
                    )
                )
        # Our own communicators: a program's raw mpi4py calls cannot match our messages;
        # the exit notices travel on one of their own.
        notices = Notices(comm.Dup(), _mpi())
        group = cls(comm.Dup(), timeout, notices)
        group._owns_notices = True
        atexit.register(_exiting, notices)
        return group

    _owns_notices = False  # the default group's: it tells the others when it shuts down

    def _watch_others(self, what: str) -> BaseException | None:
        """:func:`spin`'s ``watch`` for a wait that needs every other rank of the group:
        the error to raise when one of them has left (its exit notice)."""
        gone = self._notices.read()  # type: ignore[union-attr]
        if gone:
            for r in self._others:
                if r in gone:
                    return DistBackendError(left_error(what, r, gone[r]))
        return None

    def _watch_peer(self, peer: int | None) -> Any:
        """:func:`spin`'s ``watch`` for a wait on group rank ``peer`` (None: any rank, which
        fails once every other rank has left)."""
        notices = self._notices
        if notices is None:
            return None
        if peer is None:
            others = self._others

            def watch_any(what: str) -> BaseException | None:
                gone = notices.read()
                if others and all(r in gone for r in others):
                    r = others[0]
                    return DistBackendError(left_error(what, r, gone[r]))
                return None

            return watch_any
        r = self._world[peer]

        def watch(what: str) -> BaseException | None:
            gone = notices.read()
            return DistBackendError(left_error(what, r, gone[r])) if r in gone else None

        return watch

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
        watch: Any = False,
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

        return Work(poll, self.timeout, what, finishers, keep,
                    self._watch if watch is False else watch)  # fmt: skip

    def _average(self, t: Tensor) -> None:
        with grad_mode.no_grad():  # (also when a Work's wait runs it, outside all_reduce)
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
        return self._work([req], "send", keep=(tensor,), watch=self._watch_peer(dst))

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

        return Work(poll, self.timeout, what, [lambda: status.Get_source()], (tensor,),
                    self._watch_peer(src))  # fmt: skip

    def barrier(self) -> Work:
        return self._work([self.comm.Ibarrier()], "barrier")

    def alltoall(
        self, output: Tensor, input: Tensor, output_splits: list[int], input_splits: list[int]
    ) -> Work:
        size = input.element_size()

        def vector(t: Tensor, splits: list[int]) -> list[Any]:
            counts = [k * size for k in splits]
            displs = [0] * len(counts)
            for i in range(1, len(counts)):
                displs[i] = displs[i - 1] + counts[i - 1]
            return [_memory(t), (counts, displs), _mpi().BYTE]

        req = self.comm.Ialltoallv(vector(input, input_splits), vector(output, output_splits))
        return self._work([req], "all_to_all", keep=(input, output))

    def _fingerprint(self, description: str) -> int:
        h = self._fp_of.get(description)
        if h is None:
            data = description.encode()
            h = (zlib.crc32(data) ^ (zlib.adler32(data) << 32)) & ((1 << 62) - 1)
            if len(self._fp_of) < 4096:
                self._fp_of[description] = h
        return h

    def _exchange(self, h: int, state: int, what: str) -> int | None:
        """The agreement round trip: None when the ranks' fingerprints ``h`` differ, else
        the largest ``state`` of the ranks."""
        buf = self._fp_buf
        # MAX of (h, -h) gives the largest and the smallest fingerprint at once.
        buf[0] = h
        buf[1] = -h
        buf[2] = state
        req = self._fp_req
        # Polled inline (no Work object): this round trip is the whole cost of the check on
        # small messages, so the Python around it is kept to a loop of Test calls.
        try:
            if req is None:
                req = self.comm.Iallreduce(_MPI.IN_PLACE, self._fp_msg, _MPI.MAX)
            else:
                req.Start()
            if not req.Test():
                spin(req.Test, self.timeout, what, self._watch)
        except _MPI.Exception as exc:
            raise DistBackendError(f"{what}: MPI failed: {exc}") from None
        return buf[2] if buf[0] == -buf[1] else None

    def _descriptions(self, description: str) -> list[str]:
        # They differ: every rank is here, so a (blocking) gather of the texts is safe.
        return [str(d) for d in self.comm.allgather(description)]

    def agree(self, description: str, what: str) -> list[str] | None:
        # (_ONE_OFF: an all-reduce checked here has no persistent request, and any plan of
        # another rank that agrees with it must not start one either)
        if self._exchange(self._fingerprint(description), _ONE_OFF, what) is not None:
            return None
        return self._descriptions(description)

    def allreduce_plan(
        self, tensor: Tensor, op: ReduceOp, description: str | None
    ) -> AllreducePlan | None:
        dt = tensor.dtype
        if (
            self._fp_req is None  # an MPI before MPI 4: no persistent requests
            or _datatype(dt) is None  # half precision: reduced in a float32 copy
            or tensor.numel() == 0
            or (dt.is_complex and op in (ReduceOp.MIN, ReduceOp.MAX))  # allreduce raises
        ):
            return None
        if description is None and tensor.numel() * tensor.element_size() <= _CHANNEL_MAX:
            return _ChannelPlan(self, tensor, op)
        return _AllreducePlan(self, tensor, op, description)

    def split(self, ranks: list[int]) -> MPIProcessGroup | None:
        MPI = _mpi()
        member = self._rank in ranks
        comm = self.comm.Split(0 if member else MPI.UNDEFINED, ranks.index(self._rank)
                               if member else 0)  # fmt: skip
        if comm == MPI.COMM_NULL:
            return None
        return MPIProcessGroup(comm, self.timeout, self._notices)

    def abort(self, code: int = 1) -> None:
        if self._notices is not None:
            # The peers waiting for this rank fail at once, with their own error (under
            # tensorcore's process manager, before it stops them: it waits a moment).
            self._notices.tell(ABORTED)
        _mpi().COMM_WORLD.Abort(code)
        # MPI_Abort returns where the process manager is left to end the job by signals
        # (MPICH's PMI_PORT clients, as under tensorcore's own manager): the process ends
        # here, with the code, instead of going on into MPI_Finalize at exit.
        os._exit(code)

    def shutdown(self) -> None:
        MPI = _mpi()
        self._free_requests()
        atexit.unregister(self._free_requests)
        notices = self._notices
        if self._owns_notices and notices is not None:
            # Leaving the job: a peer still waiting for this rank fails now (as PyTorch's,
            # whose connections close), not at its timeout.
            notices.tell(DESTROYED)
            atexit.unregister(_exiting)
            notices.close()
        if self.comm != MPI.COMM_NULL:
            # Freed already, or MPI finalized: nothing left to release.
            with contextlib.suppress(MPI.Exception):
                self.comm.Free()
            self.comm = MPI.COMM_NULL


def _exiting(notices: Notices) -> None:
    """At exit, before mpi4py finalizes MPI (which waits for every rank): tell the others
    that this rank's program ended."""
    notices.tell(EXITED)


#: Plans of tensors up to this size get a persistent request (above it the per-call cost
#: is lost in the transfer, and MPICH may keep a scratch buffer of the message's size with
#: each request).
_PERSISTENT_MAX = 1 << 20

# The agreed states (the MAX over the ranks): start the persistent requests, all-reduce
# without one, make them now. (run() compares with the literals: a global costs a lookup.)
_START, _ONE_OFF, _MAKE = 0, 1, 2


class _AllreducePlan(AllreducePlan):
    """An all-reduce of one tensor's memory with one op (see the module's docstring)."""

    __slots__ = ("avg", "busy", "description", "fp", "group", "mop", "msg", "neg_fp",
                 "persistent", "released", "req", "state")  # fmt: skip

    def __init__(self, group: MPIProcessGroup, tensor: Tensor, op: ReduceOp,
                 description: str | None) -> None:  # fmt: skip
        self.group = group
        self.msg = [_at_address(tensor), _datatype(tensor.dtype)]
        self.mop = _op(op, tensor.dtype, "all_reduce")
        self.avg = op is ReduceOp.AVG
        self.persistent = tensor.numel() * tensor.element_size() <= _PERSISTENT_MAX
        self.description = description
        self.fp = 0 if description is None else group._fingerprint(description)
        self.neg_fp = -self.fp
        self.req: Any = None  # the persistent request, once the ranks agreed to make it
        self.busy = False  # req is in flight (an async_op all-reduce not finished)
        self.released = False
        # What this rank asks for at the next call: a tensor all-reduced once gets no
        # request; from its second call on, it asks for one (_MAKE), then starts it.
        self.state = _ONE_OFF

    def run(self, tensor: Tensor, async_op: bool) -> Work | None:
        g = self.group
        try:
            if self.description is None:  # the check is off: no agreement on requests
                mode = _ONE_OFF
            else:
                # MPIProcessGroup._exchange, written out: a call costs 0.07 us of the 5 us
                # of a small all-reduce (tests/distributed_scripts/plans.py runs both).
                buf = g._fp_buf
                buf[0] = self.fp
                buf[1] = self.neg_fp
                buf[2] = self.state
                req = g._fp_req
                req.Start()
                # spin(), written out for its first 1024 polls: the call and its bound
                # method, between two polls, cost 0.1 us of a small all-reduce's latency.
                polls = 0
                while not req.Test():
                    polls += 1
                    if polls == 1024:
                        spin(req.Test, g.timeout, "all_reduce", g._watch)
                        break
                if buf[0] != -buf[1]:
                    raise Disagreement(g._descriptions(self.description))
                mode = buf[2]
            if mode == 0:  # _START
                req = self.req
                req.Start()
            else:
                req = self._start(mode)
            if async_op:
                return self._work(req, mode, tensor)
            polls = 0  # (spin(), written out: above)
            while not req.Test():
                polls += 1
                if polls == 1024:
                    spin(req.Test, g.timeout, "all_reduce", g._watch)
                    break
        except _MPI.Exception as exc:
            raise DistBackendError(f"all_reduce: MPI failed: {exc}") from None
        if self.avg:
            g._average(tensor)
        return None

    def _start(self, mode: int) -> Any:
        g = self.group
        MPI = _MPI
        if mode == _MAKE:
            old = self.req
            if old is not None and not self.busy:
                g._free(old)
            # (A busy one is freed by its Work, as it is no longer self.req then.)
            self.busy = False
            self.state = _START
            req = self.req = g._persistent_request(MPI.IN_PLACE, self.msg, self.mop)
            req.Start()
            return req
        if self.persistent and not self.busy and self.req is None:
            self.state = _MAKE
        return g.comm.Iallreduce(MPI.IN_PLACE, self.msg, self.mop)

    def _work(self, req: Any, mode: int, tensor: Tensor) -> Work:
        g = self.group
        fins = [lambda: g._average(tensor)] if self.avg else []
        if mode != _ONE_OFF:  # the persistent request is in flight until the Work ends
            self.busy = True
            self.state = _ONE_OFF
            fins.append(lambda: self._done(req))
        return g._work([req], "all_reduce", fins, (tensor,))

    def _done(self, req: Any) -> None:
        if req is self.req and not self.released:
            self.busy = False
            self.state = _START
        else:  # replaced or released while in flight
            self.group._free(req)

    def release(self) -> None:
        self.released = True
        req, self.req = self.req, None
        if req is not None and not self.busy:
            self.group._free(req)


#: All-reduces without the check of up to this many bytes go through a staging buffer with
#: a persistent request (:class:`_ChannelPlan`); above it the copies cost more than the
#: request saves.
_CHANNEL_MAX = 64 << 10

#: Staging buffers (:class:`_Channel`) kept per group.
_CHANNELS = 64


class _Channel:
    """A group's staging buffer for the all-reduces of one message signature (``data``, a
    memoryview of bytes), the persistent request that all-reduces it, and the asynchronous
    all-reduce using it, if one is in flight (``pending``)."""

    __slots__ = ("buf", "data", "pending", "req")

    def __init__(self, group: MPIProcessGroup, nbytes: int, dt: Any, mop: Any) -> None:
        self.buf = bytearray(nbytes)
        self.data = memoryview(self.buf)
        self.pending: Work | None = None
        self.req = group._persistent_request(_mpi().IN_PLACE, [self.buf, _datatype(dt)], mop)

    def settle(self) -> None:
        """Finish the asynchronous all-reduce in flight in this buffer (its result goes to
        its tensor), so that the buffer can be used again."""
        work, self.pending = self.pending, None
        if work is not None:
            work.wait()


class _ChannelPlan(AllreducePlan):
    """A small all-reduce without the check, through its signature's :class:`_Channel`:
    copy in, start the channel's persistent request, copy out."""

    __slots__ = ("avg", "ch", "group", "key", "mop", "src")

    def __init__(self, group: MPIProcessGroup, tensor: Tensor, op: ReduceOp) -> None:
        self.group = group
        self.avg = op is ReduceOp.AVG
        self.mop = _op(op, tensor.dtype, "all_reduce")
        # (holds no reference to the memory: the frontend drops the plan with the memory)
        self.src = memoryview(_at_address(tensor))
        self.key = (tensor.dtype, ReduceOp.SUM if self.avg else op, len(self.src))
        self.ch = self._channel()

    def _channel(self) -> _Channel:
        return self.group._channel(self.key, len(self.src), self.key[0], self.mop)

    @property
    def req(self) -> Any:
        """The persistent request the all-reduce starts."""
        return self.ch.req

    def run(self, tensor: Tensor, async_op: bool) -> Work | None:
        ch = self.ch
        if ch.req is None:  # the group dropped it: made again, at the same call on every rank
            ch = self.ch = self._channel()
        if ch.pending is not None:
            ch.settle()
        ch.data[:] = self.src
        req = ch.req
        g = self.group
        try:
            req.Start()
            if async_op:
                return self._work(ch, tensor)
            polls = 0  # (spin(), written out: _AllreducePlan.run)
            while not req.Test():
                polls += 1
                if polls == 1024:
                    spin(req.Test, g.timeout, "all_reduce", g._watch)
                    break
        except _MPI.Exception as exc:
            raise DistBackendError(f"all_reduce: MPI failed: {exc}") from None
        self.src[:] = ch.data
        if self.avg:
            g._average(tensor)
        return None

    def _work(self, ch: _Channel, tensor: Tensor) -> Work:
        g = self.group

        def finish() -> None:
            ch.pending = None
            self.src[:] = ch.data
            if self.avg:
                g._average(tensor)

        work = ch.pending = g._work([ch.req], "all_reduce", [finish], (tensor,))
        return work

    def release(self) -> None:
        """Nothing to free: the staging buffer and its request belong to the group."""
