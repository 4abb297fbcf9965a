"""Differential runs of tensorcore against PyTorch: a developer tool, run by hand.

For every operator of the core's table (``tensorcore.ops.schema.OPS``), every sample of
``tensorcore.testing.samples.SAMPLES`` and several dtypes, call the operator in tensorcore and
PyTorch's function of the same name (``torch.<name>``, ``torch.nn.functional``,
``torch.linalg``/``fft``/``special`` or the ``Tensor`` method) on the same inputs (same values,
dtypes, shapes and strides) and compare: result dtypes, shapes and values, the mutated inputs of
in-place operators, every output of a multi-output operator, and whether both raise (the same
builtin exception type) or neither does. ``--mode grad`` compares ``torch.autograd.grad`` with
``tc.autograd.grad`` (float64 samples, same ``grad_outputs``); ``--mode probes`` runs the
pointwise operators on every dtype, every pair of dtypes, Python scalars and 0-d tensors (type
promotion, which the samples do not cover). A summary of the mismatches by kind is printed; the
details go to ``--out``.

PyTorch is the oracle of this tool only: the package and its tests never import it. Differences
that are known and deliberate are listed in :data:`EXPECTED`, with the reason.

Kinds of mismatch: ``dtype``, ``shape``, ``values``, ``strides`` (views), ``structure`` (number
or kind of outputs), ``raises-only-tc``/``raises-only-torch`` (one library raises),
``exception-type`` (both raise, of unrelated builtin types; NotImplementedError counts as the
RuntimeError it derives from), ``accepts-scalar`` (tensorcore takes a Python number where
PyTorch's overloads take tensors only: a superset, PyTorch programs are unaffected), and their
``grad-`` forms in ``--mode grad``.

Usage::

    python3 tools/diff_torch.py                     # every mode
    python3 tools/diff_torch.py --mode forward --ops add,mul --dtypes float32 -v
"""

# The closures made in loops are called in the same iteration:
# ruff: noqa: B023

from __future__ import annotations

import argparse
import collections
import fnmatch
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - a developer tool
    sys.exit("diff_torch.py needs PyTorch (pip install torch): it is the oracle it compares to")

import tensorcore as tc
from tensorcore.dispatch import get_op
from tensorcore.ops.schema import OPS
from tensorcore.testing.samples import (
    SAMPLES,
    Sample,
    call_op,
    core_ops,
    inplace_only,
    split_leaves,
)

DTYPES = ("float32", "float64", "int64", "bool", "complex64", "float16", "bfloat16")
#: Every dtype both libraries have, for the promotion probes.
PROBE_DTYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
#: The Python numbers of the scalar probes: the four kinds, then values that overflow small
#: integer dtypes, and the special floats.
SCALARS = (2, 2.5, True, 1 + 2j, 300, -1, 2**40, float("inf"), float("nan"))
#: (rtol, atol) per result dtype; exact for integers and bools.
TOLERANCE = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1e-2),
    "float32": (2e-5, 2e-5),
    "complex64": (2e-5, 2e-5),
    "float64": (1e-7, 1e-9),
    "complex128": (1e-7, 1e-9),
}

#: Operators whose PyTorch counterpart has another name or lives elsewhere.
COUNTERPART: dict[str, Callable[..., Any]] = {
    # (the piecewise activations and their gradients: torch._C._nn's and ATen's operators)
    **{
        n: getattr(torch.ops.aten, n)
        for n in (
            "leaky_relu",
            "leaky_relu_backward",
            "hardtanh",
            "hardtanh_backward",
            "hardsigmoid",
            "hardsigmoid_backward",
            "softshrink",
            "softshrink_backward",
            "hardshrink",
            "hardshrink_backward",
            "threshold",
            "_prelu_kernel",
            "_prelu_kernel_backward",
            "elu",
            "elu_backward",
            "log_sigmoid",
        )
    },
    "vector_norm": torch.linalg.vector_norm,
    "special_i1": torch.special.i1,
    "nll_loss": F.nll_loss,
    "avg_pool2d": F.avg_pool2d,
    "unfold": torch.Tensor.unfold,
    "cosine_similarity": F.cosine_similarity,
    "pdist": F.pdist,
    "real": torch.real,
    "_softmax_backward_data": lambda g, o, d: torch._softmax_backward_data(g, o, d, o.dtype),
    "_log_softmax_backward_data": lambda g, o, d: torch._log_softmax_backward_data(
        g, o, d, o.dtype
    ),
}
#: Counterparts whose parameters are in another order: called with every argument by name
#: (tensorcore's names, renamed where PyTorch's differ).
BY_NAME: dict[str, tuple[Callable[..., Any], dict[str, str]]] = {
    "nll_loss": (F.nll_loss, {"self": "input"}),
    "smooth_l1_loss": (F.smooth_l1_loss, {"self": "input"}),
    "huber_loss": (F.huber_loss, {"self": "input"}),
    "binary_cross_entropy": (F.binary_cross_entropy, {"self": "input"}),
    "binary_cross_entropy_with_logits": (F.binary_cross_entropy_with_logits, {"self": "input"}),
    "batch_norm": (F.batch_norm, {}),
}
#: Operators whose outputs are unspecified (uninitialised memory) or random: only the
#: outputs' dtypes and shapes are compared.
META_ONLY = {"empty", "empty_like", "empty_strided", "rand_like", "randn_like", "randint_like"}
#: Operators without a public PyTorch counterpart: internal ones, backward kernels.
NO_COUNTERPART = {
    "alias": "internal (a view of the whole tensor)",
    "slice": "internal (basic indexing's slice)",
    "to_device": "internal (Tensor.to's device half)",
    "to_dtype": "internal (Tensor.to's dtype half)",
    "nonzero_numpy": "internal (where(condition))",
    "avg_pool2d_backward": "backward kernel",
    "batch_norm_backward": "backward kernel",
    "convolution_backward_input": "backward kernel",
    "convolution_backward_weight": "backward kernel",
    "max_pool2d_backward": "backward kernel",
    "nll_loss_backward": "backward kernel",
    "log_sigmoid_backward": "backward kernel (PyTorch's also takes the forward's buffer)",
    "smooth_l1_loss_backward": "backward kernel (ATen's takes the reduction as an int)",
    "huber_loss_backward": "backward kernel (ATen's takes the reduction as an int)",
    "binary_cross_entropy_backward": "backward kernel (ATen's takes the reduction as an int)",
    "binary_cross_entropy_with_logits_backward": "backward function (not an ATen operator)",
    "sigmoid_backward": "backward kernel",
    "tanh_backward": "backward kernel",
    "threshold_backward": "backward kernel",
    "gelu_backward": "backward kernel",
    "_fused_sgd_": "private optimizer kernel; PyTorch's takes other arguments",
    "_fused_adam_": "private optimizer kernel; PyTorch's takes other arguments",
    "index": "internal (advanced indexing, Tensor.__getitem__)",
    "linear_backward": "backward kernel",
    "_lstm_layer": "private kernel of nn.LSTM (PyTorch's CPU layer is mkldnn_rnn_layer)",
    "_lstm_layer_backward": "backward kernel",
    "_gru_layer": "private kernel of nn.GRU (PyTorch's CPU layer runs its cell per step)",
    "_gru_layer_backward": "backward kernel",
    "layer_norm_backward": "backward kernel",
    "max_pool2d_with_indices_backward": "backward kernel",
    "_linalg_eigh": "internal (ATen's private eigh; no Python binding)",
    "_linalg_svd": "internal (ATen's private svd; no Python binding)",
    "_linalg_eig": "internal (linalg.eig/eigvals; ATen's is linalg_eig)",
}

