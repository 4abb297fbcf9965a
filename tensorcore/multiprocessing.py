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
    except Exception:  # noqa: BLE001 (any failure is reported to the parent with its traceback)
        errors.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The processes :func:`spawn` started (``join=False``): ``join()`` waits for them."""

    def __init__(self, processes: list[Any], error_queues: list[Any]) -> None:
        self.processes, self.error_queues = processes, error_queues

    def pids(self) -> list[int]:
        """The processes' ids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        """Wait for every process; True once all have ended. The first that failed raises
        :class:`ProcessRaisedException` (with its traceback) or
        :class:`ProcessExitedException`, after the others are terminated."""
        for p in self.processes:
            p.join(timeout)
        if any(p.exitcode is None for p in self.processes):
            return False
        for i, p in enumerate(self.processes):
            if p.exitcode == 0:
                continue
            for other in self.processes:
                if other.is_alive():
                    other.terminate()
            if not self.error_queues[i].empty():
                trace = self.error_queues[i].get()
                msg = f"\n\n-- Process {i} terminated with the following error:\n{trace}"
                raise ProcessRaisedException(msg, i, p.pid)
            code = p.exitcode
            if code < 0:
                name = f"signal {-code}"
                raise ProcessExitedException(
                    f"process {i} terminated with {name}", i, p.pid, code, name
                )
            raise ProcessExitedException(
                f"process {i} terminated with exit code {code}", i, p.pid, code
            )
        return True


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
