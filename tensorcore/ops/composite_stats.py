"""Composite statistics: order statistics (``kthvalue``, ``median``, ``quantile`` and their
NaN-ignoring forms) from a stable sort, and the NaN-ignoring and paired reductions
(``nanmean``, ``nansum``, ``var_mean``, ``std_mean``, ``aminmax``), and the covariance and
correlation matrices (``cov``, ``corrcoef``), and the numerical calculus of sampled functions
(``trapezoid``, ``cumulative_trapezoid``, ``gradient``).

Written with other operators, so every backend gets them and autograd differentiates them
through their parts (a sort's values, a gather, a lerp); ``ops/composite.py`` registers them
with the other composites.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .. import return_types
from .._tensor import Tensor, _wrap_dim, torch_name
from ..dispatch import get_op
from . import functions as ops
from ._call import call_lane
from ._validate import warn_caller
from .composite_linalg import linalg_multi_dot
from .frontends import named_as

__all__ = ["STATS_COMPOSITES"]

STATS_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    STATS_COMPOSITES[fn.__name__] = fn
    return fn


def _scalar_pair(self: Tensor) -> tuple[Tensor, Tensor]:
    """A 0-d tensor's order statistic along its one implicit dim: itself, at index 0."""
    return self.clone(), ops.zeros((), dtype=dt.int64, device=self._device)


@_composite
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    d = _wrap_dim(dim, self.ndim)
    n = self._shape[d] if self.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if self.ndim == 0:
        return return_types.kthvalue(*_scalar_pair(self))
    return return_types.kthvalue(*call_lane(get_op("kthvalue_dim"), (self, k, d, keepdim)))


