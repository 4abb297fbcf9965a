"""``DistributedDataParallel``: one model replica per process, gradients averaged.

At construction the parameters and buffers are broadcast from rank 0, so every replica
starts equal. The parameters are split into buckets (about ``bucket_cap_mb`` each, in reverse
registration order, which is roughly the order backward produces their gradients). A
post-accumulate-grad hook on every parameter marks it ready; when a bucket is complete and
every bucket before it has started, its gradients are flattened and an asynchronous
all-reduce (``ReduceOp.AVG``) starts while backward goes on. Buckets start in their fixed
order on every rank, as in PyTorch, so the ranks' collectives match whatever order their
gradients arrive in. A callback queued on the autograd engine waits for every bucket at the
end of backward and copies the averages into the ``.grad`` of each parameter.

With ``find_unused_parameters=True`` the forward ends with a walk of the autograd graph from
its outputs (``grad_fn.next_functions`` down to the parameters' ``AccumulateGrad`` nodes,
PyTorch's ``prepare_for_backward``): the parameters it does not reach get no gradient in this
backward, so they are marked ready when backward begins (at the first gradient hook), and the
buckets still fill and start during backward. At its end, the ranks all-reduce which
parameters got a gradient; one that no rank used keeps its ``grad``.

Sparse gradients (the weight of an ``Embedding(sparse=True)``) have a bucket each and never
enter the dense path: their indices and values are all-gathered (padded to the largest
``nnz`` of the group, after one small all-gather of the counts), concatenated, coalesced and
divided by the group's size, which is the average of the ranks' sparse gradients.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ... import distributed as dist
from ... import dtypes
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd.engine import queue_callback
from ...autograd.graph import AccumulateGrad
from ...ops import functions as ops
from ...ops.factories import tensor
from ...plugins import manager
from ..modules.module import Module
from ..modules.sparse import Embedding

__all__ = ["DistributedDataParallel"]


class _Bucket:
    def __init__(self, params: list[Any], sparse: bool = False) -> None:
        self.params = params
        # One parameter whose gradient is a sparse COO tensor (reduced by all-gathers).
        self.sparse = sparse
        self.ready: set[int] = set()
        self.works: list[Any] = []
        self.flat: Any = None

    @property
    def launched(self) -> bool:
        return bool(self.works)


def _tensors(obj: Any) -> Iterator[Any]:
    """The tensors of a forward's output: a tensor, or nested lists, tuples and dicts of
    them (PyTorch's ``_find_tensors``)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o)


def _reachable(outputs: Any) -> set[int]:
    """The ids of the leaves that backward from ``outputs`` can reach: the variables of the
    ``AccumulateGrad`` nodes found through ``next_functions``, and outputs that are leaves."""
    found: set[int] = set()
    seen: set[int] = set()
    stack = []
    for t in _tensors(outputs):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            found.add(id(t))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            if leaf is not None:
                found.add(id(leaf))
            continue
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return found


def _check_annotations(hook: Any) -> None:
    """PyTorch's check of a comm hook's annotations (where it has them; names written as
    strings, under ``from __future__ import annotations``, count by their last part)."""

    def named(annotation: Any, *names: str) -> bool:
        if annotation is inspect.Parameter.empty:
            return True
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        return text.split("[")[0].rsplit(".", 1)[-1] in names

    sig = inspect.signature(hook)
    bucket = sig.parameters.get("bucket")
    if bucket is not None and not named(bucket.annotation, "GradBucket"):
        raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
    if not named(sig.return_annotation, "Future"):
        raise ValueError(
            "Communication hook: return annotation should be tensorcore.futures.Future[Tensor]."
        )


def _sparse_params(module: Module) -> set[int]:
    """The parameters whose gradients are sparse (PyTorch's ``expect_sparse_gradient``)."""
    return {id(m.weight) for m in module.modules() if isinstance(m, Embedding) and m.sparse}


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
        Allow parameters that get no gradient in an iteration (on some or all ranks): each
        forward walks the autograd graph from its outputs, and the parameters it does not
        reach are marked ready when backward begins, so that their buckets (zeros for the
        missing gradients) still start while backward goes on; a parameter that no rank used
        keeps its ``grad`` (None). Without it such a parameter is an error, as in PyTorch. A
        parameter that the walk does not reach but that gets a gradient anyway (used outside
        the forward, or in an earlier forward of the same backward) is an error too.

    The weight of an ``Embedding(sparse=True)`` keeps a sparse gradient: it is averaged
    through all-gathers of its indices and values (see the module's docstring), so the
    optimizer (``SparseAdam``, ``SGD``) sees the same sparse gradient on every rank.

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
        params = self._params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        self._sync_module_states()
        self._sparse = _sparse_params(module)
        self._buckets = self._make_buckets(params)
        self._bucket_of = {id(p): (b, i) for b in self._buckets for i, p in enumerate(b.params)}
        self._names = {id(p): n for n, p in module.named_parameters()}
        self._index = {id(p): i for i, p in enumerate(params)}
        # The parameters (their indices) that got no gradient in a backward that left its
        # reduction unfinished (no find_unused_parameters): the next forward raises, as
        # PyTorch's does.
        self._unfinished: list[int] = []
        # One backward's state: whether the last forward expects one that synchronises, the
        # parameters it did not reach (find_unused_parameters), whether the backward has
        # begun (the finishing callback queued), the next bucket to start, and the ids of
        # the parameters that got a gradient.
        self._expect = False
        self._unused: list[Any] = []
        self._begun = False
        self._next_bucket = 0
        self._used: set[int] = set()
        self._handles = [p.register_post_accumulate_grad_hook(self._on_grad) for p in params]
        # register_comm_hook's (state, hook): the hook reduces each dense bucket instead of
        # the built-in all-reduce (AVG).
        self._comm_hook: tuple[Any, Any] | None = None

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
            if id(p) in self._sparse:
                buckets.append(_Bucket([p], sparse=True))
                continue
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
        """Run the wrapped module (after broadcasting its buffers from rank 0) and prepare
        the backward of its outputs: one that averages the gradients, unless under
        :meth:`no_sync` or without grad mode (as in PyTorch, the forward decides)."""
        if (
            self.broadcast_buffers
            and self.require_backward_grad_sync
            and any(True for _ in self.module.buffers())
        ):
            self._sync_module_states(buffers_only=True)
        out = self.module(*inputs, **kwargs)
        self._expect = grad_mode.is_grad_enabled() and self.require_backward_grad_sync
        if self._expect and self._unfinished:
            self._expect = False
            raise RuntimeError(self._unfinished_message())
        if self._expect and self.find_unused_parameters:
            reached = _reachable(out)
            self._unused = [p for b in self._buckets for p in b.params if id(p) not in reached]
        else:
            self._unused = []
        return out

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward accumulates gradients locally without communicating; the first
        backward of a forward after it averages the accumulated gradients (gradient
        accumulation). The forward must run inside it, as in PyTorch: the forward decides
        whether its backward communicates."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    # ------------------------------------------------------------------ during backward
    def _on_grad(self, param: Any) -> None:
        # Used, also in a backward that does not synchronise (no_sync): the gradient it
        # accumulates is averaged by the next one that does.
        self._used.add(id(param))
        if not self._expect:
            return
        if not self._begun:
            self._begin()
        bucket, i = self._bucket_of[id(param)]
        if i in bucket.ready:
            raise RuntimeError(
                "DistributedDataParallel: expected to mark a variable ready only once; "
                f"parameter {self._names.get(id(param), '?')} got a gradient after the "
                "forward's graph showed it unused (find_unused_parameters=True): it is used "
                "outside the module's forward, or in another forward before this backward"
            )
        bucket.ready.add(i)
        if len(bucket.ready) == len(bucket.params):
            self._launch_ready()
        # Drive the engine's progress on earlier buckets while backward computes (a comm
        # hook's futures are driven when waited for).
        if self._comm_hook is None:
            for b in self._buckets:
                for w in b.works:
                    w.is_completed()

    def _begin(self) -> None:
        """The backward's first gradient: queue the finishing callback, and mark the
        parameters the forward's graph does not reach ready (they get no gradient)."""
        self._begun = True
        queue_callback(self._finish)
        for p in self._unused:
            bucket, i = self._bucket_of[id(p)]
            bucket.ready.add(i)
        if self._unused:
            self._launch_ready()

    def _launch_ready(self) -> None:
        """Start the complete buckets, in bucket order: a bucket starts only after every
        bucket before it, so that every rank starts them in one order."""
        buckets = self._buckets
        while self._next_bucket < len(buckets):
            b = buckets[self._next_bucket]
            if len(b.ready) < len(b.params):
                return
            self._launch(b)
            self._next_bucket += 1

    def _launch(self, bucket: _Bucket) -> None:
        if bucket.sparse:
            self._launch_sparse(bucket)
            return
        with grad_mode.no_grad():
            parts = []
            for p in bucket.params:
                g = p.grad
                if g is not None and g.is_sparse:
                    raise RuntimeError(
                        f"DistributedDataParallel: parameter {self._names.get(id(p), '?')} got "
                        "a sparse gradient, but only the weights of Embedding(sparse=True) "
                        "modules are expected to have one"
                    )
                parts.append(
                    ops.zeros(p.numel(), dtype=p.dtype, device=p.device)
                    if g is None
                    else g.reshape(-1)
                )
            bucket.flat = ops.cat(parts)
        if self._comm_hook is not None:
            state, hook = self._comm_hook
            index = self._buckets.index(bucket)
            grad_bucket = dist.GradBucket(index, bucket.flat, bucket.params,
                                          is_last=index == len(self._buckets) - 1)  # fmt: skip
            bucket.works = [hook(state, grad_bucket)]
            return
        work = dist.all_reduce(
            bucket.flat, op=dist.ReduceOp.AVG, group=self.process_group, async_op=True
        )
        bucket.works = [work]

    def _launch_sparse(self, bucket: _Bucket) -> None:
        """All-gather the indices and values of a sparse gradient (padded to the largest
        ``nnz`` of the group); :meth:`_sparse_average` assembles the average."""
        (p,) = bucket.params
        g = p.grad
        with grad_mode.no_grad():
            if g is None:  # unused on this rank: it contributes nothing
                idx = ops.zeros((0, 1), dtype=dtypes.int64, device=p.device)
                vals = ops.zeros((0, *tuple(p.shape)[1:]), dtype=p.dtype, device=p.device)
            elif not g.is_sparse:
                raise RuntimeError(
                    f"DistributedDataParallel: parameter {self._names.get(id(p), '?')} (the "
                    "weight of an Embedding(sparse=True)) got a dense gradient; use it only "
                    "through the embedding, or make the embedding dense"
                )
            else:
                g = g.coalesce()
                idx, vals = g._indices().t().contiguous(), g._values().contiguous()
            n = self._group_size()
            counts = ops.zeros((n,), dtype=dtypes.int64, device=p.device)
            mine = tensor([idx.shape[0]], device=p.device)
            dist.all_gather_into_tensor(counts, mine, group=self.process_group)
            sizes = counts.tolist()
            most = max(sizes)
            pad = most - idx.shape[0]
            if pad:
                dev = p.device
                idx = ops.cat([idx, ops.zeros((pad, idx.shape[1]), dtype=idx.dtype, device=dev)])
                rows = (pad, *tuple(vals.shape)[1:])
                vals = ops.cat([vals, ops.zeros(rows, dtype=vals.dtype, device=dev)])
            all_idx = ops.empty((n * most, idx.shape[1]), dtype=idx.dtype, device=p.device)
            all_vals = ops.empty((n * most, *tuple(vals.shape)[1:]), dtype=vals.dtype,
                                 device=p.device)  # fmt: skip
            bucket.flat = (all_idx, all_vals, sizes, most)
        kw: dict[str, Any] = {"group": self.process_group, "async_op": True}
        bucket.works = [
            dist.all_gather_into_tensor(all_idx, idx, **kw),
            dist.all_gather_into_tensor(all_vals, vals, **kw),
        ]

    def _sparse_average(self, bucket: _Bucket) -> Any:
        """The average of the ranks' sparse gradients of the bucket's parameter, coalesced."""
        (p,) = bucket.params
        all_idx, all_vals, sizes, most = bucket.flat
        keep = [slice(r * most, r * most + c) for r, c in enumerate(sizes)]
        idx = ops.cat([all_idx[k] for k in keep]).t()
        vals = ops.cat([all_vals[k] for k in keep])
        make = manager.attributes["sparse_coo_tensor"][0]
        total = make(idx, vals, tuple(p.shape), check_invariants=False).coalesce()
        avg = total._values() / len(sizes)
        return make(total._indices(), avg, tuple(p.shape), check_invariants=False,
                    is_coalesced=True)  # fmt: skip

    def _unfinished_message(self) -> str:
        """PyTorch's words for a forward after a backward that left parameters without a
        gradient (``find_unused_parameters=False``)."""
        rank = dist.get_rank()
        by_index = {i: self._names.get(id(p), "?") for p in self._params
                    for i in (self._index[id(p)],)}  # fmt: skip
        detail = ""
        if dist.get_debug_level() != dist.DebugLevel.OFF:
            names = ", ".join(by_index[i] for i in self._unfinished)
            detail = f"Parameters which did not receive grad for rank {rank}: {names}\n"
        return (
            "Expected to have finished reduction in the prior iteration before starting a "
            "new one. This error indicates that your module has parameters that were not "
            "used in producing loss. You can enable unused parameter detection by passing "
            "the keyword argument `find_unused_parameters=True` to "
            "`tensorcore.nn.parallel.DistributedDataParallel`, and by \nmaking sure all "
            "`forward` function outputs participate in calculating loss. \nIf you already "
            "have done the above, then the distributed data parallel module wasn't able to "
            "locate the output tensors in the return value of your module's `forward` "
            "function. Please include the loss function and the structure of the return "
            "value of `forward` of your module when reporting this issue (e.g. list, dict, "
            f"iterable).\n{detail}Parameter indices which did not receive grad for rank "
            f"{rank}: {' '.join(str(i) for i in self._unfinished)}"
            + (
                ""
                if detail
                else "\n In addition, you can set the environment variable "
                "TENSORCORE_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
                "information about which particular parameters did not receive gradient "
                "on this rank as part of this error"
            )
        )

    def _finish(self) -> None:
        try:
            missing = [b for b in self._buckets if not b.launched]
            if missing and not self.find_unused_parameters:
                # As in PyTorch, the backward ends without an error: the buckets that
                # started are averaged, the others' gradients stay this rank's own, and
                # the next forward that synchronises raises, naming the parameters.
                self._unfinished = sorted(
                    self._index[id(p)]
                    for b in missing
                    for i, p in enumerate(b.params)
                    if i not in b.ready
                )
                missing = []
            # The buckets still waiting (a parameter the graph reaches that got no gradient
            # after all): started now, in order, before anything else is all-reduced.
            for b in missing:
                self._launch(b)
            used = self._global_use() if self.find_unused_parameters else None
            with grad_mode.no_grad():
                for b in self._buckets:
                    if not b.works:  # not started (the reduction left unfinished)
                        continue
                    for w in b.works:
                        w.wait()
                    if self._comm_hook is not None and not b.sparse:
                        b.flat = self._hook_result(b)
                    if b.sparse:
                        (p,) = b.params
                        if used is None or used[id(p)]:
                            p.grad = self._sparse_average(b)
                        continue
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
                b.works, b.flat = [], None
            self._expect = self._begun = False
            self._unused = []
            self._next_bucket = 0
            self._used = set()

    def _hook_result(self, bucket: _Bucket) -> Any:
        """The flat tensor the comm hook's future gave for ``bucket`` (a tensor, or a list of
        one), checked against the bucket's size."""
        (fut,) = bucket.works
        value = fut.value()
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if not isinstance(value, Tensor) or value.numel() != bucket.flat.numel():
            got = (f"a tensor of {value.numel()} elements" if isinstance(value, Tensor)
                   else type(value).__name__)  # fmt: skip
            raise RuntimeError(
                "DistributedDataParallel: the communication hook's future must hold the "
                f"bucket's reduced buffer, a tensor of {bucket.flat.numel()} elements; got {got}"
            )
        return value.reshape(-1)

    def register_comm_hook(self, state: object, hook: Any) -> None:
        """Reduce the gradient buckets with ``hook(state, bucket)`` instead of the built-in
        average (PyTorch's ``register_comm_hook``).

        ``bucket`` is a :class:`tensorcore.distributed.GradBucket` (its flat gradients,
        their parameters, its index); the hook starts the bucket's communication and returns
        a :class:`tensorcore.futures.Future` of the reduced flat tensor (or a list of one),
        which DDP waits for at the end of backward and copies into the ``.grad`` of the
        parameters. It is called on every rank, for the buckets in one order, while backward
        goes on. ``state`` is whatever the hook needs (for the hooks of
        ``tensorcore.distributed.algorithms.ddp_comm_hooks.default_hooks``, the process
        group, None for the default one). Call it once, before the first backward. The
        sparse gradients of ``Embedding(sparse=True)`` keep their own path.

        Raises
        ------
        TypeError
            When ``hook`` is not callable.
        ValueError
            When ``hook``'s ``bucket`` or return annotation is not ``GradBucket`` or
            ``Future`` (PyTorch's words).
        RuntimeError
            On a second call.

        Examples
        --------
        >>> from tensorcore.distributed.algorithms.ddp_comm_hooks import default_hooks
        >>> ddp.register_comm_hook(None, default_hooks.allreduce_hook)  # doctest: +SKIP
        """
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        _check_annotations(hook)
        if self._comm_hook is not None:
            raise RuntimeError(
                "register_comm_hook or register_builtin_comm_hook can only be called once."
            )
        self._comm_hook = (state, hook)

    def _global_use(self) -> dict[int, bool]:
        """Which parameters got a gradient on at least one rank (PyTorch's used map)."""
        params = [p for b in self._buckets for p in b.params]
        # (on the parameters' device: the group may move only that device's tensors)
        flags = tensor([int(id(p) in self._used) for p in params], dtype=dtypes.int32,
                       device=params[0].device if params else None)  # fmt: skip
        dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.process_group)
        return {id(p): bool(f) for p, f in zip(params, flags.tolist(), strict=True)}
