"""Reverse-mode automatic differentiation.

Recording is a dispatch step in front of the backend kernel (``autograd/step.py``); the
derivative formulas live in ``tensorcore/ops/derivatives.py``.
"""

from __future__ import annotations

from .engine import backward, grad
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
    "backward",
    "detect_mutation",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
