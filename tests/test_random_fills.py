"""In-place random fills (``exponential_``, ``cauchy_``, ``geometric_``, ``log_normal_``) and
``F.gumbel_softmax``: their distributions on every device (moments and quantiles against
the closed forms), PyTorch's checks, and, on the CPU backend, PyTorch 2.13's numbers for a
seed (recorded once, as in ``tests/test_random_streams.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F

N = 20000


def _draw(device: str, fill, dtype=tc.float64):  # type: ignore[no-untyped-def]
    x = tc.empty(N, dtype=dtype, device=device)
    out = fill(x, tc.Generator(device).manual_seed(11))
    assert out is x
    return np.array(x.tolist())


def test_distributions_have_their_moments(device: str) -> None:
    e = _draw(device, lambda x, g: x.exponential_(2.0, generator=g))
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.02 and abs(e.std() - 0.5) < 0.02
    c = _draw(device, lambda x, g: x.cauchy_(1.0, 0.5, generator=g))
    # Median and quartiles of Cauchy(1, 0.5): 1 -+ 0.5.
    assert np.allclose(np.quantile(c, [0.25, 0.5, 0.75]), [0.5, 1.0, 1.5], atol=0.04)
    k = _draw(device, lambda x, g: x.geometric_(0.25, generator=g), tc.int64)
    assert k.min() >= 1 and abs(k.mean() - 4.0) < 0.1
    assert abs((k == 1).mean() - 0.25) < 0.015
    ln = _draw(device, lambda x, g: x.log_normal_(0.5, 0.7, generator=g))
    logs = np.log(ln)
    assert abs(logs.mean() - 0.5) < 0.02 and abs(logs.std() - 0.7) < 0.02


def test_float32_and_non_contiguous_fills(device: str) -> None:
    x = tc.empty(4, 3, device=device).t()
    x.exponential_()
    assert x.dtype == tc.float32 and bool((x >= 0).all())
    y = tc.full((5,), 7.0, dtype=tc.float16, device=device).log_normal_()
    assert y.dtype == tc.float16 and bool((y > 0).all())
    # geometric_ fills integers and floats with whole numbers of trials.
    z = tc.empty(6, device=device).geometric_(0.5)
    assert bool((z == z.round()).all()) and bool((z >= 1).all())


def test_checks_are_pytorchs(device: str) -> None:
    x = tc.empty(3, device=device)
    with pytest.raises(RuntimeError, match=r"expects lambda > 0\.0, but found lambda=0"):
        x.exponential_(0.0)
    with pytest.raises(RuntimeError, match=r"cauchy_ expects sigma > 0\.0, but found sigma=-1"):
        x.cauchy_(0.0, -1.0)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\), but got p=1"):
        x.geometric_(1.0)
    with pytest.raises(RuntimeError, match=r"log_normal_ expects std > 0\.0, but found std=0"):
        x.log_normal_(0.0, 0.0)
    ints = tc.zeros(3, dtype=tc.int64, device=device)
    with pytest.raises(RuntimeError, match="Exponential distribution is a continuous"):
        ints.exponential_()
    with pytest.raises(RuntimeError, match="dtype must be a floating point but you specified"):
        tc.zeros(2, dtype=tc.complex64, device=device).cauchy_()
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        ints.log_normal_()
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tc.zeros(2, dtype=tc.bool, device=device).geometric_(0.5)
    assert ints.geometric_(0.5).dtype == tc.int64


def test_gumbel_softmax(device: str) -> None:
    logits = tc.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]], device=device)
    soft = F.gumbel_softmax(logits, tau=0.5)
    assert np.allclose(np.array(soft.sum(-1).tolist()), 1.0) and bool((soft > 0).all())
    hard = F.gumbel_softmax(logits, hard=True, dim=0)
    h = np.array(hard.tolist())
    assert set(h.ravel()) <= {0.0, 1.0} and (h.sum(0) == 1).all()
    # Straight through: the forward value is one-hot, the gradient the soft sample's.
    x = tc.tensor([[0.5, -0.2, 1.0]], dtype=tc.float64, device=device).requires_grad_()
    tc.manual_seed(4)
    y = F.gumbel_softmax(x, tau=2.0, hard=True)
    w = tc.tensor([[1.0, 2.0, 3.0]], dtype=tc.float64, device=device)
    (y * w).sum().backward()
    tc.manual_seed(4)
    x2 = x.detach().clone().requires_grad_()
    (F.gumbel_softmax(x2, tau=2.0) * w).sum().backward()
    assert np.allclose(np.array(x.grad.tolist()), np.array(x2.grad.tolist()))
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-5)


cpu_only = pytest.mark.skipif(
    "cpu" not in tc.backends.devices(), reason="the CPU backend reproduces PyTorch's streams"
)


@cpu_only
def test_seeded_fills_give_pytorchs_numbers() -> None:
    tc.manual_seed(0)
    got = tc.empty(4).exponential_(2.0).tolist()
    np.testing.assert_allclose(got, [1.754163146018982, 0.6151923537254333,
                                     0.3075220584869385, 1.267559289932251], rtol=1e-6)  # fmt: skip
    tc.manual_seed(0)
    got = tc.empty(4, dtype=tc.float64).cauchy_(1.0, 0.5).tolist()
    np.testing.assert_allclose(got, [6.298864663341148, 1.38238362980295, 0.935850328958413,
                                     2.966536655497325], rtol=1e-12)  # fmt: skip
    tc.manual_seed(0)
    assert tc.empty(6, dtype=tc.int64).geometric_(0.3).tolist() == [1, 1, 3, 1, 2, 1]
    # log_normal_ keeps Box-Muller's spare normal for the next draw, as PyTorch does.
    tc.manual_seed(0)
    got = tc.empty(3, dtype=tc.float64).log_normal_(0.5, 0.7).tolist()
    after = tc.randn(2, dtype=tc.float64).tolist()
    np.testing.assert_allclose(got, [4.848635260531737, 1.3425889013688939,
                                     0.3587417289189791], rtol=1e-12)  # fmt: skip
    np.testing.assert_allclose(after, [0.5684312772806678, -1.084522342424021], rtol=1e-12)
    # A transposed tensor is filled in its memory order.
    tc.manual_seed(0)
    got = tc.empty(3, 2).t().exponential_().tolist()
    np.testing.assert_allclose(got, [[3.508326292037964, 0.615044116973877, 1.0357054471969604],
                                     [1.2303847074508667, 2.535118579864502,
                                      1.5661288499832153]], rtol=1e-6)  # fmt: skip
    tc.manual_seed(0)
    got = F.gumbel_softmax(tc.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, -1.0]]), tau=0.5).tolist()
    np.testing.assert_allclose(got, [[0.000544194714166224, 0.03269349783658981,
                                      0.9667623043060303], [0.5379724502563477,
                                      0.43620947003364563, 0.02581806480884552]],
                               rtol=1e-5)  # fmt: skip


def test_random_module_has_the_rng_state_functions() -> None:
    state = tc.random.get_rng_state()
    a = tc.rand(3)
    tc.random.set_rng_state(state)
    assert tc.equal(a, tc.rand(3))
    assert tc.random.get_rng_state is tc.get_rng_state


@pytest.mark.parametrize(
    "draw",
    [
        lambda d, g: tc.poisson(tc.tensor([0.5, 3.0, 25.0], device=d), generator=g),
        lambda d, g: tc.binomial(
            tc.full((3,), 6.0, device=d), tc.tensor([0.2, 0.5, 0.9], device=d), generator=g
        ),
    ],
)
def test_poisson_and_binomial_draw_from_their_generator(device: str, draw) -> None:  # type: ignore[no-untyped-def]
    # Draws from ``generator=`` repeat with its seed and leave the default stream alone.
    tc.manual_seed(0)
    before = tc.default_generator.get_state()
    a = draw(device, tc.Generator(device).manual_seed(5))
    assert tc.equal(tc.default_generator.get_state(), before)
    b = draw(device, tc.Generator(device).manual_seed(5))
    assert a.tolist() == b.tolist()
