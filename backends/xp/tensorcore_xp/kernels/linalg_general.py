"""Kernels for general (not Hermitian) square and rectangular matrices: the eigendecomposition
(``_linalg_eig``), the LU factorization (``linalg_lu_factor_ex``, ``lu_unpack``) and the
matrix exponential (``linalg_matrix_exp``), written once against an array module ``xp``.

- **eig**: NumPy's ``linalg.eig`` (LAPACK's ``geev``, as PyTorch's). Other array modules are
  sent to the host for it and the results copied back (PyTorch's CUDA ``eig`` also runs on
  the host); each eigenvector has norm 1 and its largest component real, as LAPACK returns it.
- **LU**: partial pivoting as LAPACK's ``getrf`` chooses it (the largest ``|re| + |im|`` in
  the column, the first of ties), pivots 1-based int32. On NumPy it is SciPy's ``getrf``
  where SciPy is installed (one call per matrix), but for batches of many small matrices;
  otherwise, and on every other module, a right-looking elimination over the columns, each
  step one batched update on the device.
- **matrix_exp**: scaling and squaring with Padé approximants (Higham, "The scaling and
  squaring method for the matrix exponential revisited", SIAM J. Matrix Anal. Appl. 26, 2005):
  degrees 3 to 13 and their bounds for double precision, 3 to 7 with the single-precision
  bounds for float32 and complex64; 16-bit floats compute in float32. One degree serves the
  whole batch (the one the largest 1-norm needs), each matrix is scaled by its own power
  of two, so the batch runs through the same products.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorcore.linalg import LinAlgError

from ..helpers import array_of, scipy_blas_single_thread

__all__ = ["build"]

# Padé coefficients b_0..b_m of degree m, and the largest 1-norm each degree serves.
_PADE = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (
        17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0,
    ),
    13: (
        64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
        129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
        40840800.0, 960960.0, 16380.0, 182.0, 1.0,
    ),
}  # fmt: skip
_THETA_DOUBLE = (
    (3, 1.495585217958292e-2),
    (5, 2.539398330063230e-1),
    (7, 9.504178996162932e-1),
    (9, 2.097847961257068e0),
    (13, 5.371920351148152e0),
)
_THETA_SINGLE = ((3, 4.258730016922831e-1), (5, 1.880152677804762e0), (7, 3.925724783138660e0))


def _host(xp: Any, a: Any) -> Any:
    to_host = getattr(xp, "asnumpy", None)
    return to_host(a) if to_host is not None else np.asarray(a)


def _scipy_getrf(a: Any) -> Any:
    """SciPy's LAPACK ``getrf`` for ``a``'s dtype, or None without SciPy."""
    try:
        from scipy.linalg import get_lapack_funcs
    except ImportError:
        return None
    return get_lapack_funcs(("getrf",), (a,))[0]


def lu_steps(xp: Any, a: Any, pivot: bool = True) -> tuple[Any, Any]:
    """Factor the batch ``a`` (``(B, m, n)``, overwritten by ``L - I + U``) in place, column
    by column; return ``(pivots, info)`` as LAPACK's ``getrf`` gives them (1-based int32
    pivots, ``info`` the first zero diagonal element of ``U``, 1-based, or 0).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[[1.0, 2.0], [3.0, 4.0]]])
    >>> piv, info = lu_steps(np, a)
    >>> a[0].tolist(), piv.tolist(), info.tolist()
    ([[3.0, 4.0], [0.3333333333333333, 0.6666666666666667]], [[2, 2]], [0])
    """
    nb, m, n = a.shape
    k = min(m, n)
    piv = xp.empty((nb, k), dtype=xp.int32)
    info = xp.zeros((nb,), dtype=xp.int32)
    rows = xp.arange(nb)
    cplx = a.dtype.kind == "c"
    for j in range(k):
        if pivot:
            col = a[:, j:, j]
            mag = xp.abs(col.real) + xp.abs(col.imag) if cplx else xp.abs(col)
            p = xp.argmax(mag, axis=1) + j
            piv[:, j] = p + 1
            top = a[:, j, :].copy()
            a[:, j, :] = a[rows, p, :]
            a[rows, p, :] = top
        else:
            piv[:, j] = j + 1
        d = a[:, j, j]
        zero = d == 0
        info = xp.where((info == 0) & zero, j + 1, info).astype(xp.int32)
        if j + 1 < m:
            # A zero pivot's column stays as it is (LAPACK's getrf).
            a[:, j + 1 :, j] /= xp.where(zero, 1, d)[:, None]
            if j + 1 < n:
                a[:, j + 1 :, j + 1 :] -= a[:, j + 1 :, j : j + 1] * a[:, j : j + 1, j + 1 :]
    return piv, info


def _expm(xp: Any, a: Any) -> Any:
    """``exp`` of each matrix of the batch ``a`` (``(B, n, n)``, float32/64 or complex)."""
    nb, n, _ = a.shape
    single = a.dtype in (np.float32, np.complex64)
    thetas = _THETA_SINGLE if single else _THETA_DOUBLE
    norms = _host(xp, xp.abs(a).sum(axis=1).max(axis=1)).astype(np.float64)
    finite = np.isfinite(norms)
    biggest = float(norms[finite].max()) if finite.any() else 0.0
    degree, theta = next(((m, t) for m, t in thetas if biggest <= t), thetas[-1])
    # Each matrix is scaled by 2^-s so that its norm is within the degree's bound.
    with np.errstate(divide="ignore"):
        ratio = np.where(finite & (norms > theta), norms / theta, 1.0)
    s = np.ceil(np.log2(ratio)).astype(np.int64)
    if s.any():
        scale = xp.asarray((0.5**s).astype(a.real.dtype))
        a = a * scale[:, None, None]
    eye = xp.eye(n, dtype=a.dtype)
    b = _PADE[degree]
    a2 = xp.matmul(a, a)
    if degree == 13:
        a4 = xp.matmul(a2, a2)
        a6 = xp.matmul(a4, a2)
        u = xp.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
        u = u + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye
        u = xp.matmul(a, u)
        v = xp.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2)
        v = v + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    else:
        powers = [eye, a2]
        while len(powers) <= degree // 2:
            powers.append(xp.matmul(powers[-1], a2))
        u = sum(b[2 * i + 1] * p for i, p in enumerate(powers))
        v = sum(b[2 * i] * p for i, p in enumerate(powers))
        u = xp.matmul(a, u)
    r = xp.linalg.solve(v - u, v + u)
    for step in range(int(s.max()) if nb else 0):
        sq = xp.matmul(r, r)
        if (s > step).all():
            r = sq
        else:
            keep = xp.asarray(s > step)[:, None, None]
            r = xp.where(keep, sq, r)
    return r


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of ``_linalg_eig``, ``linalg_lu_factor_ex``, ``lu_unpack`` and
    ``linalg_matrix_exp`` for the array module ``xp``."""
    on_numpy = xp is np

    def linalg_eig(out: Any, A: Any, compute_v: bool = True) -> None:
        a = array_of(A)
        values, vectors = (array_of(t) for t in out)
        if a.size == 0:
            return
        host = _host(xp, a)
        if not np.isfinite(host).all():
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
        try:
            if compute_v:
                w, v = np.linalg.eig(host)
                vectors[...] = v if on_numpy else xp.asarray(v)
            else:
                w = np.linalg.eigvals(host)
        except np.linalg.LinAlgError:
            raise LinAlgError(
                "linalg.eig: The algorithm failed to converge because the input matrix is "
                "ill-conditioned or has too many repeated eigenvalues (error code: 1)."
            ) from None
        values[...] = w if on_numpy else xp.asarray(w)

    def linalg_lu_factor_ex(
        out: Any, A: Any, pivot: bool = True, check_errors: bool = False
    ) -> None:
        lu_t, piv_t, info_t = out
        a = array_of(A)
        *batch, m, n = a.shape
        if a.size == 0:  # (then no pivots either)
            return
        flat = a.reshape((-1, m, n))
        # SciPy costs a call per matrix, the columns a batched step per column: many small
        # matrices go faster by columns (4096 of 4x4: 1.6 ms against 30 ms).
        many_small = flat.shape[0] > 8 * min(m, n)
        getrf = _scipy_getrf(flat) if on_numpy and pivot and not many_small else None
        if getrf is not None:
            work = np.empty(flat.shape, dtype=flat.dtype)
            piv = np.empty((flat.shape[0], min(m, n)), dtype=np.int32)
            info = np.zeros(flat.shape[0], dtype=np.int32)
            with scipy_blas_single_thread():
                for i, mat in enumerate(flat):
                    lu, p, inf = getrf(mat)
                    work[i], piv[i] = lu, p + 1
                    info[i] = max(int(inf), 0)
        else:
            work = flat.astype(flat.dtype, copy=True)
            piv, info = lu_steps(xp, work, pivot)
        array_of(lu_t)[...] = work.reshape(a.shape)
        array_of(piv_t)[...] = piv.reshape(tuple(batch) + (min(m, n),))
        array_of(info_t)[...] = info.reshape(tuple(batch))
        if check_errors:
            bad = _host(xp, info).reshape(-1)
            hit = np.flatnonzero(bad)
            if hit.size:
                i, j = int(hit[0]), int(bad[hit[0]])
                where = f"(Batch element {i}): " if batch else ""
                raise RuntimeError(
                    f"torch.linalg.lu_factor_ex: {where}U[{j},{j}] is zero and using it on "
                    "lu_solve would result in a division by zero. If you still want to perform "
                    "the factorization, consider calling linalg.lu(A, pivot) or "
                    "linalg.lu_factor_ex(A, pivot)"
                )

    def lu_unpack(
        out: Any, LU: Any, pivots: Any, unpack_data: bool = True, unpack_pivots: bool = True
    ) -> None:
        P, Lo, Up = out
        lu = array_of(LU)
        m, n = lu.shape[-2:]
        k = min(m, n)
        if unpack_data and lu.size:
            array_of(Lo)[...] = xp.tril(lu[..., :, :k], -1) + xp.eye(m, k, dtype=lu.dtype)
            array_of(Up)[...] = xp.triu(lu[..., :k, :])
        if not unpack_pivots or P.numel() == 0:
            return
        piv = array_of(pivots)
        if piv.size and (bool((piv < 1).any()) or bool((piv > m).any())):
            raise RuntimeError(
                "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
                "Did you properly pass the result of lu_factor?"
            )
        batch = tuple(P.shape[:-2])
        flat = xp.broadcast_to(piv, batch + (k,)).reshape((-1, k)).astype(xp.int64) - 1
        nb = flat.shape[0]
        perm = xp.broadcast_to(xp.arange(m), (nb, m)).copy()
        rows = xp.arange(nb)
        # Row j of P^T A is row perm[j] of A after the swaps (j, pivots[j]) in order.
        for j in range(k):
            pj = flat[:, j]
            here = perm[:, j].copy()
            perm[:, j] = perm[rows, pj]
            perm[rows, pj] = here
        p = xp.arange(m)[:, None] == perm[:, None, :]
        array_of(P)[...] = p.reshape(batch + (m, m))

    def linalg_matrix_exp(out: Any, A: Any) -> None:
        a, o = array_of(A), array_of(out)
        if a.size == 0:
            return
        n = a.shape[-1]
        flat = a.reshape((-1, n, n))
        if flat.dtype.itemsize == 2 and flat.dtype.kind in "fV":
            flat = flat.astype(xp.float32)
        with np.errstate(all="ignore"):  # (an overflow is inf, as in PyTorch)
            o[...] = _expm(xp, flat).reshape(a.shape)

    return {
        "_linalg_eig": linalg_eig,
        "linalg_lu_factor_ex": linalg_lu_factor_ex,
        "lu_unpack": lu_unpack,
        "linalg_matrix_exp": linalg_matrix_exp,
    }
