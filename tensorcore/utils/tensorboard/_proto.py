"""The protocol-buffer wire format of the few TensorBoard messages the writer emits.

TensorBoard reads ``Event`` messages (``tensorboard/compat/proto/event.proto``) whose
``Summary`` values carry scalars, histograms, images, audio and tensors. Encoding them needs
four wire types only (varint, 64-bit, length-delimited, 32-bit), so they are written here by
hand instead of depending on ``protobuf``: a message is the concatenation of its fields, each
field a key (``number << 3 | wire type``) and a payload. The field numbers below are those of
TensorBoard's ``.proto`` files. Appending a field again to an encoded message overrides a
scalar field when the message is parsed (last one wins), which ``FileWriter.add_event`` uses to
stamp the wall time and the step onto an event it is given already encoded.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_U64 = (1 << 64) - 1

# tensorboard/compat/proto/types.proto
DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_STRING = 1, 2, 3, 4, 5, 6, 7
DT_COMPLEX64, DT_INT64, DT_BOOL, DT_BFLOAT16, DT_UINT16, DT_COMPLEX128 = 8, 9, 10, 14, 17, 18
DT_HALF, DT_UINT32, DT_UINT64 = 19, 22, 23

# TensorProto's value fields
FLOAT_VAL, DOUBLE_VAL, INT_VAL, STRING_VAL, SCOMPLEX_VAL, INT64_VAL = 5, 6, 7, 8, 9, 10
BOOL_VAL, DCOMPLEX_VAL, HALF_VAL, UINT32_VAL, UINT64_VAL = 11, 12, 13, 16, 17


def varint(n: int) -> bytes:
    """Base-128 varint; a negative int64 is written as its 64-bit two's complement."""
    n &= _U64
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def int_field(field: int, n: int) -> bytes:
    return _key(field, _VARINT) + varint(int(n))


def double_field(field: int, x: float) -> bytes:
    return _key(field, _I64) + struct.pack("<d", x)


def float_field(field: int, x: float) -> bytes:
    return _key(field, _I32) + struct.pack("<f", x)


def bytes_field(field: int, data: bytes) -> bytes:
    return _key(field, _LEN) + varint(len(data)) + data


def string_field(field: int, s: str) -> bytes:
    return bytes_field(field, s.encode("utf-8"))


def packed_doubles(field: int, values: Sequence[float]) -> bytes:
    return bytes_field(field, struct.pack(f"<{len(values)}d", *values))


def packed_floats(field: int, values: Sequence[float]) -> bytes:
    return bytes_field(field, struct.pack(f"<{len(values)}f", *values))


def packed_varints(field: int, values: Iterable[int]) -> bytes:
    return bytes_field(field, b"".join(varint(int(v)) for v in values))


# ----------------------------------------------------------------------------- messages
def event(
    wall_time: float,
    step: int | None = None,
    *,
    file_version: str | None = None,
    summary: bytes | None = None,
    session_log_start: bool = False,
    source_writer: str | None = None,
) -> bytes:
    """An ``Event``: wall_time 1, step 2, file_version 3, summary 5, session_log 7,
    source_metadata 10."""
    out = double_field(1, wall_time)
    if step is not None:
        out += int_field(2, step)
    if file_version is not None:
        out += string_field(3, file_version)
    if summary is not None:
        out += bytes_field(5, summary)
    if session_log_start:
        out += bytes_field(7, int_field(1, 1))  # SessionLog.status = START
    if source_writer is not None:
        out += bytes_field(10, string_field(1, source_writer))
    return out


def summary(*values: bytes) -> bytes:
    """A ``Summary`` of encoded ``Summary.Value`` messages (field 1, repeated)."""
    return b"".join(bytes_field(1, v) for v in values)


def summary_value(
    tag: str,
    *,
    simple_value: float | None = None,
    image: bytes | None = None,
    histo: bytes | None = None,
    audio: bytes | None = None,
    tensor: bytes | None = None,
    metadata: bytes | None = None,
) -> bytes:
    """A ``Summary.Value``: tag 1, simple_value 2 (float), image 4, histo 5, audio 6,
    tensor 8, metadata 9."""
    out = string_field(1, tag)
    if simple_value is not None:
        out += float_field(2, simple_value)
    for number, payload in ((4, image), (5, histo), (6, audio), (8, tensor), (9, metadata)):
        if payload is not None:
            out += bytes_field(number, payload)
    return out


def plugin_metadata(plugin_name: str, content: bytes = b"") -> bytes:
    """A ``SummaryMetadata`` whose ``plugin_data`` (1) names the plugin (1) and its content (2)."""
    data = string_field(1, plugin_name)
    if content:
        data += bytes_field(2, content)
    return bytes_field(1, data)


def histogram(
    min: float,
    max: float,
    num: float,
    sum: float,
    sum_squares: float,
    bucket_limit: Sequence[float],
    bucket: Sequence[float],
) -> bytes:
    """A ``HistogramProto``: doubles 1-5, packed doubles bucket_limit 6 and bucket 7."""
    return (
        double_field(1, min)
        + double_field(2, max)
        + double_field(3, num)
        + double_field(4, sum)
        + double_field(5, sum_squares)
        + packed_doubles(6, bucket_limit)
        + packed_doubles(7, bucket)
    )


def image(height: int, width: int, colorspace: int, encoded: bytes) -> bytes:
    """A ``Summary.Image``: height 1, width 2, colorspace 3, encoded_image_string 4."""
    return (
        int_field(1, height)
        + int_field(2, width)
        + int_field(3, colorspace)
        + bytes_field(4, encoded)
    )


def audio(sample_rate: float, num_channels: int, length_frames: int, encoded: bytes) -> bytes:
    """A ``Summary.Audio``: sample_rate 1 (float), num_channels 2, length_frames 3,
    encoded_audio_string 4, content_type 5."""
    return (
        float_field(1, sample_rate)
        + int_field(2, num_channels)
        + int_field(3, length_frames)
        + bytes_field(4, encoded)
        + string_field(5, "audio/wav")
    )


def tensor(dtype: int, shape: Sequence[int] | None, values: bytes) -> bytes:
    """A ``TensorProto``: dtype 1, tensor_shape 2 (``None``: no shape, a scalar), then the
    already encoded value field(s)."""
    out = int_field(1, dtype)
    if shape is not None:
        dims = b"".join(bytes_field(2, int_field(1, d)) for d in shape)
        out += bytes_field(2, dims)
    return out + values


# google.protobuf.Value, as the hparams plugin stores hyperparameter values
def value_number(x: float) -> bytes:
    return double_field(2, x)


def value_string(s: str) -> bytes:
    return string_field(3, s)


def value_bool(b: bool) -> bytes:
    return int_field(4, int(b))


def list_value(values: Iterable[bytes]) -> bytes:
    """A ``google.protobuf.ListValue`` (values 1, repeated) of encoded ``Value`` messages."""
    return b"".join(bytes_field(1, v) for v in values)
