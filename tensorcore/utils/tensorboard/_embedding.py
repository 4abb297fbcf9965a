"""The files of TensorBoard's embedding projector: for each embedding a directory
``<step:05d>/<tag>`` holding ``tensors.tsv`` (one vector a row), optionally ``metadata.tsv``
(one label a row, or a header and columns) and ``sprite.png`` (the label images in a square
grid), and ``projector_config.pbtxt`` in the log directory listing them all (protobuf text
format of ``ProjectorConfig``)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _convert


def encode_tag(tag: str) -> str:
    # a tag becomes one directory name
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def write_tsv(
    metadata: Sequence[Any], path: str, metadata_header: Sequence[Any] | None = None
) -> None:
    if not metadata_header:
        lines = [str(x) for x in metadata]
    else:
        if len(metadata_header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [metadata_header, *metadata]]
    with open(os.path.join(path, "metadata.tsv"), "wb") as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(label_img: np.ndarray, path: str) -> None:
    # The projector cuts the sprite into ceil(sqrt(N)) x ceil(sqrt(N)) cells of one image's
    # size: the grid, padded at the bottom to as many rows as columns. (PyTorch pads to a
    # square of pixels, which fails for images taller than wide.)
    nrow = math.ceil(label_img.shape[0] ** 0.5)
    grid = _convert.make_grid(label_img, ncols=nrow).transpose(1, 2, 0)
    cells = np.zeros((nrow * label_img.shape[2], grid.shape[1], 3))
    cells[: grid.shape[0]] = grid
    pixels = (cells * 255).clip(0, 255).astype(np.uint8)
    with open(os.path.join(path, "sprite.png"), "wb") as f:
        f.write(_convert.encode_png(pixels))


def write_tensors(mat: np.ndarray, path: str) -> None:
    with open(os.path.join(path, "tensors.tsv"), "wb") as f:
        for row in mat:
            f.write(("\t".join(str(x) for x in row.tolist()) + "\n").encode("utf-8"))


def _quoted(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def embedding_entry(
    tag: str, global_step: int, subdir: str, has_metadata: bool, label_img: np.ndarray | None
) -> str:
    """One ``embeddings { ... }`` entry of the projector config, in text format (fields in
    the order of their numbers, as protobuf writes them)."""
    lines = [f"  tensor_name: {_quoted(f'{tag}:{str(global_step).zfill(5)}')}"]
    if has_metadata:
        lines.append(f"  metadata_path: {_quoted(subdir + '/metadata.tsv')}")
    if label_img is not None:
        lines += [
            "  sprite {",
            f"    image_path: {_quoted(subdir + '/sprite.png')}",
            f"    single_image_dim: {label_img.shape[3]}",
            f"    single_image_dim: {label_img.shape[2]}",
            "  }",
        ]
    lines.append(f"  tensor_path: {_quoted(subdir + '/tensors.tsv')}")
    return "embeddings {\n" + "\n".join(lines) + "\n}\n"


def add_embedding(
    logdir: str,
    entries: list[str],
    mat: Any,
    metadata: Sequence[Any] | None,
    label_img: Any,
    global_step: int | None,
    tag: str,
    metadata_header: Sequence[Any] | None,
) -> None:
    """Write one embedding's files, append its entry to ``entries`` and rewrite the config."""
    mat = _convert.make_np(mat)
    if global_step is None:
        global_step = 0
    subdir = f"{str(global_step).zfill(5)}/{encode_tag(tag)}"
    path = os.path.join(logdir, subdir)
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise NotADirectoryError(f"Path: `{path}` exists, but is a file. Cannot proceed.")
        print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
    else:
        os.makedirs(path)
    if metadata is not None:
        if mat.shape[0] != len(metadata):
            raise AssertionError("#labels should equal with #data points")
        write_tsv(metadata, path, metadata_header)
    images = None
    if label_img is not None:
        images = _convert.make_np(label_img)
        if mat.shape[0] != images.shape[0]:
            raise AssertionError("#images should equal with #data points")
        write_sprite(images, path)
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    write_tensors(mat, path)
    entries.append(embedding_entry(tag, global_step, subdir, metadata is not None, images))
    with open(os.path.join(logdir, "projector_config.pbtxt"), "wb") as f:
        f.write("".join(entries).encode("utf-8"))
