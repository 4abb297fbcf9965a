"""PyTorch's private assertion helpers that public model code calls: ``torch._assert``
(torchvision's ViT and detection models), ``torch._check`` and its variants (Hugging Face
and ``torch.export``-friendly code), ``torch._assert_async``. They run eagerly here, with
PyTorch's exception types and messages.

Examples
--------
>>> import tensorcore as tc
>>> tc._assert(tc.ones(2).dim() == 1, "expected a vector")
>>> tc._check(2 > 1, lambda: "never shown")
>>> tc._check_value(False, lambda: "bad value")
Traceback (most recent call last):
    ...
ValueError: bad value
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from ._tensor import Tensor

__all__ = [
    "_assert",
    "_assert_async",
    "_check",
    "_check_index",
    "_check_not_implemented",
    "_check_tensor_all",
    "_check_tensor_all_with",
    "_check_type",
    "_check_value",
    "_check_with",
]

_DEFAULT_MESSAGE = (
    "Expected cond to be True, but got False. (Could this error message be improved? If so, "
    "please report an enhancement request to PyTorch.)"
)


def _assert(condition: Any, message: Any) -> None:
    """Raises ``AssertionError(message)`` when ``condition`` is false, also under
    ``python -O`` (unlike the ``assert`` statement). A tensor condition must have one element.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._assert(tc.tensor(0) == 1, "not one")
    Traceback (most recent call last):
        ...
    AssertionError: not one
    """
    if not condition:
        raise AssertionError(message)


def _check_with(error_type: type, cond: Any, message: Callable[[], Any] | None = None) -> None:
    """Raises ``error_type(message())`` when the Python bool ``cond`` is False.

    ``message`` is a callable, so that the text is built only on failure; without it the
    message is PyTorch's generic one. A tensor ``cond`` is refused (use
    :func:`_check_tensor_all`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_with(KeyError, 3 in {1: 2}, lambda: "no key 3")
    Traceback (most recent call last):
        ...
    KeyError: 'no key 3'
    """
    if not isinstance(cond, builtins.bool):
        if isinstance(cond, Tensor):
            raise TypeError(
                "cond must be a bool, but got a Tensor. For tensor conditions, use "
                "torch._check_tensor_all() to assert that all elements are true."
            )
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if not (isinstance(error_type, type) and issubclass(error_type, Exception)) or issubclass(
        error_type, Warning
    ):
        raise AssertionError(
            f"error_type must be a subclass of Exception but not Warning, got {error_type}"
        )
    if message is None:
        raise error_type(_DEFAULT_MESSAGE)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error_type(str(message()))


def _check(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_with` raising ``RuntimeError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check(False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    RuntimeError: Expected cond to be True, but got False. ...
    """
    _check_with(RuntimeError, cond, message)


def _check_index(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_with` raising ``IndexError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_index(5 < 3, lambda: "index 5 is out of bounds")
    Traceback (most recent call last):
        ...
    IndexError: index 5 is out of bounds
    """
    _check_with(IndexError, cond, message)


def _check_value(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_with` raising ``ValueError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_value(True)
    """
    _check_with(ValueError, cond, message)


def _check_type(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_with` raising ``TypeError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_type(isinstance(1.5, int), lambda: "expected an int")
    Traceback (most recent call last):
        ...
    TypeError: expected an int
    """
    _check_with(TypeError, cond, message)


def _check_not_implemented(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_with` raising ``NotImplementedError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_not_implemented(True)
    """
    _check_with(NotImplementedError, cond, message)


def _check_tensor_all_with(
    error_type: type, cond: Any, message: Callable[[], Any] | None = None
) -> None:
    """Raises ``error_type`` unless every element of the bool tensor ``cond`` is True.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_tensor_all_with(ValueError, tc.tensor([1, 2]) > 0)
    """
    if not isinstance(cond, Tensor):
        raise TypeError(f"cond must be a tensor, but got {type(cond)}")
    if cond.dtype != dt.bool_:
        raise TypeError(f"cond tensor must have dtype torch.bool, but got {cond.dtype}")
    _check_with(error_type, builtins.bool(cond.all().item()), message)


def _check_tensor_all(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """:func:`_check_tensor_all_with` raising ``RuntimeError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._check_tensor_all(tc.tensor([True, False]), lambda: "some were False")
    Traceback (most recent call last):
        ...
    RuntimeError: some were False
    """
    _check_tensor_all_with(RuntimeError, cond, message)


def _assert_async(input: Any, assert_msg: str | None = None) -> None:
    """Raises ``RuntimeError`` unless the one-element tensor ``input`` is nonzero (PyTorch
    checks it without synchronising the device; here it is checked at once).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc._assert_async(tc.tensor(0.0))
    Traceback (most recent call last):
        ...
    RuntimeError: Expected Tensor with single nonzero value, but got zero
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            "_assert_async(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    n = input.numel()
    if n != 1:
        what = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
    if not input.item():
        raise RuntimeError(assert_msg or "Expected Tensor with single nonzero value, but got zero")
