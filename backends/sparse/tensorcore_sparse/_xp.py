"""The array libraries behind the sparse kernels: one namespace per device type.

The kernels are written once, against an :class:`ArrayNamespace`: ``ns.xp`` is the array
module (NumPy or CuPy), ``ns.sp`` the sparse-matrix module (``scipy.sparse`` or
``cupyx.scipy.sparse``), ``ns.wrap`` makes a tensor of the device over a native array, and a
few methods hold what the two libraries do differently (scatter-add, segment reductions,
repeat with per-element counts, canonical CSR matrices). :func:`ns_of` finds a tensor's
namespace with one dict lookup. The CUDA namespace is built the first time a CUDA sparse
tensor reaches a kernel, so nothing here imports CuPy before that.

:data:`DEVICE_TYPES` lists the device types that have a namespace; the plugin registers every
sparse kernel for each of them, so the device x layout grid has no special case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from tensorcore import backend
from tensorcore import device as tc_device

from . import _segments

if TYPE_CHECKING:
    from tensorcore import Tensor

__all__ = ["DEVICE_TYPES", "ArrayNamespace", "CuPyNamespace", "ns_of", "ns_of_type"]


class ArrayNamespace:
    """NumPy and SciPy on the ``cpu`` device; the base of every namespace.

    Attributes
    ----------
    device_type : str
        The device type whose tensors this namespace computes on.
    xp : module
        The array module (``numpy``).
    sp : module
        The sparse-matrix module (``scipy.sparse``).
    wrap : callable
        ``wrap(array)``: a tensor of the device over the array's memory.
    scipy_dtypes : frozenset
        The dtypes ``sp``'s matrix products and sums take without converting (and so share
        the values' memory).
    coo_products : bool
        Whether ``sp`` multiplies a COO matrix without building a CSR row pointer (SciPy
        does; a hyper-sparse matrix then costs memory in proportion to its non-zeros).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore_sparse._xp import ns_of
    >>> ns = ns_of(tc.ones(2))
    >>> ns.device_type, ns.xp.__name__, ns.sp.__name__
    ('cpu', 'numpy', 'scipy.sparse')
    >>> ns.repeat(ns.xp.arange(3), ns.xp.array([2, 0, 1])).tolist()
    [0, 0, 2]
    """

    device_type = "cpu"
    coo_products = True

    def __init__(self) -> None:
        self.xp: Any = np
        self.sp: Any = sp
        self.wrap: Any = self._first_wrap
        self.scipy_dtypes = frozenset(
            np.dtype(d)
            for d in (np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int64)
        )

    def _first_wrap(self, arr: Any) -> Tensor:
        # ``wrap`` is the device backend's ``from_native``, looked up on first use (the
        # device's plugin may load after this one).
        iface = backend.interface(self.device_type)
        dev = tc_device(self.device_type)

        def wrap(a: Any) -> Tensor:
            return iface.from_native(a, dev)

        self.wrap = wrap
        return wrap(arr)

    def argsort_stable(self, a: Any) -> Any:
        """Indices that sort the 1-D ``a``, equal keys keeping their order."""
        return np.argsort(a, kind="stable")

    def repeat(self, a: Any, counts: Any) -> Any:
        """``a[i]`` repeated ``counts[i]`` times, for an array of counts."""
        return np.repeat(a, counts)

    def add_at(self, out: Any, idx: Any, vals: Any) -> None:
        """``out[idx] += vals`` in place, repeated indices accumulating (``np.add.at``)."""
        np.add.at(out, idx, vals)

    def segment_sum(self, vals: Any, starts: Any, seg: Any = None) -> Any:
        """Sums of consecutive runs of ``vals`` along axis 0: run ``k`` starts at
        ``starts[k]`` (sorted, the first 0). ``seg``, each row's run, may be given where the
        caller has it; it describes the same runs."""
        if _segments.takes(vals, starts):  # (``reduceat``'s bits, without its per-column loop)
            return _segments.run_sums(vals, starts)
        try:
            # dtype= keeps bool sums bool (a logical or, as PyTorch) and narrow ints narrow.
            return np.add.reduceat(vals, starts, axis=0, dtype=vals.dtype)
        except TypeError:  # dtypes without a reduceat loop (bfloat16): sum in float64
            return np.add.reduceat(vals.astype(np.float64), starts, axis=0).astype(vals.dtype)

    def segment_shift(self, vals: Any, starts: Any, seg: Any) -> Any:
        """The maximum of each run (see :meth:`segment_sum`): the shift that keeps a
        softmax's exponentials finite (any per-run constant gives the same softmax)."""
        return np.maximum.reduceat(vals, starts, axis=0)

    def csr(self, data: Any, indices: Any, indptr: Any, shape: tuple[int, ...]) -> Any:
        """A CSR matrix over sorted, duplicate-free parts, sharing ``data`` (not copied)."""
        m = sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)
        m.has_canonical_format = True
        return m

    def canonical(self, m: Any, vouched: bool) -> Any:
        """``m`` with sorted, duplicate-free indices. ``vouched`` promises it already is:
        SciPy's binary operators keep canonical operands canonical without saying so, and
        trusting that saves an O(nnz) check."""
        if vouched:
            m.has_canonical_format = True
        elif not m.has_canonical_format:
            m.sum_duplicates()
        return m

    def shares_memory(self, a: Any, b: Any) -> bool:
        """Whether two arrays overlap in memory."""
        return bool(np.shares_memory(a, b))


