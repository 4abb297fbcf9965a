"""Composites over the decompositions of general matrices: ``linalg.eig``/``eigvals`` on
``_linalg_eig``, the LU family (``linalg.lu_factor``, ``linalg.lu``, ``linalg.lu_solve`` and
the deprecated ``lu``/``lu_solve``, which do not warn, as ``svd`` and ``triangular_solve`` do
not) on ``linalg_lu_factor_ex`` and ``lu_unpack``, and
``matrix_exp`` on ``linalg_matrix_exp`` (``ops/composite.py`` registers them with its own).

They are differentiated through their parts: ``lu_solve`` through ``lu_unpack`` and the
triangular solves, ``linalg.lu`` through ``linalg_lu_factor_ex`` and ``lu_unpack``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .. import return_types as rt
from .._tensor import Tensor, torch_name
from ..autograd import grad_mode
from ..dispatch import get_op
from ._call import call
from .meta_linalg import check_float_matrix, check_rhs_order

__all__ = ["LINALG_GENERAL_COMPOSITES"]

LINALG_GENERAL_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    LINALG_GENERAL_COMPOSITES[fn.__name__] = fn
    return fn


def _run(name: str, *args: Any) -> Any:
    return call(get_op(name), args)


def _mh(t: Tensor) -> Tensor:
    t = t.transpose(-2, -1)
    return t.conj() if t._dtype.is_complex else t


# ------------------------------------------------------------------ eigendecomposition
@_composite
def linalg_eig(A: Tensor) -> Any:
    return rt.linalg_eig(*_run("_linalg_eig", A, True))


@_composite
def linalg_eigvals(A: Tensor) -> Tensor:
    # The eigenvectors only when a gradient will need them (as PyTorch does).
    d = A._dtype
    if (d.is_floating_point or d.is_complex) and d.itemsize > 2:
        check_float_matrix("linalg.eigvals", A)
    wants = A._requires_grad and grad_mode.is_grad_enabled()
    return _run("_linalg_eig", A, wants)[0]


# ------------------------------------------------------------------ LU
@_composite
def linalg_lu_factor(A: Tensor, pivot: bool = True) -> Any:
    try:
        LU, pivots, _ = _run("linalg_lu_factor_ex", A, pivot, True)
    except RuntimeError as exc:
        text = str(exc)
        if "torch.linalg.lu_factor_ex:" not in text:
            raise
        raise RuntimeError(
            text.replace("torch.linalg.lu_factor_ex:", "torch.linalg.lu_factor:", 1)
        ) from None
    return rt.linalg_lu_factor(LU, pivots)


@_composite
def linalg_lu(A: Tensor, pivot: bool = True) -> Any:
    if A.ndim < 2:
        raise RuntimeError(
            f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A._shape)} "
            "instead"
        )
    LU, pivots, _ = _run("linalg_lu_factor_ex", A, pivot, False)
    P, L, U = _run("lu_unpack", LU, pivots, True, True)
    # P is a constant of A (PyTorch's linalg.lu gives it no gradient and no history).
    return rt.linalg_lu(P.detach(), L, U)


def _check_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:
    fn = "linalg.lu_solve"
    d = LU._dtype
    if d.is_floating_point and d.itemsize == 2:
        raise NotImplementedError(f"\"linalg.lu_solve\" not implemented for '{torch_name(d)}'")
    check_float_matrix("torch.linalg.lu_solve", LU)
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if LU._dtype is not B._dtype:
        raise RuntimeError(
            f"{fn}: Expected LU and B to have the same dtype, but found LU of type "
            f"{torch_name(LU._dtype)} and B of type {torch_name(B._dtype)} instead"
        )
    n = LU._shape[-1]
    check_rhs_order(fn, n, B, left)
    if pivots._dtype is not dt.int32:
        raise RuntimeError(f"{fn}: pivots should be a Tensor of scalar type torch.int32")
    if pivots._shape[-1:] != (n,):
        raise RuntimeError(
            f"{fn}: Number of pivots per batch should be same as the dimension of the matrix"
        )
    if pivots._shape != LU._shape[:-1]:
        raise RuntimeError(
            f"{fn}: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots "
            f"with shape {list(pivots._shape)} instead"
        )


def _tri(T: Tensor, B: Tensor, upper: bool, left: bool, unit: bool = False) -> Tensor:
    return _run("linalg_solve_triangular", T, B, upper, left, unit)


@_composite
def linalg_lu_solve(
    LU: Tensor, pivots: Tensor, B: Tensor, left: bool = True, adjoint: bool = False
) -> Tensor:
    _check_lu_solve(LU, pivots, B, left)
    try:
        P, L, U = _run("lu_unpack", LU, pivots, True, True)
    except RuntimeError as exc:
        if "pivots passed to lu_unpack" not in str(exc):
            raise
        raise RuntimeError(
            "Pivots given to lu_solve must all be between 1 and LU.size(-2). Did you properly "
            "pass the result of lu_factor?"
        ) from None
    # A = P L U. The four systems, each two triangular solves and a permutation:
    # A X = B: X = U^-1 L^-1 P^T B;  A^H X = B: X = P L^-H U^-H B;
    # X A = B: X = B U^-1 L^-1 P^T;  X A^H = B: X = B P L^-H U^-H.
    if left and not adjoint:
        y = _tri(L, P.mT.matmul(B), upper=False, left=True, unit=True)
        return _tri(U, y, upper=True, left=True)
    if left:
        y = _tri(_mh(U), B, upper=False, left=True)
        return P.matmul(_tri(_mh(L), y, upper=True, left=True, unit=True))
    if not adjoint:
        y = _tri(U, B, upper=True, left=False)
        return _tri(L, y, upper=False, left=False, unit=True).matmul(P.mT)
    y = B.matmul(P)
    y = _tri(_mh(L), y, upper=True, left=False, unit=True)
    return _tri(_mh(U), y, upper=False, left=False)


@_composite
def lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    LU, pivots, info = _run("linalg_lu_factor_ex", self, pivot, not get_infos)
    if get_infos:
        return rt._lu_with_info(LU, pivots, info)
    return LU, pivots


@_composite
def lu_solve(self: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    return linalg_lu_solve(LU_data, LU_pivots, self)


# ------------------------------------------------------------------ matrix exponential
@_composite
def matrix_exp(self: Tensor) -> Tensor:
    return _run("linalg_matrix_exp", self)
