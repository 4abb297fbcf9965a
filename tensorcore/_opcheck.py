"""``tensorcore.library.opcheck``: checks that an operator defined through
``tensorcore.library`` is registered as it behaves, on sample arguments.

- ``test_schema``: the operator writes no tensor argument its schema does not mark as mutated
  (``mutates_args``), and its results alias no input where it promised none;
- ``test_autograd_registration``: where a tensor argument requires grad, the operator has an
  autograd formula (``register_autograd``) or an implementation differentiable through what
  it calls;
- ``test_faketensor``: its fake kernel gives, from ``meta`` tensors, results of the real
  results' shapes and dtypes;
- ``test_aot_dispatch_dynamic``: PyTorch traces the operator with its compiler here; tensorcore
  runs eagerly, so this runs the operator again on fresh copies and checks it gives the same
  results and, where it is differentiable, gradients of its inputs' shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._custom_ops import OpOverload, resolve
from ._tensor import Tensor, tensors_in
from ._tensor_compat import empty_strided
from .autograd import grad, grad_mode
from .autograd.graph import requires_grad
from .ops import functions as F

__all__ = ["DEFAULT_TEST_UTILS", "OpCheckError", "opcheck"]

DEFAULT_TEST_UTILS = (
    "test_schema",
    "test_autograd_registration",
    "test_faketensor",
    "test_aot_dispatch_dynamic",
)


class OpCheckError(Exception):
    """What :func:`opcheck` raises for a failed test (the test's error is its cause)."""


def _copy(a: Any) -> Any:
    """A fresh copy of an argument (tensors cloned, keeping whether they require grad)."""
    if isinstance(a, Tensor):
        c = a.detach().clone()
        return c.requires_grad_() if a.requires_grad else c
    if isinstance(a, (list, tuple)):
        return type(a)(_copy(x) for x in a)
    return a


def _values(a: Tensor) -> Tensor | None:
    """A copy of ``a``'s values (None for a meta tensor, which has none)."""
    return a.detach().clone() if a.device.type != "meta" else None


def _same(a: Tensor | None, b: Tensor | None) -> bool:
    """Whether two tensors hold the same values (NaN equal to NaN); None is never compared."""
    if a is None or b is None:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    eq = a == b
    if a.dtype.is_floating_point or a.dtype.is_complex:
        eq = eq | (a.isnan() & b.isnan())
    return bool(eq.all())


def _outputs(out: Any) -> list[Any]:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _bound(op: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    return op._bind(tuple(_copy(a) for a in args), {k: _copy(v) for k, v in kwargs.items()})


def _test_schema(op: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    bound = _bound(op, args, kwargs)
    before = [[_values(t) for t in tensors_in((a,))] for a in bound]
    out = op(*bound)
    for i, (p, a) in enumerate(zip(op.sig.params, bound, strict=True)):
        if "!" in p.type:
            continue
        for t, old in zip(tensors_in((a,)), before[i], strict=True):
            if not _same(old, _values(t)):
                raise RuntimeError(
                    f"{op.qualname}: the operator wrote its argument '{p.name}', which its "
                    "schema does not mark as mutated: add it to mutates_args (or mark it "
                    "'Tensor(a!)' in the schema)"
                )
    if "(a" not in op.sig.returns:  # (a result the schema says aliases an input may)
        op._check_no_alias(bound, out)


def _test_autograd_registration(
    op: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]
) -> None:
    bound = op._bind(tuple(args), dict(kwargs))
    if not any(requires_grad(t) for t in tensors_in(bound)):
        return
    if op.backward is None and op.autograd_kernel is None and not op.implicit:
        raise RuntimeError(
            f"{op.qualname}: an input requires grad but the operator has no autograd formula: "
            f"register one with tensorcore.library.register_autograd('{op.qualname}', ...)"
        )


def _meta(a: Any) -> Any:
    if isinstance(a, Tensor):
        return empty_strided(a.shape, a.stride(), dtype=a.dtype, device="meta")
    if isinstance(a, (list, tuple)):
        return type(a)(_meta(x) for x in a)
    return a


def _test_faketensor(op: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    if op.fake is None and "meta" not in op.kernels:
        raise RuntimeError(
            f"There was no fake impl registered for {op.qualname}. Please use "
            f"tensorcore.library.register_fake('{op.qualname}') to add a fake impl."
        )
    with grad_mode.no_grad():
        real = _outputs(op(*_bound(op, args, kwargs)))
        fake = _outputs(op(*[_meta(a) for a in args], **{k: _meta(v) for k, v in kwargs.items()}))
    if len(real) != len(fake):
        raise RuntimeError(
            f"{op.qualname}: the fake kernel gave {len(fake)} results, the real one {len(real)}"
        )
    for i, (r, f) in enumerate(zip(real, fake, strict=True)):
        if isinstance(r, Tensor) != isinstance(f, Tensor):
            raise RuntimeError(f"{op.qualname}: result {i} is a tensor in one kernel only")
        if isinstance(r, Tensor) and (r.shape != f.shape or r.dtype != f.dtype):
            raise RuntimeError(
                f"{op.qualname}: the fake kernel's result {i} is {f.dtype} {list(f.shape)}, "
                f"the real one {r.dtype} {list(r.shape)}"
            )


def _test_aot_dispatch_dynamic(op: OpOverload, args: Sequence[Any], kwargs: dict[str, Any]) -> None:
    first = _outputs(op(*_bound(op, args, kwargs)))
    bound = _bound(op, args, kwargs)
    second = _outputs(op(*bound))
    for i, (a, b) in enumerate(zip(first, second, strict=True)):
        if isinstance(a, Tensor) and not _same(_values(a), _values(b)):
            raise RuntimeError(f"{op.qualname}: result {i} differs between two runs")
    diff = [o for o in second if isinstance(o, Tensor) and o.requires_grad]
    inputs = [t for t in tensors_in(bound) if t.requires_grad]
    if not diff or not inputs:
        return
    ones = [F.ones_like(o) for o in diff]
    for t, g in zip(inputs, grad(diff, inputs, ones, allow_unused=True), strict=True):
        if g is not None and g.shape != t.shape:
            raise RuntimeError(
                f"{op.qualname}: the backward gave a gradient of shape {list(g.shape)} for an "
                f"input of shape {list(t.shape)}"
            )


_TESTS: dict[str, Callable[[OpOverload, Sequence[Any], dict[str, Any]], None]] = {
    "test_schema": _test_schema,
    "test_autograd_registration": _test_autograd_registration,
    "test_faketensor": _test_faketensor,
    "test_aot_dispatch_dynamic": _test_aot_dispatch_dynamic,
}


def opcheck(
    op: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    test_utils: str | Sequence[str] = DEFAULT_TEST_UTILS,
    raise_exception: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
) -> dict[str, Any]:
    """Check that operator ``op`` (defined through ``tensorcore.library``) is registered as it
    behaves on ``args`` (see this module's docstring for the tests). Returns each test's
    ``"SUCCESS"``, or its exception with ``raise_exception=False``; else the first failure
    raises :class:`OpCheckError`."""
    target = resolve(op)
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    unknown = [t for t in test_utils if t not in _TESTS]
    if unknown:
        raise ValueError(
            f"opcheck(op, ...): test_utils is expected to only contain {DEFAULT_TEST_UTILS}, "
            f"but got {tuple(test_utils)}"
        )
    results: dict[str, Any] = {}
    for name in test_utils:
        try:
            _TESTS[name](target, args, dict(kwargs or {}))
        except Exception as exc:
            if raise_exception:
                raise OpCheckError(
                    f"opcheck(op, ...): {name} failed with {exc} (scroll up for stack trace)"
                ) from exc
            results[name] = exc
        else:
            results[name] = "SUCCESS"
    return results
