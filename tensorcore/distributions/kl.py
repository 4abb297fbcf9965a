"""``kl_divergence(p, q)`` and ``register_kl``: closed-form Kullback-Leibler divergences,
chosen by the pair of distribution types (the most specific registered pair), as
``torch.distributions.kl``."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..ops import functions as ops
from ..ops.frontends import broadcast_shapes
from .continuous import Beta, Dirichlet, Exponential, Gamma, Laplace
from .derived import Gumbel, HalfNormal, LogNormal, Pareto
from .discrete import Binomial, Geometric, OneHotCategorical, Poisson
from .distribution import Distribution
from .distributions import Bernoulli, Categorical, Normal, Uniform
from .exp_family import ExponentialFamily
from .multivariate import Independent, MultivariateNormal, _tril_solve
from .transformed_distribution import TransformedDistribution
from .univariate import Cauchy, ContinuousBernoulli
from .utils import softplus, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_Rule = Callable[[Any, Any], Tensor]
_REGISTRY: dict[tuple[type, type], _Rule] = {}
_CACHE: dict[tuple[type, type], _Rule | None] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[_Rule], _Rule]:
    """Decorator registering ``fn(p, q)`` as ``KL(p || q)`` for ``p`` an instance of
    ``type_p`` and ``q`` of ``type_q`` (subclasses included; the most specific registered
    pair wins, and a tie between two pairs warns).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import Normal, kl_divergence, register_kl
    >>> class Standard(Normal):
    ...     pass
    >>> @register_kl(Standard, Standard)
    ... def _kl_standard(p, q):
    ...     return tc.zeros(p.batch_shape)
    >>> kl_divergence(Standard(0.0, 1.0), Standard(0.0, 1.0))
    tensor(0.)
    """
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn: _Rule) -> _Rule:
        _REGISTRY[type_p, type_q] = fn
        _CACHE.clear()
        return fn

    return decorator


def _more_specific(a: tuple[type, type], b: tuple[type, type]) -> bool:
    """Whether pair ``a`` is at least as specific as ``b``, comparing the first type first
    and the second only where the first ones are the same class."""
    for x, y in zip(a, b, strict=True):
        if not issubclass(x, y):
            return False
        if x is not y:
            return True
    return True


def _most_specific(pairs: list[tuple[type, type]]) -> tuple[type, type]:
    best = pairs[0]
    for pair in pairs[1:]:
        if _more_specific(pair, best) and pair != best:
            best = pair
    return best


def _lookup(type_p: type, type_q: type) -> _Rule | None:
    key = (type_p, type_q)
    if key not in _CACHE:
        matches = [
            (sp, sq) for sp, sq in _REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)
        ]
        if not matches:
            _CACHE[key] = None
        else:
            left = _most_specific(matches)
            right = _most_specific([(q, p) for p, q in matches])
            rule = _REGISTRY[left]
            if rule is not _REGISTRY[right[1], right[0]]:
                warnings.warn(
                    f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                    f"Please register_kl({left[0].__name__}, {right[0].__name__})",
                    RuntimeWarning,
                    stacklevel=3,
                )
            _CACHE[key] = rule
    return _CACHE[key]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q) = E_p[log p(x) - log q(x)]`` for each distribution of the batch, from the
    closed form registered for the pair of types (``NotImplementedError`` when none is).

    Pairs: each distribution with itself (``Normal``, ``Bernoulli``, ``Categorical``,
    ``Uniform``, ``Beta``, ``Binomial``, ``Dirichlet``, ``Exponential``, ``Gamma``,
    ``Laplace``, ``LogNormal``, ``MultivariateNormal``, ``OneHotCategorical``, ``Poisson``,
    ``Cauchy``, ``Geometric``, ``Gumbel``, ``HalfNormal``, ``Pareto``, ``ContinuousBernoulli``,
    ``Independent`` over a registered pair, ``TransformedDistribution`` with equal transforms
    over a registered pair, any two members of one ``ExponentialFamily`` by the Bregman
    divergence of the log normalizer), and the cross-family pairs PyTorch registers
    (``_kl_cross``: e.g. ``Normal``/``Gumbel``, ``Beta``/``Normal``, ``Uniform``/``Pareto``,
    ``LowRankMultivariateNormal``/``MultivariateNormal``).
    The divergence is ``inf`` where ``q`` gives zero mass to part of ``p``'s support.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
    tensor(0.4431)
    """
    rule = _lookup(type(p), type(q))
    if rule is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
        )
    return rule(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    ratio = (p.scale / q.scale) ** 2
    shift = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (ratio + shift - 1 - ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    inf = float("inf")
    # log(p/q) = softplus(-q.logits) - softplus(-p.logits), stable for extreme logits.
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    ones = ops.where(p.probs == 0, 0.0, ops.where(q.probs == 0, inf, ones))
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    zeros = ops.where(p.probs == 1, 0.0, ops.where(q.probs == 1, inf, zeros))
    return ones + zeros


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    terms = p.probs * (p.logits - q.logits)
    terms = ops.where(q.probs == 0, float("inf"), terms)
    terms = ops.where(p.probs == 0, 0.0, terms)
    return terms.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    kl = ((q.high - q.low) / (p.high - p.low)).log()
    return ops.where((q.low > p.low) | (q.high < p.high), float("inf"), kl)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    log_term = (math.sqrt(2 * math.pi) * q.scale / width).log()
    mid = (p.high + p.low) / 2 - q.loc
    return log_term + 0.5 * (width**2 / 12 + mid**2) / q.scale**2


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p: Normal, q: Uniform) -> Tensor:
    shape = tuple(ops.broadcast_tensors(p.loc, q.low)[0].shape)
    return ops.full(shape, float("inf"), dtype=p.loc.dtype, device=p.loc.device)


_EULER_GAMMA = 0.57721566490153286060


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return ops.where(p.total_count > q.total_count, float("inf"), kl)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    t1 = -q.concentration * ratio.log()
    return (
        t1 + ratio + q.concentration.lgamma() + q.concentration * _EULER_GAMMA - (1 + _EULER_GAMMA)
    )


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration / p.rate)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    return -scale_ratio.log() + loc_abs_diff / q.scale + t3 - 1


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            "cannot be computed"
        )
    pL, qL = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = qL.diagonal(0, -2, -1).log().sum(-1) - pL.diagonal(0, -2, -1).log().sum(-1)
    n = p.event_shape[0]
    batch = tuple(broadcast_shapes(qL.shape[:-2], pL.shape[:-2]))
    # tr(Sq^-1 Sp) = |Lq^-1 Lp|_F^2, column by column.
    cols = _tril_solve(qL.expand(*batch, n, n).unsqueeze(-3), pL.expand(*batch, n, n).mT)
    term2 = cols.pow(2).sum((-2, -1))
    term3 = _tril_solve(qL, q.loc - p.loc).pow(2).sum(-1)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    # The Bregman divergence of the log normalizer A between the natural parameters.
    if type(p) is not type(q):
        # (PyTorch's message keeps the indentation of its source's continued line)
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot"
            + " " * 29
            + "be computed using Bregman divergences"
        )
    leaves, lg, grads = p._log_normalizer_and_grads(p._natural_params)
    q_params = q._natural_params
    result = q._log_normalizer(*q_params) - lg
    batch_dims = len(broadcast_shapes(p.batch_shape, q.batch_shape))
    for pp, qp, g in zip(leaves, q_params, grads, strict=True):
        # Each parameter's own trailing dims (a matrix for Wishart's first, none for its
        # second), not the event dims: those are the value's.
        term = (qp - pp) * g
        result = result - sum_rightmost(term, term.dim() - batch_dims)
    return result


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    # E_p[exp(-(x - q.loc) / q.scale)] = exp(-shift) Gamma(1 + ratio).
    return (
        -ratio.log()
        + shift
        + ratio * _EULER_GAMMA
        - 1
        - _EULER_GAMMA
        + ((1 + ratio).lgamma() - shift).exp()
    )


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    kl = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return ops.where(p.scale < q.scale, math.inf, kl)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._log_norm() + (-p.probs).log1p()
    t3 = -q._log_norm() - (-q.probs).log1p()
    return t1 + t2 + t3
