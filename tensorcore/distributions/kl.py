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
from .distributions import Bernoulli, Categorical, Distribution, Normal, Uniform

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

    Pairs: ``Normal``/``Normal``, ``Bernoulli``/``Bernoulli``, ``Categorical``/``Categorical``,
    ``Uniform``/``Uniform``, ``Uniform``/``Normal`` and ``Normal``/``Uniform`` (infinite).
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


def _softplus(x: Tensor) -> Tensor:
    # logaddexp's rule gives sigmoid(x) everywhere (a clamp/abs form gives 1 at x = 0).
    return ops.logaddexp(x, ops.zeros_like(x))


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    ratio = (p.scale / q.scale) ** 2
    shift = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (ratio + shift - 1 - ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    inf = float("inf")
    # log(p/q) = softplus(-q.logits) - softplus(-p.logits), stable for extreme logits.
    ones = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    ones = ops.where(p.probs == 0, 0.0, ops.where(q.probs == 0, inf, ones))
    zeros = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
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
