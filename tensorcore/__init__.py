"""tensorcore: a pure-Python tensor library with autograd whose device and layout axes are
extension points. Kernels come from backend plugins (``tensorcore-cpu``, ``tensorcore-cuda``,
``tensorcore-sparse``, or your own) found through the ``tensorcore.backends`` entry points.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.arange(6).reshape(2, 3)
>>> (x * 2).sum(dim=1)
tensor([ 6, 24])
"""

from __future__ import annotations

import math
from types import FunctionType
from typing import Any

from . import (
    _C,
    _checks,
    _legacy_linalg,
    _symbolic,
    _torch_extras,
    _torch_extras_ops,
    _torch_nn,
    _torch_view_copies,
    autograd,
    backends,
    dtypes,
    fft,
    library,
    linalg,
    overrides,
    return_types,
    serialization,
    types,
)
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass
from ._comparison import allclose, equal
from ._finfo import finfo, iinfo
from ._foreach import FUNCTIONS as _FOREACH
from ._format import get_printoptions, set_printoptions
from ._legacy_types import LEGACY_TYPES as _LEGACY_TYPES
from ._legacy_types import install as _install_legacy
from ._lobpcg import lobpcg
from ._lowrank import pca_lowrank, svd_lowrank
from ._pickling import install as _install_pickling
from ._plugin_modules import install as _install_plugin_modules
from ._rng_state import get_rng_state, set_rng_state
from ._rng_state import install as _install_rng_state
from ._runtime import (
    are_deterministic_algorithms_enabled,
    compile,
    get_deterministic_debug_mode,
    get_device_module,
    get_float32_matmul_precision,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_num_threads,
    use_deterministic_algorithms,
)
from ._storage import Storage
from ._tensor import Size, Tensor, is_tensor, numel
from ._tensor_methods import install as _install_methods
from .autograd import step as _autograd_step
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .devices import device, get_default_device, set_default_device
from .dispatch import explain
from .dtypes import (
    bfloat16,
    bool_,
    can_cast,
    complex64,
    complex128,
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    result_type,
    set_default_dtype,
    uint8,
)
from .layouts import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    legacy_contiguous_format,
    memory_format,
    preserve_format,
    strided,
)
from .ops import _api
from .ops.factories import as_tensor, from_dlpack, from_numpy, tensor
from .ops.frontends import broadcast_shapes
from .plugins import manager as _manager
from .random import Generator, default_generator, initial_seed, manual_seed, seed
from .serialization import load, save
from .version import __version__

#: PyTorch's module-level constants (``torch.pi``, ``-torch.inf`` in attention masks).
pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
newaxis = None

_api.build()
_install_methods()
_install_legacy()
overrides.install()  # (after as_subclass, which Tensor.__torch_function__ uses)
_install_pickling()
_install_rng_state()
_install_plugin_modules()
_autograd_step.install()
globals().update(_api.FUNCTIONS)
globals().update(dtypes.aliases)
globals()["bool"] = bool_
globals().update(_FOREACH)  # tc._foreach_mul_... (PyTorch's private list operators)
globals().update(_LEGACY_TYPES)  # tc.FloatTensor, tc.LongTensor... (PyTorch's legacy types)
# Top-level functions outside the operator table: predicates' function forms, torch's
# positional forms of the nn.functional layers (which import nn on first call), utilities.
_EXTRAS = {
    n: getattr(m, n)
    for m in (
        _torch_extras,
        _torch_extras_ops,
        _torch_view_copies,
        _torch_nn,
        _legacy_linalg,
        _checks,
        _symbolic,
    )
    for n in m.__all__
}
globals().update(_EXTRAS)


def _public_name(*classes: type) -> None:
    # Public classes show (type(t), repr of the class) and pickle by reference under the name
    # users write, tensorcore.Tensor, as PyTorch's do (torch.Tensor, torch.dtype): the module
    # that defines them is an implementation detail. Their own methods move with them, so
    # that doctest, which collects a class under its __module__, still finds their examples.
    # Those examples run in this namespace, where bool, int and float name dtypes.
    for cls in classes:
        home = cls.__module__
        cls.__module__ = __name__
        for member in vars(cls).values():
            fn = getattr(member, "__func__", member)
            if isinstance(fn, FunctionType) and fn.__module__ == home:
                fn.__module__ = __name__


_public_name(Tensor, Size, Storage, dtype, device, layout, memory_format, Generator)

