"""Key-value stores, as PyTorch's: the :class:`Store` base, :class:`HashStore` (one process)
and :class:`PrefixStore` (a namespace in another store).

A store is where ranks leave each other small values (an address, a communicator's id, a
counter) before, or beside, their collectives. ``TCPStore`` (:mod:`._store`) and
``FileStore`` (:mod:`._file_store`) share it between processes; ``init_process_group(store=)``
takes any of them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import timedelta

from ._errors import DistStoreError

__all__ = ["HashStore", "PrefixStore", "Store"]

#: The timeout of a store made without one (PyTorch's ``kDefaultTimeout``: 5 minutes).
DEFAULT_STORE_TIMEOUT = timedelta(minutes=5)


def as_bytes(value: str | bytes | bytearray | memoryview) -> bytes:
    """A value as the store keeps it: a ``str`` UTF-8 encoded, other buffers as bytes."""
    return value.encode() if isinstance(value, str) else bytes(value)


def poll(ready: Callable[[], bool], seconds: float) -> bool:
    """Call ``ready`` until it says True or ``seconds`` have passed (backing off from 1 to
    50 ms between calls); whether it did."""
    deadline = time.monotonic() + seconds
    delay = 0.001
    while not ready():
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(delay, left))
        delay = min(delay * 2, 0.05)
    return True


class Store:
    """Base class of the key-value stores (PyTorch's ``torch.distributed.Store``):
    :class:`TCPStore`, :class:`FileStore`, :class:`HashStore` and :class:`PrefixStore`.

    Keys are strings; values are bytes (a ``str`` value is stored UTF-8 encoded). A subclass
    implements ``set``, ``get``, ``add``, ``compare_set``, ``check``, ``wait``,
    ``delete_key`` and ``num_keys``; ``append``, ``multi_get`` and ``multi_set`` are built on
    them here. Blocking calls wait at most :attr:`timeout`.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> store = dist.HashStore()
    >>> isinstance(store, dist.Store), store.timeout
    (True, datetime.timedelta(seconds=300))
    >>> store.multi_set(["a", "b"], ["1", b"2"])
    >>> store.append("a", "0")
    >>> store.multi_get(["a", "b"])
    [b'10', b'2']
    """

    def __init__(self, timeout: timedelta = DEFAULT_STORE_TIMEOUT) -> None:
        self._timeout = timeout

    @property
    def timeout(self) -> timedelta:
        """How long ``get`` and ``wait`` wait for a key."""
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Set :attr:`timeout`."""
        if not isinstance(timeout, timedelta):
            raise TypeError(
                f"set_timeout(): timeout must be a datetime.timedelta, not {type(timeout).__name__}"
            )
        self._timeout = timeout

    def _missing(self, name: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__} does not implement Store.{name}()")

    def set(self, key: str, value: str | bytes) -> None:
        """Set ``key`` to ``value``, waking whoever waits for it."""
        raise self._missing("set")

    def get(self, key: str) -> bytes:
        """The value of ``key``, waiting for it at most :attr:`timeout` (then raising
        :class:`DistStoreError`)."""
        raise self._missing("get")

    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the integer at ``key`` (0 when unset); return the new value."""
        raise self._missing("add")

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Set ``key`` to ``desired_value`` if its value is ``expected_value`` (or it is
        unset and ``expected_value`` is empty), atomically. Returns the value ``key`` has
        afterwards; ``expected_value`` when ``key`` is unset and was left so."""
        raise self._missing("compare_set")

    def check(self, keys: list[str]) -> bool:
        """Whether every key of ``keys`` is set (without waiting)."""
        raise self._missing("check")

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Block until every key of ``keys`` is set, at most ``timeout`` (default
        :attr:`timeout`), then raise :class:`DistStoreError`."""
        raise self._missing("wait")

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; whether it was there."""
        raise self._missing("delete_key")

    def num_keys(self) -> int:
        """How many keys the store holds."""
        raise self._missing("num_keys")

    def append(self, key: str, value: str | bytes) -> None:
        """Append ``value`` to the bytes at ``key`` (set it when unset), atomically."""
        tail = as_bytes(value)
        while True:
            current = self.get(key) if self.check([key]) else b""
            if self.compare_set(key, current, current + tail) == current + tail:
                return

    def multi_get(self, keys: list[str]) -> list[bytes]:
        """The values of ``keys``, waiting for each as :meth:`get` does."""
        return [self.get(k) for k in keys]

    def multi_set(self, keys: list[str], values: Sequence[str | bytes]) -> None:
        """Set each key of ``keys`` to the value at its place in ``values``."""
        if len(keys) != len(values):
            raise ValueError(
                f"multi_set(): {len(keys)} keys but {len(values)} values; give one value a key"
            )
        for k, v in zip(keys, values, strict=True):
            self.set(k, v)


class HashStore(Store):
    """A store in this process's memory, shared by its threads (PyTorch's
    ``torch.distributed.HashStore``): for tests, and for groups of one process.

    Examples
    --------
    >>> from datetime import timedelta
    >>> import tensorcore.distributed as dist
    >>> store = dist.HashStore()
    >>> store.set("key", "value")
    >>> store.get("key"), store.add("n", 5), store.compare_set("key", "value", "new")
    (b'value', 5, b'new')
    >>> store.set_timeout(timedelta(milliseconds=10))
    >>> store.get("missing")
    Traceback (most recent call last):
    ...
    tensorcore.distributed._errors.DistStoreError: Wait timeout
    """

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, bytes] = {}
        self._cond = threading.Condition()

    def set(self, key: str, value: str | bytes) -> None:
        with self._cond:
            self._data[key] = as_bytes(value)
            self._cond.notify_all()

    def _wait_for(self, keys: list[str], timeout: timedelta) -> None:
        if not self._cond.wait_for(lambda: all(k in self._data for k in keys),
                                   timeout.total_seconds()):  # fmt: skip
            raise DistStoreError("Wait timeout")

    def get(self, key: str) -> bytes:
        with self._cond:
            self._wait_for([key], self.timeout)
            return self._data[key]

    def add(self, key: str, amount: int) -> int:
        with self._cond:
            value = int(self._data.get(key, b"0")) + int(amount)
            self._data[key] = str(value).encode()
            self._cond.notify_all()
            return value

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        expected, desired = as_bytes(expected_value), as_bytes(desired_value)
        with self._cond:
            current = self._data.get(key)
            if current is None and expected:
                return expected
            if current is None or current == expected:
                self._data[key] = desired
                self._cond.notify_all()
                return desired
            return current

    def check(self, keys: list[str]) -> bool:
        with self._cond:
            return all(k in self._data for k in keys)

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        with self._cond:
            self._wait_for(list(keys), timeout or self.timeout)

    def delete_key(self, key: str) -> bool:
        with self._cond:
            return self._data.pop(key, None) is not None

    def num_keys(self) -> int:
        with self._cond:
            return len(self._data)


