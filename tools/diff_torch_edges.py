"""Differential runs of tensorcore against PyTorch on edge cases: a developer tool, run by hand.

``tools/diff_torch.py`` compares every operator's own samples. This tool widens that to the
inputs samples tend to lack, with the same comparison (``run_pair``: result dtypes, shapes and
values, mutated inputs, which library raises and with what builtin exception type):

``layout``
    Every sample of every operator again with each tensor input laid out differently but
    holding the same values: ``strided`` (every other element of a buffer twice as long) and
    ``transposed`` (column-major). For pointwise operators also ``expanded`` (each tensor input
    broadcast along a new leading dimension of stride 0, in place too: PyTorch refuses to
    write into such a tensor) and ``empty`` (the last dimension narrowed to 0).
``cases``
    Hand-written cases: NaN, infinities and negative zero in the ordering operators
    (max/min/sort/argmax/topk/unique/cummax/clamp/maximum/fmax...), integer overflow and
    integer division by zero, in-place results that cannot be cast back, ``out=`` of the wrong
    dtype or shape, reductions over empty dimensions, ``dim=`` lists, negative and duplicate
    dims, ``keepdim``, 0-d tensors, and every tensor dtype against every kind of Python
    number.
``grad``
    ``torch.autograd.grad`` against ``tc.autograd.grad`` at the non-smooth points of the cases
    (ties of max/min, clamp at its bounds, abs/relu/sqrt/norm at zero, empty inputs).

Usage::

    python3 tools/diff_torch_edges.py                    # every mode
    python3 tools/diff_torch_edges.py --mode cases -v
"""

# The closures made in loops are called in the same iteration:

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import diff_torch as D
import torch

import tensorcore as tc
from tensorcore.ops.schema import OPS
from tensorcore.testing.samples import Sample

NAN, INF = float("nan"), float("inf")


# ------------------------------------------------------------------ layout variants
def _map_tensors(s: Sample, fn: Callable[[tc.Tensor], tc.Tensor | None]) -> Sample | None:
    changed = False

    def walk(a: Any) -> Any:
        nonlocal changed
        if isinstance(a, tc.Tensor):
            b = fn(a)
            if b is None:
                return a
            changed = True
            return b
        if isinstance(a, list):
            return [walk(x) for x in a]
        if isinstance(a, tuple) and not hasattr(a, "_fields"):
            return tuple(walk(x) for x in a)
        return a

    args = walk(s.args)
    kwargs = {k: walk(v) for k, v in s.kwargs.items()}
    if not changed:
        return None
    return replace(s, args=args, kwargs=kwargs)


def _relayout(t: tc.Tensor, make: Callable[[tc.Tensor], tc.Tensor]) -> tc.Tensor:
    with tc.no_grad():
        out = make(t.detach())
    return out.requires_grad_() if t.requires_grad else out


def strided(t: tc.Tensor) -> tc.Tensor | None:
    """The same values in every other element of a buffer twice as long."""
    if t.ndim == 0 or t.numel() < 2 or t.layout != tc.strided:
        return None

    def make(x: tc.Tensor) -> tc.Tensor:
        buf = tc.zeros((*x.shape, 2), dtype=x.dtype, device=x.device)
        out = buf[..., 0]
        out.copy_(x)
        return out

    return _relayout(t, make)


def transposed(t: tc.Tensor) -> tc.Tensor | None:
    """The same values, column-major."""
    if t.ndim < 2 or t.numel() < 2 or t.layout != tc.strided:
        return None
    return _relayout(t, lambda x: x.mT.contiguous().mT)


def expanded(t: tc.Tensor) -> tc.Tensor | None:
    """Broadcast along a new leading dimension of size 2 and stride 0."""
    if t.ndim == 0 or t.layout != tc.strided:
        return None
    return _relayout(t, lambda x: x.clone().unsqueeze(0).expand(2, *x.shape))


def emptied(t: tc.Tensor) -> tc.Tensor | None:
    """The last dimension narrowed to 0."""
    if t.ndim == 0 or t.layout != tc.strided:
        return None
    return _relayout(t, lambda x: x.clone()[..., :0])


VARIANTS: dict[str, tuple[Callable[[tc.Tensor], tc.Tensor | None], bool]] = {
    # name: (the tensor map, pointwise operators only)
    "strided": (strided, False),
    "transposed": (transposed, False),
    "expanded": (expanded, True),
    "empty": (emptied, True),
}


def layout_mode(rep: D.Report, ops: list[str], dtypes: list[str]) -> None:
    for vname, (fn, pointwise_only) in VARIANTS.items():
        names = [n for n in ops if not pointwise_only or "pointwise" in OPS[n].tags]
        sub = D.Report()

        def variant(s: Sample, fn: Any = fn, vname: str = vname) -> Sample | None:
            v = _map_tensors(s, fn)
            return None if v is None else replace(v, desc=f"{vname}: {s.desc}")

        D.forward_mode(sub, names, dtypes, variant)
        rep.calls += sub.calls
        for m in sub.items:
            rep.add(m.kind, m.op, m.dtype, f"[{vname}] {m.sample}", m.detail)
        rep.expected += sub.expected
        rep.skipped += sub.skipped


# ------------------------------------------------------------------ hand-written cases
#: A case: (operator label, description, call) where call(L, mk) builds its inputs with
#: ``mk(values, dtype)`` and calls the library ``L`` (tensorcore or torch).
Case = tuple[str, str, Callable[[Any, Callable[..., Any]], Any]]


def _mk(L: Any) -> Callable[..., Any]:
    def mk(values: Any, dtype: str = "float32", grad: bool = False) -> Any:
        t = L.tensor(values, dtype=getattr(L, dtype))
        return t.requires_grad_() if grad else t

    return mk


ORDERING_VALUES = {
    "nan": [1.0, NAN, -2.0, 3.0, NAN, 0.5],
    "inf": [1.0, -INF, INF, 3.0, INF, -2.0],
    "-0": [0.0, -0.0, -0.0, 0.0, 1.0, -1.0],
    "ties": [2.0, 1.0, 2.0, 2.0, 1.0, 0.0],
}
FLOATS = ("float32", "float64", "float16", "bfloat16")
INTS = ("uint8", "int8", "int16", "int32", "int64")
SCALAR_DTYPES = ("bool", *INTS, "float16", "bfloat16", "float32", "float64", "complex64")
SCALARS = {"bool": True, "int": 3, "float": 2.5, "complex": 1 + 2j}


