"""``unbind``, ``split`` and ``chunk`` with a gradient to record: one node of several outputs.

PyTorch records the views these return as the outputs of one node (``UnbindBackward0``,
``SplitBackward0``, ``SplitWithSizesBackward0``; ``chunk`` is ``split``), whose backward joins
the outputs' gradients back with zeros for an output that got none. The node names, output
numbers and errors below are PyTorch 2.13's, read by hand; the gradients are checked against
NumPy and finite differences.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.autograd.forward_ad as fwAD
from tensorcore.testing import assert_close

F64 = tc.float64

# (what to call, the node PyTorch names, how many outputs on a (4, 6) input)
CASES: list[tuple[str, Callable[[tc.Tensor], tuple[tc.Tensor, ...]], str, int]] = [
    ("unbind(1)", lambda t: t.unbind(1), "UnbindBackward0", 6),
    ("unbind(0)", lambda t: tc.unbind(t), "UnbindBackward0", 4),
    ("split(4, 1)", lambda t: t.split(4, 1), "SplitBackward0", 2),
    ("split([1, 2, 3], 1)", lambda t: t.split([1, 2, 3], 1), "SplitWithSizesBackward0", 3),
    ("split_with_sizes", lambda t: t.split_with_sizes([3, 1], 0), "SplitWithSizesBackward0", 2),
    ("chunk(3, -1)", lambda t: t.chunk(3, -1), "SplitBackward0", 3),
    ("chunk(3, 0)", lambda t: tc.chunk(t, 3, 0), "SplitBackward0", 2),
]
IDS = [c[0] for c in CASES]


def numpy_pieces(name: str, a: np.ndarray) -> list[np.ndarray]:
    """The same pieces in NumPy (the oracle)."""
    if name.startswith("unbind"):
        d = int(name[-2])
        return [a[(slice(None),) * d + (i,)] for i in range(a.shape[d])]  # (views)
    bounds = {
        "split(4, 1)": (1, [4]),
        "split([1, 2, 3], 1)": (1, [1, 3]),
        "split_with_sizes": (0, [3]),
        "chunk(3, -1)": (1, [2, 4]),
        "chunk(3, 0)": (0, [2]),
    }[name]
    return np.split(a, bounds[1], axis=bounds[0])


@pytest.mark.parametrize(("name", "fn", "node", "n"), CASES, ids=IDS)
def test_the_outputs_are_one_nodes_views(
    device: str, name: str, fn: Callable[..., Any], node: str, n: int
) -> None:
    x = tc.randn(4, 6, dtype=F64, device=device, requires_grad=True)
    outs = fn(x)
    assert len(outs) == n
    first = outs[0].grad_fn
    assert type(first).__name__ == node
    for i, o in enumerate(outs):
        assert o.grad_fn is first
        assert o._base is x and o.data_ptr() == x.data_ptr() + o.storage_offset() * 8
        assert (o._ag.output_nr if o._ag is not None else 0) == i
    assert first.next_functions[0][0] is x.grad_fn or first.next_functions[0][1] == 0


@pytest.mark.parametrize(("name", "fn", "node", "n"), CASES, ids=IDS)
def test_gradients_of_some_outputs_against_numpy(
    device: str, name: str, fn: Callable[..., Any], node: str, n: int
) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 6))
    x = tc.tensor(a, device=device, requires_grad=True)
    outs = fn(x)
    # every other output takes part (the others get no gradient: zeros in the join)
    weights = [rng.standard_normal(o.shape) for o in outs]
    loss = sum((outs[i] * tc.tensor(weights[i], device=device)).sum() for i in range(0, n, 2))
    (g,) = tc.autograd.grad(loss, x)
    want = np.zeros_like(a)
    pieces = numpy_pieces(name, want)
    for i in range(0, n, 2):
        pieces[i][...] = weights[i]
    assert_close(g.cpu().numpy(), want)


@pytest.mark.parametrize(("name", "fn", "node", "n"), CASES, ids=IDS)
def test_gradcheck_and_gradgradcheck(
    device: str, name: str, fn: Callable[..., Any], node: str, n: int
) -> None:
    x = tc.randn(4, 6, dtype=F64, device=device, requires_grad=True)

    def f(t: tc.Tensor) -> tuple[tc.Tensor, ...]:
        return tuple(o * o for o in fn(t)[::2])

    assert tc.autograd.gradcheck(f, (x,))
    assert tc.autograd.gradgradcheck(f, (x,))


def test_forward_ad_through_the_views(device: str) -> None:
    x = tc.randn(4, 6, dtype=F64, device=device)
    v = tc.randn(4, 6, dtype=F64, device=device)
    with fwAD.dual_level():
        outs = fwAD.make_dual(x, v).split([1, 5], 1)
        tangents = [fwAD.unpack_dual(o).tangent for o in outs]
    assert_close(tangents[0], v[:, :1])
    assert_close(tangents[1], v[:, 1:])


def test_errors_as_pytorchs(device: str) -> None:
    x = tc.ones(4, 6, dtype=F64, device=device, requires_grad=True)
    b = x * 1
    us = b.unbind(1)
    with pytest.raises(RuntimeError, match=r"^Output 2 of Unbind is a view and is being modified"):
        us[2].add_(1)
    a, _ = b.chunk(2)
    b.mul_(2)
    with pytest.raises(
        RuntimeError, match=r"^Output 0 of Split is a view and its base or another view of its"
    ):
        a.grad_fn  # noqa: B018
    b = x * 1
    with tc.no_grad():
        free = b.unbind(0)
    assert free[0].grad_fn is None and free[0].requires_grad
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly"):
        x.split([1, 2], 1)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative"):
        x.split(-1)


def test_one_output_and_a_double_backward_with_unused_outputs(device: str) -> None:
    y = tc.ones(3, dtype=F64, device=device, requires_grad=True)
    assert [type(o.grad_fn).__name__ for o in (*y.split(3), *y.chunk(1))] == ["SplitBackward0"] * 2
    assert_close(tc.autograd.grad(y.split(3)[0].sum() * 2, y)[0], tc.full((3,), 2.0, dtype=F64))
    z = tc.arange(6.0, dtype=F64, device=device).reshape(2, 3).requires_grad_()
    p, _ = z.unbind(0)
    (gz,) = tc.autograd.grad((p * p).sum(), z, create_graph=True)
    assert type(gz.grad_fn).__name__ == "StackBackward0"
    assert gz.tolist() == [[0.0, 2.0, 4.0], [0.0, 0.0, 0.0]]
    assert tc.autograd.grad(gz.sum(), z)[0].tolist() == [[2.0] * 3, [0.0] * 3]


def test_a_layout_without_the_strided_kernel_differentiates_through_the_parts() -> None:
    pytest.importorskip("tensorcore_sparse")
    x = tc.randn(3, 4, dtype=F64).to_sparse().requires_grad_()
    outs = x.unbind(0)
    # (the composite's definition: one select each, named as PyTorch names the outputs)
    assert type(outs[0].grad_fn).__name__ == "UnbindBackward0"
    assert outs[0].grad_fn is not outs[1].grad_fn
