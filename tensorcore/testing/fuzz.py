"""Bad-input fuzzing driven by the operator table: every operator's function, method, in-place
and ``out=`` variants, and the hand-written public functions, called with one argument
replaced by a bad value of the kinds users meet (wrong types, ``None``, wrong dtypes,
mismatched shapes, out-of-range dims, empty and 0-d tensors, non-contiguous views, NaN/inf,
huge sizes).

Each call is checked for what a user must be able to rely on:

- it raises a standard exception (``TypeError``, ``ValueError``, ``RuntimeError``,
  ``IndexError``, ``NotImplementedError``) -- never ``AttributeError``, ``KeyError``,
  ``StopIteration``, ``OverflowError`` or a ``MemoryError``;
- the message names the function or operator that was called;
- no error or warning of the array library underneath (NumPy, SciPy, CuPy) leaks through;
- a failed call changes none of its inputs (values, shape, strides, version counter);
- a call whose argument is certainly invalid (a string where a dim goes, ``None`` for a
  required tensor, a negative size...) raises instead of returning.

A bad value is either *certainly invalid* for its parameter (the call must raise) or an
*edge* value that may be valid (an empty tensor, a complex tensor, NaN): then the call may
return, but if it raises, the error must pass the checks above.

The harness needs only the public API and :mod:`tensorcore.testing.samples`, so a
third-party backend can run it on its own device (``cases(device)``).

Examples
--------
>>> from tensorcore.testing.fuzz import cases, run, summarize
>>> results = [run(c) for c in cases("cpu", only={"select"})]
>>> summary = summarize(results)
>>> summary["calls"] > 10, summary["odd"], summary["silent"]
(True, 0, 0)
"""

from __future__ import annotations

import functools
import io as _io
import math
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import tensorcore as tc
import tensorcore.backend as backend
from tensorcore.ops._validate import tagged
from tensorcore.testing.samples import SAMPLES, Sample, core_ops

__all__ = [
    "STANDARD",
    "Case",
    "Result",
    "Target",
    "cases",
    "names_callee",
    "public_cases",
    "run",
    "summarize",
    "target_cases",
]

#: The exception types a bad argument may raise (``OSError`` for a file that cannot be read
#: or written, as Python's own ``open`` raises).
STANDARD = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, OSError)

# Text that only the array libraries underneath write.
_LEAK_TEXT = re.compile(
    r"ufunc|dtype\('|casting rule|<class 'numpy|numpy\.|scipy\.|cupy\.|ml_dtypes|"
    r"\bnp\.(?!ndarray)|array\(|did not contain a loop"
)
_LEAK_MODULES = ("numpy", "scipy", "cupy", "ml_dtypes")
_INDEXING = re.compile(r"\bind(?:ex|ices|exing|exed)\b", re.IGNORECASE)


@dataclass
class Case:
    """One call: ``fn(*args, **kwargs)``, whose errors must name ``name``."""

    target: str
    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    mutation: str
    must_raise: bool

    def __repr__(self) -> str:
        return f"{self.target} with {self.mutation}"


@dataclass
class Result:
    """What one :class:`Case` did."""

    case: Case
    exc: BaseException | None
    warned: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def raised(self) -> bool:
        return self.exc is not None

    @property
    def odd(self) -> bool:
        """Raised something other than a standard exception."""
        return self.exc is not None and not isinstance(self.exc, STANDARD)

    @property
    def leaked(self) -> bool:
        """An error or warning of the array library underneath reached the caller."""
        if self.warned:
            return True
        e = self.exc
        if e is None:
            return False
        return type(e).__module__.split(".")[0] in _LEAK_MODULES or bool(_LEAK_TEXT.search(str(e)))

    @property
    def named(self) -> bool:
        """The error message names the function that was called (indexing errors speak of
        indices, or name the operator the indexing ran)."""
        if self.exc is None:
            return True
        msg = str(self.exc)
        if self.case.name in ("__getitem__", "__setitem__"):
            return bool(_INDEXING.search(msg)) or any(
                names_callee(msg, n) for n in (self.case.name, "index_put", "copy_", "fill_")
            )
        # (or PyTorch's tag of the operator the called one is built on: inverse's errors
        # are linalg.inv's, "linalg.inv: ...")
        return names_callee(msg, self.case.name) or tagged(msg)

    @property
    def silent(self) -> bool:
        """Returned although the argument is certainly invalid."""
        return self.exc is None and self.case.must_raise

    @property
    def ok(self) -> bool:
        return not (self.odd or self.leaked or not self.named or self.changed or self.silent)

    def describe(self) -> str:
        what = "returned" if self.exc is None else f"{type(self.exc).__name__}: {self.exc}"
        problems = [
            p
            for p, bad in (
                ("odd exception", self.odd),
                ("leaked", self.leaked),
                ("operator not named", not self.named),
                (f"changed {self.changed}", bool(self.changed)),
                ("returned silently", self.silent),
            )
            if bad
        ]
        warned = f" warnings={self.warned}" if self.warned else ""
        return f"{self.case!r}: {', '.join(problems)} -- {what[:300]}{warned}"


