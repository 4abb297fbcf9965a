"""``linalg.lstsq``: the solution against NumPy's (minimum-norm, SVD-based) least squares,
which fields each driver fills (PyTorch's), rank-deficient inputs, batches, vectors, errors
and gradients."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F64 = tc.float64


def t(x: Any, device: str, grad: bool = False) -> tc.Tensor:
    return tc.tensor(np.asarray(x), dtype=F64, device=device, requires_grad=grad)


CASES = [((5, 3), (5, 2)), ((2, 4), (2, 3)), ((3, 5, 2), (3, 5, 1)), ((4, 3), (4,))]


@pytest.mark.parametrize(("a_shape", "b_shape"), CASES)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_matches_numpy(device: str, a_shape: Any, b_shape: Any, driver: Any) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    res = tc.linalg.lstsq(t(a, device), t(b, device), driver=driver)
    assert type(res).__name__ == "linalg_lstsq"
    vector = len(b_shape) == len(a_shape) - 1
    bm = b[..., None] if vector else b
    want = np.linalg.pinv(a) @ bm
    assert_close(res.solution, want[..., 0] if vector else want, rtol=1e-9, atol=1e-10)
    m, n = a_shape[-2:]
    batch = a_shape[:-2]
    drv = driver or ("gelsy" if device == "cpu" else "gels")
    if drv == "gels":
        assert res.rank.shape == (0,)
    else:
        assert (
            res.rank.dtype == tc.int64 and res.rank.tolist() == np.full(batch, min(m, n)).tolist()
        )
    if drv != "gelsy" and m > n:
        assert_close(res.residuals, ((a @ want - bm) ** 2).sum(-2), rtol=1e-9, atol=1e-10)
    else:
        assert res.residuals.shape == (0,)
    if drv in ("gelsd", "gelss"):
        assert_close(res.singular_values, np.linalg.svd(a, compute_uv=False), rtol=1e-10, atol=0)
    else:
        assert res.singular_values.shape == (0,)


def test_rank_deficient_gives_the_minimum_norm_solution(device: str) -> None:
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([[1.0], [2.0], [4.0]])
    for driver in ("gelsy", "gelsd"):
        res = tc.linalg.lstsq(t(a, device), t(b, device), driver=driver)
        assert_close(res.solution, np.linalg.pinv(a) @ b, rtol=1e-9, atol=1e-12)
        assert res.rank.item() == 1 and res.residuals.shape == (0,)
    # rcond raises the threshold: the small singular value counts as zero
    a2 = np.array([[1.0, 0.0], [0.0, 1e-3], [0.0, 0.0]])
    res = tc.linalg.lstsq(t(a2, device), t(b, device), rcond=1e-2, driver="gelsd")
    assert res.rank.item() == 1
    assert_close(res.solution, np.array([[1.0], [0.0]]), rtol=0, atol=1e-12)


def test_gradients(device: str) -> None:
    rng = np.random.default_rng(1)
    a, b = t(rng.normal(size=(4, 2)), device, True), t(rng.normal(size=(4, 2)), device, True)
    assert tc.autograd.gradcheck(lambda a, b: tc.linalg.lstsq(a, b).solution, (a, b))
    fn = lambda a, b: tc.linalg.lstsq(a, b, driver="gelsd").residuals  # noqa: E731
    assert tc.autograd.gradcheck(fn, (a, b))


def test_errors() -> None:
    a, b = tc.ones(3, 2, dtype=F64), tc.ones(3, 1, dtype=F64)
    with pytest.raises(RuntimeError, match=r"input.size\(-2\) should match other.size\(-2\)"):
        tc.linalg.lstsq(a, b[:2])
    msg = "`driver` should be one of \\(gels, gelsy, gelsd, gelss\\)"
    with pytest.raises(RuntimeError, match=msg):
        tc.linalg.lstsq(a, b, driver="foo")
    with pytest.raises(RuntimeError, match="input must have at least 2 dimensions"):
        tc.linalg.lstsq(a[0], b[0])
    with pytest.raises(RuntimeError, match="input's dtype Float and other's dtype Double"):
        tc.linalg.lstsq(a.float(), b)
