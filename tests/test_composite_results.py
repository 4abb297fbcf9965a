"""A composite's result is a new tensor to its caller, never a view of a temporary it made
(``ops/composite.py``'s ``_new_results``): ``stack`` is a ``cat`` viewed in a new shape, yet
``tc.stack(xs).detach_()`` works as in PyTorch, and so does the truncated backpropagation
through time of a recurrent layer's final state (``state.detach_()``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close, to_numpy
from tensorcore.testing.samples import SAMPLES, call_op, core_ops

F64 = tc.float64


def _tensors(x: Any) -> list[tc.Tensor]:
    if isinstance(x, tc.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _tensors(y)]
    if isinstance(x, dict):
        return [t for y in x.values() for t in _tensors(y)]
    return []


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "grad"])
@pytest.mark.parametrize("name", [n for n in core_ops() if "composite" in OPS[n].tags])
def test_a_composite_returns_no_view_of_its_temporaries(name: str, grad: bool) -> None:
    for sample in SAMPLES[name]("cpu", F64)[:3]:
        inputs = _tensors((sample.args, sample.kwargs))
        if grad:
            for t in inputs:
                if t.is_floating_point() and t.is_leaf:
                    t.requires_grad_()
        roots = {id(t._base if t._base is not None else t) for t in inputs}
        try:
            res = call_op(name, sample)
        except (RuntimeError, ValueError, TypeError, NotImplementedError):
            continue  # (a sample of an error, or a path autograd refuses)
        for r in _tensors(res):
            assert r._base is None or id(r._base) in roots, (name, sample)


def test_stack_is_not_a_view(device: str) -> None:
    a = tc.tensor([1.0, 2.0], dtype=F64, device=device, requires_grad=True)
    b = tc.tensor([3.0, 4.0], dtype=F64, device=device, requires_grad=True)
    s = tc.stack([a, b], 1)
    assert s._base is None and s.grad_fn.name() == "StackBackward0"
    s.mul_(tc.tensor([[1.0, 10.0]], dtype=F64, device=device))  # (in place: a new node on top)
    s.sum().backward()
    assert_close(a.grad, np.ones(2))
    assert_close(b.grad, np.full(2, 10.0))
    assert not s.detach_().requires_grad and s.grad_fn is None
    assert_close(s, np.array([[1.0, 30.0], [2.0, 40.0]]))


def test_a_view_of_the_input_stays_a_view(device: str) -> None:
    x = tc.arange(6.0, device=device)
    assert x.reshape(2, 3)._base is x and tc.unbind(x.view(2, 3))[1]._base is x
    c = x.view(2, 3).t().reshape(-1)  # (a copy: no view of x, nor of the copy)
    assert c._base is None and c.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    c.detach_()


@pytest.mark.parametrize("cls", [nn.RNN, nn.GRU, nn.LSTM])
def test_truncated_bptt_detaches_the_final_state_in_place(device: str, cls: Any) -> None:
    tc.manual_seed(0)
    rnn = cls(3, 4, num_layers=2).to(device)
    state = None
    for _ in range(2):
        out, state = rnn(tc.randn(5, 2, 3, device=device), state)
        out.sum().backward()
        for s in state if isinstance(state, tuple) else (state,):
            assert s._base is None
            s.detach_()
            assert not s.requires_grad and s.grad_fn is None
    assert np.isfinite(to_numpy(rnn.weight_hh_l0.grad)).all()


@pytest.mark.parametrize("grad", [False, True], ids=["plain", "grad"])
def test_the_wrappers_shortcut_agrees_with_the_scan(grad: bool) -> None:
    # ``_new_results`` keeps a view of its first argument (or of that argument's base)
    # without ``release_temporary_view``'s scan of every argument: the same base either way
    from tensorcore.ops.composite import COMPOSITES
    from tensorcore.ops.views import release_temporary_view

    cases = 0
    for name in [n for n in core_ops() if "composite" in OPS[n].tags]:
        for sample in SAMPLES[name]("cpu", F64)[:3]:
            if grad:
                for t in _tensors((sample.args, sample.kwargs)):
                    if t.is_floating_point() and t.is_leaf:
                        t.requires_grad_()
            fn = COMPOSITES[name]
            try:
                fast = fn(*sample.args, **sample.kwargs)
                plain = fn.__wrapped__(*sample.args, **sample.kwargs)  # type: ignore[attr-defined]
            except (RuntimeError, ValueError, TypeError, NotImplementedError, IndexError):
                continue
            if isinstance(plain, tc.Tensor) and plain._base is not None:
                release_temporary_view(plain, (*sample.args, *sample.kwargs.values()))
            if isinstance(fast, tc.Tensor):
                assert isinstance(plain, tc.Tensor)
                assert (fast._base is None) == (plain._base is None), (name, sample)
                if fast._base is not None:
                    assert fast._base is plain._base, (name, sample)
                cases += 1
    assert cases > 50
