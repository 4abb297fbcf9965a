"""The contract of a communication backend: :class:`ProcessGroup`, :class:`Work`, ReduceOp.

A communication backend (registered by a plugin with ``register.comm_backend``) makes
:class:`ProcessGroup` objects. The frontend (``tensorcore.distributed``) checks arguments,
finds the group, makes every tensor contiguous and of the right shape, checks that the ranks
agree on shapes and dtypes, and hands the group **contiguous tensors on one of its devices**;
the group moves their bytes and returns a :class:`Work`. Ranks given to a group are ranks
*in that group*.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..futures import Future
from ._errors import DistBackendError

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "DEFAULT_TIMEOUT",
    "AllreducePlan",
    "Disagreement",
    "DistBackendError",
    "PremulSum",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "spin",
    "timed_out",
]

#: PyTorch's default: how long a collective may wait for the other ranks.
DEFAULT_TIMEOUT = timedelta(minutes=30)


class ReduceOp(enum.IntEnum):
    """How ``all_reduce``, ``reduce`` and ``reduce_scatter`` combine the ranks' tensors.

    ``AVG`` is the sum divided by the group's size (integer tensors: truncated). On ``bool``
    tensors SUM and MAX are a logical or, PRODUCT and MIN a logical and, as in PyTorch.
    ``BAND``, ``BOR`` and ``BXOR`` are bitwise, for integer and ``bool`` tensors (on
    ``bool``: logical and, or, xor), where the backend has them (MPI does; NCCL does not,
    as in PyTorch). ``PREMUL_SUM`` (a sum of the tensors each multiplied by a factor,
    :func:`tensorcore.distributed._make_nccl_premul_sum`) is PyTorch's NCCL-only op; no
    backend here has it, and using it raises ``NotImplementedError`` naming the backend.
    A backend lists the ops it runs in :attr:`ProcessGroup.reduce_ops`.

    As PyTorch's, a member shows as its ``RedOpType`` (``ReduceOp.RedOpType`` is the same
    enumeration), with PyTorch's number: it equals that int, and hashes and pickles as one
    value.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist.ReduceOp.SUM, str(dist.ReduceOp.AVG), dist.ReduceOp.AVG.name
    (<RedOpType.SUM: 0>, 'RedOpType.AVG', 'AVG')
    >>> dist.ReduceOp.MAX == dist.ReduceOp.RedOpType.MAX
    True
    """

    SUM = 0
    PRODUCT = 2
    MIN = 3
    MAX = 4
    AVG = 1
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __repr__(self) -> str:
        return f"<RedOpType.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"RedOpType.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


# PyTorch's ReduceOp.RedOpType: the enumeration of the ops, whose members ReduceOp's are.
ReduceOp.RedOpType = ReduceOp  # type: ignore[attr-defined]


class PremulSum:
    """``ReduceOp.PREMUL_SUM`` with its factor, as :func:`_make_nccl_premul_sum` makes it."""

    def __init__(self, factor: Any) -> None:
        self.factor = factor

    def __repr__(self) -> str:
        return f"<ReduceOp.PREMUL_SUM factor={self.factor!r}>"


def _make_nccl_premul_sum(factor: Any) -> PremulSum:
    """PyTorch's ``PREMUL_SUM`` op with ``factor`` (a number, or a one-element tensor):
    each rank's tensor multiplied by ``factor``, then summed. PyTorch runs it on NCCL only;
    no backend here does, so a collective given it raises ``NotImplementedError`` naming the
    backend (a program can still build the op where it sets up).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> dist._make_nccl_premul_sum(0.5)
    <ReduceOp.PREMUL_SUM factor=0.5>
    """
    return PremulSum(factor)


def timed_out(what: str, timeout: timedelta) -> DistBackendError:
    """The error of a collective that ``timeout`` ran out on (a peer never joined it)."""
    error = DistBackendError(
        f"{what}: timed out after {timeout.total_seconds():g} s waiting for the other ranks "
        "(a rank failed, exited or called another collective); raise the timeout with "
        "init_process_group(timeout=datetime.timedelta(...))"
    )
    # (a Work that timed out has not finished; one whose engine failed has)
    error.timed_out = True  # type: ignore[attr-defined]
    return error


def spin(
    poll: Callable[[], Any],
    timeout: timedelta,
    what: str,
    watch: Callable[[str], BaseException | None] | None = None,
) -> None:
    """Call ``poll()`` until it returns true; raise :func:`timed_out`'s error once
    ``timeout`` has passed.

    ``watch(what)``, when given, is asked now and then (with the clock, below) whether a
    peer that the wait needs has left the job (its exit notice, see ``_notice.py``): it
    returns the error to raise, or None. The error is raised once it has been returned for
    :data:`LEFT_GRACE` seconds of polling, so that what the peer sent before it left (a
    collective's last messages, still being delivered) completes the wait instead.

    It spins rather than sleeps: shared-memory and network engines progress only inside
    our calls, so sleeping between polls would cut the bandwidth of large messages. Nor does
    it yield the processor (``sched_yield``) now and then, as MPICH's blocking waits do: on
    this 2-core machine shared with other jobs, that made 1% of the 4 KiB all-reduces take
    150 us instead of 8 (a yield hands the core to another job for a time slice), and gained
    nothing on large ones. The clock is read every 1024 polls only, the first time to start
    it: a collective that finishes within them (every small one) never reads it, nor asks
    ``watch``.
    """
    spins = 0
    deadline = None
    doomed = None
    while not poll():
        spins += 1
        if spins & 1023 == 0:
            now = time.monotonic()
            if deadline is None:
                deadline = now + timeout.total_seconds()
            elif now > deadline:
                raise timed_out(what, timeout)
            if watch is not None:
                error = watch(what)
                if error is not None:
                    if doomed is None:
                        doomed = now + LEFT_GRACE
                    elif now > doomed:
                        raise error


#: How long a wait goes on polling after it learnt that a peer it needs has left (seconds):
#: the messages the peer sent before its notice may still be on their way.
LEFT_GRACE = 0.2


class Work:
    """A collective in flight (``async_op=True``): :meth:`wait` for it to finish.

    ``poll()`` returns True once the engine has finished (it also drives progress), and
    raises ``DistBackendError`` when the engine failed (a peer left, the connection broke):
    :meth:`wait` raises that error, :meth:`is_completed` then says True,
    :meth:`is_success` False and :meth:`exception` gives it. :meth:`wait` calls ``poll``
    in a loop (:func:`spin`) that reads the clock every 1024 calls only, so a ``poll`` may
    block briefly (an engine driven by threads of its own waits there, for an event say,
    rather than hold Python's GIL that its threads need) but no more than about 0.1 ms, or
    the timeout is noticed late by 1024 times that. ``finishers`` run once, in order, after
    that (copying results into non-contiguous outputs, converting dtypes back).
    ``timeout`` bounds :meth:`wait`. ``keep`` holds the objects (tensors) whose memory the
    engine uses until it finishes. ``watch`` is :func:`spin`'s: it tells :meth:`wait` that
    a peer the operation needs has left.

    Examples
    --------
    >>> from datetime import timedelta
    >>> from tensorcore.backend import DistBackendError, Work
    >>> def poll():
    ...     raise DistBackendError("all_reduce: rank 1 left")
    >>> work = Work(poll, timedelta(seconds=1), "all_reduce")
    >>> work.is_completed(), work.is_success(), work.exception()
    (True, False, DistBackendError('all_reduce: rank 1 left'))
    """

    def __init__(
        self,
        poll: Callable[[], bool],
        timeout: timedelta,
        what: str,
        finishers: list[Callable[[], Any]] | None = None,
        keep: tuple[Any, ...] = (),
        watch: Callable[[str], BaseException | None] | None = None,
    ) -> None:
        self._poll, self._timeout, self._what = poll, timeout, what
        self._watch = watch
        # What the engine reads or writes until it finishes (tensors handed to it by address).
        self._keep = keep
        self._finishers = finishers if finishers is not None else []
        self._done = False
        self._error: BaseException | None = None
        self._failed: BaseException | None = None  # what poll raised (not a timeout)
        self._result: Any = None

    #: The tensors the operation writes, for :meth:`get_future`: the frontends set them on
    #: the works they return (None on a backend's own works).
    outputs: list[Any] | None = None

    def get_future(self) -> Future:
        """A :class:`tensorcore.futures.Future` completed with :attr:`outputs` once the
        operation has finished; waiting on it waits for the operation (PyTorch's
        ``Work.get_future``).

        The value is ``[tensor]`` for ``all_reduce``, ``broadcast``, ``reduce``,
        ``scatter``, ``send`` and ``recv``; ``[output]`` for ``reduce_scatter``,
        ``reduce_scatter_tensor`` and ``all_gather_into_tensor``; the output list for
        ``all_gather`` (and ``gather`` on the destination rank; ``[]`` on the others);
        ``[]`` for ``barrier``.
        """

        def drive() -> None:
            self.wait()
            fut.set_result(self.outputs)

        fut = Future(_drive=drive)
        return fut

    def then(self, fn: Callable[[], Any]) -> Work:
        """Run ``fn()`` after the engine finishes and the earlier finishers ran; a return
        value other than None becomes :meth:`result`'s."""
        self._finishers.append(fn)
        return self

    def is_completed(self) -> bool:
        """Whether the operation has finished (finishers included, or with an error);
        never blocks long."""
        if not self._done and self._error is None:
            try:
                finished = self._poll()
            except DistBackendError as exc:  # the engine failed: finished, unsuccessfully
                self._error = self._failed = exc
                return True
            if finished:
                self._finish()
        return self._done or self._failed is not None

    def is_success(self) -> bool:
        """Whether the operation finished without an error."""
        return self.is_completed() and self._error is None

    def exception(self) -> BaseException | None:
        """The error the operation ended with, or None."""
        return self._error

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the operation finishes; return True.

        Raises ``DistBackendError`` (a ``RuntimeError``) when it has not finished after
        ``timeout`` (the process group's, from ``init_process_group(timeout=...)``, when
        None): a peer that never joined the collective (crashed, or took another path).
        """
        if self._error is not None:
            raise self._error
        if self._done:
            return True
        try:
            spin(self._poll, timeout or self._timeout, self._what, self._watch)
        except DistBackendError as exc:
            self._error = exc
            if not getattr(exc, "timed_out", False):
                self._failed = exc  # (the engine failed: the operation is over)
            raise
        self._finish()
        return True

    def synchronize(self) -> None:
        """Wait for the operation as :meth:`wait` does without a timeout (a GPU backend
        makes the current stream wait instead of the host, as PyTorch's NCCL works do)."""
        self.wait()

    def result(self) -> Any:
        """What the last finisher returned (the sender's rank for ``irecv``), after wait."""
        self.wait()
        return self._result

    def _finish(self) -> None:
        try:
            for fn in self._finishers:
                r = fn()
                if r is not None:
                    self._result = r
        except BaseException as exc:
            self._error = exc
            raise
        self._done = True
        self._keep = ()


#: The tag of the messages of the default :meth:`ProcessGroup.alltoall` (and of
#: ``monitored_barrier``'s): out of the way of a program's own tags, which are small.
ALLTOALL_TAG = 0x7A2A
MONITORED_BARRIER_TAG = 0x7A2B


def _offsets(splits: list[int]) -> list[int]:
    at, total = [], 0
    for k in splits:
        at.append(total)
        total += k
    return at


class Disagreement(Exception):
    """Raised by :meth:`AllreducePlan.run` when the ranks' descriptions differ; ``found``
    holds every rank's, in rank order (the frontend names them in its ``RuntimeError``)."""

    def __init__(self, found: list[str]) -> None:
        super().__init__(found)
        self.found = found


class AllreducePlan:
    """A communication backend's prepared all-reduce of one tensor's memory with one op,
    made by :meth:`ProcessGroup.allreduce_plan` and run every time ``all_reduce`` gets that
    tensor again (the frontend checks that its storage, offset, shape, strides and dtype are
    the same ones: the memory is the one the plan was made for).

    A plan must not keep the tensor (or its memory) alive: the frontend hands the tensor to
    every :meth:`run`, and keeps a bounded number of plans, calling :meth:`release` on those
    it drops.
    """

    def run(self, tensor: Tensor, async_op: bool) -> Work | None:
        """All-reduce ``tensor`` in place, after checking, when the plan was made with a
        description, that every rank passes the same one (as :meth:`ProcessGroup.agree`;
        :class:`Disagreement` when they do not, and nothing is reduced).

        Returns a :class:`Work` when ``async_op``, else None once the result is in
        ``tensor``. Bounded by the group's timeout, like a Work.
        """
        raise NotImplementedError

    def release(self) -> None:
        """Free what the plan holds in the engine (it is not run again)."""


class ProcessGroup:
    """A set of processes that run collectives together: what a communication backend makes.

    Subclasses implement the operations below on **contiguous** tensors of one of
    ``devices`` (the frontend prepares them), each returning a :class:`Work`. ``rank()`` and
    ``size()`` are this process's rank in the group and the group's size.
    """

    #: The communication backend's name (``"mpi"``).
    backend: str = ""
    #: Device types whose tensors this group moves.
    devices: tuple[str, ...] = ("cpu",)
    #: Where the object collectives (``all_gather_object``...) put their tensors, for a
    #: group bound to one device (NCCL: its CUDA device); None: the default device when
    #: the group moves its type, else ``devices[0]``.
    device: Any = None
    #: The reduction ops the group's ``allreduce``, ``reduce`` and ``reduce_scatter`` take;
    #: the frontend refuses the others (``NotImplementedError`` naming the backend) before
    #: calling it.
    reduce_ops: frozenset[ReduceOp] = frozenset(
        {ReduceOp.SUM, ReduceOp.AVG, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX}
    )

    def __init__(self, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout

    def _unsupported(self, what: str) -> NotImplementedError:
        """PyTorch's error for an operation the backend does not implement (a
        ``NotImplementedError``, which is a ``RuntimeError`` as PyTorch's is)."""
        name = self.backend or type(self).__name__
        return NotImplementedError(f"Backend {name} does not support {what}")

    def rank(self) -> int:
        """This process's rank in the group."""
        raise self._unsupported("rank")

    def size(self) -> int:
        """How many processes the group has."""
        raise self._unsupported("size")

    def allreduce(self, tensor: Tensor, op: ReduceOp) -> Work:
        """Reduce ``tensor`` over the group, in place on every rank."""
        raise self._unsupported("allreduce")

    def broadcast(self, tensor: Tensor, src: int) -> Work:
        """Copy rank ``src``'s ``tensor`` into every rank's."""
        raise self._unsupported("broadcast")

    def allgather(self, output: Tensor, input: Tensor) -> Work:
        """``output`` (``size() * input.numel()`` elements) gets every rank's ``input``."""
        raise self._unsupported("allgather")

    def reduce_scatter(self, output: Tensor, input: Tensor, op: ReduceOp) -> Work:
        """Reduce ``input`` (``size()`` chunks) over the group; chunk ``rank()`` to ``output``."""
        raise self._unsupported("reduce_scatter")

    def reduce(self, tensor: Tensor, dst: int, op: ReduceOp) -> Work:
        """Reduce ``tensor`` over the group into rank ``dst``'s ``tensor``."""
        raise self._unsupported("reduce")

    def gather(self, output: Tensor | None, input: Tensor, dst: int) -> Work:
        """Rank ``dst``'s ``output`` (``size()`` chunks) gets every rank's ``input``."""
        raise self._unsupported("gather")

    def scatter(self, output: Tensor, input: Tensor | None, src: int) -> Work:
        """Every rank's ``output`` gets its chunk of rank ``src``'s ``input``."""
        raise self._unsupported("scatter")

    def send(self, tensor: Tensor, dst: int, tag: int) -> Work:
        """Send ``tensor`` to rank ``dst``."""
        raise self._unsupported("send")

    def recv(self, tensor: Tensor, src: int | None, tag: int) -> Work:
        """Receive into ``tensor`` from rank ``src`` (any rank when None); the Work's
        :meth:`Work.result` is the sender's rank."""
        raise self._unsupported("recv")

    def barrier(self) -> Work:
        """Wait until every rank of the group has reached the barrier."""
        raise self._unsupported("barrier")

    def alltoall(
        self, output: Tensor, input: Tensor, output_splits: list[int], input_splits: list[int]
    ) -> Work:
        """Send ``input_splits[i]`` elements of the 1-D ``input`` (consecutive blocks, in rank
        order) to rank ``i``, and receive ``output_splits[i]`` elements from rank ``i`` into
        the 1-D ``output`` (likewise), of one dtype.

        The default is a send and a receive per peer, started together through
        :meth:`batch_p2p` where the backend has it (else :meth:`send`/:meth:`recv`), with
        tag :data:`ALLTOALL_TAG`, and a copy of this rank's own block; an engine with an
        all-to-all of its own (MPI's ``Ialltoallv``) overrides it.
        """
        from ..autograd import grad_mode

        me, n = self.rank(), self.size()
        out_at, in_at = _offsets(output_splits), _offsets(input_splits)
        ops: list[tuple[str, Tensor, int | None, int]] = []
        for peer in range(n):
            if peer != me:
                block = output[out_at[peer] : out_at[peer] + output_splits[peer]]
                ops.append(("recv", block, peer, ALLTOALL_TAG))
        for peer in range(n):
            if peer != me:
                block = input[in_at[peer] : in_at[peer] + input_splits[peer]]
                ops.append(("send", block, peer, ALLTOALL_TAG))
        works = self.batch_p2p(ops)
        if works is None:
            works = [
                self.send(t, peer, tag) if kind == "send" else self.recv(t, peer, tag)
                for kind, t, peer, tag in ops
                if peer is not None
            ]
        if output_splits[me] != input_splits[me]:
            raise RuntimeError(
                f"all_to_all: this rank sends itself {input_splits[me]} elements but expects "
                f"{output_splits[me]}"
            )
        with grad_mode.no_grad():
            output[out_at[me] : out_at[me] + output_splits[me]].copy_(
                input[in_at[me] : in_at[me] + input_splits[me]]
            )
        pending = list(works)

        def poll() -> bool:
            while pending and pending[-1].is_completed():
                pending.pop()
            return not pending

        return Work(poll, self.timeout, "all_to_all", keep=(output, input))

    def batch_p2p(self, ops: list[tuple[str, Tensor, int | None, int]]) -> list[Work] | None:
        """Optional: start the sends and receives of one ``batch_isend_irecv`` together, so
        that none waits for another of the batch (NCCL: one ``ncclGroupStart``/``End``, in
        which a ring's sends and receives progress at once).

        ``ops`` are ``(kind, tensor, peer, tag)`` in the caller's order: ``kind`` is
        ``"send"`` or ``"recv"``, ``tensor`` contiguous, ``peer`` a rank in this group (None
        for a receive from any rank). Returns a :class:`Work` per operation, in that order
        (a receive's :meth:`Work.result` is the sender's rank). None, the default, when the
        backend has no batch: the frontend then calls :meth:`send` and :meth:`recv` for each
        operation, in order (MPI's non-blocking sends and receives need no more)."""
        return None

    def agree(self, description: str, what: str) -> list[str] | None:
        """Check that every rank passes the same ``description`` (shapes and dtypes of a
        collective's tensors): None when they do, else every rank's description, in rank
        order. Blocking, bounded by the group's timeout. The default checks nothing."""
        return None

    def allreduce_plan(
        self, tensor: Tensor, op: ReduceOp, description: str | None
    ) -> AllreducePlan | None:
        """Optional: an :class:`AllreducePlan` for repeated all-reduces of ``tensor`` (a
        contiguous tensor on one of ``devices``) with ``op``, so that the per-call work
        (finding the memory, choosing the engine's datatype and operation, setting up the
        request) is done once; each run checks first that the ranks agree on
        ``description`` (as :meth:`agree`), unless it is None (the check is off). None, the
        default, when the backend has none: the frontend then calls :meth:`agree` and
        :meth:`allreduce` every time."""
        return None

    def split(self, ranks: list[int]) -> ProcessGroup | None:
        """A new group of ``ranks`` (ranks in this group, in the new group's rank order:
        sorted, unless the program passed ``new_group(..., sort_ranks=False)``); None on the
        ranks left out. Every rank of this group calls it. The frontend then sets the new
        group's ``timeout`` (``new_group(timeout=...)``, else the backend's default): read
        ``self.timeout`` when a wait starts."""
        raise self._unsupported("split")

    def abort(self, code: int = 1) -> None:
        """End every process of the job at once (a rank failed): the default does nothing."""

    def shutdown(self) -> None:
        """Release the group's resources (``destroy_process_group``)."""
