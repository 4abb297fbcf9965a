"""Other names of declared operators (NumPy's spellings that PyTorch accepts), and the
operators whose in-place variant PyTorch also offers as a function (``torch.exp_(x)``).

An alias is no operator of its own: its function, method and in-place method run the
target's operator (same kernels, derivative rule and autograd node: ``torch.absolute(x)``
records an ``AbsBackward0``), compiled under the alias's name so that its signature and
error messages carry that name.
"""

from __future__ import annotations

from ._declare import INPLACE_FUNCTIONS, _alias

for _name, _target in [
    ("absolute", "abs"),
    ("arccos", "acos"),
    ("arcsin", "asin"),
    ("arctan", "atan"),
    ("arccosh", "acosh"),
    ("arcsinh", "asinh"),
    ("arctanh", "atanh"),
    ("arctan2", "atan2"),
    ("multiply", "mul"),
    ("divide", "div"),
    ("subtract", "sub"),
    ("negative", "neg"),
    ("greater", "gt"),
    ("greater_equal", "ge"),
    ("less", "lt"),
    ("less_equal", "le"),
    ("not_equal", "ne"),
    ("fix", "trunc"),
    ("ger", "outer"),
]:
    _alias(_name, _target)
for _name, _target in [
    ("split_with_sizes", "split"),
    ("unsafe_split", "split"),
    ("unsafe_split_with_sizes", "split"),
    ("unsafe_chunk", "chunk"),
]:
    _alias(_name, _target, "fm")
_alias("concat", "cat", "f")
_alias("concatenate", "cat", "f")
_alias("spmm", "mm", "f")

INPLACE_FUNCTIONS.update(
    [
        "abs",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atanh",
        "ceil",
        "clamp",
        "clamp_max",
        "clamp_min",
        "clip",
        "cos",
        "cosh",
        "deg2rad",
        "erf",
        "erfc",
        "exp",
        "exp2",
        "expm1",
        "floor",
        "i0",
        "index_put",
        "ldexp",
        "log",
        "log10",
        "log1p",
        "log2",
        "logit",
        "nan_to_num",
        "neg",
        "rad2deg",
        "reciprocal",
        "relu",
        "round",
        "rsqrt",
        "sigmoid",
        "sin",
        "sinc",
        "sinh",
        "sqrt",
        "square",
        "tan",
        "tanh",
        "trunc",
        "xlogy",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctanh",
        "negative",
        "fix",
        "frac",
        "gcd",
        "lcm",
        "fill_",
        "zero_",
    ]
)
