"""Shape, search, set and statistics operators written with other operators
(``ops/composite_shape.py``, ``ops/composite_stats.py``)."""

from __future__ import annotations

from typing import Any

from .. import arg_checks as AC
from ._declare import _op

_CS = "composite"
_TRAPEZOID_BOOL = "trapezoid: received a bool input for `y`, but bool is not supported"
#: The dtypes PyTorch computes these composites in, where not all four.
_CS_DTYPES = {
    "bucketize": "if", "isin": "if", "unique": "bif", "unique_consecutive": "bif",
    "histc": "f", "histogram": "f", "kthvalue": "if", "mode": "bif", "median": "if", "nanmedian": "if", "quantile": "f",
    "nanquantile": "f", "nanmean": "f", "var_mean": "fc", "std_mean": "fc",
    "aminmax": "bif", "logspace": "ifc", "tril_indices": "i", "triu_indices": "i",
    "trapezoid": "ifc", "trapz": "ifc", "cumulative_trapezoid": "ifc", "chain_matmul": "ifc",
}  # fmt: skip
#: (PyTorch's quantile takes float32 and float64 only, and says so in a RuntimeError.)
_QUANTILE_DTYPES = "quantile() input tensor must be either float or double dtype"
_QUANTILE_16BIT = AC.refuses_16bit_floats("quantile", error=_QUANTILE_DTYPES, first=True)
_COMPOSITE_DECLS: list[tuple[str, str, str, dict[str, Any]]] = [
    # ------------------------------------------------------------ shapes
    (
        "meshgrid(Tensor... tensors, *, str? indexing=None) -> Tensor[]",
        "shape",
        "Coordinate grids of 0-D or 1-D tensors, as broadcast views: 'ij' (the default, with a "
        "warning when not given, as PyTorch) or 'xy' (the first two dims swapped).",
        {"method": False},
    ),
    (
        "broadcast_tensors(Tensor... tensors) -> Tensor[]",
        "shape",
        "Views of the tensors broadcast to their common shape.",
        {"method": False},
    ),
    (
        "moveaxis(Tensor self, int[] source, int[] destination) -> Tensor",
        "view",
        "Alias of :func:`movedim`.",
        {},
    ),
    (
        "atleast_1d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least one dim (a 0-d one as shape (1,)); a tuple for several.",
        {"method": False},
    ),
    (
        "atleast_2d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least two dims (new dims in front); a tuple for several.",
        {"method": False},
    ),
    (
        "atleast_3d(Tensor... tensors) -> Any",
        "view",
        "Each tensor with at least three dims (as NumPy: (n,) becomes (1, n, 1), (m, n) "
        "becomes (m, n, 1)); a tuple for several.",
        {"method": False},
    ),
    (
        "hstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 1 (dim 0 for 1-D tensors).",
        {"method": False, "out": True},
    ),
    (
        "vstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 0, 1-D tensors as rows.",
        {"method": False, "out": True},
    ),
    (
        "row_stack(Tensor[] tensors) -> Tensor",
        "shape",
        "Alias of :func:`vstack`.",
        {"method": False, "out": True},
    ),
    (
        "dstack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 2, after :func:`atleast_3d`.",
        {"method": False, "out": True},
    ),
    (
        "column_stack(Tensor[] tensors) -> Tensor",
        "shape",
        "Concatenates along dim 1, 0-D and 1-D tensors as columns.",
        {"method": False, "out": True},
    ),
    (
        "tensor_split(Tensor self, Any indices_or_sections, int dim=0) -> Tensor[]",
        "view",
        "Views of ``sections`` nearly equal pieces (the first ``n % sections`` one longer) or of "
        "the pieces between the ``indices``, along ``dim``.",
        {},
    ),
    (
        "hsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 1 (dim 0 for 1-D tensors); sections must divide.",
        {},
    ),
    (
        "vsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 0 of a tensor of 2 or more dims; sections must divide.",
        {},
    ),
    (
        "dsplit(Tensor self, Any indices_or_sections) -> Tensor[]",
        "view",
        ":func:`tensor_split` along dim 2 of a tensor of 3 or more dims; sections must divide.",
        {},
    ),
    ("flipud(Tensor self) -> Tensor", "shape", "Reverses dim 0.", {}),
    (
        "fliplr(Tensor self) -> Tensor",
        "shape",
        "Reverses dim 1 (of a tensor of 2 or more dims).",
        {},
    ),
    (
        "rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor",
        "shape",
        "Rotates by 90 degrees ``k`` times, from the first of ``dims`` towards the second.",
        {},
    ),
    (
        "take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor",
        "indexing",
        "Values at ``indices`` along ``dim`` (the two broadcast over the other dims), or of the "
        "flattened tensor when ``dim`` is None.",
        {"out": True, "out_dtype": "exact"},
    ),
    (
        "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) "
        "-> Tensor",
        "shape",
        "The ``n``-th forward difference along ``dim``, after adding ``prepend`` and "
        "``append`` (exclusive or for bool tensors).",
        {"out": True},
    ),
    (
        "repeat_interleave(Tensor self, Any repeats=None, int? dim=None, *, "
        "int? output_size=None) -> Tensor",
        "shape",
        "Repeats each element (each slice along ``dim``; of the flattened tensor when None) "
        "``repeats`` times (an int or a tensor of counts); with one tensor argument, "
        "``repeat_interleave(repeats)`` repeats the indices ``0..n-1``.",
        {},
    ),
    (
        "block_diag(Tensor... tensors) -> Tensor",
        "shape",
        "A block-diagonal matrix of the (at most 2-D) tensors, in their promoted dtype.",
        {"method": False},
    ),
    (
        "cartesian_prod(Tensor... tensors) -> Tensor",
        "shape",
        "The cartesian product of 1-D tensors, one row per combination.",
        {"method": False},
    ),
    (
        "combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor",
        "shape",
        "The ``r``-length combinations of a 1-D tensor's elements (as itertools'), one per row.",
        {"method": False},
    ),
    (
        "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, "
        "Device? device=None) -> Tensor",
        "factory nondifferentiable",
        "The (2, N) coordinates of the lower triangle of a ``row`` x ``col`` matrix, row by "
        "row (int64 by default).",
        {"method": False},
    ),
    (
        "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, "
        "Device? device=None) -> Tensor",
        "factory nondifferentiable",
        "The (2, N) coordinates of the upper triangle of a ``row`` x ``col`` matrix, row by "
        "row (int64 by default).",
        {"method": False},
    ),
    (
        "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
        "ScalarType? dtype=None, Device? device=None, bool? requires_grad=False) -> Tensor",
        "factory nondifferentiable",
        "``steps`` values from ``base ** start`` to ``base ** end``, evenly spaced in exponent.",
        {"method": False, "out": True, "convert": AC.space_bounds("logspace")},
    ),
    # ------------------------------------------------------------ search and sets
    (
        "bucketize(Tensor input, Tensor boundaries, *, bool out_int32=False, bool right=False) "
        "-> Tensor",
        "indexing nondifferentiable",
        "The bucket of each element among the 1-D sorted ``boundaries``: "
        ":func:`searchsorted` with the arguments swapped.",
        {"method": False, "scalars": "input", "out": True, "out_dtype": "exact"},
    ),
    (
        "count_nonzero(Tensor self, int[]? dim=None) -> Tensor",
        "reduction nondifferentiable",
        "The number of non-zero elements over ``dim`` (all dims when None), as int64.",
        {},
    ),
    (
        "isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
        "bool invert=False) -> Tensor",
        "indexing nondifferentiable",
        "True where an element of ``elements`` is in ``test_elements`` (either may be a "
        "number); ``invert`` negates.",
        {"method": False, "scalars": "elements test_elements", "out": True, "out_dtype": "exact"},
    ),
    (
        "unique(Tensor self, bool sorted=True, bool return_inverse=False, "
        "bool return_counts=False, int? dim=None) -> Any",
        "indexing nondifferentiable",
        "The distinct elements (or slices along ``dim``), sorted; with ``return_inverse`` and "
        "``return_counts`` a tuple that adds where each element went and how often each "
        "value occurs. Each NaN is distinct.",
        {},
    ),
    (
        "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
        "int? dim=None) -> Any",
        "indexing nondifferentiable",
        "The elements (or slices along ``dim``) without consecutive repeats; a tuple with "
        "``return_inverse``/``return_counts`` as :func:`unique`.",
        {},
    ),
    (
        "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
        "reduction nondifferentiable",
        "A histogram of ``bins`` equal bins between ``min`` and ``max`` (the data's minimum "
        "and maximum when both are 0); elements outside are ignored.",
        {"out": True, "out_dtype": "exact"},
    ),
    (
        "histogram(Tensor self, Any bins=100, *, Any? range=None, Tensor? weight=None, "
        "bool density=False) -> (Tensor hist, Tensor bin_edges)",
        "reduction nondifferentiable",
        "A histogram of the elements over ``bins`` equal bins of ``range`` (the data's "
        "minimum and maximum by default) or between the edges of a 1-D tensor ``bins``, the "
        "last bin closed; each element counts ``weight`` (1 by default); ``density`` divides "
        "by the total and the bin widths. Returns the counts and the edges.",
        {"check": AC.check_histogram, "out": True, "out_dtype": "exact"},
    ),
    # ------------------------------------------------------------ statistics
    (
        "kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> "
        "(Tensor values, Tensor indices)",
        "reduction",
        "The ``k``-th smallest element along ``dim`` and its index.",
        {"out": True, "out_dtype": "exact"},
    ),
    (
        "mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
        "reduction",
        "The most frequent value along ``dim`` (the smallest of the most frequent ones) and "
        "the index of its last occurrence.",
        {"out": True, "out_dtype": "exact"},
    ),
    (
        "median(Tensor self, int? dim=None, bool keepdim=False) -> Any",
        "reduction",
        "The lower median of all elements; with ``dim``, (values, indices) along it. NaN "
        "propagates.",
        {"out": True, "out_dtype": "several"},
    ),
    (
        "nanmedian(Tensor self, int? dim=None, bool keepdim=False) -> Any",
        "reduction",
        ":func:`median` ignoring NaN (NaN only where every element is NaN).",
        {"out": True, "out_dtype": "several"},
    ),
    (
        "quantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
        "str interpolation='linear') -> Tensor",
        "reduction",
        "The ``q``-th quantiles (a number or a 1-D tensor in [0, 1]; its dim comes first) "
        "over ``dim`` (the flattened tensor when None), interpolated 'linear', 'lower', "
        "'higher', 'midpoint' or 'nearest'. NaN propagates.",
        {
            "scalars": "q",
            "dtype_error": _QUANTILE_DTYPES,
            "check": _QUANTILE_16BIT,
            "autocast": "fp32",
            "out": True,
            "out_dtype": "exact",
        },
    ),
    (
        "nanquantile(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
        "str interpolation='linear') -> Tensor",
        "reduction",
        ":func:`quantile` ignoring NaN.",
        {
            "scalars": "q",
            "dtype_error": _QUANTILE_DTYPES,
            "check": _QUANTILE_16BIT,
            "autocast": "fp32",
            "out": True,
            "out_dtype": "exact",
        },
    ),
    (
        "nanmean(Tensor self, int[]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor",
        "reduction",
        "Mean over ``dim`` of the elements that are not NaN.",
        {
            "dtype_error": "nanmean(): expected input to have floating point or complex dtype "
            "but got {dtype}",
            "out": True,
        },
    ),
    (
        "nansum(Tensor self, int[]? dim=None, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor",
        "reduction",
        "Sum over ``dim`` with NaN counted as zero.",
        {"check": AC.refuses_complex_on_device("nansum"), "out": True},
    ),
    (
        "var_mean(Tensor self, int[]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)",
        "reduction",
        "``(var, mean)`` over ``dim`` (see :func:`var`).",
        {},
    ),
    (
        "std_mean(Tensor self, int[]? dim=None, *, Scalar? correction=None, "
        "bool keepdim=False) -> (Tensor, Tensor)",
        "reduction",
        "``(std, mean)`` over ``dim`` (see :func:`std`).",
        {},
    ),
    # ------------------------------------------------------------ integration
    (
        "trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
        "reduction",
        "The trapezoidal rule along ``dim``: the integral of ``y`` sampled at ``x`` (a 1-D "
        "tensor of one point per sample, or a tensor broadcasting with ``y``), or at a spacing "
        "of ``dx`` (1 by default).",
        {"method": False, "dtype_error": _TRAPEZOID_BOOL},
    ),
    (
        "trapz(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
        "reduction",
        "The trapezoidal rule (:func:`trapezoid`'s older name).",
        {"method": False, "dtype_error": _TRAPEZOID_BOOL},
    ),
    (
        "cumulative_trapezoid(Tensor y, Tensor? x=None, *, Scalar? dx=None, int dim=-1) -> Tensor",
        "reduction",
        "The running trapezoidal rule along ``dim`` (one value fewer than ``y`` has there).",
        {"method": False, "dtype_error": "cumulative_" + _TRAPEZOID_BOOL},
    ),
    (
        "gradient(Tensor self, *, Any spacing=1, Any dim=None, int edge_order=1) -> Tensor[]",
        "shape",
        "Estimates of the partial derivatives of the function sampled by ``self``, one tensor "
        "per dim of ``dim`` (every dim when None): second-order central differences inside, "
        "first- or second-order (``edge_order``) one-sided differences at the ends. "
        "``spacing`` is one number (the samples' distance along every dim), one number per "
        "dim, or one 1-D tensor of coordinates per dim.",
        {"method": False},
    ),
    (
        "chain_matmul(Tensor... matrices) -> Tensor",
        "linalg",
        "The product of the matrices, in the cheapest order (deprecated in PyTorch: "
        ":func:`tensorcore.linalg.multi_dot` takes them as a list).",
        {"method": False},
    ),
    (
        "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)",
        "reduction",
        "The minimum and maximum over ``dim`` (all elements when None).",
        {"out": True, "out_dtype": "exact"},
    ),
]
for _sig, _tags, _doc, _kw in _COMPOSITE_DECLS:
    _op(
        _sig, _tags + " " + _CS, _doc, dtypes=_CS_DTYPES.get(_sig[: _sig.index("(")], "bifc"), **_kw
    )
