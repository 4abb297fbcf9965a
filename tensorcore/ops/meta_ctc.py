"""Meta functions of the CTC loss operators (``_ctc_loss`` and ``_ctc_loss_backward``, which
``nn.functional.ctc_loss`` calls): the checks PyTorch's ``ctc_loss_cpu`` makes, with its
messages, and the shapes of the results.

``_ctc_loss`` returns each sample's negative log-likelihood (N,) and the forward variables
``log_alpha`` (N, T, 2 S + 1), S the longest target, which the backward reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor, torch_name

__all__ = ["meta_ctc_loss", "meta_ctc_loss_backward"]

_WHERE = "(while checking arguments for ctc_loss_cpu)"


def _checks(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int,
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The lengths as tuples of ints and the longest target, after PyTorch's checks."""
    if log_probs.ndim != 3:
        raise RuntimeError(
            f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional tensor for "
            f"argument #1 'log_probs' {_WHERE}"
        )
    if targets._dtype.is_floating_point or targets._dtype.is_complex or targets._dtype is dt.bool_:
        raise RuntimeError(
            f"ctc_loss(): expected targets of an integer dtype, got {torch_name(targets._dtype)}"
        )
    if not log_probs.numel():
        raise RuntimeError("log_probs tensor must not be empty")
    steps, batch, classes = log_probs._shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    il, tl = tuple(int(v) for v in input_lengths), tuple(int(v) for v in target_lengths)
    if len(il) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tl) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for n in range(batch):
        if il[n] < 0 or il[n] > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value "
                f"{il[n]} {_WHERE}"
            )
        if tl[n] < 0:
            raise RuntimeError(f"Expected target_lengths to be non-negative, got {tl[n]}")
    longest = max(tl, default=0)
    if targets.ndim == 1:  # the targets of the batch one after the other
        if targets._shape[0] < sum(tl):
            raise RuntimeError(
                f"Expected tensor to have size at least {sum(tl)} at dimension 0, but got "
                f"size {targets._shape[0]} for argument #2 'targets' {_WHERE}"
            )
    elif targets.ndim == 2:  # padded, a row per sample
        if targets._shape[0] != batch:
            raise RuntimeError(
                f"Expected tensor to have size {batch} at dimension 0, but got size "
                f"{targets._shape[0]} for argument #2 'targets' {_WHERE}"
            )
        if targets._shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{targets._shape[1]} for argument #2 'targets' {_WHERE}"
            )
    else:
        raise RuntimeError(f"ctc_loss(): expected targets of 1 or 2 dimensions, got {targets.ndim}")
    return il, tl, longest


def meta_ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    blank: int = 0,
    zero_infinity: bool = False,
) -> Any:
    il, tl, longest = _checks(log_probs, targets, input_lengths, target_lengths, blank)
    steps, batch, _ = log_probs._shape
    d = log_probs._dtype
    args = (log_probs, targets, il, tl, int(blank), bool(zero_infinity))
    return args, (((batch,), d), ((batch, steps, 2 * longest + 1), d))


def meta_ctc_loss_backward(
    grad: Tensor,
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Sequence[int],
    target_lengths: Sequence[int],
    neg_log_likelihood: Tensor,
    log_alpha: Tensor,
    blank: int,
    zero_infinity: bool = False,
) -> Any:
    il, tl, longest = _checks(log_probs, targets, input_lengths, target_lengths, blank)
    steps, batch, _ = log_probs._shape
    for name, t, shape in (
        ("grad", grad, (batch,)),
        ("neg_log_likelihood", neg_log_likelihood, (batch,)),
        ("log_alpha", log_alpha, (batch, steps, 2 * longest + 1)),
    ):
        if t._shape != shape:
            raise RuntimeError(
                f"_ctc_loss_backward(): expected {name} of shape {list(shape)}, got "
                f"{list(t._shape)}"
            )
    args = (
        grad,
        log_probs,
        targets,
        il,
        tl,
        neg_log_likelihood,
        log_alpha,
        int(blank),
        bool(zero_infinity),
    )
    return args, (log_probs._shape, log_probs._dtype)