def names_callee(message: str, name: str) -> bool:
    """Whether ``message`` names ``name`` as a callee: ``name(``, ``'name'``, ``"name"``,
    ``(in name)``, ``name[`` or ``name `` opening the message as its subject (``where expected
    ...``); its in-place form ``name_`` counts for ``name`` and back.

    Examples
    --------
    >>> from tensorcore.testing.fuzz import names_callee
    >>> names_callee("t(): expects a 2-D tensor", "t"), names_callee("can't do it", "t")
    (True, False)
    >>> names_callee("output shape mismatch (in add_)", "add")
    True
    """
    base = re.escape(name if name.endswith("__") else name.rstrip("_"))
    pattern = (
        rf"(?<!\w){base}_?(?:\(|'|\"|\)|\[|:)|'{base}_?'|(?<!\w){base}\.__(?:init|new)__\("
        rf"|^{base}_? (?=[a-z])"
    )
    return re.search(pattern, message) is not None


# ------------------------------------------------------------------ snapshots
def _tensors(obj: Any, path: str) -> Iterator[tuple[str, tc.Tensor]]:
    if isinstance(obj, tc.Tensor):
        yield path, obj
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _tensors(x, f"{path}[{i}]")


def _values(t: tc.Tensor) -> Any:
    if t.layout is not tc.strided or not backend.interface(t.device).holds_data:
        return None  # (a device without data: its metadata and version are what can change)
    flat = t.detach().reshape(-1).tolist()
    return tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in flat)


def _snapshot(case: Case) -> dict[str, Any]:
    found = list(_tensors(list(case.args), "args"))
    found += [(f"{k}=", t) for k, v in case.kwargs.items() for _, t in _tensors(v, k)]
    return {
        path: (t.shape, t.stride() if t.layout is tc.strided else None, t.dtype, t._version)
        + (_values(t),)
        for path, t in found
    }


