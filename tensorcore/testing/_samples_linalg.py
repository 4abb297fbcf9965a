"""Samples of the linear algebra operators, the decompositions and solvers, and the discrete
Fourier transforms. Each generator registers itself with ``_samples``; ``samples.py`` gathers
them into :data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

import math
from typing import Any

import tensorcore as tc
from tensorcore.testing._sample_base import S, Sample, _Maker, _samples


# ------------------------------------------------------------------ linear algebra
@_samples("matmul")
def _matmul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3, 4, t=True)), desc="matrix @ transposed matrix"),
        S((m.uniform(3), m.uniform(3, 2)), desc="vector @ matrix"),
        S((m.uniform(2, 3), m.uniform(3)), desc="matrix @ vector"),
        S((m.uniform(3), m.uniform(3)), desc="vector @ vector"),
        S((m.uniform(2, 2, 3), m.uniform(3, 2)), desc="batched, broadcast"),
    ]


@_samples("mm")
def _mm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3, 4))),
        S((m.uniform(3, 2, t=True), m.uniform(2, 4, t=True)), desc="transposed"),
    ]


@_samples("addmm")
def _addmm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4), m.uniform(2, 3), m.uniform(3, 4, t=True)), desc="bias, transposed mat2"),
        S(
            (m.uniform(2, 4), m.uniform(2, 3), m.uniform(3, 4)),
            {"beta": 0.5, "alpha": 2.0},
            desc="beta and alpha",
        ),
        S((m.uniform(2, 1), m.uniform(2, 3, t=True), m.uniform(3, 4)), desc="column self"),
    ]


@_samples("addmv")
def _addmv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2), m.uniform(2, 3), m.uniform(3))),
        S(
            (m.uniform(1), m.uniform(2, 3, t=True), m.uniform(3)),
            {"beta": 0.5, "alpha": 2.0},
            desc="broadcast self, transposed mat, beta and alpha",
        ),
        S((m.uniform(), m.uniform(3, 2), m.uniform(2)), desc="0-d self"),
    ]


@_samples("addr")
def _addr(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2), m.uniform(3))),
        S(
            (m.uniform(3), m.uniform(2), m.uniform(3)),
            {"beta": 0.5, "alpha": 2.0},
            desc="broadcast self, beta and alpha",
        ),
        S((m.uniform(2, 1), m.uniform(2), m.uniform(4)), desc="column self"),
    ]


@_samples("bmm")
def _bmm(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 2, 3), m.uniform(2, 3, 2)))]


@_samples("mv")
def _mv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2, t=True), m.uniform(2)), desc="transposed"),
    ]


@_samples("dot")
def _dot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4), m.uniform(4))),
        S((m.uniform(2, 3, t=True)[1], m.uniform(3)), desc="strided"),
    ]


@_samples("outer")
def _outer(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3), m.uniform(2)))]


@_samples("einsum")
def _einsum(m: _Maker) -> list[Sample]:
    return [
        S(("ij,jk->ik", [m.uniform(2, 3), m.uniform(3, 2, t=True)]), desc="matmul"),
        S(("ij->", [m.uniform(2, 3)]), desc="full sum"),
        S(("ij->j", [m.uniform(2, 3)]), desc="partial sum"),
        S(("i,j->ij", [m.uniform(2), m.uniform(3)]), desc="outer"),
        S(("bij,bjk->bik", [m.uniform(2, 2, 3), m.uniform(2, 3, 2)]), desc="batched"),
        S(("ij,ij", [m.uniform(2, 3), m.uniform(2, 3)]), desc="implicit output"),
        S(("...ij,...jk->...ik", [m.uniform(2, 2, 3), m.uniform(3, 2)]), desc="ellipsis"),
        S(("...ij,...j", [m.uniform(1, 2, 3), m.uniform(2, 1, 3)]), desc="broadcast ellipsis"),
        S(("b...d,b...d->b...", [m.uniform(2, 3, 2), m.uniform(2, 3, 2)]), desc="mid ellipsis"),
        S(("ii->i", [m.uniform(3, 3)]), desc="diagonal"),
        S(("ii", [m.uniform(3, 3)]), desc="trace"),
        S(("iij,jj->i", [m.uniform(2, 2, 3), m.uniform(3, 3)]), desc="repeated letters"),
        S(("b i d, b j d -> b i j", [m.uniform(1, 2, 3), m.uniform(2, 4, 3)]), desc="spaces"),
    ]


# ------------------------------------------------------------------ decompositions and solvers
# Well-conditioned matrices: ``A + n I`` for inverses and solves, ``B B^H + n I`` (Hermitian
# positive-definite) for ``cholesky``, random symmetric ones (distinct eigenvalues) for
# ``eigh``; random rectangular ones have distinct singular values.
def _eye_like(a: tc.Tensor) -> tc.Tensor:
    return tc.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def _invertible(m: _Maker, *shape: int, t: bool = False) -> tc.Tensor:
    a = m.uniform(*shape, t=t)
    return a + _eye_like(a) * shape[-1]


def _pd(m: _Maker, *shape: int) -> tc.Tensor:
    b = m.uniform(*shape)
    return b.matmul(b.mT) + _eye_like(b) * shape[-1]


def _symmetric(m: _Maker, *shape: int) -> tc.Tensor:
    b = m.uniform(*shape)
    return (b + b.mT) * 0.5


def _abs_vectors(res: Any) -> tuple[Any, ...]:
    """Eigenvalues and the magnitudes of the eigenvectors' entries (sign and phase free)."""
    return res[0], res[1].abs()


def _abs_singular(res: Any) -> tuple[Any, ...]:
    """Magnitudes of the first ``k`` singular vectors (the others of ``full_matrices`` are any
    completion), and the singular values."""
    u, s, vh = res
    k = s.shape[-1]
    return u.narrow(-1, 0, k).abs(), s, vh.narrow(-2, 0, k).abs()


@_samples("linalg_inv", "inverse")
def _linalg_inv(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3),)),
        S((_invertible(m, 2, 3, 3),), desc="batch"),
        S((_invertible(m, 3, 3, t=True),), desc="transposed"),
    ]


@_samples("linalg_det", "det")
def _linalg_det(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 3),)), S((m.uniform(2, 3, 3),), desc="batch")]


@_samples("linalg_slogdet", "slogdet")
def _linalg_slogdet(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 3),)), S((_invertible(m, 2, 3, 3, t=False),), desc="batch")]


@_samples("logdet")
def _logdet(m: _Maker) -> list[Sample]:
    return [S((_pd(m, 3, 3),)), S((_pd(m, 2, 2, 2),), desc="batch")]


@_samples("linalg_solve")
def _linalg_solve(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), m.uniform(3, 2))),
        S((_invertible(m, 2, 3, 3), m.uniform(3)), desc="vector"),
        S((_invertible(m, 3, 3), m.uniform(2, 3, 2)), desc="broadcast batch"),
        S((_invertible(m, 2, 3, 3), m.uniform(2, 3)), desc="batch of vectors"),
        S((_invertible(m, 3, 3, t=True), m.uniform(2, 3)), {"left": False}, desc="right"),
    ]


@_samples("linalg_solve_triangular")
def _linalg_solve_triangular(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), m.uniform(3, 2), True)),
        S((_invertible(m, 2, 3, 3), m.uniform(3, 2), False), desc="lower, broadcast batch"),
        S(
            (_invertible(m, 3, 3, t=True), m.uniform(2, 2, 3), False),
            {"left": False, "unitriangular": True},
            desc="right, unit diagonal",
        ),
        S(
            (_invertible(m, 2, 1, 3, 3), m.uniform(3, 1, 3), True),
            {"left": False},
            desc="upper, right, one row, batches broadcast both ways",
        ),
        S(
            (_invertible(m, 3, 3, t=True), m.uniform(3, 1), True),
            {"unitriangular": True},
            desc="upper, unit diagonal, one column",
        ),
    ]


@_samples("cholesky_solve")
def _cholesky_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3)), triangular=(1,)),
        S(
            (m.uniform(2, 3, 1), _invertible(m, 3, 3)),
            {"upper": True},
            desc="batch, upper",
            triangular=(1,),
        ),
    ]


@_samples("cholesky_inverse")
def _cholesky_inverse(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3),), triangular=(0,)),
        S((_invertible(m, 2, 2, 2),), {"upper": True}, desc="batch, upper", triangular=(0,)),
    ]


@_samples("triangular_solve")
def _triangular_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3))),
        S(
            (m.uniform(3, 2), _invertible(m, 2, 3, 3)),
            {"upper": False, "transpose": True, "unitriangular": True},
            desc="batch, lower, transposed, unit diagonal",
        ),
    ]


@_samples("linalg_cholesky")
def _linalg_cholesky(m: _Maker) -> list[Sample]:
    return [
        S((_pd(m, 3, 3),), hermitian=(0,)),
        S((_pd(m, 2, 3, 3),), {"upper": True}, desc="batch, upper", hermitian=(0,)),
    ]


@_samples("_linalg_eigh")
def _linalg_eigh_internal(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3), "L", True), hermitian=(0,), invariant=_abs_vectors),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,), invariant=_abs_vectors),
    ]


@_samples("linalg_eigh")
def _linalg_eigh(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3),), hermitian=(0,), invariant=_abs_vectors),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,), invariant=_abs_vectors),
    ]


@_samples("linalg_eigvalsh")
def _linalg_eigvalsh(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3),), hermitian=(0,)),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,)),
    ]


@_samples("linalg_qr")
def _linalg_qr(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="tall"),
        S((m.uniform(2, 4),), desc="wide"),
        S((m.uniform(2, 3, 3), "complete"), desc="batch, complete"),
        S((m.uniform(3, 2, t=True),), desc="transposed"),
    ]


@_samples("_linalg_svd")
def _linalg_svd_internal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), False, True), desc="tall", invariant=_abs_singular),
        S((m.uniform(2, 4),), desc="wide", invariant=_abs_singular),
        S((m.uniform(2, 3, 3), True), desc="batch, full", invariant=_abs_singular),
    ]


@_samples("linalg_svd")
def _linalg_svd(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="full", invariant=_abs_singular),
        S((m.uniform(2, 2, 4), False), desc="batch, reduced", invariant=_abs_singular),
    ]


def _abs_svd(res: Any) -> tuple[Any, ...]:
    """:func:`_abs_singular` for ``svd``'s ``(U, S, V)``: V's first ``k`` columns."""
    u, s, v = res
    k = s.shape[-1]
    return u.narrow(-1, 0, k).abs(), s, v.narrow(-1, 0, k).abs()


def _values(res: Any) -> tuple[Any, ...]:
    """The singular values alone (``compute_uv=False`` zero-fills U and V)."""
    return (res[1],)


@_samples("svd")
def _svd(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="reduced", invariant=_abs_svd),
        S((m.uniform(2, 2, 4), False), desc="batch, full", invariant=_abs_svd),
        S((m.uniform(3, 2),), {"compute_uv": False}, desc="values only", invariant=_values),
    ]


def _sorted_eig(res: Any) -> tuple[Any, ...]:
    """Eigenvalues in a fixed order (by real part, then imaginary) and their eigenvectors
    with the first component real and positive: what is unique of an eigendecomposition
    (LAPACK's order and phases may change under a perturbation)."""
    values, vectors = res
    idx = (values.real + values.imag * 1e-3).argsort(-1)
    values = values.gather(-1, idx)
    if vectors.numel() == 0:
        return (values,)
    vectors = vectors.gather(-1, idx.unsqueeze(-2).expand(vectors.shape))
    first = vectors.narrow(-2, 0, 1)
    return values, vectors / (first / first.abs())


def _sorted_values(res: Any) -> Any:
    return _sorted_eig((res, res.new_empty(0)))[0]


@_samples("_linalg_eig")
def _linalg_eig_internal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3), True), invariant=_sorted_eig),
        S((m.uniform(2, 3, 3),), desc="batch", invariant=_sorted_eig),
    ]


@_samples("linalg_eig")
def _linalg_eig(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),), invariant=_sorted_eig),
        S((m.uniform(2, 4, 4, t=False),), desc="batch", invariant=_sorted_eig),
        S((m.uniform(3, 3, t=True),), desc="transposed", invariant=_sorted_eig),
    ]


@_samples("linalg_eigvals")
def _linalg_eigvals(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),), invariant=_sorted_values),
        S((m.uniform(2, 3, 3),), desc="batch", invariant=_sorted_values),
    ]


@_samples("linalg_lu_factor_ex", "linalg_lu_factor")
def _linalg_lu_factor(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 4),), desc="batch, wide"),
        S((m.uniform(4, 2, t=True),), desc="tall, transposed"),
        S((m.uniform(3, 3),), {"pivot": False}, desc="no pivoting"),
    ]


def _lu_factors(res: Any) -> tuple[Any, ...]:
    """``L`` and ``U`` of ``linalg.lu`` (``P`` is a constant, without a gradient)."""
    return res[1], res[2]


@_samples("linalg_lu")
def _linalg_lu(m: _Maker) -> list[Sample]:
    return [S(s.args, s.kwargs, s.desc, invariant=_lu_factors) for s in _linalg_lu_factor(m)]


@_samples("lu")
def _lu(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 4), True, True), desc="batch, wide, infos"),
    ]


def _pivots(m: _Maker, *values: Any) -> tc.Tensor:
    return tc.tensor(list(values), dtype=tc.int32, device=m.device)


