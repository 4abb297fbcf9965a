"""Gradients through sparse operations.

The contract: the gradient with respect to a sparse input is a sparse COO tensor masked to
the input's sparsity pattern; the gradient with respect to a dense input is dense.
``sparse_gradcheck`` (``_sparse_helpers``) checks both and compares each stored value's
derivative with central differences; dense-input functions use ``tc.autograd.gradcheck``.
Gradient checks perturb values through NumPy, so they run on the CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _sparse_helpers import coo_parts, make, sparse_gradcheck
from hypothesis import given, settings

import tensorcore as tc

F64 = tc.float64
F = tc.nn.functional


def sp(rg: bool = True) -> tc.Tensor:
    """A 2 x 3 float64 tensor with a duplicate entry at (0, 2): uncoalesced."""
    x = tc.sparse_coo_tensor([[0, 1, 1, 0], [2, 0, 2, 2]], [0.3, 0.4, 0.5, 0.1], (2, 3), dtype=F64)
    return x.requires_grad_(rg)


def hybrid(rg: bool = True) -> tc.Tensor:
    """Sparse rows 0 and 2 (twice) of a 3 x 2 tensor, each row a dense value."""
    x = tc.sparse_coo_tensor([[0, 2, 2]], [[0.5, -0.2], [0.3, 0.7], [0.1, 0.2]], (3, 2), dtype=F64)
    return x.requires_grad_(rg)


def dense(*shape: int) -> tc.Tensor:
    data = np.random.default_rng(sum(shape)).uniform(0.2, 0.9, shape)
    return tc.from_numpy(data).requires_grad_()


CASES: dict[str, tuple[Callable[..., Any], Callable[[], list[Any]]]] = {
    "to_dense": (lambda x: x.to_dense(), lambda: [sp()]),
    "to_dense hybrid": (lambda x: x.to_dense(), lambda: [hybrid()]),
    "coalesce": (lambda x: x.coalesce(), lambda: [sp()]),
    "values": (lambda x: x.coalesce().values() * 2, lambda: [sp()]),
    "clone, to": (lambda x: x.clone().to(F64), lambda: [sp()]),
    "add sparse": (lambda x, y: x + y, lambda: [sp(), sp()]),
    "add dense": (lambda x, d: x + d, lambda: [sp(), dense(2, 3)]),
    "sub dense, alpha": (lambda d, x: tc.sub(d, x, alpha=2), lambda: [dense(2, 3), sp()]),
    "add broadcast": (lambda x, d: x + d, lambda: [sp(), dense(3)]),
    "mul sparse": (lambda x, y: x * y, lambda: [sp(), sp()]),
    "mul dense": (lambda x, d: x * d, lambda: [sp(), dense(2, 3)]),
    "mul broadcast": (lambda d, x: d * x, lambda: [dense(1, 3), sp()]),
    "mul hybrid": (lambda x, d: x * d, lambda: [hybrid(), dense(3, 2)]),
    "mul scalar, div": (lambda x: x * 3 / 2, lambda: [sp()]),
    "mul 0-dim": (lambda x, s: x * s, lambda: [sp(), tc.tensor(1.5, dtype=F64).requires_grad_()]),
    "neg": (lambda x: -x, lambda: [sp()]),
    "abs": (lambda x: (-x).abs(), lambda: [sp()]),
    "sqrt": (lambda x: x.sqrt(), lambda: [sp()]),
    "sin": (lambda x: x.sin(), lambda: [sp()]),
    "tan": (lambda x: x.tan(), lambda: [sp()]),
    "tanh": (lambda x: x.tanh(), lambda: [sp()]),
    "atan": (lambda x: x.atan(), lambda: [hybrid()]),
    "asinh, atanh": (lambda x: (x / 4).atanh().asinh(), lambda: [sp()]),
    "erfinv": (lambda x: (x / 4).erfinv(), lambda: [hybrid()]),
    "deg2rad, rad2deg": (lambda x: x.deg2rad() * 2 + x.rad2deg(), lambda: [sp()]),
    "expm1, log1p": (lambda x: x.expm1().log1p(), lambda: [sp()]),
    "relu": (lambda x: (x - x * 2).relu() + x.relu(), lambda: [sp()]),
    "pow": (lambda x: x**3, lambda: [sp()]),
    "t": (lambda x: x.t() * 2, lambda: [sp()]),
    "transpose dense dims": (lambda x: x.transpose(0, 0), lambda: [hybrid()]),
    "index_select negative": (lambda x: x.index_select(1, tc.tensor([-1, 0, -1])), lambda: [sp()]),
    "index_select dense dim": (lambda x: x.index_select(1, tc.tensor([-1, 0])), lambda: [hybrid()]),
    "select sparse dim": (lambda x: x.select(1, 2) * 2, lambda: [sp()]),
    "select last sparse dim (dense result)": (lambda x: x[0] * 2, lambda: [hybrid()]),
    "select dense dim": (lambda x: x.select(1, -1), lambda: [hybrid()]),
    "select of csr": (lambda x: x.to_sparse_csr()[1], lambda: [sp()]),
    "narrow_copy sparse dim": (lambda x: x.narrow_copy(1, 1, 2), lambda: [sp()]),
    "narrow_copy dense dim": (lambda x: x.narrow_copy(1, 1, 1), lambda: [hybrid()]),
    "unsqueeze sparse": (lambda x: x.unsqueeze(1) * 2, lambda: [sp()]),
    "unsqueeze dense": (lambda x: x.unsqueeze(2), lambda: [hybrid()]),
    "cat sparse dim": (lambda x, y: tc.cat([x, y * 3], 0), lambda: [sp(), sp()]),
    "cat dense dim": (lambda x, y: tc.cat([x, y], 1), lambda: [hybrid(), hybrid()]),
    "stack": (lambda x, y: tc.stack([x, y], 1).sum(), lambda: [sp(), sp()]),
    "sum": (lambda x: x.sum(), lambda: [sp()]),
    "norm": (lambda x: x.norm(), lambda: [sp()]),
    "norm p=3, hybrid": (lambda x: x.norm(3), lambda: [hybrid()]),
    "norm inf": (lambda x: tc.norm(x, float("inf")), lambda: [hybrid()]),
    "pow negative": (lambda x: x.pow(-1.5), lambda: [sp()]),
    "sum hybrid": (lambda x: x.sum(), lambda: [hybrid()]),
    "sum dim 0": (lambda x: tc.sparse.sum(x, 0), lambda: [sp()]),
    "sum dim 1": (lambda x: x.sum(1), lambda: [sp()]),
    "sum dense dim": (lambda x: x.sum(1), lambda: [hybrid()]),
    "sum keepdim": (lambda x: x.sum(0, keepdim=True), lambda: [sp()]),
    "mm sparse @ dense": (lambda x, d: tc.sparse.mm(x, d), lambda: [sp(), dense(3, 2)]),
    "spmm (torch.spmm, GCN code's spelling)": (
        lambda x, d: tc.spmm(x, d),
        lambda: [sp(), dense(3, 2)],
    ),
    "mm dense @ sparse": (lambda d, x: d @ x, lambda: [dense(4, 2), sp()]),
    "addmm bias, sparse @ dense": (
        lambda b, x, d: tc.addmm(b, x, d, beta=0.5, alpha=2.0),
        lambda: [dense(2), sp(), dense(3, 2)],
    ),
    "mm sparse @ sparse": (lambda x, y: x @ y.t(), lambda: [sp(), sp()]),
    "matmul vector": (lambda x, v: x @ v, lambda: [sp(), dense(3)]),
    "mv": (lambda x, v: tc.mv(x, v), lambda: [sp(), dense(3)]),
    "mv csr": (lambda x, v: tc.mv(x.to_sparse_csr(), v), lambda: [sp(), dense(3)]),
    "bmm": (
        lambda x, d: tc.bmm(x, d),
        lambda: [tc.stack([sp(False), sp(False) * 2]).requires_grad_(), dense(2, 3, 2)],
    ),
    "hspmm": (lambda x, d: tc.hspmm(x, d), lambda: [sp(), dense(3, 2)]),
    "smm": (lambda x, d: tc.smm(x, d), lambda: [sp(), dense(3, 2)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda: [sp(), dense(4, 3), dense(4)]),
    "softmax": (lambda x: tc.sparse.softmax(x, 1), lambda: [sp()]),
    "softmax dim 0": (lambda x: tc.sparse.softmax(x, 0), lambda: [sp()]),
    "log_softmax": (lambda x: tc.sparse.log_softmax(x, -1), lambda: [sp()]),
    "softmax dense dim": (lambda x: tc.sparse.softmax(x, 1), lambda: [hybrid()]),
    "sparse_mask dense": (lambda d, m: d.sparse_mask(m), lambda: [dense(2, 3), sp(False)]),
    "sparse_mask sparse": (lambda x, m: x.sparse_mask(m), lambda: [sp(), sp(False).t().t()]),
    "to_sparse": (lambda d: d.to_sparse() * 2, lambda: [dense(2, 3)]),
    "to_sparse hybrid": (lambda d: d.to_sparse(1).to_dense(), lambda: [dense(3, 2)]),
    "from values": (
        lambda v: tc.sparse_coo_tensor([[0, 1, 0], [1, 1, 1]], v, (2, 2)),
        lambda: [dense(3)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    fn, inputs = CASES[name]
    assert sparse_gradcheck(fn, inputs())


@pytest.mark.parametrize(
    "fn",
    [
        lambda d: (d.to_sparse() * d).to_dense(),
        lambda d: tc.sparse.mm(d.to_sparse(), d.t()),
        lambda d: tc.sparse.softmax(d.to_sparse(), 1).to_dense(),
        lambda d: (d.to_sparse().sin() + d).sum(),
    ],
    ids=["mul", "mm", "softmax", "sin"],
)
def test_dense_gradcheck_through_sparse(fn: Callable[..., Any]) -> None:
    # Dense inputs without zeros: their sparse form keeps every entry (see the contract).
    assert tc.autograd.gradcheck(fn, (dense(3, 3),))


@settings(max_examples=15, deadline=None)
@given(parts=coo_parts(max_nnz=5, max_size=3))
def test_gradcheck_on_generated_patterns(parts: Any) -> None:
    x = make(parts, "cpu").requires_grad_()
    assert sparse_gradcheck(lambda t: (t * t).sum() if t.ndim else t * t, [x])
    assert sparse_gradcheck(lambda t: t.sin().to_dense(), [x])


def test_gradient_is_masked_to_the_pattern() -> None:
    x = sp()
    d = tc.ones(3, 4, dtype=F64)
    (g,) = tc.autograd.grad((x @ d).sum(), x)
    assert g.is_sparse and g.is_coalesced()
    assert g.indices().tolist() == x.coalesce().indices().tolist()
    # Stored as .grad, it is flagged uncoalesced: PyTorch's AccumulateGrad keeps a sparse
    # gradient as a new tensor over its indices and values, without the flag.
    (x @ d).sum().backward()
    assert x.grad.is_sparse and not x.grad.is_coalesced()
    np.testing.assert_array_equal(x.grad._indices().numpy(), g.indices().numpy())
    # A second backward adds a gradient of the same pattern: summed entry by entry (PyTorch's
    # merge of two equal index lists), so repeated steps do not grow nnz.
    (x @ d).sum().backward()
    assert x.grad._nnz() == g._nnz() and not x.grad.is_coalesced()
    np.testing.assert_array_equal(x.grad.to_dense().numpy(), 2 * g.to_dense().numpy())
    # The dense gradient would be 4 everywhere; the masked one is 4 on the pattern only.
    assert g.to_dense().tolist() == [[0.0, 0.0, 4.0], [4.0, 0.0, 4.0]]


def test_dense_input_gets_a_dense_gradient() -> None:
    d = dense(3, 2)
    (tc.sparse.mm(sp(False), d)).sum().backward()
    assert d.grad is not None and not d.grad.is_sparse


def test_gradients_accumulate_across_backward_calls() -> None:
    x = sp()
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.is_sparse
    assert x.grad.to_dense().tolist() == [[0.0, 0.0, 5.0], [5.0, 0.0, 5.0]]


@pytest.mark.parametrize("sparse", [True, False])
def test_embedding_gradient(sparse: bool) -> None:
    w = tc.from_numpy(np.arange(20.0).reshape(10, 2)).requires_grad_()
    idx = tc.tensor([[1, 3], [1, 7]])
    out = F.embedding(idx, w, sparse=sparse)
    assert out.tolist() == [[[2.0, 3.0], [6.0, 7.0]], [[2.0, 3.0], [14.0, 15.0]]]
    (out * tc.arange(8.0, dtype=F64).reshape(2, 2, 2)).sum().backward()
    g = w.grad
    assert g.is_sparse == sparse
    if sparse:
        assert g._nnz() == 4 and not g.is_coalesced()  # one row per looked-up index
        assert g._indices().tolist() == [[1, 3, 1, 7]]
    expected = np.zeros((10, 2))
    expected[1] = [0 + 4, 1 + 5]
    expected[3] = [2, 3]
    expected[7] = [6, 7]
    got = g.to_dense() if sparse else g
    np.testing.assert_allclose(got.numpy(), expected)


@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_momentum_with_sparse_gradients_matches_dense_ones(nesterov: bool) -> None:
    # The sparse momentum buffer decays rows that the current gradient does not touch, as a
    # dense buffer does: the parameters follow the same path (PyTorch accepts this too).
    weights = []
    for sparse in (True, False):
        tc.manual_seed(0)
        emb = tc.nn.Embedding(6, 3, sparse=sparse)
        opt = tc.optim.SGD(emb.parameters(), lr=0.1, momentum=0.9, nesterov=nesterov)
        for rows in ([0, 2, 2], [4], [2, 5]):
            opt.zero_grad()
            emb(tc.tensor(rows)).pow(2).sum().backward()
            opt.step()
        buf = opt.state[emb.weight]["momentum_buffer"]
        assert buf.is_sparse == sparse and (not sparse or buf.is_coalesced())
        weights.append(emb.weight.detach().numpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6)


def test_sparse_gradient_update_does_not_densify() -> None:
    w = tc.from_numpy(np.ones((1000, 4))).requires_grad_()
    F.embedding(tc.tensor([5, 9, 5]), w, sparse=True).sum().backward()
    with tc.no_grad():
        w.sub_(0.5 * w.grad)
    assert w.detach()[5].tolist() == [0.0] * 4 and w.detach()[9].tolist() == [0.5] * 4
    assert w.detach()[0].tolist() == [1.0] * 4


def test_mixed_gradient_layouts_accumulate() -> None:
    w = tc.from_numpy(np.zeros((4, 2))).requires_grad_()
    F.embedding(tc.tensor([1]), w, sparse=True).sum().backward()
    assert w.grad.is_sparse
    (w * 2).sum().backward()  # a dense gradient on top of a sparse one
    assert not w.grad.is_sparse
    assert w.grad.tolist() == [[2.0, 2.0], [3.0, 3.0], [2.0, 2.0], [2.0, 2.0]]
    F.embedding(tc.tensor([2]), w, sparse=True).sum().backward()  # sparse into dense
    assert w.grad.tolist()[2] == [3.0, 3.0]


def test_a_shared_sparse_gradient_is_cloned_sparse() -> None:
    # Both lookups' gradients come from one incoming gradient: the leaf cannot keep it as is
    # (it is copied), and the copy stays sparse.
    w = tc.zeros(4, 2, requires_grad=True)
    v = tc.zeros(4, 2, requires_grad=True)
    i = tc.tensor([1, 2])
    (F.embedding(i, w, sparse=True) + F.embedding(i, v, sparse=True)).sum().backward()
    assert w.grad.is_sparse and v.grad.is_sparse
    assert v.grad.to_dense().tolist() == [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]


def test_embedding_rejects_float_indices() -> None:
    w = tc.ones(3, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Long, Int"):
        F.embedding(tc.tensor([1.0]), w, sparse=True)


# ---------------------------------------------------------------- version counter
def _coo(device: str) -> tc.Tensor:
    i = tc.tensor([[0, 1, 1], [2, 0, 2]], device=device)
    return tc.sparse_coo_tensor(i, tc.tensor([3.0, 4.0, 5.0], device=device), (2, 3)).coalesce()


#: In-place changes of a sparse tensor, through itself or an alias (PyTorch bumps the one
#: version counter they share for each).
IN_PLACE: dict[str, Callable[[tc.Tensor], Any]] = {
    "mul_": lambda s: s.mul_(2),
    "div_": lambda s: s.div_(2),
    "neg_": lambda s: s.neg_(),
    "add_": lambda s: s.add_(_coo(s.device.type)),
    "copy_": lambda s: s.copy_(_coo(s.device.type)),
    "out=": lambda s: tc.mul(_coo(s.device.type), 2, out=s),
    "detach().mul_": lambda s: s.detach().mul_(2),
    "coalesce().mul_": lambda s: s.coalesce().mul_(2),
    "values().mul_": lambda s: s.values().mul_(2),
    "_values().mul_": lambda s: s._values().mul_(2),
    "indices().add_": lambda s: s.indices().add_(0),
}


@pytest.mark.parametrize("change", sorted(IN_PLACE))
def test_backward_after_an_in_place_change_of_a_saved_sparse_tensor_raises(
    device: str, change: str
) -> None:
    s = _coo(device)
    alias = s.detach()
    w = tc.ones(3, 2, device=device, requires_grad=True)
    y = tc.sparse.mm(s, w)  # saves s for w's gradient
    assert s._version == 0
    IN_PLACE[change](s)
    assert s._version == 1 and alias._version == 1  # one bump, seen through every alias
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_backward_without_an_in_place_change_runs(device: str) -> None:
    s = _coo(device)
    w = tc.ones(3, 2, device=device, requires_grad=True)
    tc.sparse.mm(s, w).sum().backward()
    assert w.grad is not None and w.grad.tolist() == [[4.0, 4.0], [0.0, 0.0], [8.0, 8.0]]
    assert s._version == 0
    s.mul_(2)  # nothing saved any more
    assert s._version == 1 and tc.sparse.mm(s, w).sum().item() == 48.0
