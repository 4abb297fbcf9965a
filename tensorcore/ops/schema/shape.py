"""Shape and indexing operators with kernels, and the search, set, scan and statistics kernels."""

from __future__ import annotations

from .. import arg_checks as AC
from .. import meta_functions as M
from .. import meta_indexing as MI
from ._declare import _op

_R = "reduction"

# ---------------------------------------------------------------- shape and indexing
_S = "shape"
_op(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    _S,
    "Concatenates along an existing dim.",
    frontend="structured",
    meta_function=M.meta_cat,
    method=False,
    out=True,
    autocast="promote",
)
_op(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    _S + " composite",
    "Stacks along a new dim.",
    method=False,
    autocast="promote",
    out=True,
)
_op(
    "flip(Tensor self, int[] dims) -> Tensor",
    _S,
    "Reverses the order along ``dims``.",
    frontend="structured",
    meta_function=M.meta_flip,
)
_op(
    "roll(Tensor self, int[] shifts, int[]? dims=None) -> Tensor",
    _S,
    "Rolls elements along ``dims`` (of the flattened tensor when None).",
    frontend="structured",
    meta_function=M.meta_roll,
)
_op(
    "repeat(Tensor self, int... repeats) -> Tensor",
    _S,
    "Repeats the tensor along each dim (like NumPy's tile).",
    frontend="structured",
    meta_function=M.meta_repeat,
    function=False,
)
_op("tile(Tensor self, int[] dims) -> Tensor", _S + " composite", "Repeats like NumPy's tile.")
_op(
    "tril(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Lower triangle of the last two dims.",
    frontend="structured",
    meta_function=M.meta_tril,
    inplace=True,
    out=True,
)
_op(
    "triu(Tensor self, int diagonal=0) -> Tensor",
    _S,
    "Upper triangle of the last two dims.",
    frontend="structured",
    meta_function=M.meta_tril,
    inplace=True,
    out=True,
)
_op(
    "gather(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Picks values along ``dim`` at ``index``.",
    frontend="structured",
    meta_function=MI.meta_gather,
    out=True,
    out_dtype="exact",
)
_op(
    "scatter(Tensor self, int dim, Tensor index, Tensor src, *, str? reduce=None) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` (a tensor or a number) written at ``index`` along ``dim``; "
    "PyTorch's deprecated ``reduce='add'`` or ``'multiply'`` accumulates instead (no "
    "derivative, as in PyTorch: :func:`scatter_reduce` has one).",
    frontend="structured",
    meta_function=MI.meta_scatter,
    inplace=True,
    scalars="src",
    values="src",
    out=True,
    out_dtype="exact",
)
_op(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` added at ``index`` along ``dim``.",
    frontend="structured",
    meta_function=MI.meta_scatter_add,
    inplace=True,
    out=True,
    out_dtype="exact",
)
_op(
    "scatter_reduce(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
    "bool include_self=True) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``src`` reduced into it at ``index`` along ``dim``: ``reduce`` is "
    "``'sum'``, ``'prod'``, ``'mean'`` (floor division for integers), ``'amax'`` or "
    "``'amin'``; ``include_self=False`` leaves the values of ``self`` where something is "
    "scattered out of the reduction.",
    frontend="structured",
    meta_function=MI.meta_scatter_reduce,
    inplace=True,
    check=AC.check_scatter_reduce,
    out=True,
    out_dtype="exact",
)
_op(
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "indexing",
    "Selects the entries ``index`` along ``dim``.",
    frontend="structured",
    meta_function=MI.meta_index_select,
    out=True,
    out_dtype="exact",
)
_op(
    "masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``value`` (a 0-d tensor or a number) where ``mask`` is true.",
    frontend="structured",
    meta_function=MI.meta_masked_fill,
    inplace=True,
    scalars="value",
    values="value",
    internal_overlap="deprecated",
    node_when="value=tensor:MaskedFillBackward1",
)
_op(
    "index(Tensor self, Tensor?[] indices) -> Tensor",
    "indexing",
    "Advanced (integer/boolean) indexing; what ``x[idx]`` runs for tensor indices.",
    method=False,
    function=False,
)
_op(
    "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
    "indexing",
    "Copy of ``self`` with ``values`` written at advanced ``indices``.",
    frontend="structured",
    meta_function=MI.meta_index_put,
    inplace=True,
    internal_overlap="deprecated",
)
_op(
    "argwhere(Tensor self) -> Tensor",
    "indexing nondifferentiable",
    "Indices of the non-zero elements, one row per element (int64, row-major order).",
)
_op(
    "nonzero(Tensor self, *, bool as_tuple=False) -> Any",
    "indexing nondifferentiable composite",
    "Indices of the non-zero elements: one row per element (:func:`argwhere`), or with "
    "``as_tuple`` one 1-D index tensor per dim (a 0-d tensor counts as 1-D).",
    out=True,
    out_dtype="exact",
)
_op(
    "nonzero_numpy(Tensor self) -> Tensor[]",
    "indexing nondifferentiable composite",
    "One 1-D index tensor per dim of the non-zero elements (what ``nonzero(as_tuple=True)`` "
    "and ``where(condition)`` return).",
    function=False,
    method=False,
)

# ---------------------------------------------------------------- search, sets, scans, statistics
# Kernels where a composite would be slow (a binary search, running maxima) or unstable
# (``logcumsumexp``); everything else is written with other operators in
# ``ops/composite_shape.py`` (shapes, sets) and ``ops/composite_stats.py`` (statistics).
_op(
    "searchsorted(Tensor sorted_sequence, Tensor input, *, bool out_int32=False, "
    "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
    "indexing nondifferentiable",
    "Where ``input`` would go in the innermost dim of ``sorted_sequence`` (or in the "
    "sequence ``sorter`` sorts) to keep it sorted: the first such place, the last with "
    "``right=True`` or ``side='right'``.",
    frontend="structured",
    meta_function=M.meta_searchsorted,
    method=False,
    out=True,
    scalars="input",
    dtypes="if",
)
_op(
    "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    _R,
    "Running maximum along ``dim`` and where it was reached (the last place for ties; NaN "
    "propagates).",
    frontend="structured",
    meta_function=M.meta_cummax,
    out=True,
    dtypes="bif",
)
_op(
    "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    _R,
    "Running minimum along ``dim`` and where it was reached (the last place for ties; NaN "
    "propagates).",
    frontend="structured",
    meta_function=M.meta_cummax,
    out=True,
    dtypes="bif",
)
_op(
    "logcumsumexp(Tensor self, int dim) -> Tensor",
    _R,
    "``log(cumsum(exp(self)))`` along ``dim``, computed stably.",
    frontend="structured",
    meta_function=M.meta_logcumsumexp,
    out=True,
    dtypes="fc",
)
