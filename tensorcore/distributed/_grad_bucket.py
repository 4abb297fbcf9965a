"""``GradBucket``: what a ``DistributedDataParallel`` communication hook gets for one bucket
of gradients (PyTorch's ``torch.distributed.GradBucket``)."""

from __future__ import annotations

from typing import Any

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket of gradients, flattened into one tensor, as DDP hands it to the hook that
    ``DistributedDataParallel.register_comm_hook`` registered.

    The hook reduces :meth:`buffer` across the ranks (in place or not) and returns a
    :class:`tensorcore.futures.Future` of the result, a tensor of the buffer's size, which
    DDP copies into the parameters' ``.grad`` at the end of backward.

    Examples
    --------
    >>> import tensorcore as tc
    >>> import tensorcore.distributed as dist
    >>> w, b = tc.nn.Parameter(tc.zeros(2, 2)), tc.nn.Parameter(tc.zeros(2))
    >>> bucket = dist.GradBucket(0, tc.arange(6.0), [w, b], is_last=True)
    >>> bucket.index(), bucket.is_last(), [tuple(g.shape) for g in bucket.gradients()]
    (0, True, [(2, 2), (2,)])
    >>> bucket.gradients()[1]
    tensor([4., 5.])
    """

    def __init__(self, index: int, buffer: Any, parameters: list[Any], is_last: bool) -> None:
        self._index, self._buffer = index, buffer
        self._parameters, self._is_last = list(parameters), is_last

    def index(self) -> int:
        """The bucket's position in DDP's buckets (0 is the first to be reduced)."""
        return self._index

    def buffer(self) -> Any:
        """The flattened gradients of the bucket's parameters, one 1-D tensor."""
        return self._buffer

    def gradients(self) -> list[Any]:
        """The gradient of each parameter of :meth:`parameters`, as a view of :meth:`buffer`
        in the parameter's shape."""
        views, offset = [], 0
        for p in self._parameters:
            n = p.numel()
            views.append(self._buffer[offset : offset + n].view(tuple(p.shape)))
            offset += n
        return views

    def parameters(self) -> list[Any]:
        """The bucket's parameters, in the order of their gradients in :meth:`buffer`."""
        return list(self._parameters)

    def is_last(self) -> bool:
        """Whether this is the last bucket of the iteration (the first parameters of the
        model: buckets follow the reverse registration order)."""
        return self._is_last

    def set_buffer(self, buffer: Any) -> None:
        """Replace :meth:`buffer` with ``buffer``, a tensor of the same size."""
        if buffer.numel() != self._buffer.numel():
            raise ValueError(
                f"set_buffer(): the bucket holds {self._buffer.numel()} elements, the new "
                f"buffer {buffer.numel()}"
            )
        self._buffer = buffer
