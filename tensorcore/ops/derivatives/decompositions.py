"""Derivative rules of the linear-algebra operators (``torch.linalg``), part of THE
derivative table: ``ops/derivatives/linalg.py`` adds each of :data:`LINALG_RULES` to it.

The formulas are PyTorch's (``FunctionsManual.cpp``): for ``A = f(...)`` a rule maps the
output gradients to ``dL/dA`` in the conjugate Wirtinger form for complex input. They are
written with tensorcore operators, so they run on every device and are differentiable again.
The rules of ``eigh``, ``svd`` and ``qr`` assume a loss that does not depend on the signs
(phases) of the vectors; a complex loss that does raises PyTorch's error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...dispatch import get_op
from .. import functions as ops
from .._call import call

__all__ = ["LINALG_RULES"]

#: ``(operator, saves, rule)`` as the table's ``_d`` takes them.
LINALG_RULES: list[tuple[str, str, Callable[..., Any]]] = []


def _rule(name: str, saves: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        LINALG_RULES.append((name, saves, fn))
        return fn

    return deco


def _run(name: str, *args: Any) -> Any:
    return call(get_op(name), args)


def _mH(x: Tensor) -> Tensor:
    return x.mT.conj() if x._dtype.is_complex else x.mT


def _inv(A: Tensor) -> Tensor:
    return _run("linalg_inv", A)


def _solve(A: Tensor, B: Tensor, left: bool = True) -> Tensor:
    """``A^-1 B`` (``B A^-1`` when not ``left``), ``B`` a batch of matrices."""
    return _run("linalg_solve", A, B, left)


def _tri(T: Tensor, B: Tensor, upper: bool, left: bool, unit: bool = False) -> Tensor:
    """``T^-1 B`` (``B T^-1`` when not ``left``) for the triangle ``T`` reads."""
    return _run("linalg_solve_triangular", T, B, upper, left, unit)


def _eye(n: int, like: Tensor) -> Tensor:
    return ops.eye(n, dtype=like._dtype, device=like._device)


def _diag_embed(v: Tensor) -> Tensor:
    """Square matrices with ``v``'s last dim on their diagonals."""
    return v.unsqueeze(-1) * _eye(v._shape[-1], v)


def _diag(x: Tensor) -> Tensor:
    return x.diagonal(0, -2, -1)


def _check_gauge(M: Tensor, message: str) -> None:
    """PyTorch's check that a complex loss ignores the phases of the vectors: the imaginary
    part of ``diag(M)`` (``V^H gV``) must vanish."""
    if M._dtype.is_complex and bool((_diag(M).imag.abs() > 1e-2).any()):
        raise RuntimeError(message)


# ------------------------------------------------------------------ inverses and solvers
_rule("linalg_inv", "result")(lambda c, g: (-(_mH(c.result).matmul(g).matmul(_mH(c.result))),))


@_rule("linalg_det", "A result")
def _det(c: Any, g: Tensor) -> tuple[Any, ...]:
    A, det = c.A, c.result
    gdet = (g * det.conj() if det._dtype.is_complex else g * det).unsqueeze(-1).unsqueeze(-1)
    if not bool((det == 0).any()):
        return (gdet * _mH(_inv(A)),)
    # A singular matrix: det(A) A^-H is the conjugate cofactor matrix, computed from the SVD
    # A = U diag(S) Vh as conj(det(U) det(Vh)) U diag(prod of the other S) Vh.
    U, S, Vh = _run("_linalg_svd", A, False, True, None)
    phase = _run("linalg_det", U) * _run("linalg_det", Vh)
    if phase._dtype.is_complex:
        phase = phase.conj()
    others = _prod_others(S).to(A._dtype)
    cof = (U * others.unsqueeze(-2)).matmul(Vh) * phase.unsqueeze(-1).unsqueeze(-1)
    return (g.unsqueeze(-1).unsqueeze(-1) * cof,)


