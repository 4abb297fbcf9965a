"""A key-value store over TCP for rendezvous: :class:`TCPStore` and :func:`rendezvous`.

Engines that wire their ranks up themselves (NCCL) need a small amount of data, such as a
communicator's unique id, sent from one rank to the others before they can talk. As in
PyTorch, rank 0 runs the store (a server thread) at ``MASTER_ADDR:MASTER_PORT``
(``init_method="env://"``) or at the address of ``init_method="tcp://host:port"``, and every
rank connects to it. MPI needs none of this: its launcher wires the ranks.

The protocol is this module's own, small and binary (no pickling: a peer's bytes are data,
never code). It is not authenticated: run it on a trusted network, as PyTorch's.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlparse, urlunparse

from ._errors import DistError, DistNetworkError, DistStoreError
from ._file_store import FileStore
from ._stores import Store, as_bytes

__all__ = ["DistStoreError", "FileStore", "Store", "TCPStore", "rendezvous"]

_SET, _GET, _ADD, _CHECK, _DELETE, _NUM_KEYS, _COMPARE_SET = range(1, 8)
_OK, _TIMEOUT = 0, 1
_WORKERS = "__tensorcore_workers__"


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the store's peer closed the connection")
        buf += chunk
    return bytes(buf)


def _send_request(sock: socket.socket, op: int, args: list[bytes]) -> None:
    parts = [struct.pack("!BI", op, len(args))]
    for a in args:
        parts += [struct.pack("!I", len(a)), a]
    sock.sendall(b"".join(parts))


def _recv_request(sock: socket.socket) -> tuple[int, list[bytes]]:
    op, n = struct.unpack("!BI", _recv_exact(sock, 5))
    args = []
    for _ in range(n):
        (size,) = struct.unpack("!I", _recv_exact(sock, 4))
        args.append(_recv_exact(sock, size))
    return op, args


def _send_reply(sock: socket.socket, status: int, value: bytes) -> None:
    sock.sendall(struct.pack("!BQ", status, len(value)) + value)


def _recv_reply(sock: socket.socket) -> tuple[int, bytes]:
    status, size = struct.unpack("!BQ", _recv_exact(sock, 9))
    return status, _recv_exact(sock, size)


class _Server:
    """The store's data and a thread per client, in the master's process."""

    def __init__(self, port: int) -> None:
        if socket.has_dualstack_ipv6():
            self.sock = socket.create_server(("", port), family=socket.AF_INET6,
                                             dualstack_ipv6=True)  # fmt: skip
        else:
            self.sock = socket.create_server(("", port))
        self.port = int(self.sock.getsockname()[1])
        self.data: dict[bytes, bytes] = {}
        self.cond = threading.Condition()
        self.clients: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True, name="TCPStore").start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed
                return
            self.clients.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            while True:
                op, args = _recv_request(conn)
                status, value = self._handle(op, args)
                _send_reply(conn, status, value)
        except (ConnectionError, OSError, struct.error):
            conn.close()

    def _handle(self, op: int, args: list[bytes]) -> tuple[int, bytes]:
        data, cond = self.data, self.cond
        with cond:
            if op == _SET:
                data[args[0]] = args[1]
                cond.notify_all()
                return _OK, b""
            if op == _GET:
                key, seconds = args[0], float(args[1])
                if not cond.wait_for(lambda: key in data, timeout=seconds):
                    return _TIMEOUT, b""
                return _OK, data[key]
            if op == _ADD:
                value = int(data.get(args[0], b"0")) + int(args[1])
                data[args[0]] = str(value).encode()
                cond.notify_all()
                return _OK, data[args[0]]
            if op == _CHECK:
                return _OK, b"1" if all(k in data for k in args) else b"0"
            if op == _DELETE:
                return _OK, b"1" if data.pop(args[0], None) is not None else b"0"
            if op == _COMPARE_SET:
                key, expected, desired = args
                current = data.get(key)
                if current is None and expected:
                    return _OK, expected
                if current is None or current == expected:
                    data[key] = desired
                    cond.notify_all()
                    return _OK, desired
                return _OK, current
            return _OK, str(len(data)).encode()  # _NUM_KEYS

    def close(self) -> None:
        self.sock.close()
        for c in self.clients:
            c.close()


class TCPStore(Store):
    """A key-value store over TCP (PyTorch's ``torch.distributed.TCPStore``).

    The master (``is_master=True``, rank 0 in a rendezvous) runs the server on ``port``
    (0: any free port; :attr:`port` says which) on every interface; every process,
    the master included, is a client of it. Keys are strings, values bytes (a ``str`` value
    is stored UTF-8 encoded). :meth:`get` and :meth:`wait` block until the key is set, for
    at most ``timeout``.

    Parameters
    ----------
    host_name, port
        Where the master listens.
    world_size
        How many clients will connect; with ``wait_for_workers`` the master's constructor
        waits for all of them (raising :class:`DistStoreError` after ``timeout``).
    is_master
        Run the server in this process.
    timeout
        How long to wait for the server to come up, for keys and for workers.

    Examples
    --------
    >>> from tensorcore.distributed import TCPStore
    >>> store = TCPStore("127.0.0.1", 0, world_size=1, is_master=True)
    >>> store.set("id", b"\\x01\\x02")
    >>> store.get("id"), store.add("count", 2), store.add("count", 3)
    (b'\\x01\\x02', 2, 5)
    >>> store.check(["id", "missing"])
    False
    >>> store.close()
    """

    def __init__(
        self,
        host_name: str,
        port: int,
        world_size: int | None = None,
        is_master: bool = False,
        timeout: timedelta = timedelta(seconds=300),
        wait_for_workers: bool = True,
    ) -> None:
        if not 0 <= int(port) <= 65535:
            raise ValueError(f"TCPStore(): port must have value from 0 to 65535, got {port}")
        super().__init__(timeout)
        self.host = host_name
        self._server = _Server(int(port)) if is_master else None
        self.port = self._server.port if self._server is not None else int(port)
        self._lock = threading.Lock()
        try:
            self._sock = self._connect()
            if world_size is not None and wait_for_workers:
                self.add(_WORKERS, 1)
                if is_master:
                    self._wait_for_workers(world_size)
        except DistError:
            if hasattr(self, "_sock"):
                self._sock.close()
            if self._server is not None:
                self._server.close()
            raise

    def _connect(self) -> socket.socket:
        deadline = time.monotonic() + self.timeout.total_seconds()
        host = "127.0.0.1" if self._server is not None else self.host
        delay = 0.01
        while True:
            try:
                sock = socket.create_connection((host, self.port), timeout=10)
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError as exc:
                if time.monotonic() > deadline:
                    raise DistNetworkError(
                        f"TCPStore: the client socket has timed out after "
                        f"{self.timeout.total_seconds():g}s while trying to connect to "
                        f"({self.host}, {self.port}) ({exc}); is rank 0 running, and "
                        "MASTER_ADDR/MASTER_PORT (or the tcp:// address) its address?"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def _wait_for_workers(self, world_size: int) -> None:
        deadline = time.monotonic() + self.timeout.total_seconds()
        while (joined := self.add(_WORKERS, 0)) < world_size:
            if time.monotonic() > deadline:
                raise DistStoreError(
                    f"Timed out after {self.timeout.total_seconds():g} seconds waiting for "
                    f"clients. {joined}/{world_size} clients joined."
                )
            time.sleep(0.01)

    def _call(self, op: int, *args: bytes) -> tuple[int, bytes]:
        with self._lock:
            try:
                _send_request(self._sock, op, list(args))
                return _recv_reply(self._sock)
            except (ConnectionError, OSError) as exc:
                raise DistNetworkError(
                    f"TCPStore: lost the connection to ({self.host}, {self.port}): {exc}"
                ) from None

    def set(self, key: str, value: str | bytes) -> None:
        """Set ``key`` to ``value``, waking the ranks waiting for it."""
        self._call(_SET, key.encode(), as_bytes(value))

    def get(self, key: str) -> bytes:
        """The value of ``key``, once some rank has set it (at most :attr:`timeout`)."""
        seconds = self.timeout.total_seconds()
        status, value = self._call(_GET, key.encode(), repr(seconds).encode())
        if status == _TIMEOUT:
            raise DistStoreError(f"wait timeout after {seconds * 1000:g}ms, keys: /{key}")
        return value

    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the integer at ``key`` (0 when unset); return the new value."""
        return int(self._call(_ADD, key.encode(), str(int(amount)).encode())[1])

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is unset and
        ``expected_value`` is empty), atomically; the value ``key`` has afterwards
        (``expected_value`` when it is unset and was left so)."""
        args = (key.encode(), as_bytes(expected_value), as_bytes(desired_value))
        return self._call(_COMPARE_SET, *args)[1]

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Block until every key of ``keys`` is set (at most ``timeout``, default
        :attr:`timeout`)."""
        seconds = (timeout or self.timeout).total_seconds()
        for key in keys:
            status, _ = self._call(_GET, key.encode(), repr(seconds).encode())
            if status == _TIMEOUT:
                listed = ", ".join("/" + k for k in keys)
                raise DistStoreError(f"wait timeout after {seconds * 1000:g}ms, keys: {listed}")

    def check(self, keys: list[str]) -> bool:
        """Whether every key of ``keys`` is set (without waiting)."""
        return self._call(_CHECK, *(k.encode() for k in keys))[1] == b"1"

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; whether it was there."""
        return self._call(_DELETE, key.encode())[1] == b"1"

    def num_keys(self) -> int:
        """How many keys the store holds."""
        return int(self._call(_NUM_KEYS)[1])

    def close(self) -> None:
        """Disconnect, and stop the server when this is the master (tensorcore's addition:
        PyTorch's store stops when it is freed)."""
        self._sock.close()
        if self._server is not None:
            self._server.close()


def _rendezvous_error(msg: str) -> ValueError:
    return ValueError("Error initializing tensorcore.distributed using " + msg)


def rendezvous(
    url: str, rank: int = -1, world_size: int = -1, timeout: timedelta = timedelta(minutes=30)
) -> Iterator[tuple[Store, int, int]]:
    """The store, rank and world size of an ``init_method`` URL (PyTorch's
    ``torch.distributed.rendezvous``): an iterator yielding ``(store, rank, world_size)``.

    * ``tcp://host:port``: rank 0 serves the store at ``port`` there; ``rank`` and
      ``world_size`` are the arguments (or ``?rank=..&world_size=..`` in the URL).
    * ``env://``: the address is ``MASTER_ADDR``/``MASTER_PORT``; ``rank`` and
      ``world_size`` are the arguments, or ``RANK`` and ``WORLD_SIZE``.
    * ``file:///path``: a :class:`FileStore` in the file at ``path``, which every rank
      must see; ``rank`` and ``world_size`` as for ``tcp://``.

    Raises ``ValueError`` naming what is missing.

    Examples
    --------
    >>> from tensorcore.distributed import rendezvous
    >>> store, rank, size = next(rendezvous("tcp://127.0.0.1:0", rank=0, world_size=1))
    >>> rank, size, store.port > 0
    (0, 1, True)
    >>> store.close()
    """
    parts = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if rank != -1:
        query["rank"] = str(rank)
    if world_size != -1:
        query["world_size"] = str(world_size)
    parts = parts._replace(query=urlencode(query))
    if parts.scheme == "tcp":
        yield _tcp(urlunparse(parts), query, timeout)
    elif parts.scheme == "env":
        yield _env(query, timeout)
    elif parts.scheme == "file":
        yield _file(parts.path, query, timeout)
    else:
        raise _rendezvous_error(
            f"{url!r}: no rendezvous handler for {parts.scheme}:// (tcp://, env:// and "
            "file:// are known)"
        )


def master_address(init_method: str | None, hint: str = "") -> tuple[str, int]:
    """Rank 0's address for ``init_method``: the host and port of ``tcp://host:port``, or
    ``MASTER_ADDR`` and ``MASTER_PORT`` for ``env://`` and None; a ``ValueError`` naming what
    is missing (``hint`` added to a missing variable's message)."""
    if init_method not in (None, "env://"):
        parts = urlparse(init_method)
        if parts.scheme != "tcp":
            raise _rendezvous_error(
                f"{init_method!r}: no rendezvous handler for {parts.scheme}:// here (tcp:// "
                "and env:// give an address)"
            )
        if parts.port is None:
            raise _rendezvous_error("tcp:// rendezvous: port number missing")
        return parts.hostname or "127.0.0.1", parts.port
    host, port = _env_var("MASTER_ADDR", hint), _env_var("MASTER_PORT", hint)
    try:
        return host, int(port)
    except ValueError:
        raise _rendezvous_error(
            f"env:// rendezvous: MASTER_PORT must be a port number, got {port!r}"
        ) from None


def _env_var(var: str, hint: str = "") -> str:
    if var not in os.environ:
        raise _rendezvous_error(
            f"env:// rendezvous: environment variable {var} expected, but not set{hint}"
        )
    return os.environ[var]


def _tcp(url: str, query: dict[str, str], timeout: timedelta) -> tuple[TCPStore, int, int]:
    def error(msg: str) -> ValueError:
        return _rendezvous_error("tcp:// rendezvous: " + msg)

    host, port = master_address(url)
    if "rank" not in query:
        raise error("rank parameter missing")
    if "world_size" not in query:
        raise error("world size parameter missing")
    rank, world_size = int(query["rank"]), int(query["world_size"])
    store = TCPStore(host, port, world_size, rank == 0, timeout)
    return store, rank, world_size


def _file(path: str, query: dict[str, str], timeout: timedelta) -> tuple[Store, int, int]:
    def error(msg: str) -> ValueError:
        return _rendezvous_error("file:// rendezvous: " + msg)

    if not path:
        raise error("path missing")
    if "rank" not in query:
        raise error("rank parameter missing")
    if "world_size" not in query:
        raise error("world size parameter missing")
    rank, world_size = int(query["rank"]), int(query["world_size"])
    store = FileStore(path, world_size)
    store.set_timeout(timeout)
    return store, rank, world_size


def _env(query: dict[str, str], timeout: timedelta) -> tuple[TCPStore, int, int]:
    rank = int(query["rank"]) if "rank" in query else int(_env_var("RANK"))
    world_size = int(query["world_size"]) if "world_size" in query else int(_env_var("WORLD_SIZE"))
    host, port = master_address("env://")
    store = TCPStore(host, port, world_size, rank == 0, timeout)
    return store, rank, world_size
