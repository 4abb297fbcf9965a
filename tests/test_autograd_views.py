"""A view's history after its base changed in place (``autograd/_view_history.py``).

PyTorch regenerates a view's ``grad_fn`` when its base, or another view of its base, was
modified in place since the view was made: the view then reads the new values, and its
gradient must flow through the in-place operation. The node names are PyTorch 2.13's, read
by hand (``python3 -c "import torch; ..."``); the gradients are checked against finite
differences (``gradcheck``) or against the values PyTorch gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.autograd import _view_history
from tensorcore.testing import assert_close

F64 = tc.float64


def ones(n: int, device: str) -> tc.Tensor:
    return tc.ones(n, dtype=F64, device=device, requires_grad=True)


def name(t: tc.Tensor) -> str | None:
    fn = t.grad_fn
    return None if fn is None else type(fn).__name__


def test_a_view_reads_the_gradient_of_its_base_modified_in_place(device: str) -> None:
    # The reported case: v's grad_fn led to b's history before b.mul_(10).
    x = ones(3, device)
    b = x * 1
    v = b[0]
    assert name(v) == "SelectBackward0"
    b.mul_(10)
    assert name(v) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(x.grad, [10.0, 0.0, 0.0])


# (view, PyTorch's node before the in-place call; after it, every one is AsStridedBackward0)
VIEWS: dict[str, tuple[Callable[[tc.Tensor], tc.Tensor], str]] = {
    "select": (lambda b: b[1], "SelectBackward0"),
    "slice": (lambda b: b[1:], "SliceBackward0"),
    "narrow": (lambda b: b.narrow(1, 1, 2), "SliceBackward0"),
    "t": (lambda b: b.t(), "TBackward0"),
    "transpose": (lambda b: b.transpose(0, 1), "TransposeBackward0"),
    "permute": (lambda b: b.permute(1, 0), "PermuteBackward0"),
    "T": (lambda b: b.T, "PermuteBackward0"),
    "view": (lambda b: b.view(6), "ViewBackward0"),
    "reshape_as_view": (lambda b: b.reshape(3, 2), "ViewBackward0"),
    "flatten": (lambda b: b.flatten(), "ViewBackward0"),
    "diagonal": (lambda b: b.diagonal(), "DiagonalBackward0"),
    "unsqueeze": (lambda b: b.unsqueeze(0), "UnsqueezeBackward0"),
    "index_none": (lambda b: b[None], "UnsqueezeBackward0"),
    "squeeze": (lambda b: b[:1].squeeze(0), "SqueezeBackward1"),
    "expand": (lambda b: b[:, :1].expand(2, 4), "ExpandBackward0"),
    "as_strided": (lambda b: b.as_strided((2,), (2,), 1), "AsStridedBackward0"),
    "unfold": (lambda b: b.unfold(1, 2, 1), "UnfoldBackward0"),
    "view_of_a_view": (lambda b: b[1][1:], "SliceBackward0"),
    "tensor_split": (lambda b: b.tensor_split(2, 1)[1], "SliceBackward0"),
}


@pytest.mark.parametrize("view", list(VIEWS))
def test_every_view_follows_its_base(device: str, view: str) -> None:
    f, before = VIEWS[view]

    def fn(x: tc.Tensor) -> tc.Tensor:
        b = x * 1
        v = f(b)
        assert name(v) == before
        b.mul_(x)  # v now reads x * x: its old history would give the gradient of x
        assert name(v) == "AsStridedBackward0"
        return v * tc.arange(1.0, v.numel() + 1, dtype=F64, device=device).reshape(v.shape)

    x = tc.arange(1.0, 7.0, dtype=F64, device=device).view(2, 3).requires_grad_()
    assert tc.autograd.gradcheck(fn, (x,))


def test_values_as_pytorch_gives_them(device: str) -> None:
    x = tc.arange(1.0, 7.0, dtype=F64, device=device).view(2, 3).requires_grad_()
    b = x * 1
    v = b.t()
    b.mul_(x)
    (v * tc.arange(1.0, 7.0, dtype=F64, device=device).view(3, 2)).sum().backward()
    assert_close(x.grad, [[2.0, 12.0, 30.0], [16.0, 40.0, 72.0]])


# ------------------------------------------------------------------ chains
def test_two_in_place_calls_on_the_base(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[0:2]
    b.mul_(2)
    b.mul_(3)
    assert name(v) == "AsStridedBackward0"
    assert type(v.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    assert v.grad_fn.next_functions[0][0] is b.grad_fn  # the latest history, not the first
    v.sum().backward()
    assert_close(x.grad, [6.0, 6.0, 0.0])


def test_in_place_on_another_view_of_the_base(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v, w = b[0:2], b[1:]
    w.mul_(5)
    assert (name(v), name(w), name(b)) == ("AsStridedBackward0", "AsStridedBackward0", "CopySlices")
    v.sum().backward()
    assert_close(x.grad, [1.0, 5.0, 0.0])


def test_in_place_on_the_view_a_view_was_taken_of(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[0:2]
    vv = v[1:]
    v.mul_(5)
    assert (name(vv), name(v), name(b)) == (
        "AsStridedBackward0",
        "AsStridedBackward0",
        "CopySlices",
    )
    vv.sum().backward()
    assert_close(x.grad, [0.0, 5.0, 0.0])


def test_in_place_on_a_view_whose_base_changed_first(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[0:2]
    b.mul_(2)
    v.mul_(3)
    assert (name(v), name(b)) == ("AsStridedBackward0", "CopySlices")
    v.sum().backward()
    assert_close(x.grad, [6.0, 6.0, 0.0])


def test_a_view_modified_in_place_then_its_base(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    v.mul_(2)
    b.mul_(3)
    assert name(v) == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is b.grad_fn
    v.sum().backward()
    assert_close(x.grad, [6.0, 6.0, 0.0])


def test_a_view_used_between_in_place_calls_keeps_what_it_read(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[0:2]
    b.mul_(2)
    w = v * 2  # reads v at 2 * x: w's history is fixed from here on
    b.mul_(3)
    assert name(w) == "MulBackward0"
    assert name(w.grad_fn.next_functions[0][0].next_functions[0][0]) if False else True
    w.sum().backward(retain_graph=True)
    assert_close(x.grad, [4.0, 4.0, 0.0])
    x.grad = None
    (v * 1).sum().backward()  # v now reads 6 * x
    assert_close(x.grad, [6.0, 6.0, 0.0])


def test_a_view_as_an_input_after_the_in_place_call(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[1:]
    b.mul_(x)
    y = v * x[1:]  # x**3 on [1:]
    assert y.grad_fn.next_functions[0][0] is v.grad_fn
    assert name(v) == "AsStridedBackward0"
    y.sum().backward()
    assert_close(x.grad, [0.0, 3.0, 3.0])


# ------------------------------------------------------------------ backward variants
def test_retain_graph(device: str) -> None:
    x = tc.tensor([1.0, 2.0, 3.0], dtype=F64, device=device, requires_grad=True)
    b = x * 1
    v = b[:2]
    b.mul_(x)
    y = v.sum()
    y.backward(retain_graph=True)
    assert_close(x.grad, [2.0, 4.0, 0.0])
    y.backward()
    assert_close(x.grad, [4.0, 8.0, 0.0])


def test_double_backward(device: str) -> None:
    x = tc.tensor([1.0, 2.0, 3.0], dtype=F64, device=device, requires_grad=True)
    b = x * x
    v = b[:2]
    b.mul_(x)  # v reads x**3
    (g,) = tc.autograd.grad(v.sum(), x, create_graph=True)
    assert_close(g, [3.0, 12.0, 0.0])
    g.sum().backward()
    assert_close(x.grad, [6.0, 12.0, 0.0])


def test_gradgradcheck(device: str) -> None:
    def fn(x: tc.Tensor) -> tc.Tensor:
        b = x * x
        v = b[1:].t()
        b.mul_(x.sin())
        return v * v

    x = tc.rand(3, 2, dtype=F64, device=device).requires_grad_()
    assert tc.autograd.gradgradcheck(fn, (x,))


def test_backward_from_the_view_itself_and_autograd_grad(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[1:]
    b.mul_(4)
    (gx,) = tc.autograd.grad(v, x, tc.ones(2, dtype=F64, device=device))
    assert_close(gx, [0.0, 4.0, 4.0])


def test_the_generic_recorder_regenerates_too(device: str) -> None:
    # detect_mutation records through the generic recorder, not the compiled one.
    x = ones(3, device)
    with tc.autograd.detect_mutation():
        b = x * 1
        v = b[0]
        b.mul_(10)
        y = v * 1
    assert name(v) == "AsStridedBackward0"
    y.backward()
    assert_close(x.grad, [10.0, 0.0, 0.0])


# ------------------------------------------------------------------ grad mode, detach, .data
def test_in_place_on_the_base_under_no_grad(device: str) -> None:
    # PyTorch regenerates here too: the view reads the new values, whose history is the
    # base's (unchanged) one.
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    with tc.no_grad():
        b.mul_(10)
    assert name(v) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(x.grad, [1.0, 1.0, 0.0])


def test_in_place_on_a_leaf_base_under_no_grad(device: str) -> None:
    x = ones(3, device)
    v = x[:2]
    with tc.no_grad():
        x.mul_(2)
    assert name(v) == "AsStridedBackward0"
    assert type(v.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    v.sum().backward()
    assert_close(x.grad, [1.0, 1.0, 0.0])


def test_in_place_on_the_view_itself_under_no_grad(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    with tc.no_grad():
        v.mul_(2)
    assert (name(v), name(b)) == ("AsStridedBackward0", "MulBackward0")


def test_reading_under_no_grad_still_regenerates(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    b.mul_(2)
    with tc.no_grad():
        assert name(v) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(x.grad, [2.0, 2.0, 0.0])


def test_through_a_detached_alias(device: str) -> None:
    # detach() shares the version counter: the write is seen, the gradient is b's.
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    b.detach().mul_(10)
    assert name(v) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(x.grad, [1.0, 1.0, 0.0])


def test_writes_through_data_are_not_seen(device: str) -> None:
    # x.data counts its writes apart (PyTorch's set_data): nothing to regenerate.
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    b.data.mul_(10)
    assert name(v) == "SliceBackward0"


def test_views_without_history_stay_without(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    d = b.detach()
    v = d[:2]
    a = tc.zeros(3, dtype=F64, device=device)
    w = a[:2]
    b.mul_(10)
    a.add_(1)
    for t in (v, w):
        assert t.grad_fn is None and not t.requires_grad


def test_the_regenerated_node_is_kept(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    b.mul_(2)
    fn = v.grad_fn
    assert v.grad_fn is fn
    assert (v * 2).grad_fn.next_functions[0][0] is fn


# ------------------------------------------------------------------ hooks and printing
def test_retain_grad_follows_the_new_node_and_hooks_stay(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    v = b[:2]
    seen: list[Any] = []
    v.register_hook(lambda g: seen.append("old"))
    v.retain_grad()
    b.mul_(2)
    v.register_hook(lambda g: seen.append("new"))
    (v * 3).sum().backward()
    assert seen == ["new"]  # (PyTorch: hooks stay with the history they were put on)
    assert_close(v.grad, [3.0, 3.0])


def test_repr_names_the_regenerated_node(device: str) -> None:
    b = ones(3, device) * 1
    v = b[:2]
    b.mul_(2)
    assert repr(v).endswith("grad_fn=<AsStridedBackward0>)")


# ------------------------------------------------------------------ functions returning views
MULTI: dict[str, tuple[Callable[[tc.Tensor], Any], str]] = {
    "unbind": (lambda b: b.unbind(0), "Unbind"),
    "split": (lambda b: b.split(1), "Split"),
    "chunk": (lambda b: b.chunk(3), "Split"),
    "split_with_sizes": (lambda b: b.split([1, 2]), "SplitWithSizes"),
}


@pytest.mark.parametrize("fn", list(MULTI))
def test_outputs_of_a_function_returning_views(device: str, fn: str) -> None:
    f, what = MULTI[fn]
    b = ones(3, device) * 1
    outs = f(b)
    b.mul_(2)
    stale = f"Output 1 of {what} is a view and its base or another view of its base has been"
    with pytest.raises(RuntimeError, match=stale):
        _ = outs[1].grad_fn
    with pytest.raises(RuntimeError, match=stale):
        _ = outs[1] * 2
    assert repr(outs[1]).endswith("grad_fn=<Invalid>)")
    b = ones(3, device) * 1
    outs = f(b)
    with pytest.raises(RuntimeError, match=f"Output 0 of {what} is a view and is being modified"):
        outs[0].mul_(2)


def test_outputs_of_a_function_returning_views_written_under_no_grad(device: str) -> None:
    b = ones(3, device) * 1
    outs = b.split(1)
    with tc.no_grad():
        outs[0].mul_(2)  # allowed, as in PyTorch; using the output afterwards is not
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and its base"):
        _ = outs[0].grad_fn


def test_outputs_of_functions_returning_views_unused_after_the_write(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    outs = b.unbind()
    y = outs[1] * 2  # used before the write: fine
    b.mul_(2)
    y.backward()
    assert_close(x.grad, [0.0, 2.0, 0.0])


# ------------------------------------------------------------------ complex and real views
def test_real_views_of_a_complex_base(device: str) -> None:
    x = tc.tensor([1 + 2j, 3 - 1j, 0.5j], dtype=tc.complex128, device=device)
    x.requires_grad_()
    b = x * 1
    re, r = b.real, tc.view_as_real(b)
    b.mul_(2)
    assert (name(re), name(r)) == ("AsStridedBackward0", "ViewAsRealBackward0")
    re.sum().backward()
    assert_close(x.grad, tc.full((3,), 2 + 0j, dtype=tc.complex128, device=device))

    def fn(x: tc.Tensor) -> tc.Tensor:
        b = x * 1
        im = b.imag[1:]
        b.mul_(x)
        return im

    assert tc.autograd.gradcheck(fn, (x.detach().requires_grad_(),))


def test_complex_views_of_a_real_base(device: str) -> None:
    x = tc.arange(1.0, 7.0, dtype=F64, device=device).view(3, 2).requires_grad_()
    b = x * 1
    c = tc.view_as_complex(b)
    cc = c[1:]
    b.mul_(2)
    assert (name(c), name(cc)) == ("ViewAsComplexBackward0", "AsStridedBackward0")

    def fn(x: tc.Tensor) -> tc.Tensor:
        b = x * 1
        c = tc.view_as_complex(b.view(6).view(3, 2))[1:]
        b.mul_(x)
        return tc.view_as_real(c * c)

    assert tc.autograd.gradcheck(fn, (x.detach().requires_grad_(),))


def test_in_place_writes_through_real_and_imag(device: str) -> None:
    # PyTorch records z.real.mul_(2) and z.imag.copy_(t) as CopySlices over view_as_real;
    # they used to raise NotImplementedError. Finite differences are the oracle, the values
    # are PyTorch 2.13's.
    z0 = tc.tensor([1 + 2j, 3 - 1j], dtype=tc.complex128, device=device, requires_grad=True)
    w = tc.tensor([0.5 + 1j, -1 + 0.3j], dtype=tc.complex128, device=device)
    z = z0 * 1
    z.real.mul_(2)
    assert name(z) == "CopySlices"
    assert_close(z.detach(), tc.tensor([2 + 2j, 6 - 1j], dtype=tc.complex128, device=device))
    ((z * z.conj()).real.sum() + (z * w).real.sum()).backward()
    assert_close(z0.grad, tc.tensor([9 + 3j, 22 - 2.3j], dtype=tc.complex128, device=device))

    def scaled(z: tc.Tensor, t: tc.Tensor) -> tc.Tensor:
        b = z * 1
        b.real.mul_(t)
        b.imag[1:].add_(t[:1] * t[:1])
        return b * b

    def copied(z: tc.Tensor, t: tc.Tensor) -> tc.Tensor:
        b = z * z
        b.imag.copy_(t)
        return b.real * b.imag + b.abs()

    def as_complex(x: tc.Tensor, t: tc.Tensor) -> tc.Tensor:
        b = x * 1
        tc.view_as_complex(b)[1:].mul_(tc.view_as_complex(t.view(2, 2))[:1])
        return b * b

    zz = tc.tensor([1 + 2j, 3 - 1j], dtype=tc.complex128, device=device, requires_grad=True)
    t = tc.tensor([0.7, -1.3], dtype=F64, device=device, requires_grad=True)
    for fn in (scaled, copied):
        assert tc.autograd.gradcheck(fn, (zz, t))
        assert tc.autograd.gradgradcheck(fn, (zz, t))
    x = tc.arange(1.0, 5.0, dtype=F64, device=device).view(2, 2).requires_grad_()
    t4 = tc.tensor([0.5, -2.0, 1.5, 0.25], dtype=F64, device=device, requires_grad=True)
    assert tc.autograd.gradcheck(as_complex, (x, t4))


# ------------------------------------------------------------------ in-place view changes
def test_an_in_place_view_change_of_a_stale_view(device: str) -> None:
    x = tc.ones(2, 2, dtype=F64, device=device, requires_grad=True)
    b = x * 1
    v = b[:, :1]
    b.mul_(2)
    v.t_()
    assert type(v.grad_fn.next_functions[0][0]).__name__ == "AsStridedBackward0"
    b.mul_(3)  # v (still a view of b) follows again
    assert name(v) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(x.grad, [[6.0, 0.0], [6.0, 0.0]])


# ------------------------------------------------------------------ what it costs
def test_no_regeneration_without_an_in_place_write(monkeypatch: Any, device: str) -> None:
    calls: list[Any] = []
    real = _view_history._replay

    def counting(t: tc.Tensor, base: tc.Tensor) -> Any:
        calls.append(t)
        return real(t, base)

    monkeypatch.setattr(_view_history, "_replay", counting)
    x = ones(4, device)
    h = (x * 2).view(2, 2).t()[0].unsqueeze(0).expand(3, 2)
    y = (h * h).sum()
    _ = h.grad_fn, h[1:].grad_fn, repr(h)
    y.backward()
    assert calls == []
    b = x * 1
    v = b[1:]
    v.mul_(2)  # a write through v itself: v is rebased, not regenerated
    _ = v.grad_fn, v * 2
    assert calls == []
    b.mul_(2)
    _ = v * 2, v * 3, v.grad_fn
    assert calls == [v]  # once, then kept


def test_a_view_costs_no_autograd_state(device: str) -> None:
    # (its node notes the count; nothing is allocated for the view itself)
    x = ones(3, device)
    v = (x * 2)[1:]
    assert v._ag is None and v._grad_fn.view_version == v._version
    b = (x * 2).exp().sum(0, keepdim=True)
    b.mul_(3)
    assert b._ag is None


# ------------------------------------------------------------------ a base joining the graph
# PyTorch's view requires grad through its base: a view made before its base joined the
# graph (by an in-place call with an input that requires grad) follows it.
def test_a_view_of_a_base_that_joins_the_graph_in_place(device: str) -> None:
    w = ones(3, device)
    x = tc.zeros(3, dtype=F64, device=device)
    v, u = x[:2], x[1:]
    assert not v.requires_grad and v.grad_fn is None
    x.add_(w * 2)
    assert v.requires_grad and name(v) == "AsStridedBackward0"
    assert u.requires_grad and name(u) == "AsStridedBackward0"
    v.sum().backward()
    assert_close(w.grad, [2.0, 2.0, 0.0])  # d/dw of (2 w0 + 2 w1)


def test_a_view_of_a_base_that_joins_the_graph_through_another_view(device: str) -> None:
    w = tc.ones(2, dtype=F64, device=device, requires_grad=True)
    x = tc.zeros(4, dtype=F64, device=device)
    v = x.view(2, 2)
    v[0].copy_(w)
    assert (name(v), name(x)) == ("AsStridedBackward0", "CopySlices")
    (v * tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, device=device)).sum().backward()
    assert_close(w.grad, [1.0, 2.0])


# Every way into an operator (the lanes, the call path, the recorded step): the view's
# values are 2 w over its two elements; each function's derivative by hand.
JOINED: dict[str, tuple[Callable[[tc.Tensor], tc.Tensor], list[float]]] = {
    "exp": (lambda v: v.exp(), [2 * math.exp(2.0)] * 2),
    "add_number": (lambda v: v + 1, [2.0, 2.0]),
    "mul_tensor": (lambda v: v * v, [8.0, 8.0]),  # d(4 w^2)/dw
    "number_times": (lambda v: 3.0 * v, [6.0, 6.0]),
    "sum": (lambda v: v.sum(), [2.0, 2.0]),
    "matmul": (lambda v: tc.ones(2, 2, dtype=F64, device=v.device) @ v, [4.0, 4.0]),
    "where": (lambda v: tc.where(v > 0, v, 0.0), [2.0, 2.0]),
    "clamp": (lambda v: v.clamp(0, 10), [2.0, 2.0]),
    "index": (lambda v: v[[0, 1]], [2.0, 2.0]),
    "view_of_it": (lambda v: v.T[1:], [0.0, 2.0]),
    "cat": (lambda v: tc.cat([v, v]), [4.0, 4.0]),
}


@pytest.mark.parametrize("fn", list(JOINED))
def test_every_call_records_a_view_whose_base_joined_the_graph(device: str, fn: str) -> None:
    f, want = JOINED[fn]
    w = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    x = tc.zeros(3, dtype=F64, device=device)
    v = x[:2]
    x.add_(w * 2)
    f(v).sum().backward()
    assert_close(w.grad, [*want, 0.0])


def test_a_view_whose_base_joined_with_a_tensor_that_requires_grad(device: str) -> None:
    # (the case where the view's gradient would be lost silently)
    w = ones(3, device)
    u = tc.tensor([1.0, 3.0], dtype=F64, device=device, requires_grad=True)
    x = tc.zeros(3, dtype=F64, device=device)
    v = x[:2]
    x.add_(w * 2)
    (v * u).sum().backward()
    assert_close(w.grad, [2.0, 6.0, 0.0])
    assert_close(u.grad, [2.0, 2.0])


def test_a_view_of_a_leaf_that_requires_grad_since(device: str) -> None:
    x = tc.zeros(3, dtype=F64, device=device)
    v = x[:2]
    x.requires_grad_()
    assert v.requires_grad
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad"):
        v.mul_(2)


def test_views_of_a_leaf_that_requires_grad_are_not_written(device: str) -> None:
    x = ones(3, device)
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad"):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being"):
        x.mul_(2)
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being"):
        x.t_()
    v = tc.zeros(3, dtype=F64, device=device)[:2].requires_grad_()
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad"):
        v.mul_(2)  # (its base is a leaf, as PyTorch says it)


def test_an_integer_view_does_not_require_grad(device: str) -> None:
    x = tc.ones(4, dtype=tc.float32, device=device, requires_grad=True)
    with tc.no_grad():
        assert not x.view(tc.int32).requires_grad


# ------------------------------------------------------------------ views made under no_grad
NO_GRAD_DIRECT = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
    " Given that this use case is ambiguous and error-prone, it is forbidden."
)
NO_GRAD_INDIRECT = (
    "A view was created in no_grad mode and its base or another view of its base has been "
    "modified inplace with grad mode enabled."
)


def test_a_view_made_under_no_grad_requires_grad_without_history(device: str) -> None:
    x = ones(3, device)
    with tc.no_grad():
        v = x[:2]
    assert v.requires_grad and v.grad_fn is None and v.is_leaf
    y = v * 2
    assert y.requires_grad
    y.sum().backward()
    assert x.grad is None and v.grad is None  # (PyTorch's edge to nothing)


def test_a_view_made_under_no_grad_then_its_base_modified(device: str) -> None:
    x = ones(3, device)
    b = x * 1
    with tc.no_grad():
        v = b[:2]
    b.mul_(3)
    assert v.requires_grad
    with pytest.raises(RuntimeError) as e:
        _ = v.grad_fn
    assert str(e.value).startswith(NO_GRAD_INDIRECT)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its base"):
        _ = v * 2
    with tc.no_grad():
        b.mul_(2)
        u = b[:2]
    assert u.grad_fn is None  # (made after the write: nothing to refuse)


def test_a_view_made_under_no_grad_modified_in_place(device: str) -> None:
    w = ones(2, device)
    x = tc.zeros(4, dtype=F64, device=device)
    with tc.no_grad():
        v = x[:2]
        v.mul_(2)  # (both under no_grad: fine)
    with pytest.raises(RuntimeError) as e:
        v.copy_(w)
    assert str(e.value).startswith(NO_GRAD_DIRECT)
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being"):
        v[0] = w[0]
    v.add_(1)  # (no input requires grad: nothing recorded, nothing refused)
    b = ones(3, device) * 1
    with tc.no_grad():
        u = b[:2]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being"):
        u.mul_(2)


def test_a_view_of_a_view_made_under_no_grad(device: str) -> None:
    b = ones(3, device) * 1
    with tc.no_grad():
        v = b[:2]
    u = v[:1]
    assert name(u) == "SliceBackward0"
    with pytest.raises(RuntimeError) as e:
        u.mul_(2)
    assert str(e.value).startswith(
        "Output 0 of Slice is a view of a view which was created in no_grad mode and is being"
        " modified inplace with grad mode enabled."
    )
    with tc.no_grad():
        u.mul_(2)  # (allowed, as in PyTorch)
    v = b[:2]
    with tc.no_grad():
        s = v[:1]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being"):
        s.mul_(2)


def test_grad_mode_blocks_as_functions_and_decorators(device: str) -> None:
    x = ones(3, device) * 1

    @tc.no_grad()
    def take() -> tc.Tensor:
        return x[:2]

    @tc.set_grad_enabled(False)
    def take2() -> tc.Tensor:
        return x[1:]

    for v in (take(), take2()):
        with pytest.raises(RuntimeError, match="created in no_grad mode"):
            v.mul_(2)
    with tc.set_grad_enabled(False):
        v = x[:1]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        v.mul_(2)
    with tc.no_grad(), tc.enable_grad():
        v = x[:1]
    v.mul_(2)  # (made in grad mode)
    assert not tc.autograd.grad_mode.OFF  # (no thread has grad mode off now)


def test_a_view_made_in_inference_mode(device: str) -> None:
    b = ones(3, device) * 1
    with tc.inference_mode():
        v = b[:2]
    assert v.requires_grad and not v.is_inference()
    with pytest.raises(RuntimeError) as e:
        v.mul_(2)
    assert str(e.value).startswith(
        "A view was created in inference mode and is being modified inplace in normal mode."
    )
    b.mul_(2)
    with pytest.raises(RuntimeError, match="created in inference mode and its base or another"):
        _ = v.grad_fn


# ------------------------------------------------------------------ several views, Functions
def test_outputs_of_a_function_returning_views_of_a_tensor_without_grad(device: str) -> None:
    w = ones(3, device)
    x = tc.zeros(3, dtype=F64, device=device)
    a, b, _ = x.unbind()
    with pytest.raises(RuntimeError) as e:
        a.copy_(w[0])
    assert str(e.value).startswith(
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. This view is the output of a function that returns multiple views."
    )
    x.add_(w)
    assert b.requires_grad
    with pytest.raises(RuntimeError, match="This view is the output of a function that returns"):
        _ = b.grad_fn


def test_views_of_the_outputs_of_a_function_returning_views(device: str) -> None:
    b = ones(4, device) * 1
    first, _ = b.chunk(2)
    u = first[:1]
    assert name(u) == "SliceBackward0"
    with pytest.raises(RuntimeError) as e:
        u.mul_(2)
    assert str(e.value).startswith(
        "Output 0 of Slice is a view and is being modified inplace. This view is the output of "
        "a function that returns multiple views."
    )
    b.mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of Slice is a view and its base or"):
        _ = u.grad_fn


class _Head(tc.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        return x[:2]

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
        return tc.cat([g, g.new_zeros(1)])


class _Same(tc.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        return x

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
        return g


CUSTOM = "This view was created inside a custom Function (or because an input was returned as-is)"


def test_views_a_custom_function_returns(device: str) -> None:
    for f in (_Head, _Same):
        b = ones(3, device) * 1
        v = f.apply(b)
        assert name(v) == f"{f.__name__}Backward"
        with pytest.raises(RuntimeError) as e:
            v.mul_(2)
        assert str(e.value).startswith(f"Output 0 of {f.__name__} is a view and is being")
        assert CUSTOM in str(e.value)
    b = ones(3, device) * 1
    v = _Head.apply(b)
    with pytest.raises(RuntimeError, match="Output 0 of Slice is a view and is being"):
        v[:1].mul_(2)
    (v * 3).sum().backward()  # (used before any write: its backward is the Function's)
    b.mul_(2)
    with pytest.raises(RuntimeError, match="Output 0 of _Head is a view and its base"):
        _ = v.grad_fn


# ------------------------------------------------------------------ detach
def test_detach_in_place_of_a_view(device: str) -> None:
    b = ones(3, device) * 1
    for v in (b[:2], tc.zeros(3, device=device)[1:]):
        with pytest.raises(RuntimeError, match=r"^Can't detach views in-place\. Use detach\(\)"):
            v.detach_()
    assert not b.detach_().requires_grad


def test_a_write_through_detach_with_an_input_that_requires_grad(device: str) -> None:
    x = ones(3, device)
    y = x * 1
    v = y[:2]
    d = y.detach()
    d.mul_(x)  # d joins the graph on its own; y keeps its history, reads the new values
    assert (name(d), name(y), y._version) == ("MulBackward0", "MulBackward0", 1)
    assert name(v) == "AsStridedBackward0"
    v.sum().backward()  # v's values are x * x, its history y's: the gradient of y
    assert_close(x.grad, [1.0, 1.0, 0.0])
    w = ones(3, device)
    e = (w * 1)[:2].detach()
    e.mul_(w[:2])
    assert e.is_leaf is False and name(e) == "MulBackward0"


# ------------------------------------------------------------------ node names
def test_real_and_imag_record_select_of_view_as_real(device: str) -> None:
    z = tc.tensor([1 + 2j, 3 - 1j], dtype=tc.complex128, device=device, requires_grad=True)
    re, im = z.real, z.imag
    assert (name(re), name(im)) == ("SelectBackward0", "SelectBackward0")
    assert type(re.grad_fn.next_functions[0][0]).__name__ == "ViewAsRealBackward0"
    (re * 2 + im * 3).sum().backward()
    assert_close(z.grad, tc.full((2,), 2 + 3j, dtype=tc.complex128, device=device))
    r = ones(2, device)
    assert r.real is r and tc.real(r) is r
    assert tc.autograd.gradcheck(lambda z: z.imag * z.real, (z.detach().requires_grad_(),))


@pytest.mark.parametrize(
    ("call", "node"),
    [
        (lambda a: a[0].t_(), "TBackward1"),
        (lambda a: a.transpose_(0, 1), "TransposeBackward1"),
        (lambda a: a.swapdims_(0, 1), "TransposeBackward1"),
        (lambda a: a.unsqueeze_(0), "UnsqueezeBackward1"),
        (lambda a: a.squeeze_(), "SqueezeBackward3"),
        (lambda a: a.squeeze_(1), "SqueezeBackward4"),
    ],
)
def test_in_place_views_record_the_in_place_nodes(device: str, call: Any, node: str) -> None:
    x = tc.arange(1.0, 7.0, dtype=F64, device=device).view(2, 1, 3).requires_grad_()
    assert name(call(x * 1)) == node

    def fn(x: tc.Tensor) -> tc.Tensor:
        t = call(x * 1)
        return t * tc.arange(1.0, t.numel() + 1, dtype=F64, device=device).view(t.shape)

    assert tc.autograd.gradcheck(fn, (x,))


def test_a_view_whose_base_joined_the_graph_as_pytorch_reads_it(device: str) -> None:
    # Hooks and retain_grad reach its new history; out= refuses it; written in place before
    # anything gave it history, it is a leaf that requires grad (PyTorch's is_leaf).
    w = ones(3, device)
    x = tc.zeros(3, dtype=F64, device=device)
    v = x[:2]
    x.add_(w * 2)
    seen: list[Any] = []
    v.register_hook(lambda g: seen.append(g.tolist()))
    (v * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    assert_close(w.grad, [6.0, 6.0, 0.0])
    x = tc.zeros(3, dtype=F64, device=device)
    v = x[:2]
    x.add_(w * 2)
    with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments"):
        tc.mul(tc.ones(2, dtype=F64, device=device), 2, out=v)
    with pytest.raises(RuntimeError, match=r"^a leaf Variable that requires grad is being"):
        v.mul_(3)
    v[0] = 7.0  # (through a view of it made now: recorded)
    x.sum().backward()
    assert_close(w.grad, [6.0, 8.0, 2.0])
