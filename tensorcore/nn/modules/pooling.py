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
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
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
    """1-D average pooling (its sizes kept as 1-tuples, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AvgPool1d(3, padding=1)
    AvgPool1d(kernel_size=(3,), stride=(3,), padding=(1,))
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        def single(v: Any) -> tuple[Any, ...]:
            return tuple(v) if isinstance(v, (tuple, list)) else (v,)

        super().__init__(
            single(kernel_size),
            None if stride is None else single(stride),
            single(padding),
            ceil_mode,
            count_include_pad,
        )

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
    """Max pooling to a fixed output size (``return_indices``: also each maximum's flat
    index in its plane, for :class:`MaxUnpool2d`)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.adaptive_max_pool2d`."""
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class MaxPool3d(_MaxPool):
    """3-D max pooling (``stride`` defaults to ``kernel_size``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.MaxPool3d(2)
    >>> m
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> m(tc.ones(1, 2, 4, 4, 4)).shape
    tensorcore.Size([1, 2, 2, 2, 2])
    """

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.max_pool3d`."""
        return F.max_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class AvgPool3d(_AvgPool):
    """3-D average pooling.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.AvgPool3d(2)
    >>> m, m(tc.ones(1, 2, 4, 4, 4)).shape
    (AvgPool3d(kernel_size=2, stride=2, padding=0), tensorcore.Size([1, 2, 2, 2, 2]))
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.avg_pool3d`."""
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )


class AdaptiveAvgPool3d(_Adaptive):
    """3-D average pooling to a fixed output size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AdaptiveAvgPool3d(1)(tc.ones(2, 3, 4, 5, 6)).shape
    tensorcore.Size([2, 3, 1, 1, 1])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.adaptive_avg_pool3d`."""
        return F.adaptive_avg_pool3d(input, self.output_size)


class _AdaptiveMax(_Adaptive):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices


class AdaptiveMaxPool1d(_AdaptiveMax):
    """1-D max pooling to a fixed output length.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AdaptiveMaxPool1d(2)(tc.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
    tensor([[[3., 2.]]])
    """

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.adaptive_max_pool1d`."""
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptiveMax):
    """3-D max pooling to a fixed output size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AdaptiveMaxPool3d((1, 2, 2))(tc.ones(1, 3, 4, 4)).shape
    tensorcore.Size([1, 1, 2, 2])
    """

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.adaptive_max_pool3d`."""
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _LPPool(Module):
    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPool):
    """1-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LPPool1d(2, 2)(tc.tensor([[3.0, 4.0]]))
    tensor([[5.]])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.lp_pool1d`."""
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPool):
    """2-D power-average pooling.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LPPool2d(2, 3)
    LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.lp_pool2d`."""
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(_LPPool):
    """3-D power-average pooling.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LPPool3d(1, 2)(tc.ones(1, 2, 2, 2))
    tensor([[[[8.]]]])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.lp_pool3d`."""
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


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


class MaxUnpool3d(_MaxUnpool):
    """The inverse of :class:`MaxPool3d` with ``return_indices=True`` (zeros elsewhere).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    _nd = 3

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        """See :func:`tensorcore.nn.functional.max_unpool3d`."""
        return F.max_unpool3d(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )


class FractionalMaxPool2d(Module):
    """Fractional max pooling (:func:`tensorcore.nn.functional.fractional_max_pool2d`):
    ``kernel_size`` windows with pseudo-random starts, to ``output_size`` or ``output_ratio``
    (in ``(0, 1)``) times the input's size. ``_random_samples`` (a buffer, ``(N, C, 2)``)
    fixes the windows; without it each call draws new ones.

    Examples
    --------
    >>> import tensorcore as tc
    >>> pool = tc.nn.FractionalMaxPool2d(3, output_ratio=0.5)
    >>> pool(tc.randn(2, 4, 10, 12)).shape
    tensorcore.Size([2, 4, 5, 6])
    """

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 2, "kernel_size")
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = (
            _tuple(output_size, 2, "output_size") if output_size is not None else None
        )
        ratio = output_ratio
        if ratio is not None and not isinstance(ratio, (tuple, list)):
            ratio = (ratio, ratio)
        self.output_ratio = tuple(ratio) if ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.fractional_max_pool2d`."""
        return F.fractional_max_pool2d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool3d(Module):
    """Fractional max pooling of 3-D volumes
    (:func:`tensorcore.nn.functional.fractional_max_pool3d`); ``_random_samples`` is
    ``(N, C, 3)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.FractionalMaxPool3d(2, output_ratio=0.5)(tc.randn(1, 2, 6, 6, 8)).shape
    tensorcore.Size([1, 2, 3, 3, 4])
    """

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 3, "kernel_size")
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = (
            _tuple(output_size, 3, "output_size") if output_size is not None else None
        )
        ratio = output_ratio
        if ratio is not None and not isinstance(ratio, (tuple, list)):
            ratio = (ratio, ratio, ratio)
        self.output_ratio = tuple(ratio) if ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(
                "FractionalMaxPool3d requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        """See :func:`tensorcore.nn.functional.fractional_max_pool3d`."""
        return F.fractional_max_pool3d(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


# PyTorch's names of the shared bases (``isinstance(m, nn.modules.pooling._MaxPoolNd)``).
_MaxPoolNd = _MaxPool
_AvgPoolNd = _AvgPool
_LPPoolNd = _LPPool
