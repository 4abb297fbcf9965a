"""``FileStore``: a key-value store in a file that several processes share (PyTorch's
``torch.distributed.FileStore``, and the store of ``init_method="file:///path"``).

The file is a log of records, appended under an exclusive ``flock``: ``set`` (key, value)
and ``delete`` (key). Each store object replays the log from where it last stopped into a
dictionary, so an operation reads only what other processes appended since. A blocking
``get`` polls the file (1 ms, backing off to 50 ms). The processes must see one file system
with working ``flock`` (a local disk, or NFS with locking).

As PyTorch's, each of the ``world_size`` users counts itself in when made and out when freed,
and the last one out removes the file; with ``world_size=-1`` the file stays. A file left by
an earlier job must be removed before the next one uses it.
"""

from __future__ import annotations

import os
import struct
import threading
import weakref
from datetime import timedelta
from typing import Any

from ._errors import DistStoreError
from ._stores import Store, as_bytes, poll

try:
    import fcntl
except ImportError:  # Windows: no flock
    fcntl = None  # type: ignore[assignment]

__all__ = ["FileStore"]

_SET, _DELETE = 1, 2
_HEADER = struct.Struct("!BII")  # op, key length, value length
# Internal keys start with a NUL, which the keys of a program do not (num_keys skips them).
_USERS, _FINISHED = "\x00users", "\x00finished"


class _Log:
    """The file's records replayed into ``data``; every method locks the file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.data: dict[str, bytes] = {}
        self.offset = 0
        self.inode = -1
        self.lock = threading.Lock()  # (flock does not exclude the threads of one process)

    def _replay(self, f: Any) -> None:
        inode = os.fstat(f.fileno()).st_ino
        if inode != self.inode:  # a new file at the path: start again
            self.data, self.offset, self.inode = {}, 0, inode
        f.seek(self.offset)
        buf = f.read()
        pos = 0
        while pos + _HEADER.size <= len(buf):
            op, klen, vlen = _HEADER.unpack_from(buf, pos)
            end = pos + _HEADER.size + klen + vlen
            if end > len(buf):  # (a record being written: the writer holds the lock)
                break
            key = buf[pos + _HEADER.size : pos + _HEADER.size + klen].decode()
            if op == _SET:
                self.data[key] = buf[end - vlen : end]
            else:
                self.data.pop(key, None)
            pos = end
        self.offset += pos

    def read(self) -> dict[str, bytes]:
        """The data, brought up to date."""
        with self.lock, open(self.path, "a+b") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH)
            self._replay(f)
            return self.data

    def update(self, change: Any) -> Any:
        """Run ``change(data)`` under the exclusive lock, after bringing ``data`` up to
        date; it returns ``(records, result)``, the records, ``(op, key, value)``, are
        appended, and ``result`` returned."""
        with self.lock, open(self.path, "a+b") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            self._replay(f)
            records, result = change(self.data)
            if records:
                f.write(b"".join(_HEADER.pack(op, len(k.encode()), len(v)) + k.encode() + v
                                 for op, k, v in records))  # fmt: skip
                f.flush()
                self._replay(f)
            return result


def _add(log: _Log, key: str, amount: int) -> int:
    def change(data: dict[str, bytes]) -> tuple[list[Any], int]:
        text = data.get(key, b"0")
        try:
            value = int(text) + amount
        except ValueError:
            raise ValueError(
                f"add(): the value of key {key!r} is not an integer: {text!r}"
            ) from None
        return [(_SET, key, str(value).encode())], value

    return int(log.update(change))


def _leave(log: _Log, world_size: int) -> None:
    """Count one user out; the last of ``world_size`` removes the file (best effort). Both
    counts move in one locked update: two users leaving at once could otherwise each read
    the other's half (one the finished count short, the other the users not yet at 0), and
    neither would remove the file."""

    def change(data: dict[str, bytes]) -> tuple[list[Any], bool]:
        finished = int(data.get(_FINISHED, b"0")) + 1
        users = int(data.get(_USERS, b"0")) - 1
        records = [(_SET, _FINISHED, str(finished).encode()), (_SET, _USERS, str(users).encode())]
        return records, users == 0 and world_size >= 0 and finished >= world_size

    try:
        if log.update(change):
            os.remove(log.path)
    except (OSError, ValueError):
        pass


class FileStore(Store):
    """A key-value store in the file ``file_name``, shared by the processes that open it
    (PyTorch's ``torch.distributed.FileStore``); ``world_size`` users are expected (the
    last one to be freed removes the file; -1: any number, and the file stays).

    Keys are strings, values bytes (a ``str`` stored UTF-8 encoded); :meth:`get` and
    :meth:`wait` block until the key is set, at most :attr:`timeout` (5 minutes by default),
    then raise :class:`DistStoreError`. ``init_method="file:///path"`` makes one for
    ``init_process_group``.

    Examples
    --------
    >>> import os, tempfile
    >>> from datetime import timedelta
    >>> import tensorcore.distributed as dist
    >>> path = os.path.join(tempfile.mkdtemp(), "store")
    >>> store = dist.FileStore(path, 1)
    >>> store.set("addr", "10.0.0.1")
    >>> dist.FileStore(path, -1).get("addr")  # another process would see it as well
    b'10.0.0.1'
    >>> store.add("count", 2), store.compare_set("addr", "10.0.0.1", "10.0.0.2")
    (2, b'10.0.0.2')
    >>> store.set_timeout(timedelta(milliseconds=20))
    >>> store.get("missing")
    Traceback (most recent call last):
    ...
    tensorcore.distributed._errors.DistStoreError: Timeout waiting for key: missing after 20 ms
    """

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        if fcntl is None:
            raise RuntimeError("FileStore needs fcntl.flock, which this platform lacks")
        if not isinstance(file_name, (str, os.PathLike)):
            raise TypeError(f"FileStore(): file_name must be a str, not {type(file_name).__name__}")
        super().__init__()
        self.path = os.fspath(file_name)
        self.world_size = int(world_size)
        self._log = _Log(self.path)
        _add(self._log, _USERS, 1)
        weakref.finalize(self, _leave, self._log, self.world_size)

    def set(self, key: str, value: str | bytes) -> None:
        data = as_bytes(value)
        self._log.update(lambda _: ([(_SET, key, data)], None))

    def _has(self, keys: list[str]) -> bool:
        data = self._log.read()
        return all(k in data for k in keys)

    def get(self, key: str) -> bytes:
        found: list[bytes] = []

        def ready() -> bool:
            value = self._log.read().get(key)
            if value is not None:
                found.append(value)
            return value is not None

        if not poll(ready, self.timeout.total_seconds()):
            ms = self.timeout.total_seconds() * 1000
            raise DistStoreError(f"Timeout waiting for key: {key} after {ms:g} ms")
        return found[0]

    def add(self, key: str, amount: int) -> int:
        return _add(self._log, key, int(amount))

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        expected, desired = as_bytes(expected_value), as_bytes(desired_value)

        def change(data: dict[str, bytes]) -> tuple[list[Any], bytes]:
            current = data.get(key)
            if current is None and expected:
                return [], expected
            if current is None or current == expected:
                return [(_SET, key, desired)], desired
            return [], current

        return bytes(self._log.update(change))

    def check(self, keys: list[str]) -> bool:
        return self._has(list(keys))

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        keys = list(keys)
        if not poll(lambda: self._has(keys), (timeout or self.timeout).total_seconds()):
            raise DistStoreError("Wait timeout")

    def delete_key(self, key: str) -> bool:
        def change(data: dict[str, bytes]) -> tuple[list[Any], bool]:
            return ([(_DELETE, key, b"")], True) if key in data else ([], False)

        return bool(self._log.update(change))

    def num_keys(self) -> int:
        return sum(1 for k in self._log.read() if not k.startswith("\x00"))
