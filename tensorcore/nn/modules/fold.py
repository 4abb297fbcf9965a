"""Rearranging layers: ``Unfold``/``Fold`` (sliding blocks) and ``PixelShuffle``/
``PixelUnshuffle`` (channels to and from pixel blocks)."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "ChannelShuffle",
    "Fold",
    "PixelShuffle",
    "PixelUnshuffle",
    "Unfold",
]


class Unfold(Module):
    """Sliding blocks of images as columns (im2col).

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.Unfold(kernel_size=(2, 3))
    >>> m
    Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=1)
    >>> m(tc.ones(2, 5, 3, 4)).shape
    tensorcore.Size([2, 30, 4])
    """

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.unfold`."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(Module):
    """Columns summed back into images (col2im), the adjoint of :class:`Unfold`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.Fold(output_size=(4, 5), kernel_size=2)
    >>> m
    Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)
    >>> m(tc.ones(1, 12, 12)).shape
    tensorcore.Size([1, 3, 4, 5])
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.fold`."""
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


class PixelShuffle(Module):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.PixelShuffle(2)
    >>> m, m(tc.ones(1, 8, 3, 3)).shape
    (PixelShuffle(upscale_factor=2), tensorcore.Size([1, 2, 6, 6]))
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.pixel_shuffle`."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.PixelUnshuffle(3)
    >>> m, m(tc.ones(1, 1, 6, 6)).shape
    (PixelUnshuffle(downscale_factor=3), tensorcore.Size([1, 9, 2, 2]))
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.pixel_unshuffle`."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups (ShuffleNet).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.channel_shuffle`."""
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
