"""A view's history after its base changed in place (``autograd/_view_history.py``).

PyTorch regenerates a view's ``grad_fn`` when its base, or another view of its base, was
modified in place since the view was made: the view then reads the new values, and its
gradient must flow through the in-place operation. The node names are PyTorch 2.13's, read
by hand (``python3 -c "import torch; ..."``); the gradients are checked against finite
differences (``gradcheck``) or against the values PyTorch gives.
"""

from __future__ import annotations

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
