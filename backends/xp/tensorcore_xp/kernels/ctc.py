"""The CTC loss kernels (PyTorch's ``_ctc_loss`` and ``_ctc_loss_backward``), written once
against an array module ``xp`` (NumPy or CuPy).

Both run the recursions of Graves et al. in log space over the extended targets (blank,
y1, blank, y2, ..., blank: L = 2 S + 1 states), one vectorised step per input time over every
sample and state at once: the loop is over time only. A state's emissions are gathered once
for every time, with -inf where a sample has ended or a state lies past its target, so a
step is four array operations on (N, L) with no mask of its own: the forward variables of
time t are ``logaddexp`` of those of t - 1 at s, s - 1 and (where the labels allow the skip)
s - 2, plus the emission. The states are stored with two columns of -inf beside them, so
that the shifted reads are views. The core has checked the arguments (``ops/meta_ctc.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..helpers import array_of, errstate

__all__ = ["build"]


def build(xp: Any) -> dict[str, Callable[..., Any]]:
    """The CTC kernels for the array module ``xp``."""

    def extended(tg: Any, tl: Any, longest: int, batch: int, blank: int) -> tuple[Any, Any]:
        """The extended targets (N, L) (blank past a sample's target) and where the skip
        from s - 2 to s is allowed (onto a label that differs from the one two before)."""
        cols = xp.arange(longest, dtype=xp.int64)
        inside = cols[None, :] < tl[:, None]
        if tg.ndim == 1:  # one target after another: row n starts after the earlier ones
            first = xp.cumsum(tl) - tl
            at = xp.minimum(first[:, None] + cols[None, :], max(tg.shape[0] - 1, 0))
            labels = tg[at] if tg.shape[0] else xp.zeros(at.shape, dtype=xp.int64)
        else:
            labels = tg[:, :longest]
        ext = xp.full((batch, 2 * longest + 1), blank, dtype=xp.int64)
        ext[:, 1::2] = xp.where(inside, labels.astype(xp.int64, copy=False), blank)
        skip = xp.zeros(ext.shape, dtype=bool)
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
        return ext, skip

    def emissions(lp: Any, ext: Any, il: Any, tl: Any) -> tuple[Any, Any]:
        """Each state's log-probability at each time (T, N, L), and the same with -inf at
        the times past a sample's input and the states past its target."""
        steps, batch, _ = lp.shape
        size = ext.shape[1]
        emit = lp[:, xp.arange(batch)[:, None], ext]
        live = xp.arange(steps)[:, None] < il[None, :]
        state = xp.arange(size)[None, :] < (2 * tl + 1)[:, None]
        return emit, xp.where(live[:, :, None] & state[None], emit, -xp.inf)

    def lengths(input_lengths: Sequence[int], target_lengths: Sequence[int]) -> Any:
        il = xp.asarray(list(input_lengths), dtype=xp.int64)
        tl = xp.asarray(list(target_lengths), dtype=xp.int64)
        return il, tl, max(target_lengths, default=0)

    def _ctc_loss(
        out: Any,
        log_probs: Any,
        targets: Any,
        input_lengths: Sequence[int],
        target_lengths: Sequence[int],
        blank: int,
        zero_infinity: bool,
    ) -> None:
        nll_o, alpha_o = (array_of(t) for t in out)
        lp, tg = array_of(log_probs), array_of(targets)
        steps, batch, _ = lp.shape
        if not batch:
            return
        il, tl, longest = lengths(input_lengths, target_lengths)
        ext, skip = extended(tg, tl, longest, batch, blank)
        size = ext.shape[1]
        with errstate(xp)(all="ignore"):
            _, emit = emissions(lp, ext, il, tl)
            # alpha[t, n, 2 + s]: two columns of -inf before the states.
            alpha = xp.full((steps, batch, size + 2), -xp.inf, dtype=lp.dtype)
            jump = xp.where(skip, 0.0, -xp.inf).astype(lp.dtype)
            if steps:
                start = min(size, 2)
                alpha[0, :, 2 : 2 + start] = emit[0, :, :start]
            tmp = xp.empty((batch, size), dtype=lp.dtype)
            for t in range(1, steps):
                prev, cur = alpha[t - 1], alpha[t, :, 2:]
                xp.add(prev[:, :-2], jump, out=tmp)
                xp.logaddexp(prev[:, 2:], prev[:, 1:-1], out=cur)
                xp.logaddexp(cur, tmp, out=cur)
                xp.add(cur, emit[t], out=cur)
            rows = xp.arange(batch)
            if steps:
                # The alignments end on the last label or the blank after it (column 1, -inf,
                # for an empty target).
                last = alpha[xp.maximum(il - 1, 0), rows]
                nll = -xp.logaddexp(last[rows, 2 * tl + 2], last[rows, 2 * tl + 1])
            else:
                nll = xp.zeros(batch, dtype=lp.dtype)
            # No input at all: an empty target has probability 1, any other 0.
            nll = xp.where(il == 0, xp.where(tl == 0, 0.0, xp.inf), nll)
        nll_o[...] = nll
        alpha_o[...] = alpha[:, :, 2:].transpose(1, 0, 2)

    def _ctc_loss_backward(
        out: Any,
        grad: Any,
        log_probs: Any,
        targets: Any,
        input_lengths: Sequence[int],
        target_lengths: Sequence[int],
        neg_log_likelihood: Any,
        log_alpha: Any,
        blank: int,
        zero_infinity: bool,
    ) -> None:
        o = array_of(out)
        lp, tg = array_of(log_probs), array_of(targets)
        g, nll = array_of(grad), array_of(neg_log_likelihood)
        steps, batch, classes = lp.shape
        if not (steps and batch):
            o[...] = 0
            return
        il, tl, longest = lengths(input_lengths, target_lengths)
        ext, skip = extended(tg, tl, longest, batch, blank)
        size = ext.shape[1]
        ends: dict[int, list[int]] = {}
        for n, length in enumerate(input_lengths):
            if length:
                ends.setdefault(int(length) - 1, []).append(n)
        with errstate(xp)(all="ignore"):
            raw, emit = emissions(lp, ext, il, tl)
            # beta[t, n, s]: two columns of -inf after the states. The skip from s + 2 back
            # to s is allowed where the forward one from s to s + 2 is.
            beta = xp.full((steps, batch, size + 2), -xp.inf, dtype=lp.dtype)
            jump = xp.full((batch, size), -xp.inf, dtype=lp.dtype)
            jump[:, :-2] = xp.where(skip[:, 2:], 0.0, -xp.inf)
            tmp = xp.empty((batch, size), dtype=lp.dtype)
            for t in range(steps - 1, -1, -1):
                if t < steps - 1:
                    nxt, cur = beta[t + 1], beta[t, :, :size]
                    xp.add(nxt[:, 2:], jump, out=tmp)
                    xp.logaddexp(nxt[:, :size], nxt[:, 1 : size + 1], out=cur)
                    xp.logaddexp(cur, tmp, out=cur)
                    xp.add(cur, emit[t], out=cur)
                done = ends.get(t)
                if done is not None:  # the samples whose last step is t start here
                    n = xp.asarray(done, dtype=xp.int64)
                    final = xp.full((n.shape[0], size + 2), -xp.inf, dtype=lp.dtype)
                    k = xp.arange(n.shape[0])
                    final[k, 2 * tl[n]] = emit[t, n, 2 * tl[n]]
                    before = xp.maximum(2 * tl[n] - 1, 0)
                    final[k, before] = xp.where(tl[n] > 0, emit[t, n, before], final[k, before])
                    beta[t, n] = final
            alpha = array_of(log_alpha).transpose(1, 0, 2)
            # alpha + beta counts each step's emission twice; the posterior of a state is
            # exp(alpha + beta - emission + nll).
            once = xp.where(raw == -xp.inf, 0.0, raw)
            post = xp.exp(alpha + beta[:, :, :size] - once + nll[None, :, None])
            # Sum the states' posteriors into their classes: one bincount over (t, n, class).
            where = (
                xp.arange(steps)[:, None, None] * batch + xp.arange(batch)[None, :, None]
            ) * classes + ext[None]
            per_class = xp.bincount(
                where.reshape(-1), weights=post.reshape(-1), minlength=steps * batch * classes
            ).reshape(steps, batch, classes)
            res = (xp.exp(lp) - per_class.astype(lp.dtype)) * g[None, :, None]
            keep = xp.arange(steps)[:, None] < il[None, :]
            if zero_infinity:
                keep = keep & (nll != xp.inf)[None, :]
            else:  # (PyTorch's: NaN for every class of a sample with no alignment)
                res = xp.where((nll == xp.inf)[None, :, None], xp.nan, res)
            o[...] = xp.where(keep[:, :, None], res, 0.0)

    return {"_ctc_loss": _ctc_loss, "_ctc_loss_backward": _ctc_loss_backward}
