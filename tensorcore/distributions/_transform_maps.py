"""The transforms that map values (elementwise, on vectors or on matrices): exp, power,
sigmoid, softplus, tanh, abs, affine, softmax, stick breaking, Cholesky factors and CDFs.
The public names are in :mod:`.transforms`."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from .. import linalg
from .._tensor import Size, Tensor
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from . import constraints
from ._transform_base import Transform, _Parameterless
from .utils import (
    broadcast_all,
    eps,
    softplus,
    tiny,
    tril_matrix_to_vec,
    vec_to_tril_matrix,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StickBreakingTransform",
    "TanhTransform",
]


class ExpTransform(_Parameterless):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``x``."""
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import PowerTransform
    >>> PowerTransform(2.0).inv(tc.tensor(9.0))
    tensor(3.)
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        """The sign of the exponent."""
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool((self.exponent == other.exponent).all())

    def __hash__(self) -> int:
        return id(self)

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |exponent * y / x|``."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """``shape`` broadcast with the exponent's."""
        return Size(tuple(broadcast_shapes(tuple(shape), tuple(self.exponent.shape))))

    inverse_shape = forward_shape


def _clipped_sigmoid(x: Tensor) -> Tensor:
    return x.sigmoid().clamp(min=tiny(x.dtype), max=1.0 - eps(x.dtype))


class SigmoidTransform(_Parameterless):
    """``y = sigmoid(x)``, kept inside ``(0, 1)`` in floating point."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        y = y.clamp(min=tiny(y.dtype), max=1.0 - eps(y.dtype))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``-softplus(-x) - softplus(x)``."""
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_Parameterless):
    """``y = log(1 + exp(x))``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return (-(-y).expm1()).log() + y

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``-softplus(-x)``."""
        return -softplus(-x)


