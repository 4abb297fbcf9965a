"""PyTorch's own operator database (OpInfo) through tensorcore: a developer tool, run by hand.

For every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` and the dtypes
of :data:`DTYPES` (where the OpInfo supports them), call the OpInfo's own callable (``.op``) on
its samples (``sample_inputs``, then the further cases of ``reference_inputs`` where it has
them) with PyTorch and with tensorcore, and compare the results (values with per-dtype
tolerances, dtypes, shapes, the structure of multiple outputs). The same for its variants
(:data:`VARIANTS`): the ``Tensor`` method, the in-place method (on a copy of ``self``), and the
function with ``out=`` tensors of the result's dtypes and shapes (whether the result is ``out``,
and for the first sample whether an ``out`` of another dtype is taken or refused by both). For
float64 and complex128 samples the gradients (``torch.autograd.grad`` against
``tc.autograd.grad`` with the same random cotangents: complex ones follow PyTorch's conjugate
Wirtinger convention) and, for ``error_inputs``, whether both raise and of related builtin
exception types.

Where ``.op`` is a Python function of PyTorch's test modules (often a lambda that reorders
arguments) it is rebound to globals in which ``torch`` is tensorcore; PyTorch's builtins are
mapped by name (``torch.X``, ``Tensor.X``, ``torch.nn.functional.X``, ``torch.linalg.X``, ...).
Sample tensors are copied through NumPy with their strides (non-contiguous samples matter).
Random and uninitialised operators, and dropout samples, are compared by dtype and shape only.

Kinds of mismatch: ``values``, ``dtype``, ``shape``, ``structure``, ``tc-raises`` (PyTorch
computes, tensorcore raises), ``torch-raises``, ``missing`` (tensorcore lacks the function),
their ``grad-``, ``method-``, ``inplace-`` and ``out-`` forms, ``out-dtype-rule``, and for
``error_inputs`` ``error-noraise`` (PyTorch raises, tensorcore does not) and ``error-type``
(unrelated builtin exception types). :data:`EXPECTED` names the
known differences as harness artefacts, accepted differences or gaps, with the reason.

Usage::

    python3 tools/diff_torch_opinfo.py                       # everything (several minutes)
    python3 tools/diff_torch_opinfo.py --ops 'gather,scatter*' --dtypes float32 -v
    python3 tools/diff_torch_opinfo.py --modes forward,out --dtypes float32,int64
"""

# The closures made in loops are called in the same iteration:
# ruff: noqa: B023

from __future__ import annotations

import argparse
import collections
import fnmatch
import signal
import sys
import time
import types
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover - a developer tool
    sys.exit("diff_torch_opinfo.py needs PyTorch (and expecttest): it is the oracle")

import tensorcore as tc

