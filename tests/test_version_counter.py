"""Version counters as PyTorch shares them: views and ``detach()`` share their source's,
``x.data`` gets one of its own (writes through it are hidden from autograd), and every fast
tensor builder fills the slot that holds it."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import backend
from tensorcore.autograd import detect_mutation

MODIFIED = "modified by an inplace operation"


def leaf(device: str) -> tc.Tensor:
    return tc.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)


def test_a_write_through_data_does_not_fail_backward(device: str) -> None:
    x = leaf(device)
    y = (x * x).sum()  # saves x twice
    x.data.mul_(2)
    assert x._version == 0
    y.backward()  # PyTorch's documented hazard: the gradient reads the new values
    assert x.grad is not None and x.grad.tolist() == [4.0, 8.0, 12.0]


def test_a_write_through_x_fails_backward(device: str) -> None:
    x = leaf(device)
    y = (x * x).sum()
    with tc.no_grad():
        x.mul_(2)
    assert x._version == 1
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_a_write_through_detach_fails_backward(device: str) -> None:
    x = leaf(device)
    y = (x * x).sum()
    d = x.detach()
    d.mul_(2)  # detach() shares x's counter
    assert x._version == d._version == 1
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_data_counts_its_own_writes(device: str) -> None:
    x = leaf(device)
    d = x.data
    assert d._version == 0 and d.untyped_storage() is x.untyped_storage()
    d.add_(1)
    assert (x._version, d._version) == (0, 1)
    with tc.no_grad():
        x.add_(1)
    assert (x._version, d._version) == (1, 1)  # and x's writes are not d's
    assert x.data._version == 0  # each access makes a fresh counter, as in PyTorch
    assert x.tolist() == [3.0, 4.0, 5.0]  # both wrote into the one storage


def test_views_of_data_share_its_counter(device: str) -> None:
    x = leaf(device)
    d = x.data
    v = d[1:]
    w = v.view(2, 1).t()
    w.add_(1)
    assert (x._version, d._version, v._version, w._version) == (0, 1, 1, 1)
    d.real.mul_(2)  # a view made by a route of its own (_part)
    assert (x._version, d._version, v._version) == (0, 2, 2)
    assert x.tolist() == [2.0, 6.0, 8.0]
    y = (x * x).sum()
    v.zero_()
    y.backward()  # no raise: v counts with x.data, not with x


def test_detach_of_data_shares_data_counter(device: str) -> None:
    x = leaf(device)
    d = x.data
    d.detach().add_(1)
    assert (x._version, d._version) == (0, 1)
    p = tc.nn.Parameter(d)  # Parameter(t) is a detach() of t
    with tc.no_grad():
        p.add_(1)
    assert (x._version, d._version) == (0, 2)


def test_detach_in_place_keeps_the_counter(device: str) -> None:
    x = leaf(device)
    h = x * 2
    y = (h * h).sum()  # saves h
    h.detach_()
    h.add_(1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_a_saved_output_keeps_its_counter(device: str) -> None:
    """An output saved for backward is kept as its fields: its counter is one of them."""
    a = leaf(device)
    base = tc.zeros(3, device=device)
    b = base.data  # a counter of its own
    b.add_(a)  # now recorded: b has a grad_fn
    b.exp_()  # exp saves its output, b
    y = b.sum()
    with tc.no_grad():
        base.mul_(1.0)  # another counter: not b's
    y.backward(retain_graph=True)
    assert a.grad is not None
    b.detach().mul_(1.0)  # b's counter
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_assigning_data_keeps_the_tensors_counter(device: str) -> None:
    x = leaf(device)
    y = (x * x).sum()
    with tc.no_grad():
        x.add_(0.0)
    other = tc.tensor([5.0, 6.0, 7.0], device=device)
    x.data = other
    assert x._version == 1 and other._version == 0  # x carries its own count on
    other.add_(1)
    assert x._version == 1  # other's writes are not x's, though x views its storage
    assert x.tolist() == [6.0, 7.0, 8.0]
    with tc.no_grad():
        x.add_(1)
    assert (x._version, other._version) == (2, 1)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()  # saved at version 0


def test_an_optimizer_writing_through_data_keeps_the_graph_usable(device: str) -> None:
    w = leaf(device)
    y = (w * w).sum()
    y.backward(retain_graph=True)
    assert w.grad is not None
    w.data.add_(w.grad, alpha=-0.1)  # the update of a hand-written optimizer
    assert w._version == 0
    y.backward()  # the graph still runs
    sgd = tc.optim.SGD([w], lr=0.1)
    before = w.tolist()
    sgd.step()  # the built-in optimizers write under no_grad, seen by autograd
    assert w.tolist() != before and w._version > 0


def test_bump_version_and_detect_mutation_follow_the_counter(device: str) -> None:
    x = leaf(device)
    d = x.data
    backend.bump_version(d)
    assert (x._version, d._version) == (0, 1)
    with detect_mutation():
        y = x * x
        x.data.mul_(1.0)  # backward would not fail: no report
        with pytest.raises(RuntimeError, match="detect_mutation"):
            x.detach().mul_(1.0)
    y.sum().backward()


def test_copies_of_data_start_their_own_history(device: str) -> None:
    x = leaf(device)
    d = x.data
    d.add_(1)
    for c in (copy.deepcopy(d), pickle.loads(pickle.dumps(d))):
        assert c.tolist() == d.tolist()
        c.add_(1)
        assert (x._version, d._version) == (0, 1)


def test_every_fast_builder_fills_the_counter_slot(device: str) -> None:
    """The builders that fill slots by hand set the counter slot: None for a tensor of a
    new storage, the source's for a tensor over the same one."""
    from tensorcore.autograd.graph import SavedTensor

    x = tc.ones(2, 3, device=device)
    d = x.data
    fresh = backend.contiguous_tensor(
        x.untyped_storage().data, 24, (2, 3), tc.float32, x.device, None
    )
    assert fresh._version_counter is None and x._version_counter is None
    assert (
        backend.make_tensor(x.untyped_storage(), (6,), (1,), 0, x.dtype, x.device)._version_counter
        is None
    )
    assert d._version_counter is not None
    for t in (d[0], d.t(), d.reshape(3, 2), d.detach(), tc.nn.Parameter(d)):
        assert t._version_counter is d._version_counter
    saved = SavedTensor(d[1], True, "Node")
    assert saved.unpack(None)._version_counter is d._version_counter


def test_sparse_data_has_its_own_counter() -> None:
    pytest.importorskip("tensorcore_sparse")
    s = tc.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)).coalesce()
    d = s.data
    assert d.is_sparse and d._version == 0
    d.mul_(2)
    assert (s._version, d._version) == (0, 1)
    assert s.to_dense().tolist() == [2.0, 4.0, 0.0]
    assert s.coalesce()._version == s._version  # an alias shares the counter
    assert d.coalesce()._version_counter is d._version_counter


def _composite_inplace_calls(device: str) -> list[tuple[str, Any]]:
    """(name, sample) for every composite with an in-place variant and a sample whose
    out-of-place result fits ``self`` (so that the in-place call takes it)."""
    from tensorcore.dispatch import _OPS
    from tensorcore.testing.samples import SAMPLES

    calls = []
    for name, op in sorted(_OPS.items()):
        if not (op.composite and op.decl.inplace) or name not in SAMPLES:
            continue
        for s in SAMPLES[name](device, tc.float64):
            self = s.args[0]
            if not isinstance(self, tc.Tensor) or self.dtype is not tc.float64:
                continue
            try:
                res = getattr(tc, name)(*s.args, **s.kwargs)
            except (RuntimeError, TypeError, ValueError, IndexError):
                continue
            if isinstance(res, tc.Tensor) and res.shape == self.shape and res.dtype == self.dtype:
                calls.append((name, s))
                break
    return calls


def test_a_composite_in_place_call_moves_the_version_once(device: str) -> None:
    """PyTorch moves the version once per in-place call; a composite's in-place variant
    writes through an in-place operator (``copy_``, ``index_put_``), which moves it, and
    the call path must not move it again. Without history and recorded alike."""
    calls = _composite_inplace_calls(device)
    assert {"addcmul", "index_add"} <= {n for n, _ in calls}
    for name, s in calls:
        for recorded in (False, True):
            self = s.args[0].detach().clone()
            if recorded:
                self = self.requires_grad_().clone()
            before = self._version
            getattr(self, name + "_")(*s.args[1:], **s.kwargs)
            assert self._version == before + 1, (name, recorded)


def test_an_into_self_definition_matches_the_composite(device: str) -> None:
    """A composite whose in-place variant writes into ``self`` itself (``into_self``:
    ``index_add_`` through ``index_put_``) gives the out-of-place composite's values,
    node name and gradients."""
    from tensorcore.ops.composite import COMPOSITES

    names = [n for n, fn in COMPOSITES.items() if getattr(fn, "into_self", None) is not None]
    assert "index_add" in names
    calls = [(n, s) for n, s in _composite_inplace_calls(device) if n in names]
    assert {n for n, _ in calls} == set(names)
    for name, s in calls:
        leaf = s.args[0].detach().clone().requires_grad_()
        src = [
            a.detach().clone().requires_grad_()
            if isinstance(a, tc.Tensor) and a.dtype.is_floating_point
            else a
            for a in s.args[1:]
        ]
        expect = getattr(tc, name)(leaf, *src, **s.kwargs)
        got = leaf.clone()
        getattr(got, name + "_")(*src, **s.kwargs)
        assert got.grad_fn is not None and got.grad_fn.name() == expect.grad_fn.name()
        assert tc.equal(got, expect)
        w = tc.randn(expect.shape, dtype=expect.dtype, device=device)
        inputs = [leaf, *(a for a in src if isinstance(a, tc.Tensor) and a.requires_grad)]
        g1 = tc.autograd.grad((expect * w).sum(), inputs)
        g2 = tc.autograd.grad((got * w).sum(), inputs)
        for a, b in zip(g1, g2, strict=True):
            assert tc.allclose(a, b)
        plain = s.args[0].detach().clone()
        getattr(plain, name + "_")(
            *(a.detach() if isinstance(a, tc.Tensor) else a for a in src), **s.kwargs
        )
        assert tc.equal(plain, expect.detach())
