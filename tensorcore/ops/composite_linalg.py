"""Linear-algebra composites: ``tensorcore.linalg`` functions and PyTorch's top-level
``det``, ``trace``, ``kron``, ``tensordot``... written with other operators, so every backend
gets them and autograd differentiates them through their parts (``ops/composite.py``
registers them with its own).

The decompositions they build on (``_linalg_svd``, ``_linalg_eigh``, ``linalg_inv``...) are
internal operators, called through the dispatcher. Errors carry PyTorch's wording.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from .. import dtypes as dt
from .. import return_types as rt
from .._tensor import Tensor, _wrap_dim, torch_name
from ..autograd import grad_mode
from ..dispatch import get_op
from ..layouts import contiguous_format
from . import functions as ops
from ._call import call
from ._validate import warn_caller
from .frontends import named_as
from .meta_functions import blas_scale
from .meta_linalg import check_float_matrix

__all__ = ["LINALG_COMPOSITES"]

LINALG_COMPOSITES: dict[str, Callable[..., Any]] = {}


def _composite(fn: Callable[..., Any]) -> Callable[..., Any]:
    LINALG_COMPOSITES[fn.__name__] = fn
    return fn


def _run(name: str, *args: Any) -> Any:
    return call(get_op(name), args)


def _wants_grad(t: Tensor) -> bool:
    return t._requires_grad and grad_mode.is_grad_enabled()


# ------------------------------------------------------------------ decompositions
@_composite
def linalg_eigh(A: Tensor, UPLO: str = "L") -> Any:
    return rt.linalg_eigh(*_run("_linalg_eigh", A, UPLO, True))


@_composite
def linalg_eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    check_float_matrix("linalg.eigvalsh", A, kernel="linalg_eigh", any_dtype=True)
    # The eigenvectors only when a gradient will need them (as PyTorch does).
    return _run("_linalg_eigh", A, UPLO, _wants_grad(A))[0]


@_composite
def linalg_svd(A: Tensor, full_matrices: bool = True, driver: str | None = None) -> Any:
    return rt.linalg_svd(*_run("_linalg_svd", A, full_matrices, True, driver))


@_composite
def svd(self: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    if not compute_uv:
        # PyTorch's deprecated form: the singular values and zero-filled U and V.
        S = linalg_svdvals(self)
        m, n = self._shape[-2], self._shape[-1]
        batch = self._shape[:-2]
        U = ops.zeros((*batch, m, m), dtype=self._dtype, device=self._device)
        V = ops.zeros((*batch, n, n), dtype=self._dtype, device=self._device)
        return rt.svd(U, S, V)
    U, S, Vh = _run("_linalg_svd", self, not some, True, None)
    return rt.svd(U, S, _mh(Vh))


@_composite
def linalg_svdvals(A: Tensor, driver: str | None = None) -> Tensor:
    check_float_matrix("linalg.svdvals", A, square=False, kernel="linalg_svd")
    return _run("_linalg_svd", A, False, _wants_grad(A), driver)[1]


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@_composite
def linalg_lstsq(
    A: Tensor, B: Tensor, rcond: float | None = None, driver: str | None = None
) -> Any:
    fn = "torch.linalg.lstsq"
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A._dtype != B._dtype:
        raise RuntimeError(
            f"{fn}: Expected input and other to have the same dtype, but got input's dtype "
            f"{torch_name(A._dtype)} and other's dtype {torch_name(B._dtype)}"
        )
    check_float_matrix(fn, A, square=False)
    if driver is None:
        # PyTorch's default is gelsy, but on CUDA, whose path has only gels.
        driver = "gels" if A.device.type == "cuda" else "gelsy"
    if driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    m, n = A._shape[-2], A._shape[-1]
    if Bm._shape[-2] != m:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)")
    U, S, Vh = _run("_linalg_svd", A, False, True, None)
    if rcond is None or rcond < 0:
        rcond = _EPS[S._dtype.name] * max(m, n)
    smax = S.amax(-1, keepdim=True) if S._shape[-1] else ops.zeros_like(S.sum(-1, keepdim=True))
    keep = smax * rcond < S
    # Zero the reciprocals of the dropped values without an inf that a gradient could meet.
    inv = ops.where(keep, 1 / ops.where(keep, S, 1.0), 0.0).to(A._dtype)
    X = _mh(Vh) @ (inv.unsqueeze(-1) * (_mh(U) @ Bm))
    rank = keep.sum(-1)
    # An empty field stays in the graph (a slice of S), as a differentiable output should.
    empty = S.reshape(-1)[:0]
    residuals = empty
    if driver != "gelsy" and m > n and bool((rank == n).all()):
        residuals = ((A @ X - Bm).abs() ** 2).sum(-2)
    if driver == "gels":
        rank = ops.empty(0, dtype=rank._dtype, device=A.device)
    sv = S if driver in ("gelsd", "gelss") else empty
    return rt.linalg_lstsq(X.squeeze(-1) if vector else X, residuals, rank, sv)


def _mh(t: Tensor) -> Tensor:
    t = t.transpose(-2, -1)
    return t.conj() if t._dtype.is_complex else t


#: Machine epsilon of the real dtypes singular values come in.
_EPS = {"float32": 2.0**-23, "float64": 2.0**-52}


def _tolerance(S: Tensor, atol: Any, rtol: Any, m: int, n: int) -> Any:
    """PyTorch's ``max(atol, rtol * S.max)``: ``rtol`` defaults to ``eps * max(m, n)`` unless
    a positive ``atol`` is given."""
    if rtol is None:
        eps = _EPS[S._dtype.name]
        rtol = eps * max(m, n) if atol is None or atol <= 0 else 0.0
    atol = 0.0 if atol is None else atol
    smax = S.amax(-1, keepdim=True) if S._shape[-1] else ops.zeros_like(S.sum(-1, keepdim=True))
    return ops.clamp(smax * rtol, min=atol)


@_composite
def linalg_matrix_rank(
    A: Tensor,
    atol: float | None = None,
    rtol: float | None = None,
    hermitian: bool = False,
) -> Tensor:
    if A.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    d = A._dtype
    if not (d.is_floating_point or d.is_complex) or d.itemsize == 2:
        raise RuntimeError("This function doesn't handle types other than float and double")
    with grad_mode.no_grad():
        if hermitian:
            check_float_matrix("torch.linalg.matrix_rank", A)
            S = _run("_linalg_eigh", A, "L", False)[0].abs()
        else:
            S = _run("_linalg_svd", A, False, False, None)[1]
        tol = _tolerance(S, atol, rtol, A._shape[-2], A._shape[-1])
        return (tol < S).sum(-1)


# ------------------------------------------------------------------ norms and powers
def _check_dtype_arg(fn: str, dtype: Any) -> None:
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"{fn}: dtype should be floating point or complex, but got {torch_name(dtype)}"
        )


@_composite
def linalg_matrix_norm(
    A: Tensor,
    ord: Any = "fro",
    dim: Any = (-2, -1),
    keepdim: bool = False,
    dtype: Any = None,
) -> Tensor:
    fn = "linalg.matrix_norm"
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    d = A._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(
            f"{fn}: Expected a floating point or complex tensor as input. Got {torch_name(d)}"
        )
    _check_dtype_arg(fn, dtype)
    if len(dim) != 2:
        raise RuntimeError(f"{fn}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = (_wrap_dim(x, A.ndim) for x in dim)
    if d0 == d1:
        raise RuntimeError(f"{fn}: dims must be different. Got ({dim[0]}, {dim[1]})")
    if isinstance(ord, str):
        if ord == "fro":
            return ops.vector_norm(A, 2.0, (d0, d1), keepdim, dtype=dtype)
        if ord != "nuc":
            raise RuntimeError(f"{fn}: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{fn}: Order {ord} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    if ord in ("nuc", 2, -2):
        S = linalg_svdvals(A.movedim((d0, d1), (-2, -1)))
        if ord == "nuc":
            r = S.sum(-1)
        elif S._shape[-1] == 0:
            r = S.sum(-1)  # an empty matrix: 0, as PyTorch gives
        else:
            r = S.amax(-1) if ord == 2 else S.amin(-1)
        if keepdim:
            for x in sorted((d0, d1)):
                r = r.unsqueeze(x)
        return r
    # 1-norms sum each column (over d0), inf-norms each row (over d1), then take the max/min.
    over, then = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = A.abs().sum(over, keepdim=True)
    if sums._shape[then] == 0:
        r = sums.sum(then, keepdim=True)
    else:
        r = sums.amax(then, keepdim=True) if ord > 0 else sums.amin(then, keepdim=True)
    return r if keepdim else r.squeeze((d0, d1))


def _square_matrix(fn: str, A: Tensor) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{fn}: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )


@_composite
def linalg_matrix_power(A: Tensor, n: int) -> Tensor:
    _square_matrix("linalg.matrix_power", A)
    if not -(2**63) <= n < 2**63:
        raise ValueError("Overflow when unpacking long long")
    if n == 0:
        # A copy of A overwritten with identities (PyTorch's: the result is A's function,
        # with a zero gradient).
        eye = ops.eye(A._shape[-1], dtype=A._dtype, device=A._device)
        return A.clone(memory_format=contiguous_format).copy_(eye.expand(A._shape))
    if n < 0:
        A = _run("linalg_inv", A)
        n = -n
    if n == 1:
        return A.clone()
    # Binary powering: ceil(log2 n) squarings and as many products at most.
    result: Tensor | None = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    assert result is not None
    return result


@_composite
def matrix_power(self: Tensor, n: int) -> Tensor:
    return linalg_matrix_power(self, n)


# ------------------------------------------------------------------ products
@_composite
def linalg_diagonal(A: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return A.diagonal(offset, dim1, dim2)


_MD_NAMES = {"float32": "float", "float64": "double", "complex64": "c10::complex<float>"}


def _md_name(d: dt.dtype) -> str:
    return _MD_NAMES.get(d.name, "c10::complex<double>" if d is dt.complex128 else d.name)


@_composite
def linalg_multi_dot(tensors: Any) -> Tensor:
    ts = list(tensors)
    n = len(ts)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = ts[0], ts[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if ts[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {ts[i].ndim}D")
    for i, t in enumerate(ts[1:], 1):
        if t._dtype is not first._dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{_md_name(first._dtype)} and tensor {i} {_md_name(t._dtype)}"
            )
    mats = list(ts)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        if mats[i]._shape[1] != mats[i + 1]._shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(ts[i]._shape)} and "
                f"{list(ts[i + 1]._shape)} cannot be multiplied"
            )
    r = _chain(mats, _chain_order([m._shape[0] for m in mats] + [mats[-1]._shape[1]]), 0, n - 1)
    if first.ndim == 1 and last.ndim == 1:
        return r.reshape(())
    if first.ndim == 1:
        return r.squeeze(0)
    if last.ndim == 1:
        return r.squeeze(-1)
    return r


def _chain_order(p: list[int]) -> list[list[int]]:
    """The split points of the cheapest order of a chain of matrices with sizes
    ``p[i] x p[i+1]`` (the textbook dynamic programme)."""
    n = len(p) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(mats: list[Tensor], split: list[list[int]], i: int, j: int) -> Tensor:
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain(mats, split, i, k).mm(_chain(mats, split, k + 1, j))


@_composite
def linalg_vecdot(x: Tensor, y: Tensor, dim: int = -1) -> Tensor:
    for t in (x, y):
        if not (t._dtype.is_floating_point or t._dtype.is_complex):
            raise RuntimeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. "
                f"Got {torch_name(t._dtype)}"
            )
    if x._dtype is not y._dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{torch_name(x._dtype)} and y of type {torch_name(y._dtype)} instead"
        )
    return ((x.conj() if x._dtype.is_complex else x) * y).sum(dim)


_TD_TYPES = "int or tuple[list[int], list[int]] or list[list[int]] containing two lists"


def _tensordot_dims(a: Tensor, b: Tensor, dims: Any) -> tuple[list[int], list[int]]:
    if isinstance(dims, Tensor):
        dims = dims.item() if dims.ndim == 0 else dims.tolist()
    if isinstance(dims, bool) or not isinstance(dims, (int, list, tuple)):
        raise RuntimeError(f"tensordot expects dims to be {_TD_TYPES}, but got dims={dims}")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(a.ndim - dims, a.ndim)), list(range(dims))
    if len(dims) != 2:
        raise RuntimeError(f"tensordot expects dims to be {_TD_TYPES}, but got dims={dims}")
    da, db = ([x] if isinstance(x, int) else list(x) for x in dims)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return [_wrap_dim(x, a.ndim) for x in da], [_wrap_dim(x, b.ndim) for x in db]


@_composite
def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    da, db = _tensordot_dims(a, b, dims)
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    for x, y in zip(da, db, strict=True):
        # A contracted dim of size 1 on one side broadcasts: the other side is summed over
        # it first (PyTorch's rule).
        # (in the operands' dtype: an integer sum would widen to int64)
        if a._shape[x] != b._shape[y] and a._shape[x] == 1:
            b = b.sum(y, keepdim=True, dtype=b._dtype)
        elif a._shape[x] != b._shape[y] and b._shape[y] == 1:
            a = a.sum(x, keepdim=True, dtype=a._dtype)
        elif a._shape[x] != b._shape[y]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a._shape[x]} in dim "
                f"{x} and second has size {b._shape[y]} in dim {y}"
            )
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [i for i in range(b.ndim) if i not in db]
    k = math.prod(a._shape[x] for x in da)
    sa = [a._shape[i] for i in free_a]
    sb = [b._shape[i] for i in free_b]
    left = a.permute(free_a + da).reshape(math.prod(sa), k)
    right = b.permute(db + free_b).reshape(k, math.prod(sb))
    return left.mm(right).reshape(tuple(sa + sb))


@_composite
def trace(self: Tensor) -> Tensor:
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    if self._dtype is dt.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return named_as(self.diagonal().sum(), "TraceBackward0")


@_composite
def kron(self: Tensor, other: Tensor) -> Tensor:
    n = max(self.ndim, other.ndim)
    sa = (1,) * (n - self.ndim) + self._shape
    sb = (1,) * (n - other.ndim) + other._shape
    a = self.reshape(tuple(x for s in sa for x in (s, 1)))
    b = other.reshape(tuple(x for s in sb for x in (1, s)))
    return (a * b).reshape(tuple(x * y for x, y in zip(sa, sb, strict=True)))


@_composite
def cross(self: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a "
            "future release.",
            UserWarning,
            stacklevel=4,
        )
        dim = next((i for i, s in enumerate(self._shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _run("linalg_cross", self, other, dim)


# ------------------------------------------------------------------ top-level aliases
@_composite
def det(self: Tensor) -> Tensor:
    return _run("linalg_det", self)


@_composite
def inverse(self: Tensor) -> Tensor:
    return _run("linalg_inv", self)


@_composite
def slogdet(self: Tensor) -> Any:
    return rt.slogdet(*_run("linalg_slogdet", self))


@_composite
def logdet(self: Tensor) -> Tensor:
    sign, logabs = _run("linalg_slogdet", self)
    if self._dtype.is_complex:
        return sign.log() + logabs
    return ops.where(sign == -1, math.nan, logabs)


@_composite
def pinverse(self: Tensor, rcond: float = 1e-15) -> Tensor:
    return _run("linalg_pinv", self, None, rcond, False)


# ------------------------------------------------------------------ triangular systems
def _solve_triangular(A: Tensor, B: Tensor, upper: bool, unitriangular: bool = False) -> Tensor:
    return _run("linalg_solve_triangular", A, B, upper, True, unitriangular)


@_composite
def cholesky_solve(self: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {self.ndim} dimensions instead"
        )
    check_float_matrix("cholesky_solve", input2, kernel="cholesky_solve", any_dtype=True)
    if not _wants_grad(input2):
        return _cholesky_solve(self, input2, upper)
    # PyTorch's gradients: gB = cholesky_solve(g, L) and, for the factor, -(C L) (upper:
    # -(U C)) with C = gB X^H + X gB^H and X the result: gB and X come from the triangle the
    # solves read, the factor multiplying C is the whole input (the other triangle of a
    # non-triangular factor gets a gradient too), and its double backward differentiates
    # that formula the same way. Those are the derivatives, of every order, of solve(M, B)
    # with M = A_t + (P - P.detach()): the value A_t = T T^H of the triangle T, the
    # derivatives of P = L L^H (U^H U) of the whole factor. The value stays the triangular
    # solves'.
    x = _cholesky_solve(self.detach(), input2.detach(), upper)
    t = (input2.triu() if upper else input2.tril()).detach()
    p = _mh(input2) @ input2 if upper else input2 @ _mh(input2)
    a_t = _mh(t) @ t if upper else t @ _mh(t)
    full = _run("linalg_solve", a_t + (p - p.detach()), self, True)
    return x + (full - full.detach())


def _cholesky_solve(b: Tensor, factor: Tensor, upper: bool) -> Tensor:
    # A = L L^H (or U^H U): two triangular solves.
    first = _mh(factor) if upper else factor
    y = _solve_triangular(first, b, upper=False)
    return _solve_triangular(_mh(first), y, upper=True)


@_composite
def cholesky_inverse(self: Tensor, upper: bool = False) -> Tensor:
    check_float_matrix("cholesky_inverse", self, kernel="cholesky_inverse", any_dtype=True)
    eye = ops.eye(self._shape[-1], dtype=self._dtype, device=self.device)
    return cholesky_solve(eye.expand(self._shape), self, upper)


_WARNED_TRIANGULAR_SOLVE: list[bool] = []


@_composite
def triangular_solve(
    self: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
) -> Any:
    if not _WARNED_TRIANGULAR_SOLVE:  # (once per process, as PyTorch's TORCH_WARN_ONCE)
        _WARNED_TRIANGULAR_SOLVE.append(True)
        warn_caller(
            # (PyTorch's wording, its missing space after solve_triangular included)
            "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangular"
            "and will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular "
            "has its arguments reversed and does not return a copy of one of the inputs.\n"
            "X = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
            "X = torch.linalg.solve_triangular(A, B).",
        )
    check_float_matrix("triangular_solve", A, kernel="triangular_solve", any_dtype=True)
    # The solver reads one triangle of A (its gradient too): that of A^T when transposed.
    T = A.mT if transpose else A
    x = _solve_triangular(T, self, upper != transpose, unitriangular)
    return rt.triangular_solve(x, A.clone())


# ------------------------------------------------------------------ batched products, distances
def _same_dtypes(fn: str, *ts: Tensor) -> None:
    for t in ts[1:]:
        if t._dtype is not ts[0]._dtype:
            raise RuntimeError(
                f"expected scalar type {torch_name(ts[0]._dtype)} but found {torch_name(t._dtype)}"
            )


@_composite
def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _same_dtypes("baddbmm", self, batch1, batch2)
    beta = blas_scale(self._dtype, beta, "beta")
    alpha = blas_scale(self._dtype, alpha, "alpha")
    prod = ops.bmm(batch1, batch2)
    base = self.expand(prod._shape)
    if beta == 0:  # ``self`` is ignored, NaN and inf included (as in PyTorch)
        return ops.mul(prod, alpha)
    return ops.add(base if beta == 1 else ops.mul(base, beta), prod, alpha=alpha)


@_composite
def addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Any = 1, alpha: Any = 1) -> Tensor:
    _same_dtypes("addbmm", self, batch1, batch2)
    beta = blas_scale(self._dtype, beta, "beta")
    alpha = blas_scale(self._dtype, alpha, "alpha")
    prod = ops.bmm(batch1, batch2).sum(0)
    base = self.expand(prod._shape)
    if beta == 0:
        return ops.mul(prod, alpha)
    return ops.add(base if beta == 1 else ops.mul(base, beta), prod, alpha=alpha)


_CDIST_MODES = (
    None,
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


@_composite
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
        if not x._dtype.is_floating_point:
            raise RuntimeError(
                f"cdist only supports floating-point dtypes, {name} got: {torch_name(x._dtype)}"
            )
    if x1._shape[-1] != x2._shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._shape[-1]} "
            f"X2: {x2._shape[-1]}"
        )
    if not p >= 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    rows, cols = x1._shape[-2], x2._shape[-2]
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist"
        or (compute_mode != "donot_use_mm_for_euclid_dist" and (rows > 25 or cols > 25))
    )
    if mm:
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b: one matrix product instead of a
        # rows x cols x features difference (PyTorch's choice for more than 25 rows).
        sq1 = (x1 * x1).sum(-1, keepdim=True)
        sq2 = (x2 * x2).sum(-1).unsqueeze(-2)
        d2 = ops.add(sq1 + sq2, ops.matmul(x1, x2.mT), alpha=-2)
        return named_as(d2.clamp_min(1e-30).sqrt(), "ViewBackward0")  # (PyTorch's last step)
    out = ops.vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), float(p), [-1])
    return named_as(out, "CdistBackward0")


@_composite
def pdist(self: Tensor, p: float = 2.0) -> Tensor:
    if self.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {self.ndim}D")
    if not self._dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = self._shape[0]
    # The pairs i < j in row-major order: the upper triangle of cdist(self, self), flattened.
    pairs = ops.triu_indices(n, n, 1, device=self._device)
    diff = self.index_select(0, pairs[0]) - self.index_select(0, pairs[1])
    return named_as(ops.vector_norm(diff, float(p), [-1]), "PdistBackward0")


def _clamp_norm(n: Tensor, eps: float) -> Tensor:
    if not n.requires_grad:
        return n.clamp_min(eps)
    return n.detach().clamp_min(eps) + (n - n.detach())


@_composite
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    common = dt.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {torch_name(common)}"
        )
    x1, x2 = ops.broadcast_tensors(x1.to(common), x2.to(common))
    # PyTorch divides each by its norm before the dot product (results within [-1, 1]).
    # The clamp is invisible to autograd (PyTorch clamps in place under no_grad): a norm
    # below eps still passes its gradient on. (n - n.detach() is exactly 0: the forward
    # values are the clamped norms, bit for bit.)
    n1, n2 = (_clamp_norm(ops.vector_norm(x, 2.0, [dim], True), eps) for x in (x1, x2))
    return ((x1 / n1) * (x2 / n2)).sum(dim)
