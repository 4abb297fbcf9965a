"""Forward-mode AD (``tc.autograd.forward_ad``): every differentiable operator's tangents
against the existing reverse mode and finite differences, driven by the tables (the samples
and helpers of ``test_autograd_gradcheck.py``), then the API's semantics as in PyTorch 2.13:
levels, errors, views and in-place operations on tangents, ``requires_grad``, printing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_autograd_gradcheck import (
    COMPLEX,
    DIFFERENTIABLE,
    WITH_INPLACE,
    _cases,
    _complex_setup,
    _first_order_only,
    _float_outputs,
    _inplace_fn,
    _setup,
    _split,
)

import tensorcore as tc
import tensorcore.autograd.forward_ad as fwAD
from tensorcore.autograd import _dual
from tensorcore.autograd.grad_mode import dual as _dual_state
from tensorcore.ops.derivatives import DERIVATIVES
from tensorcore.testing.samples import SAMPLES, call_op


@pytest.fixture(autouse=True)
def _no_level_left_open() -> Any:
    yield
    if _dual_state.level is not None:  # (a failed test must not leave its level to the next)
        fwAD.exit_dual_level()
        pytest.fail("the test left a dual level open")


def _random_like(ts: list[tc.Tensor], seed: int) -> list[tc.Tensor]:
    g = tc.Generator("cpu").manual_seed(seed)
    out = []
    for t in ts:
        if t.dtype.is_complex:
            r = tc.randn(*t.shape, generator=g, dtype=tc.float64)
            i = tc.randn(*t.shape, generator=g, dtype=tc.float64)
            out.append(tc.complex(r, i).to(t.dtype).to(t.device))
        else:
            out.append(tc.randn(*t.shape, generator=g, dtype=t.dtype).to(t.device))
    return out


def _inner(a: tc.Tensor, b: tc.Tensor) -> float:
    """The real inner product under which reverse mode is the adjoint of forward mode."""
    return float((a.conj() * b).real.sum()) if a.dtype.is_complex else float((a * b).sum())


def _check_tangents(fn: Callable[..., Any], leaves: list[tc.Tensor]) -> None:
    """Forward-mode ``J t`` of ``fn`` at ``leaves``: the same primal values as a plain call,
    ``<w, J t> == <J^T w, t>`` with reverse mode's ``J^T w``, and ``J t`` equal to the
    central difference of ``fn`` along ``t``."""
    xs = [x.detach() for x in leaves]
    tans = _random_like(xs, 1)
    plain = [o.detach() for o in _float_outputs(fn(*xs))]
    with fwAD.dual_level():
        res = fn(*[fwAD.make_dual(x, t) for x, t in zip(xs, tans, strict=True)])
        unpacked = [fwAD.unpack_dual(o) for o in _float_outputs(res)]
    assert len(unpacked) == len(plain)
    jts = []
    for (primal, jt), want in zip(unpacked, plain, strict=True):
        assert jt is not None, "an output of a dual input has no tangent"
        assert jt.shape == primal.shape and jt.dtype == primal.dtype
        assert tc.allclose(primal.detach(), want, rtol=1e-10, atol=1e-12, equal_nan=True)
        jts.append(jt)

    # Reverse mode, the adjoint: <w, J t> == <J^T w, t>.
    rg = [x.clone().requires_grad_() for x in xs]
    outs = _float_outputs(fn(*rg))
    ws = _random_like([o.detach() for o in outs], 2)
    loss = sum(
        ((w.conj() * o).real if o.dtype.is_complex else w * o).sum()
        for w, o in zip(ws, outs, strict=True)
    )
    if not (isinstance(loss, tc.Tensor) and loss.requires_grad):
        lhs_rev = 0.0
    else:
        gs = tc.autograd.grad(loss, rg, allow_unused=True)
        lhs_rev = sum(_inner(g, t) for g, t in zip(gs, tans, strict=True) if g is not None)
    lhs_fwd = sum(_inner(w, jt) for w, jt in zip(ws, jts, strict=True))
    assert abs(lhs_fwd - lhs_rev) <= 1e-7 * (1 + abs(lhs_rev)), (lhs_fwd, lhs_rev)

    # Finite differences along t.
    h = 1e-6
    up = _float_outputs(fn(*[x + h * t for x, t in zip(xs, tans, strict=True)]))
    down = _float_outputs(fn(*[x - h * t for x, t in zip(xs, tans, strict=True)]))
    for jt, a, b in zip(jts, up, down, strict=True):
        fd = (a.detach() - b.detach()) / (2 * h)
        assert tc.allclose(jt, fd, rtol=1e-3, atol=1e-5, equal_nan=True), (jt, fd)


@pytest.mark.parametrize(("name", "i"), _cases(DIFFERENTIABLE))
def test_tangents_of_every_operator(device: str, name: str, i: int) -> None:
    fn, leaves, _ = _setup(device, name, i)
    try:
        _check_tangents(fn, leaves)
    except RuntimeError as exc:
        # Forward mode differentiates the gradient, which some operators' is not again
        # (``_ctc_loss``: PyTorch has no forward AD for it either, a NotImplementedError).
        if "is not implemented" not in str(exc) or not _first_order_only(fn, leaves):
            raise


@pytest.mark.parametrize(("name", "i"), _cases(DIFFERENTIABLE))
def test_tangents_are_differentiable_in_the_primals(device: str, name: str, i: int) -> None:
    """Reverse over forward: ``g(x) = <w, J(x) t>``, computed in forward mode, differentiated
    in ``x`` by reverse mode through the tangent, against the central difference of ``g``
    along a random direction (tangents are functions of the primals, as in PyTorch)."""
    fn, leaves, _ = _setup(device, name, i)
    xs = [x.detach() for x in leaves]
    tans, rs = _random_like(xs, 1), _random_like(xs, 4)

    def g(*ps: tc.Tensor) -> tc.Tensor:
        with fwAD.dual_level():
            res = fn(*[fwAD.make_dual(p, t) for p, t in zip(ps, tans, strict=True)])
            jts = [fwAD.unpack_dual(o).tangent for o in _float_outputs(res)]
        ws = _random_like(jts, 2)
        return sum((w.conj() * jt).real.sum() for w, jt in zip(ws, jts, strict=True))

    rg = [x.clone().requires_grad_() for x in xs]
    try:
        val = g(*rg)
    except RuntimeError as exc:
        if "is not implemented" not in str(exc) or not _first_order_only(fn, leaves):
            raise
        pytest.skip("no tangents: the gradient is not differentiable again (as PyTorch's)")
    if not val.requires_grad:
        pytest.skip("the tangent does not depend on the primals (a linear operator)")
    grads = tc.autograd.grad(val, rg, allow_unused=True)
    got = sum(_inner(gr, r) for gr, r in zip(grads, rs, strict=True) if gr is not None)
    h = 1e-6
    up = g(*[x + h * r for x, r in zip(xs, rs, strict=True)])
    down = g(*[x - h * r for x, r in zip(xs, rs, strict=True)])
    fd = float(up - down) / (2 * h)
    assert abs(got - fd) <= 1e-5 + 1e-3 * abs(fd), (got, fd)


@pytest.mark.parametrize(("name", "i"), _cases(COMPLEX))
def test_tangents_at_complex_points(device: str, name: str, i: int) -> None:
    fn, leaves = _complex_setup(device, name, i)
    _check_tangents(fn, leaves)


@pytest.mark.parametrize("mode", ["clone", "view"])
@pytest.mark.parametrize(("name", "i"), _cases(WITH_INPLACE))
def test_tangents_of_inplace_variants(device: str, name: str, i: int, mode: str) -> None:
    """``op_`` on a copy of a dual tensor (and through a transposed view of one) updates the
    tangent in place to the tangent of ``op``."""
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
    _check_tangents(_inplace_fn(name, rebuild, mode), leaves)


# ------------------------------------------------------------------ levels
def test_make_dual_needs_an_open_level(device: str) -> None:
    x = tc.ones(3, device=device)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    # Outside any level unpack_dual gives the tensor itself, without tangent.
    assert fwAD.unpack_dual(x) == (x, None)
    assert fwAD.unpack_dual(x, level=0).tangent is None


def test_levels_do_not_nest_and_exit_in_order() -> None:
    assert fwAD.enter_dual_level() == 0
    with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
        fwAD.enter_dual_level()
    with pytest.raises(RuntimeError, match="not the last one that was created"):
        fwAD.exit_dual_level(level=3)
    fwAD.exit_dual_level(level=0)
    with pytest.raises(RuntimeError, match="no level is open"):
        fwAD.exit_dual_level()
    with fwAD.dual_level() as level:  # a level's number is reused once it exited
        assert level == 0
        with pytest.raises(RuntimeError, match="Nested"), fwAD.dual_level():
            pass


def test_dual_level_is_a_decorator(device: str) -> None:
    @fwAD.dual_level()
    def tangent_of_square(x: tc.Tensor) -> tc.Tensor:
        return fwAD.unpack_dual(fwAD.make_dual(x, tc.ones_like(x)) ** 2).tangent

    assert tangent_of_square(tc.tensor([3.0], device=device)).tolist() == [6.0]
    assert _dual_state.level is None


def test_exit_drops_every_tangent_and_its_flag(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, tc.ones(2, device=device))
        y = d * 3
        v = y[1:]
        assert fwAD.unpack_dual(v).tangent.tolist() == [3.0]
    for t in (d, y, v):
        assert fwAD.unpack_dual(t).tangent is None
        assert not t.requires_grad and not t._requires_grad  # (back on the plain path)
        assert "tangent" not in repr(t)
    with fwAD.dual_level():  # a new level does not see the old tangents
        assert fwAD.unpack_dual(y).tangent is None


# ------------------------------------------------------------------ make_dual / unpack_dual
def test_a_long_level_keeps_no_dead_references(device: str) -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(tc.ones(2, device=device), tc.ones(2, device=device))
        for _ in range(3000):
            d = d * 1.0
        assert len(_dual_state.tensors) < 2100
        assert fwAD.unpack_dual(d).tangent.tolist() == [1.0, 1.0]


def test_make_dual_refuses_bad_tangents(device: str) -> None:
    x = tc.zeros(3, device=device)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"different size .* Tensor is of size \[3\] while "
                           r"the given forward gradient is of size \[2\]"):  # fmt: skip
            fwAD.make_dual(x, tc.ones(2, device=device))
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex"):
            fwAD.make_dual(x, tc.ones(3, dtype=tc.int64, device=device))
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex"):
            fwAD.make_dual(tc.ones(3, dtype=tc.int64, device=device), x)
        with pytest.raises(ValueError, match=r"primal's dtype tensorcore\.float32"):
            fwAD.make_dual(x, tc.ones(3, dtype=tc.float64, device=device))
        with pytest.raises(TypeError, match="argument 'tangent' must be Tensor, not float"):
            fwAD.make_dual(x, 1.0)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="argument 'tensor' must be Tensor, not int"):
            fwAD.unpack_dual(3)  # type: ignore[arg-type]
        with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
            fwAD.make_dual(x, x, level=5)
        d = fwAD.make_dual(x, tc.ones(3, device=device))
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level"):
            fwAD.make_dual(d, d)


def test_make_dual_is_a_view_carrying_the_tangent_as_given(device: str) -> None:
    x = tc.arange(6.0, device=device).reshape(2, 3).clone()
    t = tc.ones(2, 3, device=device)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert d._base is x and d.untyped_storage() is x.untyped_storage()
        primal, tangent = fwAD.unpack_dual(d)
        assert isinstance(fwAD.unpack_dual(d), fwAD.UnpackedDualTensor)
        assert tangent is t  # laid out as the primal: used as it is, later writes show
        t.mul_(2)
        assert fwAD.unpack_dual(d).tangent.tolist() == [[2.0] * 3] * 2
        # The primal: a view sharing the storage, without the tangent.
        assert primal._base is x and primal.untyped_storage() is x.untyped_storage()
        assert fwAD.unpack_dual(primal).tangent is None
        primal[0, 0] = 10.0
        assert x[0, 0].item() == 10.0
        # A tangent laid out otherwise is copied into the primal's layout.
        tt = tc.ones(3, 2, device=device).t()
        d2 = fwAD.make_dual(x, tt)
        got = fwAD.unpack_dual(d2).tangent
        assert got is not tt and got.stride() == x.stride() and got.tolist() == tt.tolist()


def test_requires_grad_of_dual_tensors(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    w = tc.tensor([3.0, 4.0], device=device, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, tc.ones(2, device=device))
        assert not d.requires_grad and d.is_leaf and d.grad_fn is None
        y = d * 2
        assert not y.requires_grad and y.grad_fn is None
        with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
            y.sum().backward()
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            d.register_hook(lambda g: g)
        assert d.numpy().tolist() == [1.0, 2.0] if device == "cpu" else True
        # The primal requires grad: so does the dual tensor, and reverse mode goes through it.
        dw = fwAD.make_dual(w, tc.ones(2, device=device))
        assert dw.requires_grad and dw.grad_fn is not None
        z = (dw * dw).sum()
        assert fwAD.unpack_dual(z).tangent.item() == 14.0
        z.backward()
        assert w.grad.tolist() == [6.0, 8.0]
        # requires_grad_() on a dual leaf: reverse mode then records it too.
        d.requires_grad_()
        assert d.requires_grad and fwAD.unpack_dual(d).tangent is not None
        (d * d).sum().backward()
        assert d.grad.tolist() == [2.0, 4.0]
        d.requires_grad_(False)
        assert not d.requires_grad and fwAD.unpack_dual(d * 1).tangent is not None
        # A dual-only tensor written in place with a value that requires grad joins the graph.
        e = fwAD.make_dual(x.clone(), tc.ones(2, device=device))
        e.mul_(w)
        assert e.requires_grad and e.grad_fn is not None
        assert fwAD.unpack_dual(e).tangent.tolist() == [3.0, 4.0]
        e.sum().backward()
        assert w.grad.tolist() == [7.0, 10.0]  # 6 + 1, 8 + 2


def test_tangents_propagate_under_no_grad_not_in_inference_mode(device: str) -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(tc.tensor([1.0], device=device), tc.tensor([2.0], device=device))
        with tc.no_grad():
            assert fwAD.unpack_dual(d * 3).tangent.tolist() == [6.0]
            assert fwAD.unpack_dual(d[0]).tangent.item() == 2.0  # (basic indexing too)
        with tc.inference_mode():
            assert fwAD.unpack_dual(d * 3).tangent is None


def test_tangents_are_differentiable_in_the_tangents_too(device: str) -> None:
    t = tc.tensor([1.0, 2.0], device=device, requires_grad=True)
    x = tc.tensor([0.5, 1.0], device=device)
    with fwAD.dual_level():
        jt = fwAD.unpack_dual(fwAD.make_dual(x, t).exp() * 3).tangent
    assert jt.requires_grad
    jt.sum().backward()
    assert tc.allclose(t.grad, 3 * x.exp())


def test_what_has_no_tangent(device: str) -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(tc.tensor([1.0, -2.0], device=device), tc.ones(2, device=device))
        for r in (d.detach(), d.data, d.argmax(), d > 0, d.long()):
            assert fwAD.unpack_dual(r).tangent is None
        c = d.clone()  # (its rule hands the gradient back: its tangent is still its own)
        assert fwAD.unpack_dual(c).tangent.tolist() == [1.0, 1.0]
        tan_d = fwAD.unpack_dual(d).tangent
        assert fwAD.unpack_dual(c).tangent.untyped_storage() is not tan_d.untyped_storage()
        c.mul_(3)
        assert tan_d.tolist() == [1.0, 1.0]
        assert fwAD.unpack_dual(d.sign()).tangent.tolist() == [0.0, 0.0]  # zero, not None


# ------------------------------------------------------------------ views and in-place
def test_a_views_tangent_is_the_same_view_of_the_tangent(device: str) -> None:
    with fwAD.dual_level():
        t = tc.arange(6.0, device=device).reshape(2, 3)
        d = fwAD.make_dual(tc.zeros(2, 3, device=device), t)
        for v in (d[1], d.t(), d.view(6), d.diagonal(), d[:, ::2], d.unsqueeze(0).expand(2, 2, 3)):
            vt = fwAD.unpack_dual(v).tangent
            assert vt.untyped_storage() is t.untyped_storage()
            assert vt.stride() == v.stride() and vt.storage_offset() == v.storage_offset()
        assert fwAD.unpack_dual(d[1]).tangent.tolist() == [3.0, 4.0, 5.0]


def test_inplace_updates_the_tangent_in_place_through_views(device: str) -> None:
    with fwAD.dual_level():
        db = fwAD.make_dual(tc.zeros(2, 3, device=device), tc.zeros(2, 3, device=device))
        tb = fwAD.unpack_dual(db).tangent
        src = fwAD.make_dual(tc.ones(3, device=device), tc.full((3,), 5.0, device=device))
        db[0].mul_(2).add_(src)
        assert fwAD.unpack_dual(db).tangent is tb
        assert tb.tolist() == [[5.0] * 3, [0.0] * 3]
        # A plain tensor (and its base, through a view) becomes dual.
        plain = tc.zeros(3, device=device)
        plain.add_(src)
        assert fwAD.unpack_dual(plain).tangent.tolist() == [5.0] * 3
        pb = tc.zeros(2, 3, device=device)
        pv = pb[1]
        pv.copy_(src)
        assert fwAD.unpack_dual(pb).tangent.tolist() == [[0.0] * 3, [5.0] * 3]
        assert fwAD.unpack_dual(pv).tangent.tolist() == [5.0] * 3
        assert not pb.requires_grad
        # Writes of plain values zero the tangent where they write.
        d = fwAD.make_dual(tc.zeros(3, device=device), tc.ones(3, device=device))
        d[1] = 7.0
        assert fwAD.unpack_dual(d).tangent.tolist() == [1.0, 0.0, 1.0]
        for fill in (lambda x: x.zero_(), lambda x: x.fill_(2.0), lambda x: x.uniform_()):
            d = fwAD.make_dual(tc.zeros(3, device=device), tc.ones(3, device=device))
            fill(d)
            assert fwAD.unpack_dual(d).tangent.tolist() == [0.0] * 3
        d = fwAD.make_dual(tc.zeros(3, device=device), tc.ones(3, device=device))
        d.unsqueeze_(0)
        assert fwAD.unpack_dual(d).tangent.shape == (1, 3)


# ------------------------------------------------------------------ what is refused
def test_out_and_operators_without_a_rule_are_refused(device: str, monkeypatch: Any) -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(tc.ones(3, device=device), tc.ones(3, device=device))
        with pytest.raises(NotImplementedError, match=r"forward AD with add_out .* out= function"):
            tc.add(d, 1, out=tc.empty(3, device=device))
        with pytest.raises(NotImplementedError, match=r"forward AD with add_out .* out= function"):
            tc.add(tc.ones(3, device=device), 1, out=d)
        monkeypatch.delitem(DERIVATIVES, "exp")
        tc.autograd.step.forget_rules()
        try:
            with pytest.raises(NotImplementedError, match="forward AD with exp that does not"):
                d.exp()
        finally:
            monkeypatch.undo()
            tc.autograd.step.forget_rules()
        assert fwAD.unpack_dual(d.exp()).tangent is not None


def test_custom_functions_need_a_jvp(device: str) -> None:
    class Double(tc.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: tc.Tensor) -> tc.Tensor:
            return a * 2

        @staticmethod
        def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
            return g * 2

    class WithJvp(Double):
        @staticmethod
        def forward(ctx: Any, a: tc.Tensor) -> tc.Tensor:
            ctx.save_for_forward(a)
            return a * a

        @staticmethod
        def jvp(ctx: Any, ta: tc.Tensor) -> tc.Tensor:
            (a,) = ctx.saved_tensors
            return 2 * a * ta

    with fwAD.dual_level():
        d = fwAD.make_dual(tc.tensor([3.0], device=device), tc.tensor([1.0], device=device))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            Double.apply(d)
        assert fwAD.unpack_dual(WithJvp.apply(d)).tangent.tolist() == [6.0]
        assert Double.apply(tc.ones(1, device=device)).tolist() == [2.0]  # no dual input


# ------------------------------------------------------------------ printing
def test_printing_shows_the_tangent_as_pytorch() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(tc.tensor([1.0, 2.0]), tc.tensor([5.0, 5.0]))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([5., 5.]))"
        assert repr(d.sum()) == "tensor(3., tangent=10.0)"
        s = fwAD.make_dual(tc.tensor(1.5, dtype=tc.float64), tc.tensor(2.0, dtype=tc.float64))
        assert repr(s) == "tensor(1.5000, dtype=tensorcore.float64, tangent=2.0)"
        w = fwAD.make_dual(tc.tensor([1.0], requires_grad=True), tc.tensor([1.0]))
        assert repr(w * 2) == "tensor([2.], grad_fn=<MulBackward0>, tangent=tensor([2.]))"


# ------------------------------------------------------------------ hand-written rules
def _tangents_of(fn: Callable[..., Any], xs: list[tc.Tensor], tans: list[tc.Tensor]) -> list[Any]:
    with fwAD.dual_level():
        res = fn(*[fwAD.make_dual(x, t) for x, t in zip(xs, tans, strict=True)])
        return [fwAD.unpack_dual(o).tangent for o in _float_outputs(res)]


@pytest.mark.parametrize("kind", ["real", "complex"])
@pytest.mark.parametrize(("name", "i"), _cases(sorted(_dual.FORWARD)))
def test_hand_written_rules_agree_with_the_generic_path(
    device: str, name: str, i: int, kind: str, monkeypatch: Any
) -> None:
    """The few operators with a written-out forward rule (``_dual.FORWARD``) give the tangents
    the generic path (their reverse rule) gives, on every sample, with one dual input or all
    of them; and so do Python scalars and mixed dtypes, which the samples include."""
    fn, leaves = (
        _complex_setup(device, name, i) if kind == "complex" else _setup(device, name, i)[:2]
    )
    xs = [x.detach() for x in leaves]
    tans = _random_like(xs, 3)
    for pick in [list(range(len(xs))), *([k] for k in range(len(xs)))]:

        def partial(*duals: tc.Tensor, pick: list[int] = pick) -> Any:
            return fn(*[d if k in pick else xs[k] for k, d in enumerate(duals)])

        fast = _tangents_of(partial, xs, tans)
        with monkeypatch.context() as m:
            m.setattr(_dual, "FORWARD", {})
            generic = _tangents_of(partial, xs, tans)
        for f, g in zip(fast, generic, strict=True):
            assert f.dtype == g.dtype and f.shape == g.shape and f.stride() == g.stride()
            assert tc.allclose(f, g, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ the double-backward jvps
@pytest.mark.parametrize("jvp", ["func", "functional"])
def test_double_backward_jvps_agree_with_forward_mode(device: str, jvp: str) -> None:
    """``tc.func.jvp`` and ``tc.autograd.functional.jvp`` (two reverse passes) give forward
    mode's tangents, also through a rule that takes the log of its output gradient (whose
    derivative vanished at the zero gradient they used to differentiate at)."""
    x = tc.tensor([0.1, 0.5, 1.0, -0.3], dtype=tc.float64, device=device)
    v = tc.tensor([1.0, -2.0, 0.5, 3.0], dtype=tc.float64, device=device)

    def f(t: tc.Tensor) -> tc.Tensor:
        return t.logcumsumexp(0) * t.sin()

    with fwAD.dual_level():
        want = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
    run = {
        "func": lambda: tc.func.jvp(f, (x,), (v,))[1],
        "functional": lambda: tc.autograd.functional.jvp(f, x, v)[1],
    }
    got = run[jvp]()
    assert tc.allclose(got, want, rtol=1e-12, atol=1e-12)
    assert not tc.allclose(want, tc.zeros_like(want))
