"""Distributions over vectors: ``MultivariateNormal``, ``LowRankMultivariateNormal`` and
``Independent`` (batch dims reinterpreted as event dims), as ``torch.distributions``'."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .. import linalg
from .._tensor import Tensor
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from . import constraints
from .distribution import Distribution, _shape
from .utils import _tensor, lazy_property, sum_rightmost

__all__ = ["Independent", "LowRankMultivariateNormal", "MultivariateNormal"]


def _tril_solve(L: Tensor, b: Tensor) -> Tensor:
    """``L^-1 b`` for vectors ``b`` (the last dim), broadcasting batch dims."""
    batch = tuple(broadcast_shapes(L.shape[:-2], b.shape[:-1]))
    n = L.shape[-1]
    sol: Tensor = linalg.solve(L.expand(*batch, n, n), b.expand(*batch, n).unsqueeze(-1))
    return sol.squeeze(-1)


class MultivariateNormal(Distribution):
    """The normal distribution on vectors of the last dim of ``loc``, given exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (a lower-triangular
    factor with a positive diagonal).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.MultivariateNormal(tc.zeros(2), tc.eye(2))
    >>> d.sample((3,)).shape, d.event_shape
    (tensorcore.Size([3, 2]), tensorcore.Size([2]))
    >>> round(d.log_prob(tc.zeros(2)).item(), 4), round(d.entropy().item(), 4)
    (-1.8379, 2.8379)
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support: Any = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        loc = _tensor(loc)
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        name = ("covariance_matrix", "precision_matrix", "scale_tril")[given.index(True)]
        m = _tensor(covariance_matrix if given[0] else precision_matrix if given[1] else scale_tril)
        if m.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name.replace("_", " ")
            raise ValueError(
                f"{what} must be at least two-dimensional, with optional leading batch dimensions"
            )
        batch = tuple(broadcast_shapes(m.shape[:-2], loc.shape[:-1]))
        n = loc.shape[-1]
        self._param_name = name
        self.loc = loc.expand(*batch, n)
        setattr(self, name, m.expand(*batch, n, n))
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = m
        super().__init__(batch, (n,), validate_args=validate_args)
        if name != "scale_tril":
            cov = m if name == "covariance_matrix" else linalg.inv(m)
            self._unbroadcasted_scale_tril = linalg.cholesky(cov)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        """The same distribution broadcast to ``batch_shape``."""
        shape = _shape(batch_shape)
        new = object.__new__(MultivariateNormal)
        new.__dict__.update(self.__dict__)
        n = self._event_shape[0]
        new.loc = self.loc.expand(*shape, n)
        for key in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if key in self.__dict__:
                new.__dict__[key] = self.__dict__[key].expand(*shape, n, n)
        new._batch_shape = shape
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        n = self._event_shape[0]
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, n, n)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``scale_tril @ scale_tril.mT``."""
        L = self._unbroadcasted_scale_tril
        n = self._event_shape[0]
        return (L @ L.mT).expand(*self._batch_shape, n, n)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance."""
        n = self._event_shape[0]
        return linalg.inv(self.covariance_matrix).expand(*self._batch_shape, n, n)

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The diagonal of the covariance."""
        L = self._unbroadcasted_scale_tril
        return L.pow(2).sum(-1).expand(*self._batch_shape, self._event_shape[0])

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + scale_tril @ eps`` with ``eps`` standard normal."""
        shape = self._extended_shape(sample_shape)
        eps = ops.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> Tensor:
        """``-(k log(2 pi) + |L^-1 (x - loc)|^2) / 2 - sum log diag(L)``."""
        if self._validate_args:
            self._validate_sample(value)
        value = _tensor(value, self.loc)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        m = _tril_solve(L, diff).pow(2).sum(-1)
        half_log_det = L.diagonal(0, -2, -1).log().sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - half_log_det

    def entropy(self) -> Tensor:
        """``k (1 + log(2 pi)) / 2 + sum log diag(L)``."""
        n = self._event_shape[0]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + half_log_det
        return h.expand(self._batch_shape) if self._batch_shape else h


class Independent(Distribution):
    """``base_distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch dims read
    as event dims: ``log_prob`` and ``entropy`` sum over them.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import Independent, Normal
    >>> d = Independent(Normal(tc.zeros(3, 2), 1.0), 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(tc.zeros(3, 2)).shape
    (tensorcore.Size([3]), tensorcore.Size([2]), tensorcore.Size([3]))
    """

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: bool | None = None,
    ) -> None:
        base_batch = base_distribution._batch_shape
        if reinterpreted_batch_ndims > len(base_batch):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(base_batch)}"
            )
        cut = len(base_batch) - reinterpreted_batch_ndims
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(
            base_batch[:cut],
            base_batch[cut:] + base_distribution._event_shape,
            validate_args=validate_args,
        )

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"

    @constraints.dependent_property
    def support(self) -> constraints.Constraint:
        """The base support, with the reinterpreted dims as event dims."""
        result: constraints.Constraint = self.base_dist.support
        n = self.reinterpreted_batch_ndims
        return constraints.independent(result, n) if n else result

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        """The base distribution expanded to ``batch_shape`` plus the reinterpreted dims."""
        shape = _shape(batch_shape)
        k = self.reinterpreted_batch_ndims
        tail = self.base_dist._batch_shape[len(self.base_dist._batch_shape) - k :]
        base = self.base_dist.expand(shape + tail)
        return Independent(base, k, validate_args=False)

    @property
    def mean(self) -> Tensor:
        """The base distribution's mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        """The base distribution's mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        """The base distribution's variance."""
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """The base distribution's sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """The base distribution's reparameterised sample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Any) -> Tensor:
        """The base log probability summed over the reinterpreted dims."""
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        """The base entropy summed over the reinterpreted dims."""
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)


