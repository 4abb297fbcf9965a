"""The cases of the operator table: each operator's variants with one argument made bad."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import tensorcore as tc
from tensorcore.testing.samples import SAMPLES, Sample, core_ops

from ._bads import _Ctx, bads_for
from ._run import Case


# ------------------------------------------------------------------ operator cases
def _clone_args(obj: Any) -> Any:
    """Fresh copies of the tensors in ``obj`` (a previous call may have written them)."""
    if isinstance(obj, tc.Tensor):
        t = obj.detach().clone()
        return t.requires_grad_() if obj.requires_grad else t
    if isinstance(obj, list):
        return [_clone_args(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_clone_args(x) for x in obj)
    return obj


def _works(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*_clone_args(args), **_clone_args(kwargs))
    except Exception:  # noqa: BLE001 - a base call that fails is just not used
        return _FAILED


_FAILED = object()


def _variants(name: str, sample: Sample) -> Iterator[tuple[str, str, Callable[..., Any], bool]]:
    """(target label, name to find in errors, callable, self-first?) of each variant."""
    from tensorcore.ops.schema import OPS

    decl = OPS[name]
    if decl.function:
        yield f"tc.{name}", name, getattr(tc, name), False
    if decl.method:
        yield f"Tensor.{name}", name, getattr(tc.Tensor, name), True
    if decl.inplace:
        yield f"Tensor.{name}_", name + "_", getattr(tc.Tensor, name + "_"), True


def _base_calls(
    name: str, device: Any, dtype: Any = tc.float32
) -> Iterator[tuple[str, str, Callable[..., Any], Sample]]:
    """Each variant of operator ``name`` with the first sample (of ``dtype`` data) it
    accepts."""
    make = SAMPLES.get(name)
    if make is None:
        return
    samples = make(device, dtype)
    seen: set[str] = set()
    for sample in samples:
        for label, callee, fn, _ in _variants(name, sample):
            if label in seen:
                continue
            if _works(fn, sample.args, sample.kwargs) is not _FAILED:
                seen.add(label)
                yield label, callee, fn, sample


def _operator_cases(name: str, ctx: _Ctx) -> Iterator[Case]:
    from tensorcore.ops.schema import OPS

    decl = OPS[name]
    params = decl.parsed.params
    takes_scalars = decl.scalar_params
    vararg = next((i for i, p in enumerate(params) if p.vararg), len(params))
    for label, callee, fn, sample in _base_calls(name, ctx.device):
        args, kwargs = sample.args, sample.kwargs
        method = label.startswith("Tensor.")
        yield from _generic_cases(label, callee, fn, args, kwargs, decl)
        for i, p in enumerate(params):
            if i == 0 and method:
                continue  # the receiver: ``Tensor.add(None, x)`` is no way to call a method
            if i <= vararg and i < len(args):
                where: int | str = i
            else:
                where = p.name
            ref = args[where] if isinstance(where, int) else kwargs.get(where)
            # None is taken where the declaration defaults to it (or to an empty list).
            ptype = p.type + "?" if p.default is None or p.default == () else p.type
            for what, make, certain in bads_for(ptype, p.name, name, p.name in takes_scalars):
                if p.vararg and what == "a tensor instead of a list":
                    certain = False  # ``f(*tensors)`` takes one tensor as well as several
                bad = make(ctx, ref)
                if bad is None and p.type.startswith("Tensor") and ref is None and not certain:
                    continue
                if isinstance(where, int):
                    rest = args[where + 1 :] if not p.vararg else ()
                    new_args = args[:where] + (bad,) + rest
                    new_kwargs = kwargs
                else:
                    new_args, new_kwargs = args, {**kwargs, where: bad}
                yield Case(
                    label,
                    callee,
                    fn,
                    _clone_args(new_args),
                    dict(_clone_args(new_kwargs)),
                    f"{p.name}={what}",
                    certain,
                )
        if decl.out and label.startswith("tc."):
            yield from _out_cases(label, callee, fn, args, kwargs, decl, ctx)
    if decl.values:
        yield from _value_cases(name, decl, ctx)


def _generic_cases(
    label: str,
    callee: str,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kw: dict[str, Any],
    decl: Any,
) -> Iterator[Case]:
    yield Case(label, callee, fn, _clone_args(args), {**_clone_args(kw), "nonsense_kw": 1},
               "an unknown keyword", True)  # fmt: skip
    from tensorcore.ops._signature import MISSING

    required = [
        i
        for i, p in enumerate(decl.parsed.params)
        if p.default is MISSING and not p.vararg and 0 < i < len(args)
    ]
    if required and not any(p.vararg for p in decl.parsed.params):
        cut = required[-1]
        yield Case(label, callee, fn, _clone_args(args[:cut]), {}, "missing arguments", True)


def _value_cases(name: str, decl: Any, ctx: _Ctx) -> Iterator[Case]:
    """Numbers an integer tensor cannot hold, in the parameters whose numbers are stored in
    (or compared with) the operator's dtype (``OpDecl.values``): int64 inputs."""
    if "i" not in decl.dtypes or "pointwise" in decl.tags:
        return  # (a pointwise operator promotes to a float scalar's dtype instead)
    bads = [("nan", math.nan), ("inf", math.inf), ("2**64", 2**64), ("1e300", 1e300)]
    params = [p.name for p in decl.parsed.params]
    for label, callee, fn, sample in _base_calls(name, ctx.device, tc.int64):
        for pname in decl.values.split():
            i = params.index(pname)
            for what, bad in bads:
                if i < len(sample.args):
                    args = sample.args[:i] + (bad,) + sample.args[i + 1 :]
                    kwargs = sample.kwargs
                else:
                    args, kwargs = sample.args, {**sample.kwargs, pname: bad}
                yield Case(label, callee, fn, _clone_args(args), dict(_clone_args(kwargs)),
                           f"{pname}={what}", True)  # fmt: skip


