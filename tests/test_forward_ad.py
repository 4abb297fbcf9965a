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
    _float_outputs,
    _inplace_fn,
    _setup,
    _split,
)

import tensorcore as tc
import tensorcore.autograd.forward_ad as fwAD
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
    loss = sum(((w.conj() * o).real if o.dtype.is_complex else w * o).sum() for w, o in zip(ws, outs, strict=True))
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
    _check_tangents(fn, leaves)


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
