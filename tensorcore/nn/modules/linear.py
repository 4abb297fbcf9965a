"""``Identity``, ``Linear``, ``Bilinear``, ``Flatten``, ``Unflatten``."""

from __future__ import annotations

import math
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Bilinear", "Flatten", "Identity", "Linear", "Unflatten"]


def _factory(device: Any, dtype: Any) -> dict[str, Any]:
    """The ``device``/``dtype`` keywords every layer passes to its parameter factories."""
    return {"device": device, "dtype": dtype if dtype is not None else dt.get_default_dtype()}


class Identity(Module):
    """Returns its input (arguments are accepted and ignored).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Identity(54, unused="x")(tc.ones(2)).shape
    tensorcore.Size([2])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        """``input``."""
        return input


class Linear(Module):
    """``y = x W^T + b`` with ``W`` of shape (out_features, in_features), both initialised
    from ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> fc = tc.nn.Linear(3, 2)
    >>> fc.weight.shape, fc.bias.shape, fc(tc.ones(5, 3)).shape
    (tensorcore.Size([2, 3]), tensorcore.Size([2]), tensorcore.Size([5, 2]))
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        kw = _factory(device, dtype)
        self.weight = Parameter(ops.empty((out_features, in_features), **kw))
        if bias:
            self.bias = Parameter(ops.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default initialisation."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        """``F.linear(input, weight, bias)``."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``A`` of shape (out, in1, in2)."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        kw = _factory(device, dtype)
        self.weight = Parameter(ops.empty((out_features, in1_features, in2_features), **kw))
        if bias:
            self.bias = Parameter(ops.empty(out_features, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """``U(-1/sqrt(in1), 1/sqrt(in1))`` for weight and bias, as in PyTorch."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """``x1^T A x2 + b`` for each pair of rows of ``input1`` and ``input2``."""
        lead = input1.shape[:-1]
        a = input1.reshape(-1, input1.shape[-1])
        b = input2.reshape(-1, input2.shape[-1])
        y = ops.einsum("bi,oij,bj->bo", a, self.weight, b).reshape(*lead, self.out_features)
        return y if self.bias is None else y + self.bias

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class Flatten(Module):
    """Flattens dims ``start_dim`` to ``end_dim`` (all but the batch dim by default).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Flatten()(tc.ones(2, 3, 4)).shape
    tensorcore.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        """``input.flatten(start_dim, end_dim)``."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Unflatten(1, (2, 3))(tc.ones(4, 6)).shape
    tensorcore.Size([4, 2, 3])
    """

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        """``input.unflatten(dim, unflattened_size)``."""
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
