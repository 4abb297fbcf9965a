"""Small layers over ``tensorcore.nn.functional``: ``PReLU``, ``Upsample``, the padding
layers, ``CosineSimilarity``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from ...ops import functions as ops
from .. import functional as F
from ..parameter import Parameter
from .linear import _factory
from .module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "CosineSimilarity",
    "PReLU",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


class PReLU(Module):
    """``x`` for positive ``x``, else ``a * x`` with a learned ``a`` (one, or one per
    channel), initialised to ``init``."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(ops.full((num_parameters,), init, **_factory(device, dtype)))

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.prelu`."""
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Upsample(Module):
    """Resize with :func:`tensorcore.nn.functional.interpolate`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Upsample(scale_factor=2)(tc.ones(1, 1, 2, 3)).shape
    tensorcore.Size([1, 1, 4, 6])
    """

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        """The resized input."""
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        what = (
            f"scale_factor={float(self.scale_factor)}"
            if self.size is None
            else (f"size={self.size}")
        )
        return f"{what}, mode='{self.mode}'"


class UpsamplingNearest2d(Upsample):
    """PyTorch's older name of ``Upsample(mode="nearest")`` for 2-D inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """PyTorch's older name of ``Upsample(mode="bilinear", align_corners=True)``."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class _Pad(Module):
    _nd = 1
    _mode = "constant"

    def __init__(self, padding: Any, value: float | None = None) -> None:
        super().__init__()
        n = 2 * self._nd
        self.padding = (padding,) * n if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != n:
            raise ValueError(f"{type(self).__name__} takes an int or {n} ints of padding")
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.pad`."""
        value = self.value if self._mode == "constant" else None
        return F.pad(input, self.padding, self._mode, value)

    def extra_repr(self) -> str:
        extra = f", value={self.value}" if self._mode == "constant" else ""
        return f"{self.padding}{extra}"


class ConstantPad1d(_Pad):
    """Pad the last dim with ``value``."""

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(ConstantPad1d):
    """Pad the last two dims with ``value``."""

    _nd = 2


class ZeroPad2d(_Pad):
    """Pad the last two dims with zeros."""

    _nd = 2

    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_Pad):
    """Pad the last dim by reflection."""

    _mode = "reflect"


class ReflectionPad2d(ReflectionPad1d):
    """Pad the last two dims by reflection."""

    _nd = 2


class ReplicationPad1d(_Pad):
    """Pad the last dim by repeating the edge."""

    _mode = "replicate"


class ReplicationPad2d(ReplicationPad1d):
    """Pad the last two dims by repeating the edge."""

    _nd = 2


class ConstantPad3d(ConstantPad1d):
    """Pad the last three dims with ``value``."""

    _nd = 3


class ZeroPad1d(ZeroPad2d):
    """Pad the last dim with zeros."""

    _nd = 1


class ZeroPad3d(ZeroPad2d):
    """Pad the last three dims with zeros."""

    _nd = 3


class ReflectionPad3d(ReflectionPad1d):
    """Pad the last three dims by reflection."""

    _nd = 3


class ReplicationPad3d(ReplicationPad1d):
    """Pad the last three dims by repeating the edge."""

    _nd = 3


class CircularPad1d(_Pad):
    """Pad the last dim of a 2-D or 3-D input circularly (with the values from the other
    end, as if the dim wrapped around).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.CircularPad1d(2)(tc.arange(4.0).view(1, 1, 4))
    tensor([[[2., 3., 0., 1., 2., 3., 0., 1.]]])
    """

    _mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.pad` (``mode="circular"``)."""
        if input.ndim not in (self._nd + 1, self._nd + 2):
            raise ValueError(
                f"expected {self._nd + 1}D or {self._nd + 2}D input (got {input.ndim}D input)"
            )
        return super().forward(input)


class CircularPad2d(CircularPad1d):
    """Pad the last two dims of a 3-D or 4-D input circularly."""

    _nd = 2


class CircularPad3d(CircularPad1d):
    """Pad the last three dims of a 4-D or 5-D input circularly."""

    _nd = 3


class CosineSimilarity(Module):
    """Cosine similarity of two inputs along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.cosine_similarity`."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
