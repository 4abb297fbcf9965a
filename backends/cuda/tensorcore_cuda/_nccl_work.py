"""The ``nccl`` backend's :class:`NCCLWork` and the group's :class:`Watchdog`.

As in PyTorch's ``ProcessGroupNCCL``, ``wait()`` does not block the host: it makes the
current CUDA stream wait for the event recorded after the NCCL calls, and queues the
finishers (copies back, an AVG's division) on that stream behind it. ``wait(timeout)``
(and every wait under ``TENSORCORE_NCCL_BLOCKING_WAIT=1``, PyTorch's
``TORCH_NCCL_BLOCKING_WAIT``) blocks the host until the calls have finished, raising
``DistBackendError`` after the timeout and aborting the communicator.

A collective that no host thread waits for is followed by the group's watchdog, a thread:
it drops the tensors of finished works (the NCCL calls read and write their memory until
then), and when a work outlives the group's timeout or NCCL reports an error
(``ncclCommGetAsyncError``), it does what ``TENSORCORE_NCCL_ASYNC_ERROR_HANDLING`` says,
with the modes and the default of PyTorch's ``TORCH_NCCL_ASYNC_ERROR_HANDLING``
(:func:`async_error_handling`):

* ``3`` (the default, PyTorch's ``SkipCleanUp``): end the process without aborting the
  communicator (``ncclCommAbort`` may itself hang, and a process that ends frees it anyway);
* ``1`` (``TearDown``): abort the communicator, then end the process;
* ``2`` (``CleanUpOnly``): abort the communicator and fail the works in flight (their
  ``exception()`` says why, their ``wait()`` raises it); the process goes on, and the group's
  next call raises;
* ``0`` (``NoHandling``): fail the late work (or, for an NCCL error, every work in flight),
  abort nothing: the process goes on, and what still waits for the peers may wait forever.

Ending the process is the default because the data of a collective that never ran would
otherwise flow on, unnoticed. Under ``TENSORCORE_NCCL_BLOCKING_WAIT=1`` the mode is ``0``
whatever the variable says, as in PyTorch: the errors are raised where the works are
waited for.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from tensorcore.backend import DistBackendError, Work, spin, timed_out

if TYPE_CHECKING:
    from ._nccl_group import NCCLProcessGroup

__all__ = [
    "CLEAN_UP_ONLY",
    "NO_HANDLING",
    "SKIP_CLEAN_UP",
    "TEAR_DOWN",
    "NCCLWork",
    "Watchdog",
    "async_error_handling",
    "blocking_wait",
]

#: How often the watchdog looks at the works in flight (seconds): it only releases memory and
#: notices timeouts, which need no haste.
POLL_S = 0.005

#: The modes of ``TENSORCORE_NCCL_ASYNC_ERROR_HANDLING``: PyTorch's ``ErrorHandlingMode``.
NO_HANDLING, TEAR_DOWN, CLEAN_UP_ONLY, SKIP_CLEAN_UP = 0, 1, 2, 3
#: What each mode does, in the watchdog's message.
_DOES = {
    NO_HANDLING: "nothing was aborted and the process goes on: the work's exception() says "
    "it, and its wait() raises it",
    TEAR_DOWN: "the NCCL communicator was aborted, and the process ends",
    CLEAN_UP_ONLY: "the NCCL communicator was aborted, and the process goes on: the process "
    "group is unusable",
    SKIP_CLEAN_UP: "the process ends, without aborting the NCCL communicator, as PyTorch's NCCL "
    "watchdog ends it by default",
}


def blocking_wait() -> bool:
    """Whether ``wait()`` blocks the host (``TENSORCORE_NCCL_BLOCKING_WAIT=1``).

    Examples
    --------
    >>> from tensorcore_cuda._nccl_work import blocking_wait
    >>> isinstance(blocking_wait(), bool)
    True
    """
    return os.environ.get("TENSORCORE_NCCL_BLOCKING_WAIT", "0") == "1"


def async_error_handling(blocking: bool) -> int:
    """What the watchdog does on a timeout or an NCCL error (see the module):
    ``TENSORCORE_NCCL_ASYNC_ERROR_HANDLING``, PyTorch's modes ``0`` to ``3``, ``3`` when it is
    unset; ``0`` when ``blocking`` (``TENSORCORE_NCCL_BLOCKING_WAIT=1``), as in PyTorch.

    Raises
    ------
    ValueError
        For another value, naming the variable and its modes.

    Examples
    --------
    >>> from tensorcore_cuda._nccl_work import SKIP_CLEAN_UP, async_error_handling
    >>> async_error_handling(blocking=True)
    0
    """
    raw = os.environ.get("TENSORCORE_NCCL_ASYNC_ERROR_HANDLING", "").strip()
    mode = SKIP_CLEAN_UP if raw == "" else int(raw) if raw in ("0", "1", "2", "3") else None
    if mode is None:
        raise ValueError(
            f"TENSORCORE_NCCL_ASYNC_ERROR_HANDLING={raw!r}: expected 0 (no handling), 1 (abort "
            "the communicator and end the process), 2 (abort the communicator only) or 3 (end "
            "the process without aborting the communicator, the default), as PyTorch's "
            "TORCH_NCCL_ASYNC_ERROR_HANDLING"
        )
    return NO_HANDLING if blocking else mode


class NCCLWork(Work):
    """A ``Work`` over an event recorded after the NCCL calls on the group's stream.

    ``host=True`` makes every :meth:`wait` block the host (the barrier, and the group's own
    reads of a result, as the agreement check); the watchdog then leaves its failures to
    that wait.
    """

    def __init__(
        self,
        group: NCCLProcessGroup,
        event: Any,
        what: str,
        finishers: list[Callable[[], Any]],
        keep: tuple[Any, ...],
        host: bool = False,
    ) -> None:
        super().__init__(self._finished, group.timeout, what, finishers, keep)
        self._group, self._event = group, event
        self._host = host or group.blocking_wait
        self._deadline = time.monotonic() + group.timeout.total_seconds()
        # A host thread blocks on it (the watchdog leaves its errors to that thread).
        self._waited = host

    def _finished(self) -> bool:
        """Whether the NCCL calls have finished on the device; raises the work's error (one
        the watchdog found, or an NCCL error)."""
        if self._error is not None:
            raise self._error
        # (first: after a peer's failure the calls end, and the event is reached, anyway)
        self._group._check_async(self._what)
        return bool(self._event.done)

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Make the current stream wait for the collective, without blocking the host, and
        queue the finishers there; return True (PyTorch's ``wait()`` on NCCL).

        With ``timeout``, or for a work made with ``host=True``, or under
        ``TENSORCORE_NCCL_BLOCKING_WAIT=1``: block the host until the collective has
        finished instead, raising ``DistBackendError`` (and aborting the communicator) when
        it has not after ``timeout`` (the group's when None) or NCCL reports an error.
        """
        if self._error is not None:
            raise self._error
        if timeout is None and not self._host:
            if not self._done:
                cuda = self._group._cuda
                with cuda.Device(self._group._index):
                    cuda.get_current_stream().wait_event(self._event)
                self._finish()
            return True
        self._waited = True
        try:
            spin(self._finished, timeout or self._timeout, self._what)
        except DistBackendError as exc:
            self._error = exc
            self._group._fail(str(exc))
            raise
        finally:
            self._waited = self._host
        if not self._done:
            self._finish()
        return True

    def synchronize(self) -> None:
        """Make the current stream wait for the collective (PyTorch's ``synchronize()``:
        never blocks the host)."""
        if self._error is not None:
            raise self._error
        if not self._done:
            cuda = self._group._cuda
            with cuda.Device(self._group._index):
                cuda.get_current_stream().wait_event(self._event)
            self._finish()

    def is_completed(self) -> bool:
        """Whether the collective has finished on the device, so that its results may be
        used from any stream (never blocks); an error makes it False, and
        :meth:`exception` says which. The finishers are queued on the current stream when
        it first says True, unless a wait did."""
        if self._error is not None:
            return False
        try:
            finished = self._finished()
        except DistBackendError as exc:
            self._error = exc
            return False
        if finished and not self._done:
            self._finish()
        return finished

    def is_success(self) -> bool:
        """Whether the collective has finished on the device without an error."""
        return self.is_completed()


