"""The KL divergences between two different families that ``torch.distributions.kl``
registers, and the low-rank normal pairs; importing this module registers them with
:func:`.kl.register_kl` (the package's ``__init__`` does).

Most are ``-H(p) - E_p[log q(X)]`` with the expectation in closed form; a pair whose ``q``
gives zero density to part of ``p``'s support is infinite (for the bounded ones, only where
``p``'s support sticks out of ``q``'s)."""

from __future__ import annotations

import math

from .._tensor import Tensor
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from .continuous import Beta, Exponential, Gamma, Laplace
from .derived import Gumbel, Pareto
from .discrete import Binomial, Poisson
from .distribution import Distribution
from .distributions import Bernoulli, Normal, Uniform
from .kl import register_kl
from .multivariate import LowRankMultivariateNormal, MultivariateNormal, _tril_solve
from .univariate import ContinuousBernoulli

__all__: list[str] = []

_EULER_GAMMA = 0.57721566490153286060
_LOG_2PI = math.log(2 * math.pi)


def _infinite(p: Distribution, q: Distribution) -> Tensor:
    """``inf`` over the broadcast batch shape of ``p`` and ``q``."""
    shape = tuple(broadcast_shapes(p.batch_shape, q.batch_shape))
    like = p.mean
    return ops.full(shape, math.inf, dtype=like.dtype, device=like.device)


def _x_log_x(x: Tensor) -> Tensor:
    """``x log x``, 0 at ``x = 0``."""
    return ops.xlogy(x, x)


def _mean_log_uniform(p: Uniform) -> Tensor:
    """``E[log X]`` for ``X ~ Uniform(low, high)`` on the positive half-line."""
    width = p.high - p.low
    return (_x_log_x(p.high) - _x_log_x(p.low) - width) / width


def _mean_log1m_uniform(p: Uniform) -> Tensor:
    """``E[log(1 - X)]`` for ``X ~ Uniform(low, high)`` inside ``[0, 1]``."""
    width = p.high - p.low
    return (_x_log_x(1 - p.low) - _x_log_x(1 - p.high) - width) / width


def _normal_cross(q: Normal, mean: Tensor, second_moment: Tensor) -> Tensor:
    """``-E_p[log q(X)]`` for a normal ``q``, from ``E[X]`` and ``E[X^2]`` under ``p``."""
    var = q.scale.pow(2)
    return 0.5 * (_LOG_2PI + var.log()) + (second_moment - 2 * q.loc * mean + q.loc.pow(2)) / (
        2 * var
    )


def _cb_cross(q: ContinuousBernoulli, mean: Tensor) -> Tensor:
    """``-E_p[log q(X)]`` for a continuous Bernoulli ``q``: its log density is
    ``x logits + log1p(-probs) + log C``, linear in ``x``."""
    return -mean * q.logits - (-q.probs).log1p() - q._log_norm()


def _gamma_cross(q: Gamma, mean: Tensor, mean_log: Tensor) -> Tensor:
    """``-E_p[log q(X)]`` for a gamma ``q``, from ``E[X]`` and ``E[log X]`` under ``p``."""
    a, b = q.concentration, q.rate
    return a.lgamma() - a * b.log() - (a - 1) * mean_log + b * mean


def _outside(inside_low: Tensor, inside_high: Tensor, low: float, high: float) -> Tensor:
    """Whether ``[inside_low, inside_high]`` sticks out of ``[low, high]``."""
    return (inside_low < low) | (inside_high > high)


# p Bernoulli / Poisson (discrete)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p: Poisson, q: Distribution) -> Tensor:
    return _infinite(p, q)


# p Beta


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_cb(p: Beta, q: ContinuousBernoulli) -> Tensor:
    return -p.entropy() + _cb_cross(q, p.mean)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    total = p.concentration1 + p.concentration0
    mean_log = p.concentration1.digamma() - total.digamma()
    return -p.entropy() + _gamma_cross(q, p.mean, mean_log)


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    return -p.entropy() + _normal_cross(q, p.mean, p.variance + p.mean.pow(2))


def _unit_interval_uniform(p: Distribution, q: Uniform) -> Tensor:
    """KL(p || q) for a p whose support is [0, 1]: infinite where that sticks out of q's
    support (only where the inequalities are strict: PyTorch's ContinuousBernoulli pair
    tests ``q.low >= 0 | q.high <= 1``, which makes KL(p || Uniform(0, 1)) infinite)."""
    kl = -p.entropy() + (q.high - q.low).log()
    return ops.where((q.low > 0) | (q.high < 1), math.inf, kl)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    return _unit_interval_uniform(p, q)