class CuPyNamespace(ArrayNamespace):
    """CuPy and ``cupyx.scipy.sparse`` on the ``cuda`` device (CuPy 13 or later).

    ``xp`` is the ``cupy`` module, ``sp`` is ``cupyx.scipy.sparse`` and ``wrap`` is the CUDA
    device interface's (``tensorcore-cuda``). cuSPARSE matrices hold float32, float64,
    complex64 and complex128 values; the other dtypes take the COO paths, which use only the
    array module. Nothing here needs more of CuPy than NumPy also has, so the tests run this
    namespace over NumPy and SciPy on machines without a GPU.
    """

    device_type = "cuda"
    # cupyx converts a COO matrix to CSR before any product: a hyper-sparse matrix would
    # allocate a row pointer of its full height, so the COO paths of the kernels run instead.
    coo_products = False

    def __init__(self, xp: Any, sparse: Any, wrap: Any) -> None:
        self.xp = xp
        self.sp = sparse
        self.wrap = wrap
        self.scipy_dtypes = frozenset(
            np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128)
        )
        # cupy.add.at has atomic loops for these dtypes only.
        self._add_at_dtypes = frozenset(
            np.dtype(d)
            for d in (np.float16, np.float32, np.float64, np.int32, np.uint32, np.uint64)
        )

    def argsort_stable(self, a: Any) -> Any:
        """Indices that sort ``a`` (CuPy's sort is always stable and takes no ``kind``)."""
        return a.argsort()

    def repeat(self, a: Any, counts: Any) -> Any:
        """``a[i]`` repeated ``counts[i]`` times (``cupy.repeat`` takes only a scalar or a
        host sequence of counts): each output position finds its source by binary search."""
        cp = self.xp
        ends = cp.cumsum(counts)
        total = int(ends[-1]) if ends.size else 0
        return a[cp.searchsorted(ends, cp.arange(total), side="right")]

    def add_at(self, out: Any, idx: Any, vals: Any) -> None:
        """``out[idx] += vals`` with ``cupy.add.at``, for every dtype: int64 through its
        uint64 bits (two's-complement sums agree), complex through the real and imaginary
        parts, and the narrow integer and bool dtypes through an int64 accumulator."""
        cp = self.xp
        dt = out.dtype
        vals = cp.asarray(vals)
        if dt in self._add_at_dtypes:
            cp.add.at(out, idx, vals.astype(dt, copy=False))
        elif dt == np.int64:
            bits = vals.astype(np.int64, copy=False).view(np.uint64)
            cp.add.at(out.view(np.uint64), idx, bits)
        elif dt.kind == "c":
            vals = vals.astype(dt, copy=False)
            re = cp.zeros(out.shape, dtype=vals.real.dtype)
            im = cp.zeros(out.shape, dtype=vals.real.dtype)
            cp.add.at(re, idx, vals.real)
            cp.add.at(im, idx, vals.imag)
            out += re + 1j * im
        else:
            acc = out.astype(np.int64)
            self.add_at(acc, idx, vals.astype(np.int64))
            out[...] = acc.astype(dt)

    def segment_sum(self, vals: Any, starts: Any, seg: Any = None) -> Any:
        """Sums of the runs by scatter-add (``cupy.add.reduceat`` subtracts prefix sums,
        which loses the precision of small runs after large ones)."""
        cp = self.xp
        if seg is None:
            seg = cp.zeros(vals.shape[0], dtype=np.int64)
            seg[starts[1:]] = 1
            seg = cp.cumsum(seg)
        out = cp.zeros((len(starts),) + vals.shape[1:], dtype=vals.dtype)
        self.add_at(out, seg, vals)
        return out

    def segment_shift(self, vals: Any, starts: Any, seg: Any) -> Any:
        """The maximum of each run by ``cupy.maximum.at`` (float32 and float64 only: other
        dtypes compare in float64, complex values by their real part)."""
        cp = self.xp
        work = vals.real if vals.dtype.kind == "c" else vals
        if work.dtype not in (np.float32, np.float64):
            work = work.astype(np.float64)
        out = cp.full((len(starts),) + vals.shape[1:], -np.inf, dtype=work.dtype)
        cp.maximum.at(out, seg, work)
        return out

    def csr(self, data: Any, indices: Any, indptr: Any, shape: tuple[int, ...]) -> Any:
        """A ``cupyx.scipy.sparse.csr_matrix`` over canonical parts, sharing ``data``."""
        m = self.sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)
        m.has_canonical_format = True
        return m

    def canonical(self, m: Any, vouched: bool) -> Any:
        """``m`` made canonical by ``sum_duplicates()`` (which checks first, on the GPU):
        the cuSPARSE routines behind cupyx's operators do not document their output order,
        so nothing is vouched for here."""
        m.sum_duplicates()
        return m

    def shares_memory(self, a: Any, b: Any) -> bool:
        """Whether two CuPy arrays' memory bounds overlap (``cupy.may_share_memory``): the
        exact ``cupy.shares_memory`` sorts a pointer per element, and the only question
        asked here is whether cupyx copied the values, which makes a new allocation."""
        return bool(self.xp.may_share_memory(a, b))


