"""``skip_init``: a module built without running its parameters' initialisation, as
``torch.nn.utils.init``."""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Any:
    """``module_cls(*args, **kwargs)`` with its parameters and buffers allocated but not
    initialised (their values are whatever memory held): built on the ``meta`` device, then
    given storage on ``device`` (``kwargs``' device, the CPU by default). The class must take
    a ``device`` argument, as PyTorch's layers do.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lin = tc.nn.utils.skip_init(tc.nn.Linear, 4, 2)
    >>> lin.weight.shape, lin.weight.device
    (tensorcore.Size([2, 4]), device(type='cpu'))
    """
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final)
