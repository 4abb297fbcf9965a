"""The batch-norm layers at PyTorch's module path (``torch.nn.modules.batchnorm``), where
custom normalisation layers find ``_BatchNorm`` to subclass; they are defined in
:mod:`.normalization` (and the lazy ones in :mod:`.lazy`)."""

from __future__ import annotations

from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "_BatchNorm",
]
