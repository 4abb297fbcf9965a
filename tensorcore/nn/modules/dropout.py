"""``Dropout`` (active in training mode only)."""

from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "AlphaDropout",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "FeatureAlphaDropout",
]


class Dropout(Module):
    """Zero elements with probability ``p`` in training mode, scaling the rest by
    ``1 / (1 - p)``; the identity in eval mode.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.nn.Dropout(0.5).eval()
    >>> d(tc.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.dropout`."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Dropout):
    _fn = "dropout2d"

    def forward(self, input: Tensor) -> Tensor:
        """Channel dropout (see :func:`tensorcore.nn.functional.dropout2d`)."""
        return getattr(F, self._fn)(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) inputs in training mode."""

    _fn = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zero whole channels (feature maps) of (N, C, H, W) inputs in training mode."""

    _fn = "dropout2d"


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs in training mode."""

    _fn = "dropout3d"


class AlphaDropout(Dropout):
    """Alpha dropout in training mode (:func:`tensorcore.nn.functional.alpha_dropout`): keeps
    the mean and variance of SELU activations; the identity in eval mode.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.AlphaDropout(0.2).eval()(tc.ones(2))
    tensor([1., 1.])
    """

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.alpha_dropout`."""
        return F.alpha_dropout(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels in training mode
    (:func:`tensorcore.nn.functional.feature_alpha_dropout`)."""

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.feature_alpha_dropout`."""
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)
