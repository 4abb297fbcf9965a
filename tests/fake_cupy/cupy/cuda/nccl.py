"""The fake ``cupy.cuda.nccl``: CuPy's NCCL API over host memory and local sockets.

Names, constants and signatures are CuPy's (``cupy_backends/cuda/libs/nccl.pyx``): pointers
are ints, ``stream`` is a stream's ``ptr``. An operation is queued on that stream (the fake
``cupy.cuda.Stream``) and runs on the stream's thread: it reads the send buffer then, sends
it to the hub, and writes what comes back into the receive buffer, as NCCL's kernel would.

The hub is a thread of the process that called :func:`get_unique_id` (rank 0): the unique id
carries its port, and every rank's communicator connects to it. It matches the ranks'
collectives by their order, reduces with NumPy, and passes point-to-point messages through
mailboxes; a send completes when its receiver has taken the message (NCCL's sends do not
buffer), so sends and receives that deadlock on GPUs deadlock here. ``FAKE_NCCL_VERSION``
(default 21803, NCCL 2.18.3) sets what :func:`get_version` reports: below 21000 (2.10)
``NCCL_AVG`` is rejected, as NCCL rejects it.

Like CuPy's on x86, :func:`get_unique_id` returns 128 *signed* chars, some negative, and
:class:`NcclCommunicator` accepts nothing else, so an id that travelled badly fails here.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import pickle
import secrets
import socket
import struct
import threading
from collections import defaultdict, deque
from typing import Any

import numpy as np

from . import Stream

#: ``FAKE_NCCL_AVAILABLE=0``: as CuPy without an NCCL library.
available = os.environ.get("FAKE_NCCL_AVAILABLE", "1") == "1"
if os.environ.get("FAKE_NCCL_IMPORT_ERROR"):
    raise ImportError(os.environ["FAKE_NCCL_IMPORT_ERROR"])

NCCL_SUM, NCCL_PROD, NCCL_MAX, NCCL_MIN, NCCL_AVG = 0, 1, 2, 3, 4
NCCL_INT8 = NCCL_CHAR = 0
NCCL_UINT8 = 1
NCCL_INT32 = NCCL_INT = 2
NCCL_UINT32 = 3
NCCL_INT64 = 4
NCCL_UINT64 = 5
NCCL_FLOAT16 = NCCL_HALF = 6
NCCL_FLOAT32 = NCCL_FLOAT = 7
NCCL_FLOAT64 = NCCL_DOUBLE = 8
NCCL_BFLOAT16 = 9

_DTYPES = {
    NCCL_INT8: np.int8, NCCL_UINT8: np.uint8, NCCL_INT32: np.int32, NCCL_UINT32: np.uint32,
    NCCL_INT64: np.int64, NCCL_UINT64: np.uint64, NCCL_FLOAT16: np.float16,
    NCCL_FLOAT32: np.float32, NCCL_FLOAT64: np.float64,
}  # fmt: skip
_REDUCE = {NCCL_SUM: np.add, NCCL_PROD: np.multiply, NCCL_MAX: np.maximum,
           NCCL_MIN: np.minimum, NCCL_AVG: np.add}  # fmt: skip
#: Every call the fake has seen in this process, (name, datatype, op): the tests read it to
#: check which NCCL operations the backend chose.
calls: list[tuple[str, int | None, int | None]] = []


class NcclError(RuntimeError):
    """CuPy's error of a failed NCCL call."""

    def __init__(self, status: int, msg: str = "") -> None:
        self.status = status
        names = {2: "NCCL_ERROR_SYSTEM_ERROR", 4: "NCCL_ERROR_INVALID_ARGUMENT",
                 5: "NCCL_ERROR_INVALID_USAGE"}  # fmt: skip
        super().__init__(f"{names.get(status, status)}: {msg}")


def get_version() -> int:
    """``FAKE_NCCL_VERSION`` (default 21803)."""
    return int(os.environ.get("FAKE_NCCL_VERSION", "21803"))