def _prod_others(s: Tensor) -> Tensor:
    """For each element of the last dim, the product of the others (zero-safe)."""
    n = s._shape[-1]
    ones = ops.ones_like(s.narrow(-1, 0, 1))
    left = ops.cat([ones, s.cumprod(-1).narrow(-1, 0, n - 1)], -1)
    right = ops.cat([ones, s.flip((-1,)).cumprod(-1).narrow(-1, 0, n - 1)], -1).flip((-1,))
    return left * right


@_rule("linalg_slogdet", "A result0")
def _slogdet(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    g_sign, g_log = grads
    A, sign = c.A, c.result0
    if not A._dtype.is_complex:
        if g_log is None:
            return (None,)
        return (g_log.unsqueeze(-1).unsqueeze(-1) * _mH(_inv(A)),)
    # d log det = d logabsdet + i d arg: the sign's gradient enters through its phase.
    g = None if g_log is None else g_log.to(A._dtype)
    if g_sign is not None:
        phase = (g_sign.conj() * sign).imag * -1j
        g = phase if g is None else g + phase
    if g is None:
        return (None,)
    return (g.unsqueeze(-1).unsqueeze(-1) * _mH(_inv(A)),)


def _solve_is_vector(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1])


@_rule("linalg_solve", "A B:spec left result")
def _solve_rule(c: Any, g: Tensor) -> tuple[Any, ...]:
    A, X, left = c.A, c.result, c.left
    vector = _solve_is_vector(A._shape, c.B._shape)
    Ah = _mH(A)
    # X = A^-1 B: gB = A^-H g and gA = -gB X^H (X A = B: gB = g A^-H, gA = -X^H gB).
    if vector:
        gm, xm = (g.unsqueeze(-1), X.unsqueeze(-1)) if left else (g.unsqueeze(-2), X.unsqueeze(-2))
    else:
        gm, xm = g, X
    gB = _solve(Ah, gm, left)
    gA = -gB.matmul(_mH(xm)) if left else -_mH(xm).matmul(gB)
    if vector:
        gB = gB.squeeze(-1) if left else gB.squeeze(-2)
    return (gA if c.needs(0) else None, gB)


@_rule("linalg_solve_triangular", "self result upper left unitriangular")
def _solve_triangular_rule(c: Any, g: Tensor) -> tuple[Any, ...]:
    A, X, upper, left, unit = c.self, c.result, c.upper, c.left, c.unitriangular
    # X = T^-1 B for the triangle T of A the solver reads: gB = T^-H g, a solve with the
    # other triangle of A^H, and gA = -gB X^H (X T = B: gB = g T^-H, gA = -X^H gB) kept to
    # T's triangle (its strict part when unitriangular), as PyTorch's gradient is.
    gB = _tri(_mH(A), g, not upper, left, unit)
    if not c.needs(0):
        return (None, gB)
    gA = -gB.matmul(_mH(X)) if left else -_mH(X).matmul(gB)
    gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
    return (gA, gB)


_rule("linalg_pinv", "A result")(lambda c, g: (_pinv_backward(g, c.result, c.A),))


def _pinv_backward(g: Tensor, P: Tensor, A: Tensor) -> Tensor:
    m, n = A._shape[-2], A._shape[-1]
    Ph, gh = _mH(P), _mH(g)
    if m <= n:
        K = gh.matmul(P)
        KPh = K.matmul(Ph)
        return (
            -_mH(P.matmul(K))
            + KPh
            - A.matmul(P).matmul(KPh)
            + Ph.matmul(P).matmul(gh - K.matmul(A))
        )
    K = P.matmul(gh)
    PhK = Ph.matmul(K)
    return (
        -_mH(K.matmul(P)) + (gh - A.matmul(K)).matmul(P).matmul(Ph) + PhK - PhK.matmul(P).matmul(A)
    )


_rule("linalg_cross", "self other dim")(
    lambda c, g: (
        _run("linalg_cross", c.other.conj(), g, c.dim) if c.needs(0) else None,
        _run("linalg_cross", g, c.self.conj(), c.dim) if c.needs(1) else None,
    )
)


