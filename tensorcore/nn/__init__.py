"""Neural networks, as in PyTorch: :class:`Module` and its layers, losses and containers,
:class:`Parameter`, and the ``functional``, ``init`` and ``utils`` namespaces.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
>>> loss = nn.CrossEntropyLoss()(model(tc.ones(2, 4)), tc.tensor([0, 2]))
>>> loss.backward()
>>> model[0].weight.grad.shape
tensorcore.Size([8, 4])
"""

from . import attention, functional, grad, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

# PyTorch's ``torch.nn.functional.grad`` is the module ``torch.nn.grad``.
setattr(functional, "grad", grad)  # noqa: B010

__all__ = [
    "Buffer",
    "Parameter",
    "UninitializedBuffer",
    "UninitializedParameter",
    "attention",
    "functional",
    "grad",
    "init",
    "parallel",
    "utils",
    *_modules_all,
]
