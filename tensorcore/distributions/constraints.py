"""Constraints: the sets that distribution parameters and samples live in, as
``torch.distributions.constraints``.

A constraint's ``check(value)`` returns a bool tensor over the batch dims of ``value`` (its
``event_dim`` rightmost dims are reduced: a vector is valid or not as a whole);
``is_discrete`` says whether the set is countable. ``repr`` gives PyTorch's wording, which
``validate_args`` error messages quote.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.distributions import constraints
>>> constraints.positive.check(tc.tensor([1.0, -1.0]))
tensor([ True, False])
>>> constraints.interval(0.0, 1.0)
Interval(lower_bound=0.0, upper_bound=1.0)
>>> constraints.simplex.event_dim, constraints.nonnegative_integer.is_discrete
(1, True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import linalg
from .._tensor import Tensor
from ..ops import functions as ops

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """The base of the constraints: ``check(value)``, ``is_discrete`` and ``event_dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.constraints import real
    >>> real.check(tc.tensor([0.0, float("nan")]))
    tensor([ True, False])
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        """A bool tensor: whether each event of ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a constraint that depends on other parameters: it cannot be
    checked, and ``Distribution`` skips it."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """Given at construction; ``NotImplementedError`` when it was not."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """Given at construction; ``NotImplementedError`` when it was not."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(
        self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
    ) -> _Dependent:
        """A dependent constraint with these static facts (PyTorch's ``dependent(...)``)."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Tensor) -> Tensor:
        """Always raises: a dependent constraint cannot be checked."""
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent (uncheckable) constraint.

    Examples
    --------
    >>> from tensorcore.distributions import constraints
    >>> is_dependent(constraints.dependent), is_dependent(constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint: on the class it says the support
    depends on the parameters; on an instance it computes that support."""

    def __init__(
        self,
        fn: Callable[[Any], Any] | None = None,
        *,
        is_discrete: Any = NotImplemented,
        event_dim: Any = NotImplemented,
    ) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable[[Any], Any]) -> _DependentProperty:  # type: ignore[override]
        """Decorate ``fn`` keeping the static facts."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


dependent_property = _DependentProperty


class _IndependentConstraint(Constraint):
    """``base_constraint`` with ``reinterpreted_batch_ndims`` more event dims."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"Expected a Constraint, got {type(base_constraint).__name__}")
        if not (isinstance(reinterpreted_batch_ndims, int) and reinterpreted_batch_ndims >= 0):
            raise ValueError("reinterpreted_batch_ndims must be a non-negative int")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """The base constraint's."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The base's event dims plus the reinterpreted ones."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        """The base check, all over the reinterpreted dims."""
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.dim() < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return result.reshape(*result.shape[: result.dim() - n], -1).all(-1) if n else result

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__[1:]}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"
        )


class _Boolean(Constraint):
    """``{0, 1}``."""

    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        """``value`` is 0 or 1."""
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        """Every entry 0 or 1, summing to 1."""
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    """Integers in ``[lower_bound, upper_bound]``."""

    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        """Integral and within the bounds."""
        ok = (value >= self.lower_bound) & (value <= self.upper_bound)
        return (ops.remainder(value, 1) == 0) & ok

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _IntegerLessThan(Constraint):
    """Integers at most ``upper_bound``."""

    is_discrete = True

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        """Integral and at most the bound."""
        return (ops.remainder(value, 1) == 0) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    """Integers at least ``lower_bound``."""

    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        """Integral and at least the bound."""
        return (ops.remainder(value, 1) == 0) & (value >= self.lower_bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    """The extended real line (everything but NaN)."""

    def check(self, value: Tensor) -> Tensor:
        """``value == value``."""
        return value == value


class _GreaterThan(Constraint):
    """``(lower_bound, inf]``."""

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        """``lower_bound < value``."""
        return value > self.lower_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    """``[lower_bound, inf]``."""

    def check(self, value: Tensor) -> Tensor:
        """``lower_bound <= value``."""
        return value >= self.lower_bound


class _LessThan(Constraint):
    """``[-inf, upper_bound)``."""

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        """``value < upper_bound``."""
        return value < self.upper_bound

    def __repr__(self) -> str:
        return f"{type(self).__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    """``[lower_bound, upper_bound]``."""

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        """Within both bounds, inclusive."""
        return (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__[1:]}(lower_bound={self.lower_bound}, "
            f"upper_bound={self.upper_bound})"
        )


class _HalfOpenInterval(_Interval):
    """``[lower_bound, upper_bound)``."""

    def check(self, value: Tensor) -> Tensor:
        """At least the lower bound, below the upper."""
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one (to ``1e-6``)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        """Every entry nonnegative, the sum within ``1e-6`` of one."""
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative integer vectors summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        """Every entry nonnegative, the sum at most the bound."""
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        """``value.tril() == value``."""
        return (value.tril() == value).reshape(*value.shape[:-2], -1).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        """Lower triangular, every diagonal entry positive."""
        tril = (value.tril() == value).reshape(*value.shape[:-2], -1).all(-1)
        return tril & (value.diagonal(0, -2, -1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit norm."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        """Lower Cholesky with every row's norm within ``10 n eps`` of one."""
        tol = 2.220446049250313e-16 if value.dtype.itemsize == 8 else 1.1920928955078125e-07
        tol = tol * value.shape[-1] * 10
        row_norm = value.pow(2).sum(-1).sqrt()
        unit = ((row_norm - 1).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        """A bool over the batch: the last two sizes are equal."""
        return ops.full(
            tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], device=value.device
        )


