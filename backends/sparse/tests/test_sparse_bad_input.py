"""Bad input to the sparse backend's own operators and functions, fuzzed as the core's are
(``tensorcore.testing.fuzz``): standard exceptions naming what was called, nothing of SciPy
leaking, nothing changed by a failed call, no return for a certainly invalid argument."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.testing import fuzz


def _s(d: Any) -> Any:
    i = tc.tensor([[0, 1, 1], [2, 0, 2]])
    return tc.sparse_coo_tensor(i, tc.tensor([3.0, 4.0, 5.0]), (2, 3), device=d)


def _c(d: Any) -> Any:
    return tc.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [3.0, 4.0, 5.0], (2, 3), device=d)


def _one(label: str, fn: Any, make: Any, types: dict[str, str]) -> fuzz.Target:
    # (the name the messages must contain: the label's last part, without what it says of
    # the inputs in parentheses)
    return fuzz.Target(label, label.rsplit(".", 1)[-1].split("(")[0], fn, make, types)


def _targets() -> list[fuzz.Target]:
    T: Any = tc.Tensor
    sp: Any = tc.sparse
    return [
        _one("tc.sparse_coo_tensor", tc.sparse_coo_tensor,
             lambda d: ((tc.tensor([[0, 1]]), tc.tensor([1.0, 2.0]), (3,)), {"device": d}),
             {"indices": "Any", "values": "Any", "size": "int[]?",
              "dtype": "ScalarType?", "device": "Device?", "requires_grad": "bool"}),
        _one("Tensor.to_dense", T.to_dense, lambda d: ((_s(d),), {}), {"dtype": "ScalarType?"}),
        _one("Tensor.to_sparse", T.to_sparse, lambda d: ((tc.ones(2, 3, device=d),), {}),
             {"sparse_dim": "int?"}),
        _one("Tensor.coalesce", T.coalesce, lambda d: ((_s(d),), {}), {}),
        _one("Tensor.sparse_mask", T.sparse_mask,
             lambda d: ((tc.ones(2, 3, device=d), _s(d)), {}), {"mask": "Tensor"}),
        _one("tc.sparse.mm", sp.mm, lambda d: ((_s(d), tc.ones(3, 2, device=d)), {}),
             {"mat1": "Tensor", "mat2": "Tensor"}),
        _one("tc.sparse.addmm", sp.addmm,
             lambda d: ((tc.ones(2, 2, device=d), _s(d), tc.ones(3, 2, device=d)), {}),
             {"mat": "Tensor", "mat1": "Tensor", "mat2": "Tensor", "beta": "Scalar",
              "alpha": "Scalar"}),
        _one("tc.sparse.sum", sp.sum, lambda d: ((_s(d),), {}),
             {"input": "Tensor", "dim": "int[]?", "dtype": "ScalarType?"}),
        _one("tc.sparse.softmax", sp.softmax, lambda d: ((_s(d), 1), {}),
             {"input": "Tensor", "dim": "int", "dtype": "ScalarType?"}),
        _one("tc.add", tc.add, lambda d: ((_s(d), _s(d)), {}),
             {"input": "Tensor|Scalar", "other": "Tensor|Scalar", "alpha": "Scalar"}),
        _one("tc.mul", tc.mul, lambda d: ((_s(d), 2.0), {}), {"other": "Tensor|Scalar"}),
        _one("Tensor.sum", T.sum, lambda d: ((_s(d),), {}), {"dim": "int[]?"}),
        _one("tc.sparse_csr_tensor", tc.sparse_csr_tensor,
             lambda d: ((tc.tensor([0, 1, 2]), tc.tensor([0, 1]), tc.tensor([1.0, 2.0]), (2, 2)),
                        {"device": d}),
             {"crow_indices": "Any", "col_indices": "Any", "values": "Any", "size": "int[]?",
              "dtype": "ScalarType?", "device": "Device?", "requires_grad": "bool"}),
        _one("Tensor.to_sparse_csr", T.to_sparse_csr, lambda d: ((tc.ones(2, 3, device=d),), {}),
             {"dense_dim": "int?"}),
        _one("Tensor.to_sparse(layout)", T.to_sparse,
             lambda d: ((tc.ones(2, 3, device=d),), {"layout": tc.sparse_csr}),
             {"layout": "Layout?", "blocksize": "int[]?", "dense_dim": "int?"}),
        _one("tc.sparse.mm(csr)", sp.mm, lambda d: ((_c(d), tc.ones(3, 2, device=d)), {}),
             {"mat1": "Tensor", "mat2": "Tensor"}),
        _one("tc.add(csr)", tc.add, lambda d: ((_c(d), _c(d)), {}),
             {"input": "Tensor|Scalar", "other": "Tensor|Scalar", "alpha": "Scalar"}),
        _one("tc.mul(csr)", tc.mul, lambda d: ((_c(d), 2.0), {}), {"other": "Tensor|Scalar"}),
        _one("Tensor.sum(csr)", T.sum, lambda d: ((_c(d),), {}), {"dim": "int[]?"}),
    ]  # fmt: skip


@pytest.mark.parametrize("label", [t.label for t in _targets()])
def test_sparse_function_under_bad_input(device: str, label: str) -> None:
    results = [fuzz.run(c) for c in fuzz.target_cases(_targets(), device, only={label})]
    assert results
    bad = [r.describe() for r in results if not r.ok]
    assert not bad, f"{len(bad)} of {len(results)} calls misbehave:\n" + "\n".join(bad)
