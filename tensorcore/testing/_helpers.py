"""Device-generic test helpers: which devices implement an operator, NumPy conversion and
the default tolerances (``assert_close`` lives in :mod:`._comparison`). NumPy is imported
inside the functions that need it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._tensor import Tensor
    from ..dtypes import dtype

__all__ = [
    "available_device_types",
    "backends_for",
    "default_tolerances",
    "dtype_unsupported",
    "flushes_subnormals",
    "numpy_dtype",
    "to_numpy",
]

# The defaults of torch.testing.assert_close, by dtype name: (rtol, atol).
_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def available_device_types() -> list[str]:
    """The device types registered by an installed backend and usable on this machine.

    Examples
    --------
    >>> from tensorcore.testing import available_device_types
    >>> "cpu" in available_device_types()
    True
    """
    from ..backends import devices

    return [name for name, ok in devices().items() if ok]


_UNSUPPORTED: dict[tuple[str, str], str | None] = {}


def dtype_unsupported(device: Any, dtype: dtype) -> str | None:
    """Why tensors of ``dtype`` cannot live on ``device`` (the device's own error), or None
    when they can: a backend may lack a dtype (CuPy before version 14 has no bfloat16).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import dtype_unsupported
    >>> dtype_unsupported("cpu", tc.bfloat16) is None
    True
    """
    from ..backend import empty
    from ..devices import device as as_device

    key = (str(device), dtype.name)
    if key not in _UNSUPPORTED:
        try:
            empty((0,), dtype, as_device(device))  # (the device's own allocator)
            _UNSUPPORTED[key] = None
        except TypeError as exc:
            _UNSUPPORTED[key] = str(exc)
    return _UNSUPPORTED[key]


_FLUSHES: dict[tuple[str, str], bool] = {}


def flushes_subnormals(device: Any, dtype: dtype | None = None) -> bool:
    """Whether the arithmetic of ``device`` flushes subnormal numbers of ``dtype`` (default
    float32; a complex dtype: its parts') to zero, in operands and in results.

    A device's arithmetic, not a bug: CuPy compiles every kernel with ``-ftz=true``, as fast
    GPU code commonly is, so there float32 values below ``finfo(float32).tiny`` (about
    1.2e-38) count as zero wherever a kernel computes (``rsqrt(1e-45)`` is ``inf``, and a
    result below it comes out ``±0``), while copies keep them. Tests draw no subnormals on
    such a device (the strategies of :mod:`tensorcore.testing.strategies` given a
    ``device``). Probed once per device and dtype, by doubling the smallest subnormal there;
    False for a device that holds no values or lacks the dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import flushes_subnormals
    >>> flushes_subnormals("cpu"), flushes_subnormals("cpu", tc.float64)
    (False, False)
    """
    from .. import _registry
    from ..devices import device as as_device
    from ..dtypes import float32
    from ..ops.factories import tensor

    d = float32 if dtype is None else dtype.to_real()
    key = (str(device), d.name)
    hit = _FLUSHES.get(key)
    if hit is None:
        dev = as_device(device)
        if not _registry.interface(dev).holds_data or dtype_unsupported(dev, d) is not None:
            hit = False
        else:
            from .._finfo import finfo

            info = finfo(d)
            smallest = tensor([info.tiny * info.eps], dtype=d, device=dev)
            hit = (smallest * 2).tolist()[0] == 0.0
        _FLUSHES[key] = hit
    return hit


def layout_unsupported(device: Any, layout: str) -> str | None:
    """Why tensors of ``layout`` cannot be tested on ``device`` (no plugin registers the
    layout, or none registers kernels of it for the device type), or None when they can: a
    third party's device runs tensorcore's suite, whose sparse tests need ``sparse_coo``
    kernels that ``tensorcore-sparse`` registers for NumPy and CuPy devices only.

    Examples
    --------
    >>> from tensorcore.testing import layout_unsupported
    >>> layout_unsupported("cpu", "strided") is None
    True
    >>> print(layout_unsupported("cpu", "nosuchlayout"))
    no installed plugin registers the layout 'nosuchlayout'
    """
    from ..dispatch import get_op
    from ..layouts import get_layout

    if get_layout(layout) is None:
        return f"no installed plugin registers the layout '{layout}'"
    dev = str(device).split(":")[0]
    if get_op("add").record((dev, layout)) is None:
        return f"device '{dev}' has no {layout} kernels (no installed plugin registers any)"
    return None


def backends_for(op_name: str, layout: str = "strided") -> list[str]:
    """The available device types whose registry has a kernel for ``(op_name, device, layout)``.

    Wildcard registrations count: the core's view arithmetic (``[*, strided]``) and
    composite operators (``[*, *]``) are available on every device.

    Parameters
    ----------
    op_name : str
        A declared operator (a key of ``tensorcore.ops.schema.OPS``).
    layout : str
        The layout name, ``"strided"`` by default.

    Examples
    --------
    >>> from tensorcore.testing import backends_for
    >>> "cpu" in backends_for("add"), "cpu" in backends_for("transpose")
    (True, True)
    """
    from ..dispatch import get_op

    op = get_op(op_name)
    return [d for d in available_device_types() if op.record((d, layout)) is not None]


def numpy_dtype(d: dtype) -> Any:
    """The NumPy dtype holding the values of tensorcore dtype ``d`` (bfloat16 via ml_dtypes).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import numpy_dtype
    >>> numpy_dtype(tc.int16), numpy_dtype(tc.bool)
    (dtype('int16'), dtype('bool'))
    """
    import numpy as np

    if d.name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(d.name)


def to_numpy(t: Tensor) -> Any:
    """A NumPy array with the values of ``t`` (copied to the CPU, detached).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import to_numpy
    >>> to_numpy(tc.tensor([[1, 2], [3, 4]]).t())
    array([[1, 3],
           [2, 4]])
    """
    return t.cpu().detach().numpy()


def default_tolerances(d: dtype) -> tuple[float, float]:
    """``(rtol, atol)`` used by :func:`assert_close` for dtype ``d`` (0 for exact dtypes).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing import default_tolerances
    >>> default_tolerances(tc.float32), default_tolerances(tc.int64)
    ((1.3e-06, 1e-05), (0.0, 0.0))
    """
    return _TOLERANCES.get(d.name, (0.0, 0.0))
