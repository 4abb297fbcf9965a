"""Converting convolution weights to a memory format, as ``torch.nn.utils.memory_format``."""

from __future__ import annotations

from typing import Any, TypeVar

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound=Module)


def _convert(module: _M, memory_format: Any, kinds: tuple[type, ...]) -> _M:
    for m in module.modules():
        if isinstance(m, kinds):
            m.weight.data = m.weight.detach().clone(memory_format=memory_format)
    return module


def convert_conv2d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Store the weight of every ``Conv2d``/``ConvTranspose2d`` in ``module`` (itself
    included) in ``memory_format`` (e.g. ``channels_last``); the parameters stay the same
    objects, their values unchanged. Returns ``module``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Sequential(tc.nn.Conv2d(3, 4, 3), tc.nn.ReLU())
    >>> net = tc.nn.utils.convert_conv2d_weight_memory_format(net, tc.channels_last)
    >>> net[0].weight.is_contiguous(memory_format=tc.channels_last)
    True
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Store the weight of every ``Conv3d``/``ConvTranspose3d`` in ``module`` in
    ``memory_format`` (e.g. ``channels_last_3d``), as
    :func:`convert_conv2d_weight_memory_format` does for 2-d convolutions.

    Examples
    --------
    >>> import tensorcore as tc
    >>> conv = tc.nn.Conv3d(2, 2, 1)
    >>> conv = tc.nn.utils.convert_conv3d_weight_memory_format(conv, tc.channels_last_3d)
    >>> conv.weight.is_contiguous(memory_format=tc.channels_last_3d)
    True
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
