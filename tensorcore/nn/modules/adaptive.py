"""``AdaptiveLogSoftmaxWithLoss``: the efficient softmax of Grave et al. (2016) for large
vocabularies, with PyTorch's parameters, outputs and errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class _ASMoutput(NamedTuple):
    """What :meth:`AdaptiveLogSoftmaxWithLoss.forward` returns (PyTorch's name)."""

    output: Tensor
    loss: Tensor


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: the ``cutoffs[0]`` most frequent classes (the shortlist) and one
    entry per cluster of rarer classes share a ``head`` softmax; each cluster
    ``cutoffs[i]..cutoffs[i+1]`` has its own softmax through a ``tail`` projection of
    ``in_features // div_value**(i + 1)`` features. A class's log-probability is its head
    log-probability, or its cluster's head log-probability plus its log-probability within
    the cluster.

    ``forward(input, target)`` returns ``(output, loss)``: each example's log-probability of
    its target and the mean negative log-likelihood (``input`` ``(N, in_features)`` with
    ``target`` ``(N,)``, or ``(in_features,)`` with a 0-d target). :meth:`log_prob` gives
    every class's log-probability, :meth:`predict` the most likely class.

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> asm = tc.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6], div_value=2.0)
    >>> out, loss = asm(tc.randn(4, 8), tc.tensor([0, 4, 7, 9]))
    >>> out.shape, loss.shape, asm.log_prob(tc.randn(4, 8)).exp().sum(1).round().tolist()
    (tensorcore.Size([4]), tensorcore.Size([]), [1.0, 1.0, 1.0, 1.0])
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Sequence[int],
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        kw = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hsz, bias=False, **kw),
                    Linear(hsz, osz, bias=False, **kw),
                )
            )

    def reset_parameters(self) -> None:
        """Re-initialise the head and the tail projections as at construction."""
        self.head.reset_parameters()
        for proj in self.tail:
            for lin in proj:
                lin.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """``(output, loss)``: each example's target log-probability and their mean negative."""
        if target_.ndim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.ndim != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size "
                    f"{input_.shape}"
                )
        elif target_.ndim == 0:
            if input_.ndim != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size "
                    f"{input_.shape}"
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.ndim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.shape[0]
        if n and (bool((target < 0).any()) or bool((target >= self.n_classes).any())):
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        output = ops.zeros(n, dtype=input.dtype, device=input.device)
        # Which head entry each example reads: its class in the shortlist, else its cluster.
        head_index = target
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            in_cluster = (target >= low) & (target < high)
            rows = in_cluster.nonzero().squeeze(1)
            if rows.numel() == 0:
                continue
            head_index = ops.where(in_cluster, self.shortlist_size + i, head_index)
            logprob = F.log_softmax(self.tail[i](input.index_select(0, rows)), dim=1)
            local = logprob.gather(1, (target.index_select(0, rows) - low).unsqueeze(1))
            output = output.index_put([rows], local.squeeze(1))
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = output + head_logprob.gather(1, head_index.to(dt.int64).unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return ops.cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class, ``(N, n_classes)``, for ``(N, in_features)``
        input."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each example (``log_prob(input).argmax(1)``, computing
        the clusters' softmaxes only for the examples whose head argmax is a cluster)."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not bool(outside.any()):
            return output
        if bool(outside.all()):
            return self._full_log_prob(input, head_output).argmax(1)
        output[outside] = self._full_log_prob(input[outside], head_output[outside]).argmax(1)
        return output
