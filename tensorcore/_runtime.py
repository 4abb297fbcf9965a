"""Runtime knobs PyTorch programs set around their training loop: ``compile``, thread
counts, matmul precision, deterministic algorithms. tensorcore runs eagerly and has only
deterministic kernels, so most of these record the setting (and answer it back) without
changing how anything computes; the thread count is handed to every device type's backend
(the CPU backend's BLAS)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from .devices import device as _device
from .plugins import manager
from .plugins.manager import device_interfaces

__all__ = [
    "are_deterministic_algorithms_enabled",
    "compile",
    "get_deterministic_debug_mode",
    "get_device_module",
    "get_float32_matmul_precision",
    "get_num_threads",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "set_num_threads",
    "use_deterministic_algorithms",
]


def _default_threads() -> int:
    """``OMP_NUM_THREADS`` when it holds a positive integer (as PyTorch reads it), else the
    CPU count."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        n = 0
    return n if n > 0 else (os.cpu_count() or 1)


_settings: dict[str, Any] = {
    "threads": _default_threads(),
    "precision": "highest",
    "deterministic": False,
    "warn_only": False,
}


def compile(model: Any = None, **kwargs: Any) -> Any:
    """PyTorch's ``torch.compile``: tensorcore runs eagerly, so nothing is compiled. A module
    comes back wrapped as PyTorch wraps it (an ``OptimizedModule``: the original is its
    ``_orig_mod``, its state dict keys gain that prefix, attributes pass through); a
    function comes back as it is; used as a decorator, with or without arguments, it
    returns the function unchanged.

    Examples
    --------
    >>> import tensorcore as tc
    >>> net = tc.nn.Linear(2, 2)
    >>> compiled = tc.compile(net)
    >>> compiled._orig_mod is net, compiled(tc.ones(2)).shape
    (True, tensorcore.Size([2]))
    >>> tc.compile(len) is len
    True
    """
    if model is None:

        def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
            return fn

        return deco
    # Imported here, not at the top: tensorcore.nn loads on first use so that ``import
    # tensorcore`` stays fast, and compile is called once per model, never per step.
    from .nn.modules.compiled import OptimizedModule
    from .nn.modules.module import Module

    if isinstance(model, Module):
        return OptimizedModule(model)
    return model


def set_num_threads(n: int) -> None:
    """Set the number of threads operations use on the host, as PyTorch's intra-op thread
    count: every device type's backend is told (the CPU backend limits its BLAS, through
    ``threadpoolctl``), and ``scipy.fft`` transforms use as many workers.

    Examples
    --------
    >>> import tensorcore as tc
    >>> before = tc.get_num_threads()
    >>> tc.set_num_threads(1)
    >>> tc.get_num_threads()
    1
    >>> tc.set_num_threads(before)
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {n!r}")
    for iface in device_interfaces().values():
        iface.set_num_threads(n)
    _settings["threads"] = n


def get_num_threads() -> int:
    """The thread count last set; by default ``OMP_NUM_THREADS`` where it is set (as in
    PyTorch), else the CPU count."""
    return int(_settings["threads"])


def set_float32_matmul_precision(precision: str) -> None:
    """Record ``"highest"``, ``"high"`` or ``"medium"`` (tensorcore always computes float32
    matmuls in float32)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(
            f"Invalid precision {precision!r}: expected 'highest', 'high' or 'medium'"
        )
    _settings["precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set (``"highest"`` by default)."""
    return str(_settings["precision"])


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether operations must use deterministic algorithms (PyTorch's knob).

    Every tensorcore kernel is deterministic (given the same inputs, device and software, the
    same output: no atomics, no nondeterministic reductions), so the setting is only stored
    and answered back by :func:`are_deterministic_algorithms_enabled` and
    :func:`is_deterministic_algorithms_warn_only_enabled`; no operation raises or warns for it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.use_deterministic_algorithms(True, warn_only=True)
    >>> tc.are_deterministic_algorithms_enabled()
    True
    >>> tc.is_deterministic_algorithms_warn_only_enabled()
    True
    >>> tc.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(
            "use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
            f"not {type(mode).__name__}"
        )
    if not isinstance(warn_only, bool):
        raise TypeError(
            "use_deterministic_algorithms(): argument 'warn_only' must be bool, "
            f"not {type(warn_only).__name__}"
        )
    _settings["deterministic"], _settings["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was last turned on (False by default)."""
    return bool(_settings["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was last called with ``warn_only=True``."""
    return bool(_settings["warn_only"])


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """Set the deterministic debug mode: ``"default"`` (0), ``"warn"`` (1) or ``"error"``
    (2), as :func:`use_deterministic_algorithms` with ``False``, ``True, warn_only=True`` and
    ``True``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_deterministic_debug_mode("warn")
    >>> tc.get_deterministic_debug_mode()
    1
    >>> tc.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                f"but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """The current deterministic debug mode: 0 (off), 1 (warn only) or 2 (error)."""
    if not are_deterministic_algorithms_enabled():
        return 0
    return 1 if is_deterministic_algorithms_warn_only_enabled() else 2


def get_device_module(device: Any = None) -> Any:
    """The module of a device type: ``tensorcore.cuda`` for ``"cuda"`` (or a ``cuda`` device),
    ``tensorcore.cpu`` for the CPU, a plugin's namespace for its device type; with no device,
    the module of the available accelerator (CUDA), else ``tensorcore.cpu``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.get_device_module("cpu").__name__
    'tensorcore.cpu'
    """
    if device is None:
        cuda = importlib.import_module("tensorcore.cuda")
        return cuda if cuda.is_available() else importlib.import_module("tensorcore.cpu")
    if isinstance(device, int):
        device = "cuda"
    kind = device.type if isinstance(device, _device) else _device(device).type
    try:
        return importlib.import_module(f"tensorcore.{kind}")
    except ModuleNotFoundError:
        pass
    manager.load()
    hit = manager.attributes.get(kind)
    if hit is not None:
        return hit[0]
    raise RuntimeError(
        f"Device '{kind}' does not have a corresponding module registered as 'tensorcore.{kind}'."
    )
