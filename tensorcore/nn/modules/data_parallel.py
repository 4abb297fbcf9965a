"""``DataParallel``: PyTorch's single-process wrapper. tensorcore runs the wrapped module
as it is (PyTorch does too on the CPU, or with one GPU); splitting a batch over several GPUs
in one process is not implemented: :class:`~tensorcore.nn.parallel.DistributedDataParallel`
is PyTorch's recommended replacement."""

from __future__ import annotations

from typing import Any

from .module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps ``module`` (reached as ``.module``, its state dict keys prefixed ``module.``)
    and forwards to it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> model = tc.nn.DataParallel(tc.nn.Linear(2, 3))
    >>> model(tc.ones(4, 2)).shape, next(iter(model.state_dict()))
    (tensorcore.Size([4, 3]), 'module.weight')
    """

    def __init__(
        self,
        module: Module,
        device_ids: Any = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        from ... import cuda

        self.module = module
        self.dim = dim
        if not cuda.is_available():
            self.device_ids: list[int] = []
            self.output_device: Any = None
            return
        ids = list(range(cuda.device_count())) if device_ids is None else list(device_ids)
        self.device_ids = [getattr(i, "index", i) for i in ids]
        if len(self.device_ids) > 1:
            raise NotImplementedError(
                "DataParallel over several GPUs is not implemented in tensorcore: use "
                "tensorcore.nn.parallel.DistributedDataParallel (one process per GPU)"
            )
        self.output_device = self.device_ids[0] if output_device is None else output_device

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """``self.module(*inputs, **kwargs)``."""
        return self.module(*inputs, **kwargs)