# ------------------------------------------------------------------ running
def run(case: Case) -> Result:
    """Call ``case`` once and record what happened."""
    before = _snapshot(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            case.fn(*case.args, **case.kwargs)
            exc: BaseException | None = None
        except (Exception, MemoryError) as e:  # noqa: BLE001 - classifying is the point
            exc = e
    # The array library warns with RuntimeWarning (overflow, invalid value) or ComplexWarning;
    # tensorcore's own warnings (PyTorch's: ``cross`` without ``dim``, ``meshgrid`` without
    # ``indexing``) are UserWarnings and no leak.
    leaks = [w for w in caught if w.category is not UserWarning]
    res = Result(case, exc, [f"{w.category.__name__}: {w.message}" for w in leaks])
    if exc is not None:
        after = _snapshot(case)
        res.changed = [p for p, v in before.items() if after.get(p) != v]
    return res


def summarize(results: list[Result]) -> dict[str, int]:
    """Counts over ``results``: calls, raised, standard, named, odd, leaked, changed, silent."""
    raised = [r for r in results if r.raised]
    return {
        "calls": len(results),
        "raised": len(raised),
        "standard": sum(not r.odd for r in raised),
        "named": sum(r.named for r in raised),
        "odd": sum(r.odd for r in results),
        "leaked": sum(r.leaked for r in results),
        "changed": sum(bool(r.changed) for r in results),
        "silent": sum(r.silent for r in results),
        "returned": sum(not r.raised for r in results),
    }


# ------------------------------------------------------------------ bad values
class _Ctx:
    """Builds bad tensors on one device, shaped like a reference tensor."""

    def __init__(self, device: Any) -> None:
        self.device = tc.device(device)

    def t(self, data: Any, dtype: Any = None) -> tc.Tensor:
        return tc.tensor(data, dtype=dtype, device=self.device)


# (label, factory(ctx, ref), certainly invalid?)
Bad = tuple[str, Callable[[_Ctx, Any], Any], bool]


def _tensor_bads(optional: bool, scalars_ok: bool) -> list[Bad]:
    def like(ref: Any, dtype: Any) -> Any:
        return ref.detach().to(dtype) if isinstance(ref, tc.Tensor) else None

    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list of floats", lambda c, r: [1.0, 2.0], True),
        ("a Python float", lambda c, r: 1.5, not scalars_ok),
        ("a complex tensor", lambda c, r: like(r, tc.complex64), False),
        ("a bool tensor", lambda c, r: like(r, tc.bool), False),
        ("an int64 tensor", lambda c, r: like(r, tc.int64), False),
        ("a float64 tensor", lambda c, r: like(r, tc.float64), False),
        ("a 0-d tensor", lambda c, r: c.t(0.5), False),
        ("an empty tensor", lambda c, r: c.t([]), False),
        ("a (7, 3) tensor", lambda c, r: tc.ones(7, 3, device=c.device), False),
        ("a tensor of nan/inf", lambda c, r: c.t([math.nan, math.inf, -math.inf]), False),
        ("an expanded tensor", lambda c, r: c.t([1.0]).expand(3, 2), False),
    ]


def _tensor_list_bads(optional: bool) -> list[Bad]:
    def one(c: Any, r: Any) -> Any:
        # The list the samples give, or a tensor of the device under test (one of the
        # default device would make every list a mixed-device one).
        return r[0] if isinstance(r, (list, tuple)) and r else tc.ones(2, device=c.device)

    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "ab", True),
        ("a tensor instead of a list", lambda c, r: one(c, r), True),
        ("[None]", lambda c, r: [None], not optional),
        ("a list with a string", lambda c, r: [one(c, r), "a"], True),
        ("an empty list", lambda c, r: [], False),
        ("mixed dtypes", lambda c, r: [one(c, r), one(c, r).to(tc.int64)], False),
        ("mixed shapes", lambda c, r: [one(c, r), tc.ones(7, 3, device=c.device)], False),
    ]


# Parameter names whose ints are dims (an out-of-range value is invalid) and sizes (a negative
# or astronomically large value is invalid).
_DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "dimension", "start_dim", "end_dim", "axis0", "axis1"}
_COUNT_NAMES = {"length", "chunks", "n", "m", "steps", "k", "storage_offset"}
_COUNT_PARAMS = {("unfold", "size"), ("unfold", "step")}
#: Ints under a count's name that may be negative (a matrix power's exponent).
_SIGNED_PARAMS = {("matrix_power", "n"), ("linalg_matrix_power", "n")}
# Parameters with a count's name that take any int (``rot90`` turns ``k % 4`` times).
_NOT_COUNT_PARAMS = {("rot90", "k")}


def _int_bads(op: str, name: str, optional: bool) -> list[Bad]:
    dim = name in _DIM_NAMES
    if (op, name) in _COUNT_PARAMS:
        name = "n"  # a count
    if (op, name) in _SIGNED_PARAMS:
        name = "exponent"
    if (op, name) in _NOT_COUNT_PARAMS:
        name = "turns"
    return [
        ("None", lambda c, r: None, not optional),
        ("a float", lambda c, r: 1.5, True),
        ("a string", lambda c, r: "1", True),
        ("an object()", lambda c, r: object(), True),
        ("a list", lambda c, r: [1], True),
        # Python ints beyond int64 are taken where the result is well defined (PyTorch
        # refuses them all); negative ones where a count must not be negative.
        ("2**64", lambda c, r: 2**64, False),
        ("-2**63 - 1", lambda c, r: -(2**63) - 1, dim or name in _COUNT_NAMES),
        ("a float tensor", lambda c, r: c.t(1.0), True),
        ("an int tensor", lambda c, r: c.t(1), False),
        ("10**9", lambda c, r: 10**9 if dim else 2**62, dim),
        ("-10**9", lambda c, r: -(10**9), dim or name in _COUNT_NAMES),
        ("-1", lambda c, r: -1, name in _COUNT_NAMES - {"k"}),
    ]


