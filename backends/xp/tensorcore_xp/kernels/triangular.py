"""The triangular solve (``linalg_solve_triangular``), written once against an array module
``xp``: ``O(n^2 k)`` for ``n x n`` triangles and ``k`` right-hand sides, where a general
solve costs ``O(n^3)``.

- **NumPy**: SciPy's BLAS ``trsm`` (``trsv`` for one right-hand side), one call per matrix,
  as PyTorch's CPU kernel calls BLAS. Each call is given the arrays in the memory order
  BLAS reads (a C-ordered matrix is the Fortran-ordered transpose, and the solve is turned
  around to suit it), so nothing is copied but the result. ``scipy.linalg.solve_triangular``
  is not used: it raises for a zero on the diagonal, where PyTorch (and BLAS) give
  infinities and NaNs, and its checks cost more than the solve of a small matrix.
- **Batches of many small matrices**, and array modules without a solver of their own:
  substitution over the columns, each step one batched update of the whole batch.
- **Other modules** (CuPy): the backend passes its solver with SciPy's signature
  (``cupyx.scipy.linalg.solve_triangular``, which takes batches), see
  :func:`tensorcore_xp.build`.

``X A = B`` (not ``left``) is ``A^T X^T = B^T``, with ``A^T``'s triangle the other one; the
transposes are views. The meta function has checked the arguments and computed the result's
dtype (``A``'s and ``B``'s promoted), which the kernel computes in.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..helpers import array_of, quiet_tokens

__all__ = ["build"]

#: A solver of SciPy's signature: ``solve(a, b, lower=..., unit_diagonal=...)`` for ``a``
#: ``(..., n, n)`` and ``b`` ``(..., n, k)`` with the same batch dims.
Solver = Callable[..., Any]


def _blas(dtype: Any) -> tuple[Any, Any] | None:
    """SciPy's BLAS ``(trsm, trsv)`` for ``dtype``, or None without SciPy."""
    try:
        from scipy.linalg import get_blas_funcs
    except ImportError:
        return None
    trsm, trsv = get_blas_funcs(("trsm", "trsv"), dtype=dtype)
    return trsm, trsv


def _blas_solve(fns: tuple[Any, Any], a: Any, b: Any, upper: bool, unit: bool) -> Any:
    """``a^-1 b`` for one NumPy matrix ``a`` (``n x n``, read from its upper or lower
    triangle) and ``b`` (``n x k``), through BLAS without copying either where its memory
    order allows: BLAS reads Fortran order, and a C-ordered ``a`` is ``a^T`` in Fortran
    order (then solved with ``trans=1``, and its triangle is the other one)."""
    trsm, trsv = fns
    if a.flags.f_contiguous:
        m, lower, trans = a, not upper, 0  # op(m) = a with trans 0
    else:
        m, lower, trans = a.T, upper, 1
    diag = int(unit)
    if b.shape[1] == 1:
        return trsv(m, b[:, 0], lower=lower, trans=trans, diag=diag)[:, None]
    if b.flags.f_contiguous:  # a x = b, from the left
        return trsm(1.0, m, b, side=0, lower=lower, trans_a=trans, diag=diag)
    # x^T a^T = b^T from the right: b^T is a C-ordered b read in Fortran order.
    return trsm(1.0, m, b.T, side=1, lower=lower, trans_a=1 - trans, diag=diag).T


def _substitute(xp: Any, a: Any, b: Any, upper: bool, unit: bool, batch: tuple[int, ...]) -> Any:
    """``a^-1 b`` for the batches ``a`` (``(..., n, n)``) and ``b`` (``(..., n, k)``), whose
    batch dims broadcast to ``batch``: substitution over the columns of ``a``, each step one
    update of the whole batch (``n`` steps; fast for many small matrices, on any module)."""
    n = a.shape[-1]
    x = xp.empty(batch + b.shape[-2:], dtype=b.dtype)
    x[...] = b
    for j in range(n - 1, -1, -1) if upper else range(n):
        if not unit:
            x[..., j, :] = x[..., j, :] / a[..., j, j, None]
        rest = slice(0, j) if upper else slice(j + 1, n)
        x[..., rest, :] = x[..., rest, :] - a[..., rest, j, None] * x[..., j, None, :]
    return x


def build(xp: Any, solve_triangular: Solver | None = None) -> dict[str, Callable[..., Any]]:
    """The ``linalg_solve_triangular`` kernel for ``xp``, with the backend's
    ``solve_triangular`` (SciPy's signature, batches allowed) where it has one."""
    on_numpy = xp is np
    # PyTorch never warns about a division by a zero on the diagonal (infinities, NaNs).
    enter, leave = quiet_tokens(xp)
    blas: dict[Any, tuple[Any, Any] | None] = {}

    def mT(x: Any) -> Any:
        return xp.swapaxes(x, -1, -2)

    def solve(a: Any, b: Any, upper: bool, unit: bool, batch: tuple[int, ...]) -> Any:
        """``a^-1 b``, ``a`` and ``b`` batches of matrices whose batch dims broadcast to
        ``batch``."""
        n = a.shape[-1]
        count = math.prod(batch)
        if solve_triangular is not None:
            a = xp.broadcast_to(a, batch + a.shape[-2:])
            b = xp.broadcast_to(b, batch + b.shape[-2:])
            return solve_triangular(a, b, lower=not upper, unit_diagonal=unit)
        fns = None
        if on_numpy:
            if a.dtype not in blas:
                blas[a.dtype] = _blas(a.dtype)
            fns = blas[a.dtype]
        # A call per matrix costs about a microsecond more than a batched column step
        # (4096 of 4x4: 0.2 ms by columns, 1.5 ms by calls; 64 of 16x16: the other way).
        if fns is None or count > 8 * n:
            return _substitute(xp, a, b, upper, unit, batch)
        if not batch:
            return _blas_solve(fns, a, b, upper, unit)
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        x = np.empty(batch + b.shape[-2:], dtype=b.dtype)
        for i in np.ndindex(*batch):
            x[i] = _blas_solve(fns, a[i], b[i], upper, unit)
        return x

    def linalg_solve_triangular(
        out: Any, A: Any, B: Any, upper: bool, left: bool = True, unitriangular: bool = False
    ) -> None:
        o = array_of(out)
        if o.size == 0:
            return
        a = array_of(A).astype(o.dtype, copy=False)
        b = array_of(B).astype(o.dtype, copy=False)
        batch = o.shape[:-2]
        tok = enter()
        try:
            if left:
                o[...] = solve(a, b, upper, unitriangular, batch)
            else:  # X A = B is A^T X^T = B^T, A^T's triangle the other one
                o[...] = mT(solve(mT(a), mT(b), not upper, unitriangular, batch))
        finally:
            leave(tok)

    return {"linalg_solve_triangular": linalg_solve_triangular}
