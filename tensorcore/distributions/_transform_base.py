"""The base of the transforms: ``Transform`` (calls, caching, ``inv``, shapes) and the
inverse a transform's ``inv`` returns. The public names are in :mod:`.transforms`."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from .._tensor import Size, Tensor
from . import constraints

__all__ = ["Transform"]


class Transform:
    """The base of the transforms: ``y = t(x)``, ``x = t.inv(y)`` and
    ``t.log_abs_det_jacobian(x, y)``; subclasses implement ``_call``, ``_inverse`` and
    ``log_abs_det_jacobian``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import ExpTransform
    >>> t = ExpTransform(cache_size=1)
    >>> x = tc.tensor([1.0]); y = t(x)
    >>> t.inv(y) is x
    True
    """

    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y: tuple[Any, Any] = (None, None)
        self._inv: Any = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_inv"] = None  # a weak reference does not pickle
        return state

    @property
    def event_dim(self) -> int:
        """The event dims of the domain, which must equal the codomain's."""
        if self.domain.event_dim == self.codomain.event_dim:
            return int(self.domain.event_dim)
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform (``t.inv.inv is t``)."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self) -> Any:
        """The sign of the derivative (``1`` or ``-1``, or a tensor), where defined."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with ``cache_size`` (a copy when it differs)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self)

    def __call__(self, x: Tensor) -> Tensor:
        """``y = t(x)`` (the cached ``y`` when ``x`` is the cached ``x``)."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |det dy/dx|`` (over the event dims)."""
        raise NotImplementedError

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """The shape of ``t(x)`` for ``x`` of ``shape``."""
        return Size(tuple(shape))

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """The shape of ``t.inv(y)`` for ``y`` of ``shape``."""
        return Size(tuple(shape))

    def __repr__(self) -> str:
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform (what ``t.inv`` returns)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> Any:
        """The forward transform's codomain."""
        return self._inv.codomain

    @property
    def codomain(self) -> Any:
        """The forward transform's domain."""
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """The forward transform's."""
        return bool(self._inv.bijective)

    @property
    def sign(self) -> Any:
        """The forward transform's."""
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        """The forward transform."""
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The inverse of the forward transform with ``cache_size``."""
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __hash__(self) -> int:
        return hash(self._inv)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x: Tensor) -> Tensor:
        """The forward transform's inverse call (sharing its cache)."""
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Minus the forward transform's at ``(y, x)``."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """The forward transform's ``inverse_shape``."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """The forward transform's ``forward_shape``."""
        return self._inv.forward_shape(shape)


class _Parameterless(Transform):
    """A transform without parameters: all instances of one class are equal."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self))

    def __hash__(self) -> int:
        return hash(type(self))