_SIZE_NAMES = {"size", "sizes", "shape", "repeats", "s"}  # (s: the signal sizes of tc.fft)
# Size-like lists under another name, and lists that are neither sizes nor dims.
_SIZE_PARAMS = {("tile", "dims")}
_FREE_LISTS = {"shifts", "stride"}


def _int_list_bads(op: str, name: str, optional: bool) -> list[Bad]:
    size = name in _SIZE_NAMES or (op, name) in _SIZE_PARAMS
    dims = not size and name not in _FREE_LISTS
    return [
        ("None", lambda c, r: None, not optional),
        ("[1.5]", lambda c, r: [1.5], True),
        ("a string", lambda c, r: "ab", True),
        ("[None]", lambda c, r: [None], True),
        ("[[1]]", lambda c, r: [[1]], True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("[2**64]", lambda c, r: [2**64], size or dims),
        ("[-5]", lambda c, r: [-5], size),
        ("[-5, 3]", lambda c, r: [-5, 3], size),
        ("[2**62, 2**62]", lambda c, r: [2**62, 2**62], size),
        ("[10**9]", lambda c, r: [2**62] if size else [10**9], dims),
    ]


def _scalar_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list", lambda c, r: [1, 2], True),
        ("a 2-element tensor", lambda c, r: c.t([1.0, 2.0]), True),
        ("1j", lambda c, r: 1j, False),
        ("nan", lambda c, r: math.nan, False),
        ("inf", lambda c, r: math.inf, False),
        ("2**64", lambda c, r: 2**64, False),
        ("True", lambda c, r: True, False),
        ("a 0-d tensor", lambda c, r: c.t(2.0), False),
    ]


def _float_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("1j", lambda c, r: 1j, True),
        ("a list", lambda c, r: [1.0], True),
        ("nan", lambda c, r: math.nan, False),
    ]


def _bool_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "yes", True),
        ("a float", lambda c, r: 1.5, True),
        ("a list", lambda c, r: [True], True),
    ]


def _str_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("an int", lambda c, r: 1, True),
        ("'nonsense'", lambda c, r: "nonsense", True),
    ]


def _dtype_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("'f'", lambda c, r: "f", True),
        ("'float32'", lambda c, r: "float32", True),
        ("an int", lambda c, r: 1, True),
        ("an object()", lambda c, r: object(), True),
        ("a device", lambda c, r: tc.device("cpu"), True),
    ]


def _device_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("'nonsense!'", lambda c, r: "nonsense!", True),
        ("'nosuchdevice'", lambda c, r: "nosuchdevice", True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("a dtype", lambda c, r: tc.float32, True),
    ]


def _object_bads() -> list[Bad]:
    return [
        ("a string", lambda c, r: "a", True),
        ("an int", lambda c, r: 1, True),
        ("an object()", lambda c, r: object(), True),
    ]


def bads_for(type_: str, name: str, op: str, scalars_ok: bool) -> list[Bad]:
    """The bad values for a parameter of PyTorch schema type ``type_`` named ``name`` of
    operator ``op`` (``scalars_ok``: a tensor parameter that also takes a Python scalar)."""
    optional = type_.endswith("?") or type_.endswith("?[]")
    base = type_.rstrip("?")
    if base.startswith("Tensor") and base.endswith("[]"):
        return _tensor_list_bads("?" in type_)
    if base.startswith("Tensor"):
        return _tensor_bads(optional, scalars_ok=scalars_ok)
    if base == "int":
        return _int_bads(op, name, optional)
    if base == "int[]":
        return _int_list_bads(op, name, optional)
    if base == "Scalar":
        return _scalar_bads(optional)
    if base == "float":
        return _float_bads(optional)
    if base == "bool":
        return _bool_bads(optional)
    if base == "str":
        return _str_bads(optional)
    if base == "ScalarType":
        return _dtype_bads(optional)
    if base == "Device":
        return _device_bads(optional)
    if base in ("Generator", "MemoryFormat", "Layout"):
        return _object_bads()
    return []  # Any: the operator documents what it accepts


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


# ------------------------------------------------------------------ the rest of the public API
@dataclass
class Target:
    """A hand-written public function or method: its valid call (built fresh by ``make`` on
    a device) and the declared types of the parameters to fuzz, as in the operator table."""

    label: str
    callee: str
    fn: Callable[..., Any]
    make: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]
    types: dict[str, str]


def _x(dev: Any) -> tc.Tensor:
    return tc.arange(6.0, device=dev).reshape(2, 3)


def _leaf(dev: Any) -> tc.Tensor:
    return tc.ones(2, 3, device=dev, requires_grad=True)


def _loss(dev: Any) -> tc.Tensor:
    return (_leaf(dev) * 2).sum()


def _public_targets() -> list[Target]:
    F = tc.nn.functional
    T: Any = tc.Tensor
    x = _x

    def logp(d: Any) -> tc.Tensor:
        return tc.log_softmax(tc.ones(2, 3, device=d), 1)

    def labels(d: Any) -> tc.Tensor:
        return tc.tensor([0, 2], device=d)

    return [
        Target("tc.tensor", "tensor", tc.tensor, lambda d: (([1.0, 2.0],), {"device": d}),
               {"data": "Any", "dtype": "ScalarType?", "device": "Device?",
                "requires_grad": "bool?"}),
        Target("tc.as_tensor", "as_tensor", tc.as_tensor, lambda d: (([1.0, 2.0],), {"device": d}),
               {"dtype": "ScalarType?", "device": "Device?"}),
        Target("tc.broadcast_shapes", "broadcast_shapes", tc.broadcast_shapes,
               lambda d: (((2, 1), (1, 3)), {}), {"shapes": "int[]"}),
        Target("tc.promote_types", "promote_types", tc.promote_types,
               lambda d: ((tc.int8, tc.uint8), {}), {"type1": "ScalarType", "type2": "ScalarType"}),
        Target("tc.can_cast", "can_cast", tc.can_cast, lambda d: ((tc.int8, tc.float32), {}),
               {"from_": "ScalarType", "to": "ScalarType"}),
        Target("tc.result_type", "result_type", tc.result_type, lambda d: ((x(d), 1.5), {}),
               {"tensor1": "Tensor", "tensor2": "Tensor"}),
        Target("tc.set_default_dtype", "set_default_dtype", tc.set_default_dtype,
               lambda d: ((tc.float32,), {}), {"d": "ScalarType"}),
        Target("tc.set_default_device", "set_default_device", tc.set_default_device,
               lambda d: ((None,), {}), {"device": "Device?"}),
        Target("tc.device", "device", tc.device, lambda d: (("cpu",), {}),
               {"type": "DeviceName", "index": "int?"}),
        Target("tc.manual_seed", "manual_seed", tc.manual_seed, lambda d: ((0,), {}),
               {"seed": "int"}),
        Target("tc.Generator", "Generator", tc.Generator, lambda d: ((d,), {}),
               {"device": "DeviceName"}),
        Target("tc.explain", "explain", tc.explain, lambda d: (("add", x(d), x(d)), {}),
               {"op_name": "str"}),
        Target("tc.set_grad_enabled", "set_grad_enabled", tc.set_grad_enabled,
               lambda d: ((True,), {}), {"mode": "bool"}),
        Target("tc.inference_mode", "inference_mode", tc.inference_mode,
               lambda d: ((True,), {}), {"mode": "bool"}),
        Target("tc.autograd.gradcheck", "gradcheck", tc.autograd.gradcheck,
               lambda d: ((lambda t: t * 2, (_leaf(d).double(),)), {}), {"func": "Callable"}),
        Target("tc.autograd.grad", "grad", tc.autograd.grad,
               lambda d: _grad_call(d), {"outputs": "Tensor", "inputs": "Tensor"}),
        Target("tc.autograd.backward", "backward", tc.autograd.backward,
               lambda d: ((_loss(d),), {}), {"tensors": "Tensor", "grad_tensors": "Tensor?"}),
        Target("F.linear", "linear", F.linear,
               lambda d: ((x(d), tc.ones(4, 3, device=d), tc.zeros(4, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "bias": "Tensor?"}),
        Target("F.mse_loss", "mse_loss", F.mse_loss, lambda d: ((x(d), x(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.nll_loss", "nll_loss", F.nll_loss, lambda d: ((logp(d), labels(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.cross_entropy", "cross_entropy", F.cross_entropy,
               lambda d: ((tc.ones(2, 3, device=d), labels(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.embedding", "embedding", F.embedding,
               lambda d: ((labels(d), tc.ones(4, 3, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "sparse": "bool"}),
        Target("F.conv2d", "conv2d", F.conv2d,
               lambda d: ((tc.ones(1, 2, 5, 5, device=d), tc.ones(3, 2, 3, 3, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "bias": "Tensor?", "stride": "int[]",
                "dilation": "int[]", "groups": "int"}),
        Target("F.max_pool2d", "max_pool2d", F.max_pool2d,
               lambda d: ((tc.ones(1, 2, 4, 4, device=d), 2), {}),
               {"input": "Tensor", "kernel_size": "int[]", "stride": "int[]?",
                "padding": "int[]", "ceil_mode": "bool"}),
        Target("F.avg_pool2d", "avg_pool2d", F.avg_pool2d,
               lambda d: ((tc.ones(1, 2, 4, 4, device=d), 2), {}),
               {"input": "Tensor", "kernel_size": "int[]", "padding": "int[]",
                "divisor_override": "int?"}),
        Target("F.layer_norm", "layer_norm", F.layer_norm, lambda d: ((x(d), (3,)), {}),
               {"input": "Tensor", "normalized_shape": "int[]", "weight": "Tensor?",
                "bias": "Tensor?", "eps": "float"}),
        Target("F.batch_norm", "batch_norm", F.batch_norm,
               lambda d: ((x(d).t(), tc.zeros(2, device=d), tc.ones(2, device=d)),
                          {"training": True}),
               {"input": "Tensor", "running_mean": "Tensor?", "running_var": "Tensor?",
                "weight": "Tensor?", "momentum": "float?"}),
        Target("F.pad", "pad", F.pad, lambda d: ((x(d), (1, 1)), {}),
               {"input": "Tensor", "pad": "int[]", "mode": "str", "value": "float?"}),
        Target("F.one_hot", "one_hot", F.one_hot, lambda d: ((labels(d), 3), {}),
               {"tensor": "Tensor", "num_classes": "int"}),
        Target("F.dropout", "dropout", F.dropout, lambda d: ((x(d), 0.5), {}),
               {"input": "Tensor", "p": "float", "training": "bool"}),
        Target("F.interpolate", "interpolate", F.interpolate,
               lambda d: ((tc.ones(1, 1, 2, 2, device=d),), {"scale_factor": 2}),
               {"input": "Tensor", "mode": "str", "align_corners": "bool?"}),
        Target("F.grid_sample", "grid_sample", F.grid_sample,
               lambda d: ((tc.ones(1, 1, 2, 2, device=d), tc.zeros(1, 2, 2, 2, device=d)),
                          {"align_corners": False}),
               {"input": "Tensor", "grid": "Tensor", "mode": "str", "padding_mode": "str",
                "align_corners": "bool?"}),
        Target("F.affine_grid", "affine_grid", F.affine_grid,
               lambda d: ((tc.zeros(1, 2, 3, device=d), (1, 1, 2, 2)), {"align_corners": False}),
               {"theta": "Tensor", "size": "int[]", "align_corners": "bool?"}),
        Target("F.binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
               F.binary_cross_entropy_with_logits, lambda d: ((x(d), x(d) * 0), {}),
               {"input": "Tensor", "target": "Tensor", "weight": "Tensor?",
                "reduction": "str", "pos_weight": "Tensor?"}),
        Target("F.softmax", "softmax", F.softmax, lambda d: ((x(d), 1), {}),
               {"input": "Tensor", "dim": "int?", "dtype": "ScalarType?"}),
        Target("tc.linalg.vector_norm", "vector_norm", tc.linalg.vector_norm,
               lambda d: ((x(d),), {}), {"x": "Tensor", "ord": "float", "dim": "int[]?"}),
        Target("Tensor.to", "to", T.to, lambda d: ((x(d), tc.float64), {}),
               {"dtype": "ScalarType?", "device": "Device?", "non_blocking": "bool",
                "copy": "bool"}),
        Target("Tensor.copy_", "copy_", T.copy_, lambda d: ((x(d), x(d)), {}),
               {"src": "Tensor", "non_blocking": "bool"}),
        Target("Tensor.size", "size", T.size, lambda d: ((x(d), 0), {}), {"dim": "int?"}),
        Target("Tensor.stride", "stride", T.stride, lambda d: ((x(d), 0), {}), {"dim": "int?"}),
        Target("Tensor.requires_grad_", "requires_grad_", T.requires_grad_,
               lambda d: ((x(d),), {}), {"requires_grad": "bool"}),
        Target("Tensor.backward", "backward", T.backward, lambda d: ((_loss(d),), {}),
               {"gradient": "Tensor?", "retain_graph": "bool?", "create_graph": "bool"}),
        Target("Tensor.register_hook", "register_hook", T.register_hook,
               lambda d: ((_leaf(d), lambda g: g), {}), {"hook": "Callable"}),
        Target("Tensor.__getitem__", "__getitem__", T.__getitem__, lambda d: ((x(d), 0), {}),
               {"idx": "Index"}),
        Target("Tensor.__setitem__", "__setitem__", T.__setitem__,
               lambda d: ((x(d), 0, 1.0), {}), {"idx": "Index", "value": "Value"}),
        Target("Tensor.item", "item", T.item, lambda d: ((tc.ones(1, device=d),), {}), {}),
        Target("tc.save", "save", tc.save, lambda d: (({"w": x(d)}, _io.BytesIO()), {}),
               {"obj": "Object", "f": "OutFile"}),
        Target("tc.load", "load", tc.load, lambda d: ((_saved(d),), {}),
               {"f": "File", "map_location": "Any", "weights_only": "bool?"}),
        Target("Tensor.numpy", "numpy", T.numpy, lambda d: ((x(d),), {}), {"force": "bool"}),
    ] + _fft_targets()  # fmt: skip


def _fft_targets() -> list[Target]:
    """Every function of ``tensorcore.fft``: the transforms with their ``n``/``s``, ``dim``
    and ``norm``, the frequency factories and the shifts."""
    one = {"input": "Tensor", "n": "int?", "dim": "int", "norm": "str?", "out": "Tensor?"}
    many = {"input": "Tensor", "s": "int[]?", "dim": "int[]?", "norm": "str?", "out": "Tensor?"}
    freq = {
        "n": "int",
        "d": "float",
        "out": "Tensor?",
        "dtype": "ScalarType?",
        "device": "Device?",
        "requires_grad": "bool?",
    }
    shift = {"input": "Tensor", "dim": "int[]?"}
    two = {**many, "dim": "int[]"}
    groups = [
        (("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"), one),
        (("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"), many),
        (("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"), two),
        (("fftfreq", "rfftfreq"), freq),
        (("fftshift", "ifftshift"), shift),
    ]
    types = {name: t for names, t in groups for name in names}

    def make(name: str) -> Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]:
        if name.endswith("freq"):
            return lambda d: ((4,), {"device": d})
        return lambda d: ((_x(d),), {})

    return [
        Target(f"tc.fft.{name}", name, getattr(tc.fft, name), make(name), t)
        for name, t in types.items()
    ]


def _saved(d: Any) -> Any:
    buf = _io.BytesIO()
    tc.save({"w": _x(d), "step": 1}, buf)
    buf.seek(0)
    return buf


def _file_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, True),
        ("an int", lambda c, r: 1, True),
        ("a missing path", lambda c, r: "/nonexistent/dir/x.safetensors", True),
        ("a text stream", lambda c, r: _io.StringIO(), True),
        ("garbage bytes", lambda c, r: _io.BytesIO(b"\xff" * 40), True),
        ("an empty file", lambda c, r: _io.BytesIO(), True),
    ]


def _grad_call(d: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    a = _leaf(d)
    return ((a * 2).sum(), a), {}


def _index_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, False),  # a new axis
        ("a string", lambda c, r: "a", True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("an out-of-range int", lambda c, r: 5, True),
        ("too many indices", lambda c, r: (0, 0, 0), True),
        ("two ellipses", lambda c, r: (..., ...), True),
        ("a float tensor", lambda c, r: c.t([0.0]), True),
        ("an out-of-range tensor", lambda c, r: c.t([5]), True),
        ("a bool mask of the wrong shape", lambda c, r: c.t([True, False, True]), True),
        ("a list with a string", lambda c, r: [0, "a"], True),
        ("slice with a float step", lambda c, r: slice(0, 2, 0.5), True),
        ("slice with step 0", lambda c, r: slice(0, 2, 0), True),
        ("tensor(False)", lambda c, r: c.t(False), False),
        ("an empty list", lambda c, r: [], False),
    ]


def _value_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, True),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list with a string", lambda c, r: [1.0, "a"], True),
        ("a tensor of the wrong shape", lambda c, r: tc.ones(7, device=c.device), True),
        ("1j", lambda c, r: 1j, True),
        ("nan", lambda c, r: math.nan, False),
        ("a complex tensor", lambda c, r: tc.ones(3, dtype=tc.complex64, device=c.device), False),
    ]


def _callable_bads() -> list[Bad]:
    return [("None", lambda c, r: None, True), ("a string", lambda c, r: "f", True)]


def _bads(type_: str, name: str, callee: str) -> list[Bad]:
    if type_ == "Index":
        return _index_bads()
    if type_ == "Value":
        return _value_bads()
    if type_ == "Callable":
        return _callable_bads()
    if type_ == "File":
        return _file_bads()
    if type_ == "OutFile":  # (any binary stream takes what is written)
        return [b for b in _file_bads() if b[0] not in ("garbage bytes", "an empty file")]
    if type_ == "DeviceName":  # a device is a value: its type is checked where it is used
        return [(w, f, c and w != "'nosuchdevice'") for w, f, c in _device_bads(False)]
    if type_ == "Any":
        return [("an object()", lambda c, r: object(), True)]
    if type_ == "Object":  # (anything picklable is saved, as by PyTorch's torch.save)
        return [("an object()", lambda c, r: object(), False)]
    if type_ == "Tensor|Scalar":
        return bads_for("Tensor", name, callee, True)
    return bads_for(type_, name, callee, False)


def public_cases(device: Any = "cpu", only: set[str] | None = None) -> Iterator[Case]:
    """Fuzzing cases for the hand-written public functions and methods (``only`` restricts
    them by label)."""
    return target_cases(_public_targets(), device, only)


def target_cases(
    targets: list[Target], device: Any = "cpu", only: set[str] | None = None
) -> Iterator[Case]:
    """Fuzzing cases for any :class:`Target` list: a plugin's own functions and operators,
    which the core's samples do not cover (``only`` restricts them by label)."""
    import inspect

    ctx = _Ctx(device)
    for t in targets:
        if only is not None and t.label not in only:
            continue
        args, kwargs = t.make(ctx.device)
        try:
            params = list(inspect.signature(t.fn).parameters)
        except (TypeError, ValueError):
            params = []
        yield Case(t.label, t.callee, t.fn, args, {**kwargs, "nonsense_kw": 1},
                   "an unknown keyword", not any(p in ("kwargs",) for p in params))  # fmt: skip
        for pname, ptype in t.types.items():
            pos = params.index(pname) if pname in params else -1
            for what, make, certain in _bads(ptype, pname, t.callee):
                args, kwargs = t.make(ctx.device)
                ref = args[pos] if 0 <= pos < len(args) else kwargs.get(pname)
                bad = make(ctx, ref)
                if 0 <= pos < len(args):
                    args = args[:pos] + (bad,) + args[pos + 1 :]
                elif pname in params:
                    kwargs = {**kwargs, pname: bad}
                else:
                    continue
                yield Case(t.label, t.callee, t.fn, args, kwargs, f"{pname}={what}", certain)


def main(argv: list[str] | None = None) -> int:
    """``python -m tensorcore.testing.fuzz [--device D] [-v]``: run every case and print the
    counts (and, with ``-v``, every call that misbehaves); exit status 1 if any does."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tensorcore.testing.fuzz")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("-v", "--verbose", action="store_true")
    ns = parser.parse_args(argv)
    results = []
    for case in (*cases(ns.device), *public_cases(ns.device)):
        results.append(run(case))
        tc.set_default_dtype(tc.float32)
        tc.set_default_device(None)
    counts = summarize(results)
    print(", ".join(f"{k}: {v}" for k, v in counts.items()))
    bad = [r for r in results if not r.ok]
    if ns.verbose:
        for r in bad:
            print(r.describe())
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
