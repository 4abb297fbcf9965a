"""Converting the weights of a model's convolutions to a memory format, as
``torch.nn.utils.memory_format``."""

from __future__ import annotations

from typing import Any

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module: Any, memory_format: Any, kinds: tuple[type, ...]) -> Any:
    if isinstance(module, kinds):
        conv: Any = module
        conv.weight.data = conv.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    """``module`` with the weight of every ``Conv2d`` and ``ConvTranspose2d`` in it (itself
    included) in ``memory_format`` (``channels_last``), converted in place.

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Sequential(tc.nn.Conv2d(3, 4, 3), tc.nn.ReLU())
    >>> net = tc.nn.utils.convert_conv2d_weight_memory_format(net, tc.channels_last)
    >>> net[0].weight.is_contiguous(memory_format=tc.channels_last)
    True
    """
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: Any, memory_format: Any) -> Any:
    """As :func:`convert_conv2d_weight_memory_format`, for ``Conv3d`` and
    ``ConvTranspose3d`` (``channels_last_3d``)."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
