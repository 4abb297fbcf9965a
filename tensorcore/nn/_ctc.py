"""The Connectionist Temporal Classification loss (``F.ctc_loss``): the negative log of the
total probability of every alignment of a target with an input sequence.

The per-sample losses come from PyTorch's ``_ctc_loss`` operator (its kernel runs the forward
recursion over time, vectorised over the samples and the target's states; its gradient is
the ``_ctc_loss_backward`` operator); this module converts the lengths and reduces.
"""

from __future__ import annotations

import math
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name
from ..ops import functions as ops
from ..ops._validate import checked
from ..ops.factories import tensor as _tensor
from ._activations import _nn_op
from ._losses import _check_reduction

__all__ = ["ctc_loss"]


def _lengths(x: Any) -> list[int]:
    """The lengths as ints (a tensor of them is read on the host, as PyTorch's CPU and CUDA
    kernels both do)."""
    if isinstance(x, Tensor):
        return [int(v) for v in x.reshape(-1).tolist()]
    return [int(v) for v in x]


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
    in_len, tg_len = _lengths(input_lengths), _lengths(target_lengths)
    loss = _nn_op("_ctc_loss", log_probs, targets, in_len, tg_len, blank, zero_infinity)[0]
    if zero_infinity:
        loss = ops.where(loss == math.inf, 0.0, loss)
    if reduction == "mean":
        sizes = _tensor(tg_len, dtype=loss.dtype, device=loss.device)
        return (loss / sizes.clamp(min=1)).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.squeeze(0)