@_composite
def mode(self: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    d = _wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return return_types.mode(*_scalar_pair(self))
    n = self._shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return return_types.mode(*call_lane(get_op("mode_dim"), (self, d, keepdim)))


def _median_dim(name: str, self: Tensor, dim: int, keepdim: bool, ignore_nan: bool) -> Any:
    d = _wrap_dim(dim, self.ndim)
    result = getattr(return_types, name)
    if self.ndim == 0:
        return result(*_scalar_pair(self))
    n = self._shape[d]
    if n == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return result(*call_lane(get_op(f"{name}_dim"), (self, d, keepdim)))


def _median_all(self: Tensor, ignore_nan: bool) -> Tensor:
    flat = self.reshape(-1)
    n = flat.numel()
    if n == 0:
        # NaN, converted to an integer dtype as a cast converts it (PyTorch's result)
        nan = ops.full((), float("nan"), device=self._device)
        return nan.to(self._dtype)
    # (the one kernel along the flattened dim; its node, if any, is not the result's)
    name = "nanmedian_dim" if ignore_nan else "median_dim"
    return call_lane(get_op(name), (flat, 0, False))[0]


def evenly_distributed(self: Tensor, value: Tensor) -> Tensor:
    """``value`` (a 0-d statistic of ``self``'s elements) whose gradient is shared evenly
    by every element equal to it (every NaN where it is NaN), as PyTorch differentiates the
    whole-tensor ``median`` and ``max``: ``value`` plus a term that is -0.0 (or, where ``value`` is
    infinite, ``value`` again) whose derivative is that share."""
    if not (self._dtype.is_floating_point and self._requires_grad):  # (dual ones too)
        return value
    v = value.detach()
    mask = ops.where(v.isnan(), self.isnan(), self == v)
    shift = ops.where(v.isfinite(), v, 0.0)
    # (the where last, on self's side: the elements not sharing get +0.0, not -0.0)
    share = (shift - ops.where(mask, self, shift)).sum() / mask.sum()
    return v - share


def _median_all_named(self: Tensor, ignore_nan: bool) -> Tensor:
    out = evenly_distributed(self, _median_all(self, ignore_nan))
    return named_as(out, "NanmedianBackward0" if ignore_nan else "MedianBackward0")


@_composite
def median(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    if dim is None:
        return _median_all_named(self, False)
    return _median_dim("median", self, dim, keepdim, False)


@_composite
def nanmedian(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    if dim is None:
        return _median_all_named(self, True)
    return _median_dim("nanmedian", self, dim, keepdim, True)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(
    name: str,
    self: Tensor,
    q: Any,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
) -> Tensor:
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._dtype is not self._dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        if q.numel() and not bool(((q >= 0) & (q <= 1)).all()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        qs = q.reshape(-1)
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qs = ops.full((1,), q, dtype=self._dtype, device=self._device)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
            f"but got {interpolation}"
        )
    if self.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if dim is None:
        s = self.reshape(-1).sort().values
        d = None
    else:
        d = _wrap_dim(dim, self.ndim)
        s = (self.reshape(1) if self.ndim == 0 else self).sort(d if self.ndim else 0).values
        s = s.movedim(d if self.ndim else 0, -1)
    # s: (..., n) sorted, NaN last; ranks: (..., Q) positions to read, as PyTorch finds them.
    n = s._shape[-1]
    isnan = s.isnan()
    if ignore_nan:
        ranks = (qs * (isnan.logical_not().sum(-1, keepdim=True) - 1)).clamp(min=0)
    else:
        ranks = ops.where(isnan.any(-1, keepdim=True), float(n - 1), qs * (n - 1))
        ranks = ranks.expand(s._shape[:-1] + (qs._shape[0],))
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.to(dt.int64)
    res = s.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        above = ranks.ceil().to(dt.int64)
        weights = ops.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        res = ops.lerp(res, s.gather(-1, above), weights)
    res = res.movedim(-1, 0)  # the quantiles' dim first
    if keepdim:
        if d is None:
            res = res.reshape((res._shape[0],) + (1,) * self.ndim)
        elif self.ndim:
            res = res.unsqueeze(d + 1)
    if not isinstance(q, Tensor) or q.ndim == 0:
        res = res.squeeze(0)
    return res


@_composite
def quantile(
    self: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    return _quantile("quantile", self, q, dim, keepdim, interpolation, False)


@_composite
def nanquantile(
    self: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    interpolation: str = "linear",
) -> Tensor:
    return _quantile("nanquantile", self, q, dim, keepdim, interpolation, True)


@_composite
def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    # (masked_fill copies, then writes the few NaN positions: where(isnan, 0, self) picks
    # element by element, 3.5x slower on NumPy)
    x = self.masked_fill(self.isnan(), 0) if self._dtype.is_floating_point else self
    return named_as(x.sum(dim, keepdim, dtype=dtype), "NansumBackward0")


@_composite
def nanmean(self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    numbers = self.isnan().logical_not()
    total = ops.where(numbers, self, 0).sum(dim, keepdim, dtype=dtype)
    return total / numbers.sum(dim, keepdim)


@_composite
def var_mean(
    self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    # (PyTorch computes both in one node; here each output has its own, named as that one)
    return (
        named_as(self.var(dim, correction=correction, keepdim=keepdim), "VarMeanBackward0"),
        named_as(self.mean(dim, keepdim), "VarMeanBackward0"),
    )


@_composite
def std_mean(
    self: Tensor, dim: Any = None, correction: Any = None, keepdim: bool = False
) -> tuple[Tensor, Tensor]:
    return (
        named_as(self.std(dim, correction=correction, keepdim=keepdim), "StdMeanBackward0"),
        named_as(self.mean(dim, keepdim), "StdMeanBackward0"),
    )


@_composite
def aminmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    if self.numel() == 0 and dim is None:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has "
            "no identity."
        )
    if dim is not None and self.ndim and self._shape[_wrap_dim(dim, self.ndim)] == 0:
        d = _wrap_dim(dim, self.ndim)
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    dims = () if dim is None else (dim,)
    lo, hi = self.amin(dims, keepdim), self.amax(dims, keepdim)
    return return_types.aminmax(named_as(lo, "AminmaxBackward0"), named_as(hi, "AminmaxBackward0"))


def _check_weights(kind: str, w: Tensor, n: int) -> None:
    """PyTorch's checks of ``cov``'s ``fweights`` or ``aweights`` against ``n`` observations."""
    if w.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with "
            f"{w.ndim} dimensions"
        )
    ok, want = (
        (w._dtype.is_floating_point, "floating point")
        if kind == "aweights"
        else (w._dtype._category == 1, "integral")
    )
    if not ok:
        raise RuntimeError(
            f"cov(): expected {kind} to have {want} dtype but got {kind} with "
            f"{torch_name(w._dtype)} dtype"
        )
    if w.numel() != n:
        raise RuntimeError(
            f"cov(): expected {kind} to have the same numel as there are observations in the "
            f"input but got {w.numel()} != {n}"
        )
    if n and not bool(w.min() >= 0):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


@_composite
def cov(
    self: Tensor,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    # PyTorch's formula (aten Correlation.cpp), step for step, so that dtypes promote alike.
    if self.ndim > 2:
        raise RuntimeError(
            "cov(): expected input to have two or fewer dimensions but got an input with "
            f"{self.ndim} dimensions"
        )
    if self._dtype is dt.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = self.reshape(1, -1) if self.ndim < 2 else self
    n = x._shape[1]
    w: Tensor | None = None
    if fweights is not None:
        _check_weights("fweights", fweights, n)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, n)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum: Any = n
        avg = x.sum(1) / n
    else:
        w_sum = w.sum()
        if not bool(w_sum != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm: Any = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if bool(norm <= 0):
        warn_caller(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
        )
        norm = norm * 0
    xc = x - avg.unsqueeze(1)
    c = ops.mm(xc, (xc if w is None else xc * w).t().conj())
    return ops.true_divide(c, norm).squeeze()


@_composite
def corrcoef(self: Tensor) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(
            "corrcoef(): expected input to have two or fewer dimensions but got an input with "
            f"{self.ndim} dimensions"
        )
    c = cov(self)
    if c.ndim == 0:
        return c / c  # NaN for a variance of 0, inf or NaN; else 1
    d = c.diagonal()
    std = (d.real if d.is_complex() else d).sqrt()
    c = c / std.reshape(-1, 1) / std.reshape(1, -1)
    if c.is_complex():  # the correlations' moduli are at most 1 already, up to rounding
        return ops.complex(c.real.clip(-1, 1), c.imag)
    return c.clip(-1, 1)


# ------------------------------------------------------------------ integration
def _trapezoid_pieces(
    name: str, y: Tensor, x: Tensor | None, dx: Any, dim: int
) -> tuple[int, Tensor, Tensor, Any]:
    """``(dim, y[..., :-1], y[..., 1:], spacing)`` along ``dim``: the spacing is ``dx`` (1
    when neither is given), or the differences of ``x`` laid along ``dim``."""
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: x and dx")
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.ndim)
    n = y._shape[d]
    k = max(n - 1, 0)
    left, right = y.narrow(d, 0, k), y.narrow(d, min(1, n), k)
    if x is None:
        return d, left, right, 1 if dx is None else dx
    if x.ndim == 1:
        if x._shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        step = ops.diff(x).reshape([-1 if i == d else 1 for i in range(y.ndim)])
    else:
        step = ops.diff(x, dim=dim)
    return d, left, right, step


@_composite
def trapezoid(y: Tensor, x: Tensor | None = None, dx: Any = None, dim: int = -1) -> Tensor:
    d, left, right, step = _trapezoid_pieces("trapezoid", y, x, dx, dim)
    if isinstance(step, Tensor):
        return (step * (right + left)).sum(d) / 2.0
    if y._shape[d] == 0:
        return left.sum(d) * step  # (zeros, in the dtype the rule gives)
    # A constant spacing: the sum less half of the two ends, times the spacing (one rounding
    # per step as PyTorch's).
    ends = y.select(d, 0) + y.select(d, -1)
    return (y.sum(d) - ends * 0.5) * step


@_composite
def trapz(y: Tensor, x: Tensor | None = None, dx: Any = None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx, dim)


@_composite
def cumulative_trapezoid(
    y: Tensor, x: Tensor | None = None, dx: Any = None, dim: int = -1
) -> Tensor:
    d, left, right, step = _trapezoid_pieces("cumulative_trapezoid", y, x, dx, dim)
    return (step / 2.0 * (left + right)).cumsum(d)


_WARNED: set[str] = set()


@_composite
def chain_matmul(matrices: Any) -> Tensor:
    if "chain_matmul" not in _WARNED:  # (once per process, as PyTorch's TORCH_WARN_ONCE)
        _WARNED.add("chain_matmul")
        warnings.warn(
            "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. "
            "Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors "
            "rather than multiple parameters.",
            UserWarning,
            stacklevel=3,
        )
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        m = matrices[0]
        if m.ndim != 2:
            raise RuntimeError(f"chain_matmul(): Tensor 0 must be 2D but got {m.ndim}D")
        return m.clone()
    return linalg_multi_dot(list(matrices))


def _gradient_spacing(self: Tensor, spacing: Any, dims: list[int], given: bool) -> list[Any]:
    if isinstance(spacing, Tensor) and spacing.ndim == 0:
        spacing = spacing.item()
    if isinstance(spacing, (int, float, complex)) and not isinstance(spacing, bool):
        return [spacing] * len(dims)
    if not isinstance(spacing, (list, tuple)):
        raise TypeError(
            "gradient(): argument 'spacing' must be a number, a tuple of numbers or a tuple of "
            f"Tensors, not {type(spacing).__name__}"
        )
    if len(spacing) != len(dims):
        if given:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}."
            )
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {self.ndim}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}"
        )
    if any(isinstance(s, Tensor) for s in spacing):
        for i, s in enumerate(spacing):
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"gradient(): expected Tensor as element {i} in argument 'spacing', but got "
                    f"{type(s).__name__}"
                )
            if s.ndim != 1:
                raise RuntimeError(
                    "torch.gradient expected each element of spacing to have one dimension, "
                    f"but got an element with {s.ndim} dimensions!"
                )
            n = self._shape[dims[i]]
            if s._shape[0] != n:
                raise RuntimeError(
                    f"torch.gradient expected the coordinates along dim {dims[i]} to have "
                    f"{n} elements, but got {s._shape[0]}"
                )
    return list(spacing)


