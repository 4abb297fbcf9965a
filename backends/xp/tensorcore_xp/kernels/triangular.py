"""The triangular solve (``linalg_solve_triangular``), written once against an array module
``xp``: ``O(n^2 k)`` for ``n x n`` triangles and ``k`` right-hand sides, where a general
solve costs ``O(n^3)``.

- **NumPy**: SciPy's BLAS ``trsm`` (``trsv`` for one right-hand side), one call per matrix
  (one call for one triangle and a batch of right-hand sides, side by side), as PyTorch's
  CPU kernel calls BLAS. BLAS solves in place in a copy of ``B``, given in the memory order
  it reads (a C-ordered matrix is the Fortran-ordered transpose, and the solve is turned
  around to suit it), so ``B`` is copied once and ``A`` not at all.
  ``scipy.linalg.solve_triangular`` is not used: it raises for a zero on the diagonal, where
  PyTorch (and BLAS) give infinities and NaNs, and its checks cost more than the solve of a
  small matrix.
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

from ..helpers import array_of, quiet_tokens, scipy_blas_single_thread

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


def _solve_into(fns: tuple[Any, Any], a: Any, x: Any, upper: bool, unit: bool) -> None:
    """Overwrite ``x`` (a C-ordered NumPy ``n x k`` matrix) by ``a^-1 x`` for one matrix ``a``
    (``n x n``, read from its upper or lower triangle), through BLAS without copying either:
    BLAS reads Fortran order, in which a C-ordered ``a`` is ``a^T`` (solved with ``trans=1``,
    its triangle the other one) and ``x`` is ``x^T``, solved from the right
    (``x^T a^T = b^T``)."""
    trsm, trsv = fns
    if a.flags.f_contiguous:
        m, lower, trans = a, not upper, 0  # op(m) = a with trans 0
    else:
        m, lower, trans = a.T, upper, 1
    # f2py solves in place where it can take the array as it is, and otherwise hands back a
    # solved copy (a different dtype, say), which is then written back.
    if x.shape[1] == 1:
        v = x[:, 0]
        r = trsv(m, v, lower=lower, trans=trans, diag=int(unit), overwrite_x=1)
    else:
        v = x.T
        op = 1 - trans  # op(m) = a^T
        r = trsm(1.0, m, v, side=1, lower=lower, trans_a=op, diag=int(unit), overwrite_b=1)
    if r is not v:
        v[...] = r


def _blas_solve(
    fns: tuple[Any, Any], a: Any, b: Any, upper: bool, unit: bool, batch: tuple[int, ...]
) -> Any:
    """``a^-1 b`` for NumPy batches whose batch dims broadcast to ``batch``: a BLAS call per
    matrix, or one call for one triangle and a batch of right-hand sides (side by side)."""
    n, k = b.shape[-2:]
    x = np.empty(batch + (n, k), dtype=b.dtype)
    if not batch:  # (np.broadcast_to costs more than a small solve)
        x[...] = b
        _solve_into(fns, a, x, upper, unit)
        return x
    count = math.prod(batch)
    if count > 1 and math.prod(a.shape[:-2]) == 1:
        cols = np.empty((n, count, k), dtype=b.dtype)
        cols[...] = np.moveaxis(np.broadcast_to(b, batch + (n, k)).reshape(count, n, k), 0, 1)
        _solve_into(fns, a.reshape(n, n), cols.reshape(n, count * k), upper, unit)
        return np.moveaxis(cols, 1, 0).reshape(batch + (n, k))
    x[...] = b
    mats = a if a.shape[:-2] == batch else np.broadcast_to(a, batch + (n, n))
    for m, xm in zip(mats.reshape(-1, n, n), x.reshape(-1, n, k), strict=True):
        _solve_into(fns, m, xm, upper, unit)
    return x


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
        # A BLAS call per matrix costs 1-2 us, a batched column step 3-20 us: many small
        # triangles go faster by columns (1024 of 4x4: 0.17 ms against 1.4 ms; 32 of 4x4:
        # 23 against 46 us), larger ones by calls (64 of 16x16: 275 against 120 us). One
        # triangle for a batch of right-hand sides is one call.
        if fns is None or (n <= 8 and count > 2 * n and math.prod(a.shape[:-2]) > 1):
            return _substitute(xp, a, b, upper, unit, batch)
        with scipy_blas_single_thread():
            return _blas_solve(fns, a, b, upper, unit, batch)

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
