"""Named tuples returned by operators with several outputs (as ``torch.return_types``)."""

from __future__ import annotations

from collections import namedtuple
from typing import Any, NamedTuple

__all__ = [
    "_lu_with_info",
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "geqrf",
    "histogram",
    "histogramdd",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_ldl_factor",
    "linalg_ldl_factor_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "make",
    "max",
    "max_pool2d_with_indices",
    "median",
    "min",
    "mode",
    "nanmedian",
    "slogdet",
    "sort",
    "svd",
    "topk",
    "triangular_solve",
]


class geqrf(NamedTuple):
    """``a`` (``R`` and the Householder vectors) and ``tau`` of :func:`tensorcore.geqrf`."""

    a: Any
    tau: Any


class max(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.max` along a dim."""

    values: Any
    indices: Any


class min(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.min` along a dim."""

    values: Any
    indices: Any


class sort(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.sort`."""

    values: Any
    indices: Any


class topk(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.topk`."""

    values: Any
    indices: Any


class max_pool2d_with_indices(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.max_pool2d_with_indices`."""

    values: Any
    indices: Any


class slogdet(NamedTuple):
    """``sign`` and ``logabsdet`` of :func:`tensorcore.slogdet`."""

    sign: Any
    logabsdet: Any


class linalg_slogdet(NamedTuple):
    """``sign`` and ``logabsdet`` of :func:`tensorcore.linalg.slogdet`."""

    sign: Any
    logabsdet: Any


class triangular_solve(NamedTuple):
    """``solution`` and ``cloned_coefficient`` of :func:`tensorcore.triangular_solve`."""

    solution: Any
    cloned_coefficient: Any


class linalg_cholesky_ex(NamedTuple):
    """``L`` and ``info`` of :func:`tensorcore.linalg.cholesky_ex`."""

    L: Any
    info: Any


class linalg_inv_ex(NamedTuple):
    """``inverse`` and ``info`` of :func:`tensorcore.linalg.inv_ex`."""

    inverse: Any
    info: Any


class linalg_solve_ex(NamedTuple):
    """``result`` and ``info`` of :func:`tensorcore.linalg.solve_ex`."""

    result: Any
    info: Any


class linalg_eigh(NamedTuple):
    """``eigenvalues`` and ``eigenvectors`` of :func:`tensorcore.linalg.eigh`."""

    eigenvalues: Any
    eigenvectors: Any


class linalg_eig(NamedTuple):
    """``eigenvalues`` and ``eigenvectors`` (complex) of :func:`tensorcore.linalg.eig`."""

    eigenvalues: Any
    eigenvectors: Any


class linalg_lu_factor(NamedTuple):
    """``LU`` and ``pivots`` of :func:`tensorcore.linalg.lu_factor`."""

    LU: Any
    pivots: Any


class linalg_lu_factor_ex(NamedTuple):
    """``LU``, ``pivots`` and ``info`` of :func:`tensorcore.linalg.lu_factor_ex`."""

    LU: Any
    pivots: Any
    info: Any


class linalg_ldl_factor(NamedTuple):
    """``LD`` and ``pivots`` of :func:`tensorcore.linalg.ldl_factor`."""

    LD: Any
    pivots: Any


class linalg_ldl_factor_ex(NamedTuple):
    """``LD``, ``pivots`` and ``info`` of :func:`tensorcore.linalg.ldl_factor_ex`."""

    LD: Any
    pivots: Any
    info: Any


class _lu_with_info(NamedTuple):
    """``LU``, ``pivots`` and ``info`` of :func:`tensorcore.lu` with ``get_infos=True``."""

    LU: Any
    pivots: Any
    info: Any


class linalg_lu(NamedTuple):
    """``P``, ``L`` and ``U`` of :func:`tensorcore.linalg.lu`."""

    P: Any
    L: Any
    U: Any


class lu_unpack(NamedTuple):
    """``P``, ``L`` and ``U`` of :func:`tensorcore.lu_unpack`."""

    P: Any
    L: Any
    U: Any


class linalg_qr(NamedTuple):
    """``Q`` and ``R`` of :func:`tensorcore.linalg.qr`."""

    Q: Any
    R: Any


class linalg_lstsq(NamedTuple):
    """``solution``, ``residuals``, ``rank`` and ``singular_values`` of
    :func:`tensorcore.linalg.lstsq`."""

    solution: Any
    residuals: Any
    rank: Any
    singular_values: Any


class linalg_svd(NamedTuple):
    """``U``, ``S`` and ``Vh`` of :func:`tensorcore.linalg.svd`."""

    U: Any
    S: Any
    Vh: Any


class cummax(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.cummax`: running maxima."""

    values: Any
    indices: Any


class cummin(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.cummin`: running minima."""

    values: Any
    indices: Any


class mode(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.mode`: the most frequent elements."""

    values: Any
    indices: Any


class histogramdd(NamedTuple):
    """``hist`` and ``bin_edges`` (a tuple, one per dim) of :func:`tensorcore.histogramdd`."""

    hist: Any
    bin_edges: Any


class histogram(NamedTuple):
    """``hist`` and ``bin_edges`` of :func:`tensorcore.histogram`."""

    hist: Any
    bin_edges: Any


class svd(NamedTuple):
    """``U``, ``S`` and ``V`` of :func:`tensorcore.svd`."""

    U: Any
    S: Any
    V: Any


class kthvalue(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.kthvalue`: the k-th smallest elements."""

    values: Any
    indices: Any


class median(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.median`: the medians along a dim."""

    values: Any
    indices: Any


class nanmedian(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.nanmedian` along a dim."""

    values: Any
    indices: Any


class aminmax(NamedTuple):
    """``min`` and ``max`` of :func:`tensorcore.aminmax`."""

    min: Any
    max: Any


class frexp(NamedTuple):
    """``mantissa`` and (int32) ``exponent`` of :func:`tensorcore.frexp`."""

    mantissa: Any
    exponent: Any


def _repr(self: Any) -> str:
    # PyTorch's layout: one field a line, after the type's full name.
    fields = ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self, strict=True))
    return f"{__name__}.{type(self).__name__}(\n{fields})"


for _name in __all__:
    if _name != "make":
        globals()[_name].__repr__ = _repr


def make(name: str, fields: list[str]) -> type:
    """A named tuple ``tensorcore.return_types.<name>`` with these fields, printed as
    PyTorch prints its return types (for operators this module has no class for).

    Examples
    --------
    >>> import tensorcore as tc
    >>> print(tc.max(tc.tensor([[1, 5], [3, 2]]), 1))
    tensorcore.return_types.max(
    values=tensor([5, 3]),
    indices=tensor([1, 0]))
    >>> make("pair", ["first", "second"])(1, 2)
    tensorcore.return_types.pair(
    first=1,
    second=2)
    """
    cls = namedtuple(name, fields, module=__name__)  # type: ignore[misc]
    cls.__repr__ = _repr  # type: ignore[method-assign]
    return cls
