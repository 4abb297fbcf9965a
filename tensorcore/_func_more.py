"""The rest of ``torch.func`` (``tensorcore.func`` re-exports these): ``functionalize`` and
``replace_all_batch_norm_modules_``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["functionalize", "replace_all_batch_norm_modules_"]


def functionalize(func: Callable[..., Any], *, remove: str = "mutations") -> Callable[..., Any]:
    """``func`` with its in-place operations replaced by out-of-place ones for a compiler;
    run eagerly, it computes and mutates its inputs as ``func`` does, so ``func`` itself is
    returned (``remove`` is checked as PyTorch checks it)."""
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}."
            " Valid options are:\n     remove='mutations': all inplace and out= operators will be"
            " removed from the program, and replaced with their out-of-place equivalents.\n"
            "     remove='mutations_and_views': In addition to the above, all aliasing operators"
            " {view} will be replaced with their non-aliasing counterparts, {view}_copy.\n"
        )
    return func


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Make every batch-norm module under ``root`` stop tracking running statistics (their
    buffers set to None), as ``vmap`` over a model's parameters needs; returns ``root``."""
    for module in root.modules():
        # (by name: this module sits below tensorcore.nn)
        if any(c.__name__ == "_BatchNorm" for c in type(module).__mro__):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
