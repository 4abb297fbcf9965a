"""Copies, casts and fills; factories and random operators."""

from __future__ import annotations

from .. import arg_checks as AC
from .. import meta_functions as M
from ._declare import _op

# ---------------------------------------------------------------- copies, casts, fills
_op(
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "conversion",
    "A copy with its own storage, its strides in the order of ``self``'s "
    "(``memory_format=tensorcore.contiguous_format`` for row-major, ``channels_last`` for NHWC).",
    frontend="structured",
    meta_function=M.meta_clone,
)
_op(
    "contiguous(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    "conversion composite",
    "``self`` when already contiguous in ``memory_format`` (None is ``contiguous_format``, "
    "row-major; ``channels_last`` for NHWC), else a copy that is.",
)
_op(
    "to_dtype(Tensor self, ScalarType dtype) -> Tensor",
    "conversion",
    "A copy converted to ``dtype``.",
    frontend="structured",
    meta_function=M.meta_to_dtype,
    method=False,
    function=False,
    node="ToCopyBackward0",
)
_op(
    "to_dense(Tensor self, ScalarType? dtype=None) -> Tensor",
    "conversion composite",
    "A strided tensor of ``self``'s elements: an alias of a strided tensor (a copy converted "
    "to ``dtype`` when one is given); a layout's plugin registers the kernel for its layout.",
    function=False,
)
_op(
    "to_device(Tensor self, Device device, bool non_blocking=False) -> Tensor",
    "conversion",
    "A copy on another device.",
    method=False,
    function=False,
)
_op(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "inplace conversion",
    "Copies ``src`` (broadcast, cast, across devices) into ``self``.",
    function=False,
)
_op(
    "fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "inplace",
    "Fills ``self`` with ``value``.",
    function=False,
    values="value",
    internal_overlap="allow",
)
_op(
    "bernoulli_(Tensor(a!) self, Any p=0.5, *, Generator? generator=None) -> Tensor(a!)",
    "random nondifferentiable inplace composite",
    "Fills ``self`` with 1 (probability ``p``) or 0: a float64 uniform draw below ``p``, as "
    "PyTorch's CPU kernel draws it; ``p`` a tensor of probabilities (broadcast to ``self``), "
    "a float32 uniform draw below each.",
    function=False,
    dtypes="bif",
    check=AC.check_bernoulli_p,
)
_RF = "random nondifferentiable inplace composite"
_op(
    "exponential_(Tensor(a!) self, float lambd=1.0, *, Generator? generator=None) -> Tensor(a!)",
    _RF,
    "Fills ``self`` with exponentially distributed numbers of rate ``lambd``: "
    "``-log1p(-u) / lambd`` of a float64 uniform draw ``u``, as PyTorch's CPU kernel.",
    function=False,
    dtypes="f",
    dtype_error="Exponential distribution is a continuous probability distribution. dtype "
    "must be a floating point but you specified {dtype}",
)
_op(
    "cauchy_(Tensor(a!) self, float median=0.0, float sigma=1.0, *, Generator? generator=None) "
    "-> Tensor(a!)",
    _RF,
    "Fills ``self`` with Cauchy-distributed numbers: ``median + sigma * tan(pi * (u - 0.5))`` "
    "of a float64 uniform draw ``u``, as PyTorch's CPU kernel.",
    function=False,
    dtypes="f",
    dtype_error="Cauchy distribution is a continuous probability distribution. dtype must "
    "be a floating point but you specified {dtype}",
)
_op(
    "geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)",
    _RF,
    "Fills ``self`` with the number of Bernoulli(``p``) trials up to the first success: "
    "``ceil(log(u) / log1p(-p))`` of a float64 uniform draw ``u``, as PyTorch's CPU kernel.",
    function=False,
    dtypes="if",
)
_op(
    "log_normal_(Tensor(a!) self, float mean=1.0, float std=2.0, *, Generator? generator=None) "
    "-> Tensor(a!)",
    _RF,
    "Fills ``self`` with ``exp`` of normal numbers of mean ``mean`` and standard deviation "
    "``std`` (float64 Box-Muller draws, one element at a time, as PyTorch's CPU kernel).",
    function=False,
    dtypes="f",
)
_op(
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    "inplace composite",
    "Fills ``self`` with zeros.",
    function=False,
    internal_overlap="allow",
)
_op(
    "fill_diagonal_(Tensor(a!) self, Scalar fill_value, bool wrap=False) -> Tensor(a!)",
    "inplace composite",
    "Fills the main diagonal of ``self`` (2-D, or all dims of one length) with "
    "``fill_value``; ``wrap=True`` restarts it every ``ncols + 1`` rows of a tall matrix.",
    function=False,
)
_op(
    "item(Tensor self) -> Scalar",
    "conversion nondifferentiable",
    "The value of a one-element tensor as a Python scalar.",
    function=False,
)
_op(
    "tolist(Tensor self) -> Any",
    "conversion nondifferentiable",
    "The tensor as nested Python lists of Python scalars.",
    function=False,
)