def get_build_version() -> int:
    """As :func:`get_version`."""
    return get_version()


# ------------------------------------------------------------------ wire
def _send_msg(sock: socket.socket, obj: Any) -> None:
    data = pickle.dumps(obj)
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the peer closed the connection")
        buf += chunk
    return bytes(buf)


def _recv_msg(sock: socket.socket) -> Any:
    (n,) = struct.unpack("!Q", _recv_exact(sock, 8))
    return pickle.loads(_recv_exact(sock, n))


# ------------------------------------------------------------------ hub
class _Hub:
    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.cond = threading.Condition()
        self.joined: dict[int, tuple[str, int]] = {}  # rank -> (host, device)
        self.gone: set[int] = set()  # ranks whose connection closed without destroy()
        self.ndev = 0
        self.pending: dict[int, dict[int, Any]] = defaultdict(dict)
        self.results: dict[int, dict[int, bytes]] = {}
        self.mail: dict[tuple[int, int], deque[_Letter]] = defaultdict(deque)
        self.replying = 0  # results taken by a rank's thread, not yet sent to the rank
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            conn, _ = self.server.accept()
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        rank = -1
        try:
            while True:
                msg = _recv_msg(conn)
                if msg[0] == "init":
                    rank = msg[1]
                    reply = self._init(rank, msg[2], msg[3])
                    try:
                        _send_msg(conn, reply)
                    finally:
                        with self.cond:
                            self.replying -= 1
                            self.cond.notify_all()
                elif msg[0] == "coll":
                    reply, taken = self._collective(rank, *msg[1:])
                    try:
                        _send_msg(conn, reply)
                    finally:
                        if taken:
                            with self.cond:
                                self.replying -= 1
                                self.cond.notify_all()
                elif msg[0] == "p2p":
                    _send_msg(conn, self._p2p(rank, msg[1]))
                else:  # "bye"
                    return
        except (ConnectionError, OSError):
            # A peer that died or aborted: the others' operations with it fail, as NCCL
            # reports a remote error (they would hang otherwise).
            with self.cond:
                self.gone.add(rank)
                self.cond.notify_all()
        finally:
            conn.close()

    def _init(self, rank: int, ndev: int, where: tuple[str, int]) -> Any:
        with self.cond:
            self.ndev = ndev
            self.joined[rank] = where
            # (counted from the join: a rank that ends at once on the reply, the hub's host
            # refused as a duplicate, must not exit before the others have theirs)
            self.replying += 1
            self.cond.notify_all()
            self.cond.wait_for(lambda: len(self.joined) == ndev)
            if len(set(self.joined.values())) < ndev:
                return ("error", f"Duplicate GPU detected: {sorted(self.joined.items())}")
        return ("ok",)

    def _gone(self) -> Any:
        return ("error", f"remote process exited or aborted: ranks {sorted(self.gone)}")

    def _collective(self, rank: int, seq: int, kind: str, args: tuple[Any, ...],
                    payload: bytes) -> tuple[Any, bool]:  # fmt: skip
        with self.cond:
            self.pending[seq][rank] = (kind, args, payload)
            if len(self.pending[seq]) == self.ndev:
                self.results[seq] = self._compute(self.pending.pop(seq))
                self.cond.notify_all()
            self.cond.wait_for(lambda: seq in self.results or bool(self.gone))
            if seq not in self.results:
                return self._gone(), False
            out = self.results[seq].pop(rank)
            self.replying += 1
            if not self.results[seq]:
                del self.results[seq]
        return out, True

    def drain(self, timeout: float = 10.0) -> None:
        """Before this process exits (it hosts the hub): let every rank collect the results
        of the collectives that completed, as real NCCL's ranks all finish one together (the
        hub's threads die with the process, and a rank still reading its reply would see the
        connection close)."""
        with self.cond:
            self.cond.wait_for(
                lambda: not self.replying and not any(self.results.values()), timeout
            )

    def _compute(self, calls: dict[int, Any]) -> dict[int, Any]:
        kinds = {(kind, args) for kind, args, _ in calls.values()}
        if len(kinds) != 1:
            err = ("error", f"ranks called different collectives: {sorted(map(str, kinds))}")
            return dict.fromkeys(calls, err)
        kind, args = kinds.pop()
        n = self.ndev
        dt = _DTYPES[args[0]]
        data = [np.frombuffer(calls[r][2], dt) for r in range(n)]
        if kind in ("allreduce", "reduce", "reducescatter"):
            op = args[1]
            total = data[0].copy()
            for d in data[1:]:
                total = _REDUCE[op](total, d).astype(dt)
            if op == NCCL_AVG:
                total = (total / n if total.dtype.kind == "f" else total // n).astype(dt)
            if kind == "allreduce":
                return {r: ("ok", total.tobytes()) for r in range(n)}
            if kind == "reduce":
                root = args[2]
                return {r: ("ok", total.tobytes() if r == root else b"") for r in range(n)}
            parts = np.split(total, n)
            return {r: ("ok", parts[r].tobytes()) for r in range(n)}
        if kind == "broadcast":
            return {r: ("ok", data[args[1]].tobytes()) for r in range(n)}
        if kind == "allgather":
            whole = np.concatenate(data).tobytes()
            return dict.fromkeys(range(n), ("ok", whole))
        raise AssertionError(kind)

    def _p2p(self, rank: int, ops: list[tuple[str, int, Any]]) -> Any:
        """One rank's point-to-point calls launched together (one call, or an NCCL group):
        its sends are posted, its receives wait for their messages, and then its sends wait
        until their receivers have taken them. NCCL's sends block so (they do not buffer), so
        two ranks that each send to the other outside one group wait for each other forever,
        as they would on GPUs; inside one group, the receives are posted with the sends."""
        with self.cond:
            posted = []
            for kind, peer, payload in ops:
                if kind == "send":
                    letter = _Letter(payload)
                    self.mail[(rank, peer)].append(letter)
                    posted.append((peer, letter))
            self.cond.notify_all()
            out = []
            for kind, peer, nbytes in ops:
                if kind == "recv":
                    box = self.mail[(peer, rank)]
                    self.cond.wait_for(lambda box=box, peer=peer: bool(box) or peer in self.gone)
                    if not box:
                        return self._gone()
                    letter = box.popleft()
                    letter.taken = True
                    self.cond.notify_all()
                    if len(letter.data) != nbytes:
                        return (
                            "error",
                            f"recv of {nbytes} bytes got a message of {len(letter.data)}",
                        )
                    out.append(letter.data)
            for peer, letter in posted:
                self.cond.wait_for(lambda lt=letter, peer=peer: lt.taken or peer in self.gone)
                if not letter.taken:
                    return self._gone()
        return ("ok", out)


class _Letter:
    """A message posted by a send, until its receiver takes it."""

    def __init__(self, data: bytes) -> None:
        self.data, self.taken = data, False


_hubs: list[_Hub] = []


def get_unique_id() -> tuple[int, ...]:
    """A new communicator's id: it starts the hub here, and names its port."""
    hub = _Hub()
    _hubs.append(hub)
    atexit.register(hub.drain)
    raw = b"FAKENCCL" + struct.pack("!H", hub.port) + b"\xff" + secrets.token_bytes(16)
    raw = raw.ljust(128, b"\x00")
    return tuple(b - 256 if b > 127 else b for b in raw)  # signed chars, as on x86


# ------------------------------------------------------------------ groups
_local = threading.local()


def _group() -> list[Any] | None:
    return getattr(_local, "ops", None)


def groupStart() -> None:
    """Start collecting point-to-point calls; :func:`groupEnd` launches them together."""
    if getattr(_local, "depth", 0) == 0:
        _local.ops = []
    _local.depth = getattr(_local, "depth", 0) + 1


def groupEnd() -> None:
    """Launch the calls collected since the outermost :func:`groupStart`."""
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        raise NcclError(5, "groupEnd without groupStart")
    _local.depth = depth - 1
    if _local.depth == 0:
        ops, _local.ops = _local.ops, None
        if ops:
            comm, stream = ops[0][0], ops[0][1]
            comm._launch_p2p([op[2] for op in ops], stream)


# ------------------------------------------------------------------ communicator
def _nbytes(count: int, datatype: int) -> int:
    if datatype not in _DTYPES:
        raise NcclError(4, f"invalid datatype {datatype}")
    return int(count) * np.dtype(_DTYPES[datatype]).itemsize


def _read(ptr: int, nbytes: int) -> bytes:
    return ctypes.string_at(ptr, nbytes) if nbytes else b""


def _write(ptr: int, data: bytes) -> None:
    if data:
        ctypes.memmove(ptr, data, len(data))


class NcclCommunicator:
    """One rank of a communicator (``NcclCommunicator(ndev, commId, rank)``)."""

    def __init__(self, ndev: int, commId: tuple[int, ...], rank: int) -> None:
        if not isinstance(commId, tuple) or len(commId) != 128:
            raise AssertionError("commId must be a tuple of 128 chars")
        if not all(isinstance(c, int) and -128 <= c <= 127 for c in commId):
            raise OverflowError("value too large to convert to char")
        raw = bytes(c & 0xFF for c in commId)
        if raw[:8] != b"FAKENCCL":
            raise NcclError(4, "not a unique id of get_unique_id()")
        if not 0 <= rank < ndev:
            raise NcclError(4, f"rank {rank} of {ndev}")
        (port,) = struct.unpack("!H", raw[8:10])
        self._rank, self._ndev, self._seq = rank, ndev, 0
        self._device = _current_device()
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self._sock: socket.socket | None = socket.create_connection(("127.0.0.1", port))
        # Blocks until every rank joined, as NCCL does; NCCL refuses two ranks on one GPU.
        self._request(("init", rank, ndev, (socket.gethostname(), self._device)))
        calls.append(("init", None, None))

    # -------------------------------------------------------------- plumbing
    def _request(self, msg: Any) -> Any:
        with self._lock:
            if self._sock is None:
                raise NcclError(5, "the communicator was destroyed or aborted")
            _send_msg(self._sock, msg)
            reply = _recv_msg(self._sock)
        if reply[0] == "error":
            raise NcclError(5, reply[1])
        return reply[1] if len(reply) > 1 else None

    def _enqueue(self, stream: int, fn: Any) -> None:
        def run() -> None:
            if self._error is not None:
                return
            try:
                fn()
            except BaseException as exc:  # reported by check_async_error
                self._error = exc
                raise

        Stream._live[int(stream)].enqueue(run)

    def _collective(self, kind: str, args: tuple[Any, ...], send: int, nbytes: int,
                    recv: int, stream: int) -> None:  # fmt: skip
        seq = self._seq
        self._seq += 1

        def run() -> None:
            _write(recv, self._request(("coll", seq, kind, args, _read(send, nbytes))))

        self._enqueue(stream, run)

    def _launch_p2p(self, ops: list[tuple[str, int, int, int]], stream: int) -> None:
        def run() -> None:
            wire = [(k, peer, _read(ptr, n) if k == "send" else n) for k, peer, ptr, n in ops]
            got = iter(self._request(("p2p", wire)))
            for k, _peer, ptr, _n in ops:
                if k == "recv":
                    _write(ptr, next(got))

        self._enqueue(stream, run)

    def _p2p(self, kind: str, buf: int, count: int, datatype: int, peer: int,
             stream: int) -> None:  # fmt: skip
        calls.append((kind, datatype, None))
        if not 0 <= peer < self._ndev or peer == self._rank:
            raise NcclError(4, f"invalid peer {peer}")
        op = (kind, peer, int(buf), _nbytes(count, datatype))
        group = _group()
        if group is not None:
            group.append((self, stream, op))
        else:
            self._launch_p2p([op], stream)

    def _check_op(self, op: int) -> None:
        if op not in _REDUCE or (op == NCCL_AVG and get_version() < 21000):
            raise NcclError(4, f"invalid reduction operation {op}")

    def _check_device(self) -> None:
        if _current_device() != self._device:
            raise NcclError(5, "called with another device current than at init")

    # -------------------------------------------------------------- CuPy's API
    def rank_id(self) -> int:
        """This rank."""
        return self._rank

    def size(self) -> int:
        """The number of ranks."""
        return self._ndev

    def device_id(self) -> int:
        """The device that was current at init."""
        return self._device

    def allReduce(self, sendbuf: int, recvbuf: int, count: int, datatype: int, op: int,
                  stream: int) -> None:  # fmt: skip
        """Reduce ``count`` elements of every rank's ``sendbuf`` into every ``recvbuf``."""
        calls.append(("allReduce", datatype, op))
        self._check_op(op)
        self._check_device()
        n = _nbytes(count, datatype)
        self._collective("allreduce", (datatype, op), sendbuf, n, recvbuf, stream)

    def reduce(self, sendbuf: int, recvbuf: int, count: int, datatype: int, op: int,
               root: int, stream: int) -> None:  # fmt: skip
        """Reduce into rank ``root``'s ``recvbuf``."""
        calls.append(("reduce", datatype, op))
        self._check_op(op)
        n = _nbytes(count, datatype)
        self._collective("reduce", (datatype, op, root), sendbuf, n, recvbuf, stream)

    def broadcast(self, sendbuff: int, recvbuff: int, count: int, datatype: int, root: int,
                  stream: int) -> None:  # fmt: skip
        """Copy rank ``root``'s ``sendbuff`` into every ``recvbuff``."""
        calls.append(("broadcast", datatype, None))
        n = _nbytes(count, datatype)
        self._collective("broadcast", (datatype, root), sendbuff, n, recvbuff, stream)

    def bcast(self, buff: int, count: int, datatype: int, root: int, stream: int) -> None:
        """In-place :meth:`broadcast`."""
        self.broadcast(buff, buff, count, datatype, root, stream)

    def allGather(self, sendbuf: int, recvbuf: int, count: int, datatype: int,
                  stream: int) -> None:  # fmt: skip
        """Every rank's ``count`` elements, in rank order, into every ``recvbuf``."""
        calls.append(("allGather", datatype, None))
        n = _nbytes(count, datatype)
        self._collective("allgather", (datatype,), sendbuf, n, recvbuf, stream)

    def reduceScatter(self, sendbuf: int, recvbuf: int, recvcount: int, datatype: int,
                      op: int, stream: int) -> None:  # fmt: skip
        """Reduce ``ndev * recvcount`` elements; block ``rank`` into ``recvbuf``."""
        calls.append(("reduceScatter", datatype, op))
        self._check_op(op)
        n = _nbytes(recvcount, datatype) * self._ndev
        self._collective("reducescatter", (datatype, op), sendbuf, n, recvbuf, stream)

    def send(self, sendbuf: int, count: int, datatype: int, peer: int, stream: int) -> None:
        """Send ``count`` elements to ``peer``."""
        self._p2p("send", sendbuf, count, datatype, peer, stream)

    def recv(self, recvbuf: int, count: int, datatype: int, peer: int, stream: int) -> None:
        """Receive ``count`` elements from ``peer``."""
        self._p2p("recv", recvbuf, count, datatype, peer, stream)

    def check_async_error(self) -> None:
        """Raise the error an operation ended with on the stream."""
        if self._error is not None:
            raise NcclError(2, f"{type(self._error).__name__}: {self._error}")

    def destroy(self) -> None:
        """Leave the communicator."""
        calls.append(("destroy", None, None))
        with self._lock:
            if self._sock is not None:
                _send_msg(self._sock, ("bye",))
                self._sock.close()
                self._sock = None

    def abort(self) -> None:
        """Leave at once, whatever is in flight (it never completes)."""
        calls.append(("abort", None, None))
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _current_device() -> int:
    from . import runtime

    return runtime.getDevice()
