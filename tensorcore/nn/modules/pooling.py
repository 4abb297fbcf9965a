"""Pooling layers."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .._conv import _tuple
from .module import Module

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxUnpool1d",
    "MaxUnpool2d",
]


class _MaxPool(Module):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool2d(_MaxPool):
    """2-D max pooling (``stride`` defaults to ``kernel_size``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.max_pool2d`."""
        return F.max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class MaxPool1d(_MaxPool):
    """1-D max pooling."""

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.max_pool1d`."""
        return F.max_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )


class _AvgPool(Module):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPool):
    """2-D average pooling."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.avg_pool2d`."""
        return F.avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AvgPool1d(_AvgPool):
    """1-D average pooling."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.avg_pool1d`."""
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )


class _Adaptive(Module):
    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_Adaptive):
    """Average pooling to a fixed output size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AdaptiveAvgPool2d((1, 1))(tc.ones(2, 3, 5, 7)).shape
    tensorcore.Size([2, 3, 1, 1])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.adaptive_avg_pool2d`."""
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveAvgPool1d(_Adaptive):
    """1-D average pooling to a fixed output length."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.adaptive_avg_pool1d`."""
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """Max pooling to a fixed output size."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.adaptive_max_pool2d`."""
        return F.adaptive_max_pool2d(input, self.output_size)


class _MaxUnpool(Module):
    _nd = 2

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._nd, "kernel_size")
        self.stride = _tuple(stride, self._nd, "stride") if stride is not None else self.kernel_size
        self.padding = _tuple(padding, self._nd, "padding")

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool2d(_MaxUnpool):
    """The inverse of :class:`MaxPool2d` with ``return_indices=True`` (zeros elsewhere).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.MaxUnpool2d(2)
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        """See :func:`tensorcore.nn.functional.max_unpool2d`."""
        return F.max_unpool2d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class MaxUnpool1d(_MaxUnpool):
    """The inverse of :class:`MaxPool1d` with ``return_indices=True`` (zeros elsewhere)."""

    _nd = 1

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        """See :func:`tensorcore.nn.functional.max_unpool1d`."""
        return F.max_unpool1d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )
