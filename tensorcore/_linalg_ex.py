"""``tensorcore.linalg``'s ``*_ex`` forms that report failures in an ``info`` tensor instead
of raising (``inv_ex``, ``solve_ex``), and ``householder_product``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from . import return_types as rt
from ._tensor import Tensor
from .ops import functions as ops
from .ops._out import write_out
from .ops._validate import checked

__all__ = ["householder_product", "inv_ex", "solve_ex"]


def _per_matrix(
    fn: Callable[[Tensor], Tensor], A: Tensor, out_shape: tuple[int, ...], pattern: str
) -> tuple[Tensor, Tensor]:
    """``fn`` of each matrix of the batch alone: NaN results and a nonzero ``info`` (the
    1-based index the error names, else 1) for those that fail."""
    from .linalg import LinAlgError
    from .ops.factories import tensor

    batch = tuple(A.shape[:-2])
    n = A.shape[-1]
    flat = A.reshape(-1, n, n)
    results: list[Tensor | None] = []
    codes: list[int] = []
    for m in flat.unbind(0):
        try:
            results.append(fn(m))
            codes.append(0)
        except LinAlgError as exc:
            found = re.search(pattern, str(exc))
            codes.append(int(found.group(1)) if found else 1)
            results.append(None)
    shape = out_shape[len(batch) :]
    filled = [
        r if r is not None else ops.full(shape, float("nan"), dtype=A.dtype, device=A.device)
        for r in results
    ]
    info = tensor(codes, dtype=dt.int32, device=A.device).reshape(batch)
    return ops.stack(filled).reshape(out_shape), info


@checked("inv_ex(Tensor A, *, bool check_errors=False, Any out=None) -> Any")
def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """``(inverse, info)``: :func:`tensorcore.linalg.inv` without raising for a singular
    matrix. ``info`` (int32, one per matrix) is 0 where the inversion succeeded, else the
    (1-based) index of the zero pivot; the inverse is NaN there. ``check_errors=True``
    raises as :func:`~tensorcore.linalg.inv`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> inverse, info = tc.linalg.inv_ex(tc.stack([tc.eye(2) * 2, tc.zeros(2, 2)]))
    >>> info
    tensor([0, 1], dtype=tensorcore.int32)
    >>> inverse[0]
    tensor([[0.5000, 0.0000],
            [0.0000, 0.5000]])
    """
    res = _inv_ex(A, check_errors)
    return res if out is None else write_out("linalg_inv_ex", res, out, exact="exact")


def _inv_ex(A: Tensor, check_errors: bool) -> Any:
    from .linalg import LinAlgError, inv

    try:
        result = inv(A)
        info = ops.zeros(tuple(A.shape[:-2]), dtype=dt.int32, device=A.device)
        return rt.linalg_inv_ex(result, info)
    except LinAlgError:
        if check_errors:
            raise
    result, info = _per_matrix(inv, A, tuple(A.shape), r"diagonal element (\d+)")
    return rt.linalg_inv_ex(result, info)


@checked(
    "solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, Any out=None) -> Any"
)
def solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """``(result, info)``: :func:`tensorcore.linalg.solve` without raising for a singular
    ``A``; ``info`` (int32, one per matrix of ``A``'s batch) is nonzero there and the result
    NaN. ``check_errors=True`` raises as :func:`~tensorcore.linalg.solve`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> result, info = tc.linalg.solve_ex(tc.eye(2) * 2, tc.ones(2))
    >>> result, info
    (tensor([0.5000, 0.5000]), tensor(0, dtype=tensorcore.int32))
    """
    res = _solve_ex(A, B, left, check_errors)
    return res if out is None else write_out("linalg_solve_ex", res, out, exact="exact")


def _solve_ex(A: Tensor, B: Tensor, left: bool, check_errors: bool) -> Any:
    from .linalg import LinAlgError, inv, solve

    try:
        result = solve(A, B, left=left)
        info = ops.zeros(tuple(A.shape[:-2]), dtype=dt.int32, device=A.device)
        return rt.linalg_solve_ex(result, info)
    except LinAlgError:
        if check_errors:
            raise
    # Which matrices are singular (inv_ex's per-matrix check); the others are solved with
    # the singular ones replaced by the identity, whose results become NaN.
    _, info = _per_matrix(inv, A, tuple(A.shape), r"diagonal element (\d+)")
    good = info == 0
    eye = ops.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    safe = ops.where(good.reshape(*good.shape, 1, 1), A, eye)
    result = solve(safe, B, left=left)
    bad = (~good).reshape(*good.shape, *([1] * (result.ndim - good.ndim)))
    result = ops.where(bad, float("nan"), result)
    return rt.linalg_solve_ex(result, info)


@checked("householder_product(Tensor A, Tensor tau, *, Tensor? out=None) -> Tensor")
def householder_product(A: Tensor, tau: Tensor, *, out: Any = None) -> Tensor:
    """The first ``n`` columns of the product ``H_1 ... H_k`` of Householder reflectors
    ``H_i = I - tau_i v_i v_i^H``, ``v_i`` the ``i``-th column of ``A`` (``(*, m, n)``)
    below its diagonal with a 1 on it (LAPACK's ``orgqr``); ``tau`` is ``(*, k)``, ``k <= n``.
    Differentiable (in ``A`` and ``tau``, also where there is no reflector: ``k = 0``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.linalg.householder_product(tc.zeros(3, 2), tc.tensor([2.0, 0.0]))
    tensor([[-1.,  0.],
            [ 0.,  1.],
            [ 0.,  0.]])
    """
    if A.ndim < 2:
        raise RuntimeError(
            "torch.linalg.householder_product: input must have at least 2 dimensions."
        )
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(
            "torch.linalg.householder_product: input.shape[-2] must be greater than or equal "
            "to input.shape[-1]"
        )
    k = tau.shape[-1]
    if k > n:
        raise RuntimeError(
            "torch.linalg.householder_product: input.shape[-1] must be greater than or equal "
            "to tau.shape[-1]"
        )
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            "torch.linalg.householder_product: Expected batch dimensions of tau to be equal "
            f"to input.shape[:-2], but got {list(tau.shape[:-1])}"
        )
    if tau.dtype is not A.dtype:
        raise RuntimeError(
            "torch.linalg.householder_product: tau dtype "
            f"{tau.dtype} does not match input dtype {A.dtype}"
        )
    batch = tuple(A.shape[:-2])
    eye = ops.eye(m, dtype=A.dtype, device=A.device)
    rows = ops.arange(m, device=A.device).reshape(m, 1)
    q = eye.expand(*batch, m, m)
    for i in range(k - 1, -1, -1):
        # v: column i of A below the diagonal, 1 on it, 0 above.
        col = A[..., :, i : i + 1]
        v = ops.where(rows > i, col, ops.where(rows == i, 1.0, 0.0).to(A.dtype))
        t = tau[..., i].reshape(*batch, 1, 1)
        q = q - t * (v @ (v.mH @ q))
    if k == 0:
        # No reflector: the identity's columns, as a fresh tensor that is still a function of
        # A and tau for autograd (their gradient is zero), as PyTorch records it.
        q = q + (A[..., :0, :0].sum() + tau[..., :0].sum())
    q = q[..., :, :n]
    return q if out is None else write_out("", q, out)
