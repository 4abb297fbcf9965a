"""Transforms: invertible (or not) maps between constraint sets with their log absolute
Jacobian determinants, as ``torch.distributions.transforms``. A :class:`TransformedDistribution`
pushes a base distribution through a list of them.

Each transform has ``domain`` and ``codomain`` (constraints), ``bijective``, ``sign`` (of the
derivative, for monotone maps of the line), ``inv`` (the inverse transform, itself a
transform), ``log_abs_det_jacobian(x, y)``, and ``forward_shape``/``inverse_shape``. With
``cache_size=1`` a transform remembers its last ``(x, y)`` pair, so that ``t.inv(t(x))``
returns ``x`` itself (the same object) without computing the inverse.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.distributions.transforms import AffineTransform, ExpTransform
>>> t = ExpTransform()
>>> t(tc.tensor([0.0])), t.inv(tc.tensor([1.0])), t.log_abs_det_jacobian(tc.tensor(2.0), None)
(tensor([1.]), tensor([0.]), tensor(2.))
>>> AffineTransform(1.0, 2.0)(tc.tensor(3.0))
tensor(7.)
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from functools import reduce
from typing import Any

from .._tensor import Size, Tensor
from ..ops import functions as ops
from . import constraints
from ._transform_base import Transform
from ._transform_maps import (
    AbsTransform,
    AffineTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StickBreakingTransform,
    TanhTransform,
)
from .utils import sum_rightmost

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


class ComposeTransform(Transform):
    """``parts`` applied in order (``parts[-1](...parts[0](x))``); the Jacobian terms are
    summed over the event dims of the composition.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import (
    ...     AffineTransform, ComposeTransform, ExpTransform)
    >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
    >>> t(tc.tensor(1.0)), t.log_abs_det_jacobian(tc.tensor(1.0), t(tc.tensor(1.0)))
    (tensor(7.3891), tensor(2.6931))
    """

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self) -> int:
        return hash(tuple(self.parts))

    @property
    def domain(self) -> Any:
        """The first part's domain, with the event dims the composition needs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> Any:
        """The last part's codomain, with the event dims the composition needs."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        """The product of the parts' signs."""
        sign: Any = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        """The inverses of the parts, in reverse order."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The composition of the parts with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        """Each part in order."""
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The parts' terms at their intermediate values, each summed to the event dims."""
        if not self.parts:
            return ops.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, xi, yi in zip(self.parts, xs[:-1], xs[1:], strict=True):
            terms.append(
                sum_rightmost(part.log_abs_det_jacobian(xi, yi), event_dim - part.domain.event_dim)
            )
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return reduce(lambda a, b: a + b, terms)

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """Each part's forward shape in order."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return Size(tuple(shape))

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """Each part's inverse shape in reverse order."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return Size(tuple(shape))

    def __repr__(self) -> str:
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more event dims: its Jacobian
    term is summed over them.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import ExpTransform, IndependentTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> x = tc.tensor([[0.0, 1.0]])
    >>> t.log_abs_det_jacobian(x, t(x))
    tensor([1.])
    """

    def __init__(
        self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0
    ) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size)

    @property
    def domain(self) -> Any:
        """The base domain with the reinterpreted dims."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> Any:
        """The base codomain with the reinterpreted dims."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """The base transform's."""
        return bool(self.base_transform.bijective)

    @property
    def sign(self) -> Any:
        """The base transform's."""
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """The base term summed over the reinterpreted dims."""
        return sum_rightmost(
            self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims
        )

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """The base transform's."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """The base transform's."""
        return self.base_transform.inverse_shape(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (same number of elements);
    the Jacobian term is 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import ReshapeTransform
    >>> ReshapeTransform((4,), (2, 2))(tc.zeros(3, 4)).shape
    tensorcore.Size([3, 2, 2])
    """

    bijective = True

    def __init__(
        self, in_shape: Sequence[int], out_shape: Sequence[int], cache_size: int = 0
    ) -> None:
        self.in_shape = Size(tuple(in_shape))
        self.out_shape = Size(tuple(out_shape))
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self) -> Any:
        """Reals with ``len(in_shape)`` event dims."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> Any:
        """Reals with ``len(out_shape)`` event dims."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(batch + tuple(self.out_shape))

    def _inverse(self, y: Tensor) -> Tensor:
        batch = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(batch + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Zeros over the batch dims."""
        batch = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return ops.zeros(batch, dtype=x.dtype, device=x.device)

    @staticmethod
    def _swap(shape: Sequence[int], old: Size, new: Size) -> Size:
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {old}")
        return Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape: Sequence[int]) -> Size:
        """``shape`` with ``in_shape`` replaced by ``out_shape``."""
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Sequence[int]) -> Size:
        """``shape`` with ``out_shape`` replaced by ``in_shape``."""
        return self._swap(shape, self.out_shape, self.in_shape)


