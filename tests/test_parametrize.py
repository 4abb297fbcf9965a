"""``nn.utils.parametrize`` and the parametrizations (weight norm, spectral norm,
orthogonal), and the older hook-based ``weight_norm``/``spectral_norm``: PyTorch's
state-dict keys, class names and errors, values against NumPy, gradients to the originals."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn.utils import parametrizations as P
from tensorcore.nn.utils import parametrize
from tensorcore.testing import assert_close

F64 = tc.float64


class Symmetric(nn.Module):
    def forward(self, X: tc.Tensor) -> tc.Tensor:
        return X.triu() + X.triu(1).mT

    def right_inverse(self, A: tc.Tensor) -> tc.Tensor:
        return A.triu()


class Scale(nn.Module):
    def forward(self, X: tc.Tensor) -> tc.Tensor:
        return X * 2


def test_register_read_assign_and_remove() -> None:
    m = nn.Linear(3, 3).double()
    w0 = m.weight.detach().clone()
    parametrize.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert parametrize.type_before_parametrizations(m) is nn.Linear
    assert parametrize.is_parametrized(m) and parametrize.is_parametrized(m, "weight")
    assert not parametrize.is_parametrized(m, "bias")
    assert sorted(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert "weight" not in dict(m.named_parameters())
    W = m.weight.detach().numpy()
    assert np.allclose(W, W.T) and np.allclose(np.triu(W), np.triu(w0.numpy()))
    m(tc.ones(2, 3, dtype=F64)).sum().backward()
    assert m.parametrizations.weight.original.grad is not None
    S = tc.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]], dtype=F64)
    m.weight = S  # right_inverse stores the upper triangle
    assert_close(m.weight, S)
    parametrize.register_parametrization(m, "weight", Scale())  # chained
    assert_close(m.weight, 2 * S) and len(m.parametrizations.weight) == 2
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    m2 = copy.deepcopy(m)
    assert_close(m2.weight, 2 * S)
    parametrize.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert sorted(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    assert_close(m.weight, 2 * S)
    m3 = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Scale())
    orig = m3.parametrizations.weight.original.detach().clone()
    parametrize.remove_parametrizations(m3, "weight", leave_parametrized=False)
    assert_close(m3.weight, orig)


def test_parametrize_errors() -> None:
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametri"):
        parametrize.register_parametrization(nn.Linear(2, 2), "foo", Scale())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")

    class Flatten(nn.Module):
        def forward(self, X: tc.Tensor) -> tc.Tensor:
            return X.flatten()

    with pytest.raises(ValueError, match="may not change the shape of the tensor"):
        parametrize.register_parametrization(nn.Linear(2, 2), "weight", Flatten())
    m = parametrize.register_parametrization(nn.Linear(2, 2), "weight", Flatten(), unsafe=True)
    assert m.weight.shape == (4,)
    with pytest.raises(RuntimeError, match="does not implement right_inverse"):
        m.weight = tc.ones(4)
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        import pickle

        pickle.dumps(m)


def test_weight_norm_parametrization() -> None:
    for dim, gshape in [(0, (4, 1)), (1, (1, 3)), (None, ())]:
        m = nn.Linear(3, 4).double()
        w0 = m.weight.detach().numpy().copy()
        P.weight_norm(m, dim=dim)
        assert sorted(m.state_dict()) == [
            "bias",
            "parametrizations.weight.original0",
            "parametrizations.weight.original1",
        ]
        g = m.parametrizations.weight.original0
        assert tuple(g.shape) == gshape
        assert_close(m.weight, w0)  # g and v start at the weight's norm and the weight
        with tc.no_grad():
            g.mul_(2)
        assert_close(m.weight, 2 * w0)
        m(tc.ones(1, 3, dtype=F64)).sum().backward()
        assert g.grad is not None and m.parametrizations.weight.original1.grad is not None
    v = tc.randn(4, 3, dtype=F64, requires_grad=True)
    gg = tc.rand(4, 1, dtype=F64, requires_grad=True)
    assert tc.autograd.gradcheck(lambda g, v: P._weight_norm(v, g, 0), (gg, v))
    assert "ParametrizationList" in repr(m) and "_WeightNorm()" in repr(m)


def test_spectral_norm_parametrization() -> None:
    tc.manual_seed(0)
    m = P.spectral_norm(nn.Linear(6, 5).double())
    assert sorted(m.state_dict()) == [
        "bias",
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
        "parametrizations.weight.original",
    ]
    for _ in range(10):
        m(tc.ones(1, 6, dtype=F64))
    sigma = np.linalg.norm(m.weight.detach().numpy(), 2)
    assert sigma == pytest.approx(1.0, abs=1e-6)
    m.eval()
    u = m.parametrizations.weight[0]._u.clone()
    m(tc.ones(1, 6, dtype=F64))
    assert_close(m.parametrizations.weight[0]._u, u)
    ct = P.spectral_norm(nn.ConvTranspose2d(3, 4, 2))
    assert ct.parametrizations.weight[0].dim == 1
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        P.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'w'"):
        P.spectral_norm(nn.Linear(2, 2), "w")


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5)])
@pytest.mark.parametrize(
    ("orth_map", "triv"),
    [("matrix_exp", True), ("cayley", True), ("householder", True), ("householder", False)],
)
def test_orthogonal(shape: tuple[int, int], orth_map: str, triv: bool) -> None:
    tc.manual_seed(1)
    m = nn.Linear(shape[1], shape[0]).double()
    P.orthogonal(m, orthogonal_map=orth_map, use_trivialization=triv)
    k = min(shape)
    eye = np.eye(k)

    def gram() -> Any:
        W = m.weight.detach().numpy()
        return W @ W.T if shape[0] <= shape[1] else W.T @ W

    assert np.allclose(gram(), eye, atol=1e-9)
    opt = tc.optim.SGD(m.parameters(), lr=0.1)
    m(tc.randn(4, shape[1], dtype=F64)).pow(2).sum().backward()
    opt.step()
    assert np.allclose(gram(), eye, atol=1e-9)
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(max(shape), k)))[0]
    Q = Q if shape[0] >= shape[1] else Q.T
    m.weight = tc.tensor(Q)
    assert_close(m.weight, Q)
    keys = {"bias", "parametrizations.weight.original"}
    assert set(m.state_dict()) == (keys | {"parametrizations.weight.0.base"} if triv else keys)


def test_orthogonal_errors() -> None:
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        P.orthogonal(nn.Linear(2, 2), "bias")
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp"'):
        P.orthogonal(nn.Linear(2, 2), orthogonal_map="qr")
    m = P.orthogonal(nn.Linear(2, 2), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign to the matrix exp"):
        m.weight = tc.eye(2)


def test_hook_based_weight_norm_and_spectral_norm() -> None:
    m = nn.Linear(3, 4).double()
    w0 = m.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        nn.utils.weight_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert_close(m.weight, w0)
    with tc.no_grad():
        m.weight_g.mul_(3)
    out = m(tc.ones(1, 3, dtype=F64))
    assert_close(out, tc.ones(1, 3, dtype=F64) @ tc.tensor(3 * w0).T + m.bias)
    out.sum().backward()
    assert m.weight_g.grad is not None
    with (
        pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks"),
        pytest.warns(FutureWarning),
    ):
        nn.utils.weight_norm(m)
    nn.utils.remove_weight_norm(m)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    assert_close(m.weight, 3 * w0)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
        nn.utils.remove_weight_norm(m)
    tc.manual_seed(0)
    s = nn.utils.spectral_norm(nn.Linear(6, 5).double())
    assert sorted(s.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for _ in range(40):
        s(tc.ones(1, 6, dtype=F64))
    assert np.linalg.norm(s.weight.detach().numpy(), 2) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(s)
    nn.utils.remove_spectral_norm(s)
    assert sorted(s.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        nn.utils.remove_spectral_norm(s)