#: Known, deliberate differences: (operator, sample description, dtype, kind) patterns
#: (fnmatch) and the reason. A mismatch matching one is counted as "expected", not reported;
#: so is a PyTorch result or error of dtype complex32 (ComplexHalf), which tensorcore does not
#: have (float16 meeting a complex number gives complex64 here).
EXPECTED: list[tuple[str, str, str, str, str]] = [
    (
        "*",
        "*",
        "*",
        "accepts-scalar",
        "a Python number where PyTorch's binding wants a Tensor (hypot, atan2, maximum, "
        "logical_and, ...) is taken as a 0-d tensor, as the array API standard (2024.12) asks "
        "of its binary functions; a program written for PyTorch never passes one",
    ),
    (
        "native_batch_norm",
        "*",
        "*16",
        "dtype",
        "the saved mean and inverse std of a half-precision input stay float32 (the backward "
        "reads them; PyTorch's CPU kernel rounds them to the input's dtype, its CUDA kernel "
        "keeps float32)",
    ),
    ("native_layer_norm", "*", "*16", "dtype", "as native_batch_norm's half-precision statistics"),
    ("native_group_norm", "*", "*16", "dtype", "as native_batch_norm's half-precision statistics"),
    (
        "native_*_norm",
        "*",
        "*",
        "grad-structure",
        "the mean and inverse std outputs are differentiable (their gradient flows into the "
        "input's), where PyTorch's are not: gradcheck and forward AD hold for every output",
    ),
    (
        "native_batch_norm",
        "eval",
        "*",
        "grad-forward-raises",
        "running statistics that require grad are read as constants in eval mode, where "
        "PyTorch refuses them",
    ),
    (
        "hardsigmoid_backward",
        "*",
        "*",
        "grad-raises",
        "PyTorch leaves hardsigmoid_backward's derivative unimplemented; ours is the exact one "
        "(linear in grad_output, a zero that flows in self), as its siblings' are",
    ),
    (
        "*",
        "complex128+float16",
        "*",
        "*",
        "no complex32 in tensorcore (docs: complex32 is no dtype)",
    ),
    (
        "*",
        "float16+complex128",
        "*",
        "*",
        "no complex32 in tensorcore (docs: complex32 is no dtype)",
    ),
    ("view_as_complex", "*", "float16", "raises-only-tc", "no complex32 in tensorcore"),
    ("complex", "*", "float16", "raises-only-tc", "no complex32 in tensorcore"),
    ("polar", "*", "float16", "exception-type", "no complex32 in tensorcore"),
    ("kron", "transposed", "*", "*raises*", "PyTorch bug: kron of a transposed input calls view"),
    ("ldexp", "integer exponents", "*", "grad-values", "PyTorch bug: 2**other in integers"),
    ("topk", "*", "int64", "values", "ties (integer samples): the order of equal values' indices"),
    ("kthvalue", "*", "int64", "values", "ties (integer samples): which equal value's index"),
    ("linalg_eigh", "*", "bool", "values", "bool samples give a degenerate spectrum"),
    ("nll_loss", "weight", "*", "grad-forward-raises", "PyTorch refuses a weight needing grad"),
    (
        "binary_cross_entropy",
        "weight",
        "*",
        "grad-forward-raises",
        "PyTorch refuses a weight needing grad",
    ),
    (
        "binary_cross_entropy_with_logits",
        "weight",
        "*",
        "grad-forward-raises",
        "PyTorch refuses a weight needing grad",
    ),
    ("batch_norm", "*", "*", "grad-forward-raises", "PyTorch refuses running stats needing grad"),
    ("linalg_lstsq", "*", "*", "grad-structure", "tensorcore differentiates singular_values too"),
    (
        "linalg_lu*",
        "no pivoting",
        "*",
        "raises-only-torch",
        "tensorcore factors without pivots on CPU too",
    ),
    (
        "linalg_lu*",
        "no pivoting",
        "*",
        "grad-forward-raises",
        "tensorcore factors without pivots on CPU too",
    ),
    ("lu_unpack", "*", "*", "grad-structure", "P records a node (its gradient is always zero)"),
    ("*matrix_exp", "*", "float16", "values", "PyTorch's half matrix_exp overflows (inf/nan)"),
    ("*matrix_exp", "*", "bfloat16", "values", "PyTorch's bfloat16 matrix_exp overflows (inf/nan)"),
    ("add", "python float inf", "complex*", "values", "PyTorch: inf * (1+0j) alpha gives NaN imag"),
    ("sub", "python float inf", "complex*", "values", "PyTorch: inf * (1+0j) alpha gives NaN imag"),
    ("__rtruediv__", "complex", "bfloat16", "values", "PyTorch rounds the complex scalar"),
    (
        "ldexp",
        "*",
        "*+bool",
        "raises-only-torch",
        "PyTorch quirk: a bool exponent fails only with a float self",
    ),
    (
        "*_window",
        "*",
        "complex*",
        "*",
        "PyTorch bug: complex windows fail in arange_cpu (length 1 passes)",
    ),
    (
        "stft",
        "*",
        "bool",
        "exception-type",
        "PyTorch pads (reflection_pad1d) before its dtype check",
    ),
    (
        "stft",
        "aligned to the hops",
        "*",
        "*raises*",
        "PyTorch bug: align_to_window frames overrun (setStorage)",
    ),
    ("istft", "*", "*", "values", "complex64 input: float32 FFT rounding differs (float64 result)"),
    (
        "pow",
        "python bool True",
        "bool",
        "raises-only-tc",
        "PyTorch: an exponent of 1 copies, skipping its dtype check",
    ),
    (
        "chain_matmul",
        "*",
        "bool",
        "raises-only-tc",
        "PyTorch returns one matrix as it is, unchecked",
    ),
    (
        "inner",
        "0-d",
        "bool",
        "raises-only-tc",
        "PyTorch: inner of a 0-d operand is mul, without matmul's check",
    ),
    (
        "searchsorted",
        "number",
        "bool",
        "raises-only-tc",
        "PyTorch: a number promotes a bool sequence (tensors refuse)",
    ),
    (
        "as_strided_scatter",
        "*",
        "*",
        "grad-values",
        "PyTorch bug: its grad of self keeps the slice and zeroes the rest (fails gradcheck)",
    ),
]