class Watchdog:
    """Follows a group's works from their launch until their event is reached (see the
    module): a daemon thread, started with the first work, asleep while none is in flight."""

    def __init__(self, group: NCCLProcessGroup) -> None:
        self._group = group
        self._cond = threading.Condition()
        # (work, the tensors its NCCL calls use), in launch order
        self._works: list[tuple[NCCLWork, tuple[Any, ...]]] = []
        self._thread: threading.Thread | None = None
        self._stopped = False

    def watch(self, work: NCCLWork, keep: tuple[Any, ...]) -> None:
        """Follow ``work``, holding ``keep`` until its NCCL calls have finished."""
        with self._cond:
            self._works.append((work, keep))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, daemon=True, name="tensorcore-nccl-watchdog"
                )
                self._thread.start()
            self._cond.notify()

    def in_flight(self) -> int:
        """How many works have not finished yet (as the watchdog last saw them)."""
        with self._cond:
            return len(self._works)

    def stop(self) -> None:
        """End the thread (the group shuts down); the tensors are let go."""
        with self._cond:
            self._stopped = True
            self._works = []
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._works) or self._stopped)
                if self._stopped:
                    return
                works = list(self._works)
            # Works a host thread waits for are left to it (it raises their errors), and a
            # work that failed already is not failed again (mode 0 keeps following it).
            unwaited = [w for w, _ in works if not w._waited and w._error is None]
            failure = self._failure(unwaited)
            with self._cond:
                self._works = [e for e in self._works if not e[0]._event.done]
            if failure is not None and not self._fail(*failure):
                return
            time.sleep(POLL_S)

    def _failure(self, works: list[NCCLWork]) -> tuple[DistBackendError, list[NCCLWork]] | None:
        """An NCCL error (every one of ``works`` failed by it), or the timeout of some of
        ``works`` (the late ones); None when neither."""
        if not works:
            return None
        try:
            self._group._check_async(works[0]._what)
        except DistBackendError as exc:
            return exc, works
        now = time.monotonic()
        late = [w for w in works if now > w._deadline and not w._event.done]
        return None if not late else (timed_out(late[0]._what, late[0]._timeout), late)

    def _fail(self, error: DistBackendError, culprits: list[NCCLWork]) -> bool:
        """Do what the group's ``async_error_handling`` mode says (see the module) about
        ``error`` of ``culprits``; whether the watchdog goes on."""
        group = self._group
        mode = group.async_error_handling
        if mode in (TEAR_DOWN, CLEAN_UP_ONLY):
            group._fail(str(error))
        if mode == NO_HANDLING:
            # The communicator lives on: the other works may still finish, and the NCCL
            # calls of the failed ones may still use their tensors (kept until they finish).
            failed = culprits
        else:
            with self._cond:
                failed, self._works = [w for w, _ in self._works], []
        for work in failed:
            if work._error is None:
                work._error = error
        why = (
            "TENSORCORE_NCCL_BLOCKING_WAIT=1"
            if group.blocking_wait
            else f"TENSORCORE_NCCL_ASYNC_ERROR_HANDLING={mode}"
        )
        print(
            f"tensorcore.distributed: rank {group.rank()} of the 'nccl' group: {error}; "
            f"{_DOES[mode]} ({why})",
            file=sys.stderr,
            flush=True,
        )
        if mode in (TEAR_DOWN, SKIP_CLEAN_UP):
            group._end(1, clean_up=mode == TEAR_DOWN)
        return mode == NO_HANDLING
