"""The paths that small, everyday calls take (one nested loop for a small ``einsum``,
NumPy's set routines for ``unique``...) against NumPy or the general path they bypass, on
edge values (nan, -0), empty, non-contiguous and 16-bit inputs, and sizes on both sides of
each path's limit."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc


def _skip_meta(device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,jk->ik", [(4, 8), (8, 8)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
        ("i,i->", [(7,), (7,)]),
        ("ij,ij->ij", [(3, 4), (3, 4)]),
        ("ii,i->i", [(3, 3), (3,)]),
        ("ij,kj->ik", [(64, 64), (64, 64)]),  # (past the nested loop's limit: BLAS)
        ("ij,jk", [(2, 3), (3, 4)]),  # (implicit output)
        ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_two_operand_einsum_is_numpys(
    device: str, equation: str, shapes: list, dtype: type
) -> None:
    _skip_meta(device)
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal(s) * 4).astype(dtype) for s in shapes]
    got = tc.einsum(equation, *(tc.from_numpy(a).to(device) for a in arrays))
    want = np.einsum(equation, *arrays)
    assert got.dtype == tc.from_numpy(want).dtype
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-5, atol=1e-4)


def test_small_einsum_edge_operands(device: str) -> None:
    _skip_meta(device)
    x = tc.tensor([[np.nan, 1.0], [-0.0, 2.0]], device=device)
    y = tc.tensor([[1.0, 0.0], [0.0, 1.0]], device=device)
    r = tc.einsum("ij,jk->ik", x, y).cpu().numpy()
    assert np.isnan(r[0]).all() and r[1].tolist() == [0.0, 2.0]
    # a transposed operand, bools (counted: int64), an empty operand, a mismatch
    a = tc.arange(6.0, device=device).reshape(2, 3)
    np.testing.assert_array_equal(
        tc.einsum("ij,jk->ik", a.t(), a).cpu().numpy(), a.t().cpu().numpy() @ a.cpu().numpy()
    )
    b = tc.tensor([[True, True], [False, True]], device=device)
    assert tc.einsum("ij,k->ik", b, b[1]).tolist() == [[0, 2], [0, 1]]
    assert tc.einsum("ij,jk->ik", tc.ones(0, 3, device=device), a.t()).shape == (0, 2)
    with pytest.raises(RuntimeError):
        tc.einsum("ij,jk->ik", a, a)