DTYPES = (
    "float32",
    "float64",
    "int64",
    "bool",
    "complex64",
    "bfloat16",
    "complex128",
    "int32",
    "uint8",
    "int8",
    "int16",
    "float16",
)
#: The variants of an OpInfo a run calls besides its function (``--modes``): the ``Tensor``
#: method ``x.op(...)``, the in-place method ``x.op_(...)``, and the function with ``out=``
#: tensors of the result's dtypes and shapes (PyTorch's ``test_out``).
VARIANTS = ("method", "inplace", "out")
#: (rtol, atol) per result dtype; exact for integers and bools.
TOLERANCE = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1e-2),
    "float32": (1e-4, 1e-5),
    "complex64": (1e-4, 1e-5),
    "float64": (1e-7, 1e-9),
    "complex128": (1e-7, 1e-9),
}
#: Operators whose values are random or uninitialised: dtype and shape are compared only.
UNDETERMINED = (
    "*dropout*",
    "*rand*",
    "*empty*",
    "bernoulli",
    "multinomial",
    "normal*",
    "uniform",
    "cauchy",
    "exponential",
    "geometric",
    "log_normal",
    "nn.functional.rrelu",
    "resize_",
    "resize_as_",
    "nn.functional.fractional_max_pool*",
)
_ARTEFACT = "harness: "
_ACCEPTED = "accepted: "
#: Known differences: (op glob, dtype glob, kind glob, detail glob, reason). The reason starts
#: with "harness: " where the comparison is at fault, "accepted: " where tensorcore's result
#: is as good (or PyTorch's contract leaves it open), "gap: " where tensorcore lacks it.
EXPECTED: list[tuple[str, str, str, str, str]] = [
    (
        "as_strided*",
        "*",
        "*",
        "*",
        _ARTEFACT + "the sample views a larger storage; the copy holds the view's span only",
    ),
    (
        "__r*__",
        "*",
        "error-noraise",
        "*",
        _ARTEFACT + "PyTorch's descriptor refuses a number "
        "as self; the mapped method call is the number's own reflected operator",
    ),
    (
        "*",
        "*",
        "error-noraise",
        "*must be Tensor, not *",
        _ACCEPTED + "tensorcore takes a Python "
        "number where PyTorch's overloads take tensors only (a superset)",
    ),
    (
        "*",
        "*",
        "error-noraise",
        "*invalid combination of arguments - got (int*",
        _ACCEPTED + "a Python number as the first operand (a superset)",
    ),
    (
        "*",
        "*",
        "error-type",
        "*must be Tensor, not int*",
        _ACCEPTED + "a Python number taken "
        "(a superset); the integer dtype is then refused as for a tensor",
    ),
    ("sort", "*", "values", "out[[]1]*", _ACCEPTED + "the order of equal elements (stable=False)"),
    ("argsort", "*", "values", "*", _ACCEPTED + "the order of equal elements (stable=False)"),
    ("topk", "*", "values", "out[[]1]*", _ACCEPTED + "which of equal elements (unspecified)"),
    ("kthvalue", "*", "values", "out[[]1]*", _ACCEPTED + "which of equal elements (unspecified)"),
    ("mode", "*", "values", "out[[]1]*", _ACCEPTED + "which index of the mode (unspecified)"),
    (
        "linalg.eig*",
        "*",
        "*values",
        "*",
        _ARTEFACT + "eigenvectors are defined up to sign or phase (and their gradients with them)",
    ),
    ("*_lowrank", "*", "*values", "*", _ARTEFACT + "singular vectors up to sign"),
    (
        "special.bessel_*",
        "float64",
        "values",
        "*",
        _ACCEPTED + "SciPy's values, closer to mpmath's than PyTorch's (checked at x=5)",
    ),
    ("matrix_exp", "bfloat16", "values", "*", _ACCEPTED + "PyTorch's bfloat16 result is NaN"),
    (
        "matrix_exp",
        "float32",
        "values",
        "*",
        _ACCEPTED + "float32 rounding of another "
        "scaling-and-squaring (relative 1e-5 on entries of 1e4)",
    ),
    (
        "logcumsumexp",
        "complex*",
        "values",
        "*",
        _ACCEPTED + "imaginary parts 2 pi apart (the branch of the complex log)",
    ),
    (
        "native_batch_norm",
        "bfloat16",
        "dtype",
        "out[[]1]*",
        _ACCEPTED + "the saved statistics stay float32",
    ),
    (
        "native_layer_norm",
        "bfloat16",
        "dtype",
        "out[[]1]*",
        _ACCEPTED + "the saved statistics stay float32",
    ),
    (
        "__rpow__",
        "int64",
        "tc-raises",
        "*negative integer powers*",
        _ACCEPTED + "tensorcore "
        "refuses integers to negative integer powers (PyTorch's result is 0 or +-1)",
    ),
    (
        "max_pool2d_with_indices_backward",
        "*",
        "missing",
        "*",
        _ARTEFACT + "the OpInfo calls torch.ops.aten",
    ),
    ("sparse.*", "*", "harness", "*", _ARTEFACT + "sparse CSR samples"),
    (
        "*",
        "-",
        "error-noraise",
        "*refer to a single memory location*",
        _ARTEFACT + "each sample tensor is copied on its own: an out= that is a view of an "
        "input (not the input itself) no longer shares its memory",
    ),
    (
        "cat",
        "-",
        "error-noraise",
        "*storage that is not resizable*",
        _ARTEFACT + "the sample's out= has a storage PyTorch cannot resize; the copy's can be",
    ),
    (
        "nextafter",
        "float64",
        "grad-structure",
        "*",
        _ACCEPTED + "PyTorch's result requires grad but its backward raises (no derivative)",
    ),
    ("chalf", "*", "missing", "*", "gap: no complex32 dtype"),
    (
        "narrow_copy",
        "-",
        "error-type",
        "*Dimension out of range*Expected dim < s*",
        _ACCEPTED + "PyTorch's narrow_copy raises RuntimeError for a dim past the end and "
        "IndexError for one before the start; tensorcore's IndexError for both, as narrow's",
    ),
    ("_softmax_backward_data", "*", "tc-raises", "*", "gap: ATen's internal 4-argument form"),
    *[
        (
            name,
            "bfloat16",
            "values",
            "*",
            _ACCEPTED + "bfloat16 rounding of intermediates "
            "(a few bfloat16 ulps; PyTorch accumulates some in float32, rounds others)",
        )
        for name in (
            "addbmm",
            "baddbmm",
            "addcdiv",
            "addcmul",
            "addr",
            "nn.functional.bilinear",
            "nn.functional.conv_transpose*",
            "nn.functional.embedding_bag",
            "nn.functional.group_norm",
            "nn.functional.instance_norm",
            "nn.functional.interpolate.*",
            "nn.functional.upsample_bilinear",
            "nn.functional.adaptive_avg_pool3d",
            "nn.functional.scaled_dot_product_attention",
        )
    ],
]


