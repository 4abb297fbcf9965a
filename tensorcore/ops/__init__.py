"""The operator layer: the table (``schema``), frontends (``meta``), views, composites and
the derived Python API.

As PyTorch's ``torch.ops``, the package also answers ``tensorcore.ops.<namespace>``: the
operators that ``tensorcore.library`` defines (``tensorcore.ops.mylib.crop``) and the
built-in ones under PyTorch's names (``tensorcore.ops.aten.add.Tensor``).
"""

from __future__ import annotations

import functools
import pkgutil
from typing import Any

from ._namespaces import defined


@functools.cache
def _submodules() -> frozenset[str]:
    # (listed on first need rather than at import: only a namespace named like one asks)
    return frozenset(m.name for m in pkgutil.iter_modules(__path__))


def __getattr__(name: str) -> Any:
    # Only a namespace something was registered in: tools read attributes of modules
    # (``pytest_plugins``), and a submodule not imported yet must stay an AttributeError
    # (``unittest.mock`` then imports it).
    ns = defined(name)
    if ns is None or name in _submodules():
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return ns


def load_library(path: str) -> None:
    """PyTorch's ``torch.ops.load_library``: loads a compiled C++ extension of PyTorch's
    operators, which tensorcore cannot run; define the operator in Python with
    :func:`tensorcore.library.custom_op` instead."""
    raise OSError(
        f"torch.ops.load_library({path!r}): tensorcore cannot load a compiled PyTorch "
        "extension library; define the operator in Python with tensorcore.library.custom_op "
        "(its kernels may call any Python library)"
    )
