"""Forward-mode automatic differentiation, as ``torch.autograd.forward_ad``.

Inside a :class:`dual_level`, :func:`make_dual` pairs a tensor (the *primal*) with a
*tangent* of its shape; every differentiable operation on such a dual tensor computes its
result's tangent ``J t`` along with the result, and :func:`unpack_dual` reads it. Tangents
are dropped when the level exits. How the tangents are computed (no forward rule per
operator: each operator's reverse rule gives its Jacobian-vector product) is described in
``tensorcore/autograd/_dual.py`` and in ``docs/concepts.md`` (Autograd).

Examples
--------
>>> import tensorcore as tc
>>> import tensorcore.autograd.forward_ad as fwAD
>>> x = tc.tensor([0.0, 1.0, 2.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, tc.ones(3)).exp()
...     fwAD.unpack_dual(y).tangent  # d/dx exp(x) along the ones
tensor([1.0000, 2.7183, 7.3891])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from .._tensor import Tensor
from ..dispatch import get_op
from ..ops._call import call
from . import _dual, grad_mode

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

_state = grad_mode.dual
F = TypeVar("F", bound=Callable[..., Any])


class UnpackedDualTensor(NamedTuple):
    """Named tuple returned by :func:`unpack_dual`: the ``primal`` (a view of the dual
    tensor without its tangent) and the ``tangent`` (None when there is none).

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> fwAD.unpack_dual(tc.ones(2))
    UnpackedDualTensor(primal=tensor([1., 1.]), tangent=None)
    """

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open a forward-mode AD level and return its number (``0``: levels do not nest).

    :class:`dual_level` calls it on entry; call :func:`exit_dual_level` to close the level.

    Raises
    ------
    RuntimeError
        A level is already open (nested forward AD is not supported, as in PyTorch).

    Examples
    --------
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> fwAD.enter_dual_level()
    0
    >>> fwAD.exit_dual_level()
    """
    if _state.level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _state.level = 0
    _state.tensors = []
    _dual.resume()
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the open forward-mode AD level (``level``, when given, must be its number);
    every tangent made in it is dropped.

    Raises
    ------
    RuntimeError
        No level is open, or ``level`` is not the open one.

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> level = fwAD.enter_dual_level()
    >>> d = fwAD.make_dual(tc.ones(2), tc.ones(2))
    >>> fwAD.exit_dual_level(level=level)
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """
    if _state.level is None:
        raise RuntimeError(
            "Trying to exit a forward AD level but no level is open; call enter_dual_level() first"
        )
    if level is not None and level != _state.level:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    _dual.suspend()
    _dual.drop_all()
    _state.level = None


class dual_level:
    """Context manager (and decorator) for a forward-mode AD level: tangents made with
    :func:`make_dual` inside it propagate through every operation and are dropped on exit.
    ``with dual_level() as level:`` binds the level's number.

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(tc.tensor([3.0]), tc.tensor([1.0]))
    ...     fwAD.unpack_dual(d * d).tangent
    tensor([6.])
    >>> fwAD.unpack_dual(d).tangent is None
    True
    """

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: object) -> None:
        exit_dual_level()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]


def _check_level(level: int | None, what: str) -> None:
    if _state.level is None:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
        )
    if level is not None and level != _state.level:
        raise RuntimeError(f"Invalid level given to {what}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A dual tensor: a view of ``tensor`` (sharing its storage) carrying ``tangent``.

    The tangent must have the primal's shape, dtype and device (PyTorch 2.13 accepts another
    dtype or device and fails later; tensorcore refuses them here). It is used as it is when
    it is laid out in memory as the primal (so later changes to it show), else copied into
    the primal's layout. The result's ``requires_grad`` is the primal's: reverse mode still
    differentiates the primal through the dual tensor.

    Parameters
    ----------
    tensor : Tensor
        The primal, floating point or complex.
    tangent : Tensor
        The direction along which to differentiate.
    level : int, optional
        The level (the open one; only one can be open).

    Raises
    ------
    RuntimeError
        No level is open, ``level`` is not the open one, the shapes or devices differ, or
        ``tensor`` already has a tangent.
    ValueError
        A dtype that is not floating point or complex, or two different dtypes.

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(tc.tensor([1.0, 2.0]), tc.tensor([1.0, 0.0]))
    ...     d
    tensor([1., 2.], tangent=tensor([1., 0.]))
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"make_dual(): argument 'tensor' must be Tensor, not {_name(tensor)}")
    if not isinstance(tangent, Tensor):
        raise TypeError(f"make_dual(): argument 'tangent' must be Tensor, not {_name(tangent)}")
    _check_level(level, "_make_dual")
    if not (tensor._dtype.is_floating_point or tensor._dtype.is_complex):
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not (tangent._dtype.is_floating_point or tangent._dtype.is_complex):
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent._shape != tensor._shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor._shape)} "
            f"while the given forward gradient is of size {list(tangent._shape)}."
        )
    if tangent._dtype is not tensor._dtype:
        raise ValueError(
            f"Expected tangent to have the primal's dtype {tensor.dtype}, but got: {tangent.dtype}"
        )
    if tangent._device != tensor._device:
        raise RuntimeError(
            f"Expected tangent to be on the primal's device {tensor.device}, but got: "
            f"{tangent.device}"
        )
    if _dual.tangent(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at "
            f"the same level {_state.level} is not supported."
        )
    res = _primal_view(tensor)
    _dual.attach(res, _dual.same_meta(tangent, res))
    return res


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal and the tangent of a dual tensor, as :class:`UnpackedDualTensor`.

    Inside a level the primal is a view of ``tensor`` (it shares the storage, and keeps
    ``tensor``'s ``requires_grad`` and history) without the tangent; outside any level it is
    ``tensor`` itself. The tangent is None when ``tensor`` has none at ``level`` (the open
    level by default; None too outside any level).

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     d = fwAD.make_dual(tc.tensor([2.0]), tc.tensor([1.0]))
    ...     primal, tangent = fwAD.unpack_dual(d ** 3)
    ...     primal, tangent
    (tensor([8.]), tensor([12.]))
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual(): argument 'tensor' must be Tensor, not {_name(tensor)}")
    if _state.level is None or not _state.on:
        return UnpackedDualTensor(tensor, None)
    tan = _dual.tangent(tensor) if level is None or level == _state.level else None
    return UnpackedDualTensor(_primal_view(tensor), tan)


def _primal_view(t: Tensor) -> Tensor:
    """An alias of ``t`` without its tangent (recorded where ``t`` requires grad)."""
    _dual.suspend()
    ag = t._ag
    fw_only = t._requires_grad and ag is not None and ag.fw_only
    if fw_only:
        t._requires_grad = False
    try:
        return call(get_op("alias"), (t,))
    finally:
        if fw_only:
            t._requires_grad = True
        _dual.resume()


def _name(x: Any) -> str:
    return type(x).__name__