# ------------------------------------------------------------------ mapping PyTorch to tensorcore
class _Missing(Exception):
    """tensorcore has no counterpart of a PyTorch callable."""


def _tc_path(path: str) -> Any:
    obj: Any = tc
    for part in path.split("."):
        if not part:
            continue
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise _Missing(f"tc.{path}") from None
    return obj


_BUILTIN_MODULES = {
    "torch": ("", ""),
    "torch._C._linalg": ("linalg", "linalg_"),
    "torch._C._special": ("special", "special_"),
    "torch._C._fft": ("fft", "fft_"),
    "torch._C._nn": ("nn.functional", ""),
    "torch.nn.functional": ("nn.functional", ""),
    "torch.functional": ("", ""),
    "torch.signal.windows.windows": ("signal.windows", ""),
    "torch.masked._ops": ("masked", ""),
}
_REBOUND: dict[int, dict[str, Any]] = {}


def counterpart(obj: Any) -> Any:
    """tensorcore's object for PyTorch's ``obj`` (raises :class:`_Missing` where none)."""
    if obj is torch:
        return tc
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        if name.startswith("torch."):
            return _tc_path(name.removeprefix("torch."))
        return obj
    if isinstance(obj, (torch.dtype, torch.device, torch.Size, torch.layout, torch.memory_format)):
        return convert(obj, {})
    if obj is torch.Tensor:
        return tc.Tensor
    if isinstance(obj, (types.MethodDescriptorType, types.WrapperDescriptorType)) or (
        isinstance(obj, types.FunctionType) and obj.__module__ == "torch._tensor"
    ):
        name = obj.__name__
        if not hasattr(tc.Tensor, name):
            raise _Missing(f"Tensor.{name}")
        return lambda self, *a, **k: getattr(self, name)(*a, **k)
    if isinstance(obj, types.FunctionType) and obj.__module__.startswith("torch.testing"):
        return rebind(obj)
    module = getattr(obj, "__module__", None)
    if callable(obj) and module in _BUILTIN_MODULES:
        where, prefix = _BUILTIN_MODULES[module]
        return _tc_path(f"{where}.{obj.__name__.removeprefix(prefix)}")
    raise _Missing(f"{module}.{getattr(obj, '__name__', obj)}")


def rebind(fn: types.FunctionType) -> types.FunctionType:
    """``fn`` with the globals of its module mapped to tensorcore (``torch`` is ``tc``)."""
    g = _REBOUND.get(id(fn.__globals__))
    if g is None:
        g = dict(fn.__globals__)
        _REBOUND[id(fn.__globals__)] = g
        for k, v in fn.__globals__.items():
            if isinstance(v, types.ModuleType) and v.__name__.startswith("torch"):
                try:
                    g[k] = counterpart(v)
                except _Missing:
                    g.pop(k)
        for k, v in list(g.items()):
            if isinstance(v, types.FunctionType) and v.__globals__ is fn.__globals__:
                g[k] = types.FunctionType(v.__code__, g, v.__name__, v.__defaults__, v.__closure__)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


