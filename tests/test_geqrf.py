"""``tc.geqrf``, ``tc.orgqr`` and ``tc.ormqr``: LAPACK's Householder QR format (NumPy's
``qr(mode="raw")``, which returns LAPACK's ``geqrf`` output transposed, as the oracle) and
products with the ``Q`` it encodes (NumPy's complete ``Q``)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close


def _rand(rng: np.random.Generator, shape: tuple[int, ...], complex_: bool) -> np.ndarray:
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if complex_ else a


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 4, 3)])
@pytest.mark.parametrize("complex_", [False, True])
def test_geqrf_is_lapacks(device: str, shape: tuple[int, ...], complex_: bool) -> None:
    rng = np.random.default_rng(0)
    a_np = _rand(rng, shape, complex_)
    h, tau_np = np.linalg.qr(a_np, mode="raw")
    a, tau = tc.geqrf(tc.tensor(a_np, device=device))
    # (LAPACK gives tau = 0 for the last column of a square or wide matrix: nothing below)
    assert_close(a.cpu().numpy(), np.swapaxes(h, -1, -2), rtol=1e-10, atol=1e-12)
    assert_close(tau.cpu().numpy(), tau_np, rtol=1e-10, atol=1e-12)
    m = shape[-2]
    q_np = np.linalg.qr(a_np, mode="complete")[0]
    c_np = _rand(rng, (*shape[:-2], m, 2), complex_)
    c = tc.tensor(c_np, device=device)
    for transpose, want in [
        (False, q_np @ c_np),
        (True, np.conj(np.swapaxes(q_np, -1, -2)) @ c_np),
    ]:
        got = tc.ormqr(a, tau, c, transpose=transpose)
        assert_close(got.cpu().numpy(), want, rtol=1e-10, atol=1e-12)
    ct_np = np.swapaxes(c_np, -1, -2)
    got = tc.ormqr(a, tau, tc.tensor(ct_np, device=device), left=False)
    assert_close(got.cpu().numpy(), ct_np @ q_np, rtol=1e-10, atol=1e-12)
    got = tc.ormqr(a, tau, tc.tensor(ct_np, device=device), left=False, transpose=True)
    assert_close(
        got.cpu().numpy(), ct_np @ np.conj(np.swapaxes(q_np, -1, -2)), rtol=1e-10, atol=1e-12
    )
    if shape[-2] >= shape[-1]:
        q = tc.orgqr(a, tau)
        assert_close(q.cpu().numpy(), q_np[..., : shape[-1]], rtol=1e-10, atol=1e-12)


def test_geqrf_zero_columns_and_errors(device: str) -> None:
    a, tau = tc.geqrf(tc.zeros(3, 2, device=device))
    assert a.abs().sum().item() == 0 and tau.tolist() == [0.0, 0.0]
    res = tc.tensor([[0.0, 1.0], [0.0, 2.0]], device=device).geqrf()
    assert res.tau.tolist()[0] == 0.0 and res.a[0, 1].item() == 1.0
    with pytest.raises(
        RuntimeError, match=r"^torch\.geqrf: input must have at least 2 dimensions\.$"
    ):
        tc.geqrf(tc.ones(3, device=device))
    a, tau = tc.geqrf(tc.ones(4, 2, device=device))
    with pytest.raises(RuntimeError, match=r"other.shape\[-2\] must be equal to input.shape\[-2\]"):
        tc.ormqr(a, tau, tc.ones(3, 3, device=device))


def test_ormqr_is_differentiable(device: str) -> None:
    a_np = np.random.default_rng(1).standard_normal((4, 3))
    a, tau = tc.geqrf(tc.tensor(a_np, device=device))
    c = tc.ones(4, 2, dtype=tc.float64, device=device, requires_grad=True)
    tc.ormqr(a, tau, c).sum().backward()
    q = np.linalg.qr(a_np, mode="complete")[0]
    assert_close(c.grad.cpu().numpy(), q.T @ np.ones((4, 2)), rtol=1e-10, atol=1e-12)
