"""``nn.Parameter``: a tensor that a :class:`~tensorcore.nn.Module` registers as a parameter."""

from __future__ import annotations

from typing import Any

from .._pickling import reduce_tensor
from .._tensor import Tensor
from .._tensor_methods import detach
from ..ops import functions as ops

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as an attribute of a
    :class:`~tensorcore.nn.Module`, it is registered in ``parameters()``.

    ``Parameter(data)`` shares ``data``'s storage (no copy) and requires grad unless
    ``requires_grad=False``. Operators on a parameter return plain tensors, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> p = tc.nn.Parameter(tc.zeros(2))
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    >>> isinstance(p, tc.Tensor), type(p * 2).__name__
    (True, 'Tensor')
    """

    __slots__ = ()

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = ops.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): data must be a Tensor, not {type(data).__name__}; "
                "wrap values with tensorcore.tensor(...) first"
            )
        src = detach(data)
        p = object.__new__(cls)  # not Tensor.__new__, the legacy constructor
        for slot in ("_storage", "_shape", "_stride", "_offset", "_dtype", "_device"):
            setattr(p, slot, getattr(src, slot))
        p._layout = src._layout
        p._native = src._native
        p._requires_grad = False
        p._grad_fn = None
        p._grad = None
        p._base = None
        p._ag = None
        p._version_counter = src._version_counter  # Parameter(x) shares x's, as detach does
        if requires_grad:
            p.requires_grad_()
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # __new__ built the parameter.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        fn, args = reduce_tensor(self)[:2]
        return (_rebuild_parameter, (fn, args, self._requires_grad))


def _rebuild_parameter(fn: Any, args: tuple[Any, ...], requires_grad: bool) -> Parameter:
    return Parameter(fn(*args), requires_grad)
