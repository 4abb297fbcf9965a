"""Matrix products, ``einsum`` and the decompositions of ``tensorcore.linalg``, written once
against an array module ``xp``.

16-bit floats are multiplied in float32 and rounded once, as PyTorch accumulates them on the
CPU. Integer products work (without BLAS); bool products raise, as in PyTorch.

The decompositions use only what NumPy and CuPy share (``xp.linalg.inv``, ``det``,
``slogdet``, ``solve``, ``cholesky``, ``eigh``, ``eigvalsh``, ``qr``, ``svd``); the meta
functions have checked the arguments. A failure (a singular matrix, one that is not
positive-definite) raises :class:`tensorcore.linalg.LinAlgError` with PyTorch's message,
naming the batch element and the pivot or minor: NumPy raises without saying which, and CuPy
returns NaNs, so the offending matrix is found again on the host.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorcore import dtypes as dt
from tensorcore.backend import einsum_dtype, empty, solve_is_vector, write
from tensorcore.linalg import LinAlgError

from ..helpers import array_of, contraction, quiet_tokens, shares_storage

__all__ = ["build"]

#: Index values (the product of every index's size) up to which a two-operand ``einsum``
#: runs as one nested loop (``small``): about ten microseconds of it, what ``optimize``'s
#: planning costs.
_SMALL_EINSUM = 1 << 13


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """Matrix-product kernels for the array module ``xp``."""
    K: dict[str, Callable[..., Any]] = {}

    def operands(out: Any, a: Any, b: Any, impl: str) -> tuple[Any, Any, Any]:
        if a._dtype is dt.bool_ or b._dtype is dt.bool_:
            raise RuntimeError(f"\"{impl}\" not implemented for 'Bool'")
        x, y, o = array_of(a), array_of(b), array_of(out)
        if o.dtype.itemsize == 2 and o.dtype.kind in "fV":
            x, y = x.astype(xp.float32), y.astype(xp.float32)
        return x, y, o

    # PyTorch never warns about a product that overflows to inf.
    enter, leave = quiet_tokens(xp)

    def product(name: str, impl: str) -> None:
        def k(out: Any, a: Any, b: Any) -> None:
            x, y, o = operands(out, a, b, impl)
            tok = enter()
            try:
                if o.ndim and o.dtype == x.dtype == y.dtype:
                    xp.matmul(x, y, out=o)
                else:
                    o[...] = xp.matmul(x, y)
            finally:
                leave(tok)

        k.__name__ = name
        K[name] = k

    product("matmul", "addmm_impl_cpu_")
    product("mm", "addmm_impl_cpu_")
    product("bmm", "bmm")
    product("mv", "addmv_impl_cpu")

    def addmm(out: Any, c: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> None:
        x, y, o = operands(out, a, b, "addmm_impl_cpu_")
        if o.dtype != x.dtype:  # 16-bit floats: the whole expression in float32, rounded once
            r = xp.matmul(x, y)
            if alpha != 1:
                xp.multiply(r, alpha, out=r)
            if beta != 0:
                cc = array_of(c).astype(xp.float32)
                xp.add(r, cc if beta == 1 else cc * beta, out=r)
            o[...] = r
            return
        if shares_storage(out, c, a, b) or o.dtype != x.dtype or o.dtype != y.dtype:
            o[...] = xp.matmul(x, y)  # (an out= over an input: the product first, then write)
        else:
            xp.matmul(x, y, out=o)
        if alpha != 1:
            xp.multiply(o, alpha, out=o)
        if beta != 0:  # beta == 0 ignores self, NaNs included (PyTorch)
            cc = array_of(c)
            xp.add(o, cc if beta == 1 else cc * beta, out=o)

    K["addmm"] = addmm

    def addmv(out: Any, c: Any, a: Any, v: Any, beta: Any = 1, alpha: Any = 1) -> None:
        x, y, o = operands(out, a, v, "addmv_impl_cpu")
        tok = enter()
        try:
            # The result is computed whole before it is written: ``out`` may be ``self``
            # (addmv_) or overlap an input.
            r = xp.matmul(x, y)
            if alpha != 1:
                r = r * alpha
            if beta != 0:  # beta == 0 ignores self, NaNs included (PyTorch)
                cc = array_of(c)
                r = r + (cc if beta == 1 else cc * beta)
            o[...] = r
        finally:
            leave(tok)

    K["addmv"] = addmv

    def addr(out: Any, c: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> None:
        o = array_of(out)
        x = array_of(a).astype(o.dtype, copy=False)
        y = array_of(b).astype(o.dtype, copy=False)
        cc = array_of(c).astype(o.dtype, copy=False)
        if out._dtype is dt.bool_:  # PyTorch: (beta and self) or (alpha and vec1 & vec2)
            r = xp.logical_and(x[:, None], y[None, :])
            if not alpha:
                r = xp.zeros_like(r)
            if beta:
                r = xp.logical_or(r, cc)
            o[...] = r
            return
        tok = enter()
        try:
            r = x[:, None] * y[None, :]
            if alpha != 1:
                r = r * xp.asarray(alpha, dtype=o.dtype)
            if beta != 0:
                r = r + (cc if beta == 1 else cc * xp.asarray(beta, dtype=o.dtype))
            o[...] = r
        finally:
            leave(tok)

    K["addr"] = addr

    def dot(out: Any, a: Any, b: Any) -> None:
        x, y, o = operands(out, a, b, "dot")
        o[...] = xp.dot(x, y)

    def outer(out: Any, a: Any, b: Any) -> None:
        o = array_of(out)
        # Both operands in the result dtype: NumPy has no mixed loops for every pair.
        x, y = array_of(a).astype(o.dtype, copy=False), array_of(b).astype(o.dtype, copy=False)
        xp.multiply(x[:, None], y[None, :], out=o)

    direct = contraction(xp)

    def small(equation: str, arrays: list[Any]) -> bool:
        """Whether ``equation`` (explicit, no ellipsis, no spaces) over two ``arrays`` loops
        over few enough index values for one nested loop: ``optimize``'s path search and
        pairwise BLAS products cost about ten microseconds, ten times such a contraction."""
        lhs, arrow, _ = equation.partition("->")
        if not arrow or "." in equation or " " in equation:
            return False
        terms = lhs.split(",")
        if len(terms) != len(arrays):
            return False  # (the error, from the public function)
        sizes: dict[str, int] = {}
        for term, a in zip(terms, arrays, strict=True):
            if len(term) != a.ndim:
                return False
            for c, n in zip(term, a.shape, strict=True):
                if sizes.setdefault(c, n) != n:
                    return False
        return math.prod(sizes.values()) <= _SMALL_EINSUM

    def einsum(equation: str, operands: Any) -> Any:
        ts = list(operands)
        if not ts:
            raise RuntimeError("einsum(): must provide at least one operand")
        res = einsum_dtype(equation, [t._dtype for t in ts])
        arrays = [array_of(t) for t in ts]
        if res.itemsize == 2 and (res.is_floating_point or res.is_complex):
            arrays = [x.astype(xp.float32) for x in arrays]
        elif res is dt.int64:  # (a sum of bools counts, as PyTorch's: not NumPy's "or")
            arrays = [x.astype(xp.int64, copy=False) for x in arrays]
        try:
            if len(arrays) == 2 and small(equation, arrays):
                r = direct(equation, *arrays)
            else:
                # ``optimize`` contracts pairwise through BLAS instead of one nested loop.
                r = xp.einsum(equation, *arrays, optimize=len(arrays) > 1)
        except ValueError as exc:
            raise RuntimeError(f"einsum(): {exc}") from None
        out = empty(tuple(r.shape), res, ts[0]._device)
        write(out, r)  # (stored through the device: right for arrays that are values too)
        return out

    K.update(dot=dot, outer=outer, einsum=einsum)
    K.update(_decompositions(xp))
    return K


# ------------------------------------------------------------------ decompositions
def _host(xp: Any, a: Any) -> Any:
    """``a`` as a NumPy array (a copy from the device for CuPy)."""
    to_host = getattr(xp, "asnumpy", None)
    return to_host(a) if to_host is not None else np.asarray(a)


def _batch(a: Any, i: int) -> str:
    return f"(Batch element {i}): " if a.ndim > 2 else ""


def _zero_pivot(m: Any) -> int:
    """The 1-based index of the first zero pivot of ``m``'s LU factorisation with partial
    pivoting (LAPACK's ``getrf`` info), 0 when there is none."""
    a = np.array(m, dtype=np.result_type(m.dtype, np.float64))
    n = a.shape[0]
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        if a[p, j] == 0:
            return j + 1
        a[[j, p]] = a[[p, j]]
        a[j + 1 :, j:] -= np.outer(a[j + 1 :, j] / a[j, j], a[j, j:])
    return 0


def _singular(fn: str, xp: Any, a: Any, solver: bool = False) -> LinAlgError:
    """PyTorch's error for the first singular matrix of the batch ``a``."""
    host = _host(xp, a)
    mats = host.reshape((-1,) + host.shape[-2:])
    for i, m in enumerate(mats):
        info = _zero_pivot(m)
        if info or i == len(mats) - 1:
            break
    else:  # an empty batch cannot fail
        i, info = 0, 0
    if solver:
        return LinAlgError(
            f"torch.{fn}: {_batch(host, i)}The solver failed because the input matrix is singular."
        )
    return LinAlgError(
        f"{fn}: {_batch(host, i)}The diagonal element {info or host.shape[-1]} is zero, the "
        "inversion could not be completed because the input matrix is singular."
    )


def _not_positive_definite(xp: Any, a: Any) -> LinAlgError:
    host = _host(xp, a)
    mats = host.reshape((-1,) + host.shape[-2:])
    for i, m in enumerate(mats):
        for k in range(1, m.shape[0] + 1):
            try:
                f = np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                break
            if not np.isfinite(f).all():
                break
        else:
            continue
        return LinAlgError(
            f"linalg.cholesky: {_batch(host, i)}The factorization could not be completed because "
            f"the input is not positive-definite (the leading minor of order {k} is not "
            "positive-definite)."
        )
    return LinAlgError(
        "linalg.cholesky: The factorization could not be completed because the input is not "
        "positive-definite."
    )


def _decompositions(xp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels of the ``linalg_*`` operators for the array module ``xp``."""
    la = xp.linalg
    failed = (la.LinAlgError, np.linalg.LinAlgError)
    # NumPy raises for a singular or indefinite matrix; other modules (CuPy) return NaNs.
    checks_nan = xp is not np

    def bad(r: Any, a: Any) -> bool:
        return checks_nan and not bool(xp.isfinite(r).all()) and bool(xp.isfinite(a).all())

    def mT(x: Any) -> Any:
        return xp.swapaxes(x, -1, -2)

    def mH(x: Any) -> Any:
        return xp.conj(mT(x)) if x.dtype.kind == "c" else mT(x)

    def linalg_inv(out: Any, A: Any) -> None:
        a, o = array_of(A), array_of(out)
        if a.size == 0:
            return
        try:
            r = la.inv(a)
        except failed:
            raise _singular("linalg.inv", xp, a) from None
        if bad(r, a):
            raise _singular("linalg.inv", xp, a)
        o[...] = r

    def linalg_det(out: Any, A: Any) -> None:
        a, o = array_of(A), array_of(out)
        o[...] = la.det(a) if a.shape[-1] else 1

    def linalg_slogdet(out: Any, A: Any) -> None:
        a = array_of(A)
        sign, logabs = (array_of(t) for t in out)
        if a.shape[-1] == 0:
            sign[...], logabs[...] = 1, 0
            return
        s, la_ = la.slogdet(a)
        sign[...], logabs[...] = s, la_

    def linalg_solve(out: Any, A: Any, B: Any, left: bool = True) -> None:
        a, b, o = array_of(A), array_of(B), array_of(out)
        vector = solve_is_vector(A, B)
        if vector:
            b = b[..., None]
        if not left:
            # X A = B is A^T X^T = B^T (a vector B is already a column).
            a = mT(a)
            if not vector:
                b = mT(b)
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, batch + a.shape[-2:])
        b = xp.broadcast_to(b, batch + b.shape[-2:])
        if o.size == 0:
            return
        try:
            x = la.solve(a, b)
        except failed:
            raise _singular("linalg.solve", xp, a, solver=True) from None
        if bad(x, a):
            raise _singular("linalg.solve", xp, a, solver=True)
        if not left and not vector:
            x = mT(x)
        o[...] = x[..., 0] if vector else x

    def linalg_cholesky(out: Any, A: Any, upper: bool = False) -> None:
        # The factor is read from A's lower triangle; with ``upper`` from the upper one,
        # which is the lower triangle of A^H (and U = L^H).
        a, o = array_of(A), array_of(out)
        if upper:
            a = mH(a)
        if a.size == 0:
            return
        try:
            r = la.cholesky(a)
        except failed:
            raise _not_positive_definite(xp, a) from None
        if bad(r, a):
            raise _not_positive_definite(xp, a)
        o[...] = mH(r) if upper else r

    def linalg_eigh(out: Any, A: Any, UPLO: str = "L", compute_v: bool = True) -> None:
        a = array_of(A)
        values, vectors = (array_of(t) for t in out)
        if a.size == 0:
            return
        if compute_v:
            w, v = la.eigh(a, UPLO=UPLO)
            values[...], vectors[...] = w, v
        else:
            values[...] = la.eigvalsh(a, UPLO=UPLO)

    def linalg_qr(out: Any, A: Any, mode: str = "reduced") -> None:
        a = array_of(A)
        q, r = (array_of(t) for t in out)
        if r.size == 0 and q.size == 0:
            return
        if mode == "r":
            r[...] = la.qr(a, mode="r")
            return
        q_, r_ = la.qr(a, mode=mode)
        q[...], r[...] = q_, r_

    def linalg_svd(
        out: Any,
        A: Any,
        full_matrices: bool = False,
        compute_uv: bool = True,
        driver: Any = None,
    ) -> None:
        a = array_of(A)
        u, s, vh = (array_of(t) for t in out)
        if a.size == 0:
            # No singular values; a full U or Vh of an empty matrix is the identity.
            if compute_uv and full_matrices:
                u[...] = xp.eye(u.shape[-1], dtype=u.dtype)
                vh[...] = xp.eye(vh.shape[-1], dtype=vh.dtype)
            return
        try:
            if not compute_uv:
                s[...] = la.svd(a, compute_uv=False)
                return
            u_, s_, vh_ = la.svd(a, full_matrices=full_matrices)
        except failed:
            raise LinAlgError(
                "linalg.svd: The algorithm failed to converge because the input matrix is "
                "ill-conditioned or has too many repeated singular values (error code: 1)."
            ) from None
        u[...], s[...], vh[...] = u_, s_, vh_

    def linalg_pinv(
        out: Any,
        A: Any,
        atol: float | None = None,
        rtol: float | None = None,
        hermitian: bool = False,
    ) -> None:
        a, o = array_of(A), array_of(out)
        m, n = a.shape[-2:]
        if o.size == 0:
            return
        if rtol is None:
            eps = float(np.finfo(a.dtype).eps)  # (of the real dtype, for complex input)
            rtol = eps * max(m, n) if atol is None or atol <= 0 else 0.0
        atol = 0.0 if atol is None else atol
        if min(m, n) == 0:
            o[...] = 0
            return
        if hermitian:
            w, v = la.eigh(a)
            s = xp.abs(w)
        else:
            u, s, vh = la.svd(a, full_matrices=False)
        tol = xp.maximum(atol, rtol * s.max(-1, keepdims=True))
        keep = s > tol
        if hermitian:
            winv = xp.where(keep, 1 / xp.where(keep, w, 1), 0).astype(a.dtype)
            o[...] = xp.matmul(v * winv[..., None, :], mH(v))
        else:
            sinv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(a.dtype)
            o[...] = xp.matmul(mH(vh) * sinv[..., None, :], mH(u))

    def linalg_cross(out: Any, a: Any, b: Any, dim: int = -1) -> None:
        x, y, o = array_of(a), array_of(b), array_of(out)
        x, y = xp.broadcast_arrays(x, y)
        o[...] = xp.cross(x, y, axis=dim)

    return {
        "linalg_inv": linalg_inv,
        "linalg_det": linalg_det,
        "linalg_slogdet": linalg_slogdet,
        "linalg_solve": linalg_solve,
        "linalg_cholesky": linalg_cholesky,
        "_linalg_eigh": linalg_eigh,
        "linalg_qr": linalg_qr,
        "_linalg_svd": linalg_svd,
        "linalg_pinv": linalg_pinv,
        "linalg_cross": linalg_cross,
    }
