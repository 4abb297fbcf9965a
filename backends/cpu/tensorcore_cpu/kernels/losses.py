"""Loss kernels, written once against an array module ``xp`` (NumPy or CuPy).

The core has checked shapes, dtypes and ``reduction`` (``ops/meta_functions.py``); the kernels
check the class indices, which only the data can tell.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._util import acc_dtype, array_of, quiet_tokens

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The negative log-likelihood loss and its backward for the array module ``xp``."""
    enter, leave = quiet_tokens(xp)

    def check_targets(t: Any, classes: int) -> None:
        if t.size:
            bad = (t < 0) | (t >= classes)
            if bool(bad.any()):
                raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")

    def nll_loss(out: Any, self: Any, target: Any, reduction: str) -> None:
        x, t, o = array_of(self), array_of(target), array_of(out)
        check_targets(t, x.shape[1])
        picked = x[xp.arange(x.shape[0]), t]
        if reduction == "none":
            xp.negative(picked, out=o)
            return
        wide = acc_dtype(xp, o.dtype)
        tok = enter()
        try:
            total = picked.sum(dtype=wide) if reduction == "sum" else picked.mean(dtype=wide)
        finally:
            leave(tok)
        o[...] = -total

    def nll_loss_backward(
        out: Any, grad: Any, target: Any, num_classes: int, reduction: str
    ) -> None:
        g, t, o = array_of(grad), array_of(target), array_of(out)
        check_targets(t, num_classes)
        o.fill(0)
        n = t.shape[0]
        if not n:
            return
        vals = -g if reduction != "mean" else -g / n
        o[xp.arange(n), t] = vals

    return {"nll_loss": nll_loss, "nll_loss_backward": nll_loss_backward}
