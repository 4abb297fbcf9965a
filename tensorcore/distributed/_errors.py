"""The exceptions of ``tensorcore.distributed``: PyTorch's ``DistError`` family.

Every one is a ``RuntimeError``, so code that catches that (as most PyTorch programs do)
keeps working; the subclasses say which layer failed.
"""

from __future__ import annotations

__all__ = ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """Base of the errors ``tensorcore.distributed`` raises when communication fails
    (``torch.distributed.DistError``).

    Examples
    --------
    >>> import tensorcore.distributed as dist
    >>> issubclass(dist.DistBackendError, dist.DistError), issubclass(dist.DistError, RuntimeError)
    (True, True)
    """


class DistBackendError(DistError):
    """A communication backend failed: a collective timed out waiting for a peer, or the
    engine reported an error (``torch.distributed.DistBackendError``)."""


class DistNetworkError(DistError):
    """The network failed: a :class:`TCPStore` could not connect to its server in time, or
    lost its connection (``torch.distributed.DistNetworkError``)."""


class DistStoreError(DistError):
    """A store operation failed or timed out, such as a ``wait`` for a key that never came
    (``torch.distributed.DistStoreError``)."""
