"""Event files: TFRecord framing, CRC32C, and the file that batches and flushes records.

An event file is a sequence of records, each ``uint64 length``, ``uint32 masked CRC32C of the
8 length bytes``, the payload (an encoded ``Event``), ``uint32 masked CRC32C of the payload``,
all little-endian. CRC32C (Castagnoli, reflected polynomial ``0x82F63B78``) is not in the
standard library (``zlib.crc32`` is the other polynomial), so it is computed here from a
256-entry table; masking rotates the CRC right by 15 bits and adds ``0xA282EAD8``, as
TensorFlow's ``crc32c::Mask`` does.
"""

from __future__ import annotations

import functools
import itertools
import os
import socket
import struct
import threading
import time
import weakref
from typing import BinaryIO

import numpy as np

from . import _proto


def _crc32c_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc32c_table()
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)
_LANES = 256  # lanes of at least len(data) / 512 bytes


def _update(crc: int, data: bytes | memoryview) -> int:
    """The CRC register after ``data``, from ``crc`` (no initial or final inversion)."""
    table = _TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def _apply(columns: np.ndarray, regs: np.ndarray) -> np.ndarray:
    """The GF(2)-linear map whose image of bit i is ``columns[i]``, applied to each of
    ``regs``."""
    out = np.zeros_like(regs)
    for i in range(32):
        out ^= np.where((regs >> np.uint32(i)) & np.uint32(1), columns[i], np.uint32(0))
    return out


@functools.cache
def _zeros_tables(log2_n: int) -> tuple[list[int], ...]:
    """The register's map through 2**log2_n zero bytes (linear, as CRC is), as four byte
    tables: the image of a register is the xor of its four bytes' entries."""
    bits = np.uint32(1) << np.arange(32, dtype=np.uint32)
    columns = _NP_TABLE[bits & np.uint32(0xFF)] ^ (bits >> np.uint32(8))  # one zero byte
    for _ in range(log2_n):
        columns = _apply(columns, columns)  # twice as many zero bytes
    values = np.arange(256, dtype=np.uint32)
    tables = []
    for byte in range(4):
        table = np.zeros(256, dtype=np.uint32)
        for bit in range(8):
            table ^= np.where((values >> np.uint32(bit)) & np.uint32(1), columns[8 * byte + bit], 0)
        tables.append(table.tolist())
    return tuple(tables)


