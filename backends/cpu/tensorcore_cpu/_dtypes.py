"""The CPU's dtype mapping: tensorcore-xp's for NumPy, with bfloat16 as ``ml_dtypes``'s (NumPy
has none of its own)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from tensorcore_xp.dtypes import DtypeMap

import tensorcore as tc

__all__ = ["NUMPY_DTYPES", "from_numpy", "to_numpy"]

#: tensorcore dtypes and NumPy's; ``from_native`` raises PyTorch's error for ``np.ndarray``.
NUMPY_DTYPES = DtypeMap(np, {tc.bfloat16: ml_dtypes.bfloat16}, array_name="np.ndarray")
#: The plain dict, for the allocator.
TO_NUMPY = NUMPY_DTYPES.native
from_numpy = NUMPY_DTYPES.from_native
to_numpy = NUMPY_DTYPES.to_native