# p ContinuousBernoulli


@register_kl(ContinuousBernoulli, Exponential)
def _kl_cb_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_cb_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    return -p.entropy() + _normal_cross(q, p.mean, p.variance + p.mean.pow(2))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_cb_uniform(p: ContinuousBernoulli, q: Uniform) -> Tensor:
    return _unit_interval_uniform(p, q)


# p Exponential


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    # E[exp(-(X - mu) / s)] = exp(mu / s) rate s / (rate s + 1).
    rs = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return rs.log() - 1 - loc_ratio + loc_ratio.exp() * rs / (rs + 1) + rs.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    mean = p.rate.reciprocal()
    return -p.entropy() + _normal_cross(q, mean, 2 * mean.pow(2))


# p Gamma


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    # E[exp(-X / s)] = (1 + 1 / (rate s))^-concentration.
    a = p.concentration
    bs = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    mgf = loc_ratio.exp() * (1 + bs.reciprocal()).pow(-a)
    return -p.entropy() + q.scale.log() + a / bs - loc_ratio + mgf


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    a, b = p.concentration, p.rate
    return -p.entropy() + _normal_cross(q, a / b, (a.pow(2) + a) / b.pow(2))


# p Gumbel


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    mean = p.loc + p.scale * _EULER_GAMMA
    var = (math.pi * p.scale).pow(2) / 6
    return -p.entropy() + _normal_cross(q, mean, var + mean.pow(2))


# p Laplace


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    return -p.entropy() + _normal_cross(q, p.loc, 2 * p.scale.pow(2) + p.loc.pow(2))


# p Normal


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    # E[exp(-(X - mu) / s)] is the normal's moment generating function at -1 / s.
    z = (p.loc - q.loc) / q.scale
    r2 = (p.scale / q.scale).pow(2)
    return -p.entropy() + q.scale.log() + z + (-z + 0.5 * r2).exp()


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    # E|X - m| for X ~ N(mu, s^2): s sqrt(2 / pi) exp(-d^2 / 2 s^2) + d erf(d / (s sqrt 2)).
    d = p.loc - q.loc
    mean_abs = p.scale * math.sqrt(2 / math.pi) * (-0.5 * (d / p.scale).pow(2)).exp()
    mean_abs = mean_abs + d * (d / (p.scale * math.sqrt(2))).erf()
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


# p Pareto


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    kl = -p.entropy() - q.rate.log() + q.rate * p.mean
    return ops.where(p.alpha <= 1, math.inf, kl)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    mean_log = p.scale.log() + p.alpha.reciprocal()
    kl = -p.entropy() + _gamma_cross(q, p.mean, mean_log)
    return ops.where(p.alpha <= 1, math.inf, kl)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    mean = p.alpha * p.scale / (p.alpha - 1)
    second = p.alpha * p.scale.pow(2) / (p.alpha - 2)
    kl = -p.entropy() + _normal_cross(q, mean, second)
    return ops.where(p.alpha <= 2, math.inf, kl)


# p Uniform


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    cross = log_beta - (a - 1) * _mean_log_uniform(p) - (b - 1) * _mean_log1m_uniform(p)
    kl = -p.entropy() + cross
    return ops.where(_outside(p.low, p.high, 0.0, 1.0), math.inf, kl)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_cb(p: Uniform, q: ContinuousBernoulli) -> Tensor:
    # PyTorch tests p.high >= 1 | p.low <= 0, infinite for p = Uniform(0, 1); strict here.
    kl = -p.entropy() + _cb_cross(q, p.mean)
    return ops.where(_outside(p.low, p.high, 0.0, 1.0), math.inf, kl)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    kl = -p.entropy() - q.rate.log() + q.rate * p.mean
    return ops.where(p.low < 0, math.inf, kl)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    kl = -p.entropy() + _gamma_cross(q, p.mean, _mean_log_uniform(p))
    return ops.where(p.low < 0, math.inf, kl)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    # E[exp(-(X - mu) / s)] = s (exp(-(low - mu) / s) - exp(-(high - mu) / s)) / width.
    width = p.high - p.low
    hi = (p.high - q.loc) / q.scale
    lo = (p.low - q.loc) / q.scale
    mgf = q.scale * ((-lo).exp() - (-hi).exp()) / width
    return -p.entropy() + q.scale.log() + 0.5 * (hi + lo) + mgf


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    cross = -(q.alpha.log() + q.alpha * q.scale.log()) + (q.alpha + 1) * _mean_log_uniform(p)
    kl = -p.entropy() + cross
    return ops.where(p.low < q.scale, math.inf, kl)