# ------------------------------------------------------------------ conversions
def to_tc_tensor(x: torch.Tensor, grad: bool = False) -> tc.Tensor:
    """A tensorcore copy of ``x``: same values, dtype, shape and strides; with ``grad``, a
    view of a leaf that requires grad (the leaf itself where ``x`` is contiguous)."""
    x = x.detach().resolve_conj().resolve_neg()
    if x.layout != torch.strided or x.device.type != "cpu":
        raise _Missing(f"layout {x.layout} on {x.device}")
    dtype = getattr(tc, str(x.dtype).removeprefix("torch."))
    if x.numel() == 0:
        return tc.empty_strided(tuple(x.shape), x.stride(), dtype=dtype).requires_grad_(grad)
    dense = x.is_contiguous()
    if dense:
        flat = x.reshape(-1)
    else:
        span = 1 + sum((n - 1) * s for n, s in zip(x.shape, x.stride(), strict=True))
        flat = torch.as_strided(x, (span,), (1,))
    arr = (flat.float() if x.dtype == torch.bfloat16 else flat).numpy().copy()
    if dense:
        arr = arr.reshape(tuple(x.shape))
    base = tc.from_numpy(arr).to(dtype).requires_grad_(grad)
    return base if dense else tc.as_strided(base, tuple(x.shape), x.stride())


def convert_sample(s: Any, memo: dict[int, Any], grad: bool = False) -> Any:
    """A sample's ``(args, kwargs)`` as tensorcore values (sharing ``memo``), or None where
    tensorcore cannot hold one of them."""
    try:
        return convert((s.input, *s.args), memo, grad), convert(s.kwargs, memo, grad)
    except Exception:  # noqa: BLE001 - (a sample tensorcore cannot hold)
        return None


def convert(a: Any, memo: dict[int, Any], grad: bool = False) -> Any:
    if isinstance(a, torch.Tensor):
        if id(a) not in memo:
            memo[id(a)] = to_tc_tensor(a, grad and a.requires_grad)
        return memo[id(a)]
    if isinstance(a, torch.dtype):
        return getattr(tc, str(a).removeprefix("torch."))
    if isinstance(a, torch.device):
        return tc.device("cpu")
    if isinstance(a, torch.Size):
        return tuple(a)
    if isinstance(a, torch.memory_format):
        return getattr(tc, str(a).removeprefix("torch."))
    if isinstance(a, torch.layout):
        return getattr(tc, str(a).removeprefix("torch."))
    if isinstance(a, torch.Generator):
        return tc.Generator().manual_seed(0)
    if isinstance(a, list):
        return [convert(x, memo, grad) for x in a]
    if isinstance(a, tuple) and not hasattr(a, "_fields"):
        return tuple(convert(x, memo, grad) for x in a)
    if isinstance(a, dict):
        return {k: convert(v, memo, grad) for k, v in a.items()}
    if isinstance(a, torch.nn.Module) and not list(a.parameters()):
        # (a parameterless module given as a function: PairwiseDistance())
        mod = getattr(tc.nn, type(a).__name__)()
        for k, v in vars(a).items():
            if not k.startswith("_") and isinstance(v, (bool, int, float, str)):
                setattr(mod, k, v)
        return mod
    if callable(a) and not isinstance(a, type):
        try:
            return counterpart(a)
        except _Missing:
            return a
    return a


def tc_numpy(t: tc.Tensor) -> np.ndarray:
    t = t.detach()
    if t.layout != tc.strided:
        t = t.to_dense()
    return (t.float() if t.dtype == tc.bfloat16 else t).numpy()


def torch_numpy(x: torch.Tensor) -> np.ndarray:
    x = x.detach().resolve_conj().resolve_neg()
    if x.layout != torch.strided:
        x = x.to_dense()
    return (x.float() if x.dtype == torch.bfloat16 else x).numpy(force=True)


def flatten(res: Any) -> list[Any]:
    if isinstance(res, (tuple, list)):
        return [y for x in res for y in flatten(x)]
    return [res]


def base_exception(e: BaseException) -> type:
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return NotImplementedError.__mro__[1] if cls is NotImplementedError else cls
    return type(e)


# ------------------------------------------------------------------ report
class Report:
    def __init__(self) -> None:
        self.items: list[tuple[str, str, str, str, str]] = []
        self.expected: list[tuple[tuple[str, str, str, str, str], str]] = []
        self.ok = 0
        self.missing: dict[str, str] = {}

    def add(self, kind: str, op: str, dtype: str, sample: str, detail: str) -> None:
        item = (kind, op, dtype, sample, detail.replace("\n", " ")[:300])
        bare = kind.split("-", 1)[1] if kind.startswith(VARIANTS) else kind
        for pop, pdt, pkind, pdetail, reason in EXPECTED:
            if (
                fnmatch.fnmatchcase(op, pop)
                and fnmatch.fnmatchcase(dtype, pdt)
                and (fnmatch.fnmatchcase(kind, pkind) or fnmatch.fnmatchcase(bare, pkind))
                and fnmatch.fnmatchcase(item[4], pdetail)
            ):
                self.expected.append((item, reason))
                return
        self.items.append(item)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout("timed out")


