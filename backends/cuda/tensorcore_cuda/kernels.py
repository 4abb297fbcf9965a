"""CUDA kernels: the CPU backend's array-module kernels run with CuPy, plus the few places
where CuPy differs from NumPy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensorcore_cpu.kernels import build as build_shared
from tensorcore_cpu.kernels._util import array_of

__all__ = ["build"]


def build(cp: Any) -> dict[str, Callable[..., Any]]:
    """Every dense kernel for CuPy."""
    kernels = build_shared(cp)

    # One fused kernel instead of three temporaries: the hot path of every sigmoid/MLP.
    sigmoid_k = cp.ElementwiseKernel("T x", "T y", "y = 1 / (1 + exp(-x))", "tensorcore_sigmoid")

    def sigmoid(out: Any, a: Any) -> None:
        if out.dtype.is_complex:
            cp.reciprocal(1 + cp.exp(-array_of(a)), out=array_of(out))
        else:
            sigmoid_k(array_of(a), array_of(out))

    kernels["sigmoid"] = sigmoid
    return kernels
