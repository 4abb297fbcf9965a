"""Futures: a value that some work will produce (PyTorch's ``torch.futures``).

A :class:`Future` is completed once, with :meth:`Future.set_result` or
:meth:`Future.set_exception`; :meth:`Future.wait` blocks until then, and
:meth:`Future.then` chains a callback whose return value completes a new future. The
communication hooks of ``DistributedDataParallel`` return one per gradient bucket.

A future may also be *driven*: made with a function that completes it (such as a collective's
``Work.wait``), which :meth:`Future.wait` calls in the waiting thread instead of sleeping.
That is how the futures of collectives complete here, where the engine makes progress when
polled rather than on a thread of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Future", "collect_all", "wait_all"]


class Future:
    """A value that will be set once (PyTorch's ``torch.futures.Future``).

    Parameters
    ----------
    devices
        Accepted for PyTorch compatibility (CUDA stream bookkeeping); unused.

    Examples
    --------
    >>> import tensorcore as tc
    >>> fut = tc.futures.Future()
    >>> doubled = fut.then(lambda f: f.value() * 2)
    >>> fut.done(), doubled.done()
    (False, False)
    >>> fut.set_result(tc.tensor([1.0, 2.0]))
    >>> doubled.wait()
    tensor([2., 4.])
    """

    def __init__(self, *, devices: Any = None, _drive: Callable[[], Any] | None = None) -> None:
        self._cond = threading.Condition()
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future], Any]] = []
        # Called by wait() (outside the lock) to complete the future, where set.
        self._drive = _drive

    def done(self) -> bool:
        """Whether the future has a result or an exception."""
        return self._done

    def _complete(self, value: Any, error: BaseException | None) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError(
                    "Attempting to mark a completed Future as complete again. Note that a "
                    "Future can only be marked completed once."
                )
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def set_result(self, result: Any) -> None:
        """Complete the future with ``result``, waking its waiters and running its callbacks
        (in this thread)."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with the exception ``result``, which :meth:`wait` and
        :meth:`value` raise."""
        if not isinstance(result, BaseException):
            raise TypeError(f"set_exception(): expected an exception, got {type(result).__name__}")
        self._complete(None, result)

    def wait(self) -> Any:
        """Block until the future is complete; return its value (or raise its exception)."""
        if not self._done and self._drive is not None:
            drive, self._drive = self._drive, None
            try:
                drive()
            except Exception as exc:  # noqa: BLE001 (the work failed: so does the future)
                if not self._done:
                    self.set_exception(exc)
        with self._cond:
            self._cond.wait_for(lambda: self._done)
        return self.value()

    def value(self) -> Any:
        """The value of a completed future (raising its exception, if it has one)."""
        if not self._done:
            raise RuntimeError(
                "Future.value() called before the future completed; call wait() first, or "
                "read it in a callback of then()"
            )
        if self._error is not None:
            raise self._error
        return self._value

    def add_done_callback(self, callback: Callable[[Future], Any]) -> None:
        """Run ``callback(self)`` when the future completes (now, when it has)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback: Callable[[Future], Any]) -> Future:
        """A new future, completed with ``callback(self)`` once this one completes (or with
        the exception ``callback`` raises). Waiting on it drives this one."""
        child = Future(_drive=self.wait)

        def run(parent: Future) -> None:
            try:
                result = callback(parent)
            except Exception as exc:  # noqa: BLE001 (it completes the chained future)
                child.set_exception(
                    RuntimeError(
                        f"Got the following error when running the callback: "
                        f"{type(exc).__name__}: {exc}"
                    )
                )
            else:
                child.set_result(result)

        self.add_done_callback(run)
        return child


def collect_all(futures: list[Future]) -> Future:
    """A future completed with the list of ``futures`` once all of them are complete.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a, b = tc.futures.Future(), tc.futures.Future()
    >>> both = tc.futures.collect_all([a, b])
    >>> a.set_result(1); b.set_result(2)
    >>> [f.value() for f in both.wait()]
    [1, 2]
    """
    futures = list(futures)
    result = Future(_drive=lambda: [f.wait() for f in futures])
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(_: Future) -> None:
        with lock:
            left[0] -= 1
            last = left[0] == 0
        if last:
            result.set_result(futures)

    if not futures:
        result.set_result([])
    for f in futures:
        f.add_done_callback(one_done)
    return result


def wait_all(futures: list[Future]) -> list[Any]:
    """Wait for every future of ``futures``; their values, in order (the first exception
    is raised).

    Examples
    --------
    >>> import tensorcore as tc
    >>> f = tc.futures.Future()
    >>> f.set_result(3)
    >>> tc.futures.wait_all([f])
    [3]
    """
    return [f.wait() for f in futures]