class CatTransform(Transform):
    """Transforms ``tseq`` applied to consecutive pieces (of ``lengths``) along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import CatTransform, ExpTransform
    >>> from tensorcore.distributions.transforms import identity_transform
    >>> CatTransform([ExpTransform(), identity_transform], 0, [1, 1])(tc.tensor([0.0, 5.0]))
    tensor([1., 5.])
    """

    def __init__(
        self,
        tseq: Sequence[Transform],
        dim: int = 0,
        lengths: Sequence[int] | None = None,
        cache_size: int = 0,
    ) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("lengths must have one entry per transform")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        """The largest event dim of the pieces."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total length along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x: Tensor) -> list[Tensor]:
        if not -x.dim() <= self.dim < x.dim():
            raise ValueError(f"dim {self.dim} out of range for a {x.dim()}-d input")
        if x.shape[self.dim] != self.length:
            raise ValueError(f"expected size {self.length} along dim {self.dim}")
        out, start = [], 0
        for length in self.lengths:
            out.append(x.narrow(self.dim, start, length))
            start += length
        return out

    def _call(self, x: Tensor) -> Tensor:
        ys = [t(p) for t, p in zip(self.transforms, self._pieces(x), strict=True)]
        return ops.cat(ys, self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        xs = [t.inv(p) for t, p in zip(self.transforms, self._pieces(y), strict=True)]
        return ops.cat(xs, self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Each piece's term: concatenated where ``dim`` is a batch dim, else summed."""
        terms = []
        for t, xs, ys in zip(self.transforms, self._pieces(x), self._pieces(y), strict=True):
            term = t.log_abs_det_jacobian(xs, ys)
            terms.append(sum_rightmost(term, self.event_dim - t.event_dim))
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        return ops.cat(terms, dim) if dim < 0 else reduce(lambda a, b: a + b, terms)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every piece's transform is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The pieces' domains, concatenated."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> Any:
        """The pieces' codomains, concatenated."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Transforms ``tseq`` applied to the slices along ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.distributions.transforms import ExpTransform, StackTransform
    >>> from tensorcore.distributions.transforms import identity_transform
    >>> StackTransform([ExpTransform(), identity_transform], 1)(tc.zeros(1, 2))
    tensor([[1., 0.]])
    """

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same with ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z: Tensor) -> list[Tensor]:
        if not -z.dim() <= self.dim < z.dim():
            raise ValueError(f"dim {self.dim} out of range for a {z.dim()}-d input")
        if z.shape[self.dim] != len(self.transforms):
            raise ValueError(f"expected size {len(self.transforms)} along dim {self.dim}")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x: Tensor) -> Tensor:
        return ops.stack(
            [t(s) for t, s in zip(self.transforms, self._slices(x), strict=True)], self.dim
        )

    def _inverse(self, y: Tensor) -> Tensor:
        return ops.stack(
            [t.inv(s) for t, s in zip(self.transforms, self._slices(y), strict=True)], self.dim
        )

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """Each slice's term, stacked along ``dim``."""
        pairs = zip(self.transforms, self._slices(x), self._slices(y), strict=True)
        return ops.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in pairs], self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every slice's transform is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The slices' domains, stacked."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> Any:
        """The slices' codomains, stacked."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
