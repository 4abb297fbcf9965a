"""``DistributedDataParallel``: one model replica per process, gradients averaged.

At construction the parameters and buffers are broadcast from rank 0, so every replica
starts equal. The parameters are split into buckets (about ``bucket_cap_mb`` each, in reverse
registration order, which is roughly the order backward produces their gradients). A
post-accumulate-grad hook on every parameter marks it ready; when a bucket is complete its
gradients are flattened and an asynchronous all-reduce (``ReduceOp.AVG``) starts while
backward goes on. A callback queued on the autograd engine waits for every bucket at the end
of backward and copies the averages into the ``.grad`` of each parameter.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ... import distributed as dist
from ... import dtypes
from ...autograd import grad_mode
from ...autograd.engine import queue_callback
from ...ops import functions as ops
from ...ops.factories import tensor
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]


class _Bucket:
    def __init__(self, params: list[Any]) -> None:
        self.params = params
        self.ready: set[int] = set()
        self.work: Any = None
        self.flat: Any = None


class DistributedDataParallel(Module):
    """Data-parallel training of ``module`` over the processes of a process group.

    Every process runs the same program on its own shard of the data (a
    :class:`~tensorcore.utils.data.distributed.DistributedSampler`); after ``backward()``
    every replica's ``.grad`` is the average over the processes, so the optimizers take the
    same step everywhere.

    Parameters
    ----------
    module
        The model; its parameters and buffers are broadcast from rank 0 now.
    device_ids, output_device, dim
        Accepted for PyTorch compatibility (one device per process here).
    broadcast_buffers
        Broadcast the buffers (batch-norm statistics) from rank 0 at every forward.
    process_group
        The group to average over; the default group when None.
    bucket_cap_mb
        Size of a gradient bucket, in MiB (default 25, as PyTorch).
    find_unused_parameters
        Allow parameters that get no gradient in an iteration (on some or all ranks): at the
        end of backward their buckets are reduced too (zeros for the missing gradients), and
        a parameter that no rank used keeps ``grad`` None. Without it such a parameter is an
        error, as in PyTorch.

    Examples
    --------
    >>> model = DistributedDataParallel(nn.Linear(4, 2))  # doctest: +SKIP
    >>> model(tc.randn(8, 4)).sum().backward()  # grads averaged across ranks  # doctest: +SKIP
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        process_group: Any = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DistributedDataParallel: module must be an nn.Module, not {type(module).__name__}"
            )
        if not dist.is_initialized():
            raise RuntimeError(
                "DistributedDataParallel: call tensorcore.distributed.init_process_group() "
                "first (and launch with mpiexec or python -m tensorcore.distributed.run)"
            )
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 2**20)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        self._sync_module_states()
        self._buckets = self._make_buckets(params)
        self._bucket_of = {id(p): (b, i) for b in self._buckets for i, p in enumerate(b.params)}
        self._names = {id(p): n for n, p in module.named_parameters()}
        self._queued = False
        self._handles = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]

    def _group_size(self) -> int:
        return dist.get_world_size(self.process_group)

    def _source(self) -> int:
        if self.process_group is None:
            return 0
        return dist.get_process_group_ranks(self.process_group)[0]

    def _sync_module_states(self, buffers_only: bool = False) -> None:
        tensors: list[Any] = [] if buffers_only else list(self.module.parameters())
        tensors += [b for b in self.module.buffers() if b is not None]
        works = [
            dist.broadcast(t.detach(), src=self._source(), group=self.process_group, async_op=True)
            for t in tensors
        ]
        for w in works:
            if w is not None:
                w.wait()

    def _make_buckets(self, params: list[Any]) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        current: list[Any] = []
        size = 0
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if current and (
                p.dtype is not current[0].dtype or size + nbytes > self.bucket_bytes_cap
            ):
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(current))
        return buckets

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Run the wrapped module (after broadcasting its buffers from rank 0)."""
        if (
            self.broadcast_buffers
            and self.require_backward_grad_sync
            and any(True for _ in self.module.buffers())
        ):
            self._sync_module_states(buffers_only=True)
        return self.module(*inputs, **kwargs)

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward accumulates gradients locally without communicating; the first
        backward after it averages the accumulated gradients (gradient accumulation)."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ------------------------------------------------------------------ during backward
    def _on_grad(self, param: Any) -> None:
        if not self.require_backward_grad_sync:
            return
        if not self._queued:
            self._queued = True
            queue_callback(self._finish)
        bucket, i = self._bucket_of[id(param)]
        bucket.ready.add(i)
        if len(bucket.ready) == len(bucket.params):
            self._launch(bucket)
        # Drive the engine's progress on earlier buckets while backward computes.
        for b in self._buckets:
            if b.work is not None:
                b.work.is_completed()

    def _launch(self, bucket: _Bucket) -> None:
        with grad_mode.no_grad():
            parts = []
            for p in bucket.params:
                g = p.grad
                parts.append(ops.zeros(p.numel(), dtype=p.dtype) if g is None else g.reshape(-1))
            bucket.flat = ops.cat(parts)
        bucket.work = dist.all_reduce(
            bucket.flat, op=dist.ReduceOp.AVG, group=self.process_group, async_op=True
        )

    def _finish(self) -> None:
        self._queued = False
        try:
            missing = [b for b in self._buckets if b.work is None]
            if missing and not self.find_unused_parameters:
                names = [
                    self._names.get(id(p), "?")
                    for b in missing
                    for i, p in enumerate(b.params)
                    if i not in b.ready
                ]
                raise RuntimeError(
                    "DistributedDataParallel: parameters got no gradient in this iteration: "
                    f"{', '.join(names)}. Pass find_unused_parameters=True if the forward "
                    "does not use every parameter, and make sure every output takes part "
                    "in the loss"
                )
            used = self._global_use() if self.find_unused_parameters else None
            for b in missing:
                self._launch(b)
            with grad_mode.no_grad():
                for b in self._buckets:
                    b.work.wait()
                    offset = 0
                    for p in b.params:
                        n = p.numel()
                        piece = b.flat[offset : offset + n].view(tuple(p.shape))
                        offset += n
                        if used is not None and not used[id(p)]:
                            continue  # no rank used it: grad stays as it was (None)
                        if p.grad is None:
                            p.grad = piece.clone()
                        else:
                            p.grad.copy_(piece)
        finally:
            for b in self._buckets:
                b.ready.clear()
                b.work = b.flat = None

    def _global_use(self) -> dict[int, bool]:
        """Which parameters got a gradient on at least one rank (PyTorch's used map)."""
        params = [p for b in self._buckets for p in b.params]
        flags = tensor([0 if p.grad is None else 1 for p in params], dtype=dtypes.int32)
        dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.process_group)
        return {id(p): bool(f) for p, f in zip(params, flags.tolist(), strict=True)}
