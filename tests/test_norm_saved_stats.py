"""The normalisations' backward reads the statistics their forward saved
(``native_layer_norm``'s mean and rstd, ``native_batch_norm``'s save_mean and save_invstd)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close

F = tc.nn.functional


def _np(t: tc.Tensor) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy(), dtype=np.float64)


@pytest.mark.parametrize("shape", [(5, 7), (2, 3, 8), (600, 40)])
def test_native_layer_norm_saves_row_statistics(device: str, shape: tuple[int, ...]) -> None:
    x = tc.randn(*shape, device=device, dtype=tc.float64)
    out, mean, rstd = tc.native_layer_norm(x, (shape[-1],), None, None, 1e-5)
    a = _np(x)
    assert mean.shape == rstd.shape == (*shape[:-1], 1)
    np.testing.assert_allclose(_np(mean), a.mean(-1, keepdims=True), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(rstd), 1 / np.sqrt(a.var(-1, keepdims=True) + 1e-5), rtol=1e-12)
    assert_close(out, F.layer_norm(x, (shape[-1],)))


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_saves_channel_statistics(device: str, training: bool) -> None:
    x = tc.randn(4, 3, 5, device=device, dtype=tc.float64)
    rm, rv = (
        tc.zeros(3, device=device, dtype=tc.float64),
        tc.ones(3, device=device, dtype=tc.float64),
    )
    _, mean, invstd = tc.native_batch_norm(x, None, None, rm, rv, training, 0.1, 1e-5)
    if not training:
        assert mean.shape == invstd.shape == (0,)
        return
    a = _np(x)
    np.testing.assert_allclose(_np(mean), a.mean((0, 2)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_np(invstd), 1 / np.sqrt(a.var((0, 2)) + 1e-5), rtol=1e-12)
    np.testing.assert_allclose(_np(rm), 0.1 * a.mean((0, 2)), rtol=1e-12, atol=1e-12)


def test_backwards_read_the_statistics_given(device: str) -> None:
    # Statistics other than the input's change the gradient: the backward reads them.
    x = tc.randn(6, 4, device=device, dtype=tc.float64)
    g = tc.randn(6, 4, device=device, dtype=tc.float64)
    _, mean, rstd = tc.native_layer_norm(x, (4,), None, None, 1e-5)
    same = tc.layer_norm_backward(g, x, (4,), None, 1e-5, mean, rstd)
    assert_close(same[0], tc.layer_norm_backward(g, x, (4,), None, 1e-5)[0])
    other = tc.layer_norm_backward(g, x, (4,), None, 1e-5, mean + 1, rstd)
    assert not np.allclose(_np(other[1]), _np(same[1]))
    _, bm, bi = tc.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    same = tc.batch_norm_backward(g, x, None, None, None, True, 1e-5, bm, bi)
    assert_close(same[0], tc.batch_norm_backward(g, x, None, None, None, True, 1e-5)[0])
    other = tc.batch_norm_backward(g, x, None, None, None, True, 1e-5, bm, bi * 2)
    assert not np.allclose(_np(other[0]), _np(same[0]))


def test_gradients_through_saved_statistics(device: str) -> None:
    x = tc.randn(4, 3, 2, 2, device=device, dtype=tc.float64, requires_grad=True)
    w = tc.randn(3, device=device, dtype=tc.float64, requires_grad=True)

    def bn(x: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        return F.batch_norm(x, None, None, w, None, training=True)

    def ln(x: tc.Tensor, w: tc.Tensor) -> tc.Tensor:
        return F.layer_norm(x.reshape(4, 12), (12,), w.repeat(4))

    for fn in (bn, ln):
        assert tc.autograd.gradcheck(fn, (x, w))
        assert tc.autograd.gradgradcheck(fn, (x, w))


def test_gradients_of_the_statistics(device: str) -> None:
    # The returned mean and rstd are differentiable in the input (finite differences).
    x = tc.randn(3, 4, 2, device=device, dtype=tc.float64, requires_grad=True)

    def ln(x: tc.Tensor) -> tuple[tc.Tensor, ...]:
        out, mean, rstd = tc.native_layer_norm(x, (4, 2), None, None, 1e-5)
        return out * 0.5, mean, rstd

    def bn(x: tc.Tensor) -> tuple[tc.Tensor, ...]:
        return tc.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)

    for fn in (ln, bn):
        assert tc.autograd.gradcheck(fn, (x,))
        assert tc.autograd.gradgradcheck(fn, (x,))
        assert tc.autograd.gradcheck(lambda x, fn=fn: fn(x)[1:], (x,))  # (no output gradient)


def test_mismatched_statistics_are_refused(device: str) -> None:
    x = tc.randn(3, 4, device=device)
    g = tc.randn(3, 4, device=device)
    with pytest.raises(RuntimeError, match="both given or both None"):
        tc.layer_norm_backward(g, x, (4,), None, 1e-5, tc.zeros(3, 1, device=device))
    with pytest.raises(RuntimeError, match="expected save_mean of shape"):
        tc.batch_norm_backward(
            g,
            x,
            None,
            None,
            None,
            True,
            1e-5,
            tc.zeros(3, device=device),
            tc.ones(4, device=device),
        )


@pytest.mark.parametrize("which", ["layer_norm", "batch_norm", "group_norm"])
def test_functional_norms_give_the_same_bits_with_and_without_saved_statistics(
    device: str, which: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``F.layer_norm``/``batch_norm``/``group_norm`` run the ``native_*`` operator (saved
    statistics) for large inputs that will be differentiated and the one-output operator
    otherwise (``_SAVED_STATISTICS_MIN``): the two give the same outputs and gradients."""
    import tensorcore.nn._normalization as fn

    x0 = tc.randn(6, 4, 10, device=device)
    w0, b0 = tc.randn(4, device=device), tc.randn(4, device=device)
    results = []
    for threshold in (0, 1 << 40):
        monkeypatch.setattr(fn, "_SAVED_STATISTICS_MIN", threshold)
        x, w, b = (t.clone().requires_grad_() for t in (x0, w0, b0))
        if which == "layer_norm":
            y = F.layer_norm(x, (10,))
        elif which == "batch_norm":
            y = F.batch_norm(x, None, None, w, b, training=True)
        else:
            y = F.group_norm(x, 2, w, b)
        y.backward(tc.linspace(-1, 1, y.numel(), device=device).reshape(y.shape))
        results.append([t.detach() for t in (y, x.grad)])
    for a, b in zip(*results, strict=True):
        if device == "cpu":
            assert tc.equal(a, b)
        else:  # (a GPU's reductions may group the sums of the two kernels differently)
            assert_close(a, b, rtol=1e-5, atol=1e-6)