def _capacitance_tril(W: Tensor, D: Tensor) -> Tensor:
    """The Cholesky factor of ``I + W^T D^-1 W`` (the Woodbury capacitance)."""
    m = W.shape[-1]
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = Wt_Dinv @ W + ops.eye(m, dtype=W.dtype, device=W.device)
    return linalg.cholesky(K)


class LowRankMultivariateNormal(Distribution):
    """The normal distribution on vectors with the covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)`` (low rank plus diagonal): ``log_prob``
    and ``entropy`` through the Woodbury identity and the matrix determinant lemma, so the
    cost grows with the rank, not with the dimension cubed.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import LowRankMultivariateNormal
    >>> d = LowRankMultivariateNormal(tc.zeros(2), tc.tensor([[1.0], [0.0]]), tc.ones(2))
    >>> d.covariance_matrix
    tensor([[2., 0.],
            [0., 1.]])
    >>> round(d.log_prob(tc.zeros(2)).item(), 4)
    -2.1845
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support: Any = constraints.real_vector
    has_rsample = True

    def __init__(
        self, loc: Any, cov_factor: Any, cov_diag: Any, validate_args: bool | None = None
    ) -> None:
        loc, cov_factor, cov_diag = _tensor(loc), _tensor(cov_factor), _tensor(cov_diag)
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {loc.shape[-1:]}")
        try:
            batch = tuple(
                broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2], cov_diag.shape[:-1])
            )
        except (RuntimeError, ValueError) as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        m = cov_factor.shape[-1]
        self.loc = loc.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, n, m)
        self.cov_diag = cov_diag.expand(*batch, n)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        super().__init__(batch, (n,), validate_args=validate_args)
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        """The same parameters broadcast to ``batch_shape``."""
        shape = _shape(batch_shape)
        new = object.__new__(LowRankMultivariateNormal)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k not in _LOWRANK_LAZY})
        n, m = self.cov_factor.shape[-2:]
        new.loc = self.loc.expand(*shape, n)
        new.cov_factor = self.cov_factor.expand(*shape, n, m)
        new.cov_diag = self.cov_diag.expand(*shape, n)
        new._batch_shape = shape
        return new

    @property
    def mean(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """``sum(cov_factor^2, -1) + cov_diag``."""
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``W W^T + diag(D)``."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        return (W @ W.mT + D.diag_embed()).expand(*self._batch_shape, n, n)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The Cholesky factor of the covariance, as ``sqrt(D) chol(I + D^-1/2 W W^T D^-1/2)``
        (better conditioned than factoring the covariance itself)."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        d_sqrt = D.sqrt().unsqueeze(-1)
        scaled = W / d_sqrt
        K = scaled @ scaled.mT + ops.eye(n, dtype=W.dtype, device=W.device)
        return (d_sqrt * linalg.cholesky(K)).expand(*self._batch_shape, n, n)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """``D^-1 - D^-1 W K^-1 W^T D^-1`` (Woodbury), ``K`` the capacitance."""
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        Wt_Dinv = W.mT / D.unsqueeze(-2)
        L = self._capacitance_tril
        A = _tril_solve(L.unsqueeze(-3), Wt_Dinv.mT).mT
        return (D.reciprocal().diag_embed() - A.mT @ A).expand(*self._batch_shape, n, n)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + W eps_W + sqrt(D) eps_D`` with standard normal ``eps``."""
        shape = self._extended_shape(sample_shape)
        W = self._unbroadcasted_cov_factor
        eps_w = ops.randn((*shape[:-1], W.shape[-1]), dtype=W.dtype, device=W.device)
        eps_d = ops.randn(shape, dtype=W.dtype, device=W.device)
        lowrank = (W @ eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + lowrank + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _logdet(self) -> Tensor:
        """``log det(W W^T + D) = 2 sum log diag(chol K) + sum log D``."""
        L = self._capacitance_tril
        return 2 * L.diagonal(0, -2, -1).log().sum(-1) + self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value: Any) -> Tensor:
        """``-(n log(2 pi) + log det + x^T S^-1 x) / 2`` with ``x = value - loc``."""
        if self._validate_args:
            self._validate_sample(value)
        x = _tensor(value, self.loc) - self.loc
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv_x = ((W / D.unsqueeze(-1)).mT @ x.unsqueeze(-1)).squeeze(-1)
        term1 = (x.pow(2) / D).sum(-1)
        term2 = _tril_solve(self._capacitance_tril, Wt_Dinv_x).pow(2).sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + self._logdet() + term1 - term2)

    def entropy(self) -> Tensor:
        """``(n (1 + log(2 pi)) + log det) / 2``."""
        n = self._event_shape[0]
        h = 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._logdet())
        return h.expand(self._batch_shape) if self._batch_shape else h


_LOWRANK_LAZY = ("variance", "covariance_matrix", "scale_tril", "precision_matrix")
