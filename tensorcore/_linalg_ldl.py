"""``tensorcore.linalg``'s LDL family: ``ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``,
over the operators ``linalg_ldl_factor_ex`` and ``linalg_ldl_solve`` (re-exported by
``tensorcore/linalg.py``).

The factorization is LAPACK's Bunch-Kaufman ``sytrf`` (``hetrf`` for complex Hermitian
matrices), in LAPACK's compact format, as PyTorch returns it; see
``backends/xp/tensorcore_xp/kernels/linalg_ldl.py``. As in PyTorch, the results join the
autograd graph but have no derivative: a backward pass through them raises.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as dt
from . import return_types as rt
from ._tensor import Tensor
from .dispatch import get_op
from .ops import functions as ops
from .ops._call import call
from .ops._validate import checked

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]


@checked(
    "ldl_factor_ex(Tensor input, *, bool hermitian=False, bool check_errors=False, "
    "Any out=None) -> Any"
)
def ldl_factor_ex(
    input: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """``(LD, pivots, info)``: the LDL factorization ``A = L D L^T`` of each symmetric matrix
    of ``input`` (``(*, n, n)``, read from its lower triangle; ``L D L^H`` for a complex
    Hermitian matrix when ``hermitian``), in LAPACK's ``sytrf`` format as PyTorch returns it.

    ``LD`` holds ``L`` (unit lower triangular, diagonal not stored) below the diagonal and
    the block diagonal ``D`` (1x1 and 2x2 blocks, Bunch-Kaufman pivoting) on and next to
    it; its upper triangle is zero. ``pivots`` (int32, ``(*, n)``) are LAPACK's 1-based
    interchanges: ``pivots[k] > 0`` is a 1x1 block at ``k`` after swapping rows and columns
    ``k`` and ``pivots[k]``; ``pivots[k] == pivots[k + 1] < 0`` a 2x2 block after swapping
    ``k + 1`` and ``-pivots[k]``. ``info`` (int32, one per matrix) is 0, or the 1-based
    index of a zero diagonal element of ``D`` (the factorization is complete all the same,
    but :func:`ldl_solve` would divide by zero); ``check_errors=True`` raises for one.
    For real matrices ``hermitian`` makes no difference. The matrices are factored on the
    host, by SciPy's LAPACK where it is installed.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots, info = tc.linalg.ldl_factor_ex(A)
    >>> LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    >>> pivots, info
    (tensor([1, 2], dtype=tensorcore.int32), tensor(0, dtype=tensorcore.int32))
    """
    return call(get_op("linalg_ldl_factor_ex"), (input, hermitian, check_errors), out)


@checked("ldl_factor(Tensor input, *, bool hermitian=False, Any out=None) -> Any")
def ldl_factor(input: Tensor, *, hermitian: bool = False, out: Any = None) -> Any:
    """``(LD, pivots)``: :func:`ldl_factor_ex` that raises for a matrix whose ``D`` has a
    zero diagonal element.

    Examples
    --------
    >>> import tensorcore as tc
    >>> LD, pivots = tc.linalg.ldl_factor(tc.tensor([[0.0, 1.0], [1.0, 0.0]]))
    >>> pivots  # one 2x2 block
    tensor([-2, -2], dtype=tensorcore.int32)
    """
    outs = None
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("argument 'out' must be a tuple of 2 Tensors")
        info = ops.empty(0, dtype=dt.int32, device=input.device)
        outs = (out[0], out[1], info)
    try:
        LD, pivots, _ = call(get_op("linalg_ldl_factor_ex"), (input, hermitian, True), outs)
    except RuntimeError as exc:
        text = str(exc)
        if "torch.linalg.ldl_factor_ex:" not in text:
            raise
        raise type(exc)(
            text.replace("torch.linalg.ldl_factor_ex:", "torch.linalg.ldl_factor:", 1)
        ) from None
    return rt.linalg_ldl_factor(LD, pivots)


@checked(
    "ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, "
    "Tensor? out=None) -> Tensor"
)
def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Tensor | None = None
) -> Tensor:
    """The solution ``X`` of ``A X = B`` given :func:`ldl_factor`'s ``(LD, pivots)`` of
    ``A`` (``hermitian`` as given to the factorization). ``B`` is ``(*, n, k)``; the batch
    dims of ``LD`` and ``B`` broadcast, and ``pivots`` has ``LD``'s shape without its last
    dim. The solve runs on ``LD``'s device.

    Examples
    --------
    >>> import tensorcore as tc
    >>> A = tc.tensor([[4.0, 2.0], [2.0, 3.0]])
    >>> LD, pivots = tc.linalg.ldl_factor(A)
    >>> tc.linalg.ldl_solve(LD, pivots, tc.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    return call(get_op("linalg_ldl_solve"), (LD, pivots, B, hermitian), out)