def _out_cases(
    label: str,
    callee: str,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kw: dict[str, Any],
    decl: Any,
    ctx: _Ctx,
) -> Iterator[Case]:
    result = _works(fn, args, kw)
    if result is _FAILED:
        return
    multi = isinstance(result, tuple)
    first = result[0] if multi else result
    any_dtype = decl.out_sets_dtype  # (sum, prod, cumsum...: any out dtype is valid)
    outs: list[tuple[str, Any, bool]] = [
        ("out='a'", "a", True),
        ("out=object()", object(), True),
        ("out of another non-empty shape", tc.zeros(7, 3, dtype=first.dtype, device=ctx.device),
         False),
        ("out of dtype int8", tc.zeros(0, dtype=tc.int8, device=ctx.device),
         (first.dtype.is_floating_point or first.dtype.is_complex) and not any_dtype),
        ("out of dtype bool", tc.zeros(0, dtype=tc.bool, device=ctx.device), first.dtype
         is not tc.bool and not any_dtype),
    ]  # fmt: skip
    if multi:
        # The second result is integral (indices, frexp's exponents) and takes only its dtype.
        second = result[1].dtype
        wrong = tc.int32 if second is tc.int64 else tc.int64
        kind = "indices" if second is tc.int64 else "second result"
        outs = [(w, (o, tc.zeros(0, dtype=second, device=ctx.device)), c) for w, o, c in outs]
        # (on the device under test, so that the arity and dtype checks, not the device
        # check, are what these cases reach)
        empty = functools.partial(tc.zeros, 0, device=ctx.device)
        outs.append(("out of one tensor only", (empty(dtype=first.dtype),), True))
        outs.append(
            (
                f"{kind} out of dtype {wrong.name}",
                (empty(dtype=first.dtype), empty(dtype=wrong)),
                True,
            )
        )
    for what, out, certain in outs:
        yield Case(
            label + "(out=)",
            callee,
            fn,
            _clone_args(args),
            {**_clone_args(kw), "out": out},
            what,
            certain,
        )


def cases(device: Any = "cpu", only: set[str] | None = None) -> Iterator[Case]:
    """Every fuzzing case for the operators the core declares (``only`` restricts them by
    name), run on ``device``."""
    ctx = _Ctx(device)
    for name in core_ops():
        if only is not None and name not in only:
            continue
        yield from _operator_cases(name, ctx)
