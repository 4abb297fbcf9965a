"""Operations on compressed sparse tensors (CSR, CSC).

Where the pattern stays (``c * 2``, ``-c``, ``c.sin()``, zero-preserving unary functions) a
kernel maps the values and shares the indices. Elsewhere it runs the COO layout's kernel on
the operands' COO forms (:func:`~tensorcore_sparse._compressed.to_coo`, which wraps a CSR
matrix without copying) and converts a sparse result back to the layout of its first
compressed operand: ``c + c``, ``c @ c`` and ``c * dense`` stay CSR, ``c @ dense`` and
``c + dense`` are dense, as in PyTorch. ``t()`` of a CSR matrix is the CSC matrix over the
same arrays.

All are ``direct=True`` kernels (they promote, check and store their results themselves),
except ``transpose``. Written once for every device type (:mod:`tensorcore_sparse._xp`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorcore import Tensor
from tensorcore.backend import dtype_name, op_parameters, ops, wrap_dim

from .._compressed import (
    COMPRESSED,
    crecord,
    expanded,
    from_coo,
    from_dense,
    is_compressed,
    layout_word,
    make_compressed,
    store_compressed,
    to_coo,
    with_index_dtype,
)
from .._coo import is_sparse, mask, np_of
from .._xp import DEVICE_TYPES, ns_of
from . import linalg, pointwise, reductions, shape

__all__ = ["KERNELS", "check_sampled_addmm"]


def _coo_operands(name: str, args: tuple[Any, ...]) -> list[Any]:
    if any(is_sparse(a) for a in args):
        words = sorted({layout_word(a._layout) for a in args if isinstance(a, Tensor)})
        raise NotImplementedError(
            f"{name}(): operands of layouts {', '.join(words)} cannot be mixed; convert the COO "
            "operand first (to_sparse_csr(), to_sparse_csc()) or the compressed one (to_sparse())"
        )
    return [to_coo(a) if is_compressed(a) else a for a in args]


def _via_coo(
    name: str, coo_kernel: Callable[..., Any], keep_index_dtype: bool = True
) -> Callable[..., Any]:
    """A kernel running the COO layout's kernel of ``name`` on the COO forms. A compressed
    result has the index dtype of the first compressed operand when ``keep_index_dtype``
    (PyTorch's elementwise results do; its products have int64 indices)."""

    def kernel(*args: Any, out: Any = None) -> Any:
        first = next(a for a in args if is_compressed(a))
        conv = _coo_operands(name, args)
        if out is not None and not is_compressed(out):
            return coo_kernel(*conv, out=out)  # a dense out: the COO kernel writes it
        res = coo_kernel(*conv)
        if is_sparse(res):
            res = from_coo(res, first._layout.name)
            if keep_index_dtype:
                res = with_index_dtype(res, first)
        return store_compressed(out, res)

    kernel.__name__ = name
    return kernel


def _scale(t: Tensor, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """``t``'s pattern with the values ``fn(values)``."""
    rec = crecord(t)
    return make_compressed(
        None, rec.compressed, rec.plain, fn(rec.values), tuple(t._shape), t._layout.name
    )


_coo_mul = _via_coo("mul", pointwise.mul)


def mul(self: Any, other: Any, out: Any = None) -> Any:
    """``compressed * scalar`` (or a 0-dim tensor) scales the values; ``compressed *
    compressed`` keeps the intersection of the patterns and ``compressed * dense`` (either
    way round) the compressed operand's: compressed results, as PyTorch's."""
    x = other if is_compressed(self) else self
    c = self if is_compressed(self) else other
    if not isinstance(x, Tensor) or (x.ndim == 0 and not is_compressed(x) and not is_sparse(x)):
        if out is self and not is_compressed(self):
            raise RuntimeError("mul_(): a scalar tensor cannot hold a sparse product in place")
        return store_compressed(out, _scale(c, lambda v: v * x))
    return _coo_mul(self, other, out=out)


def _unary(name: str) -> Callable[..., Any]:
    fn = getattr(ops, name)
    names = op_parameters(name)[1:]

    def kernel(self: Tensor, *args: Any, out: Any = None) -> Tensor:
        kwargs = dict(zip(names, args, strict=True))
        return store_compressed(out, _scale(self, lambda v: fn(v, **kwargs)))

    kernel.__name__ = name
    return kernel


def pow(self: Any, other: Any, out: Any = None) -> Tensor:
    if not is_compressed(self) or isinstance(other, Tensor):
        raise RuntimeError("pow(): only a compressed sparse base with a scalar exponent works")
    if other == 0:
        raise RuntimeError(
            "pow: cannot raise to zeroth power on sparse tensor; it would make the result "
            "tensor dense"
        )
    return store_compressed(out, _scale(self, lambda v: ops.pow(v, other)))


def sum(
    self: Tensor, dim: Any = None, keepdim: bool = False, dtype: Any = None, out: Any = None
) -> Any:
    """The sum of every element (dense, 0-dim), or with ``keepdim=True`` over ``dim``
    (compressed); PyTorch refuses other reductions of a compressed tensor."""
    if dim is not None and not keepdim:
        raise RuntimeError(
            f"reduction operations on {layout_word(self._layout)[6:].upper()} tensors with "
            "keepdim=False is unsupported"
        )
    res = reductions.sum(to_coo(self), dim, keepdim, dtype)
    if is_sparse(res):
        res = from_coo(res, self._layout.name)
    elif keepdim:
        res = from_dense(res, self._layout.name)
    return store_compressed(out, res)


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap the two dims: a CSR matrix's transpose is the CSC matrix over the same arrays
    (and a CSC one's a CSR one), as PyTorch gives."""
    d0, d1 = wrap_dim(dim0, 2), wrap_dim(dim1, 2)
    rec = crecord(self)
    if d0 == d1:
        return make_compressed(
            None, rec.compressed, rec.plain, rec.values, tuple(self._shape), self._layout.name
        )
    other = "sparse_csc" if self._layout.name == "sparse_csr" else "sparse_csr"
    shape = (self._shape[1], self._shape[0])
    return make_compressed(None, rec.compressed, rec.plain, rec.values, shape, other)


def sparse_mask(self: Tensor, mask_: Tensor) -> Tensor:
    """``self`` (dense, COO or compressed) at the entries of the compressed ``mask``, in the
    mask's layout and pattern (PyTorch's)."""
    if not is_compressed(mask_):
        raise RuntimeError(
            f"sparse_mask(): a {layout_word(self._layout)} tensor cannot be masked by a "
            f"{layout_word(mask_._layout)} mask"
        )
    if self.shape != mask_.shape:
        raise RuntimeError(
            f"sparse_mask(): expected self and mask to have the same size, but got "
            f"{list(self.shape)} and {list(mask_.shape)}"
        )
    src = to_coo(self) if is_compressed(self) else self
    return from_coo(mask(src, to_coo(mask_)), mask_._layout.name)


def select(self: Tensor, dim: int, index: int) -> Tensor:
    """A row or column of a compressed matrix as a 1-D COO tensor (and an element as a
    dense 0-dim tensor), as PyTorch gives."""
    return shape.select(to_coo(self), dim, index)


def check_sampled_addmm(self: Tensor, mat1: Tensor, mat2: Tensor) -> None:
    """PyTorch's checks of ``torch.sparse.sampled_addmm``'s operands, with its messages."""
    name = "sampled_addmm"
    if self._layout.name != "sparse_csr":
        raise RuntimeError(
            f"{name}: Expected result to have sparse csr layout, but got "
            f"{layout_word(self._layout)}"
        )
    for what, t in (("mat1", mat1), ("mat2", mat2)):
        if is_sparse(t) or is_compressed(t) or t.ndim != 2:
            raise RuntimeError(f"{name}: Expected {what} to be a dense 2-D matrix")
        if t.dtype is not self.dtype:
            raise RuntimeError(
                f"{name}: Expected {what} and self to have the same dtype, but got "
                f"{dtype_name(t.dtype)} and {dtype_name(self.dtype)}"
            )
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(
            f"{name}: mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
            f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})"
        )
    if self.shape[0] != mat1.shape[0]:
        raise RuntimeError(f"{name}: self.shape[-2] must match mat1.shape[-2]")
    if self.shape[1] != mat2.shape[1]:
        raise RuntimeError(f"{name}: self.shape[-1] must match mat2.shape[-1]")


def sparse_sampled_addmm(
    self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1, out: Any = None
) -> Tensor:
    """``beta * self + alpha * (mat1 @ mat2)`` computed at the entries of the CSR ``self``
    only (one dot product per entry: the dense product is never formed), a CSR result with
    ``self``'s pattern, as PyTorch's ``torch.sparse.sampled_addmm``."""
    check_sampled_addmm(self, mat1, mat2)
    ns = ns_of(self)
    xp = ns.xp
    rec = crecord(self)
    rows = expanded(ns, np_of(rec.compressed))
    cols = np_of(rec.plain)
    dots = xp.einsum("ek,ek->e", np_of(mat1)[rows], np_of(mat2).T[cols])
    vals = np_of(rec.values) * beta + dots * alpha if beta != 0 else dots * alpha
    res = make_compressed(ns, rec.compressed, rec.plain, vals, tuple(self.shape), "sparse_csr")
    return store_compressed(out, res)


_FUNCTIONS: list[tuple[str, Callable[..., Any], bool]] = [
    ("add", _via_coo("add", pointwise._add("add", 1)), True),
    ("sub", _via_coo("sub", pointwise._add("sub", -1)), True),
    ("mul", mul, True),
    ("pow", pow, True),
    ("mm", _via_coo("mm", linalg.mm, keep_index_dtype=False), True),
    ("matmul", _via_coo("matmul", linalg.matmul, keep_index_dtype=False), True),
    ("mv", _via_coo("mv", linalg.mv, keep_index_dtype=False), True),
    ("sum", sum, True),
    ("_sparse_sampled_addmm", sparse_sampled_addmm, True),
    ("transpose", transpose, False),
    ("select", select, False),
    ("sparse_mask", sparse_mask, False),
    *((name, _unary(name), True) for name, _ in pointwise.UNARY),
]

#: (operator, device type, layout, kernel, direct)
KERNELS: list[tuple[str, str, str, Any, bool]] = [
    (op, device, layout, fn, direct)
    for device in DEVICE_TYPES
    for layout in COMPRESSED
    for op, fn, direct in _FUNCTIONS
]
