"""Shipped test helpers: device-generic utilities for tensorcore's tests and for third-party
backends that want to check themselves against NumPy. PyTorch programs reach it as
``torch.testing``: :func:`assert_close` (with tensorcore's NumPy-oracle form),
the deprecated :func:`assert_allclose` and :func:`make_tensor` are PyTorch's.

NumPy is imported lazily (only when a helper that needs it runs), so ``import
tensorcore.testing`` works without NumPy. The Hypothesis strategies live in
:mod:`tensorcore.testing.strategies`, which needs Hypothesis and NumPy. The backend
conformance suite, :mod:`tensorcore.testing.conformance`, runs through the pytest plugin
:mod:`tensorcore.testing.pytest_plugin` (``pytest --tensorcore-device=NAME``).

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.testing import assert_close, backends_for, to_numpy
>>> "cpu" in backends_for("add")
True
>>> x = tc.tensor([1.0, 2.0])
>>> assert_close(x + x, to_numpy(x) * 2)
"""

from __future__ import annotations

from ._comparison import assert_allclose, assert_close
from ._helpers import (
    available_device_types,
    backends_for,
    default_tolerances,
    dtype_unsupported,
    flushes_subnormals,
    layout_unsupported,
    numpy_dtype,
    to_numpy,
)
from ._make_tensor import make_tensor

__all__ = [
    "assert_allclose",
    "assert_close",
    "available_device_types",
    "backends_for",
    "default_tolerances",
    "dtype_unsupported",
    "flushes_subnormals",
    "layout_unsupported",
    "make_tensor",
    "numpy_dtype",
    "to_numpy",
]