def ordering_cases() -> list[Case]:
    out: list[Case] = []
    for vname, vals in ORDERING_VALUES.items():
        for d in ("float32", "float64", "float16", "bfloat16"):
            tag = f"{vname} {d}"

            def x(mk: Any, vals: list[float] = vals, d: str = d) -> Any:
                return mk(vals, d)

            def x2(mk: Any, vals: list[float] = vals, d: str = d) -> Any:
                return mk(vals, d).reshape(2, 3)

            out += [
                ("max", tag, lambda L, mk, x=x: L.max(x(mk))),
                ("min", tag, lambda L, mk, x=x: L.min(x(mk))),
                ("max_dim", tag, lambda L, mk, x2=x2: tuple(L.max(x2(mk), 1))),
                ("min_dim", tag, lambda L, mk, x2=x2: tuple(L.min(x2(mk), 0))),
                ("amax", tag, lambda L, mk, x2=x2: L.amax(x2(mk), 1)),
                ("amin", tag, lambda L, mk, x2=x2: L.amin(x2(mk), (0, 1))),
                ("aminmax", tag, lambda L, mk, x2=x2: tuple(L.aminmax(x2(mk), dim=1))),
                ("argmax", tag, lambda L, mk, x=x: L.argmax(x(mk))),
                ("argmin", tag, lambda L, mk, x2=x2: L.argmin(x2(mk), 1)),
                ("sort", tag, lambda L, mk, x=x: tuple(L.sort(x(mk), stable=True))),
                (
                    "sort",
                    f"{tag} descending",
                    lambda L, mk, x=x: tuple(L.sort(x(mk), descending=True, stable=True)),
                ),
                ("argsort", tag, lambda L, mk, x=x: L.argsort(x(mk), stable=True)),
                ("msort", tag, lambda L, mk, x2=x2: L.msort(x2(mk))),
                ("topk", tag, lambda L, mk, x=x: L.topk(x(mk), 3).values),
                ("topk", f"{tag} smallest", lambda L, mk, x=x: L.topk(x(mk), 3, largest=False)[0]),
                ("kthvalue", tag, lambda L, mk, x=x: L.kthvalue(x(mk), 2).values),
                ("median", tag, lambda L, mk, x=x: L.median(x(mk))),
                ("nanmedian", tag, lambda L, mk, x=x: L.nanmedian(x(mk))),
                ("median", f"{tag} dim", lambda L, mk, x2=x2: L.median(x2(mk), 1).values),
                ("mode", tag, lambda L, mk, x=x: L.mode(x(mk)).values),
                ("unique", tag, lambda L, mk, x=x: L.unique(x(mk))),
                (
                    "unique",
                    f"{tag} counts",
                    lambda L, mk, x=x: tuple(L.unique(x(mk), return_counts=True)),
                ),
                ("cummax", tag, lambda L, mk, x=x: tuple(L.cummax(x(mk), 0))),
                ("cummin", tag, lambda L, mk, x=x: tuple(L.cummin(x(mk), 0))),
                ("clamp", tag, lambda L, mk, x=x: L.clamp(x(mk), -1.0, 1.0)),
                ("clamp", f"{tag} min=0", lambda L, mk, x=x: L.clamp(x(mk), min=0.0)),
                ("clamp", f"{tag} nan bound", lambda L, mk, x=x: L.clamp(x(mk), min=NAN)),
                (
                    "clamp",
                    f"{tag} tensor bounds",
                    lambda L, mk, x=x, d=d: L.clamp(x(mk), mk([0.0] * 6, d), mk([NAN] * 6, d)),
                ),
                ("maximum", tag, lambda L, mk, x=x: L.maximum(x(mk), x(mk).flip(0))),
                ("minimum", tag, lambda L, mk, x=x: L.minimum(x(mk), x(mk).flip(0))),
                ("fmax", tag, lambda L, mk, x=x: L.fmax(x(mk), x(mk).flip(0))),
                ("fmin", tag, lambda L, mk, x=x: L.fmin(x(mk), x(mk).flip(0))),
                ("sign", tag, lambda L, mk, x=x: L.sign(x(mk))),
                ("signbit", tag, lambda L, mk, x=x: L.signbit(x(mk))),
                ("abs", tag, lambda L, mk, x=x: L.abs(x(mk))),
                ("relu", tag, lambda L, mk, x=x: L.relu(x(mk))),
                ("nan_to_num", tag, lambda L, mk, x=x: L.nan_to_num(x(mk))),
                ("isclose", tag, lambda L, mk, x=x: L.isclose(x(mk), x(mk), equal_nan=True)),
                ("searchsorted", tag, lambda L, mk, x=x: L.searchsorted(L.sort(x(mk))[0], x(mk))),
                ("logsumexp", tag, lambda L, mk, x=x: L.logsumexp(x(mk), 0)),
                ("cumsum", tag, lambda L, mk, x=x: L.cumsum(x(mk), 0)),
                ("nansum", tag, lambda L, mk, x=x: L.nansum(x(mk))),
                ("nanmean", tag, lambda L, mk, x=x: L.nanmean(x(mk))),
                ("quantile", tag, lambda L, mk, x=x: L.quantile(x(mk).double(), 0.5)),
                ("nanquantile", tag, lambda L, mk, x=x: L.nanquantile(x(mk).double(), 0.5)),
                ("histc", tag, lambda L, mk, x=x: L.histc(x(mk).float(), 4, -2, 2)),
                ("floor_divide", tag, lambda L, mk, x=x: L.floor_divide(x(mk), x(mk).flip(0))),
                ("remainder", tag, lambda L, mk, x=x: L.remainder(x(mk), x(mk).flip(0))),
                ("fmod", tag, lambda L, mk, x=x: L.fmod(x(mk), x(mk).flip(0))),
                ("atan2", tag, lambda L, mk, x=x: L.atan2(x(mk), x(mk).flip(0))),
                ("copysign", tag, lambda L, mk, x=x: L.copysign(x(mk), x(mk).flip(0))),
                ("eq", tag, lambda L, mk, x=x: L.eq(x(mk), x(mk))),
                ("round", tag, lambda L, mk, x=x: L.round(x(mk) * 2.5)),
                ("trunc", tag, lambda L, mk, x=x: L.trunc(x(mk) * 0.3)),
            ]
    return out


