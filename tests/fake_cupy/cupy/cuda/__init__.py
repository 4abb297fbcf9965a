"""The fake ``cupy.cuda``: devices, streams and events over host threads.

Kernels of the fake run on the calling thread, when they are called. What is queued on a
stream (the fake NCCL's operations, :meth:`Event.record` behind queued work,
:meth:`Stream.wait_event` of an event not yet reached) runs in order on that stream's own
thread, as a GPU would run it after the host moved on: an event recorded after a collective
is done when the collective is. A kernel, a transfer or an ``asnumpy`` on a stream with
queued work first waits for that work (:func:`kernel_point`, which the fake ``cupy`` calls
before each of them): so ``get_current_stream().wait_event(e)`` returns at once, and the
work launched after it on that stream sees what the work before ``e`` wrote, as on a GPU.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from . import runtime

__all__ = ["Device", "Event", "Stream", "get_current_stream", "kernel_point", "runtime"]


class Device:
    """CuPy's ``Device``: a device index, and a context manager that makes it current."""

    def __init__(self, device: int | None = None) -> None:
        self.id = runtime.getDevice() if device is None else int(device)
        self._previous: list[int] = []

    def __enter__(self) -> Device:
        self._previous.append(runtime.getDevice())
        runtime.setDevice(self.id)
        return self

    def __exit__(self, *exc: object) -> None:
        runtime.setDevice(self._previous.pop())

    def use(self) -> None:
        """Make this device current."""
        runtime.setDevice(self.id)

    def synchronize(self) -> None:
        """Wait for every stream's queued work."""
        for s in list(Stream._live.values()):
            s.synchronize()


class Stream:
    """A CUDA stream: work queued on it runs in order on a thread of its own."""

    _counter = 0
    _live: ClassVar[dict[int, Stream]] = {}
    _local = threading.local()

    def __init__(self, null: bool = False, non_blocking: bool = False, ptr: int = 0) -> None:
        if null:
            self.ptr = 0
        else:
            Stream._counter += 1
            self.ptr = 0x5000 + Stream._counter
        Stream._live[self.ptr] = self
        self._queue: queue.Queue[Callable[[], None] | None] | None = None
        self._pending = 0
        self._lock = threading.Condition()
        self.error: BaseException | None = None

    # ------------------------------------------------------------ queueing
    def enqueue(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the stream's thread after what was queued before it."""
        if self._queue is None:
            self._queue = queue.Queue()
            threading.Thread(target=self._run, daemon=True, name=f"stream-{self.ptr}").start()
        with self._lock:
            self._pending += 1
        self._queue.put(fn)

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            fn = self._queue.get()
            if fn is None:
                return
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - kept, as a sticky CUDA error
                self.error = exc
            with self._lock:
                self._pending -= 1
                self._lock.notify_all()

    @property
    def done(self) -> bool:
        """Whether everything queued has run."""
        with self._lock:
            return self._pending == 0

    def synchronize(self) -> None:
        """Block until everything queued has run."""
        with self._lock:
            self._lock.wait_for(lambda: self._pending == 0)

    def record(self, event: Event | None = None) -> Event:
        """Record ``event`` (a new one when None) here."""
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event: Event) -> None:
        """Later work on this stream runs after ``event`` (the host does not wait)."""
        if not event.done:
            self.enqueue(event._flag.wait)

    # ------------------------------------------------------------ current stream
    def __enter__(self) -> Stream:
        stack = Stream._stack()
        stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        Stream._stack().pop()

    def use(self) -> Stream:
        """Make this the current stream."""
        Stream._stack()[-1:] = [self]
        return self

    @staticmethod
    def _stack() -> list[Stream]:
        local = Stream._local
        if not hasattr(local, "stack"):
            local.stack = [Stream.null]
        return local.stack  # type: ignore[no-any-return]

    null: Stream


Stream.null = Stream(null=True)


def get_current_stream(device: Any = None) -> Stream:
    """The current stream of this thread (the null stream by default)."""
    return Stream._stack()[-1]


class Event:
    """A CUDA event: done once the work queued before :meth:`record` has run."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:  # fmt: skip
        self._flag = threading.Event()
        self._flag.set()  # an event never recorded is done, as in CUDA

    def record(self, stream: Stream | None = None) -> None:
        """Mark the point after the work queued on ``stream`` so far."""
        stream = stream or get_current_stream()
        if stream.done:  # (kernels ran when called: the point is reached)
            self._flag.set()
            return
        self._flag.clear()
        stream.enqueue(self._flag.set)

    @property
    def done(self) -> bool:
        """Whether the recorded point has been reached."""
        if self._flag.is_set():
            return True
        # The "GPU" is a thread of this process: a host that polls the event in a loop (as
        # the NCCL backend's waits do) must let it run, or each poll holds the GIL for a
        # switch interval (5 ms) while the work it waits for stands still. A real query
        # costs the device nothing.
        time.sleep(0)
        return self._flag.is_set()

    def synchronize(self) -> None:
        """Block until the recorded point has been reached."""
        self._flag.wait()


def kernel_point() -> None:
    """Before a kernel or a transfer on the current stream: wait for the work queued on it
    (what a GPU would run before the kernel)."""
    stream = Stream._stack()[-1]
    if stream._pending:
        stream.synchronize()


@contextlib.contextmanager
def using_allocator(allocator: Any = None) -> Iterator[None]:
    """Accepted and ignored (no device memory here)."""
    yield


def is_available() -> bool:
    """Whether the fake has devices (``FAKE_CUPY_DEVICES``, default 1)."""
    return int(os.environ.get("FAKE_CUPY_DEVICES", "1")) > 0
