"""Convolution layers: ``Conv1d``, ``Conv2d``, ``Conv3d``, ``ConvTranspose1d/2d/3d``."""

from __future__ import annotations

import math
from typing import Any

from ..._tensor import Tensor
from ...ops import functions as ops
from .. import functional as F
from .. import init
from .._conv import _tuple
from ..parameter import Parameter
from .linear import _factory
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    _nd = 0
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
        output_padding: Any = 0,
    ) -> None:
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {list(_PADDING_MODES)}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, nd, "kernel_size")
        self.stride = _tuple(stride, nd, "stride")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of ['valid', 'same']"
                )
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding: Any = padding
        else:
            self.padding = _tuple(padding, nd, "padding")
        self.dilation = _tuple(dilation, nd, "dilation")
        self.output_padding = _tuple(output_padding, nd, "output_padding")
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = self._transposed
        kw = _factory(device, dtype)
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(ops.empty(shape, **kw))
        if bias:
            self.bias = Parameter(ops.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: ``kaiming_uniform_(a=sqrt(5))`` for the weight, ``U(-b, b)``
        with ``b = 1 / sqrt(fan_in)`` for the bias."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self._nd:
            s += (
                f", padding={self.padding!r}"
                if isinstance(self.padding, str)
                else (f", padding={self.padding}")
            )
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        fn = (F.conv1d, F.conv2d, F.conv3d)[self._nd - 1]
        if self.padding_mode != "zeros":
            return fn(
                F.pad(input, self._pads(), mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                0,
                self.dilation,
                self.groups,
            )
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def _pads(self) -> list[int]:
        """``F.pad``'s pads (last dim first) for a ``padding_mode`` other than zeros; for
        ``padding="same"``, PyTorch's split of ``dilation * (kernel_size - 1)``, the extra
        element on the right."""
        pads: list[int] = []
        for d in reversed(range(self._nd)):
            if self.padding == "valid":
                pads += [0, 0]
            elif self.padding == "same":
                total = self.dilation[d] * (self.kernel_size[d] - 1)
                pads += [total // 2, total - total // 2]
            else:
                pads += [self.padding[d], self.padding[d]]
        return pads

    def forward(self, input: Tensor) -> Tensor:
        """The convolution of ``input`` with this layer's weight and bias."""
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) inputs."""

    _nd = 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("output_padding", None)
        super().__init__(*args, **kwargs)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> conv = tc.nn.Conv2d(1, 4, 3, padding=1)
    >>> conv
    Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    >>> conv(tc.ones(2, 1, 8, 8)).shape
    tensorcore.Size([2, 4, 8, 8])
    """

    _nd = 2

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("output_padding", None)
        super().__init__(*args, **kwargs)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) inputs."""

    _nd = 3

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.pop("output_padding", None)
        super().__init__(*args, **kwargs)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
            output_padding,
        )

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        """The transposed convolution; ``output_size`` picks the output padding that gives
        that size (strided layers have several possible sizes)."""
        nd = self._nd
        opad = self.output_padding
        if output_size is not None:
            want = tuple(output_size)[-nd:]
            opad = tuple(
                want[i]
                - (
                    (input.shape[-nd + i] - 1) * self.stride[i]
                    - 2 * self.padding[i]
                    + self.dilation[i] * (self.kernel_size[i] - 1)
                    + 1
                )
                for i in range(nd)
            )
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            opad,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution."""

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution (weight (C_in, C_out / groups, kH, kW)).

    Examples
    --------
    >>> import tensorcore as tc
    >>> up = tc.nn.ConvTranspose2d(4, 2, 2, stride=2)
    >>> up(tc.ones(1, 4, 3, 3)).shape
    tensorcore.Size([1, 2, 6, 6])
    """

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution."""

    _nd = 3