def _gradient_along(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    n = f._shape[d]

    def part(start: int, length: int) -> Tensor:
        return f.narrow(d, start, length)

    if not isinstance(h, Tensor):
        inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (part(0, 1) * -1.5 + part(1, 1) * 2 - part(2, 1) * 0.5) / h
            last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2 + part(n - 1, 1) * 1.5) / h
        return ops.cat([first, inner, last], d)
    # Coordinates: NumPy's second-order formulas for uneven spacing, with the distances
    # shaped to broadcast along dim d.
    shape = [1] * f.ndim
    shape[d] = n - 1
    dx = (h[1:] - h[:-1]).reshape(shape)

    def step(start: int, length: int) -> Tensor:
        return dx.narrow(d, start, length)

    hs, hd = step(0, n - 2), step(1, n - 2)
    inner = (
        part(0, n - 2) * (-hd / (hs * (hd + hs)))
        + part(1, n - 2) * ((hd - hs) / (hd * hs))
        + part(2, n - 2) * (hs / (hd * (hs + hd)))
    )
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / step(0, 1)
        last = (part(n - 1, 1) - part(n - 2, 1)) / step(n - 2, 1)
    else:
        d1, d2 = step(0, 1), step(1, 1)
        first = (
            part(0, 1) * (-(2 * d1 + d2) / (d1 * (d1 + d2)))
            + part(1, 1) * ((d1 + d2) / (d1 * d2))
            + part(2, 1) * (-d1 / (d2 * (d1 + d2)))
        )
        d1, d2 = step(n - 3, 1), step(n - 2, 1)
        last = (
            part(n - 3, 1) * (d2 / (d1 * (d1 + d2)))
            + part(n - 2, 1) * (-(d2 + d1) / (d1 * d2))
            + part(n - 1, 1) * ((2 * d2 + d1) / (d2 * (d1 + d2)))
        )
    return ops.cat([first, inner, last], d)


@_composite
def gradient(self: Tensor, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> Any:
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if spacing is None:  # (PyTorch's default: unit spacing)
        spacing = 1
    given = dim is not None
    if dim is None:
        dims = list(range(self.ndim))
    else:
        raw = [dim] if isinstance(dim, int) else list(dim)
        dims = [_wrap_dim(d, self.ndim) for d in raw]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    steps = _gradient_spacing(self, spacing, dims, given)
    for d in dims:
        if self._shape[d] < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
    f = self
    if not (f._dtype.is_floating_point or f._dtype.is_complex or f._dtype is dt.bool_):
        f = f.to(dt.get_default_dtype())
    return tuple(_gradient_along(f, d, h, edge_order) for d, h in zip(dims, steps, strict=True))
