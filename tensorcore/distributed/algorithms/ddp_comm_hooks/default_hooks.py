"""PyTorch's default DDP communication hooks: :func:`allreduce_hook` (what DDP does without
a hook) and :func:`fp16_compress_hook` / :func:`bf16_compress_hook` (the gradients travel
in half precision: half the bytes, at the cost of rounding), with their wrappers.

Each hook is ``hook(process_group, bucket)``: ``process_group`` is the ``state`` given to
``register_comm_hook`` (None: the default group), ``bucket`` a
:class:`tensorcore.distributed.GradBucket`; it returns a
:class:`tensorcore.futures.Future` of the averaged flat gradients.

Examples
--------
>>> from tensorcore.distributed.algorithms.ddp_comm_hooks import default_hooks
>>> model.register_comm_hook(None, default_hooks.fp16_compress_hook)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .... import dtypes
from ....futures import Future
from ... import _group
from ..._collectives import all_reduce
from ..._grad_bucket import GradBucket

__all__ = [
    "allreduce_hook",
    "bf16_compress_hook",
    "bf16_compress_wrapper",
    "fp16_compress_hook",
    "fp16_compress_wrapper",
]


def _group_size(process_group: Any) -> int:
    return _group.get_world_size(process_group)


def _allreduce_fut(process_group: Any, tensor: Any) -> Future:
    """Average ``tensor`` over the group: divide it by the group's size, then all-reduce
    (SUM) asynchronously; a future of the tensor."""
    tensor.div_(_group_size(process_group))
    return _summed(process_group, tensor)


def _summed(process_group: Any, tensor: Any) -> Future:
    """All-reduce (SUM) ``tensor`` asynchronously; a future of the tensor."""
    work = all_reduce(tensor, group=process_group, async_op=True)
    if work is None:  # this rank is not in the group
        fut = Future()
        fut.set_result(tensor)
        return fut
    return work.get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group: Any, bucket: GradBucket) -> Future:
    """All-reduce the bucket's gradients and divide by the group's size: what DDP does
    without a hook (a starting point for hooks of one's own). The division comes first, as
    in PyTorch, so the result may differ from DDP's own average in the last bit.

    Examples
    --------
    >>> model.register_comm_hook(None, allreduce_hook)  # doctest: +SKIP
    """
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype: Any, process_group: Any, bucket: GradBucket) -> Future:
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(_group_size(process_group))

    def decompress(fut: Future) -> Any:
        buffer.copy_(fut.value())
        return buffer

    return _summed(process_group, compressed).then(decompress)


def fp16_compress_hook(process_group: Any, bucket: GradBucket) -> Future:
    """Cast the bucket's gradients to float16, divide by the group's size, all-reduce, and
    copy the result back into the buffer (in its own dtype): half the bytes of float32
    gradients, rounded to float16's 11 significant bits (and its range: a gradient beyond
    65504 becomes inf).

    Examples
    --------
    >>> model.register_comm_hook(None, fp16_compress_hook)  # doctest: +SKIP
    """
    return _compress_hook(dtypes.float16, process_group, bucket)


def bf16_compress_hook(process_group: Any, bucket: GradBucket) -> Future:
    """As :func:`fp16_compress_hook`, in bfloat16 (float32's range, 8 significant bits).
    PyTorch allows it on NCCL 2.10 and newer only; the MPI backend reduces bfloat16 in a
    float32 copy, so it runs on the CPU as well.

    Examples
    --------
    >>> model.register_comm_hook(None, bf16_compress_hook)  # doctest: +SKIP
    """
    return _compress_hook(dtypes.bfloat16, process_group, bucket)


Hook = Callable[[Any, GradBucket], Future]


def _compress_wrapper(dtype: Any, hook: Hook, name: str) -> Hook:
    def wrapper(hook_state: Any, bucket: GradBucket) -> Future:
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut: Future) -> Any:
            value = fut.value()
            buffer.copy_(value[0] if isinstance(value, (list, tuple)) else value)
            return buffer

        return fut.then(decompress)

    wrapper.__name__ = name
    return wrapper


def fp16_compress_wrapper(hook: Hook) -> Hook:
    """A hook that runs ``hook`` on the bucket's gradients cast to float16 and casts its
    result back (PyTorch's ``fp16_compress_wrapper``): ``fp16_compress_wrapper(
    allreduce_hook)`` is :func:`fp16_compress_hook`.

    Examples
    --------
    >>> model.register_comm_hook(None, fp16_compress_wrapper(allreduce_hook))  # doctest: +SKIP
    """
    return _compress_wrapper(dtypes.float16, hook, "fp16_compress_wrapper_hook")


def bf16_compress_wrapper(hook: Hook) -> Hook:
    """As :func:`fp16_compress_wrapper`, in bfloat16.

    Examples
    --------
    >>> model.register_comm_hook(None, bf16_compress_wrapper(allreduce_hook))  # doctest: +SKIP
    """
    return _compress_wrapper(dtypes.bfloat16, hook, "bf16_compress_wrapper_hook")
