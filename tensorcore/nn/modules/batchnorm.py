"""The batch-norm layers at PyTorch's module path (``torch.nn.modules.batchnorm``), where
custom normalisation layers find ``_BatchNorm`` to subclass (they are defined in
:mod:`.normalization`, the lazy ones in :mod:`.lazy`), and ``SyncBatchNorm``: batch
normalisation whose statistics span every rank of a process group
(``tensorcore.distributed``), with ``convert_sync_batchnorm``."""

from __future__ import annotations

from typing import Any

from ... import distributed as dist
from ..._tensor import Tensor
from ...autograd.function import Function, FunctionCtx
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from .. import functional as F
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d
from .module import Module
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    _BatchNorm,
    _NormBase,
)

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
    "_BatchNorm",
    "_NormBase",
]


class _GatherStats(Function):
    """Every rank's ``(3, C)`` statistics stacked as ``(world, 3, C)``; the gradient of a
    rank's own statistics is the sum over ranks of the gradients of their copies (each rank's
    loss reads every rank's statistics)."""

    @staticmethod
    def forward(ctx: FunctionCtx, stats: Tensor, group: Any) -> Tensor:
        world = dist.get_world_size(group)
        out = ops.empty((world, *stats.shape), dtype=stats.dtype, device=stats.device)
        dist.all_gather_into_tensor(out, stats.contiguous(), group=group)
        ctx.group, ctx.rank = group, dist.get_rank(group)  # type: ignore[attr-defined]
        return out

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, None]:
        total = grad.contiguous().clone()
        dist.all_reduce(total, group=ctx.group)  # type: ignore[attr-defined]
        return total[ctx.rank], None  # type: ignore[attr-defined]


def _sync_batch_norm(
    x: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    eps: float,
    momentum: float,
    group: Any,
) -> Tensor:
    c = x.shape[1]
    dims = [0, *range(2, x.ndim)]
    shape = [1, c] + [1] * (x.ndim - 2)
    count = x.numel() // c
    # Each rank's count, mean and sum of squared deviations (per channel), combined with
    # Chan et al.'s formula: stabler than one all-reduce of sums and sums of squares.
    if count:
        mean_r = x.mean(dims)
        m2_r = (x - mean_r.reshape(shape)).square().sum(dims)
    else:
        # Zeros, but computed from x: a rank with an empty batch must still take part in
        # the backward's all-reduce, which it reaches only through x's graph.
        mean_r = m2_r = x.sum(dims)
    n_r = ops.full((c,), float(count), dtype=x.dtype, device=x.device)
    stats = _GatherStats.apply(ops.stack([n_r, mean_r, m2_r]), group)
    n, means, m2s = stats[:, 0], stats[:, 1], stats[:, 2]
    total = n.sum(0)
    if total[0].item() <= 1:
        raise ValueError(
            "Expected more than 1 value per channel when training, got input size "
            f"{list(x.shape)} on this rank and {int(total[0].item())} values per channel in all"
        )
    mean = (n * means).sum(0) / total
    m2 = m2s.sum(0) + (n * (means - mean).square()).sum(0)
    var = m2 / total
    if running_mean is not None and running_var is not None:
        with no_grad():
            running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)
            unbiased = m2.detach() / (total - 1)
            running_var.mul_(1 - momentum).add_(unbiased * momentum)
    out = (x - mean.reshape(shape)) * (var + eps).rsqrt().reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over N-D input ``(N, C, *)`` whose batch statistics, in training,
    are those of the union of the batches of every rank of ``process_group`` (the default
    group when None): the ranks gather each other's per-channel counts, means and sums of
    squared deviations, and the gradient flows back across ranks, so that ``k`` ranks with
    ``1/k`` of a batch each compute what :class:`BatchNorm2d` computes on the whole batch.

    Outside a process group, with a group of one rank, and in eval mode it is plain batch
    normalisation (PyTorch falls back the same way; unlike PyTorch, which synchronises only
    GPU tensors, it synchronises tensors of any device the group's backend moves).

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Sequential(tc.nn.Conv2d(3, 4, 3), tc.nn.BatchNorm2d(4))
    >>> net = tc.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    >>> net[1]
    SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> net(tc.randn(2, 3, 5, 5)).shape  # no process group: plain batch normalisation
    tensorcore.Size([2, 4, 3, 3])
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        """Synchronised batch statistics in training inside a process group of more than
        one rank; :class:`BatchNorm2d`'s computation otherwise."""
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        running_mean, running_var, bn_training, momentum = self._statistics()
        group = self.process_group
        sync = bn_training and self.training and dist.is_initialized()
        if sync:
            group = dist.GroupMember.WORLD if group is None else group
            sync = dist.get_world_size(group) > 1
        if not sync:
            return F.batch_norm(
                input, running_mean, running_var, self.weight, self.bias, bn_training,
                momentum, self.eps,
            )  # fmt: skip
        return _sync_batch_norm(
            input, self.weight, self.bias, running_mean, running_var, self.eps, momentum, group
        )

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """Replace every ``BatchNorm1d/2d/3d`` in ``module`` (recursively; ``module`` itself
        included, which is then returned in its place) by a :class:`SyncBatchNorm` that
        keeps its parameters, buffers and training mode (the same tensors, not copies)."""
        out = module
        if isinstance(module, _BatchNorm):
            out = cls(
                module.num_features, module.eps, module.momentum, module.affine,
                module.track_running_stats, process_group, bias=module.bias is not None,
            )  # fmt: skip
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
