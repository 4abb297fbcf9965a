"""``skip_init``: a module built without initialising its parameters, as
``torch.nn.utils.init``."""

from __future__ import annotations

import inspect
from typing import Any, TypeVar

from ..modules.module import Module

__all__ = ["skip_init"]

_M = TypeVar("_M", bound=Module)


def skip_init(module_cls: type[_M], *args: Any, **kwargs: Any) -> _M:
    """Build ``module_cls(*args, **kwargs)`` without running its initialisation: it is built on
    the ``meta`` device, then given uninitialised memory on ``device`` (default ``"cpu"``) with
    :meth:`Module.to_empty`. The class must take a ``device`` argument. Initialise the
    parameters yourself afterwards.

    Examples
    --------
    >>> import tensorcore as tc
    >>> fc = tc.nn.utils.skip_init(tc.nn.Linear, 5, 1)
    >>> fc.weight.shape, fc.weight.device
    (tensorcore.Size([1, 5]), device(type='cpu'))
    """
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    module = module_cls(*args, **kwargs)
    module.to_empty(device=device)
    return module
