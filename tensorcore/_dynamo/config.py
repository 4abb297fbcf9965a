"""``tensorcore._dynamo.config``: the compiler settings programs assign (PyTorch's names and
defaults). They are kept and read back but steer nothing, since nothing is compiled; as in
PyTorch, assigning a name that is not a setting raises ``AttributeError``.

Examples
--------
>>> import tensorcore as tc
>>> tc._dynamo.config.cache_size_limit = 64
>>> tc._dynamo.config.cache_size_limit
64
"""

from __future__ import annotations

import sys
import types
from typing import Any

suppress_errors = False
verbose = False
cache_size_limit = 8
recompile_limit = 8
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
specialize_int = False
specialize_float = False
inline_inbuilt_nn_modules = True
guard_nn_modules = True
log_compilation_metrics = True
force_parameter_static_shapes = True
dynamic_shapes = True
allow_unspec_int_on_nn_module = False
error_on_recompile = False
replay_record_enabled = False
skip_nnmodule_hook_guards = True


class _Settings(types.ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_") and name not in self.__dict__:
            raise AttributeError(f"{self.__name__}.{name} does not exist")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Settings