@dataclass
class Mismatch:
    kind: str
    op: str
    dtype: str
    sample: str
    detail: str


class Report:
    def __init__(self) -> None:
        self.items: list[Mismatch] = []
        self.expected: list[tuple[Mismatch, str]] = []
        self.calls = 0
        self.no_counterpart: dict[str, str] = {}
        self.skipped: list[tuple[str, str]] = []

    def add(self, kind: str, op: str, dtype: str, sample: str, detail: str) -> None:
        m = Mismatch(kind, op, dtype, sample, detail.replace("\n", " ")[:400])
        for pop, pdesc, pdt, pkind, reason in EXPECTED:
            if (
                (
                    fnmatch.fnmatchcase(op, pop)
                    and fnmatch.fnmatchcase(sample, f"*{pdesc}*" if pdesc != "*" else "*")
                    and fnmatch.fnmatchcase(dtype, pdt)
                    and fnmatch.fnmatchcase(kind, pkind)
                )
                or "complex32" in m.detail
                or "ComplexHalf" in m.detail
            ):
                self.expected.append((m, reason))
                return
        self.items.append(m)


# ------------------------------------------------------------------ conversions
def torch_dtype(d: tc.dtype) -> torch.dtype:
    return getattr(torch, d.name)


def tensor_to_torch(t: tc.Tensor) -> torch.Tensor:
    """A PyTorch copy of ``t``: same values, dtype, shape and strides (and overlap)."""
    arr = t.detach().cpu().numpy()
    if arr.dtype.name == "bfloat16":
        arr = arr.view(np.uint16)
    try:
        x = torch.from_numpy(arr)
    except ValueError:  # negative strides
        x = torch.from_numpy(arr.copy())
    if t.dtype == tc.bfloat16:
        x = x.view(torch.bfloat16)
    if x.numel() == 0:
        return torch.empty_strided(tuple(x.shape), x.stride(), dtype=x.dtype)
    span = 1 + sum((n - 1) * s for n, s in zip(x.shape, x.stride(), strict=True))
    base = torch.as_strided(x, (span,), (1,)).clone()
    return base.as_strided(tuple(x.shape), x.stride())


def to_torch(a: Any, memo: dict[int, Any]) -> Any:
    if isinstance(a, tc.Tensor):
        if id(a) not in memo:
            memo[id(a)] = tensor_to_torch(a)
        return memo[id(a)]
    if isinstance(a, tc.dtype):
        return torch_dtype(a)
    if isinstance(a, tc.device):
        return torch.device("cpu")
    if isinstance(a, tc.Generator):
        return torch.Generator().manual_seed(0)
    if isinstance(a, list):
        return [to_torch(x, memo) for x in a]
    if isinstance(a, tuple):
        return tuple(to_torch(x, memo) for x in a)
    if isinstance(a, dict):
        return {k: to_torch(v, memo) for k, v in a.items()}
    if a is tc.channels_last:
        return torch.channels_last
    if a is tc.contiguous_format:
        return torch.contiguous_format
    return a


def tc_numpy(t: tc.Tensor) -> np.ndarray:
    t = t.detach().cpu()
    if t.dtype == tc.bfloat16:
        t = t.float()
    return t.numpy()


def torch_numpy(x: torch.Tensor) -> np.ndarray:
    x = x.detach().cpu().resolve_conj().resolve_neg()
    if x.dtype == torch.bfloat16:
        x = x.float()
    # (force: some gradients are PyTorch's ZeroTensors, which refuse a plain numpy())
    return x.numpy(force=True)


def torch_to_tc(x: Any, like: Any) -> Any:
    """Turns PyTorch results into tensorcore's, shaped like ``like`` (for a sample's
    invariant)."""
    if isinstance(x, torch.Tensor):
        out = tc.from_numpy(np.ascontiguousarray(torch_numpy(x)))
        return out.to(like.dtype) if isinstance(like, tc.Tensor) else out
    if isinstance(x, (tuple, list)) and isinstance(like, (tuple, list)):
        items = [torch_to_tc(a, b) for a, b in zip(x, like, strict=False)]
        if hasattr(like, "_fields"):
            return type(like)(*items)
        return type(like)(items)
    return x


def scalar_refused(e: BaseException | None) -> bool:
    """Whether PyTorch refused a Python scalar where its overloads take tensors only."""
    return isinstance(e, TypeError) and "must be Tensor, not" in str(e)


