"""What the checks share: the operators a target claims, their samples on the target and on
the CPU, running a call on both, and comparing the outcomes.

An *outcome* is what a call did: its result, or the exception it raised. The CPU backend is
the oracle: a call on the target must return what the CPU returns (same dtypes and shapes,
values within the tolerances of :data:`TOLERANCES`), or raise the class of exception the
CPU raises.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import backend
from tensorcore import dtypes as dt
from tensorcore.testing import assert_close, dtype_unsupported, to_numpy
from tensorcore.testing.samples import SAMPLES, SEED, Sample, call_op

from ._session import Target, target

__all__ = [
    "TOLERANCES",
    "Outcome",
    "claimed",
    "compare",
    "dtypes_of",
    "expect_same",
    "outcome",
    "samples",
    "to_layout",
]

#: ``(rtol, atol)`` by dtype: another device may compute with other algorithms than NumPy
#: (fused multiply-adds, another summation order), so these are looser than
#: ``tensorcore.testing.default_tolerances``. Integers and bools compare exactly.
TOLERANCES = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (5e-2, 1e-2),
    "float32": (1e-4, 1e-5),
    "float64": (1e-7, 1e-9),
    "complex64": (1e-4, 1e-5),
    "complex128": (1e-7, 1e-9),
}
#: The dtypes the fast mode checks each operator in (float32 is the samples' dtype).
FAST_DTYPES = ("bool", "int32", "float16", "float64", "complex64")
# Operators whose result values are unspecified (only shape, dtype and device compare).
# No field of the declaration says so yet; random operators are found by their tag, or by
# their CPU results changing with the seed (``rand_like`` draws from the default generator).
_UNSPECIFIED = frozenset({"empty", "empty_like"})


def claimed() -> dict[str, tuple[str, bool]]:
    """The operators the target claims: name -> (plugin, own), where ``own`` is False for
    an operator the target reaches only through another plugin's wildcard kernel (the
    core's views and composites)."""
    t = target()
    out = {}
    for name, rec in backend.resolved_kernels(t.device, t.layout).items():
        own = rec.layout == t.layout if t.is_layout else rec.device_type == t.device
        out[name] = (rec.plugin, own)
    return out


def decl(name: str) -> Any:
    """The declaration of ``name`` in the runtime table (core or plugin operator)."""
    return tc.dispatch.get_op(name).decl


def sample_count(name: str, dtype: dt.dtype = dt.float32) -> int:
    """How many samples ``name`` has (0 for an operator without samples)."""
    make = SAMPLES.get(name)
    if make is None:
        return 0
    try:
        return len(make("cpu", dtype))
    except Exception:  # noqa: BLE001 - a generator that cannot build this dtype
        return 0


def picked(n: int, fast: int = 1) -> range:
    """The sample indices a check runs: all in full mode, else the first ``fast``."""
    return range(n) if target().full else range(min(n, fast))


def dtypes_of(name: str) -> list[dt.dtype]:
    """The dtypes ``name`` declares (``OpDecl.dtypes``) that this run checks it in."""
    cats = decl(name).dtypes
    wanted = [d for d in dt.all_dtypes if "bifc"[d._category] in cats]
    if target().full:
        return wanted
    return [d for d in wanted if d.name in FAST_DTYPES]


# ------------------------------------------------------------------ samples on both sides
def _convert(sample: Sample, t: Target) -> Sample:
    """The sample for the target: random generators of the target's device type, and for a
    layout run the first tensor argument (``self``, when strided and floating) converted."""
    kwargs = dict(sample.kwargs)
    gen = kwargs.get("generator")
    if isinstance(gen, tc.Generator) and gen.device.type != t.device:
        kwargs["generator"] = tc.Generator(t.device).manual_seed(SEED)
    args = list(sample.args)
    if t.is_layout:
        for i, a in enumerate(args):
            if isinstance(a, tc.Tensor):
                if a.layout is tc.strided and (a.dtype.is_floating_point or a.dtype.is_complex):
                    args[i] = to_layout(a)
                break
    return dataclasses.replace(sample, args=tuple(args), kwargs=kwargs)


def to_layout(a: tc.Tensor) -> tc.Tensor:
    """``a`` converted to the layout under test; a skip, saying why, where the layout cannot
    hold it (its conversion raises: a matrix layout such as ``sparse_csr`` given a tensor of
    another rank, say), since then no operator of the layout can be asked about it."""
    t = target()
    assert t.to_layout is not None
    try:
        return getattr(a, t.to_layout)()
    except Exception as exc:  # noqa: BLE001 - any refusal of the conversion means "cannot hold"
        pytest.skip(
            f"the {t.layout} layout cannot hold this input ({a.dtype.name} of shape "
            f"{list(a.shape)}): {t.to_layout}() raised {type(exc).__name__}: {str(exc)[:160]}"
        )