def attempt(fn: Callable[[], Any], seconds: int = 30) -> tuple[Any, BaseException | None]:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - every failure is data here
        return None, e
    finally:
        signal.alarm(0)


def compare(
    rep: Report, key: str, dt: str, desc: str, ours: Any, theirs: Any, shape_only: bool, pre: str
) -> bool:
    a, b = flatten(ours), flatten(theirs)
    if len(a) != len(b):
        rep.add(pre + "structure", key, dt, desc, f"{len(a)} vs {len(b)} outputs")
        return False
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        where = f"out[{k}]"
        if isinstance(y, torch.Tensor) and not isinstance(x, tc.Tensor):
            if x is None and pre == "grad-":
                x = tc.zeros(tuple(y.shape), dtype=convert(y.dtype, {}))
            else:
                rep.add(pre + "structure", key, dt, desc, f"{where}: {type(x).__name__} vs Tensor")
                return False
        if not isinstance(y, torch.Tensor):
            if y is None and isinstance(x, tc.Tensor) and pre == "grad-":
                y = torch.zeros(tuple(x.shape), dtype=getattr(torch, x.dtype.name))
            elif isinstance(x, tc.Tensor):
                rep.add(pre + "structure", key, dt, desc, f"{where}: Tensor vs {type(y).__name__}")
                return False
            else:
                try:
                    same = x == y or bool(np.allclose(x, y, equal_nan=True))
                except Exception:  # noqa: BLE001
                    same = False
                if not same and not shape_only:
                    rep.add(pre + "values", key, dt, desc, f"{where}: {x!r} vs {y!r}")
                    return False
                continue
        if x.dtype.name != str(y.dtype).removeprefix("torch."):
            rep.add(pre + "dtype", key, dt, desc, f"{where}: {x.dtype.name} vs {y.dtype}")
            return False
        if tuple(x.shape) != tuple(y.shape):
            rep.add(pre + "shape", key, dt, desc, f"{where}: {tuple(x.shape)} vs {tuple(y.shape)}")
            return False
        if shape_only:
            continue
        u, v = tc_numpy(x), torch_numpy(y)
        if u.dtype.kind in "biu":
            ok = np.array_equal(u, v)
            worst = f"{int((u != v).sum())} of {u.size} differ"
        else:
            rtol, atol = TOLERANCE.get(x.dtype.name, (1e-7, 1e-9))
            ok = bool(np.allclose(u, v, rtol=rtol, atol=atol, equal_nan=True))
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = np.abs(u.astype(np.complex128) - v.astype(np.complex128))
                worst = f"max abs diff {np.nanmax(d) if d.size else 0:.3g}"
        if not ok:
            rep.add(
                pre + "values",
                key,
                dt,
                desc,
                f"{where}: {worst}; ours {u.ravel()[:4]} torch {v.ravel()[:4]}",
            )
            return False
    return True


def describe(s: Any) -> str:
    def d(a: Any) -> str:
        if isinstance(a, torch.Tensor):
            nc = "" if a.is_contiguous() else f"/s{a.stride()}"
            return f"T{tuple(a.shape)}{nc}"
        if isinstance(a, (list, tuple)):
            return "[" + ",".join(d(x) for x in a) + "]"
        return repr(a)[:30]

    kw = ",".join(f"{k}={d(v)}" for k, v in s.kwargs.items())
    return f"{d(s.input)} {d(list(s.args))} {kw}"


def tensors_with_grad(a: Any) -> Iterator[torch.Tensor]:
    if isinstance(a, torch.Tensor):
        if a.requires_grad:
            yield a
    elif isinstance(a, (list, tuple)):
        for x in a:
            yield from tensors_with_grad(x)
    elif isinstance(a, dict):
        for x in a.values():
            yield from tensors_with_grad(x)


# ------------------------------------------------------------------ runs
def _missing(e: BaseException) -> bool:
    """Whether tensorcore lacks the function or method called (not an internal failure)."""
    text = str(e)
    return isinstance(e, _Missing) or (
        isinstance(e, AttributeError)
        and ("module 'tensorcore" in text or "'Tensor' object has no attribute" in text)
    )


