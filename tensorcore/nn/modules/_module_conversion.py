"""Moving and casting a :class:`~tensorcore.nn.Module`'s parameters and buffers: ``_apply``,
``apply``, ``to``, ``to_empty``, ``share_memory`` and the helpers of ``to`` and the casts.
The methods are written here as functions and are attributes of ``Module`` (``module.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...devices import device as _device
from ...ops.functions import empty_like
from ..parameter import Parameter

if TYPE_CHECKING:
    from .module import Module


def _shallow_copyable(old: Tensor, new: Tensor) -> bool:
    """Whether ``old.data = new`` keeps ``old`` in PyTorch's ``Module._apply`` (its
    ``_has_compatible_shallow_copy_type``): the same device type and layout, or two dense
    tensors on real devices (CPU and CUDA), but not from or to the meta device."""
    if old.layout != new.layout:
        return False
    a, b = old.device.type, new.device.type
    return a == b or (a != "meta" and b != "meta")


def _apply(self: Module, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
    if recurse:
        for child in self.children():
            child._apply(fn)
    with no_grad():
        for key, p in self._parameters.items():
            if p is None:
                continue
            new = fn(p)
            g = p.grad
            if new is not p and not _shallow_copyable(p, new):
                # Across the meta device or a layout PyTorch cannot swap a parameter's
                # data in place: a new Parameter takes its place (so weights tied by
                # sharing one Parameter come apart, as in PyTorch: re-tie after
                # ``to_empty``).
                p = self._parameters[key] = Parameter(new, p.requires_grad)
                if g is not None:
                    p.grad = fn(g).requires_grad_(g.requires_grad)
                continue
            if new is not p:
                p.data = new
            if g is not None:
                new_g = fn(g)
                if new_g is not g:
                    g.data = new_g
        for key, b in self._buffers.items():
            if b is not None:
                self._buffers[key] = fn(b)
    return self


def apply(self: Module, fn: Callable[[Module], Any]) -> Module:
    """Call ``fn`` on every descendant and then on this module (e.g. to initialise
    weights); returns self."""
    for child in self.children():
        child.apply(fn)
    fn(self)
    return self


def to(self: Module, *args: Any, **kwargs: Any) -> Module:
    """Move and/or cast parameters and buffers, in place: ``to(device)``, ``to(dtype)``,
    ``to(device, dtype)``, ``to(tensor)`` or keywords ``device=``, ``dtype=``,
    ``memory_format=``.

    A dtype applies to floating (and complex) parameters and buffers only; integer
    buffers keep theirs, as in PyTorch. ``memory_format`` (``tensorcore.channels_last``)
    lays out the 4-D and 5-D ones (a 5-D one in ``channels_last`` is an error, as in
    PyTorch). Parameters stay the same objects (but for a move from or to ``meta``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> conv = tc.nn.Conv2d(3, 4, 3).to(memory_format=tc.channels_last)
    >>> conv.weight.stride(), conv.bias.stride()
    ((27, 1, 9, 3), (1,))
    """
    fmt = kwargs.pop("memory_format", None)
    device, dtype = _parse_to(args, kwargs)
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise TypeError(
            "nn.Module.to only accepts floating point or complex dtypes, but got desired "
            f"dtype={dtype}"
        )

    def convert(t: Tensor) -> Tensor:
        # (PyTorch converts the layout of the 4-D and 5-D tensors only: conv weights)
        f = {"memory_format": fmt} if fmt is not None and t.dim() in (4, 5) else {}
        if dtype is not None and (t.is_floating_point() or t.is_complex()):
            d = dtype
            if t.is_complex() and not dtype.is_complex:
                d = t.dtype
            return t.to(device=device, dtype=d, **f)
        return t.to(device=device, **f) if device is not None or f else t

    return self._apply(convert)


def to_empty(self: Module, *, device: Any, recurse: bool = True) -> Module:
    """Move the parameters and buffers to ``device`` without their values: each becomes
    an uninitialised tensor of the same shape, dtype and strides there (``empty_like``),
    as in PyTorch. Parameters stay the same objects, but for a move from or to the
    ``meta`` device: each then becomes a new Parameter, as in PyTorch, so that weights
    tied by sharing one are tied again afterwards.

    This is how a model built on the ``meta`` device (shapes only, no memory) becomes a
    real one: ``to_empty(device="cpu")``, then initialise it, e.g. with each layer's
    ``reset_parameters()``. With ``recurse=False`` only this module's own parameters and
    buffers move, not its submodules'. Returns self.

    Examples
    --------
    >>> import tensorcore as tc
    >>> fc = tc.nn.Linear(3, 2)
    >>> w = fc.weight
    >>> fc.to_empty(device="cpu") is fc, fc.weight is w, fc.weight.shape
    (True, True, tensorcore.Size([2, 3]))
    """
    return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)


def share_memory(self: Module) -> Module:
    """Move every parameter, gradient and buffer into memory shared between processes
    (:meth:`Tensor.share_memory_`), for Hogwild training with :mod:`multiprocessing`;
    returns self.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.Linear(2, 1).share_memory()
    >>> m.weight.is_shared()
    True
    """
    return self._apply(lambda t: t.share_memory_())


def _cast_floating(d: dt.dtype) -> Callable[[Tensor], Tensor]:
    def cast(t: Tensor) -> Tensor:
        return t.to(dtype=d) if t.is_floating_point() else t

    return cast


def _cuda_device(device: Any) -> Any:
    return f"cuda:{device}" if isinstance(device, int) else device


def _parse_to(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, dt.dtype | None]:
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, bool):  # non_blocking, positionally
            continue
        if isinstance(a, dt.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, _device, int)):
            device = a
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    return device, dtype
