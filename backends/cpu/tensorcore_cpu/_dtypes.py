"""Mapping between tensorcore dtypes and NumPy dtypes (bfloat16 through ml_dtypes)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

import tensorcore as tc

__all__ = ["from_numpy", "to_numpy"]

_TO_NP: dict[tc.dtype, Any] = {
    tc.bool: np.dtype(np.bool_),
    tc.uint8: np.dtype(np.uint8),
    tc.int8: np.dtype(np.int8),
    tc.int16: np.dtype(np.int16),
    tc.int32: np.dtype(np.int32),
    tc.int64: np.dtype(np.int64),
    tc.float16: np.dtype(np.float16),
    tc.bfloat16: np.dtype(ml_dtypes.bfloat16),
    tc.float32: np.dtype(np.float32),
    tc.float64: np.dtype(np.float64),
    tc.complex64: np.dtype(np.complex64),
    tc.complex128: np.dtype(np.complex128),
}
_FROM_NP = {v: k for k, v in _TO_NP.items()}


def to_numpy(d: tc.dtype) -> Any:
    """The NumPy dtype of a tensorcore dtype."""
    return _TO_NP[d]


def from_numpy(d: Any) -> tc.dtype:
    """The tensorcore dtype of a NumPy dtype; ``TypeError`` when there is none."""
    try:
        return _FROM_NP[np.dtype(d)]
    except (KeyError, TypeError):
        raise TypeError(
            f"can't convert np.ndarray of type {np.dtype(d)}. The only supported types are: "
            "float64, float32, float16, bfloat16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool."
        ) from None
