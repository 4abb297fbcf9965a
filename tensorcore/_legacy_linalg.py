"""PyTorch's top-level linear algebra from before ``torch.linalg``: ``cholesky`` and ``qr``
still run (with PyTorch's deprecation warning), ``solve``, ``lstsq``, ``eig`` and ``symeig``
were removed and raise PyTorch's ``RuntimeError`` pointing to their ``linalg`` forms. Also
``igamma``/``igammac`` (``special.gammainc``/``gammaincc``), LAPACK's Householder QR
``geqrf`` with ``orgqr``/``ormqr``, and the methods ``addmm_``,
``hardshrink`` and ``prelu``.

Examples
--------
>>> import tensorcore as tc
>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     tc.cholesky(tc.eye(2) * 4)
tensor([[2., 0.],
        [0., 2.]])
"""

from __future__ import annotations

import warnings
from typing import Any

from . import return_types as rt
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .ops import functions as ops
from .ops._out import write_out

__all__ = [
    "cholesky",
    "eig",
    "geqrf",
    "igamma",
    "igammac",
    "lstsq",
    "orgqr",
    "ormqr",
    "qr",
    "solve",
    "symeig",
]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_MESSAGES = {
    "solve": _REMOVED
    + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has "
    "its arguments reversed and does not return the LU factorization.\n\nTo get the LU "
    "factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
    "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\n"
    "X = torch.linalg.solve(A, B)",
    "lstsq": _REMOVED
    + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
    "reversed arguments and does not return the QR decomposition in the returned tuple "
    "(although it returns other information about the problem).\n\nTo get the QR "
    "decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` "
    "stored the residuals of the solution in the last m - n columns of the returned value "
    "whenever m > n. In torch.linalg.lstsq, the residuals are in the field 'residuals' of the "
    "returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = torch.lstsq(B, A)."
    "solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "eig": _REMOVED
    + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than "
    "real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
    "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
    "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)",
    "symeig": _REMOVED
    + "The default behavior has changed from using the upper triangular portion of the matrix "
    "by default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) "
    "should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
    "and\n\nL, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
    "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
}


def solve(input: Tensor, A: Tensor, *, out: Any = None) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.solve`."""
    raise RuntimeError(_MESSAGES["solve"])


def lstsq(input: Tensor, A: Tensor, *, out: Any = None) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.lstsq`."""
    raise RuntimeError(_MESSAGES["lstsq"])


def eig(input: Tensor, eigenvectors: bool = False, *, out: Any = None) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.eig`."""
    raise RuntimeError(_MESSAGES["eig"])


