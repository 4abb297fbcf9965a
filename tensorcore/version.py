"""``tensorcore.version``, as PyTorch's ``torch.version``: the version strings that programs
print or test (``torch.version.cuda is not None`` to mean "a CUDA build").

tensorcore is pure Python and not built against a toolkit: ``cuda``, ``hip``, ``rocm`` and
``xpu`` are None (whether a CUDA device can be used is ``tc.cuda.is_available()``; the CUDA
backend runs on the toolkit its CuPy was built for).

Examples
--------
>>> import tensorcore as tc
>>> tc.version.__version__ == tc.__version__, tc.version.cuda
(True, None)
"""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

__version__ = "0.1.0"
debug = False
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
git_version = "Unknown"