def _random_sample(name: str, s: Any) -> bool:
    """Whether the sample asks for dropout (its values are random)."""
    if s.kwargs.get("dropout_p") or (s.kwargs.get("training") and "attention" in name):
        return True
    return bool(s.kwargs.get("training") and name.endswith("dropout"))


def run_op(rep: Report, op: Any, dtypes: list[str], max_samples: int, modes: set[str]) -> None:
    key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
    try:
        fn = counterpart(op.op)
    except _Missing as e:
        # (PyTorch's builtin may have another name than the function: F.logsigmoid is
        # torch._C._nn.log_sigmoid)
        try:
            fn = _tc_path(op.name)
        except _Missing:
            rep.missing[key] = str(e)
            return
    shape_only = any(fnmatch.fnmatchcase(op.name, p) for p in UNDETERMINED)
    supported = op.supported_dtypes("cpu")
    backward_dtypes = op.supported_backward_dtypes("cpu")
    variants = {"forward": (op.op, fn)}
    for mode, theirs in (("method", op.method_variant), ("inplace", op.inplace_variant)):
        if mode in modes and theirs is not None:
            try:
                variants[mode] = (theirs, counterpart(theirs))
            except _Missing as e:
                rep.missing[f"{key} ({mode})"] = str(e)
    if "out" in modes and op.supports_out:
        variants["out"] = (op.op, fn)
    for dname in dtypes:
        dt = getattr(torch, dname)
        if dt not in supported:
            continue
        for mode, (theirs, ours) in variants.items():
            if mode in modes:
                forward(rep, op, theirs, ours, key, dname, dt, max_samples, shape_only, mode)
        if (
            "grad" in modes
            and dname in ("float64", "complex128")
            and op.supports_autograd
            and dt in backward_dtypes
            and not shape_only
        ):
            backward(rep, op, fn, key, dname, dt, max_samples)
    if "errors" in modes:
        errors(rep, op, fn, key)


def _samples(op: Any, dt: Any, n: int, requires_grad: bool) -> list[Any]:
    """The OpInfo's first ``n`` sample inputs, then the first ``n`` of its reference inputs
    beyond them (PyTorch's larger set of edge cases, where the OpInfo has one)."""
    torch.manual_seed(0)
    samples, err = attempt(lambda: list(op.sample_inputs("cpu", dt, requires_grad=requires_grad)))
    if err is not None:
        return []
    if op.reference_inputs_func is None or requires_grad:
        return samples[:n]
    torch.manual_seed(0)
    refs, err = attempt(lambda: list(op.reference_inputs("cpu", dt, requires_grad=False)))
    return samples[:n] + (refs[len(samples) :][:n] if err is None else [])


def _outs_like(res: Any, lib: Any) -> Any:
    """Empty tensors of ``res``'s dtypes and shapes (a tuple for several), for ``out=``."""
    if isinstance(res, (tuple, list)):
        return tuple(_outs_like(r, lib) for r in res)
    return lib.empty(tuple(res.shape), dtype=res.dtype)


def forward(
    rep: Report,
    op: Any,
    theirs: Any,
    fn: Any,
    key: str,
    dname: str,
    dt: Any,
    n: int,
    shape_only: bool,
    mode: str = "forward",
) -> None:
    """Call the variant ``mode`` on the samples with both libraries and compare: the function
    (``forward``), the method, the in-place method (``self`` is a copy, its result compared)
    or the function with ``out=`` tensors made like PyTorch's result."""
    pre = "" if mode == "forward" else mode + "-"
    samples = _samples(op, dt, n, False)
    for s in samples:
        desc = describe(s)
        memo: dict[int, Any] = {}
        converted = convert_sample(s, memo)
        if converted is None:
            continue
        args, kwargs = converted
        targs, tkwargs = (s.input, *s.args), dict(s.kwargs)
        if mode == "inplace":
            targs = (s.input.clone(), *s.args)
            # (the same self on both sides: a clone, dense where the sample was expanded)
            args = (args[0].clone(), *args[1:]) if isinstance(args[0], tc.Tensor) else args
        if mode == "out":
            torch.manual_seed(0)
            plain, terr = attempt(lambda: theirs(*targs, **tkwargs))
            if terr is not None or not all(isinstance(r, torch.Tensor) for r in flatten(plain)):
                continue
            tkwargs["out"] = _outs_like(plain, torch)
            kwargs = {**kwargs, "out": convert(_outs_like(plain, torch), {})}
        torch.manual_seed(0)
        want, terr = attempt(lambda: theirs(*targs, **tkwargs))
        tc.manual_seed(0)
        got, oerr = attempt(lambda: fn(*args, **kwargs))
        random = shape_only or _random_sample(op.name, s)
        if terr is not None and oerr is not None:
            rep.ok += 1
            continue
        if oerr is not None:
            kind = "missing" if _missing(oerr) else pre + "tc-raises"
            rep.add(kind, key, dname, desc, f"{type(oerr).__name__}: {oerr}")
            continue
        if terr is not None:
            rep.add(pre + "torch-raises", key, dname, desc, f"{type(terr).__name__}: {terr}")
            continue
        # (what an out= call returns must be the out tensors; nothing where PyTorch's returns
        # nothing, as its list-filling ``unbind_copy.out`` does)
        if mode == "out" and (
            (got is not None)
            if want is None
            else not all(a is b for a, b in zip(flatten(got), flatten(kwargs["out"]), strict=False))
        ):
            rep.add(pre + "structure", key, dname, desc, "the result is not out")
            continue
        if compare(rep, key, dname, desc, got, want, random, pre):
            rep.ok += 1
        if mode == "out" and s is samples[0]:
            out_dtype_rule(rep, theirs, fn, key, dname, desc, targs, tkwargs, args, kwargs)


