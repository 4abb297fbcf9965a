"""Backends at runtime: list the plugins, register one without packaging it.

Examples
--------
>>> import tensorcore as tc
>>> "cpu" in [p.name for p in tc.backends.list() if p.status == "loaded"]
True
"""

from __future__ import annotations

import builtins
import contextlib
import sys
import warnings
from collections.abc import Iterator

from .plugins.manager import PluginInfo, device_interfaces, plugins, register

__all__ = [
    "PluginInfo",
    "cpu",
    "cuda",
    "cudnn",
    "devices",
    "list",
    "mha",
    "mkl",
    "mkldnn",
    "mps",
    "openmp",
    "register",
]


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


class _Cudnn(_Unavailable):
    """``torch.backends.cudnn``, as a PyTorch build without cuDNN has it."""

    benchmark_limit: int | None

    def version(self) -> None:
        """None: no cuDNN (environment reports print it)."""
        return None

    def is_acceptable(self, tensor: object) -> bool:
        """False: no tensor goes to cuDNN."""
        return False

    @contextlib.contextmanager
    def flags(
        self,
        enabled: bool = False,
        benchmark: bool = False,
        benchmark_limit: int = 10,
        deterministic: bool = False,
        allow_tf32: bool = True,
    ) -> Iterator[None]:
        """Set the flags for a block and restore them after (double-backward code turns
        cuDNN off this way around RNNs)."""
        names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
        saved = {name: getattr(self, name) for name in names}
        self.__dict__.update(
            enabled=enabled,
            benchmark=benchmark,
            benchmark_limit=benchmark_limit if self.benchmark_limit is not None else None,
            deterministic=deterministic,
            allow_tf32=allow_tf32,
        )
        try:
            yield
        finally:
            self.__dict__.update(saved)


class _Cuda(_Unavailable):
    """``torch.backends.cuda``: the scaled-dot-product-attention switches are kept and
    read back, as there; no kernel choice follows from them (tensorcore has one)."""

    _sdp_flags: dict[str, bool]

    def _sdp(self, name: str, enabled: bool | None = None) -> bool:
        if enabled is not None:
            self._sdp_flags[name] = bool(enabled)
        return self._sdp_flags[name]

    def flash_sdp_enabled(self) -> bool:
        """Whether flash attention is allowed (True unless turned off)."""
        return self._sdp("flash")

    def enable_flash_sdp(self, enabled: bool) -> None:
        """Allow or forbid flash attention."""
        self._sdp("flash", enabled)

    def mem_efficient_sdp_enabled(self) -> bool:
        """Whether memory-efficient attention is allowed."""
        return self._sdp("mem_efficient")

    def enable_mem_efficient_sdp(self, enabled: bool) -> None:
        """Allow or forbid memory-efficient attention."""
        self._sdp("mem_efficient", enabled)

    def math_sdp_enabled(self) -> bool:
        """Whether the math (reference) attention is allowed."""
        return self._sdp("math")

    def enable_math_sdp(self, enabled: bool) -> None:
        """Allow or forbid the math attention."""
        self._sdp("math", enabled)

    def cudnn_sdp_enabled(self) -> bool:
        """Whether cuDNN attention is allowed."""
        return self._sdp("cudnn")

    def enable_cudnn_sdp(self, enabled: bool) -> None:
        """Allow or forbid cuDNN attention."""
        self._sdp("cudnn", enabled)

    @contextlib.contextmanager
    def sdp_kernel(
        self,
        enable_flash: bool = True,
        enable_math: bool = True,
        enable_mem_efficient: bool = True,
        enable_cudnn: bool = True,
    ) -> Iterator[dict[str, bool]]:
        """PyTorch's deprecated context manager (FutureWarning, as there): the switches for
        a block, restored after."""
        warnings.warn(
            "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
            "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
            "new context manager, with updated signature.",
            FutureWarning,
            stacklevel=3,
        )
        saved = dict(self._sdp_flags)
        self._sdp_flags.update(
            flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient,
            cudnn=enable_cudnn,
        )  # fmt: skip
        try:
            yield {}
        finally:
            self._sdp_flags.update(saved)


class _Cpu:
    """``torch.backends.cpu``."""

    def get_cpu_capability(self) -> str:
        """``"DEFAULT"``: tensorcore's CPU kernels (NumPy's) have no vector-width variants
        to choose between, which PyTorch reports as ``"AVX2"``, ``"AVX512"``..."""
        return "DEFAULT"

    def __repr__(self) -> str:
        return "<tensorcore.backends.cpu>"


#: ``torch.backends.mps`` (Apple GPUs): not available.
mps = _Unavailable("mps")
#: ``torch.backends.cuda``: its flags (``matmul.allow_tf32``...) are accepted and have no
#: effect (tensorcore's CUDA backend is ``tensorcore.cuda``).
cuda = _Cuda(
    "cuda",
    matmul=_Unavailable(
        "cuda.matmul",
        allow_tf32=False,
        allow_fp16_reduced_precision_reduction=True,
        allow_bf16_reduced_precision_reduction=True,
    ),
    _sdp_flags={"flash": True, "mem_efficient": True, "math": True, "cudnn": True},
)
#: ``torch.backends.cudnn``: not available; its flags are accepted and have no effect.
cudnn = _Cudnn("cudnn", enabled=True, benchmark=False, benchmark_limit=None,
               deterministic=False, allow_tf32=True)  # fmt: skip
#: ``torch.backends.cpu``.
cpu = _Cpu()
#: ``torch.backends.mkldnn``, ``mkl``, ``openmp``: libraries tensorcore does not use.
mkldnn = _Unavailable("mkldnn", enabled=True)
mkl = _Unavailable("mkl")
openmp = _Unavailable("openmp")


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
_NAMESPACES = (
    ("cudnn", cudnn), ("cuda", cuda), ("mps", mps), ("mha", mha), ("cpu", cpu), ("mkldnn", mkldnn),
    ("mkl", mkl), ("openmp", openmp),
)  # fmt: skip
for _name, _namespace in _NAMESPACES:
    sys.modules[f"{__name__}.{_name}"] = _namespace  # type: ignore[assignment]
__path__: builtins.list[str] = []


def list() -> builtins.list[PluginInfo]:
    """Every backend plugin seen, with its status (``loaded``, ``failed``, ``blocked``)."""
    return plugins()


def devices() -> dict[str, bool]:
    """Registered device types and whether each is available here."""
    return {name: iface.is_available() for name, iface in device_interfaces().items()}
