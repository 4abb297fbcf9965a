"""Loss kernels, written once against an array module ``xp`` (NumPy or CuPy).

The core has checked shapes, dtypes and ``reduction`` (``ops/meta_functions.py``); the kernels
check the class indices, which only the data can tell.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..helpers import acc_dtype, array_of, quiet_tokens

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The negative log-likelihood, smooth L1, Huber and binary cross-entropy losses and their
    backwards for the array module ``xp``."""
    enter, leave = quiet_tokens(xp)

    unsigned = {n: xp.dtype(f"u{n}") for n in (1, 2, 4, 8)}  # (by width)

    def targets(t: Any, classes: int, ignore_index: int) -> tuple[Any, Any]:
        """``(keep, safe)``: which targets count (None: all of them), and the targets with
        the ignored ones replaced by class 0 (a valid index); an out-of-range target that
        counts raises PyTorch's ``IndexError``.

        One reduction checks the common case: the targets read as unsigned integers of
        their width (a negative one is then above any class) have a maximum below
        ``classes``, so every target is a class, and none is ignored unless
        ``ignore_index`` is a class itself."""
        if t.size:
            u = t if t.dtype.kind == "u" else t.view(unsigned[t.dtype.itemsize])
            if int(u.max()) < classes:
                if not 0 <= ignore_index < classes:
                    return None, t
                keep = t != ignore_index
                return (None, t) if bool(keep.all()) else (keep, xp.where(keep, t, 0))
            keep = t != ignore_index
            bad = keep & (u >= classes)
            if bool(bad.any()):
                raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
            return keep, xp.where(keep, t, 0)
        return t != ignore_index, t

    def sample_weights(weight: Any, keep: Any, safe: Any, dtype: Any) -> Any:
        """Each sample's weight: its class's (1 without ``weight``), 0 where ignored."""
        w = xp.ones(safe.shape, dtype) if keep is None else keep.astype(dtype)
        if weight is not None:
            w *= array_of(weight).astype(dtype, copy=False)[safe]
        return w

    def nll_loss(
        out: Any, self: Any, target: Any, weight: Any, reduction: str, ignore_index: int
    ) -> None:
        x, t, o = array_of(self), array_of(target), array_of(out)
        keep, safe = targets(t, x.shape[1], ignore_index)
        picked = x[xp.arange(x.shape[0]), safe]
        plain = weight is None and (keep is None or bool(keep.all()))
        wide = acc_dtype(xp, o.dtype)
        if reduction == "none":
            if plain:
                xp.negative(picked, out=o)
            else:
                o[...] = -(picked * sample_weights(weight, keep, safe, picked.dtype))
            return
        tok = enter()
        try:
            if plain:
                total = picked.sum(dtype=wide)
                if reduction == "mean":  # (what ``mean`` computes, without its wrapper)
                    total = total / picked.size  # an empty batch: 0 / 0 = nan, as PyTorch
            else:
                w = sample_weights(weight, keep, safe, wide)
                total = (picked.astype(wide, copy=False) * w).sum()
                if reduction == "mean":
                    total = total / w.sum()  # all ignored: 0 / 0 = nan, as PyTorch
        finally:
            leave(tok)
        o[...] = -total

    def nll_loss_backward(
        out: Any,
        grad: Any,
        target: Any,
        num_classes: int,
        reduction: str,
        weight: Any,
        ignore_index: int,
    ) -> None:
        g, t, o = array_of(grad), array_of(target), array_of(out)
        keep, safe = targets(t, num_classes, ignore_index)
        o[...] = 0
        n = t.shape[0]
        if not n:
            return
        if keep is None and weight is None and acc_dtype(xp, o.dtype) == o.dtype:
            # Every sample weighs 1: no weight array to make, multiply by and sum.
            vals = -g
            if reduction == "mean":
                tok = enter()
                try:
                    vals = vals / o.dtype.type(n)
                finally:
                    leave(tok)
            o[xp.arange(n), safe] = vals
            return
        w = sample_weights(weight, keep, safe, o.dtype)
        vals = -g * w
        if reduction == "mean":
            tok = enter()
            try:
                vals = vals / w.sum()
                if keep is not None:  # (all ignored: 0 / 0, but PyTorch leaves them 0)
                    vals = xp.where(keep, vals, 0)
            finally:
                leave(tok)
        o[xp.arange(n), safe] = vals

    def flat0(a: Any) -> Any:
        """A 0-d array as a 1-element one (NumPy's ufuncs give scalars for 0-d operands,
        which take no ``out=``)."""
        return a if a.ndim else a.reshape(1)

    def reduce_into(o: Any, loss: Any, reduction: str) -> None:
        """A loss's elements into ``o`` by ``reduction`` (the mean of none is NaN)."""
        if reduction == "none":
            o[...] = loss.reshape(o.shape)
        elif reduction == "sum":
            o[...] = loss.sum()
        else:
            o[...] = loss.sum() / loss.dtype.type(loss.size) if loss.size else xp.nan

    def pointwise_loss(huber: bool) -> tuple[Callable[..., None], Callable[..., None]]:
        """The kernels of ``smooth_l1_loss`` (``huber`` False) or ``huber_loss`` and their
        backwards: with ``a = |self - target|`` and ``m = min(a, p)``, the loss is ``(a - m
        / 2) * (m / p)`` (smooth L1; ``a`` for ``p = 0``) or ``m * (a - m / 2)`` (Huber):
        both branches of PyTorch's formulas without a select over a mask; the gradient is
        ``clamp(d / p, -1, 1)`` or ``clamp(d, -p, p)`` times ``grad_output`` (over the
        element count for "mean"), PyTorch's."""

        def forward(out: Any, self: Any, target: Any, reduction: str, p: float) -> None:
            o = array_of(out)
            x, t = flat0(array_of(self)), flat0(array_of(target))
            d = xp.dtype(acc_dtype(xp, o.dtype))
            f = d.type
            tok = enter()
            try:
                a = xp.subtract(x, t, dtype=d)
                xp.abs(a, out=a)
                if p or huber:
                    m = xp.minimum(a, f(p))
                    a -= m * f(0.5)
                    if not huber:
                        m /= f(p)
                    a *= m
                reduce_into(o, a, reduction)
            finally:
                leave(tok)

        def backward(
            out: Any, grad_output: Any, self: Any, target: Any, reduction: str, p: float
        ) -> None:
            o = array_of(out)
            x, t, g = flat0(array_of(self)), flat0(array_of(target)), array_of(grad_output)
            if reduction == "none":
                g = flat0(g)
            d = xp.dtype(acc_dtype(xp, o.dtype))
            f = d.type
            tok = enter()
            try:
                r = xp.subtract(x, t, dtype=d)
                if huber:
                    xp.clip(r, f(-p), f(p), out=r)
                elif p:
                    r /= f(p)
                    xp.clip(r, f(-1), f(1), out=r)
                else:
                    xp.sign(r, out=r)
                g = g.astype(d, copy=False)
                r *= g / f(r.size) if reduction == "mean" else g
                o[...] = r.reshape(o.shape)
            finally:
                leave(tok)

        return forward, backward

    def in_unit(a: Any, what: str) -> None:
        """Refuses values outside [0, 1] (NaN included), in PyTorch's words: two
        reductions, where a mask of the two comparisons takes three passes and one."""
        if a.size:
            lo, hi = a.min(), a.max()
            if not (lo >= 0 and hi <= 1):
                raise RuntimeError(f"all elements of {what} should be between 0 and 1")

    def binary_cross_entropy(out: Any, self: Any, target: Any, weight: Any, reduction: str) -> None:
        # (target - 1) * max(log1p(-p), -100) - target * max(log(p), -100), PyTorch's
        o = array_of(out)
        p, t = flat0(array_of(self)), flat0(array_of(target))
        in_unit(p, "input")
        in_unit(t, "target")
        d = xp.dtype(acc_dtype(xp, o.dtype))
        f = d.type
        p, t = p.astype(d, copy=False), t.astype(d, copy=False)
        tok = enter()
        try:
            q = xp.negative(p)
            xp.log1p(q, out=q)
            xp.maximum(q, f(-100), out=q)
            q *= t - f(1)
            lp = xp.log(p)
            xp.maximum(lp, f(-100), out=lp)
            lp *= t
            q -= lp
            if weight is not None:
                q *= array_of(weight).astype(d, copy=False)
            reduce_into(o, q, reduction)
        finally:
            leave(tok)

    def binary_cross_entropy_backward(
        out: Any, grad_output: Any, self: Any, target: Any, weight: Any, reduction: str
    ) -> None:
        # grad * (p - t) / max(p * (1 - p), 1e-12) * weight (/ N for "mean"), PyTorch's
        o = array_of(out)
        p, t = flat0(array_of(self)), flat0(array_of(target))
        g = array_of(grad_output)
        d = xp.dtype(acc_dtype(xp, o.dtype))
        f = d.type
        p, t = p.astype(d, copy=False), t.astype(d, copy=False)
        g = (flat0(g) if reduction == "none" else g).astype(d, copy=False)
        tok = enter()
        try:
            den = xp.subtract(f(1), p)
            den *= p
            xp.maximum(den, f(1e-12), out=den)
            r = xp.subtract(p, t)
            r /= den
            r *= g / f(r.size) if reduction == "mean" else g
            if weight is not None:
                r *= array_of(weight).astype(d, copy=False)
            o[...] = r.reshape(o.shape)
        finally:
            leave(tok)

    def operand(v: Any, d: Any) -> Any:
        return None if v is None else array_of(v).astype(d, copy=False)

    def binary_cross_entropy_with_logits(
        out: Any, self: Any, target: Any, weight: Any, pos_weight: Any, reduction: str
    ) -> None:
        # (1 - t) * x + (1 + (pw - 1) * t) * softplus(-x), softplus(-x) = log1p(exp(-|x|)) -
        # min(x, 0) (PyTorch's log_sigmoid, negated), times the weight
        o = array_of(out)
        d = xp.dtype(acc_dtype(xp, o.dtype))
        f = d.type
        x, t = operand(flat0(array_of(self)), d), operand(flat0(array_of(target)), d)
        tok = enter()
        try:
            sp = xp.abs(x)
            xp.negative(sp, out=sp)
            xp.exp(sp, out=sp)
            xp.log1p(sp, out=sp)
            sp -= xp.minimum(x, f(0))
            if pos_weight is not None:
                lw = operand(pos_weight, d) - f(1)
                sp *= lw * t + f(1)
            r = xp.subtract(f(1), t)
            r *= x
            r += sp
            if weight is not None:
                r *= operand(weight, d)
            reduce_into(o, r, reduction)
        finally:
            leave(tok)

    def binary_cross_entropy_with_logits_backward(
        out: Any,
        grad_output: Any,
        self: Any,
        target: Any,
        weight: Any,
        pos_weight: Any,
        reduction: str,
    ) -> None:
        # sigmoid(x) - t, or (1 + (pw - 1) * t) * sigmoid(x) - pw * t, times grad_output and
        # the weight (over N for "mean")
        o = array_of(out)
        d = xp.dtype(acc_dtype(xp, o.dtype))
        f = d.type
        x, t = operand(flat0(array_of(self)), d), operand(flat0(array_of(target)), d)
        g = array_of(grad_output)
        g = (flat0(g) if reduction == "none" else g).astype(d, copy=False)
        tok = enter()
        try:
            s = xp.negative(x)
            xp.exp(s, out=s)
            s += f(1)
            xp.reciprocal(s, out=s)
            if pos_weight is None:
                s -= t
            else:
                pw = operand(pos_weight, d)
                s *= (pw - f(1)) * t + f(1)
                s -= pw * t
            s *= g / f(s.size) if reduction == "mean" else g
            if weight is not None:
                s *= operand(weight, d)
            o[...] = s.reshape(o.shape)
        finally:
            leave(tok)

    smooth_l1_loss, smooth_l1_loss_backward = pointwise_loss(False)
    huber_loss, huber_loss_backward = pointwise_loss(True)
    return {
        "nll_loss": nll_loss,
        "nll_loss_backward": nll_loss_backward,
        "smooth_l1_loss": smooth_l1_loss,
        "smooth_l1_loss_backward": smooth_l1_loss_backward,
        "huber_loss": huber_loss,
        "huber_loss_backward": huber_loss_backward,
        "binary_cross_entropy": binary_cross_entropy,
        "binary_cross_entropy_backward": binary_cross_entropy_backward,
        "binary_cross_entropy_with_logits": binary_cross_entropy_with_logits,
        "binary_cross_entropy_with_logits_backward": binary_cross_entropy_with_logits_backward,
    }