def samples(name: str, dtype: dt.dtype, i: int) -> tuple[Sample, Sample]:
    """Sample ``i`` of ``name`` in ``dtype``: (on the target, on the CPU). Both are drawn
    from the same seed, so they hold the same values. Skips when the samples cannot be
    built in ``dtype``."""
    t = target()
    make = SAMPLES.get(name)
    if make is None:
        pytest.skip(f"{name}: no samples in tensorcore.testing.samples (a plugin operator)")
    why = dtype_unsupported(t.device, dtype)
    if why is not None:
        pytest.skip(f"{t.device} holds no {dtype.name} tensors (its allocator: {why})")
    try:
        cpu = make("cpu", dtype)[i]
    except Exception as exc:  # noqa: BLE001 - the generator does not cover this dtype
        pytest.skip(f"{name}: no sample {i} in {dtype.name} ({type(exc).__name__}: {exc})")
    return _convert(make(t.device, dtype)[i], t), cpu


def unspecified(name: str, dtype: dt.dtype, i: int) -> bool:
    """Whether the values of sample ``i`` of ``name`` are unspecified: an uninitialised or
    random result, which differs between two CPU runs of fresh samples under two seeds."""
    if "random" in decl(name).tags or name in _UNSPECIFIED:
        return True
    key = (name, dtype.name, i)
    if key not in _unspecified:
        results = []
        for seed in (SEED, SEED + 1):
            tc.manual_seed(seed)
            results.append(run(name, SAMPLES[name]("cpu", dtype)[i]))
        a, b = results
        same = a.exc is not None or b.exc is not None
        if not same:
            try:
                compare(a.value, b.value, where=name, device="cpu")
                same = True
            except AssertionError:
                same = False
        _unspecified[key] = not same
    return _unspecified[key]


_unspecified: dict[tuple[str, str, int], bool] = {}


# ------------------------------------------------------------------ outcomes
@dataclass
class Outcome:
    """What a call did: ``value``, or the exception ``exc`` it raised."""

    value: Any = None
    exc: BaseException | None = None

    def describe(self) -> str:
        if self.exc is not None:
            return f"raised {type(self.exc).__name__}: {str(self.exc)[:300]}"
        return f"returned {_show(self.value)}"


def _show(v: Any) -> str:
    if isinstance(v, tc.Tensor):
        return backend.describe(v)
    if isinstance(v, (tuple, list)):
        return f"{type(v).__name__}({', '.join(_show(x) for x in v)})"
    return repr(v)[:100]


def outcome(fn: Callable[[], Any]) -> Outcome:
    """Call ``fn`` and record its result or its exception."""
    try:
        return Outcome(value=fn())
    except Exception as exc:  # noqa: BLE001 - recording it is the point
        return Outcome(exc=exc)


def run(name: str, sample: Sample) -> Outcome:
    """The outcome of ``name`` called on ``sample``."""
    return outcome(lambda: call_op(name, sample))


def _tensors(v: Any) -> Iterator[tc.Tensor]:
    if isinstance(v, tc.Tensor):
        yield v
    elif isinstance(v, (tuple, list)):
        for x in v:
            yield from _tensors(x)


def strided(x: tc.Tensor) -> tc.Tensor:
    """``x`` as a strided tensor (through the layout's declared conversion)."""
    if x.layout is tc.strided:
        return x
    t = target()
    if t.to_strided is None:
        raise AssertionError(f"a {x.layout.name} tensor, and no conversion back is declared")
    return getattr(x, t.to_strided)()


