"""Elementwise kernels of the sparse layout.

They are registered with ``direct=True``: the core's pointwise frontend (which broadcasts into
a dense ``out``) does not run, so each kernel promotes, checks shapes and returns its result
(writing it into ``out`` for in-place and ``out=`` calls). Only zero-preserving operations
have kernels: ``sparse + dense`` is dense, but ``exp(sparse)`` has no kernel and raises the
registry's error rather than densifying. Written once for every device type
(:mod:`tensorcore_sparse._xp`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorcore as tc
from tensorcore import Tensor
from tensorcore.backend import broadcast_shapes, check_cast, op_parameters, ops

from .._coo import (
    as_scipy,
    coalesce,
    coalesce_arrays,
    from_scipy,
    is_sparse,
    keys_of,
    make_sparse,
    np_dtype,
    np_of,
    ns_of,
    record,
    sparse_dim,
    store,
)
from .._xp import DEVICE_TYPES

__all__ = ["KERNELS", "UNARY", "add_sparse"]

#: Zero-preserving unary operators: (name, keeps). Those that keep an uncoalesced input
#: uncoalesced are the ones PyTorch's keep so (``neg``, ``conj``: linear, applied to the stored
#: values as they are); the others coalesce it first and give a coalesced result, and their
#: in-place forms refuse an uncoalesced ``self`` (``sin_ requires coalesced input``), as
#: PyTorch's do.
UNARY: tuple[tuple[str, bool], ...] = (
    ("neg", True),
    ("conj", True),
    ("erf", False),
    ("frac", False),
    ("sgn", False),
    ("square", False),
    ("isposinf", False),
    ("isneginf", False),
    ("abs", False),
    ("sign", False),
    ("sqrt", False),
    ("sin", False),
    ("tan", False),
    ("asin", False),
    ("atan", False),
    ("asinh", False),
    ("atanh", False),
    ("erfinv", False),
    ("deg2rad", False),
    ("rad2deg", False),
    ("signbit", False),
    ("sinh", False),
    ("tanh", False),
    ("expm1", False),
    ("log1p", False),
    ("relu", False),
    ("floor", False),
    ("ceil", False),
    ("trunc", False),
    ("round", False),
    ("nan_to_num", False),
    ("isnan", False),
    ("isinf", False),
)


def _check_alpha(alpha: Any, dtype: tc.dtype) -> None:
    if isinstance(alpha, float) and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


def _same_size(name: str, a: Tensor, b: Tensor) -> None:
    if a.shape != b.shape:
        raise RuntimeError(
            f"{name}: expected sizes of 'self' and 'other' to match, but {list(a.shape)} != "
            f"{list(b.shape)}"
        )


def _values_as(t: Tensor, dtype: tc.dtype) -> Any:
    return np_of(record(t).values.to(dtype))


# ------------------------------------------------------------------ add / sub
def add_sparse(a: Tensor, b: Tensor, coef: Any, dtype: tc.dtype) -> Tensor:
    """``a + coef * b`` for two sparse tensors of one size: coalesced when both are."""
    ra, rb = record(a), record(b)
    if sparse_dim(a) != sparse_dim(b):
        raise RuntimeError(
            f"add(): expected sparse tensors with the same sparse_dim, got {sparse_dim(a)} "
            f"and {sparse_dim(b)}"
        )
    ns = ns_of(a)
    if ra.coalesced and rb.coalesced and a.dtype is dtype and b.dtype is dtype:
        ma, mb = as_scipy(a), as_scipy(b)
        if ma is not None and mb is not None:
            m = ma + mb if coef == 1 else (ma - mb if coef == -1 else ma + mb * coef)
            # SciPy's csr_plus_csr keeps canonical operands canonical (our cached matrices are).
            return from_scipy(ns, m, a.shape, canonical=True)
    xp = ns.xp
    va, vb = _values_as(a, dtype), _values_as(b, dtype)
    if coef != 1:
        vb = vb * xp.asarray(coef, dtype=va.dtype)
    ia, ib = np_of(ra.indices), np_of(rb.indices)
    if not (ra.coalesced and rb.coalesced) and ia.shape == ib.shape and bool(xp.all(ia == ib)):
        # One pattern (a gradient accumulated into itself): PyTorch's merge of the two index
        # lists pairs every entry with its twin, so the entries stay as they are, summed.
        vals = va + vb.astype(va.dtype, copy=False)
        return make_sparse(ns, ra.indices, vals, a.shape, False)
    idx = xp.concatenate([ia, ib], axis=1)
    vals = xp.concatenate([va, vb.astype(va.dtype, copy=False)], axis=0)
    if ra.coalesced and rb.coalesced:
        idx, vals = coalesce_arrays(ns, idx, vals, a.shape[: idx.shape[0]])
        return make_sparse(ns, idx, vals, a.shape, True)
    return make_sparse(ns, idx, vals, a.shape, False)


def _scatter_add(dense: Any, s: Tensor, coef: Any) -> None:
    """``dense += coef * s`` in place (a native array, which may be a strided view)."""
    rec = record(s)
    idx = tuple(np_of(rec.indices))
    vals = np_of(rec.values)
    if coef != 1:
        vals = vals * coef
    vals = vals.astype(dense.dtype, copy=False)
    if rec.coalesced:
        dense[idx] += vals
    else:
        ns_of(s).add_at(dense, idx, vals)


def _add(name: str, sign: int) -> Callable[..., Any]:
    def kernel(self: Any, other: Any, alpha: Any = 1, out: Any = None) -> Tensor:
        if not (isinstance(self, Tensor) and isinstance(other, Tensor)):
            raise RuntimeError(
                f"{name}(): adding a scalar to a sparse tensor would make it dense; add the "
                "scalar to a dense tensor (x.to_dense()) instead"
            )
        dtype = tc.result_type(self, other)
        _check_alpha(alpha, dtype)
        coef = alpha * sign
        if is_sparse(self) and is_sparse(other):
            _same_size(name, self, other)
            return store(out, add_sparse(self, other, coef, dtype))
        if out is self and is_sparse(self):
            raise RuntimeError(
                f"{name}_(): a dense tensor cannot be added into a sparse tensor in place "
                "(the result is dense); use dense + sparse"
            )
        if out is self:
            # dense.add_(sparse): scatter into self, without densifying the sparse operand.
            if tuple(other.shape) != tuple(self.shape):
                raise RuntimeError(
                    f"{name}_(): the sparse tensor of size {list(other.shape)} does not match "
                    f"the dense tensor of size {list(self.shape)}"
                )
            check_cast(dtype, self.dtype, f"{name}_")
            _scatter_add(np_of(self), other, coef)
            return self
        s, d = (self, other) if is_sparse(self) else (other, self)
        shape = broadcast_shapes(s.shape, d.shape)
        if tuple(shape) != tuple(s.shape):
            raise RuntimeError(
                f"{name}(): the sparse operand of size {list(s.shape)} cannot be broadcast "
                f"to {list(shape)}"
            )
        dense_coef = 1 if d is self else coef
        ns = ns_of(s)
        xp = ns.xp
        res = xp.array(xp.broadcast_to(np_of(d.to(dtype)), shape), dtype=np_dtype(dtype))
        if dense_coef != 1:
            res *= xp.asarray(dense_coef, dtype=res.dtype)
        _scatter_add(res, s, 1 if s is self else coef)
        return store(out, ns.wrap(res))

    kernel.__name__ = name
    return kernel


# ------------------------------------------------------------------ mul / div
def _mul_sparse(a: Tensor, b: Tensor, dtype: tc.dtype) -> Tensor:
    """Elementwise product of two sparse tensors: the intersection of their patterns."""
    _same_size("mul", a, b)
    ns = ns_of(a)
    xp = ns.xp
    ac, bc = coalesce(a), coalesce(b)
    ra, rb = record(ac), record(bc)
    ia, ib = np_of(ra.indices), np_of(rb.indices)
    if ia.shape[0] != ib.shape[0]:
        raise RuntimeError("mul(): expected sparse tensors with the same sparse_dim")
    ka, kb = keys_of(ns, ia, ib, sizes=a.shape[: ia.shape[0]])
    # Coalesced keys are sorted and unique: each key of a finds its match in b by binary
    # search (intersect1d's sort of both would cost more).
    if len(kb):
        pos = xp.minimum(xp.searchsorted(kb, ka), len(kb) - 1)
        pa = xp.flatnonzero(kb[pos] == ka)
        pb = pos[pa]
    else:
        pa = pb = xp.zeros(0, dtype=xp.int64)
    va, vb = _values_as(ac, dtype), _values_as(bc, dtype)
    # (coalesced in fact; flagged so only when both operands were, as PyTorch flags it)
    flag = record(a).coalesced and record(b).coalesced
    return make_sparse(ns, ia[:, pa], va[pa] * vb[pb], a.shape, flag)


def _mul_dense(s: Tensor, d: Tensor, dtype: tc.dtype) -> Tensor:
    """``sparse * dense``: the dense operand (broadcast to the sparse size) read at the
    sparse entries only."""
    shape = broadcast_shapes(s.shape, d.shape)
    if tuple(shape) != tuple(s.shape):
        raise NotImplementedError(
            f"mul(): a dense operand of size {list(d.shape)} would broadcast the sparse tensor "
            f"of size {list(s.shape)}; only the dense operand is broadcast"
        )
    ns = ns_of(s)
    rec = record(s)
    picked = ns.xp.broadcast_to(np_of(d), shape)[tuple(np_of(rec.indices))]
    npd = np_dtype(dtype)
    vals = _values_as(s, dtype) * picked.astype(npd, copy=False)
    return make_sparse(ns, rec.indices, vals.astype(npd, copy=False), s.shape, rec.coalesced)


def _scale(s: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    rec = record(s)
    return make_sparse(None, rec.indices, fn(rec.values), s.shape, rec.coalesced)


def mul(self: Any, other: Any, out: Any = None) -> Tensor:
    if is_sparse(self) and is_sparse(other):
        return store(out, _mul_sparse(self, other, tc.result_type(self, other)))
    s, x = (self, other) if is_sparse(self) else (other, self)
    if out is self and not is_sparse(self):
        raise RuntimeError(
            "mul_(): a dense tensor cannot be multiplied by a sparse tensor in place (the "
            "result is sparse); use dense * sparse"
        )
    if not isinstance(x, Tensor) or x.ndim == 0:
        # A scalar: scale the values (linear, so an uncoalesced tensor stays as it is).
        return store(out, _scale(s, lambda v: v * x))
    return store(out, _mul_dense(s, x, tc.result_type(self, other)))


def div(self: Any, other: Any, rounding_mode: str | None = None, out: Any = None) -> Tensor:
    if not is_sparse(self) or is_sparse(other):
        raise RuntimeError(
            "div(): dividing by a sparse tensor would divide by its zeros; only "
            "sparse / scalar (or a 0-dim dense tensor) is supported"
        )
    if isinstance(other, Tensor) and other.ndim != 0:
        raise NotImplementedError(
            "Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
            f"{list(other.shape)} for divisor)"
        )
    x = self if rounding_mode is None else coalesce(self)
    return store(out, _scale(x, lambda v: ops.div(v, other, rounding_mode=rounding_mode)))


def pow(self: Any, other: Any, out: Any = None) -> Tensor:
    if not is_sparse(self) or is_sparse(other):
        raise RuntimeError("pow(): only a sparse base with a scalar exponent is supported")
    if isinstance(other, Tensor) and (other.ndim != 0 or other.requires_grad):
        raise NotImplementedError(
            "pow(): a sparse tensor's exponent must be a scalar (or a 0-dim tensor that does "
            "not require grad)"
        )
    p = other.item() if isinstance(other, Tensor) else other
    if p == 0:
        # (a negative power maps the specified values only, as PyTorch's: the unspecified
        # zeros stay zeros rather than becoming infinities)
        raise RuntimeError(
            "pow: cannot raise to zeroth power on sparse tensor; it would make the result "
            "tensor dense"
        )
    return store(out, _scale(coalesce(self), lambda v: ops.pow(v, other)))


# ------------------------------------------------------------------ unary
def _unary(name: str, linear: bool) -> Callable[..., Any]:
    fn = getattr(ops, name)
    # The operator's other parameters (``decimals``, ``nan``, ...), passed on by name.
    names = op_parameters(name)[1:]

    def kernel(self: Tensor, *args: Any, out: Any = None) -> Tensor:
        if out is self and not linear and not record(self).coalesced:
            raise RuntimeError(f"{name}_ requires coalesced input")
        x = self if linear else coalesce(self)
        kwargs = dict(zip(names, args, strict=True))
        return store(out, _scale(x, lambda v: fn(v, **kwargs)))

    kernel.__name__ = name
    return kernel


def floor_divide(self: Any, other: Any, out: Any = None) -> Tensor:
    """``sparse // scalar``: ``div(..., rounding_mode="floor")`` (zero stays zero)."""
    return div(self, other, rounding_mode="floor", out=out)


_FUNCTIONS: list[tuple[str, Callable[..., Any]]] = [
    ("add", _add("add", 1)),
    ("sub", _add("sub", -1)),
    ("mul", mul),
    ("div", div),
    ("floor_divide", floor_divide),
    ("pow", pow),
    *((name, _unary(name, lin)) for name, lin in UNARY),
]

#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, "sparse_coo", fn, True) for device in DEVICE_TYPES for op, fn in _FUNCTIONS
]
