"""Reverse-mode automatic differentiation.

Recording is a dispatch step in front of the backend kernel (``autograd/step.py``); the
derivative formulas live in ``tensorcore/ops/derivatives/``.
"""

from __future__ import annotations

import sys
from typing import Any

from .._tensor import Tensor
from ..ops._validate import checked
from ..overrides import handle_torch_function, has_torch_function, is_tensor_like
from . import anomaly_mode, forward_ad, functional
from . import engine as _engine
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .function import Function, FunctionCtx
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node
from .step import detect_mutation

__all__ = [
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "Variable",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "detect_mutation",
    "enable_grad",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "handle_torch_function",
    "has_torch_function",
    "inference_mode",
    "is_grad_enabled",
    "is_multithreading_enabled",
    "is_tensor_like",
    "is_view_replay_enabled",
    "kineto_available",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "set_multithreading_enabled",
]


def Variable(data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
    """PyTorch's legacy wrapper: since PyTorch 0.4 a ``Variable`` is the tensor itself.
    ``Variable(t, requires_grad=True)`` returns ``t`` with ``requires_grad`` set.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.autograd.Variable(tc.ones(2), requires_grad=True).requires_grad
    True
    """
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
    if requires_grad:
        data.requires_grad_()
    return data


grad = checked(
    "grad(Any outputs, Any inputs, Any grad_outputs=None, bool? retain_graph=None, "
    "bool create_graph=False, bool only_inputs=True, bool? allow_unused=None, "
    "bool is_grads_batched=False, bool materialize_grads=False) -> Any"
)(_engine.grad)
backward = checked(
    "backward(Any tensors, Any grad_tensors=None, bool? retain_graph=None, "
    "bool create_graph=False, Any inputs=None) -> None"
)(_engine.backward)


_multithreading = [True]


class set_multithreading_enabled:
    """PyTorch's switch for running backward on a thread per device. tensorcore's engine runs
    every backward on the calling thread, so this only records the setting (a context
    manager or a plain call, as in PyTorch)."""

    def __init__(self, mode: bool) -> None:
        self.prev = _multithreading[0]
        _multithreading[0] = bool(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _multithreading[0] = self.prev


def is_multithreading_enabled() -> bool:
    """The setting of :class:`set_multithreading_enabled` (True by default, as in PyTorch)."""
    return _multithreading[0]


def is_view_replay_enabled() -> bool:
    """False: tensorcore records views' backward functions and never replays views."""
    return False


def kineto_available() -> bool:
    """False: tensorcore's profiler (``tensorcore.profiler``) is its own, not Kineto."""
    return False


# ``from torch.autograd.variable import Variable`` (PyTorch's module path of it).
sys.modules[f"{__name__}.variable"] = sys.modules[__name__]


def __getattr__(name: str) -> Any:
    # ``torch.autograd.profiler`` (the legacy profiler API) is imported on first use: it
    # needs the operator table, which is built after this package is imported.
    if name == "profiler":
        import importlib

        module = importlib.import_module(f"{__name__}.profiler")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
