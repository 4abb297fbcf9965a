"""Whole-tensor comparisons that answer with a Python ``bool``: :func:`allclose` and
:func:`equal` (functions and ``Tensor`` methods). They are not table operators: their answer
is a Python value, computed from the operators :func:`tensorcore.isclose` and ``eq``."""

from __future__ import annotations

from ._tensor import Tensor
from .ops import functions as ops
from .ops._validate import type_name

__all__ = ["allclose", "equal"]


def _check(fn: str, name: str, value: object, position: int) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
            f"{type_name(value)}"
        )


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element of ``input`` is close to ``other``'s (see
    :func:`tensorcore.isclose`): ``|input - other| <= atol + rtol * |other|``, broadcast.

    Both must have the same dtype; shapes that do not broadcast raise ``RuntimeError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.allclose(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 2.0 + 1e-9]))
    True
    >>> tc.tensor([1.0, float("nan")]).allclose(tc.tensor([1.0, float("nan")]), equal_nan=True)
    True
    """
    _check("allclose", "input", input, 1)
    _check("allclose", "other", other, 2)
    return bool(ops.isclose(input, other, rtol, atol, equal_nan).all().item())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether ``input`` and ``other`` have the same shape and equal elements (compared in
    their promoted dtype; tensors of different shapes are not equal).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.equal(tc.tensor([1, 2]), tc.tensor([1.0, 2.0]))
    True
    >>> tc.tensor([1, 2]).equal(tc.tensor([[1, 2]]))
    False
    """
    _check("equal", "input", input, 1)
    _check("equal", "other", other, 2)
    if input.shape != other.shape:
        return False
    return bool(ops.eq(input, other).all().item())
