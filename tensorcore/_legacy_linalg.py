"""PyTorch's top-level linear algebra from before ``torch.linalg``: ``cholesky`` and ``qr``
still run (with PyTorch's deprecation warning), ``solve``, ``lstsq``, ``eig`` and ``symeig``
were removed and raise PyTorch's ``RuntimeError`` pointing to their ``linalg`` forms. Also
``igamma``/``igammac`` (``special.gammainc``/``gammaincc``), and the methods ``addmm_``,
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

from ._tensor import Tensor
from .ops import functions as ops

__all__ = ["cholesky", "eig", "igamma", "igammac", "lstsq", "qr", "solve", "symeig"]

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
