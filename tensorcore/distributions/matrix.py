"""Distributions over matrices: ``Wishart`` (positive definite matrices) and ``LKJCholesky``
(Cholesky factors of correlation matrices), as ``torch.distributions``' (same parameters,
formulas, checks and messages; the draws are exact but not PyTorch's draws)."""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

from .. import linalg
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from ..special import multigammaln
from . import constraints
from .continuous import Beta
from .distribution import Distribution, _shape
from .exp_family import ExponentialFamily
from .univariate import Chi2
from .utils import _tensor, broadcast_all, eps, lazy_property, tiny

__all__ = ["LKJCholesky", "Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma function ``sum_{j < p} digamma(x - j / 2)``."""
    shifts = ops.arange(p, dtype=x.dtype, device=x.device) * -0.5
    return (x.unsqueeze(-1) + shifts).digamma().sum(-1)


def _tril_inverse(L: Tensor) -> Tensor:
    """``L^-1`` for a batch of lower-triangular ``L`` (a solve against the identity)."""
    n = L.shape[-1]
    eye = ops.eye(n, dtype=L.dtype, device=L.device).expand(*L.shape)
    return linalg.solve(L, eye)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom over positive definite
    ``p x p`` matrices, with scale matrix given as exactly one of ``covariance_matrix``,
    ``precision_matrix`` (its inverse) or ``scale_tril`` (its lower Cholesky factor, the
    one used internally). ``df`` must be greater than ``p - 1``.

    ``rsample`` uses the Bartlett decomposition ``X = (L A)(L A)^T``, ``A`` lower triangular
    with ``sqrt(Chi2(df - i))`` on the diagonal and standard normals below it, so it is
    differentiable in ``df`` and in the scale. Draws that are not numerically positive
    definite (likely for ``p - 1 < df < p``) are redrawn up to ``max_try_correction``
    times (default 10), with a warning.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Wishart(tc.tensor(4.0), covariance_matrix=tc.eye(2))
    >>> d.mean, d.batch_shape, d.event_shape
    (tensor([[4., 0.],
            [0., 4.]]), tensorcore.Size([]), tensorcore.Size([2, 2]))
    >>> d.sample((3,)).shape
    tensorcore.Size([3, 2, 2])
    >>> round(d.log_prob(tc.eye(2)).item(), 4), round(d.entropy().item(), 4)
    (-4.2242, 6.3014)
    """

    support: Any = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """The matrices' constraints, and ``df > p - 1``."""
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self._event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        param = _tensor(
            covariance_matrix if given[0] else precision_matrix if given[1] else scale_tril
        )
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        # PyTorch keeps a number df 0-d, so its mean and variance fail for a batch of
        # matrices; here df always has the batch shape.
        df_t = _tensor(df, param)
        batch = tuple(broadcast_shapes(param.shape[:-2], df_t.shape))
        self.df = df_t.expand(batch)
        p = param.shape[-1]
        event = tuple(param.shape[-2:])
        if bool((self.df <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        setattr(self, name, param.expand(*batch, *event))
        if bool((self.df < p).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                UserWarning,
                stacklevel=2,
            )
        super().__init__(batch, event, validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = param
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(param)
        else:
            # P = U U^T with U = flip(chol(flip(P))) upper triangular, so P^-1 = L L^T with
            # L = U^-T lower triangular: no inverse of P itself is formed.
            upper = linalg.cholesky(param.flip((-2, -1))).flip((-2, -1))
            self._unbroadcasted_scale_tril = _tril_inverse(upper.mT)
        self._dist_chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self) -> Chi2:
        """``Chi2(df - i)`` for the ``i``-th diagonal entry of the Bartlett factor."""
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        steps = ops.arange(p, dtype=L.dtype, device=L.device)
        return Chi2(self.df.unsqueeze(-1) - steps, validate_args=False)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        """The same distribution broadcast to ``batch_shape``."""
        shape = _shape(batch_shape)
        new = object.__new__(Wishart)
        new.__dict__.update(self.__dict__)
        full = (*shape, *self._event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(full)
        new.df = self.df.expand(shape)
        for key in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if key in self.__dict__:
                new.__dict__[key] = self.__dict__[key].expand(full)
        new._batch_shape = shape
        new._dist_chi2 = new._bartlett_chi2()
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The scale matrix ``scale_tril @ scale_tril.mT``."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the scale matrix."""
        return self._precision.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def _precision(self) -> Tensor:
        Linv = _tril_inverse(self._unbroadcasted_scale_tril)
        return Linv.mT @ Linv

    def _df_matrix(self) -> Tensor:
        return self.df.reshape(*self._batch_shape, 1, 1)

    @property
    def mean(self) -> Tensor:
        """``df * covariance_matrix``."""
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        """``(df - p - 1) * covariance_matrix``, NaN where ``df <= p + 1``."""
        factor = self.df - self._event_shape[-1] - 1
        factor = ops.where(factor <= 0, math.nan, factor)
        return factor.reshape(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        """``Var(X_ij) = df (V_ij^2 + V_ii V_jj)`` with ``V`` the covariance matrix."""
        V = self.covariance_matrix
        d = V.diagonal(0, -2, -1)
        return self._df_matrix() * (V.pow(2) + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: tuple[int, ...]) -> Tensor:
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=eps(diag.dtype))
        below = ops.randn((*sample_shape, *self._batch_shape, p, p), dtype=L.dtype, device=L.device)
        factor = L @ (below.tril(-1) + diag.diag_embed())
        return factor @ factor.mT

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None) -> Tensor:
        """Draws through the Bartlett decomposition; each draw that is not positive definite
        is redrawn, at most ``max_try_correction`` times (10 by default). A draw that stays
        singular is returned as it is (its ``log_prob`` may be ``-inf``)."""
        tries = 10 if max_try_correction is None else max_try_correction
        shape = _shape(sample_shape)
        sample = self._bartlett_sampling(shape)
        with no_grad():
            ok = self.support.check(sample)
        if not bool(ok.all()):
            warnings.warn("Singular sample detected.", UserWarning, stacklevel=2)
            for _ in range(tries):
                fresh = self._bartlett_sampling(shape)
                sample = ops.where(ok.unsqueeze(-1).unsqueeze(-1), sample, fresh)
                with no_grad():
                    ok = self.support.check(sample)
                if bool(ok.all()):
                    break
        return sample

    def _log_det_scale(self) -> Tensor:
        """``log det(V) / 2 = sum log diag(scale_tril)``."""
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        """``(df - p - 1) / 2 log det X - tr(V^-1 X) / 2 - df p / 2 log 2 - df / 2 log det V
        - log Gamma_p(df / 2)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.df)
        nu = self.df
        p = self._event_shape[-1]
        trace = (self._precision * value).sum((-2, -1))
        return (
            -nu * (p * _LOG_2 / 2 + self._log_det_scale())
            - multigammaln(nu / 2, p)
            + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet
            - trace / 2
        )

    def entropy(self) -> Tensor:
        """``(p + 1)(p log 2 / 2 + log det V / 2) + log Gamma_p(df / 2)
        - (df - p - 1) / 2 psi_p(df / 2) + df p / 2``."""
        nu = self.df
        p = self._event_shape[-1]
        return (
            (p + 1) * (p * _LOG_2 / 2 + self._log_det_scale())
            + multigammaln(nu / 2, p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        p = self._event_shape[-1]
        return (-self.precision_matrix / 2, (self.df - p - 1) / 2)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        x, y = params
        p = self._event_shape[-1]
        a = y + (p + 1) / 2
        return a * (-linalg.slogdet(-2 * x).logabsdet + _LOG_2 * p) + multigammaln(a, p)


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors ``L`` of ``dim x dim`` correlation
    matrices: the correlation matrix ``L L^T`` has density proportional to
    ``det(L L^T)^(concentration - 1)`` (uniform over correlation matrices for
    ``concentration = 1``).

    ``sample`` follows the onion method of Lewandowski, Kurowicka and Joe (2009, section
    3.2), written for the Cholesky factor: row ``i`` is ``sqrt(y_i) u_i`` below the
    diagonal, with ``u_i`` uniform on the unit sphere of the first ``i`` coordinates and
    ``y_i ~ Beta(i / 2, concentration + (dim - 1 - i) / 2)``, and the diagonal entry that
    makes the row a unit vector.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.LKJCholesky(3, 0.5)
    >>> L = d.sample()
    >>> L.shape, bool(tc.allclose((L @ L.mT).diagonal(), tc.ones(3)))
    (tensorcore.Size([3, 3]), True)
    >>> round(d.log_prob(tc.eye(3)).item(), 4)
    -2.531
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive
    }
    support: Any = constraints.corr_cholesky

    def __init__(
        self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        c = self.concentration
        # The squared norm of row k's off-diagonal part is Beta(k / 2, c + (dim - 1 - k) / 2)
        # (row 0 has none; it gets row 1's law). PyTorch's first shape is k - 1/2, right
        # for k = 1 only: its draws of dim >= 3 are not LKJ (the marginals of the entries
        # below the second row are too wide); the tests check the marginals.
        marginal = c + 0.5 * (dim - 2)
        offset = ops.cat(
            [
                ops.zeros(1, dtype=c.dtype, device=c.device),
                ops.arange(dim - 1, dtype=c.dtype, device=c.device),
            ]
        )
        self._beta = Beta(
            0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset, validate_args=False
        )
        super().__init__(tuple(c.shape), (dim, dim), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        """The same distribution broadcast to ``batch_shape``."""
        shape = _shape(batch_shape)
        new = object.__new__(LKJCholesky)
        new.__dict__.update(self.__dict__)
        new.concentration = self.concentration.expand(shape)
        new._beta = self._beta.expand((*shape, self.dim))
        new._batch_shape = shape
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draws by the onion method (no gradients: there is no ``rsample``)."""
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            c = self.concentration
            u = ops.randn(self._extended_shape(sample_shape), dtype=c.dtype, device=c.device)
            u = u.tril(-1)
            norm = u.norm(dim=-1, keepdim=True)
            # The first row has no off-diagonal part: keep it zero instead of 0 / 0.
            u = u / ops.where(norm > 0, norm, ops.ones_like(norm))
            w = y.sqrt() * u
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny(w.dtype)).sqrt()
            return w + diag.diag_embed()

    def log_prob(self, value: Any) -> Tensor:
        """``sum_{i >= 1} (2 (concentration - 1) + dim - 1 - i) log L_ii`` minus the log of
        the normalising constant (page 1999 of Lewandowski et al.)."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.concentration)
        diag = value.diagonal(0, -2, -1)[..., 1:]
        c = self.concentration
        order = -ops.arange(2, self.dim + 1, dtype=c.dtype, device=c.device) + self.dim
        order = order + 2 * (c - 1).unsqueeze(-1)
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = c + 0.5 * dm1
        log_norm = 0.5 * dm1 * math.log(math.pi) + multigammaln(alpha - 0.5, dm1)
        log_norm = log_norm - alpha.lgamma() * dm1
        return unnormalized - log_norm