# ---------------------------------------------------------------- factories and random
_F = "factory nondifferentiable"
# (out=: PyTorch's factories write into a given tensor, whose dtype and device they then take)
_FK = {"frontend": "factory", "method": False, "out": True}
_op(
    "empty(int... size, *, ScalarType? dtype=None, Device? device=None, bool? requires_grad=False, "
    "MemoryFormat? memory_format=None) -> Tensor",
    _F,
    "An uninitialised tensor (row-major, or in ``memory_format``: ``channels_last`` for NHWC).",
    meta_function=M.meta_empty,
    **_FK,
)
_op(
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A tensor filled with ``fill_value``.",
    values="fill_value",
    meta_function=M.meta_full,
    **_FK,
)
_op(
    "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None, "
    "Device? device=None, bool? requires_grad=False) -> Tensor",
    _F,
    "Values from ``start`` to ``end`` (exclusive) in steps of ``step``.",
    dtypes="if",
    meta_function=M.meta_arange,
    **_FK,
)
_op(
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "``steps`` evenly spaced values from start to end.",
    dtypes="ifc",
    meta_function=M.meta_linspace,
    convert=AC.space_bounds("linspace"),
    **_FK,
)
_op(
    "eye(int n, int? m=None, *, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    _F,
    "A 2-D tensor with ones on the diagonal.",
    meta_function=M.meta_eye,
    **_FK,
)
_RND = "random nondifferentiable inplace"
_op(
    "uniform_(Tensor(a!) self, float from_=0.0, float to=1.0, *, Generator? generator=None) -> Tensor(a!)",
    _RND,
    "Fills ``self`` with numbers drawn uniformly from ``[from, to)``.",
    function=False,
    dtypes="fc",
    check=AC.check_uniform,
)
_op(
    "normal_(Tensor(a!) self, float mean=0.0, float std=1.0, *, Generator? generator=None) -> Tensor(a!)",
    _RND,
    "Fills ``self`` with normally distributed numbers.",
    function=False,
    dtypes="fc",
)
_op(
    "random_(Tensor(a!) self, int? low=None, int? high=None, *, Generator? generator=None) "
    "-> Tensor(a!)",
    _RND,
    "Fills ``self`` with integers drawn uniformly from ``[low, high)``; ``random_(to)`` from "
    "``[0, to)``, ``random_()`` from 0 to the largest integer the dtype holds exactly "
    "(``2**24`` for float32, the maximum for integer dtypes).",
    function=False,
    dtypes="bif",
    check=AC.check_random_range,
)
_op(
    "_standard_gamma(Tensor self, Generator? generator=None) -> Tensor",
    "random nondifferentiable",
    "Gamma(``self``, 1) draws, ``self`` the concentrations (the sampler under ``Gamma``, "
    "``Dirichlet``, ``Beta``, ``Chi2``...): on the CPU, PyTorch's draws for a seed. At least "
    "the dtype's smallest normal number (0, negative or NaN concentrations give it).",
    frontend="structured",
    meta_function=M.meta_standard_gamma,
    method=False,
    dtypes="f",
    check=AC.refuses_16bit_floats("gamma", first=True),
)
_op(
    "randperm(int n, *, Generator? generator=None, ScalarType? dtype=None, Device? device=None, "
    "bool? requires_grad=False) -> Tensor",
    "random nondifferentiable factory",
    "A random permutation of ``0 .. n-1``.",
    dtypes="if",
    meta_function=M.meta_randperm,
    **_FK,
)
