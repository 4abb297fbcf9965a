"""PowerSGD gradient compression for ``DistributedDataParallel`` (PyTorch's
``torch.distributed.algorithms.ddp_comm_hooks.powerSGD_hook``; Vogels et al., NeurIPS 2019).

Each gradient matrix ``M`` (a parameter's gradient viewed as ``(shape[0], -1)``) travels as
two thin factors: with ``Q`` an ``(m, r)`` matrix of orthonormal columns, the ranks
all-reduce ``P = M Q`` (``n x r``), orthogonalise it, all-reduce ``Q = M^T P``, and
approximate the average of ``M`` by ``P Q^T / world_size``: ``(n + m) r`` numbers instead of
``n m``. What the approximation misses is added to the next iteration's gradients (error
feedback), and ``Q`` starts from the previous iteration's (warm start). Vectors, and matrices
too small to be worth it (``min_compression_rate``), are all-reduced as they are; so is
everything before ``start_powerSGD_iter``.

``state`` is a :class:`PowerSGDState`; register the hook with
``model.register_comm_hook(state, powerSGD_hook)``. :func:`batched_powerSGD_hook` compresses
the whole bucket as one square matrix instead (fewer, larger products; a coarser
approximation).

Examples
--------
>>> from tensorcore.distributed.algorithms.ddp_comm_hooks import powerSGD_hook as powerSGD
>>> state = powerSGD.PowerSGDState(process_group=None, matrix_approximation_rank=1,
...                                start_powerSGD_iter=10)  # doctest: +SKIP
>>> model.register_comm_hook(state, powerSGD.powerSGD_hook)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import math
import random
from typing import Any

from ....autograd import grad_mode
from ....futures import Future
from ....ops import functions as ops
from ....random import Generator
from ..._grad_bucket import GradBucket
from ..._group import get_world_size
from .default_hooks import _allreduce_fut, _summed

__all__ = ["PowerSGDState", "batched_powerSGD_hook", "powerSGD_hook"]

logger = logging.getLogger(__name__)


def _orthogonalize(matrix: Any, epsilon: float = 0.0) -> None:
    """Gram-Schmidt, in place, over the columns of ``matrix`` (``(n, r)``): each column is
    normalised (``epsilon`` added to its norm, against a zero column), then removed from
    the columns after it."""
    cols = matrix.shape[1]
    for i in range(cols):
        col = matrix[:, i : i + 1]
        norm = ops.vector_norm(col)
        if epsilon == 0.0 and norm.item() == 0.0:
            logger.error(
                "The matrix to be orthogonalized has at least a column of all 0s. Please "
                "set a small value such as 1e-8 as `orthogonalization_epsilon` in PowerSGD "
                "state."
            )
            col.fill_(0.0)
        else:
            col.div_(norm + epsilon)
        if i + 1 < cols:
            rest = matrix[:, i + 1 :]
            rest.sub_((col * rest).sum(0) * col)


def _should_compress(
    num_rows: int, num_cols: int, rank: int, min_compression_rate: float
) -> tuple[bool, int, int]:
    """Whether an ``(num_rows, num_cols)`` matrix is worth compressing to rank ``rank``
    (more than ``min_compression_rate`` times fewer numbers), and its numbers before and
    after compression."""
    uncompressed = num_rows * num_cols
    compressed = (num_rows + num_cols) * rank
    return compressed * min_compression_rate < uncompressed, uncompressed, compressed


class PowerSGDState:
    """The hyperparameters and the state across iterations of :func:`powerSGD_hook` and
    :func:`batched_powerSGD_hook` (PyTorch's ``PowerSGDState``).

    Parameters
    ----------
    process_group
        The group that reduces the gradients; None for the default group.
    matrix_approximation_rank
        The rank ``r`` of the approximation (1 is often enough; 2 to 4 for harder models).
    start_powerSGD_iter
        Iterations of plain all-reduce first (PowerSGD early in training hurts accuracy;
        at least 2 with error feedback or warm start, as PyTorch requires).
    min_compression_rate
        Compress a matrix only where this makes it this many times smaller.
    use_error_feedback
        Add what the last approximation missed to the next gradients.
    warm_start
        Start each iteration's ``Q`` from the last one's instead of a random matrix.
    orthogonalization_epsilon
        Added to each column's norm in the orthogonalisation (0: exact; a zero column then
        logs an error and stays zero).
    random_seed
        Seeds the random initial ``Q`` (a NumPy ``RandomState``, as PyTorch's; Python's
        ``random`` where NumPy is not installed).
    compression_stats_logging_frequency
        Log the compression rate every this many iterations.
    batch_tensors_with_same_shape
        Accepted for PyTorch's signature (a speed option there; the results are the same).

    Examples
    --------
    >>> from tensorcore.distributed.algorithms.ddp_comm_hooks.powerSGD_hook import PowerSGDState
    >>> state = PowerSGDState(None, matrix_approximation_rank=2, start_powerSGD_iter=5)
    >>> state.matrix_approximation_rank, state.iter, state.compression_stats()
    (2, 0, (0, 0, 0))
    """

    __slots__ = (
        "batch_tensors_with_same_shape",
        "compression_stats_logging_frequency",
        "error_dict",
        "iter",
        "matrix_approximation_rank",
        "min_compression_rate",
        "next_stats_report",
        "orthogonalization_epsilon",
        "p_memory_dict",
        "process_group",
        "q_memory_dict",
        "rng",
        "start_powerSGD_iter",
        "total_numel_after_compression",
        "total_numel_before_compression",
        "use_error_feedback",
        "warm_start",
    )

    def __init__(
        self,
        process_group: Any,
        matrix_approximation_rank: int = 1,
        start_powerSGD_iter: int = 1_000,
        min_compression_rate: float = 2,
        use_error_feedback: bool = True,
        warm_start: bool = True,
        orthogonalization_epsilon: float = 0,
        random_seed: int = 0,
        compression_stats_logging_frequency: int = 10_000,
        batch_tensors_with_same_shape: bool = False,
    ) -> None:
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError(
                "Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or `warm_start` "
                "is enabled, because PowerSGD can only be applied after the first two "
                "iterations in DDP."
            )
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.rng = _seed_source(random_seed)
        self.error_dict: dict[int, Any] = {}
        self.p_memory_dict: dict[int, Any] = {}
        self.q_memory_dict: dict[int, Any] = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape

    def __getstate__(self) -> dict[str, Any]:
        """The state without its process group (which does not pickle), as PyTorch's: a
        checkpoint of the hook's state."""
        return {k: getattr(self, k) for k in self.__slots__ if k != "process_group"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled state; its process group is the default one."""
        self.process_group = None
        for k, v in state.items():
            setattr(self, k, v)

    def maybe_increase_iter(self, bucket: GradBucket) -> None:
        """Count an iteration once its last bucket is reduced."""
        if bucket.is_last():
            self.iter += 1
        if self.iter == self.start_powerSGD_iter:
            logger.info("Start to apply PowerSGD after %s iterations.", self.iter)

    def compression_stats(self) -> tuple[float, int, int]:
        """``(compression rate, numbers before compression, numbers after)``, over every
        compressed bucket so far (0 for all three before the first).

        Examples
        --------
        >>> PowerSGDState(None, start_powerSGD_iter=2).compression_stats()
        (0, 0, 0)
        """
        after = self.total_numel_after_compression
        rate = self.total_numel_before_compression / after if after > 0 else 0
        return rate, self.total_numel_before_compression, after

    def _count(self, bucket: GradBucket, before: int, after: int) -> None:
        """Add a bucket's numbers before and after compression to the totals; log the
        totals at the end of an iteration, every ``compression_stats_logging_frequency``."""
        self.total_numel_before_compression += before
        self.total_numel_after_compression += after
        if bucket.is_last() and self.iter >= self.next_stats_report:
            rate, numel_before, numel_after = self.compression_stats()
            logger.info(
                "Compression stats: iter %s, total before compression %s, total after "
                "compression %s, rate %s",
                self.iter,
                numel_before,
                numel_after,
                rate,
            )
            self.next_stats_report = self.iter + self.compression_stats_logging_frequency


class _PythonSeeds:
    """``RandomState.randint(high)`` over Python's ``random`` where NumPy is not installed
    (the core runs without it; the seeds then differ from PyTorch's)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randint(self, high: int) -> int:
        return self._random.randrange(high)


def _seed_source(seed: int) -> Any:
    """NumPy's ``RandomState(seed)``, as PyTorch's state keeps, so that the random initial
    ``Q`` matches PyTorch's; Python's ``random`` without NumPy."""
    try:
        import numpy as np
    except ImportError:
        return _PythonSeeds(seed)
    return np.random.RandomState(seed)


def _group_size(state: PowerSGDState) -> int:
    return get_world_size(state.process_group)


def _random_into(state: PowerSGDState, qs: list[Any]) -> None:
    """Fill each of ``qs`` with standard normal numbers from a generator seeded by the
    state's RandomState (PyTorch's ``manual_seed`` in a forked RNG), then orthogonalise."""
    gen = Generator().manual_seed(int(state.rng.randint(1_000_000_000)))
    for q in qs:
        q.copy_(ops.randn(tuple(q.shape), generator=gen, dtype=q.dtype))
        _orthogonalize(q, state.orthogonalization_epsilon)


def _error_feedback(state: PowerSGDState, index: int, tensor: Any) -> Any:
    """Add the bucket's last error to ``tensor`` (its buffer, or the batched hook's square);
    a copy of the sum (None without error feedback), from which the next error is
    computed."""
    if not state.use_error_feedback:
        return None
    if index in state.error_dict:
        tensor.add_(state.error_dict[index])
    else:
        logger.info(
            "A zero tensor of length %s that represents local error is created.",
            tensor.numel(),
        )
        state.error_dict[index] = ops.zeros_like(tensor)
    return tensor.clone().detach()


def _plain_before_start(state: PowerSGDState, bucket: GradBucket) -> Future | None:
    """Before ``start_powerSGD_iter``: the plain all-reduce of the bucket (the iteration
    counted); None from then on."""
    if state.iter >= state.start_powerSGD_iter:
        return None
    state.maybe_increase_iter(bucket)
    return _allreduce_fut(state.process_group, bucket.buffer())


def powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future:
    """All-reduce the bucket's gradients compressed by PowerSGD: each gradient of two or more
    dims worth compressing travels as rank-``r`` factors ``P`` and ``Q`` (two all-reduces for
    the bucket), the rest as it is (one all-reduce); the future's value is the bucket's
    buffer, holding the average (approximated) over the group.

    Examples
    --------
    >>> state = PowerSGDState(process_group=None, start_powerSGD_iter=10)  # doctest: +SKIP
    >>> model.register_comm_hook(state, powerSGD_hook)  # doctest: +SKIP
    """
    plain = _plain_before_start(state, bucket)
    if plain is not None:
        return plain
    group, world = state.process_group, _group_size(state)
    buffer = bucket.buffer()
    index = bucket.index()
    with grad_mode.no_grad():
        before = _error_feedback(state, index, buffer)
        vectors, matrices = [], []
        numel_before = numel_after = 0
        for g in bucket.gradients():
            if g.dim() <= 1:
                vectors.append(g)
                continue
            n = g.shape[0]
            m = g.numel() // n
            r = min(n, m, state.matrix_approximation_rank)
            worth, full, small = _should_compress(n, m, r, state.min_compression_rate)
            if worth:
                matrices.append((g.view(n, m), r))
                numel_before += full
                numel_after += small
            else:
                vectors.append(g)
                numel_before += full
                numel_after += full
        state._count(bucket, numel_before, numel_after)
        flat = (
            ops.cat([v.reshape(-1) for v in vectors])
            if vectors
            else ops.empty((0,), dtype=buffer.dtype, device=buffer.device)
        )
        p_size = sum(mat.shape[0] * r for mat, r in matrices)
        q_size = sum(mat.shape[1] * r for mat, r in matrices)
        p_memory, q_memory, fresh = _factor_memory(state, index, (p_size,), (q_size,), buffer)
        ps, qs = _factor_views(p_memory, q_memory, matrices)
        if fresh:
            _random_into(state, qs)
        for (mat, _), q, p in zip(matrices, qs, ps, strict=True):
            ops.matmul(mat, q, out=p)

    def allreduce_ps(fut: Future) -> Any:
        with grad_mode.no_grad():
            summed = fut.value().div_(world)
            at = 0
            for v in vectors:
                v.copy_(summed[at : at + v.numel()].view(tuple(v.shape)))
                at += v.numel()
        return _summed(group, p_memory).wait()

    # (the factors' memory and views as of this call: without warm start, another bucket's
    # end clears the state's dicts while this bucket's reductions are in flight)
    def compute_qs(fut: Future) -> Any:
        with grad_mode.no_grad():
            state.p_memory_dict[index] = fut.value()
            for p in ps:
                _orthogonalize(p, state.orthogonalization_epsilon)
            for (mat, _), p, q in zip(matrices, ps, qs, strict=True):
                ops.matmul(mat.t(), p, out=q)
        return _summed(group, q_memory).wait()

    def decompress(fut: Future) -> Any:
        with grad_mode.no_grad():
            state.q_memory_dict[index] = fut.value().div_(world)
            for (mat, _), p, q in zip(matrices, ps, qs, strict=True):
                ops.matmul(p, q.t(), out=mat)
            _end_of_bucket(state, bucket, before, buffer)
        return buffer

    return _summed(group, flat).then(allreduce_ps).then(compute_qs).then(decompress)


def _factor_memory(
    state: PowerSGDState, index: int, p_shape: tuple[int, ...], q_shape: tuple[int, ...], like: Any
) -> tuple[Any, Any, bool]:
    """The bucket's P and Q memory, ``(p, q, fresh)``: kept from the last iteration under
    warm start, else new (``fresh``: ``Q`` is to be drawn)."""
    fresh = not state.warm_start or index not in state.p_memory_dict
    if fresh:
        state.p_memory_dict[index] = ops.empty(p_shape, dtype=like.dtype, device=like.device)
        state.q_memory_dict[index] = ops.empty(q_shape, dtype=like.dtype, device=like.device)
    return state.p_memory_dict[index], state.q_memory_dict[index], fresh


def _end_of_bucket(state: PowerSGDState, bucket: GradBucket, before: Any, result: Any) -> None:
    """A bucket's approximation is in ``result``: keep what it missed of ``before`` (error
    feedback), forget the factors without warm start, count the iteration."""
    if before is not None:
        state.error_dict[bucket.index()] = before - result
    if not state.warm_start:
        state.p_memory_dict.clear()
        state.q_memory_dict.clear()
    state.maybe_increase_iter(bucket)


def _factor_views(pm: Any, qm: Any, matrices: list[tuple[Any, int]]) -> tuple[list[Any], list[Any]]:
    """The ``P`` (``(n, r)``) and ``Q`` (``(m, r)``) of each matrix, as views of the
    bucket's P and Q memory (``pm``, ``qm``)."""
    ps, qs, pa, qa = [], [], 0, 0
    for mat, r in matrices:
        n, m = mat.shape
        ps.append(pm[pa : pa + n * r].view(n, r))
        qs.append(qm[qa : qa + m * r].view(m, r))
        pa += n * r
        qa += m * r
    return ps, qs


def batched_powerSGD_hook(state: PowerSGDState, bucket: GradBucket) -> Future:
    """PowerSGD over the whole bucket as one square matrix (its buffer zero-padded to
    ``side x side``, ``side = ceil(sqrt(numel))``): two all-reduces of ``side x r`` factors,
    whatever the parameters' shapes. A coarser approximation than :func:`powerSGD_hook`'s;
    a higher ``matrix_approximation_rank`` makes up for it (at most ``side``). The padding
    can leave whole rows of zeros; a rank above the square's own then orthogonalises
    rounding noise, as in PyTorch: keep the rank well below ``side``.

    Examples
    --------
    >>> state = PowerSGDState(process_group=None, start_powerSGD_iter=10)  # doctest: +SKIP
    >>> model.register_comm_hook(state, batched_powerSGD_hook)  # doctest: +SKIP
    """
    plain = _plain_before_start(state, bucket)
    if plain is not None:
        return plain
    group, world = state.process_group, _group_size(state)
    buffer = bucket.buffer()
    index = bucket.index()
    total = buffer.numel()
    side = math.ceil(math.sqrt(total))
    # (at most the side: more columns than rows cannot be orthonormal, as powerSGD_hook
    # bounds each matrix's rank by its dims)
    r = min(side, state.matrix_approximation_rank)
    with grad_mode.no_grad():
        state._count(bucket, total, 2 * side * r)
        square = ops.zeros((side * side,), dtype=buffer.dtype, device=buffer.device)
        square[:total].copy_(buffer)
        matrix = square.view(side, side)
        before = _error_feedback(state, index, matrix)
        p_memory, q_memory, fresh = _factor_memory(state, index, (side, r), (side, r), buffer)
        if fresh:
            if state.warm_start:
                logger.info(
                    "Initializing low-rank tensors P and Q, each of which has a shape of %s x %s.",
                    side,
                    r,
                )
            _random_into(state, [q_memory])
        ops.matmul(matrix, q_memory, out=p_memory)

    def compute_q(fut: Future) -> Any:
        with grad_mode.no_grad():
            p = state.p_memory_dict[index] = fut.value()
            _orthogonalize(p, state.orthogonalization_epsilon)
            ops.matmul(matrix.t(), p, out=q_memory)
        return _summed(group, q_memory).wait()

    def decompress(fut: Future) -> Any:
        with grad_mode.no_grad():
            q = state.q_memory_dict[index] = fut.value().div_(world)
            ops.matmul(p_memory, q.t(), out=matrix)
            _end_of_bucket(state, bucket, before, matrix)
            buffer.copy_(square[:total])
        return buffer

    return _summed(group, p_memory).then(compute_q).then(decompress)