# ------------------------------------------------------------------ decompositions
@_rule("linalg_cholesky", "upper result")
def _cholesky(c: Any, g: Tensor) -> tuple[Any, ...]:
    L, gL = c.result, g
    if c.upper:
        L, gL = _mH(L), _mH(gL)
    # gA = L^-H Phi(L^H gL) L^-1, Phi taking the lower triangle with a halved diagonal,
    # made Hermitian.
    P = _mH(L).matmul(gL).tril()
    P = (P + _mH(P.tril(-1))) * 0.5
    return (_solve(L, _solve(_mH(L), P), left=False),)


@_rule("_linalg_eigh", "result0 result1")
def _eigh(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    gL, gV = grads
    L, V = c.result0, c.result1
    if gV is None:
        return ((V * gL.to(V._dtype).unsqueeze(-2)).matmul(_mH(V)),)
    VhgV = _mH(V).matmul(gV)
    _check_gauge(
        VhgV,
        "linalg_eigh_backward: The eigenvectors in the complex case are specified up to "
        "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
        "so it is ill-defined.",
    )
    n = L._shape[-1]
    eye = _eye(n, L)
    E = L.unsqueeze(-2) - L.unsqueeze(-1) + eye
    inner = ((VhgV - _mH(VhgV)) * 0.5) / E * (1 - eye)
    if gL is not None:
        inner = inner + _diag_embed(gL.to(V._dtype))
    return (V.matmul(inner).matmul(_mH(V)),)


@_rule("linalg_qr", "mode result0 result1")
def _qr(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    gQ, gR = grads
    Q, R, mode = c.result0, c.result1, c.mode
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
            "linalg.qr."
        )
    m, n = Q._shape[-2], R._shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if m >= n:
        return (_qr_square_backward(gQ, gR, Q, R),)
    # A = Q [R1 R2] = [X Y]: Q, R1 = qr(X) and R2 = Q^H Y.
    R1, R2 = R.narrow(-1, 0, m), R.narrow(-1, m, n - m)
    gR1 = gR.narrow(-1, 0, m) if gR is not None else None
    Y = Q.matmul(R2)
    gY = Q.matmul(gR.narrow(-1, m, n - m)) if gR is not None else ops.zeros_like(Y)
    if gR is not None:
        extra = Y.matmul(_mH(gR.narrow(-1, m, n - m)))
        gQ = extra if gQ is None else gQ + extra
    return (ops.cat([_qr_square_backward(gQ, gR1, Q, R1), gY], -1),)


def _qr_square_backward(gQ: Any, gR: Any, Q: Tensor, R: Tensor) -> Tensor:
    """``dL/dA`` for ``A = Q R`` with ``m >= n`` (``R`` square): with ``N = Q^H gQ - gR R^H``,
    ``gA = (gQ + Q (tril(N - N^H, -1) + i Im diag(N) - N)) R^-H``."""
    N = None
    if gQ is not None:
        N = _mH(Q).matmul(gQ)
    if gR is not None:
        t = gR.matmul(_mH(R))
        N = -t if N is None else N - t
    assert N is not None
    X = (N - _mH(N)).tril(-1) - N
    if N._dtype.is_complex:
        X = X + _diag_embed(_diag(N).imag * 1j)
    top = Q.matmul(X) if gQ is None else gQ + Q.matmul(X)
    return _solve(_mH(R), top, left=False)


@_rule("_linalg_svd", "full_matrices result0 result1 result2")
def _svd(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    gU, gS, gVh = grads
    U, S, Vh = c.result0, c.result1, c.result2
    k = S._shape[-1]
    if c.full_matrices:
        # Only the first k vectors are determined by A (PyTorch narrows the same way).
        U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
        gU = gU.narrow(-1, 0, k) if gU is not None else None
        gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
    m, n = U._shape[-2], Vh._shape[-1]
    cplx = U._dtype.is_complex
    if gU is None and gVh is None:
        gs = gS.to(U._dtype)
        if m >= n:
            return (U.matmul(gs.unsqueeze(-1) * Vh),)
        return ((U * gs.unsqueeze(-2)).matmul(Vh),)
    UhgU = VhgV = None
    if gU is not None:
        t = _mH(U).matmul(gU)
        UhgU = t - _mH(t)
    if gVh is not None:
        t = Vh.matmul(_mH(gVh))
        VhgV = t - _mH(t)
    if cplx:
        parts = [x for x in (UhgU, VhgV) if x is not None]
        _check_gauge(
            (parts[0] if len(parts) == 1 else parts[0] + parts[1]) * 0.5,
            "linalg_svd_backward: The singular vectors in the complex case are specified up to "
            "multiplication by e^{i phi}. The specified loss function depends on this phase "
            "term, making it ill-defined.",
        )
    Sc = S.to(U._dtype)
    S2 = S * S
    E = (S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye(k, S)).to(U._dtype)
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * Sc.unsqueeze(-2) + Sc.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = (UhgU / E) * Sc.unsqueeze(-2)
    else:
        assert VhgV is not None
        gA = Sc.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + _diag_embed(gS.to(U._dtype))
    if cplx and UhgU is not None and VhgV is not None:
        gA = gA + _diag_embed(_diag(UhgU) / (Sc * 2))
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / Sc.unsqueeze(-2)
        gA = (gA + gUSinv - U.matmul(_mH(U).matmul(gUSinv))).matmul(Vh)
    elif m < n and gVh is not None:
        gA = gA.matmul(Vh)
        SinvgVh = gVh / Sc.unsqueeze(-1)
        gA = U.matmul(gA + SinvgVh - SinvgVh.matmul(_mH(Vh)).matmul(Vh))
    else:
        gA = U.matmul(gA).matmul(Vh)
    return (gA,)


# ------------------------------------------------------------------ general matrices
@_rule("_linalg_eig", "compute_v result0 result1")
def _eig(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    gL, gV = grads
    L, V = c.result0, c.result1
    if not c.compute_v:
        raise RuntimeError(
            "linalg_eig_backward: the eigenvectors were not computed (compute_v=False); "
            "differentiate through linalg.eig instead"
        )
    Vh = _mH(V)
    if gV is None:
        # gA = V^-H diag(gL) V^H
        return (_solve(Vh, gL.unsqueeze(-1) * Vh),)
    VhgV = Vh.matmul(gV)
    _check_gauge(
        VhgV,
        "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
        "multiplication by e^{i phi}. The specified loss function depends on this quantity, so "
        "it is ill-defined.",
    )
    # Each eigenvector has norm 1: the part of gV along V's own column (its real diagonal
    # entry) moves nothing, and is projected out through V^H V.
    VhgV = VhgV - Vh.matmul(V * _diag(VhgV).real.to(V._dtype).unsqueeze(-2))
    n = L._shape[-1]
    eye = _eye(n, L)
    Lc = L.conj()
    E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
    inner = VhgV / E * (1 - eye)
    if gL is not None:
        inner = inner + _diag_embed(gL)
    return (_solve(Vh, inner.matmul(Vh)),)


def _lu_backward(gL: Any, gU: Any, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """``dL/dA`` for ``A = P L U`` (``L`` ``(m, k)`` unit lower, ``U`` ``(k, n)`` upper,
    ``k = min(m, n)``), PyTorch's ``linalg_lu_backward``. Square: with
    ``X = tril(L^H gL, -1) + triu(gU U^H)``, ``gA = P L^-H X U^-H``. Wide ``U = [U1 U2]``: the
    columns ``A2 = P L U2`` add ``-gU2 U2^H`` to ``X`` and give ``gA2 = P L^-H gU2``. Tall
    ``L = [L1; L2]``: the rows ``L2 U`` add ``-L2^H gL2`` to ``X`` and give ``gL2 U^-H``."""
    m, n = L._shape[-2], U._shape[-1]
    k = min(m, n)
    if gL is None:
        gL = ops.zeros_like(L)
    if gU is None:
        gU = ops.zeros_like(U)
    if m == n:
        X = _mH(L).matmul(gL).tril(-1) + gU.matmul(_mH(U)).triu()
        inner = _tri(_mH(L), X, upper=True, left=True, unit=True)
        return P.matmul(_tri(_mH(U), inner, upper=False, left=False))
    if m < n:
        U1, U2 = U.narrow(-1, 0, k), U.narrow(-1, k, n - k)
        gU1, gU2 = gU.narrow(-1, 0, k), gU.narrow(-1, k, n - k)
        X = (_mH(L).matmul(gL) - gU2.matmul(_mH(U2))).tril(-1) + gU1.matmul(_mH(U1)).triu()
        left_part = _tri(_mH(U1), X, upper=False, left=False)
        both = ops.cat([left_part, gU2], -1)
        return P.matmul(_tri(_mH(L), both, upper=True, left=True, unit=True))
    L1, L2 = L.narrow(-2, 0, k), L.narrow(-2, k, m - k)
    gL1, gL2 = gL.narrow(-2, 0, k), gL.narrow(-2, k, m - k)
    X = _mH(L1).matmul(gL1).tril(-1) + (gU.matmul(_mH(U)) - _mH(L2).matmul(gL2)).triu()
    top = _tri(_mH(L1), X, upper=True, left=True, unit=True)
    both = ops.cat([top, gL2], -2)
    return P.matmul(_tri(_mH(U), both, upper=False, left=False))


@_rule("linalg_lu_factor_ex", "result0 result1")
def _lu_factor_ex(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    gLU = grads[0]
    LU, pivots = c.result0, c.result1
    P, L, U = _run("lu_unpack", LU, pivots, True, True)
    m, n = LU._shape[-2], LU._shape[-1]
    k = min(m, n)
    gL = gLU.narrow(-1, 0, k).tril(-1)
    gU = gLU.narrow(-2, 0, k).triu()
    return (_lu_backward(gL, gU, P, L, U),)


def _not_implemented(name: str) -> Callable[..., Any]:
    """PyTorch's rule for an operator without a derivative (``not_implemented`` in its
    derivatives.yaml): the results join the graph, and a backward pass through them raises."""

    def rule(c: Any, grads: Any) -> tuple[Any, ...]:
        raise RuntimeError(f"derivative for aten::{name} is not implemented")

    return rule


LINALG_RULES.append(("linalg_ldl_factor_ex", "", _not_implemented("linalg_ldl_factor_ex")))
LINALG_RULES.append(("linalg_ldl_solve", "", _not_implemented("linalg_ldl_solve")))


@_rule("lu_unpack", "LU_data:spec unpack_data")
def _lu_unpack(c: Any, grads: list[Any]) -> tuple[Any, ...]:
    _, gL, gU = grads
    spec = c.LU_data
    m, n = spec._shape[-2], spec._shape[-1]
    k = min(m, n)
    if not c.unpack_data or (gL is None and gU is None):
        return (None, None)
    g = ops.zeros(spec._shape, dtype=spec._dtype, device=spec._device)
    if gL is not None:
        low = gL.tril(-1)
        if n > k:
            pad = ops.zeros((*low._shape[:-1], n - k), dtype=low._dtype, device=low._device)
            low = ops.cat([low, pad], -1)
        g = g + low
    if gU is not None:
        up = gU.triu()
        if m > k:
            pad = ops.zeros((*up._shape[:-2], m - k, n), dtype=up._dtype, device=up._device)
            up = ops.cat([up, pad], -2)
        g = g + up
    return (g, None)


@_rule("linalg_matrix_exp", "self")
def _matrix_exp(c: Any, g: Tensor) -> tuple[Any, ...]:
    # The Fréchet derivative in direction G, adjoint: exp([[A^H, G], [0, A^H]]) holds it in
    # its upper right block.
    Ah = _mH(c.self)
    n = Ah._shape[-1]
    zero = ops.zeros_like(Ah)
    top = ops.cat([Ah, g.to(Ah._dtype)], -1)
    bottom = ops.cat([zero, Ah], -1)
    big = _run("linalg_matrix_exp", ops.cat([top, bottom], -2))
    return (big.narrow(-2, 0, n).narrow(-1, n, n),)
