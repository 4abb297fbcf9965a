"""Whether sparse constructors check their invariants by default
(``tensorcore.sparse.check_sparse_tensor_invariants``).

Unlike PyTorch, which skips the checks unless asked, tensorcore checks by default
(``check_invariants=None`` means checked); ``check_sparse_tensor_invariants.disable()`` makes
``None`` mean unchecked, as PyTorch's default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["check_sparse_tensor_invariants", "enabled"]

_STATE = {"enabled": True}


def enabled(check_invariants: bool | None) -> bool:
    """Whether a constructor called with ``check_invariants`` checks."""
    return _STATE["enabled"] if check_invariants is None else bool(check_invariants)


class check_sparse_tensor_invariants:
    """The default of the sparse constructors' ``check_invariants=None``: a context manager
    and a decorator that set it for a block (``enable=True``) and then restore it, with
    static methods that read and set it for good.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.sparse.check_sparse_tensor_invariants.is_enabled()
    True
    >>> with tc.sparse.check_sparse_tensor_invariants(False):
    ...     x = tc.sparse_coo_tensor([[5]], [1.0], (3,))  # not checked: an invalid tensor
    >>> tc.sparse.check_sparse_tensor_invariants.is_enabled()
    True
    """

    def __init__(self, enable: bool = True) -> None:
        self.state = bool(enable)
        self.saved: list[bool] = []

    @staticmethod
    def is_enabled() -> bool:
        """Whether ``check_invariants=None`` means checked (True unless disabled)."""
        return _STATE["enabled"]

    @staticmethod
    def enable() -> None:
        """Check by default from now on."""
        _STATE["enabled"] = True

    @staticmethod
    def disable() -> None:
        """Skip the checks by default from now on (PyTorch's default)."""
        _STATE["enabled"] = False

    def __enter__(self) -> check_sparse_tensor_invariants:
        self.saved.append(_STATE["enabled"])
        _STATE["enabled"] = self.state
        return self

    def __exit__(self, *exc: Any) -> None:
        _STATE["enabled"] = self.saved.pop()

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` run with this setting."""
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapper
