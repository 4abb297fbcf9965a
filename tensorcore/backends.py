"""Backends at runtime: list the plugins, register one without packaging it.

Examples
--------
>>> import tensorcore as tc
>>> "cpu" in [p.name for p in tc.backends.list() if p.status == "loaded"]
True
"""

from __future__ import annotations

import builtins
import sys

from .plugins.manager import PluginInfo, device_interfaces, plugins, register

__all__ = ["PluginInfo", "cuda", "cudnn", "devices", "list", "mha", "mps", "register"]


class _Unavailable:
    """A PyTorch backend namespace that tensorcore has no counterpart for (``mps``,
    ``cudnn``): ``is_available()`` is False and its flags are plain attributes, so that
    programs written for PyTorch (``torch.backends.mps.is_available()``,
    ``torch.backends.cudnn.benchmark = True``) run unchanged."""

    def __init__(self, name: str, **flags: object) -> None:
        self._name = name
        self.__dict__.update(flags)

    def is_available(self) -> bool:
        """Always False: tensorcore has no such backend."""
        return False

    def is_built(self) -> bool:
        """Always False."""
        return False

    def __repr__(self) -> str:
        return f"<tensorcore.backends.{self._name}: not available>"


#: ``torch.backends.mps`` (Apple GPUs): not available.
mps = _Unavailable("mps")
#: ``torch.backends.cuda``: its flags (``matmul.allow_tf32``...) are accepted and have no
#: effect (tensorcore's CUDA backend is ``tensorcore.cuda``).
cuda = _Unavailable(
    "cuda",
    matmul=_Unavailable(
        "cuda.matmul",
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
)
#: ``torch.backends.cudnn``: not available; its flags are accepted and have no effect.
cudnn = _Unavailable("cudnn", enabled=True, benchmark=False, deterministic=False,
                     allow_tf32=True)  # fmt: skip


class _MHA:
    """``torch.backends.mha``: the switch of the transformer fast path, which tensorcore
    follows where it changes results (an encoder in inference returns zeros at padded
    positions, as PyTorch's nested-tensor path does)."""

    def __init__(self) -> None:
        self._fastpath = True

    def get_fastpath_enabled(self) -> bool:
        """Whether the fast path is on (the default)."""
        return self._fastpath

    def set_fastpath_enabled(self, value: bool) -> None:
        """Turn the fast path on or off."""
        self._fastpath = bool(value)

    def __repr__(self) -> str:
        return "<tensorcore.backends.mha>"


#: ``torch.backends.mha``: ``get_fastpath_enabled`` / ``set_fastpath_enabled``.
mha = _MHA()

# ``import torch.backends.cudnn as cudnn`` imports them as submodules (registered under those
# names, with an empty ``__path__``, as ``tensorcore.cuda.amp``).
for _name, _namespace in (("cudnn", cudnn), ("cuda", cuda), ("mps", mps), ("mha", mha)):
    sys.modules[f"{__name__}.{_name}"] = _namespace  # type: ignore[assignment]
__path__: builtins.list[str] = []


def list() -> builtins.list[PluginInfo]:
    """Every backend plugin seen, with its status (``loaded``, ``failed``, ``blocked``)."""
    return plugins()


def devices() -> dict[str, bool]:
    """Registered device types and whether each is available here."""
    return {name: iface.is_available() for name, iface in device_interfaces().items()}
