"""``biject_to`` and ``transform_to``: from a constraint to a transform whose codomain it is,
as ``torch.distributions.constraint_registry``. ``biject_to(c)`` is bijective (for
optimisation of constrained parameters and for densities); ``transform_to(c)`` need not be
(``SoftmaxTransform`` for the simplex, ``LowerCholeskyTransform``...). Lookup is by the
constraint's class, so ``positive`` is a ``greater_than(0.0)`` as in PyTorch.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.distributions import biject_to, constraints, transform_to
>>> biject_to(constraints.positive).parts  # exp, then shift by the lower bound
[ExpTransform(), AffineTransform()]
>>> t = biject_to(constraints.interval(1.0, 3.0))
>>> t(tc.tensor(0.0))
tensor(2.)
>>> transform_to(constraints.simplex)
SoftmaxTransform()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import constraints
from .transforms import (
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    Transform,
    identity_transform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

_Factory = Callable[[Any], Transform]


class ConstraintRegistry:
    """A map from constraint classes to factories ``factory(constraint) -> Transform``.

    Examples
    --------
    >>> from tensorcore.distributions import constraints
    >>> from tensorcore.distributions.transforms import ExpTransform
    >>> reg = ConstraintRegistry()
    >>> _ = reg.register(constraints.positive, lambda c: ExpTransform())
    >>> reg(constraints.positive)
    ExpTransform()
    """

    def __init__(self) -> None:
        self._registry: dict[type, _Factory] = {}

    def register(self, constraint: Any, factory: _Factory | None = None) -> Any:
        """Register ``factory`` for ``constraint``'s class (a constraint object or a
        subclass of :class:`~constraints.Constraint`); without ``factory``, a decorator."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not (isinstance(constraint, type) and issubclass(constraint, constraints.Constraint)):
            raise TypeError(
                "Expected constraint to be either a Constraint subclass or instance, "
                f"but got {constraint}"
            )
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> Transform:
        """The transform for ``constraint`` (``NotImplementedError`` when its class has none)."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints"
            ) from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _real(constraint: Any) -> Transform:
    return identity_transform


def _greater_than(constraint: Any) -> Transform:
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.lower_bound, 1)])


def _less_than(constraint: Any) -> Transform:
    return ComposeTransform([ExpTransform(), AffineTransform(constraint.upper_bound, -1)])


def _interval(constraint: Any) -> Transform:
    lb, ub = constraint.lower_bound, constraint.upper_bound
    if isinstance(lb, (int, float)) and isinstance(ub, (int, float)) and lb == 0 and ub == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lb, ub - lb)])


for _registry in (biject_to, transform_to):
    _registry.register(constraints.real, _real)
    _registry.register(constraints.greater_than, _greater_than)
    _registry.register(constraints.greater_than_eq, _greater_than)
    _registry.register(constraints.less_than, _less_than)
    _registry.register(constraints.interval, _interval)
    _registry.register(constraints.half_open_interval, _interval)
    _registry.register(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())


def _independent(registry: ConstraintRegistry) -> _Factory:
    def factory(constraint: Any) -> Transform:
        base = registry(constraint.base_constraint)
        return IndependentTransform(base, constraint.reinterpreted_batch_ndims)

    return factory


def _cat(registry: ConstraintRegistry) -> _Factory:
    def factory(constraint: Any) -> Transform:
        parts = [registry(c) for c in constraint.cseq]
        return CatTransform(parts, constraint.dim, constraint.lengths)

    return factory


def _stack(registry: ConstraintRegistry) -> _Factory:
    def factory(constraint: Any) -> Transform:
        return StackTransform([registry(c) for c in constraint.cseq], constraint.dim)

    return factory


for _registry in (biject_to, transform_to):
    _registry.register(constraints.independent, _independent(_registry))
    _registry.register(constraints.cat, _cat(_registry))
    _registry.register(constraints.stack, _stack(_registry))

biject_to.register(constraints.simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite, lambda c: PositiveDefiniteTransform())
