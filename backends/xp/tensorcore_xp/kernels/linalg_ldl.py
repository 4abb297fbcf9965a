"""Kernels of the LDL factorization of symmetric and Hermitian matrices
(``linalg_ldl_factor_ex``, ``linalg_ldl_solve``), in LAPACK's ``sytrf`` format as PyTorch
returns it.

``LD`` holds, in its lower triangle, the unit lower triangular ``L`` below the diagonal and
the block diagonal ``D`` (blocks of order 1 or 2) on and next to it; ``pivots`` are LAPACK's
1-based Bunch-Kaufman interchanges (``pivots[k] > 0``: a 1x1 block, rows ``k`` and
``pivots[k]`` were swapped; ``pivots[k] == pivots[k + 1] < 0``: a 2x2 block, rows ``k + 1``
and ``-pivots[k]`` were swapped). SciPy's ``scipy.linalg.ldl`` unpacks this format into
another (permuted ``L``), so the factorization is LAPACK's ``?sytrf``/``?hetrf`` through
``scipy.linalg.lapack``, on the host for every device (PyTorch also synchronizes the CUDA
device in ``ldl_factor``; cupyx has no LDL factorization). Without SciPy,
:func:`bunch_kaufman` (LAPACK's unblocked ``?sytf2``/``?hetf2`` in NumPy) gives the same
format. The solve (LAPACK's ``?sytrs``/``?hetrs``) is written against ``xp`` and runs on the
device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ..helpers import array_of, scipy_blas_single_thread

__all__ = ["build", "bunch_kaufman", "ldl_solve_one"]

#: Bunch and Kaufman's pivoting threshold, ``(1 + sqrt(17)) / 8``.
_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0


def _host(xp: Any, a: Any) -> Any:
    to_host = getattr(xp, "asnumpy", None)
    return to_host(a) if to_host is not None else np.asarray(a)


def _lapack(a: np.ndarray, hermitian: bool) -> Callable[..., Any] | None:
    """SciPy's ``?sytrf`` (``?hetrf`` for a Hermitian complex ``a``), or None without SciPy."""
    try:
        from scipy.linalg import get_lapack_funcs
    except ImportError:
        return None
    name = "hetrf" if hermitian and a.dtype.kind == "c" else "sytrf"
    return get_lapack_funcs((name,), (a,))[0]


def _abs1(v: Any) -> Any:
    """LAPACK's ``CABS1`` of complex entries (``|re| + |im|``), ``|v|`` of real ones."""
    return np.abs(v.real) + np.abs(v.imag) if v.dtype.kind == "c" else np.abs(v)


