"""Reductions and scans, and the end of a classifier's graph (the backward of softmax, the
negative log-likelihood loss)."""

from __future__ import annotations

from .. import arg_checks as AC
from .. import meta_functions as M
from ._declare import _op

# ---------------------------------------------------------------- reductions and scans
_R = "reduction"
_op(
    "sum(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Sum over ``dim`` (all dims when None).",
    frontend="reduction",
    node_when="dim:SumBackward1",
    promote="sum",
    out=True,
)
_op(
    "mean(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Mean over ``dim``.",
    frontend="reduction",
    node_when="dim:MeanBackward1",
    promote="float_only",
    out=True,
)
_op(
    "prod(Tensor self, int[]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Product over ``dim``.",
    frontend="reduction",
    node_when="dim:ProdBackward1",
    promote="sum",
    out=True,
    autocast="fp32",
)
_op(
    "amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    _R,
    "Maximum over ``dim`` (all dims when empty).",
    frontend="reduction",
    identity=False,
    out=True,
    dtypes="bif",
)
_op(
    "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    _R,
    "Minimum over ``dim`` (all dims when empty).",
    frontend="reduction",
    identity=False,
    out=True,
    dtypes="bif",
)
# The gradient of amax and amin as one kernel (PyTorch's ``evenly_distribute_backward``
# names the same sharing for the whole-tensor max/min): the rule written with operators took
# five (eq, to, sum, div, mul), most of the cost of a small amax's backward.
_op(
    "evenly_distribute_backward(Tensor grad, Tensor self, Tensor value, int[] dim, "
    "bool keepdim, bool nan_ties=False) -> Tensor",
    _R,
    "The gradient of ``amax``/``amin``: ``grad`` shared evenly among the elements of ``self`` "
    "equal to ``value`` (its reduction over ``dim``, every dim when empty), 0 elsewhere; "
    "with ``nan_ties`` (``max()``'s), among the NaNs where ``value`` is NaN.",
    frontend="structured",
    meta_function=M.meta_evenly_distribute_backward,
    method=False,
    dtypes="f",
)
# The whole-tensor max() and min() (PyTorch's kernels' names): their gradient is shared
# among the NaNs where the result is NaN, where amax's is NaN everywhere.
for _n in ("max", "min"):
    _op(
        f"{_n}_all(Tensor self) -> Tensor",
        _R,
        f"The {_n}imum of every element of a non-empty tensor (NaN where one is NaN).",
        frontend="structured",
        meta_function=M.meta_extreme_all,
        node=f"{_n.capitalize()}Backward1",
        method=False,
        function=False,
        dtypes="bif",
    )
_op(
    "max_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Maximum values and their indices along ``dim``.",
    frontend="reduction",
    node="MaxBackward0",
    identity=False,
    method=False,
    function=False,
    dtypes="bif",
    dtype_error="max(): does not support {kind} input",
)
_op(
    "min_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _R,
    "Minimum values and their indices along ``dim``.",
    frontend="reduction",
    node="MinBackward0",
    identity=False,
    method=False,
    function=False,
    dtypes="bif",
    dtype_error="min(): does not support {kind} input",
)
# The gradient of an operator that selects one element per reduced row (``max_dim``, the
# order statistics below): ``grad`` at ``indices`` along ``dim`` of zeros of ``sizes`` (PyTorch's
# name); as operators it took five (zeros, two unsqueezes, scatter), most of a small backward.
_op(
    "value_selecting_reduction_backward(Tensor grad, int dim, Tensor indices, int[] sizes, "
    "bool keepdim) -> Tensor",
    _R,
    "Zeros of shape ``sizes`` with ``grad`` at ``indices`` along ``dim`` (the reduced dim "
    "of both, kept where ``keepdim``): the gradient of ``max(dim)`` and its kind.",
    frontend="structured",
    meta_function=M.meta_value_selecting_reduction_backward,
    method=False,
    function=False,
    dtypes="f",
)
# The order statistics along a dim as one kernel each (PyTorch's ``median.dim``,
# ``nanmedian.dim``, ``kthvalue``, ``mode``), which the composites ``median``, ``nanmedian``,
# ``kthvalue`` and ``mode`` call after their checks: a stable sort, the position, the element
# there; written with operators they took a dozen (a median of (8, 16): 100 us). Their
# gradient goes to the element at the index, as ``max_dim``'s does.
for _n, _node, _doc in (
    ("median", "MedianBackward1", "The lower median along ``dim`` (NaN where there is one)"),
    ("nanmedian", "NanmedianBackward1", "The lower median of the numbers along ``dim``"),
    ("mode", "ModeBackward0", "The smallest of the most frequent values along ``dim``"),
):
    _op(
        f"{_n}_dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        _R,
        f"{_doc} and its index (of its last occurrence for ``mode``, of the first NaN "
        "where the result is NaN); a non-empty ``dim``.",
        frontend="reduction",
        node=_node,
        identity=False,
        method=False,
        function=False,
        dtypes="bif" if _n == "mode" else "if",
    )