@_samples("lu_unpack")
def _lu_unpack(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3), _pivots(m, 2, 3, 3))),
        S((m.uniform(2, 3, 4), _pivots(m, [3, 2, 3], [1, 3, 3])), desc="batch, wide"),
        S((m.uniform(4, 2), _pivots(m, 4, 2)), desc="tall"),
        S((m.uniform(3, 3), _pivots(m, 3, 2, 3), False), desc="pivots only"),
        S((m.uniform(3, 3), _pivots(m, 3, 2, 3)), {"unpack_pivots": False}, desc="data only"),
    ]


@_samples("linalg_ldl_factor_ex")
def _linalg_ldl_factor_ex(m: _Maker) -> list[Sample]:
    indefinite = _symmetric(m, 4, 4) - _eye_like(m.uniform(4, 4)) * 0.5
    return [
        S((_symmetric(m, 3, 3),)),
        S((_symmetric(m, 2, 3, 3),), {"hermitian": True}, desc="batch"),
        S((indefinite,), {"check_errors": True}, desc="indefinite"),
    ]


@_samples("linalg_ldl_solve")
def _linalg_ldl_solve(m: _Maker) -> list[Sample]:
    # Factors as LAPACK packs them: 1x1 blocks, and a 2x2 block after an interchange.
    ld = m.uniform(3, 3).tril() + _eye_like(m.uniform(3, 3)) * 3
    batch = m.uniform(2, 3, 3).tril() + _eye_like(m.uniform(3, 3)) * 3
    return [
        S((ld, _pivots(m, 1, 2, 3), m.uniform(3, 2))),
        S((ld, _pivots(m, 1, -3, -3), m.uniform(2, 3, 1)), desc="2x2 block, broadcast B"),
        S(
            (batch, _pivots(m, [2, 2, 3], [-2, -2, 3]), m.uniform(3, 4)),
            {"hermitian": True},
            desc="batch",
        ),
    ]


@_samples("linalg_lu_solve")
def _linalg_lu_solve(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), _pivots(m, 2, 3, 3), m.uniform(3, 2))),
        S(
            (_invertible(m, 2, 3, 3), _pivots(m, [3, 2, 3], [1, 3, 3]), m.uniform(3, 2)),
            {"adjoint": True},
            desc="batch, adjoint",
        ),
        S(
            (_invertible(m, 3, 3), _pivots(m, 2, 2, 3), m.uniform(2, 2, 3)),
            {"left": False},
            desc="right, broadcast batch",
        ),
        S(
            (_invertible(m, 3, 3, t=True), _pivots(m, 3, 3, 3), m.uniform(2, 3)),
            {"left": False, "adjoint": True},
            desc="right, adjoint, transposed",
        ),
    ]


@_samples("lu_solve")
def _lu_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3), _pivots(m, 2, 3, 3))),
        S((m.uniform(2, 3, 1), _invertible(m, 2, 3, 3), _pivots(m, [3, 2, 3], [1, 3, 3]))),
    ]


@_samples("linalg_matrix_exp", "matrix_exp")
def _linalg_matrix_exp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 3, lo=-4.0, hi=4.0),), desc="batch, scaled"),
        S((m.uniform(4, 4, t=True),), desc="transposed"),
        S((m.uniform(2, 2, lo=-0.01, hi=0.01),), desc="small norm"),
    ]


@_samples("linalg_svdvals")
def _linalg_svdvals(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(2, 4, 3, t=False),), desc="batch")]


@_samples("linalg_lstsq")
def _linalg_lstsq(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), m.uniform(4, 2)), {"driver": "gelsd"}, desc="tall"),
        S((m.uniform(2, 3, 4), m.uniform(2, 3, 2)), desc="wide, batch"),
        S((m.uniform(4, 2, t=True), m.uniform(4)), {"driver": "gels"}, desc="vector"),
    ]


@_samples("linalg_pinv")
def _linalg_pinv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="tall"),
        S((m.uniform(2, 2, 4),), {"rtol": 1e-3}, desc="batch, wide"),
        S((_pd(m, 3, 3),), {"hermitian": True}, desc="hermitian", hermitian=(0,)),
    ]


@_samples("pinverse")
def _pinverse(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(4, 3), 1e-3), desc="rcond")]


@_samples("linalg_matrix_norm")
def _linalg_matrix_norm(m: _Maker) -> list[Sample]:
    a = m.away(3, 4)
    return [
        *(S((a, o), desc=str(o)) for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)),
        S((m.away(3, 2, 4), 1, (0, 2)), {"keepdim": True}, desc="dims, keepdim"),
        S((m.away(2, 3, 3), "nuc", (-1, -2)), desc="batch, swapped dims"),
    ]