class _Symmetric(_Square):
    """Symmetric matrices (to ``isclose``'s ``rtol=1e-5``, ``atol=1e-6``)."""

    def check(self, value: Tensor) -> Tensor:
        """Square and close to its transpose."""
        square = super().check(value)
        if not bool(square.all()):
            return square
        close = (value - value.mT).abs() <= 1e-6 + 1e-5 * value.mT.abs()
        return close.reshape(*value.shape[:-2], -1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues."""

    def check(self, value: Tensor) -> Tensor:
        """Symmetric, the least eigenvalue at least 0."""
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return linalg.eigvalsh(value).amin(-1) >= 0


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with positive eigenvalues."""

    def check(self, value: Tensor) -> Tensor:
        """Symmetric, the least eigenvalue above 0."""
        sym = super().check(value)
        if not bool(sym.all()):
            return sym
        return linalg.eigvalsh(value).amin(-1) > 0


class _Composite(Constraint):
    """Constraints ``cseq`` applied to pieces of a value along ``dim``."""

    def __init__(self, cseq: Sequence[Constraint], dim: int = 0) -> None:
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """Whether any piece's constraint is discrete."""
        return any(c.is_discrete for c in self.cseq)

    def _check_dim(self, value: Tensor) -> None:
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"dim {self.dim} out of range for a {value.dim()}-d value")


class _Cat(_Composite):
    """Constraints ``cseq`` applied to consecutive pieces (of ``lengths``) along ``dim``."""

    def __init__(
        self, cseq: Sequence[Constraint], dim: int = 0, lengths: Sequence[int] | None = None
    ) -> None:
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("lengths must have one entry per constraint")

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The largest event dim of the pieces."""
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        """Each piece checked by its constraint, concatenated back along ``dim``."""
        self._check_dim(value)
        checks, start = [], 0
        for c, length in zip(self.cseq, self.lengths, strict=True):
            checks.append(c.check(value.narrow(self.dim, start, length)))
            start += length
        return ops.cat(checks, self.dim)


class _Stack(_Composite):
    """Constraints ``cseq`` applied to the slices along ``dim``."""

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The largest event dim of the slices' constraints."""
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Tensor) -> Tensor:
        """Each slice checked by its constraint, stacked back along ``dim``."""
        self._check_dim(value)
        n = value.shape[self.dim]
        return ops.stack(
            [c.check(value.select(self.dim, i)) for c, i in zip(self.cseq, range(n), strict=True)],
            self.dim,
        )


class MixtureSameFamilyConstraint(Constraint):
    """The support of a ``MixtureSameFamily``: ``base_constraint`` (the components'
    support) checked on a value against every component at once, through a component dim
    put back before the event dims; a value is valid where all components accept it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions import constraints
    >>> c = constraints.MixtureSameFamilyConstraint(constraints.positive)
    >>> c.check(tc.tensor([1.0, -1.0])), c.event_dim
    (tensor([ True, False]), 0)
    """

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        """The base constraint's."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        """The base constraint's."""
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        """The base check of ``value`` with a component dim before its event dims, reduced
        over that dim (and whatever the base check broadcast into it)."""
        ev = self.event_dim
        if value.dim() < ev:
            raise ValueError(f"Expected value.dim() >= {ev} but got {value.dim()}")
        result = self.base_constraint.check(value.unsqueeze(-1 - ev))
        keep = value.dim() - ev
        return result.reshape(*result.shape[:keep], -1).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"


dependent = _Dependent()
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
