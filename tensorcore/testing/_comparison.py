"""``assert_close``: PyTorch's ``torch.testing.assert_close`` (and the deprecated
``assert_allclose``), plus tensorcore's NumPy-oracle form (a tensor against a NumPy array).

A comparison runs in two phases, as PyTorch's does: first the inputs are paired (recursing
through sequences and mappings; a pair type that cannot handle its inputs declines, and the
next one is tried), then each pair is compared. Errors found while pairing (an unhandled type,
a length or key mismatch, a lone tolerance) are raised as they are; a comparison failure is
raised with ``msg`` applied. The values are compared on the host with NumPy, in the dtype
PyTorch would compare them in, so that the messages carry PyTorch's numbers (that
arithmetic is :mod:`._closeness`).
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

from .. import dtypes
from .._tensor import Size, Tensor
from ..dtypes import promote_types
from ..layouts import strided
from ..ops.factories import as_tensor, tensor
from ._closeness import scalar_mismatch_msg, values_mismatch
from ._helpers import _TOLERANCES, numpy_dtype, to_numpy

__all__ = ["assert_allclose", "assert_close"]

_NUMBER_DTYPES = {int: "int64", float: "float64", complex: "complex128"}


class _Failure(Exception):
    """A failed comparison: the exception type to raise, its message and the item it is at
    (the keys and indices leading to it from the top-level inputs)."""

    def __init__(self, kind: type[Exception], msg: str, item: tuple[Any, ...] = ()) -> None:
        super().__init__(msg)
        self.kind, self.msg, self.item = kind, msg, item

    def error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        """The exception to raise: ``msg`` when it is a string, else the generated message
        (naming the item) or what the callable ``msg`` makes of it."""
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.item:
            text += f"\n\nThe failure occurred for item {''.join(str([k]) for k in self.item)}"
        return self.kind(msg(text) if callable(msg) else text)


class _Declined(Exception):
    """A pair type cannot handle these inputs; the next one is tried."""


def _tolerances(
    names: tuple[str, ...], rtol: float | None, atol: float | None, item: tuple[Any, ...]
) -> tuple[float, float]:
    """The given tolerances, or the loosest defaults of the dtypes ``names``."""
    if (rtol is None) != (atol is None):
        raise _Failure(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            item,
        )
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(n, (0.0, 0.0)) for n in names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


class _Pair:
    """Two inputs that one rule compares; the constructor declines inputs it cannot handle."""

    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...]) -> None:
        self.actual, self.expected, self.item = actual, expected, item

    def fail(self, msg: str, kind: type[Exception] = AssertionError) -> NoReturn:
        raise _Failure(kind, msg, self.item)

    def compare(self) -> None:
        raise NotImplementedError


class _NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], **_: Any) -> None:
        if actual is not None and expected is not None:
            raise _Declined
        super().__init__(actual, expected, item)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self.fail(f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], **_: Any) -> None:
        import numpy as np

        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _Declined
        super().__init__(bool(actual), bool(expected), item)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self.fail(f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    """Python numbers (and NumPy number scalars, as their Python value); ``check_dtype``
    compares their Python types."""

    def __init__(
        self,
        actual: Any,
        expected: Any,
        item: tuple[Any, ...],
        *,
        rtol: float | None,
        atol: float | None,
        equal_nan: bool | None,
        check_dtype: bool,
        **_: Any,
    ) -> None:
        import numpy as np

        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _Declined
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        super().__init__(actual, expected, item)
        if bool in (type(actual), type(expected)):
            # PyTorch fails the same way: a bool against a number is no pair it knows.
            raise RuntimeError(
                f"Originating a NumberPair() at item {''.join(str([k]) for k in item)} with\n\n"
                f"{type(actual).__name__}(): {actual}\n\nand\n\n"
                f"{type(expected).__name__}(): {expected}\n\n"
                "resulted in an unexpected exception: a bool is compared only with a bool."
            )
        names = (_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)])
        self.rtol, self.atol = _tolerances(names, rtol, atol, item)
        self.equal_nan, self.check_dtype = bool(equal_nan), check_dtype

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            self.fail(f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e or (self.equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(e):
            return
        self.fail(scalar_mismatch_msg(a, e, self.rtol, self.atol))


class _TensorPair(_Pair):
    """Tensors, or two inputs of related types that ``as_tensor`` turns into tensors (NumPy
    arrays): shape, layout, stride, device and dtype, then the values."""

    def __init__(
        self,
        actual: Any,
        expected: Any,
        item: tuple[Any, ...],
        *,
        allow_subclasses: bool,
        rtol: float | None,
        atol: float | None,
        equal_nan: bool | None,
        check_device: bool,
        check_dtype: bool,
        check_layout: bool,
        check_stride: bool,
        **_: Any,
    ) -> None:
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Declined
        tensors = []
        for x in (actual, expected):
            if not isinstance(x, Tensor):
                try:
                    x = as_tensor(x)
                except (TypeError, ValueError, RuntimeError):
                    raise _Declined from None
            tensors.append(x)
        a, e = tensors
        super().__init__(a, e, item)
        self.rtol, self.atol = _tolerances((a.dtype.name, e.dtype.name), rtol, atol, item)
        self.equal_nan = bool(equal_nan)
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    def mismatch(self, attribute: str, actual: Any, expected: Any) -> NoReturn:
        self.fail(f"The values for attribute '{attribute}' do not match: {actual} != {expected}.")

    def compare(self) -> None:
        a, e = self.actual, self.expected
        if a.shape != e.shape:
            self.mismatch("shape", a.shape, e.shape)
        if a.layout != e.layout:
            if self.check_layout:
                self.mismatch("layout", a.layout, e.layout)
        elif a.layout == strided and self.check_stride and a.stride() != e.stride():
            self.mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            self.mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            self.mismatch("dtype", a.dtype, e.dtype)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        dtype = promote_types(a.dtype, e.dtype) if a.dtype != e.dtype else a.dtype
        if a.layout != e.layout:
            a, e = (t if t.layout == strided else t.to_dense() for t in (a, e))
        nd = numpy_dtype(dtype)
        if a.layout == strided:
            self.values(_host(a, nd), _host(e, nd))
            return
        if a.layout.name != "sparse_coo":
            self.values(_host(a.to_dense(), nd), _host(e.to_dense(), nd))
            return
        if a.sparse_dim() != e.sparse_dim():
            self.fail(
                "The number of sparse dimensions in sparse COO tensors does not match: "
                f"{a.sparse_dim()} != {e.sparse_dim()}"
            )
        if a._nnz() != e._nnz():
            self.fail(
                "The number of specified values in sparse COO tensors does not match: "
                f"{a._nnz()} != {e._nnz()}"
            )
        self.values(to_numpy(a._indices()), to_numpy(e._indices()), "Sparse COO indices", 0, 0)
        self.values(_host(a._values(), nd), _host(e._values(), nd), "Sparse COO values")

    def values(
        self,
        actual: Any,
        expected: Any,
        identifier: str | None = None,
        rtol: float | None = None,
        atol: float | None = None,
    ) -> None:
        rtol = self.rtol if rtol is None else rtol
        atol = self.atol if atol is None else atol
        msg = values_mismatch(actual, expected, rtol, atol, self.equal_nan, identifier)
        if msg is not None:
            self.fail(msg)


class _OraclePair(_TensorPair):
    """tensorcore's extension: a tensor against a NumPy array or scalar (whose dtype
    ``check_dtype`` checks), or against Python numbers or nested lists of them (whose dtype
    is not checked). The values are compared on the host, NaNs equal unless ``equal_nan`` is
    False, with the tolerances of the tensor's dtype (and the array's)."""

    def __init__(
        self,
        actual: Any,
        expected: Any,
        item: tuple[Any, ...],
        *,
        rtol: float | None,
        atol: float | None,
        equal_nan: bool | None,
        check_dtype: bool,
        **_: Any,
    ) -> None:
        import numpy as np

        oracle = (np.ndarray, np.generic, list, tuple, bool, int, float, complex)
        if not isinstance(actual, Tensor) or not isinstance(expected, oracle):
            raise _Declined
        self.typed = isinstance(expected, (np.ndarray, np.generic))
        try:
            exp = np.asarray(expected)
        except ValueError:
            raise _Declined from None
        e_dtype = _dtype_of(exp.dtype)
        if exp.dtype.kind not in "biufc" and e_dtype is None:
            raise _Declined
        self.actual, self.expected, self.item = actual, exp, item
        names = [actual.dtype.name]
        if self.typed and e_dtype is not None:
            names.append(e_dtype.name)
        self.rtol, self.atol = _tolerances(tuple(names), rtol, atol, item)
        self.equal_nan = True if equal_nan is None else bool(equal_nan)
        self.check_dtype = check_dtype

    def compare(self) -> None:
        import numpy as np

        a, e = self.actual, self.expected
        if tuple(a.shape) != e.shape:
            self.mismatch("shape", a.shape, Size(e.shape))
        e_dtype = _dtype_of(e.dtype)
        if self.check_dtype and self.typed and numpy_dtype(a.dtype) != e.dtype:
            self.mismatch("dtype", a.dtype, e_dtype or f"numpy.{e.dtype}")
        if a.device.type == "meta":
            return
        got = to_numpy(a if a.layout == strided else a.to_dense())
        if got.dtype == e.dtype:
            nd = got.dtype
        elif self.typed and e_dtype is not None:
            nd = numpy_dtype(promote_types(a.dtype, e_dtype))
        else:
            nd = np.result_type(got.dtype, e.dtype)
        self.values(got.astype(nd, copy=False), e.astype(nd, copy=False))


_DTYPE_OF: dict[Any, Any] = {}


def _dtype_of(nd: Any) -> Any:
    """The tensorcore dtype of NumPy dtype ``nd``, or None."""
    if nd not in _DTYPE_OF:
        d = dtypes.by_name.get("bfloat16" if nd.kind == "V" else nd.name)
        _DTYPE_OF[nd] = d if d is not None and numpy_dtype(d) == nd else None
    return _DTYPE_OF[nd]


def _host(t: Any, nd: Any) -> Any:
    """The values of tensor ``t`` as a NumPy array of dtype ``nd``."""
    return to_numpy(t).astype(nd, copy=False)


def _pairs(
    actual: Any, expected: Any, item: tuple[Any, ...], options: dict[str, Any]
) -> list[_Pair]:
    """The pairs to compare: ``actual`` and ``expected`` recursed through when both are
    sequences (strings excepted) or both mappings."""
    if isinstance(actual, Tensor) and expected is not None:  # (the common case, made short)
        return [_tensor_pair(actual, expected, item, options)]
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (
        isinstance(actual, seq)
        and not isinstance(actual, str)
        and isinstance(expected, seq)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _Failure(
                AssertionError,
                f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                item,
            )
        items = range(len(actual))
        return [p for i in items for p in _pairs(actual[i], expected[i], (*item, i), options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        a_keys, e_keys = set(actual.keys()), set(expected.keys())
        if a_keys != e_keys:
            raise _Failure(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(e_keys - a_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(a_keys - e_keys)}",
                item,
            )
        keys: Any = a_keys
        with contextlib.suppress(TypeError):  # a stable order where the keys have one
            keys = sorted(keys)
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*item, k), options)]
    return [_first_pair(_PAIR_TYPES, actual, expected, item, options)]


def _tensor_pair(
    actual: Tensor, expected: Any, item: tuple[Any, ...], options: dict[str, Any]
) -> _Pair:
    """The pair of a tensor ``actual``: ``_PAIR_TYPES`` less those that take no tensor."""
    return _first_pair((_TensorPair, _OraclePair), actual, expected, item, options)


def _first_pair(
    types: tuple[type[_Pair], ...],
    actual: Any,
    expected: Any,
    item: tuple[Any, ...],
    options: dict[str, Any],
) -> _Pair:
    for pair_type in types:
        try:
            return pair_type(actual, expected, item, **options)
        except _Declined:
            continue
    raise _Failure(
        TypeError,
        f"No comparison pair was able to handle inputs of type {type(actual)} and "
        f"{type(expected)}.",
        item,
    )


_PAIR_TYPES: tuple[type[_Pair], ...] = (
    _NonePair,
    _BooleanPair,
    _NumberPair,
    _TensorPair,
    _OraclePair,
)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool | None = None,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    r"""Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Tensors (and inputs of related types that :func:`tensorcore.as_tensor` accepts, such as
    two NumPy arrays) are close when they have the same shape, layout, device and dtype (the
    last three unless ``check_layout``, ``check_device`` or ``check_dtype`` is False; then
    they are compared as strided tensors of the promoted dtype), the same strides when
    ``check_stride`` is True, and values with

    .. math:: |\text{actual} - \text{expected}| \le \text{atol} + \text{rtol} \cdot
        |\text{expected}|

    where infinities are close only to themselves and NaNs only to NaNs when ``equal_nan``
    is True. Booleans, Python numbers (and NumPy scalars), ``None`` and matching
    sequences or mappings of any of these are compared item by item; Python numbers of
    different types need ``check_dtype=False``. Bool and integer dtypes are compared exactly
    by default.

    **tensorcore's extension (the NumPy oracle).** Where PyTorch refuses the pair, a tensor
    ``actual`` may be compared with a NumPy array or scalar (whose dtype must then be the
    tensor's, unless ``check_dtype`` is False), or with a Python number or nested list of
    numbers (whose dtype is not checked). The tensor is compared on the host, with the
    tolerances of its dtype, and NaNs are equal unless ``equal_nan=False`` is given.

    Parameters
    ----------
    actual : Any
        The input to check.
    expected : Any
        The expected input (for a tensor ``actual``, possibly a NumPy oracle).
    allow_subclasses : bool
        Whether inputs of directly related types (a tensor subclass and ``Tensor``) pair;
        otherwise their types must be equal.
    rtol, atol : float, optional
        Relative and absolute tolerances, both given or both omitted; by default the
        loosest of the inputs' dtypes: ``float16`` (1e-3, 1e-5), ``bfloat16`` (1.6e-2, 1e-5),
        ``float32`` and ``complex64`` (1.3e-6, 1e-5), ``float64`` and ``complex128``
        (1e-7, 1e-7), others 0 (see :func:`default_tolerances`).
    equal_nan : bool, optional
        Whether NaNs compare equal. By default False, as PyTorch's, and True for the NumPy
        oracle.
    check_device, check_dtype, check_layout : bool
        Whether the tensors' devices, dtypes and layouts must be equal (Python numbers:
        whether their types must be).
    check_stride : bool
        Whether strided tensors must have equal strides.
    msg : str or callable, optional
        The message of the failure, replacing the generated one, or a function of the
        generated message that returns the message to raise.

    Raises
    ------
    ValueError
        When only one of ``rtol`` and ``atol`` is given.
    TypeError
        When no comparison handles a pair of inputs (a tensor against a string, a NumPy array
        ``actual`` against a tensor, ``allow_subclasses=False`` with related types).
    AssertionError
        When the inputs are not close; the message says how (and for containers, at which
        item).

    Examples
    --------
    >>> import math
    >>> import numpy as np, tensorcore as tc
    >>> from tensorcore.testing import assert_close
    >>> expected = tc.tensor([1e0, 1e-1, 1e-2])
    >>> assert_close(tc.acos(tc.cos(expected)), expected)
    >>> assert_close(2.0 / math.sqrt(2.0), math.sqrt(2.0))
    >>> assert_close({"w": [expected, 2]}, {"w": (expected.clone(), 2)})
    >>> assert_close(tc.tensor([1.0, 4.0, 5.0]), tc.tensor([1.0, 2.0, 3.0]))
    Traceback (most recent call last):
        ...
    AssertionError: Tensor-likes are not close!
    <BLANKLINE>
    Mismatched elements: 2 / 3 (66.7%)
    Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)
    Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)
    >>> nan = tc.tensor(float("nan"))
    >>> assert_close(nan, nan.clone(), equal_nan=True)
    >>> assert_close([1, 2], [1, 3], msg=lambda m: f"Header\n\n{m}")
    Traceback (most recent call last):
        ...
    AssertionError: Header
    <BLANKLINE>
    Scalars are not equal!
    <BLANKLINE>
    Expected 3 but got 2.
    Absolute difference: 1
    Relative difference: 0.3333333333333333
    <BLANKLINE>
    The failure occurred for item [1]

    The NumPy oracle:

    >>> assert_close(tc.tensor([1.0, float("nan")]), np.array([1.0, np.nan], np.float32))
    >>> assert_close(tc.tensor([1, 2]), np.array([1, 2]))
    >>> assert_close(tc.tensor([1.0]), np.array([1.0]))
    Traceback (most recent call last):
        ...
    AssertionError: The values for attribute 'dtype' do not match: tensorcore.float32 != tensorcore.float64.
    """  # noqa: E501
    __tracebackhide__ = True
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_layout": check_layout,
        "check_stride": check_stride,
    }
    try:
        pairs = _pairs(actual, expected, (), options)
    except _Failure as failure:
        raise failure.error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.error(msg) from None


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """Deprecated: PyTorch's ``torch.testing.assert_allclose``; use :func:`assert_close`.

    Non-tensor inputs become tensors (``expected`` of ``actual``'s dtype) and are compared
    with :func:`assert_close` with ``check_dtype=False``, NaNs equal, and by default the
    tolerances ``float16`` (1e-3, 1e-3), ``float32`` (1e-4, 1e-5), ``float64`` (1e-5, 1e-8)
    and 0 for other dtypes (the loosest of the two inputs').

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> from tensorcore.testing import assert_allclose
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     assert_allclose(tc.tensor([1.0, 2.0]), [1.0, 2.00001])
    """

    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead. You can find "
        "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        table = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}
        pairs = [table.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
