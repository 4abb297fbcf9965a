"""Gradients of every differentiable operator against finite differences, driven by the tables.

The operator list comes from the core's operator table (every operator of
``tensorcore/ops/schema/`` without the ``nondifferentiable`` tag), the inputs from
``tensorcore.testing.samples.SAMPLES``; nothing here names an operator by hand. Operators
that exist only in place (``copy_``, ``fill_``...) have no out-of-place form to check here:
``test_autograd.py`` covers them with the in-place semantics tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.autograd.graph import SavedTensor, TensorSpec
from tensorcore.autograd.step import _make_node, derivative_overrides, rule_for
from tensorcore.dispatch import get_op, ops
from tensorcore.ops.derivatives import DERIVATIVES
from tensorcore.ops.schema import OPS
from tensorcore.testing.samples import (
    SAMPLES,
    Sample,
    call_op,
    core_ops,
    inplace_only,
    split_leaves,
)

#: Differentiable operators with an out-of-place form, straight from the operator table.
DIFFERENTIABLE = sorted(n for n in core_ops() if OPS[n].has_backward and not inplace_only(n))
#: Differentiable operators that also have an in-place ``op_`` variant.
WITH_INPLACE = sorted(n for n in DIFFERENTIABLE if OPS[n].inplace)


def _cases(names: list[str]) -> list[Any]:
    """One case per (operator, sample); the sample count does not depend on the device."""
    out = []
    for name in names:
        for i, s in enumerate(SAMPLES[name]("cpu", tc.float64)):
            out.append(pytest.param(name, i, id=f"{name}-{i}-{s.desc or 'sample'}"))
    return out


def _split(sample: Sample) -> tuple[Callable[[list[Any]], Sample], list[tc.Tensor]]:
    """The sample's floating-point tensors (as fresh leaves that require grad, keeping their
    strides) and a function that puts tensors back in their places."""
    return split_leaves(
        sample,
        lambda a: a.dtype.is_floating_point or a.dtype.is_complex,
        lambda a: a.detach().requires_grad_(),
    )


def _float_outputs(res: Any) -> list[tc.Tensor]:
    outs = res if isinstance(res, (tuple, list)) else (res,)
    return [
        o
        for o in outs
        if isinstance(o, tc.Tensor) and (o.dtype.is_floating_point or o.dtype.is_complex)
    ]


def _grad_outputs(fn: Callable[..., Any], leaves: list[tc.Tensor]) -> tuple[tc.Tensor, ...]:
    """Seeded random output gradients (gradgradcheck's default draws from the global RNG)."""
    g = tc.Generator("cpu").manual_seed(0)
    outs = _float_outputs(fn(*leaves))
    return tuple(
        tc.randn(*o.shape, generator=g, dtype=o.dtype).to(o.device).requires_grad_() for o in outs
    )


def _setup(device: str, name: str, i: int) -> tuple[Callable[..., Any], list[tc.Tensor], Sample]:
    sample = SAMPLES[name](device, tc.float64)[i]
    rebuild, leaves = _split(sample)
    if not leaves:
        pytest.skip(f"{name} sample {i} has no floating-point input")

    def fn(*xs: Any) -> Any:
        s = rebuild(list(xs))
        s.args = sample.perturbed(s.args)  # (Hermitian inputs stay Hermitian, ...)
        res = call_op(name, s)
        return sample.invariant(res) if sample.invariant is not None else res

    return fn, leaves, sample


# ------------------------------------------------------------------ gradcheck
@pytest.mark.parametrize(("name", "i"), _cases(DIFFERENTIABLE))
def test_gradcheck(device: str, name: str, i: int) -> None:
    fn, leaves, sample = _setup(device, name, i)
    assert _float_outputs(fn(*leaves)), f"{name} {sample!r} has no floating-point output"
    assert tc.autograd.gradcheck(fn, leaves), sample


def _first_order_only(fn: Callable[..., Any], leaves: list[tc.Tensor]) -> bool:
    """Whether a gradient comes from an operator whose own derivative PyTorch leaves
    unimplemented (``_ctc_loss_backward``, tagged ``backward_not_implemented``: its node
    raises PyTorch's error), so that there is no second derivative to check."""
    outs = _float_outputs(fn(*leaves))
    grads = tc.autograd.grad(
        outs, leaves, [tc.ones_like(o) for o in outs], create_graph=True, allow_unused=True
    )
    return any(g is not None and g.grad_fn is not None and g.grad_fn.name() == "NotImplemented"
               for g in grads)  # fmt: skip


@pytest.mark.parametrize(("name", "i"), _cases(DIFFERENTIABLE))
def test_gradgradcheck(device: str, name: str, i: int) -> None:
    fn, leaves, sample = _setup(device, name, i)
    grads = _grad_outputs(fn, leaves)
    try:
        assert tc.autograd.gradgradcheck(fn, leaves, grads), sample
    except RuntimeError as exc:
        if "is not implemented" not in str(exc) or not _first_order_only(fn, leaves):
            raise


# ------------------------------------------------------------------ Python scalar arguments
def _floating_at(sample: Sample, positions: tuple[int, ...]) -> list[int]:
    return [
        p
        for p in positions
        if p < len(sample.args)
        and isinstance(sample.args[p], tc.Tensor)
        and sample.args[p].dtype.is_floating_point
    ]


def _scalar_cases() -> list[Any]:
    """(operator, sample, position) for every differentiable pointwise operator of the table
    and every floating tensor position of its samples that another tensor input survives."""
    out = []
    for name in DIFFERENTIABLE:
        if "pointwise" not in OPS[name].tags:
            continue
        decl = OPS[name]
        refused = set(decl.tensors_only.split()) | set(decl.masks.split())
        params = [q.name for q in decl.parsed.params]
        for i, s in enumerate(SAMPLES[name]("cpu", tc.float64)):
            floating = _floating_at(s, get_op(name).tensor_pos)
            for p in floating if len(floating) > 1 else ():
                if p < len(params) and params[p] in refused:
                    continue  # (a tensor is required there, as in PyTorch)
                for kind in ("float", "int"):
                    out.append(pytest.param(name, i, p, kind, id=f"{name}-{i}-arg{p}-{kind}"))
    return out


@pytest.mark.parametrize(("name", "i", "pos", "kind"), _scalar_cases())
def test_gradcheck_with_a_python_scalar_argument(
    device: str, name: str, i: int, pos: int, kind: str
) -> None:
    """``2.0 ** x``, ``tc.where(c, 1, x)``, ``tc.lerp(x, y, 0.5)``...: a Python scalar in any
    tensor position records and differentiates (the scalar is the sample's first element
    there, so it lies in the operator's domain; an int one is a positive integer)."""
    sample = SAMPLES[name](device, tc.float64)[i]
    v = sample.args[pos].reshape(-1)[0].item()
    scalar = v if kind == "float" else max(1, round(abs(v)))
    others = [p for p in _floating_at(sample, get_op(name).tensor_pos) if p != pos]
    leaves = [sample.args[p].detach().clone().requires_grad_() for p in others]

    def fn(*xs: tc.Tensor) -> Any:
        args = list(sample.args)
        args[pos] = scalar
        for p, x in zip(others, xs, strict=True):
            args[p] = x
        return call_op(name, Sample(tuple(args), sample.kwargs))

    assert tc.autograd.gradcheck(fn, leaves), sample
    assert tc.autograd.gradgradcheck(fn, leaves, _grad_outputs(fn, leaves)), sample


def test_clamp_with_crossed_bounds_sends_the_gradient_to_max(device: str) -> None:
    """min(max(x, lo), hi) is hi where lo > hi: the gradient goes to max there (PyTorch's
    clamp_backward_min_max), to min only where x < lo < hi."""
    x = tc.tensor([0.0, 3.0, 1.5], dtype=tc.float64, device=device, requires_grad=True)
    lo = tc.tensor([2.0, 2.0, 1.0], dtype=tc.float64, device=device, requires_grad=True)
    hi = tc.tensor([1.0, 1.0, 2.0], dtype=tc.float64, device=device, requires_grad=True)
    tc.clamp(x, lo, hi).sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == (
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
    )


#: Operators differentiated at complex points too (PyTorch's conjugate Wirtinger convention).
COMPLEX = ["abs", "add", "conj", "cos", "cumsum", "div", "dot", "einsum", "exp", "expand",
           "imag", "log", "matmul", "mean", "mm", "mul", "neg", "outer", "real", "reciprocal",
           "reshape", "sigmoid", "sigmoid_backward", "sin", "sqrt", "sub", "sum", "tanh",
           "tanh_backward", "transpose",
           "linalg_inv", "linalg_det", "linalg_slogdet", "linalg_solve", "linalg_cholesky",
           "_linalg_eigh", "linalg_eigh", "linalg_eigvalsh", "linalg_qr", "_linalg_svd",
           "linalg_svd", "linalg_svdvals", "linalg_pinv", "linalg_cross", "linalg_matrix_norm",
           "linalg_matrix_power", "linalg_multi_dot", "linalg_vecdot", "tensordot", "trace",
           "kron", "logdet", "_linalg_eig", "linalg_eig", "linalg_eigvals",
           "linalg_lu_factor_ex", "linalg_lu_factor", "linalg_lu", "lu_unpack",
           "linalg_lu_solve", "lu_solve", "linalg_matrix_exp", "matrix_exp",
           "linalg_solve_triangular", "triangular_solve", "cholesky_solve"]  # fmt: skip


def _complex_setup(device: str, name: str, i: int) -> tuple[Callable[..., Any], list[tc.Tensor]]:
    """The float64 sample's floating inputs as complex128 leaves, rotated off the real axis
    (at real points a missing conjugate goes unnoticed)."""
    fn, leaves, sample = _setup(device, name, i)
    given = (*sample.args, *sample.kwargs.values())
    if any(
        isinstance(a, tc.dtype) or (isinstance(a, str) and a in ("floor", "trunc")) for a in given
    ):
        pytest.skip("a real result dtype or a rounding mode: not defined for complex input")
    rotated = [
        (
            x.detach().to(tc.complex128) * (1 + 0.5j) if x.dtype.is_floating_point else x.detach()
        ).requires_grad_()
        for x in leaves
    ]
    return fn, rotated


@pytest.mark.parametrize(("name", "i"), _cases(COMPLEX))
def test_gradcheck_complex(device: str, name: str, i: int) -> None:
    fn, leaves = _complex_setup(device, name, i)
    assert tc.autograd.gradcheck(fn, leaves)
    assert tc.autograd.gradgradcheck(fn, leaves, _grad_outputs(fn, leaves))


def _inplace_fn(name: str, rebuild: Callable[[list[Any]], Sample], mode: str) -> Any:
    """``self.clone().op_(...)``, or the same through a transposed view of a non-leaf."""

    def fn(*xs: Any) -> Any:
        s = rebuild(list(xs))
        self, *rest = s.args
        if mode == "clone":
            target = base = self.clone()
        else:
            base = self.t().clone()
            target = base.t()
        getattr(target, name + "_")(*rest, **s.kwargs)
        return (target, base) if mode == "view" else target

    return fn


@pytest.mark.parametrize("mode", ["clone", "view"])
@pytest.mark.parametrize(("name", "i"), _cases(WITH_INPLACE))
def test_gradcheck_inplace_variant(device: str, name: str, i: int, mode: str) -> None:
    """``op_`` on a non-leaf (and on a view of one) has the gradient of ``op``."""
    sample = SAMPLES[name](device, tc.float64)[i]
    self = sample.args[0]
    if not (isinstance(self, tc.Tensor) and self.dtype.is_floating_point):
        pytest.skip("self is not a floating-point tensor")
    expected = call_op(name, sample)
    if expected.shape != self.shape or expected.dtype != self.dtype:
        pytest.skip(f"the result {list(expected.shape)} does not fit in self {list(self.shape)}")
    if mode == "view" and self.ndim != 2:
        pytest.skip("the view mode transposes a 2-D self")
    rebuild, leaves = _split(sample)
    fn = _inplace_fn(name, rebuild, mode)
    out = fn(*leaves)
    got = out[0] if isinstance(out, tuple) else out
    assert got.detach().tolist() == expected.tolist()
    assert tc.autograd.gradcheck(fn, leaves), sample


# ------------------------------------------------------------------ meta-tests
def test_every_operator_has_samples() -> None:
    assert sorted(set(core_ops()) - set(SAMPLES)) == [], "operators without samples"
    assert sorted(set(SAMPLES) - set(core_ops())) == [], "samples for undeclared operators"
    for name, make in SAMPLES.items():
        assert make("cpu", tc.float64), f"{name} has an empty sample list"


def test_core_ops_is_the_declared_table() -> None:
    """The core's table holds the core's operators only; the runtime table is the core's
    operators followed by those the plugins declare (``register.op``)."""
    tc.backends.devices()  # load the plugins: they may declare operators
    core = list(core_ops())
    assert list(OPS) == core
    runtime = list(ops())
    assert runtime[: len(core)] == core
    assert all(ops()[n].decl is OPS[n] for n in core)


def ops_without_rules() -> list[str]:
    """``"name [device/layout]"`` for each differentiable primitive of the runtime table (the
    core's operators and the plugins') and each (device type, layout) it has a kernel for
    where no derivative rule resolves (the derivative table's, or a plugin's registered for
    that key); a core operator needs a rule for every key (``*/*``) too."""
    tc.backends.devices()  # load the plugins: they declare operators and register rules
    core = set(core_ops())
    missing = []
    for name, op in list(ops().items()):
        if not op.differentiable or op.composite:
            continue
        keys = set(op.registered) | ({("*", "*")} if name in core else set())
        for key in sorted(keys):
            try:
                rule_for(op, key)
            except RuntimeError:
                missing.append(f"{name} [{key[0]}/{key[1]}]")
    return missing


def test_every_differentiable_primitive_has_a_rule() -> None:
    assert ops_without_rules() == [], (
        "operators without a derivative rule (in tensorcore/ops/derivatives/, or from the "
        "plugin that declares them: register.derivative) or a 'nondifferentiable' tag"
    )


def test_every_rule_is_for_a_declared_differentiable_operator() -> None:
    assert sorted(set(DERIVATIVES) - set(core_ops())) == [], "rules for undeclared operators"
    tagged = sorted(n for n in DERIVATIVES if not OPS[n].differentiable)
    assert tagged == [], "rules for operators tagged 'nondifferentiable'"
    tc.backends.devices()
    plugin_tagged = sorted({n for n, _d, _l in derivative_overrides if not ops()[n].differentiable})
    assert plugin_tagged == [], "plugins' rules for operators tagged 'nondifferentiable'"


def test_missing_rules_are_found_where_plugins_declare_operators(run_py: Any) -> None:
    """The check above on deliberately broken tables, in a fresh process: a plugin's
    differentiable operator without a rule, with a rule for another device only, then with
    one for its device and any layout (``D/*``, looked up as a kernel is); and a core
    operator whose rule is gone."""
    run_py(
        f"""
        import importlib.util
        import tensorcore as tc
        from tensorcore.ops.derivatives import DERIVATIVES
        from tensorcore.plugins import hookimpl

        spec = importlib.util.spec_from_file_location("gc_tests", {__file__!r})
        tests = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(tests)
        assert tests.ops_without_rules() == []

        def registering(**calls):
            class Plugin:
                @hookimpl
                def tensorcore_register_kernels(self, register):
                    for method, args in calls.items():
                        getattr(register, method)(*args)
            return Plugin()

        twice = lambda x: x * 2
        rule = lambda c, g: (g * 2,)
        tc.backends.register(registering(
            op=("twice(Tensor self) -> Tensor", "", "2 * self."),
            kernel=("twice", "cpu", "strided", twice),
        ), name="declares")
        assert tests.ops_without_rules() == ["twice [cpu/strided]"], tests.ops_without_rules()
        tc.backends.register(registering(derivative=("twice", "cuda", "*", "", rule)), "on-cuda")
        assert tests.ops_without_rules() == ["twice [cpu/strided]"], tests.ops_without_rules()
        tc.backends.register(registering(derivative=("twice", "cpu", "*", "", rule)), "on-cpu")
        assert tests.ops_without_rules() == [], tests.ops_without_rules()
        x = tc.ones(2, requires_grad=True)
        tc.twice(x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]

        del DERIVATIVES["neg"]
        # Every key of neg that used the generic rule (one per installed dense device).
        missing = tests.ops_without_rules()
        assert missing[:2] == ["neg [*/*]", "neg [cpu/strided]"], missing
        assert all(m.startswith("neg [") and m.endswith("/strided]") for m in missing[1:]), missing
        """
    )


@pytest.mark.parametrize("name", core_ops())
def test_samples_run(device: str, name: str) -> None:
    """Every sample is a valid call on every device (in float64, the gradcheck dtype)."""
    for s in SAMPLES[name](device, tc.float64):
        call_op(name, s)


# ------------------------------------------------------------------ compiled recorders
def _same_saved(a: Any, b: Any) -> bool:
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, SavedTensor):
        if a.data.__class__ is tuple:
            return all(x is y for x, y in zip(a.data, b.data, strict=True)) and (
                a.version,
                a.producer,
                a.output_nr,
            ) == (b.version, b.producer, b.output_nr)
        return a.data is b.data and (a.version, a.producer, a.output_nr) == (
            b.version,
            b.producer,
            b.output_nr,
        )
    if isinstance(a, TensorSpec):
        return all(getattr(a, s) == getattr(b, s) for s in TensorSpec.__slots__)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_saved(x, y) for x, y in zip(a, b, strict=True))
    return a is b or bool(a == b)