def integer_cases() -> list[Case]:
    out: list[Case] = []
    for d in INTS:
        top = {"uint8": 255, "int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1}[d]
        low = 0 if d == "uint8" else -top - 1
        a = [7, low, top, 0, 5, 1]
        z = [0, 0, 2, 0, -1 if d != "uint8" else 1, 3]
        out += [
            ("add", f"{d} overflow", lambda L, mk, d=d, a=a: L.add(mk(a, d), mk(a, d))),
            ("mul", f"{d} overflow", lambda L, mk, d=d, a=a: L.mul(mk(a, d), 3)),
            ("neg", f"{d} of the lowest", lambda L, mk, d=d, a=a: L.neg(mk(a, d))),
            ("abs", f"{d} of the lowest", lambda L, mk, d=d, a=a: L.abs(mk(a, d))),
            ("sum", f"{d} overflow", lambda L, mk, d=d, a=a: L.sum(mk(a, d))),
            ("cumsum", f"{d} overflow", lambda L, mk, d=d, a=a: L.cumsum(mk(a, d), 0)),
            ("prod", f"{d} overflow", lambda L, mk, d=d, a=a: L.prod(mk(a, d))),
            ("div", f"{d} by zero", lambda L, mk, d=d, a=a, z=z: L.div(mk(a, d), mk(z, d))),
            (
                "div",
                f"{d} by zero, floor",
                lambda L, mk, d=d, a=a, z=z: L.div(mk(a, d), mk(z, d), rounding_mode="floor"),
            ),
            (
                "div",
                f"{d} by zero, trunc",
                lambda L, mk, d=d, a=a, z=z: L.div(mk(a, d), mk(z, d), rounding_mode="trunc"),
            ),
            (
                "floor_divide",
                f"{d} by zero",
                lambda L, mk, d=d, a=a, z=z: L.floor_divide(mk(a, d), mk(z, d)),
            ),
            (
                "floor_divide",
                f"{d} by scalar 0",
                lambda L, mk, d=d, a=a: L.floor_divide(mk(a, d), 0),
            ),
            (
                "remainder",
                f"{d} by zero",
                lambda L, mk, d=d, a=a, z=z: L.remainder(mk(a, d), mk(z, d)),
            ),
            ("remainder", f"{d} by scalar 0", lambda L, mk, d=d, a=a: L.remainder(mk(a, d), 0)),
            ("fmod", f"{d} by zero", lambda L, mk, d=d, a=a, z=z: L.fmod(mk(a, d), mk(z, d))),
            ("fmod", f"{d} by scalar 0", lambda L, mk, d=d, a=a: L.fmod(mk(a, d), 0)),
            (
                "__floordiv__",
                f"{d} by zero",
                lambda L, mk, d=d, a=a, z=z: mk(a, d) // mk(z, d),
            ),
            ("__mod__", f"{d} by zero", lambda L, mk, d=d, a=a, z=z: mk(a, d) % mk(z, d)),
            # (int32/int64: PyTorch's CPU kernel dies of SIGFPE on the lowest // -1)
            *(
                []
                if d in ("uint8", "int32", "int64")
                else [
                    (
                        "div",
                        f"{d} lowest by -1 (trunc)",
                        lambda L, mk, d=d, low=low: L.div(
                            mk([low], d), mk([-1], d), rounding_mode="trunc"
                        ),
                    )
                ]
            ),
            ("pow", f"{d} negative exponent", lambda L, mk, d=d: L.pow(mk([2, 1, 0], d), -1)),
            ("pow", f"{d} overflow", lambda L, mk, d=d: L.pow(mk([3, 2, 1], d), 70)),
            (
                "bitwise_left_shift",
                f"{d} wide",
                lambda L, mk, d=d: L.bitwise_left_shift(mk([1, 3, 1], d), mk([1, 7, 70], d)),
            ),
            (
                "bitwise_right_shift",
                f"{d} wide",
                lambda L, mk, d=d: L.bitwise_right_shift(
                    mk([-8 if d != "uint8" else 8, 3, 64], d), mk([1, 70, 1], d)
                ),
            ),
            (
                "to",
                f"{d} from float out of range",
                lambda L, mk, d=d: mk([300.7, -2.5], "float32").to(getattr(L, d)),
            ),
            ("gcd", f"{d}", lambda L, mk, d=d: L.gcd(mk([0, 6, 9], d), mk([0, 4, 3], d))),
            ("lcm", f"{d}", lambda L, mk, d=d: L.lcm(mk([0, 6, 9], d), mk([0, 4, 3], d))),
        ]
    out += [
        ("add_", "int64 += 2.5", lambda L, mk: mk([1, 2], "int64").add_(2.5)),
        ("add_", "int64 += float tensor", lambda L, mk: mk([1, 2], "int64").add_(mk([1.0, 2.0]))),
        ("add_", "int64 += 0-d float tensor", lambda L, mk: mk([1, 2], "int64").add_(mk(1.0))),
        ("mul_", "int32 *= 1j", lambda L, mk: mk([1, 2], "int32").mul_(1j)),
        ("mul_", "float32 *= 1j", lambda L, mk: mk([1.0, 2.0]).mul_(1j)),
        ("div_", "int64 /= 2", lambda L, mk: mk([1, 2], "int64").div_(2)),
        (
            "div_",
            "int64 //= 2 (floor)",
            lambda L, mk: mk([1, 2], "int64").div_(2, rounding_mode="floor"),
        ),
        ("add_", "bool += 1", lambda L, mk: mk([True, False], "bool").add_(1)),
        ("add_", "bool += True", lambda L, mk: mk([True, False], "bool").add_(True)),
        ("sub_", "uint8 -= 300", lambda L, mk: mk([1, 2], "uint8").sub_(300)),
        ("sqrt_", "int64 in place", lambda L, mk: mk([1, 4], "int64").sqrt_()),
        ("clamp_", "int64 by floats", lambda L, mk: mk([1, 4], "int64").clamp_(0.5, 2.5)),
        ("pow_", "int64 ** 0.5", lambda L, mk: mk([1, 4], "int64").pow_(0.5)),
        ("neg_", "bool", lambda L, mk: mk([True, False], "bool").neg_()),
        ("neg", "bool", lambda L, mk: L.neg(mk([True, False], "bool"))),
        ("sub", "bool - bool", lambda L, mk: L.sub(mk([True], "bool"), mk([False], "bool"))),
        ("__iadd__", "int64 += 1.5", lambda L, mk: _iadd(mk([1, 2], "int64"), 1.5)),
        ("__itruediv__", "int64 /= 2", lambda L, mk: _idiv(mk([1, 2], "int64"), 2)),
        ("copy_", "float into int", lambda L, mk: mk([0, 0], "int64").copy_(mk([1.7, -1.7]))),
        (
            "copy_",
            "complex into float",
            lambda L, mk: mk([0.0, 0.0]).copy_(mk([1 + 2j, 3j], "complex64")),
        ),
        (
            "lerp_",
            "float16 by float32",
            lambda L, mk: mk([1.0, 2.0], "float16").lerp_(mk([3.0, 4.0]), 0.5),
        ),
        (
            "masked_fill_",
            "int by float",
            lambda L, mk: mk([1, 2], "int64").masked_fill_(mk([True, False], "bool"), 2.5),
        ),
        (
            "masked_fill_",
            "int by 0-d float tensor",
            lambda L, mk: mk([1, 2], "int64").masked_fill_(mk([True, False], "bool"), mk(2.5)),
        ),
        (
            "index_put_",
            "int by float",
            lambda L, mk: mk([1, 2], "int64").index_put_((mk([0], "int64"),), mk([2.5])),
        ),
        ("fill_", "int by float", lambda L, mk: mk([1, 2], "int64").fill_(2.7)),
        ("fill_", "bool by 2", lambda L, mk: mk([True, False], "bool").fill_(2)),
        (
            "scatter_",
            "int by float src",
            lambda L, mk: mk([1, 2], "int64").scatter_(0, mk([0], "int64"), mk([2.5])),
        ),
    ]
    return out


def _iadd(t: Any, v: Any) -> Any:
    t += v
    return t


def _idiv(t: Any, v: Any) -> Any:
    t /= v
    return t


def out_cases() -> list[Case]:
    """``out=`` of a wrong dtype or shape: PyTorch casts where it can, refuses a float into an
    integer, and resizes (with a warning) a non-empty ``out`` of another shape."""

    def with_out(L: Any, mk: Any, fn: str, d_out: str, shape: tuple[int, ...], *args: Any) -> Any:
        o = L.zeros(shape, dtype=getattr(L, d_out))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = getattr(L, fn)(*args, out=o)
        resized = any("resized" in str(x.message) for x in w)
        return r, o, L.tensor(resized)

    # Each operator's arguments, made with the library's tensor maker ``mk``.
    calls: dict[str, Callable[[Any], tuple[Any, ...]]] = {
        "add": lambda mk: (mk([1.0, 2.0, 3.0]), 1),
        "sum": lambda mk: (mk([[1.0, 2.0, 3.0]]), 0),
        "mean": lambda mk: (mk([[1.0, 2.0, 3.0]]), 0),
        "matmul": lambda mk: (mk([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), mk([1.0, 1.0])),
        "exp": lambda mk: (mk([0.0, 1.0, 2.0]),),
        "eq": lambda mk: (mk([0.0, 1.0, 2.0]), 1.0),
        "cumsum": lambda mk: (mk([0.0, 1.0, 2.0]), 0),
        "where": lambda mk: (mk([True, False, True], "bool"), mk([1.0, 2.0, 3.0]), 0.0),
        "cat": lambda mk: ([mk([1.0]), mk([2.0, 3.0])],),
        "clamp": lambda mk: (mk([1.0, 2.0, 3.0]), 0.0, 2.0),
        "argmax": lambda mk: (mk([[1.0, 2.0, 3.0]]), 1),
    }
    out: list[Case] = []
    for shape in ((3,), (2,), (0,), (2, 3), ()):
        for d_out in ("float32", "float64", "int64", "bool", "complex64", "float16"):
            tag = f"out {d_out}{list(shape)}"
            out += [
                (
                    name,
                    tag,
                    lambda L, mk, n=name, a=make, d=d_out, s=shape: with_out(
                        L, mk, n, d, s, *a(mk)
                    ),
                )
                for name, make in calls.items()
            ]
    return out


def reduction_cases() -> list[Case]:
    out: list[Case] = []
    # Operators without keepdim (scans, sorts, softmax), and those that take one int dim.
    no_keepdim = (
        "cumsum",
        "cumprod",
        "cummax",
        "cummin",
        "logcumsumexp",
        "softmax",
        "log_softmax",
        "sort",
        "argsort",
        "msort",
        "unique",
        "topk",
    )
    single_dim = (
        "argmax",
        "argmin",
        "max",
        "min",
        "median",
        "nanmedian",
        "mode",
        "kthvalue",
        "all",
        "any",
    ) + no_keepdim
    simple = (
        "sum",
        "prod",
        "mean",
        "nansum",
        "nanmean",
        "amax",
        "amin",
        "std",
        "var",
        "logsumexp",
        "count_nonzero",
        "norm",
        "aminmax",
        "var_mean",
        "std_mean",
    ) + single_dim
    needs_dim = {
        "cumsum",
        "cumprod",
        "cummax",
        "cummin",
        "logcumsumexp",
        "softmax",
        "log_softmax",
        "mode",
        "kthvalue",
        "topk",
    }
    extra = {"kthvalue": (1,), "topk": (1,)}
    shapes = {"(0,)": (0,), "(2, 0)": (2, 0), "(0, 3)": (0, 3), "0-d": ()}
    for name in simple:
        for sname, shape in shapes.items():
            for d in ("float32", "int64", "bool"):
                if d != "float32" and name in (
                    "std",
                    "var",
                    "mean",
                    "nanmean",
                    "logsumexp",
                    "softmax",
                    "log_softmax",
                    "var_mean",
                    "std_mean",
                    "logcumsumexp",
                    "norm",
                    "nansum",
                    "nanmedian",
                ):
                    continue
                dims: list[Any] = [None, 0, -1, 1]
                if len(shape) == 2:
                    dims += [(0, 1), (1, 0), (-1, 1), (0, 0), [], (2,)]
                for dim in dims:
                    if isinstance(dim, (tuple, list)) and name in single_dim:
                        continue
                    if dim is None and name in needs_dim:
                        continue
                    for keepdim in (False, True):
                        if keepdim and (
                            (dim is None and name not in ("argmax", "argmin")) or name in no_keepdim
                        ):
                            continue
                        if name == "unique" and dim is not None:
                            continue
                        kw: dict[str, Any] = {}
                        if dim is not None:
                            kw["dim"] = dim
                        if keepdim:
                            kw["keepdim"] = True
                        tag = f"{d}{sname} {kw}"

                        def call(
                            L: Any,
                            mk: Any,
                            name: str = name,
                            shape: Any = shape,
                            d: str = d,
                            kw: dict[str, Any] = kw,
                        ) -> Any:
                            x = L.ones(shape, dtype=getattr(L, d))
                            args = extra.get(name, ())
                            if name == "msort":
                                return L.msort(x)
                            r = getattr(L, name)(x, *args, **kw)
                            return tuple(r) if isinstance(r, tuple) else r

                        out.append((name, tag, call))
    return out


def scalar_cases() -> list[Case]:
    """Every tensor dtype against every kind of Python number, both ways round, in place,
    and as a 0-d tensor."""
    out: list[Case] = []
    for d in SCALAR_DTYPES:
        for kind, v in SCALARS.items():
            for op in (
                "add",
                "sub",
                "mul",
                "div",
                "pow",
                "maximum",
                "eq",
                "lt",
                "remainder",
                "floor_divide",
                "bitwise_and",
                "atan2",
                "fmod",
            ):
                tag = f"{d} {op} python {kind}"

                def binary(L: Any, mk: Any, d: str = d, v: Any = v, op: str = op) -> Any:
                    fn = getattr(L, op)
                    x = mk([1, 2, 3], d)
                    return fn(x, v) if op != "maximum" else fn(x, L.tensor(v))

                out.append((op, tag, binary))
            for dunder in (
                "__add__",
                "__radd__",
                "__rsub__",
                "__mul__",
                "__truediv__",
                "__rtruediv__",
                "__pow__",
                "__rpow__",
                "__floordiv__",
                "__rfloordiv__",
                "__mod__",
                "__and__",
                "__lt__",
            ):
                out.append(
                    (
                        dunder,
                        f"{d} python {kind}",
                        lambda L, mk, d=d, v=v, dn=dunder: getattr(mk([1, 2, 3], d), dn)(v),
                    )
                )
            out.append(
                (
                    "add",
                    f"0-d {d} + 1-d python {kind} tensor",
                    lambda L, mk, d=d, v=v: L.add(mk(1, d), L.tensor([v, v])),
                )
            )
            out.append(
                ("add_", f"{d} += python {kind}", lambda L, mk, d=d, v=v: mk([1, 2, 3], d).add_(v))
            )
            out.append(
                ("mul_", f"{d} *= python {kind}", lambda L, mk, d=d, v=v: mk([1, 2, 3], d).mul_(v))
            )
            out.append(
                (
                    "full",
                    f"{d} of python {kind}",
                    lambda L, mk, d=d, v=v: L.full((2,), v, dtype=getattr(L, d)),
                )
            )
            out.append(
                (
                    "where",
                    f"{d} python {kind}",
                    lambda L, mk, d=d, v=v: L.where(
                        mk([True, False, True], "bool"), mk([1, 2, 3], d), v
                    ),
                )
            )
            out.append(
                (
                    "clamp",
                    f"{d} by python {kind}",
                    lambda L, mk, d=d, v=v: L.clamp(mk([1, 2, 3], d), min=v),
                )
            )
            out.append(
                (
                    "tensor",
                    f"of [{d} 0-d, python {kind}]",
                    lambda L, mk, d=d, v=v: L.result_type(mk(1, d), v),
                )
            )
    return out


def misc_cases() -> list[Case]:
    m = "float32"
    return [
        ("matmul", "(0,3)@(3,2)", lambda L, mk: L.matmul(L.ones(0, 3), L.ones(3, 2))),
        ("matmul", "(2,0)@(0,2)", lambda L, mk: L.matmul(L.ones(2, 0), L.ones(0, 2))),
        ("matmul", "0-d", lambda L, mk: L.matmul(mk(2.0), mk(3.0))),
        ("matmul", "int64", lambda L, mk: L.matmul(mk([[1, 2]], "int64"), mk([[3], [4]], "int64"))),
        (
            "matmul",
            "float32 @ float64",
            lambda L, mk: L.matmul(mk([[1.0, 2.0]]), mk([[3.0], [4.0]], "float64")),
        ),
        (
            "matmul",
            "bool",
            lambda L, mk: L.matmul(mk([[True, False]], "bool"), mk([[True], [True]], "bool")),
        ),
        ("dot", "empty", lambda L, mk: L.dot(L.ones(0), L.ones(0))),
        ("cat", "with an empty (0,)", lambda L, mk: L.cat([mk([[1.0, 2.0]]), L.ones(0)])),
        ("cat", "mixed dtypes", lambda L, mk: L.cat([mk([1, 2], "int64"), mk([1.5], m)])),
        ("cat", "0-d", lambda L, mk: L.cat([mk(1.0), mk(2.0)])),
        ("stack", "empty list", lambda L, mk: L.stack([])),
        ("stack", "mixed dtypes", lambda L, mk: L.stack([mk([1, 2], "int64"), mk([1.5, 2.5], m)])),
        ("reshape", "empty to -1", lambda L, mk: L.ones(0, 3).reshape(-1, 0)),
        ("reshape", "empty to (0, -1)", lambda L, mk: L.ones(0, 3).reshape(0, -1)),
        ("view", "transposed", lambda L, mk: L.ones(2, 3).t().view(6)),
        ("expand", "then add_", lambda L, mk: L.ones(1, 3).expand(2, 3).add_(1)),
        ("expand", "then copy_ into", lambda L, mk: L.zeros(1, 3).expand(2, 3).copy_(L.ones(2, 3))),
        ("expand", "-1 on new dim", lambda L, mk: L.ones(3).expand(-1, 3)),
        ("squeeze", "0-d dim 0", lambda L, mk: mk(1.0).squeeze(0)),
        ("unsqueeze", "0-d dim -1", lambda L, mk: mk(1.0).unsqueeze(-1)),
        ("transpose", "0-d", lambda L, mk: mk(1.0).transpose(0, -1)),
        ("flatten", "0-d", lambda L, mk: mk(1.0).flatten()),
        ("t", "0-d", lambda L, mk: mk(1.0).t()),
        ("t", "3-d", lambda L, mk: L.ones(1, 1, 1).t()),
        ("diag", "0-d", lambda L, mk: L.diag(mk(1.0))),
        (
            "index_select",
            "empty index",
            lambda L, mk: L.index_select(mk([1.0, 2.0]), 0, L.tensor([], dtype=L.int64)),
        ),
        ("gather", "0-d", lambda L, mk: L.gather(mk(1.0), 0, L.tensor(0))),
        ("repeat", "0 times", lambda L, mk: mk([1.0, 2.0]).repeat(0)),
        ("split", "empty", lambda L, mk: tuple(L.ones(0).split(2))),
        ("chunk", "more chunks", lambda L, mk: tuple(L.ones(5).chunk(3))),
        ("nonzero", "0-d", lambda L, mk: L.nonzero(mk(1.0))),
        ("nonzero", "empty", lambda L, mk: L.nonzero(L.ones(0, 2))),
        ("argwhere", "0-d", lambda L, mk: L.argwhere(mk(0.0))),
        ("flip", "0-d", lambda L, mk: mk(1.0).flip(0)),
        ("roll", "empty", lambda L, mk: L.roll(L.ones(0), 1)),
        ("roll", "0-d", lambda L, mk: L.roll(mk(1.0), 1)),
        ("tril", "1-d", lambda L, mk: L.tril(mk([1.0, 2.0]))),
        ("outer", "empty", lambda L, mk: L.outer(L.ones(0), L.ones(2))),
        ("linspace", "1 step", lambda L, mk: L.linspace(0, 1, 1)),
        ("linspace", "0 steps", lambda L, mk: L.linspace(0, 1, 0)),
        ("arange", "empty", lambda L, mk: L.arange(2, 2)),
        ("arange", "negative step", lambda L, mk: L.arange(3, 0, -1)),
        ("arange", "wrong sign", lambda L, mk: L.arange(0, 3, -1)),
        ("arange", "float dtype inference", lambda L, mk: L.arange(0, 3, 0.5)),
        ("eye", "0", lambda L, mk: L.eye(0)),
        ("zeros", "negative", lambda L, mk: L.zeros(-1)),
        ("bincount", "empty", lambda L, mk: L.bincount(L.tensor([], dtype=L.int64))),
        ("bincount", "negative", lambda L, mk: L.bincount(L.tensor([-1], dtype=L.int64))),
        ("one_hot", "empty", lambda L, mk: L.nn.functional.one_hot(L.tensor([], dtype=L.int64), 3)),
        ("softmax", "-inf row", lambda L, mk: L.softmax(mk([-INF, -INF]), 0)),
        ("log_softmax", "-inf row", lambda L, mk: L.log_softmax(mk([-INF, -INF]), 0)),
        ("logsumexp", "-inf", lambda L, mk: L.logsumexp(mk([-INF, -INF]), 0)),
        ("logsumexp", "inf", lambda L, mk: L.logsumexp(mk([INF, INF]), 0)),
        ("logsumexp", "int64", lambda L, mk: L.logsumexp(mk([1, 2], "int64"), 0)),
        ("sigmoid", "int64", lambda L, mk: L.sigmoid(mk([1, 2], "int64"))),
        ("sqrt", "bool", lambda L, mk: L.sqrt(mk([True, False], "bool"))),
        ("mean", "int64", lambda L, mk: L.mean(mk([1, 2], "int64"))),
        ("mean", "int64 dtype=float", lambda L, mk: L.mean(mk([1, 2], "int64"), dtype=L.float32)),
        ("std", "one element", lambda L, mk: L.std(mk([1.0]))),
        ("var", "correction 2 of 2", lambda L, mk: L.var(mk([1.0, 2.0]), correction=2)),
        ("norm", "inf of empty", lambda L, mk: L.linalg.vector_norm(L.ones(0), INF)),
        ("norm", "-inf of empty", lambda L, mk: L.linalg.vector_norm(L.ones(0), -INF)),
        ("norm", "0 of empty", lambda L, mk: L.linalg.vector_norm(L.ones(0), 0)),
        ("norm", "int", lambda L, mk: L.linalg.vector_norm(mk([3, 4], "int64"))),
        ("sum", "bool", lambda L, mk: L.sum(mk([True, True], "bool"))),
        ("prod", "bool", lambda L, mk: L.prod(mk([True, True], "bool"))),
        ("cumsum", "bool", lambda L, mk: L.cumsum(mk([True, True], "bool"), 0)),
        ("sum", "uint8 dtype=uint8", lambda L, mk: L.sum(mk([200, 100], "uint8"), dtype=L.uint8)),
        ("max", "int tensor other float", lambda L, mk: L.max(mk([1, 2], "int64"), mk([1.5, 0.5]))),
        ("clamp", "min > max", lambda L, mk: L.clamp(mk([0.0, 1.0, 2.0]), 2.0, 1.0)),
        ("clamp", "int by float", lambda L, mk: L.clamp(mk([0, 1, 2], "int64"), 0.5, 1.5)),
        ("clamp", "no bounds", lambda L, mk: L.clamp(mk([0.0]))),
        ("clamp", "bool", lambda L, mk: L.clamp(mk([True, False], "bool"), 0, 1)),
        ("topk", "k too large", lambda L, mk: L.topk(mk([1.0, 2.0]), 3)),
        ("topk", "k=0", lambda L, mk: L.topk(mk([1.0, 2.0]), 0).values),
        ("kthvalue", "k too large", lambda L, mk: L.kthvalue(mk([1.0, 2.0]), 3)),
        ("unique", "dim on 0-d", lambda L, mk: L.unique(mk(1.0), dim=0)),
        (
            "unique",
            "sorted=False",
            lambda L, mk: L.unique(mk([3.0, 1.0, 3.0]), sorted=False).sort()[0],
        ),
        ("unique_consecutive", "nan", lambda L, mk: L.unique_consecutive(mk([NAN, NAN, 1.0]))),
        ("sort", "0-d", lambda L, mk: tuple(L.sort(mk(1.0)))),
        ("sort", "bool", lambda L, mk: tuple(L.sort(mk([True, False, True], "bool"), stable=True))),
        ("argmax", "bool", lambda L, mk: L.argmax(mk([False, True], "bool"))),
        ("max", "bool", lambda L, mk: L.max(mk([False, True], "bool"))),
        (
            "maximum",
            "bool",
            lambda L, mk: L.maximum(mk([False, True], "bool"), mk([True, False], "bool")),
        ),
        ("max", "complex", lambda L, mk: L.max(mk([1j, 2], "complex64"))),
        ("sort", "complex", lambda L, mk: L.sort(mk([1j, 2], "complex64"))[0]),
        ("clamp", "complex", lambda L, mk: L.clamp(mk([1j, 2], "complex64"), 0)),
        ("sign", "complex", lambda L, mk: L.sign(mk([1j, 2], "complex64"))),
        ("sgn", "complex 0", lambda L, mk: L.sgn(mk([0j, 3 + 4j], "complex64"))),
        ("abs", "complex inf", lambda L, mk: L.abs(mk([complex(INF, NAN)], "complex64"))),
        ("isinf", "complex", lambda L, mk: L.isinf(mk([complex(INF, NAN)], "complex64"))),
        ("isnan", "int", lambda L, mk: L.isnan(mk([1], "int64"))),
        ("isfinite", "bool", lambda L, mk: L.isfinite(mk([True], "bool"))),
        ("trunc", "int", lambda L, mk: L.trunc(mk([1], "int64"))),
        ("floor", "bool", lambda L, mk: L.floor(mk([True], "bool"))),
        ("round", "decimals int", lambda L, mk: L.round(mk([15], "int64"), decimals=-1)),
        ("round", "half to even", lambda L, mk: L.round(mk([0.5, 1.5, 2.5, -0.5]))),
        ("frac", "int", lambda L, mk: L.frac(mk([1], "int64"))),
        ("exp2", "int", lambda L, mk: L.exp2(mk([1, 2], "int64"))),
        ("reciprocal", "int 0", lambda L, mk: L.reciprocal(mk([0, 2], "int64"))),
        ("rsqrt", "-0", lambda L, mk: L.rsqrt(mk([-0.0, 0.0]))),
        ("log", "-0", lambda L, mk: L.log(mk([-0.0, -1.0]))),
        ("pow", "0 ** -1", lambda L, mk: L.pow(mk([0.0, -0.0]), -1)),
        ("pow", "-0 ** 0.5", lambda L, mk: L.pow(mk([-0.0, -1.0]), 0.5)),
        ("pow", "int tensor ** float tensor", lambda L, mk: L.pow(mk([2], "int64"), mk([0.5]))),
        ("pow", "scalar ** tensor", lambda L, mk: L.pow(2, mk([-1, 2], "int64"))),
        ("pow", "bool ** bool", lambda L, mk: L.pow(mk([True], "bool"), mk([True], "bool"))),
        ("div", "-0 / 0", lambda L, mk: L.div(mk([-0.0, 1.0, -1.0]), mk([0.0, -0.0, 0.0]))),
        ("floor_divide", "float by 0", lambda L, mk: L.floor_divide(mk([1.0, -1.0, 0.0]), 0.0)),
        ("remainder", "float by 0", lambda L, mk: L.remainder(mk([1.0, -1.0]), 0.0)),
        ("remainder", "-0", lambda L, mk: L.remainder(mk([-0.0, 3.0]), mk([2.0, -3.0]))),
        ("fmod", "float by 0", lambda L, mk: L.fmod(mk([1.0, -1.0]), 0.0)),
        ("sum", "dim=() float", lambda L, mk: L.sum(mk([[1.0, 2.0]]), dim=())),
        (
            "sum",
            "dim=[] int keepdim",
            lambda L, mk: L.sum(mk([[1, 2]], "int64"), dim=[], keepdim=True),
        ),
        ("amax", "dim=()", lambda L, mk: L.amax(mk([[1.0, 2.0]]), dim=())),
        ("mean", "dim=() of empty", lambda L, mk: L.mean(L.ones(0, 2), dim=())),
        ("std", "dim=()", lambda L, mk: L.std(mk([[1.0, 2.0]]), dim=())),
        ("count_nonzero", "dim dupes", lambda L, mk: L.count_nonzero(mk([[1.0, 2.0]]), dim=(0, 0))),
        ("logsumexp", "dim=()", lambda L, mk: L.logsumexp(mk([[1.0, 2.0]]), dim=())),
        ("flip", "dup dims", lambda L, mk: L.flip(mk([[1.0, 2.0]]), (0, 0))),
        ("permute", "dup dims", lambda L, mk: mk([[1.0, 2.0]]).permute(0, 0)),
        ("movedim", "dup dims", lambda L, mk: L.movedim(mk([[1.0, 2.0]]), (0, 0), (0, 1))),
        ("squeeze", "dim list", lambda L, mk: L.ones(1, 2, 1).squeeze((0, 2))),
        ("squeeze", "dup dims", lambda L, mk: L.ones(1, 2, 1).squeeze((0, 0))),
        ("sum", "dim out of range", lambda L, mk: L.sum(mk([1.0]), 1)),
        ("sum", "0-d dim -1", lambda L, mk: L.sum(mk(1.0), -1)),
        ("sum", "0-d dim 1", lambda L, mk: L.sum(mk(1.0), 1)),
        ("sum", "0-d dim [0, 0]", lambda L, mk: L.sum(mk(1.0), (0, 0))),
        ("softmax", "0-d", lambda L, mk: L.softmax(mk(1.0), 0)),
        ("cumsum", "0-d", lambda L, mk: L.cumsum(mk(1.0), 0)),
        ("cumsum", "0-d dim 1", lambda L, mk: L.cumsum(mk(1.0), 1)),
        ("diff", "empty", lambda L, mk: L.diff(L.ones(0))),
        ("diff", "0-d", lambda L, mk: L.diff(mk(1.0))),
        ("trace", "empty", lambda L, mk: L.trace(L.ones(0, 0))),
        ("det", "empty", lambda L, mk: L.linalg.det(L.ones(0, 0))),
        ("inv", "empty", lambda L, mk: L.linalg.inv(L.ones(0, 0))),
        (
            "cross_entropy",
            "empty batch",
            lambda L, mk: L.nn.functional.cross_entropy(L.ones(0, 3), L.ones(0, dtype=L.int64)),
        ),
        ("mse_loss", "empty", lambda L, mk: L.nn.functional.mse_loss(L.ones(0), L.ones(0))),
        (
            "mse_loss",
            "empty sum",
            lambda L, mk: L.nn.functional.mse_loss(L.ones(0), L.ones(0), reduction="sum"),
        ),
        ("linear", "empty batch", lambda L, mk: L.nn.functional.linear(L.ones(0, 3), L.ones(2, 3))),
        ("layer_norm", "empty batch", lambda L, mk: L.nn.functional.layer_norm(L.ones(0, 3), (3,))),
        (
            "embedding",
            "empty index",
            lambda L, mk: L.nn.functional.embedding(L.ones(0, dtype=L.int64), L.ones(3, 2)),
        ),
        ("relu", "empty int", lambda L, mk: L.relu(L.ones(0, dtype=L.int64))),
        ("einsum", "empty", lambda L, mk: L.einsum("ij,jk->ik", L.ones(2, 0), L.ones(0, 3))),
        ("masked_select", "0-d", lambda L, mk: L.masked_select(mk(1.0), mk(True, "bool"))),
        ("where", "1-arg 0-d", lambda L, mk: L.where(mk(1.0))),
        (
            "clone",
            "expanded keeps strides",
            lambda L, mk: L.ones(1, 3).expand(2, 3).clone().stride(),
        ),
        ("contiguous", "transposed strides", lambda L, mk: L.ones(2, 3).t().contiguous().stride()),
        ("empty_like", "transposed strides", lambda L, mk: L.empty_like(L.ones(2, 3).t()).stride()),
        (
            "add",
            "transposed + transposed strides",
            lambda L, mk: (L.ones(2, 3).t() + L.ones(2, 3).t()).stride(),
        ),
        (
            "mul",
            "transposed * scalar strides",
            lambda L, mk: (L.ones(2, 3, 4).permute(2, 0, 1) * 2).stride(),
        ),
        ("exp", "expanded strides", lambda L, mk: L.exp(L.ones(1, 3).expand(2, 3)).stride()),
        (
            "add",
            "expanded + contiguous strides",
            lambda L, mk: (L.ones(3, 1).expand(3, 2) + L.ones(3, 2).t().contiguous().t()).stride(),
        ),
    ]


def all_cases() -> list[Case]:
    return [
        *ordering_cases(),
        *integer_cases(),
        *out_cases(),
        *reduction_cases(),
        *scalar_cases(),
        *misc_cases(),
    ]


def _plain(r: Any) -> Any:
    """Named tuples and return types as tuples; ints and sizes as themselves."""
    if isinstance(r, tuple) and not isinstance(r, (tc.Tensor, torch.Tensor)):
        return tuple(_plain(x) for x in r)
    if isinstance(r, (torch.Size, tc.Size)):
        return tuple(r)
    if isinstance(r, tc.dtype):
        return r.name
    if isinstance(r, torch.dtype):
        return str(r).removeprefix("torch.")
    return r


def cases_mode(rep: D.Report, only: list[str] | None) -> None:
    for op, desc, call in all_cases():
        if only and not any(fnmatch.fnmatchcase(op, p) for p in only):
            continue
        D.run_pair(
            rep,
            op,
            "-",
            desc,
            lambda call=call: _plain(call(tc, _mk(tc))),
            lambda call=call: _plain(call(torch, _mk(torch))),
            [],
        )


# ------------------------------------------------------------------ gradients
#: (operator label, description, function of the library and the leaves, the leaves' values)
GRAD_CASES: list[tuple[str, str, Callable[..., Any], list[Any]]] = [
    ("max", "ties", lambda L, x: L.max(x), [[2.0, 1.0, 2.0]]),
    ("min", "ties", lambda L, x: L.min(x), [[1.0, 1.0, 2.0]]),
    ("amax", "ties", lambda L, x: L.amax(x.reshape(2, 2), 1), [[2.0, 2.0, 1.0, 3.0]]),
    (
        "amin",
        "ties, dims (0, 1)",
        lambda L, x: L.amin(x.reshape(2, 2), (0, 1)),
        [[1.0, 1.0, 1.0, 3.0]],
    ),
    ("max_dim", "ties", lambda L, x: L.max(x.reshape(2, 2), 1).values, [[2.0, 2.0, 1.0, 3.0]]),
    ("maximum", "ties", lambda L, x, y: L.maximum(x, y), [[1.0, 2.0, 3.0], [1.0, 0.0, 3.0]]),
    ("minimum", "ties", lambda L, x, y: L.minimum(x, y), [[1.0, 2.0, 3.0], [1.0, 0.0, 3.0]]),
    ("fmax", "ties and nan", lambda L, x, y: L.fmax(x, y), [[1.0, NAN, 3.0], [1.0, 0.0, NAN]]),
    ("maximum", "nan", lambda L, x, y: L.maximum(x, y), [[1.0, NAN, 3.0], [1.0, 0.0, NAN]]),
    ("clamp", "at the bounds", lambda L, x: L.clamp(x, 0.0, 1.0), [[0.0, 1.0, 0.5, -1.0, 2.0]]),
    ("clamp", "min > max", lambda L, x: L.clamp(x, 1.0, 0.0), [[0.0, 1.0, 0.5]]),
    (
        "clamp",
        "tensor bounds at ties",
        lambda L, x, lo, hi: L.clamp(x, lo, hi),
        [[0.0, 1.0, 0.5], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0]],
    ),
    ("abs", "at 0", lambda L, x: L.abs(x), [[0.0, -0.0, 1.0]]),
    ("relu", "at 0", lambda L, x: L.relu(x), [[0.0, -0.0, 1.0]]),
    ("sqrt", "at 0", lambda L, x: L.sqrt(x), [[0.0, 1.0]]),
    ("pow", "0 ** 0.5", lambda L, x: x**0.5, [[0.0, 1.0]]),
    ("pow", "0 ** 2", lambda L, x: x**2, [[0.0, 1.0]]),
    ("pow", "0 ** 0", lambda L, x: x**0, [[0.0, 1.0]]),
    ("pow", "0 ** tensor 0", lambda L, x, y: L.pow(x, y), [[0.0, 0.0], [0.0, 1.0]]),
    ("pow", "negative ** tensor", lambda L, x, y: L.pow(x, y), [[-2.0, 0.0], [2.0, 0.5]]),
    ("norm", "at 0", lambda L, x: L.linalg.vector_norm(x), [[0.0, 0.0]]),
    ("norm", "inf at ties", lambda L, x: L.linalg.vector_norm(x, INF), [[1.0, -1.0, 0.5]]),
    ("norm", "1 at 0", lambda L, x: L.linalg.vector_norm(x, 1), [[0.0, -1.0]]),
    ("norm", "0.5 at 0", lambda L, x: L.linalg.vector_norm(x, 0.5), [[0.0, 1.0]]),
    ("dist", "at 0", lambda L, x, y: L.dist(x, y), [[1.0, 2.0], [1.0, 2.0]]),
    ("std", "one element", lambda L, x: L.std(x), [[1.0]]),
    ("std", "constant", lambda L, x: L.std(x), [[1.0, 1.0]]),
    (
        "sort",
        "ties",
        lambda L, x: L.sort(x, stable=True).values * L.arange(3.0, dtype=x.dtype),
        [[1.0, 1.0, 0.0]],
    ),
    ("topk", "ties", lambda L, x: L.topk(x, 2).values, [[1.0, 1.0, 0.0]]),
    ("median", "even", lambda L, x: L.median(x), [[1.0, 2.0, 3.0, 4.0]]),
    ("median", "ties", lambda L, x: L.median(x), [[2.0, 2.0, 2.0]]),
    ("kthvalue", "ties", lambda L, x: L.kthvalue(x, 2).values, [[2.0, 2.0, 1.0]]),
    ("cummax", "ties", lambda L, x: L.cummax(x, 0).values, [[1.0, 1.0, 2.0, 2.0]]),
    ("cumprod", "zeros", lambda L, x: L.cumprod(x, 0), [[2.0, 0.0, 3.0, 0.0]]),
    ("prod", "one zero", lambda L, x: L.prod(x), [[2.0, 0.0, 3.0]]),
    ("prod", "two zeros", lambda L, x: L.prod(x), [[2.0, 0.0, 0.0]]),
    ("prod", "dim with zero", lambda L, x: L.prod(x.reshape(2, 2), 1), [[2.0, 0.0, 0.0, 3.0]]),
    ("logsumexp", "-inf", lambda L, x: L.logsumexp(x, 0), [[-INF, -INF]]),
    ("logsumexp", "inf", lambda L, x: L.logsumexp(x, 0), [[INF, 1.0]]),
    ("softmax", "-inf", lambda L, x: L.softmax(x, 0), [[-INF, 0.0]]),
    ("sum", "empty", lambda L, x: L.sum(x), [[]]),
    ("mean", "empty", lambda L, x: L.mean(x), [[]]),
    ("prod", "empty", lambda L, x: L.prod(x), [[]]),
    ("amax", "empty dim", lambda L, x: L.amax(x.reshape(0, 2), 1), [[]]),
    ("matmul", "empty inner", lambda L, x, y: L.matmul(x.reshape(2, 0), y.reshape(0, 2)), [[], []]),
    ("sum", "0-d", lambda L, x: L.sum(x[0], 0), [[3.0]]),
    (
        "expand",
        "sum over stride 0",
        lambda L, x: x.expand(3, 2) * L.arange(6.0, dtype=x.dtype).reshape(3, 2),
        [[[1.0, 2.0]]],
    ),
    (
        "transposed",
        "matmul",
        lambda L, x, y: L.matmul(x.reshape(2, 2).t(), y.reshape(2, 2)),
        [[1.0, 2.0, 3.0, 4.0], [0.5, 1.0, 1.5, 2.0]],
    ),
    ("atan2", "at (0, 0)", lambda L, x, y: L.atan2(x, y), [[0.0, 1.0], [0.0, 0.0]]),
    ("hypot", "at (0, 0)", lambda L, x, y: L.hypot(x, y), [[0.0, 1.0], [0.0, 0.0]]),
    ("div", "by 0", lambda L, x, y: L.div(x, y), [[1.0, 0.0], [0.0, 0.0]]),
    ("xlogy", "at 0", lambda L, x, y: L.xlogy(x, y), [[0.0, 1.0], [0.0, 0.0]]),
    ("log1p", "at -1", lambda L, x: L.log1p(x), [[-1.0]]),
    ("sigmoid", "at inf", lambda L, x: L.sigmoid(x), [[INF, -INF]]),
    ("tanh", "at inf", lambda L, x: L.tanh(x), [[INF, -INF]]),
    (
        "where",
        "nan in the unchosen branch",
        lambda L, x: L.where(x > 0, L.sqrt(x), L.zeros_like(x)),
        [[-1.0, 4.0]],
    ),
    ("masked_fill", "nan", lambda L, x: x.masked_fill(x > 1, NAN), [[1.0, 2.0]]),
    ("nan_to_num", "at nan", lambda L, x: L.nan_to_num(x), [[NAN, INF, 1.0]]),
    (
        "cdist",
        "at 0",
        lambda L, x, y: L.cdist(x.reshape(1, 2), y.reshape(1, 2)),
        [[1.0, 2.0], [1.0, 2.0]],
    ),
    (
        "cosine_similarity",
        "at 0",
        lambda L, x, y: L.nn.functional.cosine_similarity(x, y, dim=0),
        [[0.0, 0.0], [1.0, 2.0]],
    ),
    ("normalize", "at 0", lambda L, x: L.nn.functional.normalize(x, dim=0), [[0.0, 0.0]]),
    ("elu", "at 0", lambda L, x: L.nn.functional.elu(x), [[0.0, -0.0]]),
    ("hardtanh", "at the bounds", lambda L, x: L.nn.functional.hardtanh(x), [[-1.0, 1.0]]),
    ("hardswish", "at the kinks", lambda L, x: L.nn.functional.hardswish(x), [[-3.0, 3.0, 0.0]]),
    ("relu6", "at the kinks", lambda L, x: L.nn.functional.relu6(x), [[0.0, 6.0]]),
    ("leaky_relu", "at 0", lambda L, x: L.nn.functional.leaky_relu(x), [[0.0]]),
    (
        "smooth_l1_loss",
        "at beta",
        lambda L, x, y: L.nn.functional.smooth_l1_loss(x, y),
        [[1.0, 0.0], [0.0, 0.0]],
    ),
    (
        "huber_loss",
        "at delta",
        lambda L, x, y: L.nn.functional.huber_loss(x, y),
        [[1.0, 0.0], [0.0, 0.0]],
    ),
    ("l1_loss", "at 0", lambda L, x, y: L.nn.functional.l1_loss(x, y), [[1.0, 0.0], [1.0, 0.0]]),
    (
        "max_pool1d",
        "ties",
        lambda L, x: L.nn.functional.max_pool1d(x.reshape(1, 1, 4), 2),
        [[1.0, 1.0, 2.0, 2.0]],
    ),
    (
        "adaptive_max_pool1d",
        "ties",
        lambda L, x: L.nn.functional.adaptive_max_pool1d(x.reshape(1, 1, 5), 3),
        [[1.0, 1.0, 2.0, 2.0, 0.0]],
    ),
    ("round", "half", lambda L, x: L.round(x), [[0.5, 1.5]]),
    ("floor", "integers", lambda L, x: L.floor(x), [[1.0, 2.0]]),
    ("sign", "at 0", lambda L, x: L.sign(x), [[0.0]]),
    ("frac", "integers", lambda L, x: L.frac(x), [[1.0, -2.0]]),
    ("remainder", "at the jump", lambda L, x, y: L.remainder(x, y), [[2.0, -2.0], [2.0, 2.0]]),
    ("fmod", "at the jump", lambda L, x, y: L.fmod(x, y), [[2.0, -2.0], [2.0, 2.0]]),
]


def grad_mode(rep: D.Report, only: list[str] | None) -> None:
    for op, desc, fn, values in GRAD_CASES:
        if only and not any(fnmatch.fnmatchcase(op, p) for p in only):
            continue

        def run(L: Any, fn: Any = fn, values: Any = values) -> Any:
            leaves = [L.tensor(v, dtype=L.float64, requires_grad=True) for v in values]
            out = fn(L, *leaves)
            gos = L.linspace(0.5, 1.5, out.numel(), dtype=L.float64).reshape(out.shape)
            grads = L.autograd.grad(out, leaves, gos, allow_unused=True)
            return (
                out.detach(),
                *[
                    g if g is not None else L.zeros_like(x)
                    for g, x in zip(grads, leaves, strict=True)
                ],
            )

        D.run_pair(rep, op, "float64", f"grad {desc}", lambda: run(tc), lambda: run(torch), [])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("layout", "cases", "grad", "all"), default="all")
    p.add_argument("--ops", help="comma-separated operator names or fnmatch patterns")
    p.add_argument("--dtypes", default="float32,float64,int64", help="sample dtypes (layout mode)")
    p.add_argument("--out", default="diff_torch_edges.tsv", help="the details file")
    p.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    a = p.parse_args(argv)
    only = a.ops.split(",") if a.ops else None
    rep = D.Report()
    torch.manual_seed(0)
    try:
        if a.mode in ("cases", "all"):
            cases_mode(rep, only)
        if a.mode in ("grad", "all"):
            grad_mode(rep, only)
        if a.mode in ("layout", "all"):
            layout_mode(rep, D.selected_ops(only), a.dtypes.split(","))
    except KeyboardInterrupt:
        traceback.print_exc()
    D.summarize(rep, a.out, a.verbose)
    return 1 if rep.items else 0


if __name__ == "__main__":
    sys.exit(main())