__all__ = sorted(
    {
        "Generator",
        "Size",
        "Storage",
        "Tensor",
        "accelerator",
        "allclose",
        "amp",
        "are_deterministic_algorithms_enabled",
        "array_api",
        "as_tensor",
        "autocast",
        "autograd",
        "backends",
        "bfloat16",
        "bool",
        "broadcast_shapes",
        "can_cast",
        "compile",
        "complex64",
        "complex128",
        "default_generator",
        "device",
        "distributed",
        "dtype",
        "dtypes",
        "e",
        "enable_grad",
        "equal",
        "explain",
        "fft",
        "func",
        "futures",
        "float16",
        "float32",
        "float64",
        "finfo",
        "inf",
        "from_dlpack",
        "from_numpy",
        "get_default_device",
        "get_default_dtype",
        "get_deterministic_debug_mode",
        "get_float32_matmul_precision",
        "get_num_threads",
        "get_printoptions",
        "get_rng_state",
        "iinfo",
        "inference_mode",
        "is_deterministic_algorithms_warn_only_enabled",
        "jit",
        "is_tensor",
        "numel",
        "initial_seed",
        "int8",
        "int16",
        "int32",
        "int64",
        "is_anomaly_check_nan_enabled",
        "is_anomaly_enabled",
        "is_grad_enabled",
        "is_inference_mode_enabled",
        "layout",
        "linalg",
        "load",
        "lobpcg",
        "manual_seed",
        "nan",
        "newaxis",
        "nn",
        "no_grad",
        "optim",
        "pca_lowrank",
        "pi",
        "promote_types",
        "result_type",
        "return_types",
        "save",
        "seed",
        "serialization",
        "set_default_device",
        "special",
        "set_default_dtype",
        "set_deterministic_debug_mode",
        "set_float32_matmul_precision",
        "set_num_threads",
        "set_grad_enabled",
        "set_printoptions",
        "set_rng_state",
        "strided",
        "svd_lowrank",
        "channels_last",
        "channels_last_3d",
        "compiler",
        "contiguous_format",
        "cpu",
        "legacy_contiguous_format",
        "cuda",
        "distributions",
        "memory_format",
        "mps",
        "multiprocessing",
        "preserve_format",
        "profiler",
        "quasirandom",
        "tensor",
        "uint8",
        "use_deterministic_algorithms",
        "utils",
        "version",
        "viz",
    }
    | set(_api.FUNCTIONS)
    | set(dtypes.aliases)
    | set(_LEGACY_TYPES)
    | set(_EXTRAS)
    | {"vmap"}
)


#: Subpackages imported on first use (``tc.nn``...), so that ``import tensorcore`` stays fast
#: for programs that only compute with tensors.
_LAZY_SUBPACKAGES = frozenset(
    {
        "_dynamo",
        "accelerator",
        "amp",
        "array_api",
        "backend",
        "compiler",
        "cpu",
        "cuda",
        "distributed",
        "distributions",
        "func",
        "futures",
        "hub",
        "jit",
        "mps",
        "multiprocessing",
        "nn",
        "optim",
        "overrides",
        "profiler",
        "quasirandom",
        "signal",
        "special",
        "storage",
        "testing",
        "utils",
        "version",
        "viz",
    }
)


def __getattr__(name: str) -> Any:
    # Layouts (``tc.sparse_coo``) and namespaces (``tc.cuda``) that plugins register appear
    # once the plugins are loaded.
    from .layouts import get_layout
    from .plugins import manager

    if name.startswith("__"):
        raise AttributeError(name)
    if name in _LAZY_SUBPACKAGES:
        import importlib

        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from .func import vmap

        globals()[name] = vmap
        return vmap
    if name in ("TypedStorage", "UntypedStorage"):  # torch.TypedStorage: torch.storage's
        from . import storage

        value = getattr(storage, name)
        globals()[name] = value
        return value
    if name == "GradScaler":  # torch.GradScaler is torch.amp.GradScaler
        from .amp import GradScaler

        globals()[name] = GradScaler
        return GradScaler
    if "autocast" in name:  # torch.autocast and its state functions: tensorcore.amp's
        from .amp import autocast_mode

        if name in autocast_mode.__all__:
            value = getattr(autocast_mode, name)
            globals()[name] = value
            return value
    manager.load()
    lay = get_layout(name)
    if lay is not None:
        return lay
    hit = manager.attributes.get(name)
    if hit is not None:
        return hit[0]
    hint = manager._INSTALL_HINTS.get(name)
    extra = f": {manager.install_hint(name)}" if hint else ""
    raise AttributeError(f"module 'tensorcore' has no attribute '{name}'{extra}")
