"""Device-generic test helpers: which devices implement an operator, NumPy conversion and
comparison against a NumPy oracle. NumPy is imported inside the functions that need it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._tensor import Tensor
    from ..dtypes import dtype

__all__ = [
    "assert_close",
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


def _assert_close_other(
    actual: Any,
    expected: Any,
    rtol: float | None,
    atol: float | None,
    prefix: str,
    check_stride: bool,
    opts: dict[str, Any],
) -> None:
    """``assert_close`` of containers, numbers and arrays (PyTorch's pairs of inputs)."""
    import numbers

    import numpy as np

    from .._tensor import Tensor
    from ..ops.factories import tensor as make

    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(
                f"{prefix}The length of the sequences mismatch: {len(actual)} != {len(expected)}"
            )
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, e, rtol, atol, msg=prefix[:-2], check_stride=check_stride, **opts)
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError(
                f"{prefix}The keys of the mappings do not match: {sorted(map(str, actual))} "
                f"!= {sorted(map(str, expected))}"
            )
        for k in actual:
            assert_close(
                actual[k], expected[k], rtol, atol, msg=prefix[:-2], check_stride=check_stride,
                **opts,
            )  # fmt: skip
        return
    if isinstance(actual, numbers.Number) and not isinstance(actual, Tensor):
        if not isinstance(expected, numbers.Number):
            raise AssertionError(f"{prefix}expected a number, got {type(expected).__name__}")
        if opts["check_dtype"] and type(actual) is not type(expected):
            raise AssertionError(
                f"{prefix}The (d)types do not match: {type(actual)} != {type(expected)}."
            )
        dtype = "complex128" if isinstance(actual, complex) else "float64"
        if isinstance(actual, (bool, int)):
            dtype = "int64"
        from .. import dtypes

        t = make(actual, dtype=getattr(dtypes, dtype))
        assert_close(t, np.asarray(expected, dtype=dtype), rtol, atol, msg=prefix[:-2], **opts)
        return
    if isinstance(actual, (np.ndarray, np.generic)):
        assert_close(make(np.asarray(actual)), expected, rtol, atol, msg=prefix[:-2], **opts)
        return
    raise AssertionError(f"{prefix}expected a tensorcore Tensor, got {type(actual).__name__}")


def assert_close(
    actual: Tensor,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    *,
    check_dtype: bool = True,
    equal_nan: bool = True,
    msg: Any = "",
    check_device: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
) -> None:
    """Assert that a tensor matches a NumPy oracle: shape, dtype, NaN positions and values.

    As ``torch.testing.assert_close`` (which programs reach as ``torch.testing``), ``actual``
    and ``expected`` may also be matching lists, tuples or dicts of such values, or Python
    numbers (whose types must then match), and ``msg`` may be a callable that rewrites the
    failure message. ``check_stride`` compares the strides of two tensors;
    ``check_device`` and ``check_layout`` are accepted (values are compared on the host).

    Parameters
    ----------
    actual : Tensor
        The tensorcore result, on any device.
    expected : array_like
        The oracle: a NumPy array or scalar (whose dtype is checked), a Python scalar or
        nested list (whose dtype is not checked), or another tensor.
    rtol, atol : float, optional
        Tolerances for floating and complex dtypes; by default those of
        :func:`default_tolerances` for ``actual.dtype`` (as ``torch.testing.assert_close``).
        Integer and bool tensors are compared exactly unless tolerances are given.
    check_dtype : bool
        Whether ``actual.dtype`` must be the tensorcore dtype of ``expected.dtype``.
    equal_nan : bool
        Whether NaNs compare equal; NaN positions must then match exactly.
    msg : str or callable
        Text prepended to the failure message, or a function of the message returning the
        message to raise.

    Raises
    ------
    AssertionError
        Naming what differs, the number of mismatched elements and the largest difference.

    Examples
    --------
    >>> import numpy as np, tensorcore as tc
    >>> from tensorcore.testing import assert_close
    >>> assert_close(tc.tensor([1.0, float("nan")]), np.array([1.0, np.nan], dtype=np.float32))
    >>> assert_close(tc.tensor([1, 2]), np.array([1, 3]))
    Traceback (most recent call last):
        ...
    AssertionError: values differ: 1 of 2 elements mismatch (first at index (1,): 2 vs 3)
    """
    import numpy as np

    from .._tensor import Tensor

    opts: dict[str, Any] = {"check_dtype": check_dtype, "equal_nan": equal_nan}
    if callable(msg):
        try:
            assert_close(actual, expected, rtol, atol, check_stride=check_stride, **opts)
        except AssertionError as failure:
            raise AssertionError(msg(str(failure))) from None
        return
    prefix = f"{msg}: " if msg else ""
    if not isinstance(actual, Tensor):
        _assert_close_other(actual, expected, rtol, atol, prefix, check_stride, opts)
        return
    if check_stride and isinstance(expected, Tensor) and actual.stride() != expected.stride():
        raise AssertionError(
            f"{prefix}The values for attribute 'stride()' do not match: {actual.stride()} != "
            f"{expected.stride()}."
        )
    if isinstance(expected, Tensor):
        expected = to_numpy(expected)
    typed = isinstance(expected, (np.ndarray, np.generic))
    exp = np.asarray(expected)
    got = to_numpy(actual)
    if tuple(actual.shape) != exp.shape:
        raise AssertionError(f"{prefix}shapes differ: {tuple(actual.shape)} vs {exp.shape}")
    if check_dtype and typed and numpy_dtype(actual.dtype) != exp.dtype:
        raise AssertionError(
            f"{prefix}dtypes differ: {actual.dtype} (NumPy {numpy_dtype(actual.dtype)}) vs "
            f"NumPy {exp.dtype}"
        )
    d = actual.dtype
    exact = not (d.is_floating_point or d.is_complex) and rtol is None and atol is None
    if exact:
        if exp.dtype.kind in "fc":
            exp_cmp = exp
        else:
            exp_cmp = exp.astype(got.dtype) if exp.dtype != got.dtype and exp.size else exp
        bad = got != exp_cmp
    else:
        default_rtol, default_atol = default_tolerances(d)
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        wide = np.complex128 if (d.is_complex or exp.dtype.kind == "c") else np.float64
        g = got.astype(wide)
        e = exp.astype(wide)
        gnan, enan = np.isnan(g), np.isnan(e)
        if equal_nan and np.any(gnan != enan):
            idx = tuple(int(i) for i in np.argwhere(gnan != enan)[0])
            raise AssertionError(
                f"{prefix}NaN positions differ: first at index {idx}: {_py(got[idx])!r} vs "
                f"{_py(exp[idx])!r}"
            )
        with np.errstate(all="ignore"):
            # Infinities must match exactly; everything else within tolerance.
            same = g == e
            close = np.abs(g - e) <= atol + rtol * np.abs(e)
        bad = ~(same | close)
        if equal_nan:
            bad &= ~(gnan & enan)
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        n_bad = int(np.count_nonzero(bad))
        detail = ""
        if not exact:
            with np.errstate(all="ignore"):
                diff = np.abs(g - e)[bad]
            detail = f"; largest absolute difference {float(np.max(diff))!r}"
        raise AssertionError(
            f"{prefix}values differ: {n_bad} of {got.size} elements mismatch (first at index "
            f"{idx}: {_py(got[idx])!r} vs {_py(exp[idx])!r}){detail}"
        )


def _py(x: Any) -> Any:
    """A NumPy scalar as a Python scalar, for readable messages."""
    item = getattr(x, "item", None)
    return item() if item is not None else x