def compare(
    got: Any, exp: Any, *, values: bool = True, where: str = "result", device: str | None = None
) -> None:
    """Assert that the target's result ``got`` equals the CPU's ``exp``: same structure,
    tensors of the same dtype and shape on the target's device (when the CPU's is on the
    CPU), with values within :data:`TOLERANCES` (unless ``values`` is False). ``device``
    replaces the target's device type."""
    t = target()
    dev = device or t.device
    if isinstance(exp, tc.Tensor):
        if not isinstance(got, tc.Tensor):
            raise AssertionError(f"{where}: expected a tensor, got {_show(got)}")
        if exp.device.type == "cpu" and got.device.type != dev:
            raise AssertionError(f"{where}: on {got.device}, expected a {dev} tensor")
        if got.dtype != exp.dtype or tuple(got.shape) != tuple(exp.shape):
            raise AssertionError(f"{where}: got {_show(got)}, expected {_show(exp)}")
        if not values:
            return
        rtol, atol = TOLERANCES.get(exp.dtype.name, (0.0, 0.0))
        exact = rtol == 0.0
        assert_close(
            strided(got.detach()),
            to_numpy(strided(exp.detach())),
            rtol=None if exact else rtol,
            atol=None if exact else atol,
            msg=lambda m: f"{where} on {t.key}: {m}",
        )
    elif isinstance(exp, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(exp):
            raise AssertionError(f"{where}: got {_show(got)}, expected {_show(exp)}")
        for k, (g, e) in enumerate(zip(got, exp, strict=True)):
            compare(g, e, values=values, where=f"{where}[{k}]", device=device)
    elif isinstance(exp, (float, complex)) and values:
        if not isinstance(got, (float, complex, int)) or not (
            (math.isnan(abs(exp)) and math.isnan(abs(got)))
            or abs(got - exp) <= 1e-5 + 1e-4 * abs(exp)
        ):
            raise AssertionError(f"{where}: got {got!r}, expected {exp!r}")
    elif values and got != exp:
        raise AssertionError(f"{where}: got {got!r}, expected {exp!r}")


def refusal(name: str, o: Outcome) -> str | None:
    """For a layout run: the message of a clean refusal (a ``NotImplementedError`` or
    ``RuntimeError`` naming the operator), which a layout may answer inputs it does not
    take with; None otherwise."""
    from tensorcore.testing.fuzz import names_callee

    e = o.exc
    if isinstance(e, (NotImplementedError, RuntimeError)) and names_callee(str(e), name):
        return str(e)
    if isinstance(e, NotImplementedError) and "Could not run" in str(e):
        return str(e)
    return None


def _allowed_refusal(name: str, got: Outcome, own: bool) -> None:
    """Skip where the target may refuse a call: an operator reached only through another
    plugin's wildcard kernel that finds no kernel here (or, in a layout run, that fails on
    the layout: the core's composites may read strides), or a layout refusing an input."""
    t = target()
    if not own and isinstance(got.exc, NotImplementedError):
        pytest.skip(f"{name} reaches no kernel on {t.key}: {str(got.exc)[:200]}")
    if not own and t.is_layout and got.exc is not None:
        # The core's composite (or view) is written for strided tensors where it reads
        # strides or storage; the layout has not claimed the operator with a kernel of its own.
        pytest.skip(
            f"{name} runs the core's definition on {t.key}, which does not handle this layout "
            f"({type(got.exc).__name__}: {str(got.exc)[:160]}); register a kernel for "
            f"('{name}', '*', '{t.layout}') to have it tested"
        )
    why = refusal(name, got) if t.is_layout else None
    if why is not None:
        pytest.skip(f"the {t.layout} layout refuses this input: {why[:200]}")


def expect_same(
    name: str,
    got: Outcome,
    exp: Outcome,
    *,
    own: bool,
    values: bool = True,
    invariant: Callable[[Any], Any] | None = None,
    sample: tuple[dt.dtype, int] | None = None,
) -> None:
    """Assert that the target's outcome matches the CPU's: the same exception class, or an
    equal result. Skips where the target cleanly refuses what the CPU does, when that is
    allowed: an operator reached only through a wildcard kernel (``own`` False) whose
    calls find no kernel here, and a layout refusing an input (``RuntimeError`` or
    ``NotImplementedError`` naming the operator). ``sample`` (dtype, index) names the
    sample the outcomes come from: where the values differ, they are not compared if they
    are :func:`unspecified` (random or uninitialised)."""
    t = target()
    if exp.exc is not None:
        if got.exc is None:
            raise AssertionError(
                f"{name} on {t.key} returned {_show(got.value)}; on cpu it raised "
                f"{type(exp.exc).__name__}: {str(exp.exc)[:300]}"
            )
        if type(got.exc) is not type(exp.exc):
            _allowed_refusal(name, got, own)
            raise AssertionError(
                f"{name} on {t.key} {got.describe()}; on cpu it raised "
                f"{type(exp.exc).__name__}: {str(exp.exc)[:300]}"
            ) from got.exc
        return
    if got.exc is not None:
        _allowed_refusal(name, got, own)
        raise AssertionError(f"{name} on {t.key} {got.describe()}; on cpu it returned") from (
            got.exc
        )
    g, e = got.value, exp.value
    if invariant is not None:
        g, e = invariant(g), invariant(e)
    try:
        compare(g, e, values=values, where=f"{name}'s result")
    except AssertionError:
        # Checked only on a mismatch: it runs the CPU twice more.
        if not (values and sample is not None and unspecified(name, *sample)):
            raise
        compare(g, e, values=False, where=f"{name}'s result")