def _cuda() -> ArrayNamespace:
    import cupyx.scipy.sparse

    iface = backend.interface("cuda")
    dev = tc_device("cuda")
    return CuPyNamespace(
        iface.array_module, cupyx.scipy.sparse, lambda a: iface.from_native(a, dev)
    )


_NAMESPACES: dict[str, ArrayNamespace] = {"cpu": ArrayNamespace()}
_FACTORIES = {"cuda": _cuda}

#: The device types with a namespace, so with the sparse kernels registered.
DEVICE_TYPES: tuple[str, ...] = ("cpu", *_FACTORIES)


def ns_of_type(device_type: str) -> ArrayNamespace:
    """The namespace of a device type, built on first use.

    Raises
    ------
    NotImplementedError
        For a device type without one.
    """
    hit = _NAMESPACES.get(device_type)
    if hit is None:
        factory = _FACTORIES.get(device_type)
        if factory is None:
            raise NotImplementedError(
                f"the sparse layouts (tensorcore-sparse) have no array namespace for device "
                f"'{device_type}'"
            )
        hit = _NAMESPACES[device_type] = factory()
    return hit


def ns_of(t: Tensor) -> ArrayNamespace:
    """The namespace that computes on ``t``'s device (one dict lookup once built)."""
    try:
        return _NAMESPACES[t._device.type]
    except KeyError:
        return ns_of_type(t._device.type)
