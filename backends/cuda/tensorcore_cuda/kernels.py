"""What the CUDA backend adds to tensorcore-xp's kernels over CuPy: CuPy's fused kernels where
they beat the library's composition of ufuncs, and CuPy's own special functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorcore_xp.helpers import array_of

__all__ = ["erf", "extra", "solve_triangular"]


def extra(cp: Any) -> dict[str, Callable[..., Any]]:
    """The kernels that replace the library's on CuPy."""
    # One fused kernel instead of three temporaries: the hot path of every sigmoid/MLP.
    sigmoid_k = cp.ElementwiseKernel("T x", "T y", "y = 1 / (1 + exp(-x))", "tensorcore_sigmoid")

    def sigmoid(out: Any, a: Any) -> None:
        if out.dtype.is_complex:
            cp.reciprocal(1 + cp.exp(-array_of(a)), out=array_of(out))
        else:
            sigmoid_k(array_of(a), array_of(out))

    return {"sigmoid": sigmoid}


def erf(cp: Any) -> Callable[..., Any] | None:
    """CuPy's error function (``cupyx.scipy.special.erf``); None where cupyx lacks it, and the
    library computes its own."""
    try:
        from cupyx.scipy.special import erf as cupy_erf
    except ImportError:
        return None
    return cupy_erf


def solve_triangular(cp: Any) -> Callable[..., Any] | None:
    """CuPy's triangular solver (``cupyx.scipy.linalg.solve_triangular``: cuBLAS ``trsm``,
    batched); None where cupyx lacks it, and the library substitutes over the columns."""
    try:
        from cupyx.scipy.linalg import solve_triangular as cupy_solve_triangular
    except ImportError:
        return None
    return cupy_solve_triangular
