"""The base class of the distributions, ``Distribution``: shapes, sampling entry points,
argument and value validation against ``arg_constraints`` and ``support``, ``expand`` and
``repr``, as ``torch.distributions.distribution``."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

from .._tensor import Size, Tensor
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _shape(sample_shape: Any) -> tuple[int, ...]:
    return tuple(sample_shape) if not isinstance(sample_shape, int) else (sample_shape,)


class Distribution:
    """Base class: ``batch_shape``, ``event_shape``, ``sample``, ``log_prob``...

    ``arg_constraints`` maps each parameter to its :mod:`constraints` object and ``support``
    is the set of the values. ``validate_args`` (default True, as in PyTorch;
    ``set_default_validate_args`` changes it) checks the parameters against
    ``arg_constraints`` at construction (a lazily computed parameter that was not given is
    skipped) and the value passed to ``log_prob``/``cdf`` against ``support``, raising
    ``ValueError`` with PyTorch's wording.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Normal(tc.zeros(3), 1.0).expand((2, 3))
    >>> d.batch_shape, d.event_shape
    (tensorcore.Size([2, 3]), tensorcore.Size([]))
    >>> d.arg_constraints["scale"], d.support
    (GreaterThan(lower_bound=0.0), Real())
    """

    has_rsample = False
    has_enumerate_support = False
    # A class attribute, as in PyTorch: programs and subclasses read and set
    # ``Distribution._validate_args`` (or their own class's) directly.
    _validate_args = True
    #: Parameters that ``expand`` broadcasts: name -> number of trailing (event) dims.
    _expand_params: ClassVar[dict[str, int]] = {}

    def __init__(
        self,
        batch_shape: tuple[int, ...] = (),
        event_shape: tuple[int, ...] = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_params()

    def _validate_params(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{type(self)} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(
                getattr(type(self), name, None), lazy_property
            ):
                continue  # given the other way (logits for probs): not computed, not checked
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}"
                )

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Set whether distributions validate their arguments by default (True, as PyTorch's
        default outside ``python -O``)."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Each parameter's constraint (subclasses define it)."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint the values lie in (subclasses define it)."""
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of distributions."""
        return Size(self._batch_shape)

    @property
    def event_shape(self) -> Size:
        """The shape of one sample of one distribution."""
        return Size(self._event_shape)

    @property
    def mean(self) -> Tensor:
        """The mean of each distribution of the batch."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of each distribution of the batch."""
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of each distribution of the batch."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation: ``variance.sqrt()``."""
        return self.variance.sqrt()

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A distribution of the same parameters broadcast to ``batch_shape`` (views, no
        copies), as PyTorch's ``expand``."""
        shape = _shape(batch_shape)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name, event_dims in self._expand_params.items():
            v = self.__dict__.get(name)
            if isinstance(v, Tensor):
                tail = tuple(v.shape[v.ndim - event_dims :]) if event_dims else ()
                new.__dict__[name] = v.expand(shape + tail)
        new._batch_shape = shape
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples without gradients."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Reparameterised samples (gradients flow to the parameters)."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample")

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))``, with PyTorch's ``FutureWarning`` that it is deprecated."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) of ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete support, along a new leading dim."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy())``."""
        return self.entropy().exp()

    def __repr__(self) -> str:
        try:
            names = [k for k in self.arg_constraints if k in self.__dict__]
        except NotImplementedError:
            names = []
        args = ", ".join(
            f"{k}: {v if v.numel() == 1 else v.size()}"
            for k in names
            for v in [self.__dict__[k]]
            if isinstance(v, Tensor)
        )
        return f"{type(self).__name__}({args})"

    def _validate_sample(self, value: Any) -> None:
        """PyTorch's checks of a value to score: a tensor, its shape broadcastable with the
        batch and event shapes, inside ``support`` (``ValueError`` otherwise)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        ev = self._event_shape
        shape = tuple(value.shape)
        if shape[len(shape) - len(ev) :] != ev or len(shape) < len(ev):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs "
                f"{self.event_shape}."
            )
        expected = self._batch_shape + ev
        for i, j in zip(reversed(shape), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{value.size()} vs {Size(expected)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{type(self)} does not define `support` to enable sample validation. Please "
                "initialize the distribution with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )
