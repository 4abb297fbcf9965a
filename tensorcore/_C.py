"""The names of PyTorch's ``torch._C`` that Python programs reach for: the
``__torch_function__`` protocol's opt-out (``_disabled_torch_function_impl``, which a subclass
of Tensor sets as its ``__torch_function__`` so that operators return plain tensors) and the
blocks that turn the protocol off (``tensorcore.overrides``).

Examples
--------
>>> import tensorcore as tc
>>> class Plain(tc.Tensor):
...     __torch_function__ = tc._C._disabled_torch_function_impl
>>> type(tc.ones(2).as_subclass(Plain) * 2).__name__
'Tensor'
"""

from __future__ import annotations

from .overrides import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
    _len_torch_function_stack,
)

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "_disabled_torch_function_impl",
    "_len_torch_function_stack",
]