class TanhTransform(_Parameterless):
    """``y = tanh(x)``; ``log_abs_det_jacobian`` in a form stable for large ``|x|``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``2 (log 2 - x - softplus(-2x))``, i.e. ``log(1 - tanh(x)^2)``."""
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(_Parameterless):
    """``y = |x|`` (not injective: ``inv`` returns the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, with ``event_dim`` rightmost dims summed in the Jacobian.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import AffineTransform
    >>> t = AffineTransform(tc.tensor(1.0), tc.tensor([2.0, -3.0]), event_dim=1)
    >>> x = tc.tensor([1.0, 1.0])
    >>> t(x), t.log_abs_det_jacobian(x, t(x))
    (tensor([ 3., -2.]), tensor(1.7918))
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        """The event dims given at construction."""
        return self._event_dim

    @property
    def domain(self) -> Any:
        """Reals with ``event_dim`` event dims."""
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    @property
    def codomain(self) -> Any:
        """Reals with ``event_dim`` event dims."""
        return self.domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return _same(self.loc, other.loc) and _same(self.scale, other.scale)

    def __hash__(self) -> int:
        return id(self)

    @property
    def sign(self) -> Any:
        """The sign of ``scale``."""
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        return self.loc + self.scale * x

    def _inverse(self, y: Tensor) -> Tensor:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |scale|``, summed over the event dims."""
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = ops.full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log()
        if self._event_dim:
            result = result.reshape(*result.shape[: result.dim() - self._event_dim], -1).sum(-1)
            shape = shape[: len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """``shape`` broadcast with those of ``loc`` and ``scale``."""
        shapes = [tuple(shape)] + [
            tuple(v.shape) for v in (self.loc, self.scale) if isinstance(v, Tensor)
        ]
        return Size(tuple(broadcast_shapes(*shapes)))

    inverse_shape = forward_shape


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return bool((a == b).all())
    return False


class SoftmaxTransform(_Parameterless):
    """``y = softmax(x)`` over the last dim (not injective: ``inv`` is ``log``)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """Unchanged (at least one dim)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(tuple(shape))

    inverse_shape = forward_shape


class StickBreakingTransform(_Parameterless):
    """Maps ``R^(K-1)`` onto the ``K``-simplex by stick breaking: each coordinate takes a
    sigmoid fraction of what remains (offset so that zeros map to the simplex's centre).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import StickBreakingTransform
    >>> StickBreakingTransform()(tc.zeros(2))
    tensor([0.3333, 0.3333, 0.3333])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _offset(n: int, like: Tensor) -> Tensor:
        """``n, n - 1, ..., 1``: the number of pieces left at each break."""
        return ops.arange(n, 0, -1, dtype=like.dtype, device=like.device)

    def _call(self, x: Tensor) -> Tensor:
        z = _clipped_sigmoid(x - self._offset(x.shape[-1], x).log())
        rest = (1 - z).cumprod(-1)
        ones = ops.ones((*x.shape[:-1], 1), dtype=x.dtype, device=x.device)
        return ops.cat([z, ones], -1) * ops.cat([ones, rest], -1)

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        offset = self._offset(y_crop.shape[-1], y)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=tiny(y.dtype))
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``sum(-x' + logsigmoid(x') + log y[:-1])`` with ``x'`` the offset input."""
        x = x - self._offset(x.shape[-1], x).log()
        return (-x - softplus(-x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """One more entry in the last dim."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size((*shape[:-1], shape[-1] + 1))

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """One fewer entry in the last dim."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size((*shape[:-1], shape[-1] - 1))


class LowerCholeskyTransform(_Parameterless):
    """Square matrices to lower-triangular ones with a positive diagonal: the strictly lower
    triangle kept, the diagonal exponentiated (not bijective on all matrices)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Tensor) -> Tensor:
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().diag_embed()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.tril(-1) + y.diagonal(0, -2, -1).log().diag_embed()


class PositiveDefiniteTransform(_Parameterless):
    """Square matrices to positive definite ones: ``L @ L.mT`` of the
    :class:`LowerCholeskyTransform` of ``x``."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Tensor) -> Tensor:
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y: Tensor) -> Tensor:
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class CorrCholeskyTransform(_Parameterless):
    """Unconstrained vectors of length ``D (D - 1) / 2`` to Cholesky factors of ``D x D``
    correlation matrices: tanh gives partial correlations, filled row by row so that each
    row has unit norm (the LKJ construction)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    @staticmethod
    def _size(m: int) -> int:
        n = round((1 + math.sqrt(1 + 8 * m)) / 2)
        if n * (n - 1) // 2 != m:
            raise ValueError("The last dimension of the input must be a triangular number")
        return n

    def _call(self, x: Tensor) -> Tensor:
        z = x.tanh().clamp(min=-1 + eps(x.dtype), max=1 - eps(x.dtype))
        r = vec_to_tril_matrix(z, diag=-1)
        n = r.shape[-1]
        eye = ops.eye(n, dtype=x.dtype, device=x.device)
        # Row i: r_ij * sqrt(1 - sum_{k<j} w_ik^2); the diagonal takes what norm is left.
        z1m_cumprod_sqrt = (1 - r.pow(2)).sqrt().cumprod(-1)
        shifted = ops.cat(
            [ops.ones_like(z1m_cumprod_sqrt[..., :1]), z1m_cumprod_sqrt[..., :-1]], -1
        )
        return (r + eye) * shifted

    def _inverse(self, y: Tensor) -> Tensor:
        y_cumsum = 1 - y.pow(2).cumsum(-1)
        y_cumsum_shifted = ops.cat([ops.ones_like(y_cumsum[..., :1]), y_cumsum[..., :-1]], -1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        denom = tril_matrix_to_vec(y_cumsum_shifted, diag=-1).clamp(min=tiny(y.dtype))
        t = y_vec / denom.sqrt()
        return t.clamp(min=-1 + eps(y.dtype), max=1 - eps(y.dtype)).atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The tanh terms plus half the log of the remaining norms, summed."""
        y1m_cumsum = 1 - y.pow(2).cumsum(-1)
        shifted = ops.cat([ops.ones_like(y1m_cumsum[..., :1]), y1m_cumsum[..., :-1]], -1)
        stick = tril_matrix_to_vec(shifted, diag=-1).log().sum(-1) * 0.5
        tanh_term = (2.0 * (math.log(2.0) - x - softplus(-2.0 * x))).sum(-1)
        return stick + tanh_term

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """``(..., D (D - 1) / 2)`` to ``(..., D, D)``."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = self._size(shape[-1])
        return Size((*shape[:-1], n, n))

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """``(..., D, D)`` to ``(..., D (D - 1) / 2)``."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        n = shape[-1]
        return Size((*shape[:-2], n * (n - 1) // 2))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: reals to ``[0, 1]``, the density as its Jacobian."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:
        """The distribution's support."""
        return self.distribution.support

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The distribution's ``log_prob(x)``."""
        return self.distribution.log_prob(x)