# Pairs whose q has no density on part of p's support, everywhere.


def _register_infinite() -> None:
    pairs = {
        Beta: (Pareto,),
        ContinuousBernoulli: (Pareto,),
        Exponential: (Beta, ContinuousBernoulli, Pareto, Uniform),
        Gamma: (Beta, ContinuousBernoulli, Pareto, Uniform),
        Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
        Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
        Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto),
        Pareto: (Beta, ContinuousBernoulli, Uniform),
    }
    for type_p, types_q in pairs.items():
        for type_q in types_q:
            register_kl(type_p, type_q)(_infinite)


_register_infinite()


# Normals with low-rank-plus-diagonal covariances. KL(p || q) for normals is
# (tr(Sq^-1 Sp) + d^T Sq^-1 d - n + log det Sq - log det Sp) / 2, d = q.loc - p.loc; with
# Sp = F F^T for a factor F of p, the two quadratic terms are squared norms of "whitened"
# vectors: through q's Cholesky factor for a MultivariateNormal q, and through the Woodbury
# identity Sq^-1 = D^-1 - A^T A (A = Lc^-1 W^T D^-1, Lc the capacitance factor) for a
# low-rank q, so that this costs O(n m) per column, not O(n^3).


def _quad_mvn(q: MultivariateNormal, X: Tensor) -> Tensor:
    """``tr(X^T Sq^-1 X)`` for ``n x k`` matrices ``X`` (batched), through ``q``'s Cholesky
    factor: ``|Lq^-1 X|_F^2``."""
    Lq = q._unbroadcasted_scale_tril
    n, k = X.shape[-2:]
    batch = tuple(broadcast_shapes(Lq.shape[:-2], X.shape[:-2]))
    cols = _tril_solve(Lq.expand(*batch, n, n).unsqueeze(-3), X.expand(*batch, n, k).mT)
    return cols.pow(2).sum((-2, -1))


def _quad_lowrank(q: LowRankMultivariateNormal, X: Tensor) -> Tensor:
    """The same for a low-rank ``q``, by the Woodbury identity."""
    W, D = q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    A = _tril_solve(q._capacitance_tril.unsqueeze(-3), Wt_Dinv.mT).mT
    return (X.pow(2) / D.unsqueeze(-1)).sum((-2, -1)) - (A @ X).pow(2).sum((-2, -1))


def _quad(q: Distribution, X: Tensor) -> Tensor:
    if isinstance(q, LowRankMultivariateNormal):
        return _quad_lowrank(q, X)
    assert isinstance(q, MultivariateNormal)
    return _quad_mvn(q, X)


def _gaussian_kl(
    p_loc: Tensor, p_factor: Tensor, p_logdet: Tensor, q: Distribution, q_logdet: Tensor
) -> Tensor:
    n = p_loc.shape[-1]
    trace = _quad(q, p_factor)
    maha = _quad(q, (q.mean - p_loc).unsqueeze(-1))
    return 0.5 * (q_logdet - p_logdet + trace + maha - n)


def _lowrank_factor(p: LowRankMultivariateNormal) -> Tensor:
    """``[W, diag(sqrt(D))]``, a factor of ``W W^T + diag(D)``."""
    W, D = p._unbroadcasted_cov_factor, p._unbroadcasted_cov_diag
    return ops.cat([W.expand(*D.shape[:-1], *W.shape[-2:]), D.sqrt().diag_embed()], -1)


def _check_events(p: Distribution, q: Distribution) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event "
            "shapes cannot be computed"
        )


def _mvn_logdet(p: MultivariateNormal) -> Tensor:
    return 2 * p._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p: LowRankMultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q)
    return _gaussian_kl(p.loc, _lowrank_factor(p), p._logdet(), q, q._logdet())


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p: MultivariateNormal, q: LowRankMultivariateNormal) -> Tensor:
    _check_events(p, q)
    return _gaussian_kl(p.loc, p._unbroadcasted_scale_tril, _mvn_logdet(p), q, q._logdet())


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p: LowRankMultivariateNormal, q: MultivariateNormal) -> Tensor:
    _check_events(p, q)
    return _gaussian_kl(p.loc, _lowrank_factor(p), p._logdet(), q, _mvn_logdet(q))
