"""``tensorcore.multiprocessing``: Python's :mod:`multiprocessing` with tensors that share
memory, as ``torch.multiprocessing``.

Every name of :mod:`multiprocessing` is here (``Process``, ``Queue``, ``get_context``...).
Importing this module makes multiprocessing's pickler move each CPU tensor it sends (a
process's arguments under ``spawn``, anything put on a queue) into shared memory first and
send a handle on that memory, so that sender and receiver update the same values, which is
what Hogwild training relies on (``model.share_memory()`` does the move ahead of time).
:func:`spawn` starts ``nprocs`` processes running ``fn(i, *args)`` and reports the first
failure with the child's traceback.

Examples
--------
>>> import tensorcore.multiprocessing as mp
>>> mp.get_sharing_strategy(), sorted(mp.get_all_sharing_strategies())
('file_descriptor', ['file_descriptor'])
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import time
import traceback
from collections.abc import Callable
from multiprocessing import *  # noqa: F403
from typing import Any

from ._shared_memory import register

__all__ = [
    *multiprocessing.__all__,
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]

register(share_on_send=True)


def get_all_sharing_strategies() -> set[str]:
    """The ways CPU tensors can be shared: ``{"file_descriptor"}`` (a memory file's
    descriptor, sent to the receiver)."""
    return {"file_descriptor"}


def get_sharing_strategy() -> str:
    """The current sharing strategy: ``"file_descriptor"``."""
    return "file_descriptor"


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose the sharing strategy; only ``"file_descriptor"`` exists here."""
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"unknown sharing strategy {new_strategy!r}")


class ProcessException(Exception):
    """A process started by :func:`spawn` failed."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, error_pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process started by :func:`spawn` raised; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process started by :func:`spawn` exited with a non-zero code (or a signal)."""

    def __init__(
        self,
        msg: str,
        error_index: int,
        error_pid: int,
        exit_code: int,
        signal_name: str | None = None,
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], errors: Any) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except SystemExit as exc:
        # sys.exit(status): the process ends with that status, as under PyTorch's spawn
        # (its exit code is what join() reports); a failing status stops the job first.
        code = _exit_status(exc.code)
        if code != 0:
            _abort_job(f"process {i} of spawn() exited with status {code}", code)
        raise
    except Exception:  # noqa: BLE001 (any failure is reported to the parent with its traceback)
        errors.put(traceback.format_exc())
        _abort_job(f"process {i} of spawn() raised", 1)
        raise SystemExit(1) from None


def _exit_status(code: Any) -> int:
    """The exit status of ``SystemExit(code)``, as Python ends the process with it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1  # (a message: printed, status 1)


def _abort_job(why: str, code: int) -> None:
    """A rank of a distributed job must not wait at exit (MPI_Finalize) for peers that wait
    for it: it stops the job, as an uncaught exception does."""
    group = sys.modules.get("tensorcore.distributed._group")
    if group is not None:
        group.abort_job(why, code=code)


class ProcessContext:
    """The processes :func:`spawn` started (``join=False``): ``join()`` waits for them."""

    def __init__(self, processes: list[Any], error_queues: list[Any]) -> None:
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list[int]:
        """The processes' ids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait (at most ``timeout`` seconds) until a process ends; True once all have
        ended well, False while some still run. When one fails, the others are terminated
        (``SIGTERM``, then ``SIGKILL`` after ``grace_period`` seconds) and the failure is
        raised: :class:`ProcessRaisedException` with the traceback of a process that
        raised (preferred over one that was only stopped), else
        :class:`ProcessExitedException`."""

        def failures() -> list[int]:
            return [i for i, p in enumerate(self.processes) if p.exitcode not in (None, 0)]

        # One snapshot of the exit codes (``exitcode`` polls): a process that ends between
        # two reads must be either failed here or among the sentinels waited on.
        codes = [p.exitcode for p in self.processes]
        failed = [i for i, code in enumerate(codes) if code not in (None, 0)]
        pairs = zip(self.processes, codes, strict=True)
        running = [p.sentinel for p, code in pairs if code is None]
        if running and not failed:
            multiprocessing.connection.wait(running, timeout)
            failed = failures()
        if not failed:
            return all(p.exitcode == 0 for p in self.processes)
        self._stop_all(grace_period)
        raised = [i for i in failed if not self.error_queues[i].empty()]
        # A process that raised, else one that exited with a failing status, before one
        # that a signal stopped (the job's end stops the others: SIGTERM).
        exited = [i for i in failed if self.processes[i].exitcode > 0]
        i = (raised or exited or failed)[0]
        p = self.processes[i]
        if raised:
            trace = self.error_queues[i].get()
            msg = f"\n\n-- Process {i} terminated with the following error:\n{trace}"
            raise ProcessRaisedException(msg, i, p.pid)
        code = p.exitcode
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"<Unknown signal {-code}>"
            raise ProcessExitedException(
                f"process {i} terminated with signal {name}", i, p.pid, code, name
            )
        raise ProcessExitedException(
            f"process {i} terminated with exit code {code}", i, p.pid, code
        )

    def _stop_all(self, grace_period: float | None) -> None:
        alive = [p for p in self.processes if p.is_alive()]
        for p in alive:
            p.terminate()
        deadline = time.monotonic() + (30.0 if grace_period is None else grace_period)
        for p in alive:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in alive:
            if p.is_alive():
                p.kill()
                p.join()


def start_processes(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """:func:`spawn` with any start method (``"spawn"``, ``"fork"``, ``"forkserver"``)."""
    ctx: Any = multiprocessing.get_context(start_method)
    queues, procs = [], []
    for i in range(nprocs):
        errors = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
        p.start()
        queues.append(errors)
        procs.append(p)
    context = ProcessContext(procs, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    nprocs: int = 1,
    join: bool = True,
    daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` (``i`` from 0), as
    ``torch.multiprocessing.spawn``; with ``join`` wait for them and raise the first
    failure, else return a :class:`ProcessContext`."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
