"""Anomaly mode: the backward pass checks each node's gradients for NaN (process-wide, as in
PyTorch)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from .._tensor import Tensor

__all__ = [
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
]


class _State:
    enabled = False
    check_nan = True


state = _State()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.is_anomaly_enabled()
    False
    """
    return state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection, when on, raises at a backward node that returns NaN."""
    return state.check_nan


def _set(mode: bool, check_nan: bool) -> None:
    state.enabled, state.check_nan = mode, check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off, as a function call or a context manager.

    With ``check_nan`` (the default), a backward node whose gradients hold a NaN raises
    ``RuntimeError: Function 'DivBackward0' returned nan values in its 1th output.``

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.zeros(1, requires_grad=True)
    >>> with tc.autograd.set_detect_anomaly(True):
    ...     try:
    ...         (x / x).sum().backward()
    ...     except RuntimeError as e:
    ...         print(e)
    Function 'DivBackward0' returned nan values in its 1th output.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (state.enabled, state.check_nan)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self.prev)


class detect_anomaly:
    """Context manager that turns anomaly detection on (see :class:`set_detect_anomaly`);
    it warns that it slows the program down, as PyTorch's does."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = (state.enabled, state.check_nan)
        self.check_nan = check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(*self.prev)


def check_nan(name: str, grads: Sequence[Any]) -> None:
    """Raise PyTorch's error where one of a node's input gradients holds a NaN."""
    for i, g in enumerate(grads):
        if isinstance(g, Tensor) and g.dtype.is_floating_point and bool(g.isnan().any()):
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")
