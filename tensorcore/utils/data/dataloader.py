"""``DataLoader``: batches from a dataset, in the main process or in worker processes
(``num_workers > 0``, through ``multiprocessing``), with PyTorch's options and semantics."""

from __future__ import annotations

import multiprocessing
import queue
import random
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ... import random as tc_random
from ..._pinned import pinning_interface
from ...ops import functions as ops
from ...ops.factories import tensor
from ._collate import default_collate, default_convert
from ._pin_memory import pin_memory as _pin_batch
from .dataset import Dataset, IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "WorkerInfo", "get_worker_info"]


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker process."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """This worker's :class:`WorkerInfo` inside a ``DataLoader`` worker process; None in the
    main process."""
    return _worker_info


class _IterableEnd:
    """A worker's iterable dataset is exhausted."""


#: The job that starts a persistent worker's next epoch (a string: it survives pickling).
_RESET = "tensorcore.utils.data.reset"


class _WorkerError:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, worker_id: int, exc: BaseException) -> None:
        self.exc_type = type(exc)
        self.text = (
            f"Caught {type(exc).__name__} in DataLoader worker process {worker_id}.\n"
            f"Original {''.join(traceback.format_exception(exc))}"
        )

    def reraise(self) -> None:
        try:
            err = self.exc_type(self.text)
        except Exception:  # noqa: BLE001 - an exception type that takes other arguments
            err = RuntimeError(self.text)
        raise err


def _fetch(dataset: Any, indices: Any, auto_collation: bool, collate_fn: Callable[..., Any]) -> Any:
    if not auto_collation:
        return collate_fn(dataset[indices])
    if collate_fn is default_collate and type(dataset) is TensorDataset:
        # One gather per tensor instead of stacking batch_size rows: the same batch.
        idx = tensor(indices, device=dataset.tensors[0].device)
        return [t.index_select(0, idx.to(t.device)) for t in dataset.tensors]
    getitems = getattr(dataset, "__getitems__", None)
    samples = getitems(indices) if getitems is not None else [dataset[i] for i in indices]
    return collate_fn(samples)


def _worker_loop(
    dataset: Any,
    index_queue: Any,
    result_queue: Any,
    auto_collation: bool,
    collate_fn: Callable[..., Any],
    drop_last: bool,
    batch_size: int | None,
    worker_id: int,
    num_workers: int,
    seed: int,
    init_fn: Callable[[int], Any] | None,
) -> None:
    global _worker_info
    tc_random.manual_seed(seed)
    random.seed(seed)
    np = sys.modules.get("numpy")  # (loaded by the program: tensorcore does not import it)
    if np is not None:
        # As PyTorch's workers do: NumPy's global stream seeded from the base seed and the
        # worker's id (NumPy's SeedSequence of those words), so that the workers' NumPy
        # augmentations differ from each other's and from one epoch to the next.
        base = seed - worker_id
        words = [worker_id, base & 0xFFFFFFFF, base >> 32, 0]
        np.random.seed(np.random.SeedSequence(words).generate_state(4))
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    try:
        if init_fn is not None:
            init_fn(worker_id)
        stream = iter(dataset) if isinstance(dataset, IterableDataset) else None
    except Exception as exc:  # noqa: BLE001 - reported to the main process
        result_queue.put((None, _WorkerError(worker_id, exc)))
        stream = None
        dataset = None
    while True:
        job = index_queue.get()
        if job is None:
            break
        task, indices = job
        if indices.__class__ is str and indices == _RESET:
            # A persistent worker's next epoch: an iterable dataset starts over.
            if stream is not None:
                stream = iter(dataset)
            continue
        try:
            if dataset is None:
                continue
            if stream is not None:
                batch = _next_stream_batch(stream, auto_collation, batch_size, drop_last)
                data: Any = _IterableEnd() if batch is None else collate_fn(batch)
            else:
                data = _fetch(dataset, indices, auto_collation, collate_fn)
        except Exception as exc:  # noqa: BLE001 - reported to the main process
            data = _WorkerError(worker_id, exc)
        result_queue.put((task, data))


def _next_stream_batch(
    stream: Iterator[Any], auto_collation: bool, batch_size: int | None, drop_last: bool
) -> Any:
    """The next sample (or list of samples) of an iterable dataset; None at its end."""
    if not auto_collation:
        try:
            return next(stream)
        except StopIteration:
            return None
    assert batch_size is not None
    batch = []
    for item in stream:
        batch.append(item)
        if len(batch) == batch_size:
            return batch
    if not batch or (drop_last and len(batch) < batch_size):
        return None
    return batch


