"""Activation layers: thin modules over ``tensorcore.nn.functional``."""

from __future__ import annotations

from typing import Any

from ..._tensor import Tensor
from .. import functional as F
from .attention import MultiheadAttention  # PyTorch's module path of it (DETR imports it here)
from .module import Module

__all__ = [
    "CELU",
    "ELU",
    "GELU",
    "GLU",
    "SELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "MultiheadAttention",
    "RReLU",
    "ReLU",
    "ReLU6",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
]


class _Inplace(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class ReLU(_Inplace):
    """``max(x, 0)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.ReLU()(tc.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.relu`."""
        return F.relu(input, self.inplace)


class ReLU6(_Inplace):
    """``min(max(x, 0), 6)``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.relu6`."""
        return F.relu6(input, self.inplace)


class SiLU(_Inplace):
    """``x * sigmoid(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.silu`."""
        return F.silu(input, self.inplace)


class Mish(_Inplace):
    """``x * tanh(softplus(x))``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.mish`."""
        return F.mish(input, self.inplace)


class SELU(_Inplace):
    """Scaled ELU."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.selu`."""
        return F.selu(input, self.inplace)


class Hardsigmoid(_Inplace):
    """``relu6(x + 3) / 6``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.hardsigmoid`."""
        return F.hardsigmoid(input, self.inplace)


class Hardswish(_Inplace):
    """``x * relu6(x + 3) / 6``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.hardswish`."""
        return F.hardswish(input, self.inplace)


class LeakyReLU(Module):
    """``x`` for positive ``x``, else ``negative_slope * x``."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.leaky_relu`."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class RReLU(Module):
    """Randomized leaky ReLU: ``x`` for positive ``x``, else ``a * x`` with a slope ``a``
    drawn uniformly from ``[lower, upper]`` for each element in training mode, and the mean
    slope ``(lower + upper) / 2`` in eval mode.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.RReLU(0.1, 0.3).eval()
    >>> m(tc.tensor([-1.0, 2.0]))
    tensor([-0.2000,  2.0000])
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.rrelu`."""
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}" + (
            ", inplace=True" if self.inplace else ""
        )


class ELU(Module):
    """``x`` for positive ``x``, else ``alpha * (exp(x) - 1)``."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.elu`."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.hardtanh`."""
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}" + (
            ", inplace=True" if self.inplace else ""
        )


class GELU(Module):
    """Gaussian error linear unit; ``approximate="tanh"`` for the tanh form."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.gelu`."""
        return F.gelu(input, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta``."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.softplus`."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class _Plain(Module):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()


class Tanh(_Plain):
    """Hyperbolic tangent."""

    def forward(self, input: Tensor) -> Tensor:
        """``input.tanh()``."""
        return F.tanh(input)


class Sigmoid(_Plain):
    """Logistic sigmoid."""

    def forward(self, input: Tensor) -> Tensor:
        """``input.sigmoid()``."""
        return F.sigmoid(input)


class LogSigmoid(_Plain):
    """``log(sigmoid(x))``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.logsigmoid`."""
        return F.logsigmoid(input)


class Softsign(_Plain):
    """``x / (1 + |x|)``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.softsign`."""
        return F.softsign(input)


class Softmax(Module):
    """Softmax along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Softmax(dim=1)(tc.zeros(1, 4))
    tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.softmax`."""
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """Log-softmax along ``dim``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.log_softmax`."""
        return F.log_softmax(input, self.dim)


class GLU(Module):
    """Gated linear unit along ``dim``: ``a * sigmoid(b)`` of the two halves.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.GLU()
    GLU(dim=-1)
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.glu`."""
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Softmin(dim=0)(tc.tensor([1.0, 1.0]))
    tensor([0.5000, 0.5000])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.softmin`."""
        return F.softmin(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Threshold(0.1, 20)
    Threshold(threshold=0.1, value=20)
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.threshold`."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        extra = ", inplace=True" if self.inplace else ""
        return f"threshold={self.threshold}, value={self.value}{extra}"


class CELU(Module):
    """``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.CELU(0.5, inplace=True)
    CELU(alpha=0.5, inplace=True)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.celu`."""
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Hardshrink()
    Hardshrink(0.5)
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.hardshrink`."""
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved ``lambd`` towards 0, and 0 within ``lambd`` of it."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.softshrink`."""
        return F.softshrink(input, self.lambd)


class Tanhshrink(_Plain):
    """``x - tanh(x)``."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.tanhshrink`."""
        return F.tanhshrink(input)


class Softmax2d(_Plain):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.Softmax2d()(tc.zeros(1, 2, 1, 1)).flatten()
    tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        """``softmax(input, -3)``."""
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)