def bunch_kaufman(a: np.ndarray, hermitian: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """``(LD, pivots, info)`` of one symmetric (Hermitian when ``hermitian``) matrix ``a``,
    read from its lower triangle, as LAPACK's unblocked ``?sytf2``/``?hetf2`` with
    ``uplo="L"`` computes them (the fallback where SciPy's LAPACK is not installed).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.kernels.linalg_ldl import bunch_kaufman
    >>> LD, pivots, info = bunch_kaufman(np.array([[0.0, 1.0], [1.0, 0.0]]))
    >>> LD.tolist(), pivots.tolist(), info
    ([[0.0, 0.0], [1.0, 0.0]], [-2, -2], 0)
    """
    n = a.shape[-1]
    herm = hermitian and a.dtype.kind == "c"
    w = np.tril(a)
    w = w + (np.tril(a, -1).conj() if herm else np.tril(a, -1)).T  # the whole matrix
    if herm:
        w[np.diag_indices(n)] = w.diagonal().real
    ld = np.zeros_like(a)
    piv = np.zeros(n, dtype=np.int32)
    info, k = 0, 0
    while k < n:
        step = 1
        akk = abs(w[k, k].real) if herm else _abs1(w[k, k])
        col = _abs1(w[k + 1 :, k])
        imax = k + 1 + int(np.argmax(col)) if col.size else k
        colmax = float(col.max()) if col.size else 0.0
        if max(akk, colmax) == 0.0 or math.isnan(akk):
            info = info or k + 1
            kp = k
        elif akk >= _ALPHA * colmax:
            kp = k
        else:
            row = _abs1(w[imax, k:])
            row[imax - k] = 0.0  # (the off-diagonal maximum of row/column imax)
            rowmax = float(row.max())
            diag = abs(w[imax, imax].real) if herm else _abs1(w[imax, imax])
            if akk >= _ALPHA * colmax * (colmax / rowmax):
                kp = k
            elif diag >= _ALPHA * rowmax:
                kp = imax
            else:
                kp, step = imax, 2
        kk = k + step - 1
        if kp != kk:  # symmetric interchange of rows and columns kk and kp of the rest
            w[[kk, kp], k:] = w[[kp, kk], k:]
            w[k:, [kk, kp]] = w[k:, [kp, kk]]
        if step == 1:
            d = w[k, k]
            ld[k, k] = d
            if k + 1 < n and d != 0:
                x = w[k + 1 :, k] / d
                ld[k + 1 :, k] = x
                lead = w[k + 1 :, k]
                w[k + 1 :, k + 1 :] -= np.outer(x, lead.conj() if herm else lead)
            elif k + 1 < n:
                ld[k + 1 :, k] = w[k + 1 :, k]
            piv[k] = kp + 1
        else:
            block = w[k : k + 2, k : k + 2]
            ld[k, k], ld[k + 1, k], ld[k + 1, k + 1] = block[0, 0], block[1, 0], block[1, 1]
            if k + 2 < n:
                c = w[k + 2 :, k : k + 2]
                x = c @ np.linalg.inv(block)
                ld[k + 2 :, k : k + 2] = x
                w[k + 2 :, k + 2 :] -= x @ (c.conj().T if herm else c.T)
            piv[k] = piv[k + 1] = -(kp + 1)
        k += step
    return ld, piv, info


def ldl_solve_one(xp: Any, a: Any, piv: Any, x: Any, hermitian: bool) -> None:
    """Overwrite ``x`` (``(n, k)``, an ``xp`` array) with the solution of ``A X = x``, ``A``
    given by its LDL factors ``a`` (``(n, n)``) and host ``piv`` (LAPACK's ``?sytrs`` and
    ``?hetrs`` with ``uplo="L"``)."""
    n = a.shape[-1]
    herm = hermitian and a.dtype.kind == "c"
    cj = (lambda v: v.conj()) if herm else (lambda v: v)

    def swap(i: int, j: int) -> None:
        if i != j:
            x[[i, j]] = x[[j, i]]

    k = 0
    while k < n:  # solve L D y = b
        if piv[k] > 0:
            swap(k, int(piv[k]) - 1)
            if k + 1 < n:
                x[k + 1 :] -= a[k + 1 :, k, None] * x[k]
            x[k] /= a[k, k].real if herm else a[k, k]
            k += 1
        else:
            swap(k + 1, -int(piv[k]) - 1)
            if k + 2 < n:
                x[k + 2 :] -= a[k + 2 :, k, None] * x[k] + a[k + 2 :, k + 1, None] * x[k + 1]
            d21 = a[k + 1, k]
            d11 = a[k, k] / cj(d21)
            d22 = a[k + 1, k + 1] / d21
            denom = d11 * d22 - 1
            b1, b2 = x[k] / cj(d21), x[k + 1] / d21
            x[k], x[k + 1] = (d22 * b1 - b2) / denom, (d11 * b2 - b1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # solve L^T x = y (L^H for Hermitian)
        if k + 1 < n:
            x[k] -= cj(a[k + 1 :, k]) @ x[k + 1 :]
        if piv[k] > 0:
            swap(k, int(piv[k]) - 1)
            k -= 1
        else:
            if k + 1 < n:
                x[k - 1] -= cj(a[k + 1 :, k - 1]) @ x[k + 1 :]
            swap(k, -int(piv[k]) - 1)
            k -= 2


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of ``linalg_ldl_factor_ex`` and ``linalg_ldl_solve`` for ``xp``."""

    def linalg_ldl_factor_ex(
        out: Any, A: Any, hermitian: bool = False, check_errors: bool = False
    ) -> None:
        ld_t, piv_t, info_t = out
        a = _host(xp, array_of(A))
        *batch, n, _ = a.shape
        if a.size == 0:
            # (the matrices of a batch of empty ones factor fine: info 0 each)
            array_of(info_t)[...] = 0
            return
        flat = a.reshape((-1, n, n))
        sytrf = _lapack(flat, hermitian)
        work = np.empty(flat.shape, dtype=flat.dtype)
        piv = np.empty((flat.shape[0], n), dtype=np.int32)
        info = np.zeros(flat.shape[0], dtype=np.int32)
        with scipy_blas_single_thread():
            for i, mat in enumerate(flat):
                if sytrf is not None:
                    ld, p, inf = sytrf(mat, lower=1)
                    work[i], piv[i], info[i] = np.tril(ld), p, max(int(inf), 0)
                else:
                    work[i], piv[i], info[i] = bunch_kaufman(mat, hermitian)
        array_of(ld_t)[...] = xp.asarray(work.reshape(a.shape))
        array_of(piv_t)[...] = xp.asarray(piv.reshape((*batch, n)))
        array_of(info_t)[...] = xp.asarray(info.reshape(tuple(batch)))
        hit = np.flatnonzero(info)
        if check_errors and hit.size:
            i, j = int(hit[0]), int(info[hit[0]])
            where = f"(Batch element {i}): " if batch else ""
            raise RuntimeError(
                f"torch.linalg.ldl_factor_ex: {where}The factorization could not be completed "
                f"because the input is singular: D[{j},{j}] is exactly zero, and using it in "
                "ldl_solve would result in a division by zero."
            )

    def linalg_ldl_solve(out: Any, LD: Any, pivots: Any, B: Any, hermitian: bool = False) -> None:
        o = array_of(out)
        if o.size == 0:
            return
        ld, b = array_of(LD), array_of(B)
        n, k = b.shape[-2], b.shape[-1]
        piv = _host(xp, array_of(pivots)).astype(np.int64)
        if piv.size and (bool((piv == 0).any()) or bool((np.abs(piv) > n).any())):
            raise RuntimeError(
                "Pivots given to ldl_solve must all satisfy |pivot| <= LD.size(-2). Did you "
                "properly pass the result of ldl_factor?"
            )
        batch = tuple(o.shape[:-2])
        lds = xp.broadcast_to(ld, batch + (n, n)).reshape((-1, n, n))
        pivs = np.broadcast_to(piv, batch + (n,)).reshape((-1, n))
        xs = xp.broadcast_to(b, batch + (n, k)).reshape((-1, n, k)).astype(o.dtype, copy=True)
        for i in range(xs.shape[0]):
            ldl_solve_one(xp, lds[i], pivs[i], xs[i], hermitian)
        o[...] = xs.reshape(o.shape)

    return {"linalg_ldl_factor_ex": linalg_ldl_factor_ex, "linalg_ldl_solve": linalg_ldl_solve}
