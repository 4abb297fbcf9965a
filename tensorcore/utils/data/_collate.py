"""``default_collate`` and ``default_convert``: how a ``DataLoader`` turns a list of samples
into a batch, with PyTorch's rules."""

from __future__ import annotations

import collections.abc
from collections.abc import Sequence
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops
from ...ops.factories import as_tensor, tensor

__all__ = ["default_collate", "default_convert"]


def _is_ndarray(x: Any) -> bool:
    t = type(x)
    return t.__module__ == "numpy" and t.__name__ in ("ndarray", "memmap")


def _is_np_scalar(x: Any) -> bool:
    return type(x).__module__ == "numpy" and hasattr(x, "dtype") and not _is_ndarray(x)


def default_convert(data: Any) -> Any:
    """NumPy arrays (and NumPy scalars) to tensors, inside tuples, lists, dicts and named
    tuples; everything else unchanged (what a ``DataLoader`` with ``batch_size=None``
    applies).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore.utils.data import default_convert
    >>> default_convert({"x": np.array([1, 2])})
    {'x': tensor([1, 2])}
    """
    if isinstance(data, Tensor):
        return data
    if _is_ndarray(data):
        if data.dtype.kind in "SaUO":
            return data
        return as_tensor(data)
    if _is_np_scalar(data):
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()})  # type: ignore[call-arg]
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return type(data)([default_convert(d) for d in data])  # type: ignore[call-arg]
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack a list of samples into a batch: tensors (and NumPy arrays) are stacked along a
    new first dim, Python floats become a float64 tensor and ints an int64 tensor, strings
    stay as given (a list of samples stays a list; a field of tuple samples is a tuple), and
    dicts, named tuples, tuples and lists are collated field by field (a tuple sample gives a
    list, as in PyTorch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.data import default_collate
    >>> default_collate([(tc.ones(2), 0), (tc.zeros(2), 1)])
    [tensor([[1., 1.],
            [0., 0.]]), tensor([0, 1])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return ops.stack(list(batch), 0)
    if _is_ndarray(elem):
        if elem.dtype.kind in "SaUO":
            raise TypeError(
                "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                f"lists; found {elem.dtype}"
            )
        return ops.stack([as_tensor(b) for b in batch], 0)
    if _is_np_scalar(elem):
        return as_tensor([b.item() for b in batch], dtype=as_tensor(elem).dtype)
    if isinstance(elem, bool):
        return tensor(batch, dtype=dt.bool_)
    if isinstance(elem, float):
        return tensor(batch, dtype=dt.float64)
    if isinstance(elem, int):
        return tensor(batch, dtype=dt.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return type(elem)({k: default_collate([d[k] for d in batch]) for k in elem})  # type: ignore[call-arg]
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(s) for s in zip(*batch, strict=True)))
    if isinstance(elem, collections.abc.Sequence):
        n = len(elem)
        if any(len(b) != n for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # Each field's samples as zip gives them, a tuple (so a field of strings stays the
        # tuple ``('a.png', 'b.png')``, as in PyTorch).
        transposed = [default_collate(s) for s in zip(*batch, strict=True)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return type(elem)(transposed)  # type: ignore[call-arg]
        except TypeError:
            return transposed
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem)}"
    )
