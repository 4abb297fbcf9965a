"""The ``*_copy`` forms of the views (``tc.t_copy``, ``tc.unbind_copy``, ...): their values,
``out=`` (PyTorch's generated ``.out`` overloads), and ``alias_copy``. NumPy is the oracle."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc

# (name, args, the NumPy counterpart of the view)
CASES = [
    ("t_copy", (), lambda a: a.T),
    ("transpose_copy", (0, 1), lambda a: a.T),
    ("permute_copy", ((1, 0),), lambda a: a.transpose(1, 0)),
    ("view_copy", ((3, 2),), lambda a: a.reshape(3, 2)),
    ("unsqueeze_copy", (1,), lambda a: a[:, None]),
    ("diagonal_copy", (), lambda a: np.diagonal(a)),
    ("expand_copy", ((4, 2, 3),), lambda a: np.broadcast_to(a, (4, 2, 3))),
    ("select_copy", (1, 2), lambda a: a[:, 2]),
    ("alias_copy", (), lambda a: a),
    ("detach_copy", (), lambda a: a),
]


@pytest.mark.parametrize(("name", "args", "ref"), CASES, ids=[c[0] for c in CASES])
def test_copy_and_out(name: str, args: tuple, ref, device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device)
    fn = getattr(tc, name)
    y = fn(x, *args)
    np.testing.assert_array_equal(y.cpu().numpy(), ref(a))
    y.fill_(-1)  # its own memory
    assert x.cpu().numpy().tolist() == a.tolist()
    out = tc.empty(0, dtype=tc.float64, device=device)
    assert fn(x, *args, out=out) is out
    np.testing.assert_array_equal(out.cpu().numpy(), ref(a))


def test_out_is_resized_with_warning_and_needs_the_dtype(device: str) -> None:
    x = tc.ones(2, 3, device=device)
    out = tc.zeros(2, 3, device=device)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tc.t_copy(x, out=out)
    assert out.shape == (3, 2) and any("resized" in str(m.message) for m in w)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float"):
        tc.t_copy(x, out=tc.empty(0, dtype=tc.int64, device=device))


def test_list_views_fill_a_list_of_outs(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device)
    outs = [tc.empty(0, dtype=tc.float64, device=device) for _ in range(2)]
    assert tc.unbind_copy(x, out=outs) is None  # (PyTorch's .out overload returns nothing)
    for o, r in zip(outs, a, strict=True):
        np.testing.assert_array_equal(o.cpu().numpy(), r)
    outs = [tc.empty(0, dtype=tc.float64, device=device) for _ in range(2)]
    tc.split_with_sizes_copy(x, [1, 2], 1, out=outs)
    np.testing.assert_array_equal(outs[1].cpu().numpy(), a[:, 1:])
    with pytest.raises(RuntimeError, match="out= argument of size 2, got size 1"):
        tc.unbind_copy(x, out=outs[:1])


def test_out_is_not_recorded(device: str) -> None:
    x = tc.ones(2, 3, dtype=tc.float64, device=device, requires_grad=True)
    out = tc.empty(3, 2, dtype=tc.float64, device=device)
    tc.t_copy(x, out=out)
    assert not out.requires_grad and out.grad_fn is None
    assert tc.t_copy(x).requires_grad  # (without out=, the copy is differentiable)
