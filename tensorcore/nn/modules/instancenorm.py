"""The instance-norm layers at PyTorch's module path (``torch.nn.modules.instancenorm``),
with ``_InstanceNorm`` to subclass; they are defined in :mod:`.normalization`."""

from __future__ import annotations

from .normalization import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "_InstanceNorm"]
