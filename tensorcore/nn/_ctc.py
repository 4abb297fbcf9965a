"""The Connectionist Temporal Classification loss (``F.ctc_loss``): the negative log of the
total probability of every alignment of a target with an input sequence, by the forward
(alpha) recursion over the target with blanks between and around its labels, in log space.

Written with tensorcore operators, one step per input time, batched over the samples, so it
runs on every backend and autograd differentiates it.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.factories import tensor as _tensor
from ._losses import _check_reduction

__all__ = ["ctc_loss"]


def _logsumexp(parts: list[Tensor]) -> Tensor:
    """log(sum(exp)) of equal-shaped tensors, -inf (with zero gradients) where every part is
    -inf (PyTorch's logsumexp would differentiate that to NaN)."""
    x = ops.stack(parts, 0)
    m = x.amax(0)
    dead = m == -math.inf
    m_safe = ops.where(dead, 0.0, m).detach()
    s = (x - m_safe).exp().sum(0)
    s_safe = ops.where(dead, 1.0, s)
    return ops.where(dead, -math.inf, m_safe + s_safe.log())


def _lengths(x: Any, n: int, what: str, device: Any) -> Tensor:
    t = x if isinstance(x, Tensor) else _tensor(list(x), dtype=dt.int64)
    t = t.to(device=device, dtype=dt.int64).reshape(-1)
    if t.numel() != n:
        raise RuntimeError(f"{what} must be of size batch_size")
    return t


@checked(
    "ctc_loss(Tensor log_probs, Tensor targets, Any input_lengths, Any target_lengths, "
    'int blank=0, str reduction="mean", bool zero_infinity=False) -> Tensor'
)
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) or (T, C), log-softmax outputs over C classes
    with ``blank`` the blank class, against ``targets``: (N, S) padded or 1-D (the targets
    concatenated); ``input_lengths`` and ``target_lengths`` give each sample's lengths.

    ``reduction='mean'`` divides each loss by its target length (at least 1) and averages
    over the batch. ``zero_infinity`` turns infinite losses (no alignment possible) and their
    gradients into 0. As in PyTorch, the gradient with respect to ``log_probs`` is
    ``exp(log_probs) - posterior`` (what the logits of a ``log_softmax`` get; the true
    gradient with respect to ``log_probs`` is ``-posterior``, and both give the same
    gradient to those logits).

    Examples
    --------
    >>> import tensorcore as tc
    >>> lp = tc.tensor([[0.5, 0.5], [0.5, 0.5]]).log()  # T=2, C=2 (blank, 'a')
    >>> tc.nn.functional.ctc_loss(lp, tc.tensor([1]), (2,), (1,), reduction="sum")
    tensor(0.2877)
    """
    _check_reduction(reduction, "ctc_loss")
    batched = log_probs.ndim == 3
    if not batched:
        if log_probs.ndim != 2:
            raise RuntimeError(
                f"ctc_loss(): expected log_probs to be 2-D or 3-D, got {log_probs.ndim}-D"
            )
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    if targets.dtype.is_floating_point or targets.dtype.is_complex or targets.dtype is dt.bool_:
        raise RuntimeError(
            f"ctc_loss(): expected targets of an integer dtype, got {torch_name(targets.dtype)}"
        )
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    dev = log_probs.device
    in_len = _lengths(input_lengths, N, "input_lengths", dev)
    tg_len = _lengths(target_lengths, N, "target_lengths", dev)
    if N and int(in_len.max()) > T:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {T}, but got value "
            f"{int(in_len.max())} (while checking arguments for ctc_loss_cpu)"
        )
    tl = [int(v) for v in tg_len.tolist()]
    s_max = max(tl, default=0)
    if targets.ndim == 1:  # concatenated: split into a padded (N, S) batch
        if targets.numel() < sum(tl):
            raise RuntimeError(
                f"Expected tensor to have size at least {sum(tl)} at dimension 0, but got size "
                f"{targets.numel()} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_cpu)"
            )
        rows, start = [], 0
        for n in tl:
            row = targets[start : start + n]
            pad = ops.full((s_max - n,), blank, dtype=targets.dtype, device=targets.device)
            rows.append(ops.cat([row, pad]))
            start += n
        padded = (
            ops.stack(rows)
            if rows
            else ops.zeros((0, s_max), dtype=targets.dtype, device=targets.device)
        )
    else:
        if targets.shape[1] < s_max:
            raise RuntimeError(
                f"Expected tensor to have size at least {s_max} at dimension 1, but got size "
                f"{targets.shape[1]} for argument #2 'targets' (while checking arguments for "
                "ctc_loss_cpu)"
            )
        padded = targets[:, :s_max]
    padded = padded.to(device=dev, dtype=dt.int64)
    # The extended targets: blank, y1, blank, y2, ..., blank (L = 2 S + 1).
    L = 2 * s_max + 1
    ext = ops.full((N, L), blank, dtype=dt.int64, device=dev)
    if s_max:
        ext[:, 1::2] = padded
    # A skip from s - 2 to s is allowed onto a label that differs from the one before.
    skip = ops.zeros((N, L), dtype=dt.bool_, device=dev)
    if L > 2:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    emit = log_probs.gather(2, ext.unsqueeze(0).expand(T, N, L))  # (T, N, L)
    neg_inf = ops.full((N, 1), -math.inf, dtype=log_probs.dtype, device=dev)
    neg_inf2 = ops.full((N, 2), -math.inf, dtype=log_probs.dtype, device=dev)
    start_ok = ops.arange(L, device=dev).unsqueeze(0) < ops.minimum(
        tg_len.unsqueeze(1) * 2 + 1, ops.full((1, 1), 2, dtype=dt.int64, device=dev)
    )
    if T == 0:
        alpha = ops.full((N, L), -math.inf, dtype=log_probs.dtype, device=dev)
    else:
        alpha = ops.where(start_ok, emit[0], -math.inf)
    for t in range(1, T):
        stay = alpha
        step = ops.cat([neg_inf, alpha[:, :-1]], 1)
        jump = ops.where(skip, ops.cat([neg_inf2, alpha[:, :-2]], 1), -math.inf)
        new = _logsumexp([stay, step, jump]) + emit[t]
        alpha = ops.where((t < in_len).unsqueeze(1), new, alpha)
    # The alignments end on the last label or the blank after it.
    last = (tg_len * 2).unsqueeze(1)
    end_blank = alpha.gather(1, last).squeeze(1)
    end_label = ops.where(
        tg_len > 0, alpha.gather(1, (last - 1).clamp(min=0)).squeeze(1), -math.inf
    )
    loss = -_logsumexp([end_blank, end_label])
    if T and N:
        # PyTorch's backward returns exp(log_probs) - posterior, the gradient with respect
        # to the logits of a log_softmax (the two agree after log_softmax's backward, whose
        # rows of the posterior sum to 1): the term below adds exp(log_probs) over each
        # sample's valid times to the gradient, and exactly 0 to the loss.
        valid = (ops.arange(T, device=dev).unsqueeze(1) < in_len.unsqueeze(0)).unsqueeze(2)
        mass = ops.where(valid, log_probs.exp(), 0.0).sum((0, 2))
        loss = loss + (mass - mass.detach())
    if T and N:
        # A sample with no input at all: its loss is 0 for an empty target, inf otherwise.
        none = in_len == 0
        loss = ops.where(none, ops.where(tg_len == 0, 0.0, math.inf), loss)
    if zero_infinity:
        loss = ops.where(loss == math.inf, 0.0, loss)
    if reduction == "mean":
        return (loss / tg_len.clamp(min=1).to(loss.dtype)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)