class PrefixStore(Store):
    """The keys of ``store`` that begin with ``prefix + "/"``, under their names without it
    (PyTorch's ``torch.distributed.PrefixStore``): one store, several namespaces.
    :meth:`num_keys` counts the whole underlying store's keys, and :attr:`timeout` is its
    timeout, as in PyTorch.

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> base = dist.HashStore()
    >>> job = dist.PrefixStore("job", base)
    >>> job.set("addr", "10.0.0.1")
    >>> base.get("job/addr"), job.underlying_store is base
    (b'10.0.0.1', True)
    """

    def __init__(self, prefix: str, store: Store) -> None:
        if store is None:
            raise ValueError("store argument cannot be None")
        self._prefix, self._store = prefix, store

    @property
    def underlying_store(self) -> Store:
        """The store this one keeps its keys in."""
        return self._store

    @property
    def timeout(self) -> timedelta:
        return self._store.timeout

    def set_timeout(self, timeout: timedelta) -> None:
        self._store.set_timeout(timeout)

    def _key(self, key: str) -> str:
        return f"{self._prefix}/{key}"

    def set(self, key: str, value: str | bytes) -> None:
        self._store.set(self._key(key), value)

    def get(self, key: str) -> bytes:
        return self._store.get(self._key(key))

    def add(self, key: str, amount: int) -> int:
        return self._store.add(self._key(key), amount)

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        return self._store.compare_set(self._key(key), expected_value, desired_value)

    def check(self, keys: list[str]) -> bool:
        return self._store.check([self._key(k) for k in keys])

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        self._store.wait([self._key(k) for k in keys], timeout)

    def delete_key(self, key: str) -> bool:
        return self._store.delete_key(self._key(key))

    def num_keys(self) -> int:
        return self._store.num_keys()

    def append(self, key: str, value: str | bytes) -> None:
        self._store.append(self._key(key), value)
