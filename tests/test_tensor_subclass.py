"""Tensor subclasses (``nn.Parameter``) go through every operator as plain tensors do.

The hot paths test ``isinstance(x, Tensor)``: a test of ``x.__class__ is Tensor`` would send a
parameter down the scalar path of a kernel (a wrong answer, not an error). Every core
operator's samples run twice, once with plain tensors and once with each tensor argument
wrapped in a ``Parameter`` over the same values, and must agree.
"""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.nn import Parameter
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close
from tensorcore.testing.samples import SAMPLES, Sample, call_op, core_ops

F64 = tc.float64
_SKIP_TAGS = {"random", "factory"}


def _wrap(a: Any, clone: bool) -> Any:
    if isinstance(a, tc.Tensor):
        a = a.clone() if clone and a.layout is tc.strided else a
        return Parameter(a, requires_grad=False) if a.layout is tc.strided else a
    if isinstance(a, list):
        return [_wrap(x, clone) for x in a]
    if isinstance(a, tuple):
        return tuple(_wrap(x, clone) for x in a)
    return a


def _plain(a: Any) -> Any:
    if isinstance(a, tc.Tensor):
        return a.clone() if a.layout is tc.strided else a
    if isinstance(a, (list, tuple)):
        return type(a)(_plain(x) for x in a)
    return a


def _compare(got: Any, want: Any) -> None:
    if isinstance(want, tc.Tensor):
        assert isinstance(got, tc.Tensor) and type(got) is tc.Tensor
        assert_close(got, want, equal_nan=True)
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _compare(g, w)
    else:
        assert got == want


@pytest.mark.parametrize(
    "name", [n for n in core_ops() if not (_SKIP_TAGS & OPS[n].tags) and n in SAMPLES]
)
def test_parameters_compute_as_plain_tensors(device: str, name: str) -> None:
    for sample in SAMPLES[name](device, F64)[:3]:
        want = call_op(name, Sample(_plain(sample.args), _plain(sample.kwargs), sample.desc))
        wrapped = Sample(
            _wrap(sample.args, True),
            {k: _wrap(v, True) for k, v in sample.kwargs.items()},
            sample.desc,
        )
        got = call_op(name, wrapped)
        if got is wrapped.args[0] and isinstance(got, Parameter):
            got = got.detach()  # an in-place operator returns its (wrapped) self
        _compare(got, want)


def test_parameter_gradients_and_views(device: str) -> None:
    w = Parameter(tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, device=device))
    b = Parameter(tc.tensor([0.5, -0.5], dtype=F64, device=device))
    x = tc.tensor([[1.0, -1.0]], dtype=F64, device=device)
    y = tc.nn.functional.linear(x, w, b).tanh().sum() + (w.T * w).sum() + b[1] * 3
    y.backward()
    wd, bd = w.detach().requires_grad_(), b.detach().requires_grad_()
    y2 = tc.nn.functional.linear(x, wd, bd).tanh().sum() + (wd.T * wd).sum() + bd[1] * 3
    y2.backward()
    assert_close(w.grad, wd.grad)
    assert_close(b.grad, bd.grad)
    assert type(w.T) is tc.Tensor and w.T.grad_fn is not None


def test_legacy_constructor_as_pytorch() -> None:
    x = tc.Tensor([1, 2])
    assert type(x) is tc.Tensor and x.dtype is tc.get_default_dtype() and x.tolist() == [1, 2]
    assert tc.Tensor(2, 3).shape == (2, 3) and tc.Tensor(tc.Size([4])).shape == (4,)
    assert tc.Tensor().shape == (0,) and tc.Tensor(2, device="cpu").dtype is tc.float32
    src = tc.arange(3, requires_grad=False)
    alias = tc.Tensor(src)  # an alias of any dtype, sharing storage, without history
    assert alias is not src and alias.dtype is tc.int64
    alias[0] = 7
    assert src[0].item() == 7
    w = tc.ones(2, requires_grad=True)
    assert not tc.Tensor(w * 2).requires_grad
    tc.set_default_dtype(tc.float64)
    try:
        assert tc.Tensor([1]).dtype is tc.float64
    finally:
        tc.set_default_dtype(tc.float32)
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        tc.Tensor(1.5)
    with pytest.raises(TypeError, match="must be real number, not complex"):
        tc.Tensor([1j])
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        tc.Tensor([1], dtype=tc.float64)
    with pytest.raises(RuntimeError, match="expects device type: cpu but device type: meta"):
        tc.Tensor(2, device="meta")
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        tc.Tensor(2, -1)


class _Tagged(tc.Tensor):
    pass


def test_user_subclasses_construct_copy_and_pickle() -> None:
    import copy
    import pickle

    x = _Tagged([1.0, 2.0])
    assert type(x) is _Tagged and x.tolist() == [1.0, 2.0]
    assert type(x + 1) is _Tagged  # (Tensor.__torch_function__ keeps the subclass, as PyTorch)
    x.tag = "a"
    for y in (copy.deepcopy(x), pickle.loads(pickle.dumps(x))):
        assert type(y) is _Tagged and y.tag == "a" and y.tolist() == [1.0, 2.0]
    v = tc.ones(2).as_subclass(_Tagged)
    assert type(v) is _Tagged
    h = (tc.ones(2, requires_grad=True) * 3).as_subclass(_Tagged)
    assert h.requires_grad and h.grad_fn is not None  # keeps its place in the graph
    p = tc.Tensor._make_subclass(_Tagged, tc.zeros(2), True)
    assert type(p) is _Tagged and p.requires_grad and p.is_leaf
    (p * 2).sum().backward()
    assert p.grad is not None and p.grad.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        tc.ones(2).as_subclass(int)
    with pytest.raises(TypeError, match="argument 'data' \\(position 2\\) must be Tensor"):
        tc.Tensor._make_subclass(_Tagged, [1.0])


def test_core_tensor_creation_skips_the_legacy_constructor(monkeypatch: Any) -> None:
    calls = []
    real = tc.Tensor.__new__

    def spy(cls: type, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(tc.Tensor, "__new__", spy)
    a = tc.ones(3)
    (a + a).sum().tolist()
    Parameter(a)
    assert calls == []