class DataLoader:
    """Iterate over ``dataset`` in batches.

    A map-style dataset is read in the order of ``sampler`` (``shuffle=True``: a
    ``RandomSampler`` with ``generator``), grouped by ``batch_size`` (the last batch shorter
    unless ``drop_last``) and collated by ``collate_fn`` (:func:`default_collate`).
    ``batch_size=None`` yields single samples through :func:`default_convert`.
    ``num_workers > 0`` fetches batches in that many processes (``multiprocessing``; the
    dataset, samples and ``collate_fn`` must pickle under the spawn start method), keeping
    the order; each worker is seeded (``base_seed + worker id``) and sees
    :func:`get_worker_info`. ``persistent_workers=True`` keeps the worker processes (with
    their dataset copies and seeds) from one epoch to the next, as PyTorch does, instead of
    starting them for each epoch.

    ``pin_memory=True`` copies the tensors of each batch (inside tuples, lists, dicts and
    named tuples; a custom batch type's own ``pin_memory()``) into pinned (page-locked) host
    memory, from which an accelerator copies faster and asynchronously
    (``batch.to("cuda", non_blocking=True)``); the main process pins, whatever
    ``num_workers``. The memory comes from the first available accelerator backend that can
    pin (``tensorcore-cuda``), or the device type ``pin_memory_device`` names where that one
    can (PyTorch 2.7 deprecated the argument, having one accelerator at a time). Where none
    can, each iteration warns as PyTorch does and the batches stay unpinned.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(tc.arange(10.0), tc.arange(10))
    >>> [y.tolist() for _, y in DataLoader(ds, batch_size=4)]
    [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    >>> len(DataLoader(ds, batch_size=4, drop_last=True))
    2
    """

    def __init__(
        self,
        dataset: Dataset[Any],
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing.let "
                "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to "
                "None."
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers else prefetch_factor
        self.pin_memory, self.timeout = pin_memory, timeout
        self.pin_memory_device = pin_memory_device
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = _start_context(multiprocessing_context, num_workers)
        self.in_order = in_order  # (batches always come in order, which out of order allows)
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._pool: _WorkerPool | None = None  # the persistent workers, once started
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but "
                    f"got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, but "
                    f"got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                    f"but got batch_sampler={batch_sampler}"
                )
        elif shuffle not in (None, False) and sampler is not None:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None and not self._iterable:
            sampler = (
                RandomSampler(dataset, generator=generator) if shuffle
                else SequentialSampler(dataset)
            )  # fmt: skip
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._iterable and self.batch_size is not None)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        src: Any = self.batch_sampler if self.batch_sampler is not None else self.sampler
        return len(src)

    def _index_stream(self) -> Iterator[Any]:
        if self._iterable:
            while True:
                yield None
        src = self.batch_sampler if self.batch_sampler is not None else self.sampler
        yield from src

    def __iter__(self) -> Iterator[Any]:
        # Every epoch draws the workers' base seed first (also without workers), as
        # PyTorch's loader iterators do: a seeded generator then shuffles as it does there.
        # Persistent workers that live on keep their seed, and there no draw is made.
        pool = self._pool
        base_seed = (
            -1
            if pool is not None and pool.healthy()
            else int(ops.randint(0, 2**63, (1,), generator=self.generator).item())
        )
        pinning = self._pinning()
        batches = (
            self._single_process() if self.num_workers == 0 else self._multi_process(base_seed)
        )
        if pinning is None:
            return batches
        return (_pin_batch(batch, pinning) for batch in batches)

    def _pinning(self) -> str | None:
        """The device type whose backend pins the batches; None (with PyTorch's warning,
        once per iteration as there) when pinning is asked for and no backend can."""
        if not self.pin_memory:
            return None
        try:
            iface = pinning_interface(self.pin_memory_device or None)
        except RuntimeError:
            # A pin_memory_device that cannot pin here: the first accelerator that can, as
            # PyTorch >= 2.7 always takes the current one.
            iface = pinning_interface()
        if iface is None:
            warnings.warn(
                "'pin_memory' argument is set as true but no accelerator is found, then "
                "device pinned memory won't be used.",
                stacklevel=3,
            )
            return None
        return iface.type

    def _single_process(self) -> Iterator[Any]:
        if self._iterable:
            stream = iter(self.dataset)
            while True:
                batch = _next_stream_batch(
                    stream, self._auto_collation, self.batch_size, self.drop_last
                )
                if batch is None:
                    return
                yield self.collate_fn(batch)
        order = self._tensor_order()
        if order is not None:
            # A TensorDataset batched by a plain BatchSampler: slices of one index tensor,
            # the batches the generic path gives, without a Python int per sample.
            ds: Any = self.dataset
            bs = self.batch_sampler.batch_size
            n = order.shape[0]
            stop = n - n % bs if self.batch_sampler.drop_last else n
            for i in range(0, stop, bs):
                idx = order[i : i + bs]
                yield [t.index_select(0, idx.to(t.device)) for t in ds.tensors]
            return
        for indices in self._index_stream():
            yield _fetch(self.dataset, indices, self._auto_collation, self.collate_fn)

    def _tensor_order(self) -> Any:
        bsm = self.batch_sampler
        if type(bsm) is not BatchSampler:
            return None
        sampler: Any = bsm.sampler
        if (
            type(self.dataset) is not TensorDataset
            or self.collate_fn is not default_collate
            or type(sampler) not in (RandomSampler, SequentialSampler)
        ):
            return None
        return sampler._order()

    def _multi_process(self, base_seed: int) -> Iterator[Any]:
        pool = self._pool
        if pool is not None and not pool.healthy():
            pool.shutdown()
            pool = self._pool = None
        if pool is None:
            if base_seed < 0:  # (the kept workers died since iter() looked)
                base_seed = int(ops.randint(0, 2**63, (1,), generator=self.generator).item())
            pool = _WorkerPool(self, base_seed)
            if self.persistent_workers:
                self._pool = pool
        else:
            pool.next_epoch()
        try:
            yield from self._ordered_results(pool)
        finally:
            if pool is not self._pool:
                pool.shutdown()

    def __del__(self) -> None:
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown()

    def _ordered_results(self, pool: _WorkerPool) -> Iterator[Any]:
        index_queues, results, workers = pool.index_queues, pool.results, pool.workers
        epoch = pool.epoch
        indices = self._index_stream()
        n = self.num_workers
        outstanding: dict[int, int] = {}  # task -> worker
        done: dict[int, Any] = {}
        alive = set(range(n))  # workers whose iterable stream has not ended
        next_task, next_yield = 0, 0
        exhausted = False
        depth = (self.prefetch_factor or 2) * n

        def submit() -> None:
            nonlocal next_task, exhausted
            while not exhausted and len(outstanding) < depth and alive:
                try:
                    idx = next(indices)
                except StopIteration:
                    exhausted = True
                    return
                wid = sorted(alive)[next_task % len(alive)] if self._iterable else next_task % n
                index_queues[wid].put(((epoch, next_task), idx))
                outstanding[next_task] = wid
                next_task += 1

        submit()
        while outstanding or next_yield in done:
            if next_yield in done:
                data = done.pop(next_yield)
                next_yield += 1
                if isinstance(data, _IterableEnd):
                    continue
                yield data
                submit()
                continue
            try:
                (task_epoch, task), data = results.get(
                    timeout=self.timeout if self.timeout > 0 else 5.0
                )
            except queue.Empty:
                if self.timeout > 0:
                    raise RuntimeError(
                        f"DataLoader timed out after {self.timeout} seconds"
                    ) from None
                dead = [i for i, w in enumerate(workers) if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(workers[i].pid) for i in dead)
                    raise RuntimeError(
                        f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                    ) from None
                continue
            if task_epoch != epoch:
                continue  # a result of an epoch the caller left early (persistent workers)
            if isinstance(data, _WorkerError):
                data.reraise()
            wid = outstanding.pop(task)
            if isinstance(data, _IterableEnd):
                alive.discard(wid)
                # Tasks this worker has not answered yet cannot come: renumber around them.
            done[task] = data
            submit()


