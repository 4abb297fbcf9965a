"""Meta functions of the matrix products (``matmul``, ``mm``, ``addmm``, ``bmm``, ``mv``,
``dot``, ``outer``, ``addmv``, ``addr``): operand ranks, inner sizes and dtypes checked in
PyTorch's words, and each result's shape. The contract of a meta function is
``ops/meta_functions.py``'s.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from .meta_functions import blas_scale, broadcast, check_alpha, need_tensor

__all__ = [
    "meta_addmm",
    "meta_addmv",
    "meta_addr",
    "meta_bmm",
    "meta_dot",
    "meta_matmul",
    "meta_mm",
    "meta_mv",
    "meta_outer",
]


def _same_dtype(name: str, a: Tensor, b: Tensor) -> dt.dtype:
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"{name}(): expected both arguments to have the same dtype, but got: "
            f"{torch_name(a._dtype)} != {torch_name(b._dtype)}"
        )
    return a._dtype


def _matmul_mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """PyTorch's message for ``matmul`` of shapes whose inner sizes differ, which names the
    kernel the shapes lead to (dot, mv, mm or bmm)."""
    rows = math.prod(a[:-1])
    if len(a) == 1 and len(b) == 1:
        return (
            f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the "
            f"same number of elements, but got {a[0]} and {b[0]} elements respectively"
        )
    if len(b) == 1:
        return f"size mismatch, got input ({rows}), mat ({rows}x{a[-1]}), vec ({b[0]})"
    if len(b) == 2:
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{a[-1]} and {b[0]}x{b[1]})"
    batch = math.prod(broadcast(a[:-2], b[:-2]))
    return (
        f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {a[-1]}] "
        f"but got: [{batch}, {b[-2]}]."
    )


def meta_matmul(self: Tensor, other: Tensor) -> Any:
    need_tensor("matmul", "other", other)
    d = _same_dtype("matmul", self, other)
    a, b = self._shape, other._shape
    if not a or not b:
        raise RuntimeError(
            f"matmul(): both arguments need at least 1 dimension, but got {len(a)}D and {len(b)}D"
        )
    k1 = a[-1]
    k2 = b[-2] if len(b) > 1 else b[0]
    if k1 != k2:
        raise RuntimeError(_matmul_mismatch(a, b))
    if len(a) == 1 and len(b) == 1:
        shape: tuple[int, ...] = ()
    elif len(b) == 1:
        shape = a[:-1]
    elif len(a) == 1:
        shape = b[:-2] + b[-1:]
    elif len(a) == 2 and len(b) == 2:  # (no batch dims to broadcast: the common case)
        shape = (a[0], b[1])
    else:
        shape = broadcast(a[:-2], b[:-2]) + (a[-2], b[-1])
    return (self, other), (shape, d)


def meta_mm(self: Tensor, mat2: Tensor) -> Any:
    need_tensor("mm", "mat2", mat2)
    if self.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self._shape[1] != mat2._shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({self._shape[0]}x{self._shape[1]} and "
            f"{mat2._shape[0]}x{mat2._shape[1]})"
        )
    return (self, mat2), ((self._shape[0], mat2._shape[1]), _same_dtype("mm", self, mat2))


def meta_addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    need_tensor("addmm", "mat1", mat1)
    need_tensor("addmm", "mat2", mat2)
    _, (shape, dtype) = meta_mm(mat1, mat2)
    if self._dtype is not dtype:
        raise RuntimeError(
            f"addmm(): expected self and the matrices to have the same dtype, but got "
            f"{torch_name(self._dtype)} and {torch_name(dtype)}"
        )
    try:
        fits = broadcast(self._shape, shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"addmm(): self of shape {list(self._shape)} cannot be broadcast to the product's "
            f"shape {list(shape)}"
        )
    beta, alpha = blas_scale(dtype, beta, "beta"), blas_scale(dtype, alpha, "alpha")
    return (self, mat1, mat2, beta, alpha), (shape, dtype)


def meta_bmm(self: Tensor, mat2: Tensor) -> Any:
    need_tensor("bmm", "mat2", mat2)
    if self.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (b1, n, k1), (b2, k2, m) = self._shape, mat2._shape
    if b1 != b2 or k1 != k2:
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b1}, {k1}] but got: [{b2}, {k2}]."
        )
    return (self, mat2), ((b1, n, m), _same_dtype("bmm", self, mat2))


def meta_mv(self: Tensor, vec: Tensor) -> Any:
    need_tensor("mv", "vec", vec)
    if self.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if self._shape[1] != vec._shape[0]:
        n, k = self._shape
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{k}), vec ({vec._shape[0]})")
    return (self, vec), ((self._shape[0],), _same_dtype("mv", self, vec))


def meta_dot(self: Tensor, tensor: Tensor) -> Any:
    need_tensor("dot", "tensor", tensor)
    if self.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    if self._shape != tensor._shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{self._shape[0]}] and src "
            f"[{tensor._shape[0]}] to have the same number of elements, but got "
            f"{self._shape[0]} and {tensor._shape[0]} elements respectively"
        )
    return (self, tensor), ((), _same_dtype("dot", self, tensor))


def meta_outer(self: Tensor, vec2: Tensor) -> Any:
    need_tensor("outer", "vec2", vec2)
    if self.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer(): expected 1-D tensors, got {self.ndim}D and {vec2.ndim}D")
    return (self, vec2), (
        (self._shape[0], vec2._shape[0]),
        dt.promote_types(self._dtype, vec2._dtype),
    )


def meta_addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    need_tensor("addmv", "mat", mat)
    need_tensor("addmv", "vec", vec)
    if mat.ndim != 2 or vec.ndim != 1 or self.ndim > 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}"
        )
    n, m = mat._shape
    if m != vec._shape[0] or (self.ndim == 1 and self._shape[0] not in (1, n)):
        size = "" if self.ndim == 0 else str(self._shape[0])
        raise RuntimeError(
            f"size mismatch, got input ({size}), mat ({n}x{m}), vec ({vec._shape[0]})"
        )
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{torch_name(self._dtype)}, {torch_name(mat._dtype)}, and {torch_name(vec._dtype)}"
        )
    dtype = self._dtype
    beta, alpha = blas_scale(dtype, beta, "beta"), blas_scale(dtype, alpha, "alpha")
    return (self, mat, vec, beta, alpha), ((n,), dtype)


def meta_addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Any = 1, alpha: Any = 1) -> Any:
    need_tensor("addr", "vec1", vec1)
    need_tensor("addr", "vec2", vec2)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    shape = (vec1._shape[0], vec2._shape[0])
    try:
        fits = broadcast(self._shape, shape) == shape
    except RuntimeError:
        fits = False
    if not fits:
        bad = next(
            i
            for i in range(-1, -self.ndim - 1, -1)
            if -i > 2 or self._shape[i] not in (1, shape[i])
        )
        have = self._shape[bad]
        raise RuntimeError(
            f"The expanded size of the tensor ({shape[bad] if -bad <= 2 else -1}) must match "
            f"the existing size ({have}) at non-singleton dimension {self.ndim + bad}.  "
            f"Target sizes: {list(shape)}.  Tensor sizes: {list(self._shape)}"
        )
    dtype = dt.result_type(self, vec1, vec2)
    check_alpha(dtype, beta, "beta")
    check_alpha(dtype, alpha, "alpha")
    return (self, vec1, vec2, beta, alpha), (shape, dtype)