def base_exception(e: BaseException) -> type:
    for cls in type(e).__mro__:
        if cls.__module__ == "builtins":
            return cls
    return type(e)


# ------------------------------------------------------------------ calling
def counterpart(name: str) -> Callable[..., Any] | None:
    """PyTorch's function for operator ``name`` (the Tensor method for method-only ones).

    Where the function refuses the call form with a ``TypeError`` (``torch.permute(x, 1, 0)``)
    the ``Tensor`` method gets a second try.
    """
    if name in BY_NAME:
        fn, rename = BY_NAME[name]
        names = [rename.get(p.name, p.name) for p in OPS[name].parsed.params]

        def by_name(*args: Any, **kwargs: Any) -> Any:
            return fn(**dict(zip(names, args, strict=False)), **kwargs)

        return by_name
    found = _counterpart(name)
    meth = getattr(torch.Tensor, name, None)
    if found is None or found is meth or not callable(meth):
        return found

    def with_method(*args: Any, **kwargs: Any) -> Any:
        try:
            return found(*args, **kwargs)
        except TypeError:
            if not args or not isinstance(args[0], torch.Tensor):
                raise
            return meth(*args, **kwargs)

    return with_method


def _counterpart(name: str) -> Callable[..., Any] | None:
    if name in COUNTERPART:
        return COUNTERPART[name]
    decl = OPS[name]
    if name.startswith("linalg_"):
        return getattr(torch.linalg, name.removeprefix("linalg_"), None)
    if name in ("max_dim", "min_dim"):
        return getattr(torch, name.removesuffix("_dim"))
    if name.startswith("special_") and hasattr(torch.special, name.removeprefix("special_")):
        return getattr(torch.special, name.removeprefix("special_"))  # (torch.special.zeta)
    if decl.function:
        for mod in (torch, F, torch.linalg, torch.fft, torch.special):
            fn = getattr(mod, name, None)
            if callable(fn):
                return fn
    if decl.method or decl.function:
        meth = getattr(torch.Tensor, name, None)
        if callable(meth):
            return meth
    return None