def _start_context(ctx: Any, num_workers: int) -> Any:
    """The ``multiprocessing_context`` argument as PyTorch keeps it: a start method's name
    becomes its context; refused without workers."""
    if ctx is None:
        return None
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading (num_workers "
            f"> 0), but got num_workers={num_workers}"
        )
    if isinstance(ctx, str):
        methods = multiprocessing.get_all_start_methods()
        if ctx not in methods:
            raise ValueError(
                "multiprocessing_context option should specify a valid start method in "
                f"{methods!r}, but got multiprocessing_context={ctx!r}"
            )
        ctx = multiprocessing.get_context(ctx)
    if not isinstance(ctx, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string "
            f"specifying the start method, but got multiprocessing_context={ctx}"
        )
    return ctx


class _WorkerPool:
    """A loader's worker processes and their queues: for one epoch, or kept across epochs
    (``persistent_workers``), each epoch's tasks then tagged with its number so that results
    of an epoch left early are recognised and dropped."""

    def __init__(self, loader: DataLoader, base_seed: int) -> None:
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self.epoch = 0
        self.results = ctx.Queue()
        self.index_queues: list[Any] = []
        self.workers: list[Any] = []
        for wid in range(loader.num_workers):
            iq = ctx.Queue()
            w = ctx.Process(
                target=_worker_loop,
                args=(
                    loader.dataset,
                    iq,
                    self.results,
                    loader._auto_collation,
                    loader.collate_fn,
                    loader.drop_last,
                    loader.batch_size,
                    wid,
                    loader.num_workers,
                    base_seed + wid,
                    loader.worker_init_fn,
                ),
                daemon=True,
            )
            w.start()
            self.index_queues.append(iq)
            self.workers.append(w)

    def healthy(self) -> bool:
        """Whether every worker is still running (one that died is replaced by a new pool)."""
        return all(w.is_alive() for w in self.workers)

    def next_epoch(self) -> None:
        """Start the next epoch on the same workers (an iterable dataset starts over)."""
        self.epoch += 1
        for iq in self.index_queues:
            iq.put(((self.epoch, -1), _RESET))

    def shutdown(self) -> None:
        """Stop the workers and close the queues."""
        if not self.workers:
            return
        for iq in self.index_queues:
            iq.put(None)
        for w in self.workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
        for q in (*self.index_queues, self.results):
            q.cancel_join_thread()
            q.close()
        self.workers = []