@_samples("linalg_matrix_power", "matrix_power")
def _linalg_matrix_power(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), 3)),
        S((_invertible(m, 2, 3, 3), -2), desc="negative"),
        S((m.uniform(3, 3), 0), desc="zero"),
        S((m.uniform(3, 3, t=True), 1), desc="one, transposed"),
    ]


@_samples("linalg_matrix_rank")
def _linalg_matrix_rank(m: _Maker) -> list[Sample]:
    a = m.uniform(2, 3)
    singular = tc.cat([a, a.sum(0, keepdim=True)])
    return [
        S((m.uniform(3, 4),)),
        S((singular,), desc="rank 2"),
        S((_symmetric(m, 2, 3, 3),), {"hermitian": True, "atol": 0.1}, desc="hermitian"),
    ]


@_samples("linalg_cross", "cross")
def _linalg_cross(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(1, 3)), {"dim": -1}, desc="broadcast"),
        S((m.uniform(3, 2), m.uniform(3, 2)), {"dim": 0}, desc="dim 0"),
    ]


@_samples("linalg_diagonal")
def _linalg_diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 4),)),
        S((m.uniform(3, 4),), {"offset": 1, "dim1": 1, "dim2": 0}, desc="offset, dims"),
    ]


@_samples("linalg_multi_dot")
def _linalg_multi_dot(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3, 4), m.uniform(4, 2)],), desc="row vector first"),
        S(([m.uniform(2, 3), m.uniform(3, 4, t=True)],), desc="two"),
        S(([m.uniform(2, 3), m.uniform(3, 4), m.uniform(4, 1), m.uniform(1)],), desc="four"),
    ]


@_samples("linalg_vecdot")
def _linalg_vecdot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2), m.uniform(3, 2, t=False)), {"dim": 0}, desc="dim 0"),
    ]


@_samples("tensordot")
def _tensordot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 4), m.uniform(3, 4, 2))),
        S((m.uniform(2, 3), m.uniform(3, 4, t=True), 1), desc="dims=1"),
        S((m.uniform(2, 3, 4), m.uniform(4, 2, 2)), {"dims": ([0, 2], [1, 0])}, desc="lists"),
    ]


@_samples("isclose")
def _isclose(m: _Maker) -> list[Sample]:
    a = m.uniform(2, 3)
    return [
        S((a, a.clone())),
        S((m.uniform(2, 3, t=True), m.uniform(3)), {"rtol": 0.5, "atol": 0.1}, desc="broadcast"),
        S((m.uniform(3), m.uniform(3)), {"equal_nan": True}, desc="equal_nan"),
    ]


@_samples("trace")
def _trace(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(3, 3, t=True),), desc="transposed")]


@_samples("kron")
def _kron(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2))),
        S((m.uniform(2, 2), m.uniform(2, 3, t=True)), desc="transposed"),
        S((m.uniform(2), m.uniform(3, 2)), desc="1-D and 2-D"),
    ]


# ------------------------------------------------------------------ discrete Fourier transforms
def _spectrum(m: _Maker, *shape: int, t: bool = False) -> tc.Tensor:
    """Complex data of the data dtype's precision (integral data stays integral, for the
    dtype checks); ``t=True`` gives a transposed 2-D tensor."""
    re = m.uniform(*shape, t=t)
    if not m.floating:
        return re
    c = re.dtype.to_complex()
    return re.to(c) + m.uniform(*shape, t=t).to(c) * 1j


@_samples("_fft_c2c")
def _fft_c2c(m: _Maker) -> list[Sample]:
    return [
        S((_spectrum(m, 2, 3), [1], 0, True), desc="forward, last dim"),
        S((_spectrum(m, 4, 3, t=True), [0, 1], 1, False), desc="inverse 1/sqrt(n), transposed"),
        S((_spectrum(m, 2, 3, 2), [2, 0], 2, True), desc="forward 1/n, two dims"),
    ]


@_samples("_fft_r2c")
def _fft_r2c(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), [1], 0, True), desc="one-sided, even length"),
        S((m.uniform(4, 3, t=True), [1, 0], 1, True), desc="one-sided, odd length, transposed"),
        S((m.uniform(2, 3), [0, 1], 2, False), desc="two-sided, 1/n"),
    ]


@_samples("_fft_c2r")
def _fft_c2r(m: _Maker) -> list[Sample]:
    return [
        S((_spectrum(m, 2, 3), [1], 2, 4), desc="even length, 1/n"),
        S((_spectrum(m, 3, 3, t=True), [0, 1], 0, 5), desc="odd length, two dims, transposed"),
        S((_spectrum(m, 2, 2), [1], 1, 2), desc="length 2, 1/sqrt(n)"),
    ]
