"""``nn.init`` (statistics, fans, gains, errors) and ``nn.utils`` (clipping, parameter
vectors) against NumPy computations."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.nn import init
from tensorcore.nn import utils as nn_utils
from tensorcore.testing import assert_close


def _gen() -> tc.Generator:
    return tc.Generator().manual_seed(11)


def test_gains_and_fans() -> None:
    assert init.calculate_gain("linear") == 1.0 and init.calculate_gain("sigmoid") == 1.0
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("swish")
    assert init._calculate_fan_in_and_fan_out(tc.empty(8, 3)) == (3, 8)
    assert init._calculate_fan_in_and_fan_out(tc.empty(16, 4, 3, 5)) == (60, 240)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(tc.empty(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(tc.empty(3, 3), mode="fan_avg")


@pytest.mark.parametrize(
    ("fill", "lo", "hi", "std"),
    [
        (lambda t: init.uniform_(t, -2, 3, generator=_gen()), -2, 3, 5 / math.sqrt(12)),
        (lambda t: init.xavier_uniform_(t, generator=_gen()), None, None, math.sqrt(2 / 600)),
        (lambda t: init.xavier_normal_(t, gain=2.0, generator=_gen()), None, None,
         2 * math.sqrt(2 / 600)),
        (lambda t: init.kaiming_uniform_(t, generator=_gen()), None, None,
         math.sqrt(2 / 1.0001) / math.sqrt(200)),
        (lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu", generator=_gen()),
         None, None, math.sqrt(2) / math.sqrt(400)),
        (lambda t: init.normal_(t, 1.0, 0.5, generator=_gen()), None, None, 0.5),
    ],
)  # fmt: skip
def test_random_fills_have_the_documented_statistics(
    fill: Any, lo: float | None, hi: float | None, std: float
) -> None:
    t = tc.empty(400, 200)
    assert fill(t) is t
    x = t.numpy()
    assert abs(x.std() - std) < 0.02 * std
    if lo is not None:
        assert x.min() >= lo and x.max() < hi


def test_trunc_normal_is_bounded_with_the_truncated_moments() -> None:
    t = init.trunc_normal_(tc.empty(200000), mean=0.5, std=1.0, a=-0.5, b=2.0, generator=_gen())
    x = t.numpy()
    assert x.min() >= -0.5 and x.max() <= 2.0
    # Moments of N(0.5, 1) truncated to [-0.5, 2]: alpha = -1, beta = 1.5.
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: (1 + math.erf(z / math.sqrt(2))) / 2  # noqa: E731
    mass = cdf(1.5) - cdf(-1.0)
    mean = 0.5 + (phi(-1.0) - phi(1.5)) / mass
    assert abs(x.mean() - mean) < 0.01


def test_constant_eye_dirac_orthogonal() -> None:
    assert init.constant_(tc.empty(2, 2), 3.5).tolist() == [[3.5, 3.5], [3.5, 3.5]]
    assert init.ones_(tc.empty(2)).tolist() == [1.0, 1.0]
    assert init.zeros_(tc.ones(2)).tolist() == [0.0, 0.0]
    assert init.eye_(tc.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    w = init.dirac_(tc.empty(4, 2, 3, 3), groups=2)
    x = tc.randn(1, 2, 5, 5)
    y = tc.nn.functional.conv2d(x, w, padding=1)
    assert_close(y[:, 0], x[:, 0]) and assert_close(y[:, 2], x[:, 0])
    for shape in [(6, 4), (4, 6), (5, 2, 3)]:
        q = init.orthogonal_(tc.empty(*shape), gain=2.0, generator=_gen()).numpy()
        m = q.reshape(shape[0], -1)
        gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        assert np.allclose(gram, 4 * np.eye(gram.shape[0]), atol=1e-5)


def test_init_runs_without_recording_gradients() -> None:
    w = tc.nn.Parameter(tc.empty(3, 3))
    init.kaiming_uniform_(w)
    assert w.grad_fn is None and w.is_leaf


def test_clip_grad_norm_matches_numpy() -> None:
    rng = np.random.default_rng(2)
    grads = [rng.normal(size=(3, 4)), rng.normal(size=5)]
    flat = np.concatenate([g.ravel() for g in grads])
    for norm_type, ref in [(2.0, np.linalg.norm(flat)), (1.0, np.abs(flat).sum()),
                           (math.inf, np.abs(flat).max())]:  # fmt: skip
        ps = [tc.nn.Parameter(tc.zeros(*g.shape, dtype=tc.float64)) for g in grads]
        for p, g in zip(ps, grads, strict=True):
            p.grad = tc.tensor(g)
        total = nn_utils.clip_grad_norm_(ps, 0.5, norm_type=norm_type)
        assert math.isclose(total.item(), ref, rel_tol=1e-12)
        coef = min(1.0, 0.5 / (ref + 1e-6))
        for p, g in zip(ps, grads, strict=True):
            assert_close(p.grad, g * coef)
    p = tc.nn.Parameter(tc.zeros(2))
    p.grad = tc.tensor([math.inf, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn_utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert nn_utils.clip_grad_norm_([tc.nn.Parameter(tc.zeros(1))], 1.0).item() == 0.0


def test_clip_grad_value_and_parameter_vectors() -> None:
    p = tc.nn.Parameter(tc.zeros(3))
    p.grad = tc.tensor([-3.0, 0.5, 2.0])
    nn_utils.clip_grad_value_(p, 1.0)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]
    a, b = tc.nn.Parameter(tc.ones(2, 2)), tc.nn.Parameter(tc.zeros(3))
    vec = nn_utils.parameters_to_vector([a, b])
    assert vec.tolist() == [1, 1, 1, 1, 0, 0, 0]
    nn_utils.vector_to_parameters(tc.arange(7.0), [a, b])
    assert a.tolist() == [[0, 1], [2, 3]] and b.tolist() == [4, 5, 6]
    with pytest.raises(RuntimeError, match="does not hold"):
        nn_utils.vector_to_parameters(tc.arange(6.0), [a, b])
