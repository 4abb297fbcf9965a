"""What the kernels share, public for a backend's own kernels over the same array module
(the CUDA backend's fused CuPy kernels read their operands with :func:`array_of`).

Examples
--------
>>> import numpy as np
>>> import tensorcore as tc
>>> from tensorcore_xp.helpers import array_of
>>> x = tc.arange(4.0)
>>> out = tc.empty(4)
>>> np.multiply(array_of(x), 2.0, out=array_of(out))  # a kernel writes into out's array
array([0., 2., 4., 6.], dtype=float32)
>>> out.tolist()
[0.0, 2.0, 4.0, 6.0]
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from tensorcore import Tensor
from tensorcore.backend import native

__all__ = [
    "acc_dtype",
    "accumulate",
    "array_of",
    "axpy",
    "errstate",
    "formula_kernel",
    "move_axis",
    "pieces",
    "quiet_tokens",
    "reduce_extreme",
    "scalar_arrays",
    "scipy_blas_single_thread",
    "shares_storage",
    "take_along",
    "ufunc_at",
    "writes_through_views",
]


def _errstate_of(xp: Any) -> Any:
    """The ``errstate`` that governs ``xp``'s warnings: its own, or NumPy's for an array
    module without one (CuPy: its kernels never warn, but it converts a Python number to a
    kernel's dtype through NumPy on the host, which warns on ``3.5e38`` into float32; dask
    computes through NumPy later, where it is harmless)."""
    return getattr(xp, "errstate", None) or numpy.errstate


def errstate(xp: Any) -> Any:
    """``xp.errstate`` where the array module has one (NumPy), NumPy's otherwise (CuPy's
    host side converts scalars through NumPy).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import errstate
    >>> with errstate(np)(divide="ignore"):
    ...     print(np.float64(1.0) / 0.0)
    inf
    """
    fn = _errstate_of(xp)
    enter, leave = quiet_tokens(xp)

    class _Ignore:
        """``errstate(all="ignore")`` over :func:`quiet_tokens`' pair: a third of its cost
        (the kernels' common case; one object per ``with``, so it nests)."""

        __slots__ = ("token",)

        def __enter__(self) -> None:
            self.token = enter()

        def __exit__(self, *exc: object) -> None:
            leave(self.token)

    def quiet(**kwargs: Any) -> Any:
        if len(kwargs) == 1 and kwargs.get("all") == "ignore":
            return _Ignore()
        return fn(**kwargs)

    return quiet


def writes_through_views(a: Any) -> bool:
    """Whether ``a`` is a C-contiguous array whose reshaped views share its memory, so that a
    kernel may write into such a view (``out=`` of a 2-D reshape): NumPy's and CuPy's
    contiguous arrays. False for arrays without ``flags`` (dask's), whose kernels then take
    the path that assigns the whole result.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import writes_through_views
    >>> writes_through_views(np.zeros((2, 3))), writes_through_views(np.zeros((3, 2)).T)
    (True, False)
    """
    flags = getattr(a, "flags", None)
    return bool(flags is not None and flags.c_contiguous)


def select(xp: Any, mask: Any, a: Any, b: Any) -> Any:
    """``where(mask, a, b)`` for ``a`` and ``b`` of one floating dtype (``b`` may be None:
    +0.0), as a fresh array. On NumPy the elements are picked bitwise (``b ^ ((a ^ b) &
    -mask)`` on their integer views): NumPy's ``where`` runs several times slower on a mask
    of mixed values (11 ms for 10^6 float32, the bitwise form 2 ms). Up to 1024 elements
    ``where`` itself is the faster (its one call against the bitwise form's five: about 4 us
    against 11 us for 128 float32). The same bits either way, NaN payloads and signed zeros
    included.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import select
    >>> x = np.array([-1.0, 2.0, np.nan, -0.0], np.float32)
    >>> select(np, x > 0, x, x * np.float32(0.5))
    array([-0.5,  2. ,  nan, -0. ], dtype=float32)
    >>> select(np, x < 0, x, None)
    array([-1.,  0.,  0.,  0.], dtype=float32)
    """
    if (
        getattr(xp, "__name__", None) != "numpy"
        or a.dtype.kind != "f"
        or not a.ndim
        or a.size <= 1024
    ):
        return xp.where(mask, a, xp.zeros((), a.dtype) if b is None else b)
    ints = xp.dtype(f"i{a.dtype.itemsize}")
    m = mask.astype(ints)
    xp.negative(m, out=m)  # all ones where mask, else 0
    if b is None:
        xp.bitwise_and(m, a.view(ints), out=m)
        return m.view(a.dtype)
    bi = b.view(ints)
    r = xp.bitwise_xor(a.view(ints), bi)
    r &= m
    r ^= bi
    return r.view(a.dtype)


def array_of(t: Any) -> Any:
    """The native array of a tensor (made lazily, never a copy); other values pass through.

    The same as :func:`tensorcore.backend.native` for a tensor, with the cached array read
    inline: every kernel calls this once per operand, and the call saved is a measurable part
    of an elementwise operation on small tensors.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore_xp.helpers import array_of
    >>> array_of(tc.ones(2)), array_of(1.5)
    (array([1., 1.], dtype=float32), 1.5)
    """
    if isinstance(t, Tensor):
        n = t._native
        if n is None:
            n = native(t)
        return n
    return t


def acc_dtype(xp: Any, d: Any) -> Any:
    """The array dtype to compute in for results of array dtype ``d``: float32 for 16-bit
    floats (as PyTorch accumulates them on the CPU), ``d`` itself otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import acc_dtype
    >>> acc_dtype(np, np.dtype(np.float16)), acc_dtype(np, np.dtype(np.int64))
    (<class 'numpy.float32'>, dtype('int64'))
    """
    return xp.float32 if d.itemsize == 2 and d.kind in "fV" else d


#: Elements per piece of :func:`pieces`: three float32 pieces (256 KiB each) fit a 1 MiB
#: L2 cache, so the passes after the first over a piece read it from cache.
PIECE = 1 << 16


def pieces(xp: Any, *arrays: Any) -> Any:
    """Matching pieces of ``arrays`` (one shape) for a sequence of elementwise passes: on
    NumPy, where every array is C-contiguous and longer than :data:`PIECE`, flat views of
    ``PIECE`` elements each, so that a formula of several in-place passes (an optimizer's
    update) goes to memory once per piece instead of once per pass; otherwise (another
    array module, a strided or short array) the arrays whole, as one piece.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import pieces
    >>> x, y = np.zeros(150_000, np.float32), np.ones(150_000, np.float32)
    >>> [len(a) for a, b in pieces(np, x, y)]
    [65536, 65536, 18928]
    >>> for a, b in pieces(np, x, y):
    ...     a += 2 * b
    >>> float(x.sum())
    300000.0
    """
    first = arrays[0]
    n = first.size
    if (
        n <= PIECE
        or getattr(xp, "__name__", None) != "numpy"
        or not all(a.flags.c_contiguous and a.shape == first.shape for a in arrays)
    ):
        return (arrays,)
    flat = [a.reshape(-1) for a in arrays]
    return ([a[i : i + PIECE] for a in flat] for i in range(0, n, PIECE))


def formula_kernel(xp: Any) -> Callable[..., None]:
    """``apply(out, tensors, formula)``: ``out = formula(c, dest, *arrays)`` for an
    elementwise formula of several passes. ``arrays`` are ``tensors``' arrays in the compute
    dtype (:func:`acc_dtype` of ``out``'s), broadcast to ``out``'s shape (one element for a
    0-d ``out``: NumPy's ufuncs return scalars for 0-d arrays). ``c(value)`` is a constant
    of the compute dtype (a cached 0-d array, :func:`scalar_arrays`: making a NumPy scalar
    costs as much as a pass over a small array). ``dest`` is where the formula may compute,
    and should leave its result: ``out``'s own array (or a piece of it, see :func:`pieces`,
    so that a large array's passes after the first run in cache), where it has the compute
    dtype, is C-contiguous and shares no storage with an input, so that the formula may
    write it before it reads its inputs; else None, and the formula makes its arrays
    (``xp.add(x, 1, out=None)`` allocates), whose result is copied into ``out``. A result
    that is not ``dest`` is copied there.

    Examples
    --------
    >>> import numpy as np
    >>> import tensorcore as tc
    >>> from tensorcore_xp.helpers import formula_kernel
    >>> apply = formula_kernel(np)
    >>> def f(c, dest, x):  # (x + 1) * x in two passes, no temporary where dest is given
    ...     r = np.add(x, c(1.0), out=dest)
    ...     return np.multiply(r, x, out=r)
    >>> out = tc.empty(3)
    >>> apply(out, (tc.tensor([1.0, 2.0, 3.0]),), f)
    >>> out.tolist()
    [2.0, 6.0, 12.0]
    """
    cache, lift = scalar_arrays(xp)
    constants: dict[Any, Callable[[float], Any]] = {}

    def constants_of(d: Any) -> Callable[[float], Any]:
        def c(v: float) -> Any:
            r = cache.get((v, d))
            return lift(v, d) if r is None else r

        constants[d] = c
        return c

    def apply(out: Tensor, tensors: Any, formula: Callable[..., Any]) -> None:
        o = array_of(out)
        d = o.dtype
        if len(tensors) == 1 and o.size <= PIECE:
            # The common call (an activation): one tensor of the result's shape and dtype,
            # a small contiguous result of its own storage; the checks below, in one frame
            # (a tenth of a microsecond each, a good part of a small silu).
            t = tensors[0]
            if t.__class__ is Tensor and t._storage is not out._storage:
                a = t._native
                if a is None:
                    a = native(t)
                flags = getattr(o, "flags", None)
                if (
                    a.shape == o.shape
                    and a.dtype == d
                    and o.ndim
                    and flags is not None
                    and flags.c_contiguous
                    and (d.itemsize != 2 or d.kind not in "fV")
                ):
                    r = formula(constants.get(d) or constants_of(d), o, a)
                    if r is not o:
                        o[...] = r
                    return
        if d.itemsize == 2 and d.kind in "fV":
            d = xp.dtype(xp.float32)
        c = constants.get(d) or constants_of(d)
        shape = o.shape or (1,)
        # (the common call, operands of the result's shape and dtype, as they are: NumPy's
        # broadcast_to costs a few microseconds, more than a ufunc pass on a small array)
        arrays = []
        for t in tensors:
            a = array_of(t)
            if a.shape != shape or a.dtype != d:
                a = xp.broadcast_to(a.astype(d, copy=False), shape)
            arrays.append(a)
        if (
            o.ndim
            and o.dtype == d
            and writes_through_views(o)
            and not shares_storage(out, *tensors)
        ):
            if o.size <= PIECE:
                r = formula(c, o, *arrays)
                if r is not o:
                    o[...] = r
                return
            for dest, *ins in pieces(xp, o, *arrays):
                r = formula(c, dest, *ins)
                if r is not dest:
                    dest[...] = r
            return
        r = formula(c, None, *arrays)
        xp.copyto(o, r.reshape(o.shape), casting="unsafe")

    return apply


def axpy(xp: Any) -> Any:
    """``axpy(a, x, y)``: ``y += a * x`` in place. On NumPy, for C-contiguous ``x`` and
    ``y`` of one shape and dtype that do not overlap, the product goes piece by piece
    (:func:`pieces`) into a scratch buffer that stays in cache: no temporary of ``y``'s
    size and its trip to memory (the fused optimizer steps' parameter update). Anything
    else, and any other array module, takes ``y += x * a``; both round alike.

    It is NumPy's arithmetic, not SciPy's BLAS ``axpy``: NumPy's and SciPy's wheels each
    bundle their own OpenBLAS, and calling one between the other's matrix products makes
    the two thread pools' idle threads spin against each other (an MLP training step on 2
    threads went from 5.5 to 21 ms).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import axpy
    >>> y = np.ones(4, np.float32)
    >>> axpy(np)(-0.5, np.arange(4, dtype=np.float32), y)
    >>> y
    array([ 1. ,  0.5,  0. , -0.5], dtype=float32)
    """

    def generic(a: Any, x: Any, y: Any) -> None:
        y += x * a

    if getattr(xp, "__name__", None) != "numpy":
        return generic
    may_share, multiply = xp.may_share_memory, xp.multiply
    local = threading.local()  # a scratch buffer per thread and dtype (ufuncs drop the GIL)

    def fast(a: Any, x: Any, y: Any) -> None:
        if (
            y.size < 4096  # (a small temporary costs less than the scratch's lookup)
            or x.dtype != y.dtype
            or x.shape != y.shape
            or not (x.flags.c_contiguous and y.flags.c_contiguous)
            or may_share(x, y)
        ):
            y += x * a
            return
        scratch = local.__dict__
        t = scratch.get(y.dtype)
        if t is None:
            t = scratch[y.dtype] = xp.empty(PIECE, y.dtype)
        if y.size <= PIECE:  # (a piece already: the optimizers call it piece by piece)
            ts = t[: y.size].reshape(y.shape)
            multiply(x, a, out=ts)
            y += ts
            return
        for xs, ys in pieces(xp, x, y):
            ts = t[: ys.size]
            multiply(xs, a, out=ts)
            ys += ts

    return fast


_SCIPY_BLAS: list[Any] | None = None  # (found at the first call: see below)


def _other_blas() -> list[Any]:
    """``threadpoolctl``'s controllers of the BLAS libraries loaded beside NumPy's (SciPy's
    wheel bundles its own OpenBLAS); empty where NumPy's is the only one (a shared system
    BLAS), where NumPy's cannot be told apart, or without ``threadpoolctl``."""
    global _SCIPY_BLAS
    if _SCIPY_BLAS is None:
        try:
            import numpy
            from threadpoolctl import ThreadpoolController
        except ImportError:
            _SCIPY_BLAS = []
            return _SCIPY_BLAS
        home = os.path.dirname(os.path.realpath(numpy.__file__))
        libs = ThreadpoolController().select(user_api="blas").lib_controllers
        mine = [lib for lib in libs if os.path.realpath(lib.filepath).startswith(home)]
        _SCIPY_BLAS = [lib for lib in libs if lib not in mine] if mine else []
    return _SCIPY_BLAS


@contextlib.contextmanager
def scipy_blas_single_thread() -> Any:
    """Run SciPy's BLAS and LAPACK (``scipy.linalg.get_blas_funcs``, ``get_lapack_funcs``) on
    one thread inside the block, where SciPy's wheel bundles an OpenBLAS of its own beside
    NumPy's; its thread count is restored after. Two OpenBLAS thread pools that take turns
    spin against each other: a loop of 20 (256, 256) matrix products and triangular solves
    took 240 ms on 2 threads, 15 ms so, 13 ms on one thread.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.linalg import get_blas_funcs
    >>> from tensorcore_xp.helpers import scipy_blas_single_thread
    >>> with scipy_blas_single_thread():
    ...     (axpy,) = get_blas_funcs(("axpy",), dtype=np.float64)
    ...     axpy(np.ones(2), np.ones(2), a=2.0).tolist()
    [3.0, 3.0]
    """
    libs = _other_blas()
    before = [lib.num_threads for lib in libs]
    for lib in libs:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in zip(libs, before, strict=True):
            lib.set_num_threads(n)


def reduce_extreme(xp: Any, ufunc: Any, x: Any, axis: int, out: Any, keepdims: bool) -> None:
    """``ufunc.reduce(x, axis=axis, out=out, keepdims=keepdims)`` for the array module
    ``xp``'s ``maximum`` or ``minimum`` (``fmax``, ``fmin``), one axis. A short axis of many
    rows is reduced as the elementwise ``ufunc`` over its slices instead: NumPy reduces a
    short axis row by row, about 75 ns a row (the (256, 10) maximum of a softmax over ten
    classes: 19 us, the slices 6 us). An axis of up to ``_FOLD_AXIS`` elements is first
    folded in halves (the elementwise ``ufunc`` of its first and second half) while its
    length is even and above ``_SHORT_AXIS``, where that reaches a short axis: NumPy's
    reduce of rows whose length is a multiple of its vector width is slowest (a softmax
    over 64 keys, (16384, 64) float32: 450 us; folded to 16, then the slices: 220 us).
    NaN propagates as in the reduce (the order of the comparisons differs, which only the
    sign of a zero maximum could show). Few rows keep the reduce: the slices cost a call
    each, half a microsecond on a small array, the reduce a tenth of one a row, so they pay
    from about ``_SHORT_ROWS`` rows a slice on (softmax's maximum over (16, 16) float32:
    the slices 9 us, the reduce 2.6; over (64, 32): 11.6, 7.2).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import reduce_extreme
    >>> x = np.arange(600.0).reshape(200, 3) % 7
    >>> out = np.empty((200, 1))
    >>> reduce_extreme(np, np.maximum, x, 1, out, True)
    >>> bool((out == x.max(1, keepdims=True)).all())
    True
    """
    n = x.shape[axis] if x.ndim else 0
    short = n
    while short > _SHORT_AXIS and not short % 2:
        short //= 2
    if (
        not 2 <= n <= _FOLD_AXIS
        or short > _SHORT_AXIS  # (the halves would not reach a short axis: folds that only
        # lead to the reduce cost 2 to 3 times as much, (64, 100) float32: 13 us, 5 us)
        or x.size < _SHORT_ROWS * short * n  # (fewer rows than _SHORT_ROWS a slice)
        or xp.may_share_memory(out, x)
    ):
        ufunc.reduce(x, axis=axis, out=out, keepdims=keepdims)
        return
    axis %= x.ndim
    lead = (slice(None),) * axis
    while n > _SHORT_AXIS:
        n //= 2
        x = ufunc(x[lead + (slice(0, n),)], x[lead + (slice(n, 2 * n),)])
    o = out[lead + (0,)] if keepdims else out
    ufunc(x[lead + (0,)], x[lead + (1,)], out=o)
    for j in range(2, n):
        ufunc(o, x[lead + (j,)], out=o)


def fold_product(
    xp: Any, x: Any, axis: int | Sequence[int] | None, out: Any, keepdims: bool
) -> bool:
    """``xp.multiply.reduce(x, axis=axis, out=out, keepdims=keepdims)`` of a floating or
    complex ``x`` as a tree of elementwise products: the first half of the axis times the
    second (an odd last slice folded into the first), until one slice is left. NumPy
    multiplies a reduced axis one element after the other, without vector instructions
    ((256, 1024) float32 along the rows: 680 us; folded: about a tenth); the tree is about
    as accurate (each product is rounded, in another order, as PyTorch's vectorised kernel
    also multiplies in another order). ``axis`` is an axis, or a sequence of them as a
    reduction kernel gets them: one axis, or all (as None: a contiguous ``x`` flattened).
    False (nothing done) for several axes but not all, for other dtypes, axes shorter than
    16, arrays of fewer than 16384 elements and ``out`` sharing memory with ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import fold_product
    >>> x = np.linspace(0.5, 1.5, 30000).reshape(3, 10000) ** 0.01
    >>> out = np.empty(3)
    >>> fold_product(np, x, 1, out, False)
    True
    >>> bool(np.allclose(out, x.prod(1)))
    True
    """
    if (
        x.dtype.kind not in "fc"
        or getattr(x, "flags", None) is None  # (arrays that are values: dask's reduce)
        or xp.may_share_memory(out, x)
    ):
        return False
    if axis is None or isinstance(axis, int):
        one = axis
    elif len(axis) == 1:
        one = axis[0]
    elif len(axis) == x.ndim:
        one = None
    else:
        return False
    if one is None:
        if not x.flags.c_contiguous:
            return False
        x, one = x.reshape(-1), 0
    n = x.shape[one]
    if n < 16 or x.size < 16384:  # (below, the calls cost more than the reduce's loop)
        return False
    one %= x.ndim
    lead = (slice(None),) * one
    while n > 1:
        h = n // 2
        y = xp.multiply(x[lead + (slice(0, h),)], x[lead + (slice(h, 2 * h),)])
        if n % 2:
            first = y[lead + (slice(0, 1),)]
            xp.multiply(first, x[lead + (slice(2 * h, n),)], out=first)
        x, n = y, h
    res = x if keepdims else x[lead + (0,)]
    out[...] = res.reshape(out.shape)
    return True


#: ``reduce_extreme`` loops over the slices of an axis of at most ``_SHORT_AXIS`` elements
#: (folding an even axis of up to ``_FOLD_AXIS`` first), with at least ``_SHORT_ROWS`` rows
#: per element (below, NumPy's reduce costs less than the calls).
_SHORT_AXIS, _SHORT_ROWS, _FOLD_AXIS = 16, 8, 128


def shares_storage(out: Tensor, *inputs: Any) -> bool:
    """Whether ``out`` writes into the storage of one of ``inputs`` (tensors or scalars): a
    kernel that writes ``out`` in several passes must then work in a temporary.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore_xp.helpers import shares_storage
    >>> x = tc.zeros(4)
    >>> shares_storage(x[1:], x, 2.0), shares_storage(x, tc.zeros(4))
    (True, False)
    """
    st = out._storage
    for x in inputs:  # noqa: SIM110 (a loop: any() over a generator costs 3 times as much)
        if getattr(x, "_storage", None) is st:
            return True
    return False


def contraction(xp: Any) -> Callable[..., Any]:
    """``xp.einsum``, or for NumPy the C function behind it (``einsum(subscripts,
    *operands)`` without ``optimize``): the public function's argument handling costs about
    a microsecond, as much as the contraction of a small layer norm's rows.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import contraction
    >>> contraction(np)("ij->i", np.ones((2, 3)))
    array([3., 3.])
    """
    if getattr(xp, "__name__", "") == "numpy":
        try:
            from numpy._core._multiarray_umath import c_einsum

            return c_einsum
        except ImportError:  # (another NumPy layout: the public function)
            pass
    return xp.einsum


def quiet_tokens(xp: Any) -> tuple[Any, Any]:
    """``(enter, leave)``: ``tok = enter()`` silences floating-point warnings until
    ``leave(tok)``, at a fraction of ``errstate``'s cost (the hot elementwise kernels use it:
    PyTorch never warns on ``inf * 0``). An array module without an ``errstate`` of its own
    gets NumPy's (CuPy converts scalars through NumPy on the host).

    With NumPy both halves are C callables over NumPy's error-state context variable (a
    private NumPy name, looked up once; NumPy's public ``errstate`` where it is missing).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import quiet_tokens
    >>> enter, leave = quiet_tokens(np)
    >>> tok = enter()
    >>> try:
    ...     r = np.float32(np.inf) * np.float32(0.0)  # no RuntimeWarning
    ... finally:
    ...     leave(tok)
    >>> r
    np.float32(nan)
    """
    fn = _errstate_of(xp)
    try:
        from numpy._core import _ufunc_config

        var = _ufunc_config._extobj_contextvar  # type: ignore[attr-defined]
        with fn(all="ignore"):
            ignore = var.get()
        # Both halves are C callables: no Python frame on the hot elementwise path.
        return functools.partial(var.set, ignore), var.reset
    except (ImportError, AttributeError):  # another NumPy layout: the public, slower way

        def enter() -> Any:
            cm = fn(all="ignore")
            cm.__enter__()
            return cm

        return enter, (lambda cm: cm.__exit__(None, None, None))


def scalar_arrays(xp: Any) -> tuple[dict[tuple[float, Any], Any], Any]:
    """``(cache, lift)`` for Python floats meeting floating arrays in a ufunc: NumPy 2 spends
    as long converting a Python scalar (a weak type) as computing 8 elements, a read-only
    0-d array costs nothing and gives the same result. A kernel reads
    ``cache.get((value, dtype))`` and calls ``lift(value, dtype)`` on a miss, ``dtype`` being
    the result's array dtype.

    The array has the dtype's compute precision (:func:`acc_dtype`: float32 for the 16-bit
    floats), so that a scalar the core kept in float32 for a 16-bit operation (PyTorch's
    ``opmath`` scalars of ``mul`` and ``div``) is not rounded again; the core converts every
    other scalar meeting a 16-bit tensor to a value that dtype holds exactly
    (``tensorcore/_scalars.py``), so computing with it in float32 and rounding once gives the
    16-bit operation's result. Other array modules (CuPy passes scalars to its kernels as
    parameters) get the value itself, typed as float32 for the 16-bit floats.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import scalar_arrays
    >>> cache, lift = scalar_arrays(np)
    >>> f32 = np.dtype(np.float32)
    >>> a = cache.get((1.5, f32)) or lift(1.5, f32)
    >>> a, cache[1.5, f32] is a
    (array(1.5, dtype=float32), True)
    """
    cache: dict[tuple[float, Any], Any] = {}
    if getattr(xp, "errstate", None) is None:
        quiet = errstate(xp)

        def typed(v: float, dtype: Any) -> Any:
            if dtype.itemsize == 2 and dtype.kind in "fV":
                with quiet(over="ignore"):  # (1e39 is inf in float32, as the cast makes it)
                    return xp.float32(v)
            return v

        return cache, typed

    def lift(v: float, dtype: Any) -> Any:
        if v == 0.0 or v != v:
            return v  # 0.0 and -0.0 would share an entry; nan is never found again
        if len(cache) >= 256:
            cache.clear()
        r = v
        if dtype.kind in "fV":
            with xp.errstate(all="ignore"):  # 1e300 into float32 is inf, as the cast makes it
                r = xp.array(v, acc_dtype(xp, dtype))
            r.flags.writeable = False
        cache[v, dtype] = r
        return r

    return cache, lift


def constant_arrays(xp: Any) -> Callable[[Any, Any], Any]:
    """``const(v, d)``: the Python number ``v`` as a kernel's operand of the compute dtype
    ``d`` (float32 or wider), for the parameters of a formula (``elu``'s ``alpha``). On
    NumPy a cached read-only 0-d array (:func:`scalar_arrays`, and a zero per dtype, which
    that keeps none of): NumPy converts a NumPy scalar or a Python number on every call,
    as long as a pass over a small array takes. Elsewhere ``d``'s scalar, ``d.type(v)``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import constant_arrays
    >>> const = constant_arrays(np)
    >>> f32 = np.dtype(np.float32)
    >>> const(0.1, f32), const(0, f32) is const(0.0, f32)
    (array(0.1, dtype=float32), True)
    """
    if getattr(xp, "errstate", None) is None:
        return lambda v, d: d.type(v)
    weak, lift = scalar_arrays(xp)
    zeros: dict[Any, Any] = {}

    def const(v: Any, d: Any) -> Any:
        if v == 0:
            z = zeros.get(d)
            if z is None:
                z = zeros[d] = xp.zeros((), d)
                z.flags.writeable = False
            return z
        return weak.get((v, d)) or lift(v, d)

    return const


def ufunc_at(xp: Any, ufunc: Any, target: Any, where: Any, values: Any) -> None:
    """``ufunc.at(target, where, values)``: unbuffered, so that repeated positions combine.

    Where the array module has no such loop (CuPy: no ``multiply.at``, and ``add.at`` for
    a few dtypes only), the positions are combined in rounds: each round applies the first
    remaining value of every distinct position, so that a position named ``k`` times is
    done after ``k`` rounds.

    ``maximum`` and ``minimum`` of floating-point targets never use another module's loop:
    CuPy's (atomic ``fmaxf``/``fminf``) computes doubles in single precision and drops NaNs.
    They sort the values by position instead (:func:`_extremum_at`), as do those ufuncs'
    integer targets where the module has no loop (CuPy's int64).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import ufunc_at
    >>> t = np.ones(3)
    >>> ufunc_at(np, np.multiply, t, (np.array([0, 2, 0]),), np.array([2.0, 3.0, 4.0]))
    >>> t
    array([8., 1., 3.])
    """
    if xp.__name__ == "numpy":  # (every loop there)
        ufunc.at(target, where, values)
        return
    kind = target.dtype.kind
    extremum = kind in "iuf" and (ufunc is xp.maximum or ufunc is xp.minimum)
    if not (extremum and kind == "f"):
        try:
            ufunc.at(target, where, values)
            return
        except (NotImplementedError, TypeError):
            pass
    pos = xp.arange(target.size, dtype=xp.int64).reshape(target.shape)[where]
    vals = xp.broadcast_to(xp.asarray(values), pos.shape).reshape(-1)
    pos = pos.reshape(-1)
    inplace = target.flags.c_contiguous
    flat = target.reshape(-1) if inplace else target.ravel()
    if extremum:
        _extremum_at(xp, ufunc is xp.maximum, flat, pos, vals.astype(flat.dtype, copy=False))
    while pos.size and not extremum:
        u, first = xp.unique(pos, return_index=True)
        flat[u] = ufunc(flat[u], vals[first])
        if first.size == pos.size:
            break
        keep = xp.ones(pos.size, dtype=bool)
        keep[first] = False
        pos, vals = pos[keep], vals[keep]
    if not inplace:
        target[...] = flat.reshape(target.shape)


def _extremum_at(xp: Any, largest: bool, flat: Any, pos: Any, vals: Any) -> None:
    """``maximum.at`` (``largest``) or ``minimum.at`` of the 1-d ``flat`` at the flat
    positions ``pos``: one stable sort by value, then by position; each position's last
    (maximum) or first (minimum) value is combined with the target's, and a position that
    is given a NaN becomes NaN (NumPy's ``maximum``/``minimum`` propagate it; sorting puts
    NaNs last, out of the minimum's reach)."""
    if not pos.size:
        return
    order = xp.argsort(vals, kind="stable")
    order = order[xp.argsort(pos[order], kind="stable")]
    p, v = pos[order], vals[order]
    pick = xp.ones(p.size, dtype=bool)
    if largest:
        pick[:-1] = p[1:] != p[:-1]
    else:
        pick[1:] = p[1:] != p[:-1]
    p, v = p[pick], v[pick]
    flat[p] = (xp.maximum if largest else xp.minimum)(flat[p], v)
    if vals.dtype.kind == "f":
        nan = xp.isnan(vals)
        flat[pos[nan]] = vals[nan]


def accumulate(xp: Any, ufunc: Any, x: Any, axis: int) -> Any:
    """``ufunc.accumulate(x, axis=axis)`` (an associative ``ufunc``).

    Where the array module has no such loop (CuPy's ``maximum``/``minimum``), a scan in
    ``log2(n)`` steps: step ``k`` combines each element with the one ``2**k`` before it.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import accumulate
    >>> accumulate(np, np.maximum, np.array([[1, 3, 2, 5]]), 1)
    array([[1, 3, 3, 5]])
    """
    try:
        return ufunc.accumulate(x, axis=axis)
    except (NotImplementedError, TypeError):
        if xp.__name__ == "numpy":
            raise
    v = xp.moveaxis(x, axis, -1).copy()
    n, step = v.shape[-1], 1
    while step < n:
        v[..., step:] = ufunc(v[..., step:], v[..., :-step])
        step *= 2
    return xp.moveaxis(v, -1, axis)


def wrap_unsigned(value: Any, dtype: Any) -> Any:
    """``value`` as an array of ``dtype`` stores it: a negative Python int for an unsigned
    dtype wraps (modulo ``2**bits``), as PyTorch converts a ``Scalar`` (the core's
    ``check_scalar`` has refused the ones below ``-max``), where NumPy refuses it."""
    if value.__class__ is int and value < 0 and dtype.kind == "u":
        return value % (1 << (8 * dtype.itemsize))
    return value


def move_axis(x: Any, source: int, destination: int) -> Any:
    """``x`` (a NumPy or CuPy array) with axis ``source`` moved to ``destination`` (each may
    count from the end), a view: ``moveaxis`` for one axis as one ``transpose``, without
    ``moveaxis``'s normalisation of axis sequences, which costs several times the transpose
    on a small array.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import move_axis
    >>> move_axis(np.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    >>> move_axis(np.zeros((2, 3, 4)), -1, 1).shape
    (2, 4, 3)
    """
    n = x.ndim
    s, d = source % n, destination % n
    if s == d:
        return x
    perm = [i for i in range(n) if i != s]
    perm.insert(d, s)
    return x.transpose(perm)


def take_along(xp: Any, x: Any, index: Any, axis: int) -> Any:
    """``xp.take_along_axis(x, index, axis=axis)`` for an integer ``index`` of ``x``'s
    dimensions (its other dims broadcast with ``x``'s), as one advanced index of ``x``: the
    index along ``axis``, and along every other dim its positions as a broadcast ``arange``,
    as ``take_along_axis`` builds them, without its argument checks, which cost about twice
    the indexing on a small array.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorcore_xp.helpers import take_along
    >>> x = np.array([[10, 30, 20], [60, 50, 40]])
    >>> take_along(np, x, np.argsort(x, axis=1), 1)
    array([[10, 20, 30],
           [40, 50, 60]])
    >>> take_along(np, x, np.array([[1, 0, 1]]), 0)
    array([[60, 30, 40]])
    """
    n = x.ndim
    if getattr(x, "flags", None) is None:  # (an array module without n-d advanced indexing,
        return xp.take_along_axis(x, index, axis=axis)  # dask's: the standard function)
    if n <= 1:
        return x[index]
    axis %= n
    key: list[Any] = []
    for i in range(n):
        if i == axis:
            key.append(index)
        else:
            key.append(_positions(xp, n, i, x.shape[i]))
    return x[tuple(key)]


#: ``_positions``' NumPy arrays, by (ndim, dim, size): read-only, shared by every call.
_POSITIONS: dict[tuple[int, int, int], Any] = {}


def _positions(xp: Any, n: int, i: int, size: int) -> Any:
    """``arange(size)`` shaped to run along dim ``i`` of ``n`` dims; NumPy's small ones
    made once (an ``arange`` and a ``reshape`` cost as much as the indexing they serve; a
    device array is made each time, on the device current then)."""
    key = (n, i, size)
    r = _POSITIONS.get(key) if xp is numpy else None
    if r is None:
        shape = [1] * n
        shape[i] = size
        r = xp.arange(size).reshape(shape)
        if xp is numpy and size <= _CACHED_POSITIONS and len(_POSITIONS) < 4096:
            r.flags.writeable = False
            _POSITIONS[key] = r
    return r


#: The longest ``arange`` that ``_positions`` keeps.
_CACHED_POSITIONS = 1 << 12