#: For ``out=`` of another dtype than the result's: a wider one, and one it cannot cast to.
_OTHER_DTYPE = {"float32": "float64", "float64": "float32", "int64": "float32", "bool": "int64"}


def out_dtype_rule(
    rep: Report,
    theirs: Any,
    fn: Any,
    key: str,
    dname: str,
    desc: str,
    targs: tuple[Any, ...],
    tkwargs: dict[str, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """Whether both libraries take (or both refuse) ``out=`` tensors of another dtype than
    the result's (PyTorch's operators differ: castable, or the result's own dtype only)."""
    other = _OTHER_DTYPE.get(dname)
    if other is None:
        return
    odt = getattr(torch, other)

    def outs(lib: Any, like: Any, dtype: Any) -> Any:
        if isinstance(like, tuple):
            # (the first output takes the other dtype; indices keep theirs)
            return (outs(lib, like[0], dtype), *(outs(lib, x, None) for x in like[1:]))
        keep = like.dtype if lib is torch else convert(like.dtype, {})
        return lib.empty(0, dtype=dtype if dtype is not None else keep)

    tout = tkwargs["out"]
    t_other = outs(torch, tout, odt)
    o_other = outs(tc, tout, convert(odt, {}))
    torch.manual_seed(0)
    _, terr = attempt(lambda: theirs(*targs, **{**tkwargs, "out": t_other}))
    tc.manual_seed(0)
    _, oerr = attempt(lambda: fn(*args, **{**kwargs, "out": o_other}))
    if (terr is None) != (oerr is None):
        why = f"torch {type(terr).__name__}: {terr}" if terr else f"ours {oerr!r}"
        rep.add("out-dtype-rule", key, dname, f"out {other}; {desc}", why)
    else:
        rep.ok += 1


def backward(rep: Report, op: Any, fn: Any, key: str, dname: str, dt: Any, n: int) -> None:
    for s in _samples(op, dt, n, True):
        desc = describe(s)
        ins = list(tensors_with_grad((s.input, s.args, s.kwargs)))
        if not ins or _random_sample(op.name, s):
            continue
        memo: dict[int, Any] = {}
        converted = convert_sample(s, memo, grad=True)
        if converted is None:
            continue
        args, kwargs = converted
        want, terr = attempt(lambda: op.op(s.input, *s.args, **s.kwargs))
        if terr is not None:
            continue
        touts = [
            y
            for y in flatten(want)
            if isinstance(y, torch.Tensor)
            and y.requires_grad
            and (y.dtype.is_floating_point or y.dtype.is_complex)
        ]
        if not touts:
            continue
        gen = torch.Generator().manual_seed(1)
        cots = [torch.randn(y.shape, dtype=y.dtype, generator=gen) for y in touts]
        tgrads, terr = attempt(lambda: torch.autograd.grad(touts, ins, cots, allow_unused=True))
        if terr is not None:
            continue
        got, oerr = attempt(lambda: fn(*args, **kwargs))
        if oerr is not None:
            continue  # (reported by the forward run)
        pos = [i for i, y in enumerate(flatten(want)) if any(y is t for t in touts)]
        flat = flatten(got)
        try:
            oouts = [flat[i] for i in pos]
        except IndexError:
            continue
        if not all(isinstance(o, tc.Tensor) and o.requires_grad for o in oouts):
            rep.add("grad-structure", key, dname, desc, "an output does not require grad")
            continue
        oins = [memo[id(t)] for t in ins]
        ocots = [convert(c, {}) for c in cots]
        ograds, oerr = attempt(lambda: tc.autograd.grad(oouts, oins, ocots, allow_unused=True))
        if oerr is not None:
            rep.add("grad-raises", key, dname, desc, f"{type(oerr).__name__}: {oerr}")
            continue
        if compare(rep, key, dname, desc, list(ograds), list(tgrads), False, "grad-"):
            rep.ok += 1


def errors(rep: Report, op: Any, fn: Any, key: str) -> None:
    torch.manual_seed(0)
    einputs, err = attempt(lambda: list(op.error_inputs("cpu")))
    if err is not None:
        return
    for ei in einputs:
        s = ei.sample_input
        desc = describe(s)
        memo: dict[int, Any] = {}
        converted = convert_sample(s, memo)
        if converted is None:
            continue
        args, kwargs = converted
        _, terr = attempt(lambda: op.op(s.input, *s.args, **s.kwargs))
        if terr is None:
            continue  # (not an error in this build)
        _, oerr = attempt(lambda: fn(*args, **kwargs))
        if oerr is None:
            rep.add("error-noraise", key, "-", desc, f"torch: {type(terr).__name__}: {terr}")
        elif _missing(oerr):
            rep.add("missing", key, "-", desc, f"{type(oerr).__name__}: {oerr}")
        elif not isinstance(oerr, base_exception(terr)):
            rep.add(
                "error-type",
                key,
                "-",
                desc,
                f"ours {type(oerr).__name__}: {oerr}; torch {type(terr).__name__}: {terr}",
            )
        else:
            rep.ok += 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ops", help="comma-separated globs of OpInfo names (name.variant)")
    p.add_argument("--skip", help="comma-separated globs of OpInfo names to leave out")
    p.add_argument("--dtypes", default=",".join(DTYPES))
    p.add_argument("--modes", default="forward,grad,errors," + ",".join(VARIANTS))
    p.add_argument("--max-samples", type=int, default=20)
    p.add_argument("--out", default="diff_torch_opinfo.tsv")
    p.add_argument("-v", "--verbose", action="store_true")
    ns = p.parse_args(argv)
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

    globs = ns.ops.split(",") if ns.ops else ["*"]
    skips = ns.skip.split(",") if ns.skip else []
    rep = Report()
    for op in op_db:
        key = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        if not any(fnmatch.fnmatchcase(key, g) or fnmatch.fnmatchcase(op.name, g) for g in globs):
            continue
        if any(fnmatch.fnmatchcase(key, g) for g in skips):
            continue
        start = time.perf_counter()
        try:
            run_op(rep, op, ns.dtypes.split(","), ns.max_samples, set(ns.modes.split(",")))
        except Exception as e:  # noqa: BLE001 - the tool's own failure, reported
            rep.add("harness", key, "-", "-", f"{type(e).__name__}: {e}")
        if ns.verbose:
            print(f"{time.perf_counter() - start:6.1f}s {key}", file=sys.stderr, flush=True)
    kinds = collections.Counter(i[0] for i in rep.items)
    print(f"ok {rep.ok}; mismatches {dict(sorted(kinds.items()))}; expected {len(rep.expected)}")
    print(f"no counterpart ({len(rep.missing)}): {', '.join(sorted(rep.missing))}")
    reasons = collections.Counter(
        (kind_reason[0][1], kind_reason[1][:60]) for kind_reason in rep.expected
    )
    for (name, reason), count in sorted(reasons.items()):
        print(f"  expected x{count:<4} {name:36} {reason}")
    byop: dict[tuple[str, str], list[tuple[str, str, str, str, str]]] = collections.defaultdict(
        list
    )
    for it in rep.items:
        byop[(it[0], it[1])].append(it)
    for (kind, name), its in sorted(byop.items()):
        first = its[0]
        print(
            f"  {kind:14} {name:40} x{len(its):<3} {first[2]}: {first[4][:150]} [{first[3][:60]}]"
        )
    with open(ns.out, "w") as f:
        for it in rep.items:
            f.write("\t".join(it) + "\n")
        for it, reason in rep.expected:
            f.write("\t".join((*it, "EXPECTED: " + reason)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
