"""No operation densifies unless asked: every sparse operation on a 10^6 x 10^6 tensor with
100 non-zeros (8 TB if dense) runs within a few MiB, measured with ``tracemalloc`` (NumPy
reports its buffers to it). Operations whose result is dense by definition (sparse @ dense)
may allocate that result, and nothing more than a little beyond it."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc

N = 10**6
NNZ = 100
LIMIT = 1 << 20  # bytes beyond the dense result, if any


def big(seed: int, requires_grad: bool = False) -> tc.Tensor:
    rng = np.random.default_rng(seed)
    idx = tc.from_numpy(rng.integers(0, N, size=(2, NNZ)))
    vals = tc.from_numpy(rng.uniform(0.1, 1.0, NNZ).astype(np.float32))
    x = tc.sparse_coo_tensor(idx, vals, (N, N))
    return x.requires_grad_() if requires_grad else x


X, Y = big(0), big(1)
XC = X.coalesce()
ROW = tc.ones(1, N)
VEC = tc.ones(N, 1)


def _backward(fn: Callable[[tc.Tensor], tc.Tensor]) -> Callable[[], Any]:
    def run() -> Any:
        x = big(2, requires_grad=True)
        fn(x).backward()
        return x.grad

    return run


def _embedding_update() -> Any:
    w = WEIGHT
    F = tc.nn.functional
    F.embedding(tc.tensor([3, 999_999, 3]), w, sparse=True).sum().backward()
    with tc.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad = None
    return w


WEIGHT = tc.zeros(N, 2).requires_grad_()

OPS: dict[str, tuple[Callable[[], Any], int]] = {
    "coalesce": (lambda: X.coalesce(), 0),
    "add": (lambda: X + Y, 0),
    "sub": (lambda: XC - Y.coalesce(), 0),
    "add_ sparse": (lambda: X.clone().add_(Y), 0),
    "mul scalar": (lambda: X * 2.0, 0),
    "mul sparse": (lambda: X * Y, 0),
    "mul broadcast dense": (lambda: X * ROW, 0),
    "div": (lambda: X / 4, 0),
    "neg": (lambda: -X, 0),
    "abs": (lambda: X.abs(), 0),
    "sqrt": (lambda: X.sqrt(), 0),
    "sin": (lambda: X.sin(), 0),
    "tanh": (lambda: X.tanh(), 0),
    "relu": (lambda: X.relu(), 0),
    "pow": (lambda: X**2, 0),
    "t": (lambda: X.t(), 0),
    "transpose": (lambda: X.transpose(0, 1), 0),
    "sum": (lambda: X.sum(), 0),
    "sparse.sum dim 0": (lambda: tc.sparse.sum(X, 0), 0),
    "sum dim 1": (lambda: X.sum(1), 0),
    "mm sparse @ sparse": (lambda: X @ Y, 0),
    "sparse.mm sparse @ sparse.t": (lambda: tc.sparse.mm(XC, Y.t()), 0),
    "mm sparse @ dense vector": (lambda: X @ VEC, N * 4),
    "mm dense row @ sparse": (lambda: ROW @ X, N * 4),
    "softmax": (lambda: tc.sparse.softmax(X, 1), 0),
    "log_softmax": (lambda: tc.sparse.log_softmax(X, 0), 0),
    "sparse_mask": (lambda: X.sparse_mask(Y), 0),
    "clone": (lambda: X.clone(), 0),
    "to dtype": (lambda: X.to(tc.float64), 0),
    "detach": (lambda: X.detach(), 0),
    "values, indices": (lambda: (XC.values(), XC.indices()), 0),
    "zeros_like": (lambda: tc.zeros_like(X), 0),
    "backward sum": (_backward(lambda x: x.sum()), 0),
    "backward mul, sin": (_backward(lambda x: (x * 3).sin().sum()), 0),
    "backward sparse mm": (_backward(lambda x: (x @ Y).sum()), 0),
    "backward softmax": (_backward(lambda x: tc.sparse.softmax(x, 1).sum()), 0),
    "embedding sparse update (10^6 x 2)": (_embedding_update, 0),
}


@pytest.mark.parametrize("name", list(OPS))
def test_big_sparse_operation_stays_small(name: str) -> None:
    fn, result_bytes = OPS[name]
    fn()  # first call: dispatch resolution and caches, not the operation itself
    tracemalloc.start()
    try:
        out = fn()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out is not None
    assert peak < result_bytes + LIMIT, f"{name}: peak {peak / 2**20:.2f} MiB"


def test_results_are_right() -> None:
    dense_at = {
        (int(i), int(j)): v
        for (i, j), v in zip(XC.indices().t().tolist(), XC.values().tolist(), strict=True)
    }
    (i, j), v = next(iter(dense_at.items()))
    assert (X * 2.0).coalesce().values().tolist()[0] == pytest.approx(2 * v)
    assert X.sum().item() == pytest.approx(sum(dense_at.values()), rel=1e-5)
    col = (X @ VEC).numpy()[:, 0]
    assert col[i] == pytest.approx(sum(w for (r, _), w in dense_at.items() if r == i), rel=1e-5)
    t = X.t().coalesce()
    assert (j, i) in {(int(a), int(b)) for a, b in t.indices().t().tolist()}
