"""The backward pass's speed tricks against the plain paths they stand for: ``sum_to``'s
remembered reduction plans and its call through the ``sum`` lane, a reduction's gradient
expanded through the ``expand`` lane, ``fit_shape``'s remembered compatible shapes, and the
kernels the backward of a reduction or a division runs."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd.step import fit_shape
from tensorcore.ops import functions as ops
from tensorcore.ops.derivatives import _unreduce, sum_to
from tensorcore.testing import assert_close, to_numpy

# (gradient's shape, input's shape): leading dims only, inner dims only, both, to 0-d, none
PAIRS = [
    ((4, 3), (3,)),
    ((4, 3), (4, 1)),
    ((2, 4, 3), (1, 3)),
    ((2, 4, 3), (4, 1)),
    ((4, 3), ()),
    ((4, 3), (1, 1)),
    ((4, 3), (4, 3)),
    ((2, 1, 3), (1, 3)),
    ((0, 3), (1, 3)),
]


def _plain(g: tc.Tensor, shape: tuple[int, ...]) -> tc.Tensor:
    """``sum_to`` spelled out as it was before its plans: the method call, then a reshape."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    inner = tuple(lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1)
    if not inner:
        return g.sum(tuple(range(lead)))
    r = g.sum(tuple(range(lead)) + inner, keepdim=True)
    return r.reshape(shape) if lead else r


def _oracle(x: Any, shape: tuple[int, ...]) -> Any:
    lead = x.ndim - len(shape)
    x = x.sum(axis=tuple(range(lead)))
    keep = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return x.sum(axis=keep, keepdims=True) if keep else x


@pytest.mark.parametrize(("have", "shape"), PAIRS)
def test_sum_to_matches_the_plain_reduction(device: str, have: Any, shape: Any) -> None:
    g = tc.arange(float(np.prod(have)), device=device).reshape(have) / 7
    for _ in range(2):  # (the second call finds the plan the first one made)
        r = sum_to(g, shape)
        plain = _plain(g, shape)
        assert r.shape == plain.shape == shape
        assert r.dtype == plain.dtype
        if tc.device(device).type != "meta":
            assert_close(r, plain, rtol=0, atol=0)
            assert_close(r, _oracle(to_numpy(g), shape))


@pytest.mark.parametrize(("have", "shape"), [p for p in PAIRS if p[0] != p[1]])
def test_sum_to_records_under_grad_mode(device: str, have: Any, shape: Any) -> None:
    # (create_graph: the lane records the reduction, as the method call would)
    g = tc.ones(have, device=device, requires_grad=True)
    r = sum_to(g * 2, shape)
    assert r.grad_fn is not None
    r.sum().backward()
    assert g.grad is not None and g.grad.shape == have
    if tc.device(device).type != "meta":
        assert_close(g.grad, np.full(have, 2.0, np.float32))


def test_fit_shape_remembers_only_compatible_shapes(device: str) -> None:
    g = tc.ones(4, 3, device=device)
    assert fit_shape("F", 0, g, (1, 3)).shape == (1, 3)
    assert fit_shape("F", 0, g, (1, 3)).shape == (1, 3)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="invalid gradient at index 1"):
            fit_shape("F", 1, g, (2, 3))
        with pytest.raises(RuntimeError, match="expected shape compatible with"):
            fit_shape("F", 1, g, (5, 4, 3, 1))


def test_broadcast_operand_gradient_through_backward(device: str) -> None:
    # The engine's path to sum_to (apply_rule -> _fit -> fit_shape), repeated.
    a = tc.arange(6.0, device=device).reshape(2, 3).requires_grad_()
    b = tc.tensor([[0.5], [2.0]], device=device, requires_grad=True)
    for _ in range(2):
        a.grad = b.grad = None
        (a * b - b).sum().backward()
        if tc.device(device).type != "meta":
            assert_close(b.grad, [[3.0 - 3.0], [12.0 - 3.0]])
            assert_close(a.grad, [[0.5] * 3, [2.0] * 3])


def test_true_division_is_silent_and_ieee(device: str) -> None:
    # (the division kernel's common call sets the error state through tokens, not errstate)
    x = tc.tensor([1.0, -1.0, 0.0, 3.0], device=device)
    y = tc.tensor([0.0, 0.0, 0.0, 2.0], device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = x / y
    if tc.device(device).type != "meta":
        got = to_numpy(r)
        assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2]) and got[3] == 1.5


def test_evenly_distribute_backward_against_numpy(device: str) -> None:
    x = tc.tensor([[1.0, 3.0, 3.0], [float("nan"), 2.0, float("nan")]], device=device)
    for dim, keepdim, nan_ties in [((1,), True, False), ((1,), False, True), ((0,), False, False)]:
        v = x.amax(dim, keepdim=keepdim)
        g = tc.full(v.shape, 6.0, device=device)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (a NaN value without nan_ties: 0 / 0, silent)
            r = ops.evenly_distribute_backward(g, x, v, dim, keepdim, nan_ties)
        if tc.device(device).type == "meta":
            continue
        nx, nv = to_numpy(x), to_numpy(v)
        if not keepdim:
            nv = np.expand_dims(nv, dim)
        mask = (nx == nv) | (nan_ties & np.isnan(nx) & np.isnan(nv))
        with np.errstate(all="ignore"):
            want = 6.0 / mask.sum(axis=dim, keepdims=True) * mask
        assert_close(r, want.astype(np.float32), equal_nan=True)


@pytest.mark.parametrize(
    ("shape", "dims", "keepdim"),
    [((2, 3), (1,), True), ((2, 3), (0,), False), ((2, 3), None, False), ((), None, False),
     ((2, 3, 4), (0, 2), False), ((2, 3, 4), (1,), False)],
)  # fmt: skip
def test_unreduce_matches_the_plain_expand(
    device: str, shape: Any, dims: Any, keepdim: bool
) -> None:
    x = tc.arange(float(np.prod(shape)), device=device).reshape(shape)
    g = x.sum(dims, keepdim=keepdim) + 1
    r = _unreduce(g, shape, dims, keepdim)
    plain = x.sum(dims, keepdim=True) + 1 if shape else g
    assert r.shape == shape
    assert_close(r, plain.expand(shape), rtol=0, atol=0)


def test_reduction_double_backward_through_the_expand_lane(device: str) -> None:
    # create_graph: the rule's expand is recorded (the lane records, as the method would).
    x = tc.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    (g,) = tc.autograd.grad((x * x).sum(0, keepdim=True), x, create_graph=True)
    assert g.grad_fn is not None
    (gg,) = tc.autograd.grad(g.sum(), x)
    assert_close(g, [2.0, 4.0, 6.0])
    assert_close(gg, [2.0, 2.0, 2.0])