@pytest.mark.parametrize(("name", "i"), _cases(DIFFERENTIABLE))
def test_compiled_recorder_builds_the_generic_node(name: str, i: int) -> None:
    """The node an operator's compiled recorder builds equals the generic recorder's."""
    fn, leaves, _ = _setup("cpu", name, i)
    fn(*leaves)  # fills the operator's autograd entries
    entries = [e for e in get_op(name).autograd.values() if e.record is not None]
    compared: list[str] = []

    def checked(ent: Any, compiled: Any) -> Any:
        def record(args: tuple[Any, ...], outputs: tuple[Any, ...], sargs: tuple[Any, ...]) -> Any:
            node = compiled(args, outputs, sargs)
            ref = _make_node(get_op(name), ent, args, outputs, sargs)
            assert node.__class__ is ref.__class__ and node.name() == ref.name()
            # Slot by slot: the compiled recorder sets every slot by hand (object.__new__),
            # so a slot added to Node must be set there too, to what the constructor sets.
            for slot in type(ref).__slots__:
                assert hasattr(node, slot), f"the compiled recorder leaves Node.{slot} unset"
                if slot not in ("saved", "next_functions", "input_meta", "ctx"):
                    assert getattr(node, slot) == getattr(ref, slot), slot
            assert node.next_functions == ref.next_functions
            assert list(node.input_meta) == list(ref.input_meta)
            assert (node.n_outputs, node.ctx, node.fn) == (ref.n_outputs, ref.ctx, ref.fn)
            assert node.saved.keys() == ref.saved.keys()
            for k in ref.saved:
                assert _same_saved(node.saved[k], ref.saved[k]), k
            compared.append(node.name())
            return node

        return record

    saved = [(e, e.record) for e in entries]
    try:
        for e, rec in saved:
            e.record = checked(e, rec)
        fn(*leaves)
    finally:
        for e, rec in saved:
            e.record = rec
    if get_op(name).differentiable and not get_op(name).composite:
        assert compared, f"{name}: no node was recorded"