_op(
    "kthvalue_dim(Tensor self, int k, int dim, bool keepdim=False) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "The ``k``-th smallest element along ``dim`` (1 <= ``k`` <= its size) and its index.",
    frontend="reduction",
    node="KthvalueBackward0",
    identity=False,
    method=False,
    function=False,
    dtypes="if",
)
_op(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the maximum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    identity=False,
    promote="index",
    out=True,
    dtypes="if",
    dtype_error="argmax(): does not support {kind} input",
)
_op(
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "Index of the minimum (of the flattened tensor when ``dim`` is None).",
    frontend="reduction",
    identity=False,
    promote="index",
    out=True,
    dtypes="if",
    dtype_error="argmin(): does not support {kind} input",
)
_op(
    "var(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Variance over ``dim`` with Bessel's ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only_real",
    none_means="correction=1",
    out=True,
)
_op(
    "std(Tensor self, int[]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    _R,
    "Standard deviation over ``dim`` with ``correction`` (default 1).",
    frontend="reduction",
    promote="float_only_real",
    none_means="correction=1",
    out=True,
)
_op(
    "vector_norm(Tensor self, float ord=2.0, int[]? dim=None, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    _R,
    "Vector ``ord``-norm over ``dim``.",
    frontend="reduction",
    promote="float_only_real",
    method=False,
    out=True,
    out_dtype="exact",
    node="LinalgVectorNormBackward0",
)
_op(
    "logsumexp(Tensor self, int[] dim, bool keepdim=False) -> Tensor",
    _R,
    "``log(sum(exp(self)))`` over ``dim``, computed stably.",
    frontend="reduction",
    promote="float",
    out=True,
)
_op(
    "all(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "True when every element over ``dim`` is true.",
    frontend="reduction",
    promote="bool",
    out=True,
)
_op(
    "any(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
    _R + " nondifferentiable",
    "True when some element over ``dim`` is true.",
    frontend="reduction",
    promote="bool",
    out=True,
)
_op(
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Cumulative sum along ``dim``.",
    frontend="structured",
    check=AC.refuses_bool_scan("cumsum"),
    meta_function=M.meta_cumsum,
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    _R,
    "Cumulative product along ``dim``.",
    frontend="structured",
    check=AC.refuses_bool_scan("cumprod"),
    meta_function=M.meta_cumsum,
    promote="sum",
    inplace=True,
    out=True,
)
_op(
    "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Softmax along ``dim``.",
    frontend="structured",
    meta_function=M.meta_softmax,
    promote="float",
    dtypes="f",
    out=True,
    out_dtype="exact",
)
_op(
    "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Log of the softmax along ``dim``, computed stably.",
    frontend="structured",
    meta_function=M.meta_softmax,
    promote="float",
    dtypes="f",
    out=True,
    out_dtype="exact",
)
# PyTorch's attention math path: a softmax whose rows of -inf only (queries masked from
# every key) are zeros instead of NaNs, with softmax's backward (a zero row's gradient is
# zero), so that attention needs no mask passes of its own over the scores.
_op(
    "_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    _R,
    "Softmax along ``dim``, zeros where every element of a slice is ``-inf``.",
    frontend="structured",
    meta_function=M.meta_softmax,
    promote="float",
    dtypes="f",
    method=False,
)
# The backward of softmax and log_softmax as one kernel each (PyTorch's names), and the
# negative log-likelihood loss with its backward: the end of every classifier's graph.
_op(
    "_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    _R,
    "The gradient of ``softmax``: "
    "``output * (grad_output - (grad_output * output).sum(dim, keepdim=True))``.",
    frontend="structured",
    meta_function=M.meta_softmax_backward_data,
    method=False,
    dtypes="f",
)
_op(
    "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim) -> Tensor",
    _R,
    "The gradient of ``log_softmax``: "
    "``grad_output - output.exp() * grad_output.sum(dim, keepdim=True)``.",
    frontend="structured",
    meta_function=M.meta_log_softmax_backward_data,
    method=False,
    dtypes="f",
    out=True,
    out_dtype="exact",
)
_op(
    'nll_loss(Tensor self, Tensor target, Tensor? weight=None, str reduction="mean", '
    "int ignore_index=-100) -> Tensor",
    _R,
    "Negative log-likelihood of the log-probabilities ``self`` (N, C) at the class indices "
    "``target`` (N,), weighted per class by ``weight`` (C,), skipping targets equal to "
    "``ignore_index``, reduced by ``reduction`` ('mean' divides by the total weight of the "
    "targets that count, 'sum' or 'none').",
    frontend="structured",
    meta_function=M.meta_nll_loss,
    method=False,
    dtypes="f",
    autocast="fp32",
)
_op(
    'nll_loss_backward(Tensor grad_output, Tensor target, int num_classes, str reduction="mean", '
    "Tensor? weight=None, int ignore_index=-100) -> Tensor",
    _R,
    "The gradient of ``nll_loss`` with respect to its (N, ``num_classes``) input.",
    frontend="structured",
    meta_function=M.meta_nll_loss_backward,
    method=False,
)