def symeig(
    input: Tensor, eigenvectors: bool = False, upper: bool = True, *, out: Any = None
) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.eigh`."""
    raise RuntimeError(_MESSAGES["symeig"])


def cholesky(input: Tensor, upper: bool = False, *, out: Any = None) -> Tensor:
    """Deprecated: :func:`tensorcore.linalg.cholesky` (its conjugate transpose with
    ``upper``), with PyTorch's warning."""
    from . import linalg

    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be "
        "replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning,
        stacklevel=2,
    )
    result = linalg.cholesky(input, upper=upper)
    return result if out is None else out.copy_(result)


def qr(input: Tensor, some: bool = True, *, out: Any = None) -> Any:
    """Deprecated: :func:`tensorcore.linalg.qr` (``mode="reduced"`` when ``some``, else
    ``"complete"``), with PyTorch's warning."""
    from . import linalg

    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = "
        "torch.linalg.qr(A, 'reduced' if some else 'complete')",
        UserWarning,
        stacklevel=2,
    )
    return linalg.qr(input, "reduced" if some else "complete")


def igamma(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The regularized lower incomplete gamma function (:func:`tensorcore.special.gammainc`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.igamma(tc.tensor([1.0]), tc.tensor([0.0]))
    tensor([0.])
    """
    from . import special

    return special.gammainc(input, other, out=out)


def igammac(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The regularized upper incomplete gamma function (:func:`tensorcore.special.gammaincc`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.igammac(tc.tensor([1.0]), tc.tensor([0.0]))
    tensor([1.])
    """
    from . import special

    return special.gammaincc(input, other, out=out)


def _addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return self.copy_(ops.addmm(self, mat1, mat2, beta=beta, alpha=alpha))


def _hardshrink(self: Tensor, lambd: float = 0.5) -> Tensor:
    from .nn import functional as F

    return F.hardshrink(self, lambd)


def _prelu(self: Tensor, weight: Tensor) -> Tensor:
    from .nn import functional as F

    return F.prelu(self, weight)


def geqrf(input: Tensor, *, out: Any = None) -> Any:
    """``(a, tau)``: the QR factorization of each matrix of ``input`` (``(*, m, n)``) in
    LAPACK's ``geqrf`` format. ``a`` holds ``R`` on and above its diagonal and, below it,
    the Householder vectors ``v_i`` (their leading 1 not stored); ``tau`` (``(*, min(m, n))``)
    their scales, so that ``Q = H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` (see
    :func:`orgqr`, :func:`ormqr`). As LAPACK, each ``R[i, i]`` has the sign opposite to the
    real part of the entry it replaces, and a column with nothing below its diagonal to
    annihilate gets ``tau = 0``. Not differentiable (as in PyTorch).

    Examples
    --------
    >>> import tensorcore as tc
    >>> a, tau = tc.geqrf(tc.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> a
    tensor([[-5.0000, -2.2000],
            [ 0.5000,  0.4000]])
    >>> tau
    tensor([1.6000, 0.0000])
    """
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            f"torch.geqrf: Expected a floating point or complex tensor as input. Got {input.dtype}"
        )
    m, n = input.shape[-2], input.shape[-1]
    k = min(m, n)
    real = input.dtype.to_real() if input.dtype.is_complex else input.dtype
    with no_grad():
        a = input.clone()
        tau = ops.zeros((*input.shape[:-2], k), dtype=input.dtype, device=input.device)
        for j in range(k):
            alpha = a[..., j, j]
            below = a[..., j + 1 :, j]
            xnorm = ops.vector_norm(below, 2.0, [-1]) if m > j + 1 else alpha.abs() * 0
            # LAPACK's larfg: no reflector where there is nothing to annihilate (a real alpha)
            skip = (xnorm == 0) & (alpha.imag == 0 if input.dtype.is_complex else True)
            norm = ops.sqrt(alpha.abs() ** 2 + xnorm**2).to(real)
            re = alpha.real if input.dtype.is_complex else alpha
            beta = ops.where(re >= 0, -norm, norm)
            beta_c = beta.to(input.dtype)
            t = ops.where(skip, 0.0, (beta_c - alpha) / ops.where(skip, 1.0, beta_c))
            scale = ops.where(skip, 0.0, 1.0 / ops.where(skip, 1.0, alpha - beta_c))
            v = below * scale.unsqueeze(-1)
            a[..., j + 1 :, j] = v
            a[..., j, j] = ops.where(skip, alpha, beta_c)
            tau[..., j] = t
            if j + 1 < n:
                # apply H_j^H = I - conj(tau_j) v v^H (v with its 1) to the columns right of j
                vf = ops.cat([ops.ones_like(alpha).unsqueeze(-1), v], dim=-1).unsqueeze(-1)
                rest = a[..., j:, j + 1 :]
                w = vf.mH @ rest
                a[..., j:, j + 1 :] = rest - t.conj().reshape(*t.shape, 1, 1) * (vf @ w)
    res = rt.geqrf(a, tau)
    return res if out is None else write_out("geqrf", res, out, exact="exact")


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """Alias of :func:`tensorcore.linalg.householder_product`: the explicit ``Q`` (its first
    ``n`` columns) of a :func:`geqrf` factorization.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> Q = tc.orgqr(*tc.geqrf(A))
    >>> (Q @ tc.geqrf(A).a.triu()).allclose(A)
    True
    """
    from .linalg import householder_product

    return householder_product(input, tau)


def ormqr(
    input: Tensor,
    tau: Tensor,
    other: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out: Any = None,
) -> Tensor:
    """``Q @ other`` (``other @ Q`` when not ``left``; ``Q^H`` for ``Q`` when ``transpose``),
    ``Q = H_1 ... H_k`` the full ``m x m`` orthogonal matrix of the Householder reflectors a
    :func:`geqrf` factorization stores in ``input`` (``(*, m, k)`` or wider) and ``tau``
    (``(*, k)``), without forming ``Q``. Differentiable.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[3.0, 1.0], [4.0, 2.0], [0.0, 1.0]])
    >>> a, tau = tc.geqrf(A)
    >>> R = tc.ormqr(a, tau, A, transpose=True)  # Q^T A: R with zeros below
    >>> R.abs().round(decimals=4)
    tensor([[5.0000, 2.2000],
            [0.0000, 1.0770],
            [0.0000, 0.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    m = input.shape[-2]
    side = -2 if left else -1
    if other.shape[side] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    k = tau.shape[-1]
    if k > min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"torch.ormqr: tau.shape[-1] must be less than or equal to "
            f"min(other.shape[{side}], input.shape[-1])"
        )
    rows = ops.arange(m, device=input.device).reshape(m, 1)
    c = other
    # left, no transpose: Q C = H_1 (... (H_k C)); Q^H C applies H_1^H first; on the right
    # the orders swap.
    order = range(k - 1, -1, -1) if left != transpose else range(k)
    for i in order:
        col = input[..., :, i : i + 1]
        v = ops.where(rows > i, col, ops.where(rows == i, 1.0, 0.0).to(input.dtype))
        t = tau[..., i].reshape(*tau.shape[:-1], 1, 1)
        if transpose:
            t = t.conj()
        c = c - t * (v @ (v.mH @ c)) if left else c - t * ((c @ v) @ v.mH)
    return c if out is None else write_out("ormqr", c, out, exact="exact")


def install() -> None:
    """Attach the methods to :class:`Tensor` (``x.cholesky()``, ``x.igamma(y)``...)."""
    for name in __all__:
        fn = globals()[name]
        setattr(Tensor, name, fn)
    Tensor.igamma_ = lambda self, other: self.copy_(igamma(self, other))  # type: ignore[attr-defined]
    Tensor.igammac_ = lambda self, other: self.copy_(igammac(self, other))  # type: ignore[attr-defined]
    Tensor.addmm_ = _addmm_  # type: ignore[attr-defined]
    Tensor.hardshrink = _hardshrink  # type: ignore[attr-defined]
    Tensor.prelu = _prelu  # type: ignore[attr-defined]
    _addmm_.__doc__ = "In-place :func:`addmm`: writes ``beta * self + alpha * mat1 @ mat2``."
    _hardshrink.__doc__ = "``nn.functional.hardshrink(self, lambd)``."
    _prelu.__doc__ = "``nn.functional.prelu(self, weight)``."
