"""``tensorcore.array_api``: the Python array API standard (revision 2024.12) over tensorcore.

``tensorcore`` itself keeps PyTorch's names and semantics (``dim``, ``keepdim``, ``max``
returning values and indices, ``sum(dim=())`` reducing everything...). The standard disagrees
with PyTorch on some of them, so it lives in this separate namespace, which
``Tensor.__array_namespace__()`` returns: libraries written against the standard (SciPy,
scikit-learn, through ``array_api_compat``) find it from any tensor. Its functions take and
return ordinary tensorcore tensors, on the input's device, and gradients flow through them.
Where a standard function means exactly what a tensorcore function means, the namespace
holds that very function, so it costs nothing extra. ``docs/array-api.md`` explains the
choice and lists the differences.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> xp = x.__array_namespace__()
>>> xp.sum(x, axis=0).tolist(), xp.max(x).item()
([4.0, 6.0], 4.0)
>>> xp.concat([x, x], axis=1).shape
tensorcore.Size([2, 4])
"""

from __future__ import annotations

import math

from tensorcore import dtypes as _dt

from . import _elementwise, fft, linalg
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._data_types import (
    astype,
    can_cast,
    finfo,
    iinfo,
    isdtype,
    result_type,
)
from ._elementwise import (
    abs,
    acos,
    add,
    asin,
    atan,
    atan2,
    bitwise_and,
    bitwise_invert,
    bitwise_left_shift,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    ceil,
    clip,
    conj,
    cos,
    cosh,
    divide,
    equal,
    exp,
    expm1,
    floor,
    floor_divide,
    greater,
    greater_equal,
    imag,
    isfinite,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    log1p,
    log2,
    log10,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    positive,
    pow,
    real,
    reciprocal,
    remainder,
    round,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    subtract,
    tan,
    tanh,
    trunc,
)
from ._info import __array_namespace_info__
from ._linear_algebra import (
    matmul,
    matrix_transpose,
    tensordot,
    vecdot,
)
from ._manipulation import (
    broadcast_arrays,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    take,
    take_along_axis,
    tile,
    unstack,
)
from ._searching import (
    argmax,
    argmin,
    argsort,
    count_nonzero,
    nonzero,
    searchsorted,
    sort,
    unique_all,
    unique_counts,
    unique_inverse,
    unique_values,
    where,
)
from ._statistical import (
    all,
    any,
    cumulative_prod,
    cumulative_sum,
    diff,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)

__array_api_version__ = "2024.12"

# The standard's dtypes (tensorcore's own objects) and constants.
bool = _dt.bool_
int8, int16, int32, int64 = _dt.int8, _dt.int16, _dt.int32, _dt.int64
uint8 = _dt.uint8
float32, float64 = _dt.float32, _dt.float64
complex64, complex128 = _dt.complex64, _dt.complex128

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

__all__ = [
    "__array_api_version__",
    "__array_namespace_info__",
    "abs",
    "acos",
    "add",
    "all",
    "any",
    "arange",
    "argmax",
    "argmin",
    "argsort",
    "asarray",
    "asin",
    "astype",
    "atan",
    "atan2",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bool",
    "broadcast_arrays",
    "broadcast_to",
    "can_cast",
    "ceil",
    "clip",
    "complex64",
    "complex128",
    "concat",
    "conj",
    "cos",
    "cosh",
    "count_nonzero",
    "cumulative_prod",
    "cumulative_sum",
    "diff",
    "divide",
    "e",
    "empty",
    "empty_like",
    "equal",
    "exp",
    "expand_dims",
    "expm1",
    "eye",
    "fft",
    "finfo",
    "flip",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "from_dlpack",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "iinfo",
    "imag",
    "inf",
    "int8",
    "int16",
    "int32",
    "int64",
    "isdtype",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "linalg",
    "linspace",
    "log",
    "log1p",
    "log2",
    "log10",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "matrix_transpose",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "multiply",
    "nan",
    "negative",
    "newaxis",
    "nonzero",
    "not_equal",
    "ones",
    "ones_like",
    "permute_dims",
    "pi",
    "positive",
    "pow",
    "prod",
    "real",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "result_type",
    "roll",
    "round",
    "searchsorted",
    "sign",
    "sin",
    "sinh",
    "sort",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "tril",
    "triu",
    "trunc",
    "uint8",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
    "unstack",
    "var",
    "vecdot",
    "where",
    "zeros",
    "zeros_like",
]

# Elementwise functions whose PyTorch-named operators the table may not declare yet.
for _name in ("acosh", "asinh", "atanh", "copysign", "hypot", "logaddexp", "nextafter", "signbit"):
    if hasattr(_elementwise, _name):
        globals()[_name] = getattr(_elementwise, _name)
        __all__.append(_name)
