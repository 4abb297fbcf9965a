"""Turning what a program logs into the arrays and encoded bytes of TensorBoard's summaries:
tensors to NumPy, histogram buckets, images to height x width x channels and PNG, matplotlib
figures to pixels, sound to WAV."""

from __future__ import annotations

import io
import struct
import wave
import zlib
from typing import Any

import numpy as np

from ... import dtypes
from ..._tensor import Tensor


def make_np(x: Any) -> np.ndarray:
    """A NumPy array of a tensor (detached, on the CPU), an array, or a number (shape (1,))."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, Tensor):
        x = x.detach().cpu()
        if x.dtype == dtypes.bfloat16:
            x = x.float()  # not every NumPy has bfloat16
        return np.asarray(x.numpy())
    if np.isscalar(x):
        return np.array([x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def as_array(x: Any) -> np.ndarray:
    """``make_np`` that also takes a (nested) list, as the raw histogram and PR-curve
    arguments may be."""
    return make_np(x) if isinstance(x, (np.ndarray, Tensor)) else np.asarray(x)


def _tensorflow_bins() -> list[float]:
    # TensorFlow's default histogram edges, as PyTorch's writer builds them: 1e-12 growing by
    # 10% up to 1e20, mirrored to the negatives, and 0.
    edges = []
    v = 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


DEFAULT_BINS = _tensorflow_bins()


def histogram(values: np.ndarray, bins: Any, max_bins: int | None = None) -> dict[str, Any]:
    """The fields of a ``HistogramProto``: ``np.histogram`` counts with the empty buckets at
    both ends dropped, except one empty bucket before the first non-empty one (its upper limit
    then marks where the data starts); ``bucket_limit`` holds each bucket's upper edge."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, -len(counts) % group)).reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(nonzero[0]), int(nonzero[-1])
    # counts with a 0 in front: from the bucket before the first non-empty one (empty, or the
    # 0 in front when the data starts in the first bucket) to the last non-empty one
    kept = np.concatenate([[0], counts])[first : last + 2]
    return {
        "min": float(values.min()),
        "max": float(values.max()),
        "num": float(len(values)),
        "sum": float(values.sum()),
        "sum_squares": float(values.dot(values)),
        "bucket_limit": limits[first : last + 2].tolist(),
        "bucket": kept.tolist(),
    }


# ------------------------------------------------------------------------------ images
def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tile N x C x H x W images (C = 1 or 3) into one 3 x H' x W' image, ``ncols`` a row."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, axis=1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, ncols)
        canvas[:, y * h : (y + 1) * h, x * w : (x + 1) * w] = images[i]
    return canvas


def to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """An image of layout ``dataformats`` (``"CHW"``, ``"HWC"``, ``"HW"``, ``"NCHW"``...) as
    height x width x channels; one channel becomes three (grey), a batch becomes a grid."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {dataformats}"
        )
    if array.ndim != len(dataformats):
        raise AssertionError(
            "size of input tensor and input format are different. "
            f"tensor shape: {array.shape}, input_format: {dataformats}"
        )
    fmt = dataformats.upper()
    if len(fmt) == 4:
        grid = make_grid(array.transpose([fmt.find(c) for c in "NCHW"]))
        return grid.transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = array.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        return np.stack([array.transpose([fmt.find(c) for c in "HW"])] * 3, axis=2)
    raise AssertionError(f"unsupported image dataformats {dataformats!r}")


def to_uint8(array: np.ndarray) -> np.ndarray:
    """uint8 pixels: a uint8 image as it is, anything else taken as [0, 1] and scaled by 255
    (truncated, out-of-range values clipped), as PyTorch's writer does."""
    scale = 1 if array.dtype == np.uint8 else 255
    return (array.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)


_PNG_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # grey, grey + alpha, RGB, RGBA


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_png(hwc: np.ndarray) -> bytes:
    """A PNG of a height x width x channels uint8 image (1 to 4 channels), each row stored
    with the "Up" filter (its difference to the row above), which deflate compresses well."""
    h, w, c = hwc.shape
    rows = np.ascontiguousarray(hwc, dtype=np.uint8).reshape(h, w * c)
    filtered = np.empty((h, w * c + 1), dtype=np.uint8)
    filtered[:, 0] = 2  # filter type Up
    filtered[:, 1:] = rows
    filtered[1:, 1:] -= rows[:-1]  # uint8 arithmetic wraps modulo 256, as PNG's filters do
    header = struct.pack(">IIBBBBB", w, h, 8, _PNG_COLOR_TYPES[c], 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(filtered.tobytes(), 6))
        + _png_chunk(b"IEND", b"")
    )


def figure_to_chw(figure: Any, close: bool = True) -> np.ndarray:
    """The RGB pixels (3 x H x W uint8) of a matplotlib figure drawn with the Agg renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    rgba = np.asarray(canvas.buffer_rgba())
    if close:
        import matplotlib.pyplot as plt

        plt.close(figure)
    return np.ascontiguousarray(rgba[:, :, :3].transpose(2, 0, 1))


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A mono 16-bit WAV of samples in [-1, 1]."""
    pcm = (samples * np.iinfo(np.int16).max).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sample_rate)
        w.writeframes(pcm.tobytes())
    return out.getvalue()