def _update_lanes(crc: int, data: bytes) -> int:
    # The register update is linear over GF(2) in (register, data), so the data is cut in
    # lanes of n bytes (n a power of two) run side by side with NumPy, the first from ``crc``
    # and the others from 0; then the register of lanes A then B is B's xor A's pushed through
    # n zero bytes. A Python loop costs ~0.1-0.3 us a byte; this is ~10 times cheaper on a
    # 200 kB PNG.
    n = 1 << ((len(data) // _LANES).bit_length() - 1)
    k = len(data) // n
    lanes = np.frombuffer(data, dtype=np.uint8, count=k * n).reshape(k, n)
    regs = np.zeros(k, dtype=np.uint32)
    regs[0] = crc
    low, shift = np.uint32(0xFF), np.uint32(8)
    for column in np.ascontiguousarray(lanes.T).astype(np.uint32):
        regs = _NP_TABLE[(regs ^ column) & low] ^ (regs >> shift)
    t0, t1, t2, t3 = _zeros_tables(n.bit_length() - 1)
    out = 0
    for reg in regs.tolist():
        out = t0[out & 0xFF] ^ t1[(out >> 8) & 0xFF] ^ t2[(out >> 16) & 0xFF] ^ t3[out >> 24] ^ reg
    return _update(out, memoryview(data)[k * n :])


def crc32c(data: bytes) -> int:
    """CRC32C of ``data`` (``crc32c(b"123456789") == 0xE3069283``, the check value)."""
    if len(data) >= 32 * _LANES:
        return _update_lanes(0xFFFFFFFF, data) ^ 0xFFFFFFFF
    return _update(0xFFFFFFFF, data) ^ 0xFFFFFFFF


def masked_crc32c(data: bytes) -> int:
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def record(payload: bytes) -> bytes:
    """One TFRecord: the framed ``payload``."""
    header = struct.pack("<Q", len(payload))
    return (
        header
        + struct.pack("<I", masked_crc32c(header))
        + payload
        + struct.pack("<I", masked_crc32c(payload))
    )


# A process-wide counter makes two files opened in the same second distinct, as TensorBoard's
# own writer does (``next`` on a count is atomic under the GIL).
_file_uid = itertools.count()


def event_file_name(filename_suffix: str = "") -> str:
    """TensorBoard's event file name: ``events.out.tfevents.<seconds>.<host>.<pid>.<uid>``."""
    return "events.out.tfevents.%010d.%s.%s.%s%s" % (  # noqa: UP031 (the zero-padded width)
        time.time(),
        socket.gethostname(),
        os.getpid(),
        next(_file_uid),
        filename_suffix,
    )


def _write_pending(file: BinaryIO, pending: list[bytes]) -> None:
    if pending:
        file.write(b"".join(pending))
        pending.clear()
    file.flush()


def _finish(
    file: BinaryIO, pending: list[bytes], lock: threading.Lock, stop: threading.Event, pid: int
) -> None:
    # Runs once: from close(), when the writer is garbage collected, or at interpreter exit
    # (weakref.finalize), so that records of a writer nobody closed still reach the disk. A
    # forked child (a data-loader worker) leaves the parent's file alone.
    stop.set()
    with lock:
        if not file.closed and os.getpid() == pid:
            _write_pending(file, pending)
            file.close()


def _flush_every(ref: weakref.ref[EventFile], stop: threading.Event, secs: float) -> None:
    # Holds the writer weakly, so that an unclosed writer can still be collected (and finished).
    while not stop.wait(secs):
        writer = ref()
        if writer is None:
            return
        writer.flush()
        del writer


class EventFile:
    """An event file being written: records are queued in memory and written when
    ``max_queue`` are pending, every ``flush_secs`` seconds (a daemon thread), on ``flush()``
    and on ``close()``. The first record is the ``file_version`` event TensorBoard expects."""

    def __init__(
        self, logdir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""
    ) -> None:
        os.makedirs(logdir, exist_ok=True)
        self.logdir = logdir
        self.path = os.path.join(logdir, event_file_name(filename_suffix))
        self._file: BinaryIO = open(self.path, "wb")  # noqa: SIM115 (closed by _finish)
        self._pending: list[bytes] = []
        self._lock = threading.Lock()
        self._max_queue = max_queue
        self._stop = threading.Event()
        self._finalizer = weakref.finalize(
            self, _finish, self._file, self._pending, self._lock, self._stop, os.getpid()
        )
        self.write(
            _proto.event(
                time.time(),
                file_version="brain.Event:2",
                source_writer="tensorcore.utils.tensorboard",
            )
        )
        self.flush()
        if flush_secs and flush_secs > 0:
            threading.Thread(
                target=_flush_every,
                args=(weakref.ref(self), self._stop, flush_secs),
                name=f"tensorboard flush {self.path}",
                daemon=True,
            ).start()

    @property
    def closed(self) -> bool:
        return self._file.closed

    def write(self, event: bytes) -> None:
        """Queue one encoded ``Event``."""
        with self._lock:
            if self._file.closed:
                raise OSError("Writer is closed")
            self._pending.append(record(event))
            if len(self._pending) >= self._max_queue:
                _write_pending(self._file, self._pending)

    def flush(self) -> None:
        with self._lock:
            if not self._file.closed:
                _write_pending(self._file, self._pending)

    def close(self) -> None:
        self._finalizer()