def call_tc(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Operator ``name`` through the public API where it has one (which records autograd)."""
    if name.startswith("linalg_"):
        return getattr(tc.linalg, name.removeprefix("linalg_"))(*args, **kwargs)
    if name in ("max_dim", "min_dim"):
        return getattr(tc, name.removesuffix("_dim"))(*args, **kwargs)
    return call_op(name, Sample(args, kwargs))


def attempt(fn: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - every failure is data here
        return None, e


def flatten(res: Any) -> list[Any]:
    if isinstance(res, (tuple, list)):
        return list(res)
    return [res]


def compare_values(
    rep: Report,
    op: str,
    dtype: str,
    desc: str,
    a: Any,
    b: Any,
    where: str,
    strides: bool,
    prefix: str = "",
) -> None:
    """Compare one tensorcore result ``a`` with PyTorch's ``b``."""
    if isinstance(a, tc.Tensor) != isinstance(b, torch.Tensor):
        rep.add(
            prefix + "structure",
            op,
            dtype,
            desc,
            f"{where}: {type(a).__name__} vs {type(b).__name__}",
        )
        return
    if not isinstance(a, tc.Tensor):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            if len(a) != len(b):
                rep.add(
                    prefix + "structure", op, dtype, desc, f"{where}: {len(a)} vs {len(b)} items"
                )
                return
            for k, (x, y) in enumerate(zip(a, b, strict=True)):
                compare_values(rep, op, dtype, desc, x, y, f"{where}[{k}]", strides, prefix)
            return
        try:
            same = a == b or bool(np.allclose(a, b, equal_nan=True))
        except Exception:  # noqa: BLE001
            same = False
        if not same:
            rep.add(prefix + "values", op, dtype, desc, f"{where}: {a!r} vs {b!r}")
        return
    if a.dtype.name != str(b.dtype).removeprefix("torch."):
        rep.add(prefix + "dtype", op, dtype, desc, f"{where}: {a.dtype.name} vs {b.dtype}")
        return
    if tuple(a.shape) != tuple(b.shape):
        rep.add(prefix + "shape", op, dtype, desc, f"{where}: {tuple(a.shape)} vs {tuple(b.shape)}")
        return
    x, y = tc_numpy(a), torch_numpy(b)
    if x.dtype.kind in "biu" or x.dtype == bool:
        ok = np.array_equal(x, y)
        worst = "" if ok else f"{int((x != y).sum())} of {x.size} differ"
    else:
        rtol, atol = TOLERANCE.get(a.dtype.name, (1e-7, 1e-9))
        ok = np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
        with np.errstate(all="ignore"):
            diff = np.abs(x.astype(np.complex128) - y.astype(np.complex128))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (an all-NaN difference)
            worst = "" if ok else f"max abs diff {np.nanmax(diff) if diff.size else 0:.3g}"
    if not ok:
        rep.add(
            prefix + "values",
            op,
            dtype,
            desc,
            f"{where}: {worst}; ours {x.ravel()[:4]} torch {y.ravel()[:4]}",
        )
    elif strides and a.numel() > 1 and tuple(a.stride()) != tuple(b.stride()):
        rep.add(
            prefix + "strides", op, dtype, desc, f"{where}: {tuple(a.stride())} vs {b.stride()}"
        )


def run_pair(
    rep: Report,
    op: str,
    dtype: str,
    desc: str,
    tc_call: Callable[[], Any],
    torch_call: Callable[[], Any],
    inputs: list[tuple[tc.Tensor, torch.Tensor]],
    *,
    random: bool = False,
    strides: bool = False,
    invariant: Callable[[Any], Any] | None = None,
) -> None:
    """Run both calls and compare: exceptions, results, then the inputs (mutated in place)."""
    rep.calls += 1
    ours, e1 = attempt(tc_call)
    theirs, e2 = attempt(torch_call)
    if e1 is not None or e2 is not None:
        if scalar_refused(e2) and not isinstance(e1, TypeError):
            # tensorcore takes a Python scalar where PyTorch's overload takes tensors only
            rep.add("accepts-scalar", op, dtype, desc, f"ours {e1!r} | torch {e2!r}")
        elif e1 is None:
            rep.add("raises-only-torch", op, dtype, desc, f"{type(e2).__name__}: {e2}")
        elif e2 is None:
            rep.add("raises-only-tc", op, dtype, desc, f"{type(e1).__name__}: {e1}")
        elif not issubclass(base_exception(e1), base_exception(e2)):
            rep.add(
                "exception-type",
                op,
                dtype,
                desc,
                f"ours {type(e1).__name__}: {e1} | torch {type(e2).__name__}: {e2}",
            )
        return
    if invariant is not None:
        res, e = attempt(lambda: (invariant(ours), invariant(torch_to_tc(theirs, ours))))
        if e is not None:
            rep.add("tool-error", op, dtype, desc, f"invariant: {e!r}")
            return
        ours, theirs_tc = res
        a_list, b_list = flatten(ours), flatten(theirs_tc)
        for k, (a, b) in enumerate(zip(a_list, b_list, strict=False)):
            if isinstance(a, tc.Tensor) and isinstance(b, tc.Tensor):
                compare_values(rep, op, dtype, desc, a, tensor_to_torch(b), f"inv[{k}]", False)
        return
    if random:
        for k, (a, b) in enumerate(zip(flatten(ours), flatten(theirs), strict=False)):
            if (
                isinstance(a, tc.Tensor)
                and isinstance(b, torch.Tensor)
                and (a.dtype.name != str(b.dtype)[6:] or tuple(a.shape) != tuple(b.shape))
            ):
                rep.add(
                    "random-meta",
                    op,
                    dtype,
                    desc,
                    f"out[{k}]: {a.dtype.name}{tuple(a.shape)} vs {b.dtype}{tuple(b.shape)}",
                )
        return
    a_list, b_list = flatten(ours), flatten(theirs)
    seq = isinstance(ours, (tuple, list)) or isinstance(theirs, (tuple, list))
    if seq and len(a_list) != len(b_list):
        rep.add("structure", op, dtype, desc, f"{len(a_list)} vs {len(b_list)} outputs")
        return
    for k, (a, b) in enumerate(zip(a_list, b_list, strict=True)):
        compare_values(rep, op, dtype, desc, a, b, f"out[{k}]", strides)
    for k, (a, b) in enumerate(inputs):
        compare_values(rep, op, dtype, desc, a, b, f"input[{k}] after the call", False)


def sample_inputs(s: Sample) -> list[tc.Tensor]:
    out: list[tc.Tensor] = []

    def walk(a: Any) -> None:
        if isinstance(a, tc.Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)

    walk(s.args)
    walk(tuple(s.kwargs.values()))
    return out


def has_generator(s: Sample) -> bool:
    return any(isinstance(a, tc.Generator) for a in (*s.args, *s.kwargs.values()))


# ------------------------------------------------------------------ modes
def selected_ops(only: list[str] | None) -> list[str]:
    names = list(core_ops())
    return [n for n in names if not only or any(fnmatch.fnmatchcase(n, p) for p in only)]


def forward_mode(
    rep: Report,
    ops: list[str],
    dtypes: list[str],
    variant: Callable[[Sample], Sample | None] | None = None,
) -> None:
    """Every sample of every operator in ``ops`` and ``dtypes``; ``variant`` (when given)
    maps each sample to another one to run instead (``None``: skip the sample)."""
    for name in ops:
        if name in NO_COUNTERPART:
            rep.no_counterpart[name] = NO_COUNTERPART[name]
            continue
        fn = counterpart(name)
        if fn is None:
            rep.no_counterpart[name] = "no torch function or Tensor method of that name"
            continue
        decl = OPS[name]
        for dname in dtypes:
            samples, e = attempt(lambda d=dname: SAMPLES[name]("cpu", getattr(tc, d)))
            if e is not None:
                rep.skipped.append((f"{name} {dname}", f"samples: {e!r}"))
                continue
            for i, s0 in enumerate(samples):
                s = variant(s0) if variant is not None else s0
                if s is None:
                    continue
                desc = f"#{i} {s!r}"
                memo: dict[int, Any] = {}
                targs, e = attempt(lambda s=s, memo=memo: to_torch(s.args, memo))
                tkwargs, e2 = attempt(lambda s=s, memo=memo: to_torch(s.kwargs, memo))
                if e is not None or e2 is not None:
                    rep.add("tool-error", name, dname, desc, f"conversion: {e or e2!r}")
                    continue
                ins = [(t, memo[id(t)]) for t in sample_inputs(s) if id(t) in memo]
                random = "random" in decl.tags or has_generator(s) or name in META_ONLY
                run_pair(
                    rep,
                    name,
                    dname,
                    desc,
                    lambda s=s: call_tc(name, s.args, s.kwargs),
                    lambda targs=targs, tkwargs=tkwargs: fn(*targs, **tkwargs),
                    ins,
                    random=random,
                    strides="view" in decl.tags,
                    invariant=s.invariant,
                )
                if decl.inplace and s.args and hasattr(torch.Tensor, name + "_") and not random:
                    inplace_sample(rep, name, dname, s)


def inplace_sample(rep: Report, name: str, dname: str, s: Sample) -> None:
    """The sample through the in-place method ``self.<name>_(...)``, on fresh copies."""
    if not isinstance(s.args[0], tc.Tensor):
        return
    args = tuple(a.clone() if isinstance(a, tc.Tensor) else a for a in s.args)
    memo: dict[int, Any] = {}
    targs, tkwargs = to_torch(args, memo), to_torch(s.kwargs, memo)
    meth = name + "_"
    run_pair(
        rep,
        meth,
        dname,
        f"#in-place {s!r}",
        lambda: getattr(args[0], meth)(*args[1:], **s.kwargs),
        lambda: getattr(targs[0], meth)(*targs[1:], **tkwargs),
        [(args[0], targs[0])],
    )


def grad_mode(rep: Report, ops: list[str]) -> None:
    for name in ops:
        decl = OPS[name]
        if not decl.differentiable or inplace_only(name) or name in NO_COUNTERPART:
            continue
        fn = counterpart(name)
        if fn is None:
            continue
        for i, s in enumerate(SAMPLES[name]("cpu", tc.float64)):
            desc = f"#{i} {s!r}"
            if s.invariant is not None:
                rep.skipped.append((f"{name} {desc}", "grad: result unique only up to a gauge"))
                continue
            rebuild, leaves = split_leaves(
                s,
                lambda a: a.dtype.is_floating_point or a.dtype.is_complex,
                lambda a: a.detach().requires_grad_(),
            )
            if not leaves:
                continue
            memo: dict[int, Any] = {}
            tleaves = [tensor_to_torch(x).requires_grad_() for x in leaves]
            tsample = rebuild(tleaves)
            targs = to_torch_keep(tsample.args, memo)
            tkwargs = to_torch_keep(tsample.kwargs, memo)
            ssample = rebuild(leaves)

            def sym(args: tuple[Any, ...], mt: Callable[[Any], Any]) -> tuple[Any, ...]:
                return tuple(
                    (a + mt(a)) * 0.5 if k in s.hermitian else a for k, a in enumerate(args)
                )

            def ours(ssample: Sample = ssample) -> Any:
                args = sym(ssample.args, lambda a: a.mT.conj())
                return call_tc(name, args, ssample.kwargs)

            def theirs(targs: Any = targs, tkwargs: Any = tkwargs) -> Any:
                args = sym(targs, lambda a: a.mT.conj())
                return fn(*args, **tkwargs)

            rep.calls += 1
            r1, e1 = attempt(ours)
            r2, e2 = attempt(theirs)
            if e1 is not None or e2 is not None:
                if scalar_refused(e2):
                    rep.add("accepts-scalar", name, "float64", desc, f"ours {e1!r} torch {e2!r}")
                elif (e1 is None) != (e2 is None):
                    rep.add(
                        "grad-forward-raises", name, "float64", desc, f"ours {e1!r} torch {e2!r}"
                    )
                continue
            o1 = [o for o in flatten(r1) if isinstance(o, tc.Tensor) and o.requires_grad]
            o2 = [o for o in flatten(r2) if isinstance(o, torch.Tensor) and o.requires_grad]
            if len(o1) != len(o2):
                rep.add("grad-structure", name, "float64", desc, f"{len(o1)} vs {len(o2)} outputs")
                continue
            rng = np.random.default_rng(0)
            gos = []
            for o in o1:
                g = rng.standard_normal(tuple(o.shape))
                if o.dtype.is_complex:
                    g = g + 1j * rng.standard_normal(tuple(o.shape))
                gos.append(np.asarray(g))
            g1, e1 = attempt(
                lambda o1=o1, gos=gos: tc.autograd.grad(
                    o1,
                    leaves,
                    [tc.from_numpy(g).to(o.dtype) for g, o in zip(gos, o1, strict=True)],
                    allow_unused=True,
                )
            )
            g2, e2 = attempt(
                lambda o2=o2, gos=gos, tleaves=tleaves: torch.autograd.grad(
                    o2,
                    tleaves,
                    [torch.from_numpy(g).to(o.dtype) for g, o in zip(gos, o2, strict=True)],
                    allow_unused=True,
                )
            )
            if e1 is not None or e2 is not None:
                if (e1 is None) != (e2 is None) or not issubclass(
                    base_exception(e1), base_exception(e2)
                ):
                    rep.add("grad-raises", name, "float64", desc, f"ours {e1!r} | torch {e2!r}")
                continue
            for k, (a, b, leaf) in enumerate(zip(g1, g2, leaves, strict=True)):
                if a is None and b is None:
                    continue
                if a is None:
                    a = tc.zeros_like(leaf)
                if b is None:
                    b = torch.zeros_like(tleaves[k])
                compare_values(rep, name, "float64", desc, a, b, f"grad[{k}]", False, "grad-")


def to_torch_keep(a: Any, memo: dict[int, Any]) -> Any:
    """``to_torch`` that leaves PyTorch tensors (the grad leaves) as they are."""
    if isinstance(a, torch.Tensor):
        return a
    if isinstance(a, list):
        return [to_torch_keep(x, memo) for x in a]
    if isinstance(a, tuple):
        return tuple(to_torch_keep(x, memo) for x in a)
    if isinstance(a, dict):
        return {k: to_torch_keep(v, memo) for k, v in a.items()}
    return to_torch(a, memo)


def probe_tensor(dname: str, shape: tuple[int, ...], values: list[float]) -> tc.Tensor:
    base = tc.tensor(values, dtype=tc.float64).reshape(shape) if shape else tc.tensor(values[0])
    return base.to(getattr(tc, dname))


def probe_calls(name: str) -> Iterator[tuple[str, str, tuple[Any, ...], bool]]:
    """(dtype label, description, arguments, in place) of the promotion probes of ``name``."""
    op = get_op(name)
    ntensors = len(op.tensor_pos)
    # tensorcore's in-place forms that PyTorch lacks (maximum_) are not compared
    inplace = OPS[name].inplace and hasattr(torch.Tensor, name + "_")
    if ntensors == 1:
        for d in PROBE_DTYPES:
            yield d, "unary", (probe_tensor(d, (3,), [0.5, 1.0, 2.0]),), False
            if inplace:
                yield d, "unary in-place", (probe_tensor(d, (3,), [0.5, 1.0, 2.0]),), True
        return
    x_vals, y_vals = [1.0, 2.0, 3.0], [2.0, 1.0, 3.0]
    for d1 in PROBE_DTYPES:
        for d2 in PROBE_DTYPES:
            label = f"{d1}+{d2}"
            yield (
                label,
                "1-d, 1-d",
                (probe_tensor(d1, (3,), x_vals), probe_tensor(d2, (3,), y_vals)),
                False,
            )
            yield (
                label,
                "0-d, 1-d",
                (probe_tensor(d1, (), x_vals), probe_tensor(d2, (3,), y_vals)),
                False,
            )
            yield (
                label,
                "1-d, 0-d",
                (probe_tensor(d1, (3,), x_vals), probe_tensor(d2, (), y_vals)),
                False,
            )
            if inplace:
                yield (
                    label,
                    "in-place 1-d, 1-d",
                    (probe_tensor(d1, (3,), x_vals), probe_tensor(d2, (3,), y_vals)),
                    True,
                )
        for scalar in SCALARS:
            yield (
                d1,
                f"python {type(scalar).__name__} {scalar!r}",
                (probe_tensor(d1, (3,), x_vals), scalar),
                False,
            )
            if inplace:
                yield (
                    d1,
                    f"in-place python {type(scalar).__name__} {scalar!r}",
                    (probe_tensor(d1, (3,), x_vals), scalar),
                    True,
                )


def probes_mode(rep: Report, ops: list[str]) -> None:
    for name in ops:
        decl = OPS[name]
        if "pointwise" not in decl.tags or name in NO_COUNTERPART or not decl.function:
            continue
        if len(get_op(name).tensor_pos) not in (1, 2) or decl.masks:
            continue
        fn = counterpart(name)
        if fn is None:
            continue
        for label, desc, args, inplace in probe_calls(name):
            memo: dict[int, Any] = {}
            targs = to_torch(args, memo)
            ins = [(a, memo[id(a)]) for a in args if isinstance(a, tc.Tensor)]
            if inplace:
                tc_call = lambda args=args: getattr(args[0], name + "_")(*args[1:])  # noqa: E731
                torch_call = lambda targs=targs: getattr(targs[0], name + "_")(*targs[1:])  # noqa: E731
            else:
                tc_call = lambda args=args: getattr(tc, name)(*args)  # noqa: E731
                torch_call = lambda targs=targs: fn(*targs)  # noqa: E731
            run_pair(rep, name, label, f"probe {desc}", tc_call, torch_call, ins)


#: Python operators whose reflected form runs with a number on the left (``2 - t``).
REFLECTED = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor")
#: Reductions probed on every dtype, with and without ``dtype=``.
REDUCTIONS = ("sum", "prod", "mean", "nansum", "cumsum", "cumprod", "amax", "amin", "std", "var")


def extra_probes(rep: Report, only: list[str] | None) -> None:
    """Python operators with a number on the left, ``where`` with mixed dtypes and numbers,
    and reductions on every dtype (``sum`` of int8 is int64, ``mean`` of int64 raises)."""

    def wanted(name: str) -> bool:
        return not only or any(fnmatch.fnmatchcase(name, p) for p in only)

    x_vals = [1.0, 2.0, 3.0]
    for op in REFLECTED:
        if not wanted(op) and not wanted(f"__r{op}__"):
            continue
        dunder = f"__r{op}__"
        for d in PROBE_DTYPES:
            for scalar in (2, 2.5, True, 1 + 2j):
                a = probe_tensor(d, (3,), x_vals)
                b = tensor_to_torch(a)
                run_pair(
                    rep,
                    dunder,
                    d,
                    f"probe {type(scalar).__name__} {dunder[2:-2]} tensor",
                    lambda a=a, scalar=scalar: getattr(a, dunder)(scalar),
                    lambda b=b, scalar=scalar: getattr(b, dunder)(scalar),
                    [(a, b)],
                )
    # out= of every dtype, for the binary pointwise operators (PyTorch casts the result into
    # it where it can, and refuses a float result into an integer out=)
    for name in core_ops():
        decl = OPS[name]
        if not wanted(name) or "pointwise" not in decl.tags or not decl.out:
            continue
        if len(get_op(name).tensor_pos) != 2 or decl.masks or name in NO_COUNTERPART:
            continue
        fn = counterpart(name)
        if fn is None:
            continue
        for d_in in ("int64", "float32", "bool"):
            for d_out in PROBE_DTYPES:
                a, b = probe_tensor(d_in, (3,), x_vals), probe_tensor(d_in, (3,), [2.0, 1.0, 3.0])
                o = probe_tensor(d_out, (3,), [0.0, 0.0, 0.0])
                memo: dict[int, Any] = {}
                ta, tb, to = to_torch((a, b, o), memo)
                run_pair(
                    rep,
                    name,
                    f"{d_in}->{d_out}",
                    "probe out=",
                    lambda a=a, b=b, o=o: getattr(tc, name)(a, b, out=o),
                    lambda ta=ta, tb=tb, to=to: fn(ta, tb, out=to),
                    [(o, to)],
                )
    if wanted("__getitem__") or wanted("__setitem__"):
        index_probes(rep)
    if wanted("where"):
        cond = tc.tensor([True, False, True])
        tcond = tensor_to_torch(cond)
        for d1 in PROBE_DTYPES:
            for other in [*PROBE_DTYPES, 2, 2.5, True]:
                a = probe_tensor(d1, (3,), x_vals)
                b = probe_tensor(other, (), x_vals) if isinstance(other, str) else other
                ta, tb = tensor_to_torch(a), to_torch(b, {})
                label = f"{d1}+{other}" if isinstance(other, str) else d1
                what = "0-d tensor" if isinstance(other, str) else type(other).__name__
                run_pair(
                    rep,
                    "where",
                    label,
                    f"probe where(cond, 1-d, {what})",
                    lambda a=a, b=b: tc.where(cond, a, b),
                    lambda ta=ta, tb=tb: torch.where(tcond, ta, tb),
                    [],
                )
    for name in REDUCTIONS:
        if not wanted(name):
            continue
        for d in PROBE_DTYPES:
            for kwargs in ({}, {"dim": 0}, {"dtype": "float64"}, {"dtype": "int64"}):
                a = probe_tensor(d, (2, 3), [1.0, 2.0, 3.0, 0.5, 1.0, 2.0])
                b = tensor_to_torch(a)
                if name in ("cumsum", "cumprod") and "dim" not in kwargs:
                    kwargs = {**kwargs, "dim": 1}
                if name in ("amax", "amin", "std", "var") and "dtype" in kwargs:
                    continue
                tkw = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
                ckw = {k: getattr(tc, v) if k == "dtype" else v for k, v in kwargs.items()}
                run_pair(
                    rep,
                    name,
                    d,
                    f"probe {name}(2x3, {kwargs})",
                    lambda a=a, ckw=ckw: getattr(tc, name)(a, **ckw),
                    lambda b=b, tkw=tkw: getattr(torch, name)(b, **tkw),
                    [(a, b)],
                )


def index_probes(rep: Report) -> None:
    """Basic and advanced indexing, reading and writing (``x[i]``, ``x[i] = v``)."""

    def ix(lib: Any) -> list[tuple[str, Any]]:
        t = lib.tensor
        return [
            ("int", 1),
            ("negative int", -1),
            ("slice with step", slice(None, None, 2)),
            ("negative slice bounds", slice(-3, -1)),
            ("None", None),
            ("Ellipsis, int", (Ellipsis, 0)),
            ("int, slice, None", (1, slice(1, 3), None)),
            ("bool mask", t([[True, False, True, False]] * 3)),
            ("bool row mask", t([True, False, True])),
            ("int tensor", t([2, 0, 2])),
            ("list of ints", [0, 2]),
            ("0-d int tensor", t(1)),
            ("True", True),
            ("two int tensors", (t([0, 2]), t([1, 3]))),
            ("broadcast int tensors", (t([[0], [2]]), t([1, 3]))),
            ("advanced, slice, advanced", (t([0, 1]), slice(None), t([1, 2]))),
            ("slice, int tensor", (slice(None), t([3, 0]))),
            ("int, int tensor", (1, t([3, 0]))),
            ("out of range int", 5),
            ("out of range tensor", t([0, 7])),
            ("float index", 1.0),
        ]

    for d in ("float32", "int64", "bool"):
        for (desc, i_tc), (_, i_torch) in zip(ix(tc), ix(torch), strict=True):
            x = probe_tensor(d, (2, 3, 4), [float(k % 5) for k in range(24)])[0:2].reshape(2, 3, 4)[
                0
            ]
            tx = tensor_to_torch(x)
            run_pair(
                rep,
                "__getitem__",
                d,
                f"probe x[{desc}]",
                lambda x=x, i=i_tc: x[i],
                lambda tx=tx, i=i_torch: tx[i],
                [(x, tx)],
            )
            values = [(v, v) for v in (7, 2.5, True, -1)] + [
                (tc.tensor(3.5, dtype=tc.float64), torch.tensor(3.5, dtype=torch.float64)),
                (tc.tensor([1, 0, 1, 0]), torch.tensor([1, 0, 1, 0])),
            ]
            for value, tvalue in values:
                y, ty = x.clone(), tx.clone()

                def put(t: Any, i: Any, v: Any) -> Any:
                    t[i] = v
                    return t

                run_pair(
                    rep,
                    "__setitem__",
                    d,
                    f"probe x[{desc}] = {value!r}".replace("\n", " "),
                    lambda y=y, i=i_tc, v=value: put(y, i, v),
                    lambda ty=ty, i=i_torch, v=tvalue: put(ty, i, v),
                    [(y, ty)],
                )


# ------------------------------------------------------------------ report
def summarize(rep: Report, out: str, verbose: bool) -> None:
    by_kind: dict[str, list[Mismatch]] = collections.defaultdict(list)
    for m in rep.items:
        by_kind[m.kind].append(m)
    print(f"{rep.calls} calls compared; {len(rep.items)} mismatches, {len(rep.expected)} expected")
    print(f"{'kind':<22} {'count':>6} {'ops':>5}  operators")
    for kind, ms in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        ops = collections.Counter(m.op for m in ms)
        names = ", ".join(f"{o}({c})" for o, c in ops.most_common(12))
        more = f", ... {len(ops) - 12} more" if len(ops) > 12 else ""
        print(f"{kind:<22} {len(ms):>6} {len(ops):>5}  {names}{more}")
    if rep.no_counterpart:
        print(
            f"no PyTorch counterpart ({len(rep.no_counterpart)}): " + ", ".join(rep.no_counterpart)
        )
    with open(out, "w") as f:
        for m in sorted(rep.items, key=lambda m: (m.kind, m.op, m.dtype)):
            f.write(f"{m.kind}\t{m.op}\t{m.dtype}\t{m.sample}\t{m.detail}\n")
        for m, reason in rep.expected:
            f.write(f"expected[{reason}]\t{m.op}\t{m.dtype}\t{m.sample}\t{m.kind}: {m.detail}\n")
        for name, why in rep.no_counterpart.items():
            f.write(f"no-counterpart\t{name}\t-\t-\t{why}\n")
        for what, why in rep.skipped:
            f.write(f"skipped\t{what}\t-\t-\t{why}\n")
    print(f"details: {out}")
    if verbose:
        for m in rep.items:
            print(f"  {m.kind:<20} {m.op:<20} {m.dtype:<16} {m.sample[:60]:<60} {m.detail[:160]}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mode", choices=("forward", "grad", "probes", "all"), default="all")
    p.add_argument("--ops", help="comma-separated operator names or fnmatch patterns")
    p.add_argument("--dtypes", default=",".join(DTYPES), help="sample dtypes (forward mode)")
    p.add_argument("--out", default="diff_torch.tsv", help="the details file")
    p.add_argument("-v", "--verbose", action="store_true", help="print every mismatch")
    a = p.parse_args(argv)
    ops = selected_ops(a.ops.split(",") if a.ops else None)
    rep = Report()
    torch.manual_seed(0)
    try:
        if a.mode in ("forward", "all"):
            forward_mode(rep, ops, a.dtypes.split(","))
        if a.mode in ("grad", "all"):
            grad_mode(rep, ops)
        if a.mode in ("probes", "all"):
            probes_mode(rep, ops)
            extra_probes(rep, a.ops.split(",") if a.ops else None)
    except KeyboardInterrupt:
        traceback.print_exc()
    summarize(rep, a.out, a.verbose)
    return 1 if rep.items else 0


if __name__ == "__main__":
    sys.exit(main())
