"""The loss operators and the fused softmax backwards against NumPy: ``nll_loss`` and its
backward, ``cross_entropy`` end to end, ``_softmax_backward_data`` and
``_log_softmax_backward_data``. (Gradients of all four are checked by gradcheck and
gradgradcheck through the operator samples.)"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close
from tensorcore.testing import strategies as tcst


def _log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    z = a - a.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
def test_nll_loss_matches_numpy(device: str, reduction: str, dtype: tc.dtype) -> None:
    rng = np.random.default_rng(0)
    logp = _log_softmax(rng.standard_normal((5, 4)), 1)
    target = np.array([0, 3, 1, 3, 2])
    picked = -logp[np.arange(5), target]
    want = {"mean": picked.mean(), "sum": picked.sum(), "none": picked}[reduction]
    x = tc.tensor(logp, dtype=dtype, device=device)
    t = tc.tensor(target, device=device)
    got = F.nll_loss(x, t, reduction=reduction)
    assert got.dtype is dtype and got.device.type == device
    want = np.asarray(want).astype(np.float32 if dtype is tc.float32 else np.float64)
    assert_close(got, want)
    assert_close(tc.nll_loss(x.t().contiguous().t(), t, reduction=reduction), want)


def test_nll_loss_half_precision_accumulates_wide(device: str) -> None:
    x = tc.full((4096, 2), -1.0009765625, dtype=tc.float16, device=device)
    t = tc.zeros(4096, dtype=tc.int64, device=device)
    got = F.nll_loss(x, t, reduction="mean")
    assert got.dtype is tc.float16
    assert got.item() == pytest.approx(1.0009765625)


def test_cross_entropy_gradient_is_softmax_minus_onehot(device: str) -> None:
    rng = np.random.default_rng(1)
    z = rng.standard_normal((6, 3))
    target = np.array([2, 0, 1, 1, 0, 2])
    x = tc.tensor(z, device=device, requires_grad=True)
    loss = F.cross_entropy(x, tc.tensor(target, device=device))
    assert_close(loss, np.asarray(-_log_softmax(z, 1)[np.arange(6), target].mean()))
    loss.backward()
    want = np.exp(_log_softmax(z, 1))
    want[np.arange(6), target] -= 1
    assert_close(x.grad, want / 6)
    assert loss.grad_fn.name() == "NllLossBackward0"


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_backward_matches_numpy(device: str, reduction: str) -> None:
    target = np.array([1, 0, 1])
    g = np.array([0.5, -2.0, 3.0]) if reduction == "none" else np.array(1.5)
    want = np.zeros((3, 2))
    scale = {"mean": -g / 3, "sum": -g, "none": -g}[reduction]
    want[np.arange(3), target] = scale
    got = tc.nll_loss_backward(
        tc.tensor(g, device=device), tc.tensor(target, device=device), 2, reduction
    )
    assert got.shape == (3, 2)
    assert_close(got, want)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_mean_loss_with_every_target_ignored_has_zero_gradient(
    device: str, smoothing: float
) -> None:
    # The mean is 0 / 0 = nan, but the ignored places get no gradient (0, not nan), as
    # PyTorch's; a zero class weight on a counted target still gives 0 / 0 there.
    x = tc.tensor(np.random.default_rng(0).normal(size=(3, 5)), device=device, requires_grad=True)
    target = tc.tensor([1, 1, 1], device=device)
    loss = F.cross_entropy(x, target, ignore_index=1, label_smoothing=smoothing)
    assert loss.isnan().item()
    (g,) = tc.autograd.grad(loss, x)
    assert_close(g, np.zeros((3, 5)))
    w = tc.ones(5, device=device, dtype=tc.float64)
    w[2] = 0
    loss = F.nll_loss(x, tc.tensor([2, 2, 1], device=device), weight=w, ignore_index=1)
    (g,) = tc.autograd.grad(loss, x)
    want = np.zeros((3, 5))
    want[:2, 2] = np.nan
    np.testing.assert_array_equal(g.detach().cpu().numpy(), want)


def test_nll_loss_rejects_bad_input(device: str) -> None:
    x = tc.zeros(3, 4, device=device)
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target"):
        F.nll_loss(x, tc.tensor([0, 1], device=device))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(x, tc.tensor([0, 1, 2], dtype=tc.int32, device=device))
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.nll_loss(x, tc.tensor([0, 4, 1], device=device))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.nll_loss(x, tc.tensor([0, -1, 1], device=device))
    # the first bad target that counts is named, ignored ones are skipped, uint8 taken;
    # the backward checks the targets too (it is an operator of its own)
    with pytest.raises(IndexError, match="Target -7 is out of bounds"):
        F.nll_loss(x, tc.tensor([-100, -7, 9], device=device))
    with pytest.raises(IndexError, match="Target 9 is out of bounds"):
        F.nll_loss(x, tc.tensor([1, 9, 1], dtype=tc.uint8, device=device))
    with pytest.raises(IndexError, match="Target 4 is out of bounds"):
        F.nll_loss(x, tc.tensor([2, 4, 2], device=device), ignore_index=2)
    with pytest.raises(IndexError, match="Target -2 is out of bounds"):
        tc.nll_loss_backward(tc.tensor(1.0, device=device), tc.tensor([0, -2], device=device), 4)
    with pytest.raises(ValueError, match="elementwise is not a valid value for reduction"):
        F.nll_loss(x, tc.tensor([0, 1, 2], device=device), reduction="elementwise")
    with pytest.raises(ValueError, match=r"For 1D input, 1D target must have size 1, but got"):
        F.nll_loss(tc.zeros(4, device=device), tc.tensor([0, 1], device=device))
    with pytest.raises(RuntimeError, match="does not fit reduction 'none'"):
        tc.nll_loss_backward(
            tc.tensor(1.0, device=device), tc.tensor([0], device=device), 2, "none"
        )


@pytest.mark.parametrize("name", ["_softmax_backward_data", "_log_softmax_backward_data"])
@given(data=st.data())
def test_softmax_backwards_match_numpy(device: str, name: str, data: st.DataObject) -> None:
    shape = data.draw(tcst.shapes(min_dims=1, max_dims=3, max_side=4), label="shape")
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    a = rng.standard_normal(shape)
    g = rng.standard_normal(shape)
    logy = _log_softmax(a, dim)
    if name == "_softmax_backward_data":
        y = np.exp(logy)
        want = y * (g - (g * y).sum(axis=dim, keepdims=True))
    else:
        y = logy
        want = g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    got = getattr(tc, name)(tc.tensor(g, device=device), tc.tensor(y, device=device), dim)
    assert_close(got, want)


def test_softmax_backward_shape_mismatch_is_an_error(device: str) -> None:
    with pytest.raises(RuntimeError, match=r"grad_output of shape \[2\] does not match output"):
        tc._log_softmax_backward_data(tc.zeros(2, device=device), tc.zeros(3, device=device), 0)


# ------------------------------------------------------------------ CTC
def _ctc_brute(lp: np.ndarray, target: list[int], blank: int) -> tuple[float, np.ndarray]:
    """-log p(target) by summing over every path of T labels that collapses to ``target``,
    and the posterior of each (time, class)."""
    import itertools

    T, C = lp.shape
    total, post = 0.0, np.zeros((T, C))
    for path in itertools.product(range(C), repeat=T):
        collapsed = [c for i, c in enumerate(path) if c != blank and (i == 0 or c != path[i - 1])]
        if collapsed == target:
            p = float(np.exp(sum(lp[t, c] for t, c in enumerate(path))))
            total += p
            for t, c in enumerate(path):
                post[t, c] += p
    return -np.log(total) if total else np.inf, post / total if total else post


def test_ctc_loss_matches_brute_force(device: str) -> None:
    rng = np.random.default_rng(0)
    T, N, C = 5, 4, 3
    x = rng.normal(size=(T, N, C))
    lp_np = x - np.log(np.exp(x).sum(2, keepdims=True))
    targets = np.array([[1, 2, 0], [1, 1, 0], [2, 0, 0], [1, 2, 1]])
    in_len, tg_len = [5, 4, 5, 2], [2, 2, 0, 3]
    blank = 0
    want, posts = [], []
    for n in range(N):
        loss, post = _ctc_brute(lp_np[: in_len[n], n], list(targets[n, : tg_len[n]]), blank)
        want.append(loss)
        posts.append(post)
    lp = tc.tensor(lp_np, device=device, requires_grad=True)
    tg = tc.tensor(targets, device=device)
    got = F.ctc_loss(lp, tg, in_len, tg_len, reduction="none")
    assert_close(got, np.array(want))
    flat = tc.tensor([c for n in range(N) for c in targets[n, : tg_len[n]]], device=device)
    assert_close(F.ctc_loss(lp, flat, tuple(in_len), tuple(tg_len), reduction="none"), want)
    finite = np.isfinite(want)
    mean = np.mean(np.where(finite, want, 0) / np.maximum(tg_len, 1))
    loss = tc.nn.CTCLoss(zero_infinity=True)(lp, tg, tc.tensor(in_len), tc.tensor(tg_len))
    assert_close(loss, mean)
    # PyTorch's gradient: exp(log_probs) - posterior over the valid times, 0 elsewhere and
    # for infinite losses under zero_infinity.
    loss.backward()
    expect = np.zeros_like(lp_np)
    for n in range(N):
        if finite[n]:
            scale = 1 / (max(tg_len[n], 1) * N)
            expect[: in_len[n], n] = (np.exp(lp_np[: in_len[n], n]) - posts[n]) * scale
    assert_close(lp.grad, expect)
    single = F.ctc_loss(lp[:, 0], tg[0], (5,), (2,), reduction="none")
    assert single.shape == () and np.isclose(single.item(), want[0])


def test_ctc_loss_gradient_through_log_softmax(device: str) -> None:
    x = tc.randn(4, 2, 3, dtype=tc.float64).to(device).requires_grad_()
    tg = tc.tensor([[1, 2], [2, 2]], device=device)

    def fn(t: tc.Tensor) -> tc.Tensor:
        return F.ctc_loss(t.log_softmax(2), tg, (4, 4), (2, 2), blank=0)

    assert tc.autograd.gradcheck(fn, (x,))
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(x.log_softmax(2), tg, (4, 4), (2, 2), blank=3)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.ctc_loss(x.log_softmax(2), tg, (4, 4), (2, 2), reduction="avg")


def test_losses_of_mixed_dtypes_have_pytorchs_result_dtype(device: str) -> None:
    # PyTorch's kernels store some losses in a tensor of a fixed dtype: BCE-with-logits runs
    # (1 - target).mul_(input).sub_(log_sigmoid(input)) (target's dtype: a float64 model
    # with labels made by .float() gets a float32 loss, rounded as float32), huber and soft
    # margin write into input's dtype, and BCE refuses a target of another dtype.
    rng = np.random.default_rng(0)
    x, t = rng.normal(size=6), (rng.random(6) > 0.5).astype(np.float64)
    x64 = tc.tensor(x, device=device, requires_grad=True)
    t32 = tc.tensor(t, dtype=tc.float32, device=device)
    loss = F.binary_cross_entropy_with_logits(x64, t32, reduction="none")
    assert loss.dtype is tc.float32
    terms = (1 - t).astype(np.float32) * x  # float64 products, each stored as float32
    want = (terms.astype(np.float32) + np.logaddexp(0, -x)).astype(np.float32)
    assert_close(loss, want, rtol=0, atol=0)
    loss.sum().backward()
    assert x64.grad is not None and x64.grad.dtype is tc.float64
    x32 = x64.detach().float()
    t64 = tc.tensor(t, device=device)
    assert F.binary_cross_entropy_with_logits(x32, t64).dtype is tc.float64
    w16 = tc.ones(6, dtype=tc.float16, device=device)
    assert F.binary_cross_entropy_with_logits(x32, t64.half(), weight=w16).dtype is tc.float16
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                       "output type Long"):  # fmt: skip
        F.binary_cross_entropy_with_logits(x32, t64.long())
    assert F.huber_loss(x32, t64).dtype is tc.float32
    assert F.huber_loss(x64, t32).dtype is tc.float64
    assert F.soft_margin_loss(x32, t64 * 2 - 1).dtype is tc.float32
    p32 = tc.sigmoid(x32)
    assert (
        F.binary_cross_entropy(p32, t32, weight=tc.ones(6, dtype=tc.float64, device=device)).dtype
        is tc.float32
    )
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(p32, t64)


def test_bce_with_logits_gradient_is_smooth_at_zero(device: str) -> None:
    # Logistic regression from zero weights starts at logits exactly 0: the gradient there is
    # sigmoid(0) - target (a sum with max(-x, 0) in it gave -target), with pos_weight too.
    t = np.array([1.0, 0.0, 0.5, 0.25])
    pw = np.array([3.0, 2.0, 1.0, 0.5])
    for pos_weight in (None, pw):
        x = tc.zeros(4, dtype=tc.float64, device=device, requires_grad=True)
        pwt = None if pos_weight is None else tc.tensor(pos_weight, device=device)
        F.binary_cross_entropy_with_logits(
            x, tc.tensor(t, device=device), reduction="sum", pos_weight=pwt
        ).backward()
        lw = 1 if pos_weight is None else (pos_weight - 1) * t + 1
        assert_close(x.grad, (1 - t) - lw * 0.5, rtol=1e-15, atol=1e-15)


def test_smooth_l1_and_huber_at_their_kinks(device: str) -> None:
    # values and gradients of the clamp forms at 0, at +-beta (delta) and past it: PyTorch's
    # 0.5 d**2 / beta below, |d| - beta / 2 above, gradient d / beta below, sign(d) from beta
    d = np.array([0.0, 0.3, -0.3, 0.5, -0.5, 2.0, -2.0, np.inf])
    for beta in (0.5, 1.0):
        x = tc.tensor(d, device=device, requires_grad=True)
        zero = tc.zeros(8, dtype=tc.float64, device=device)
        loss = F.smooth_l1_loss(x, zero, reduction="none", beta=beta)
        a = np.abs(d)
        with np.errstate(invalid="ignore"):
            want = np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)
        assert_close(loss, want)
        loss.sum().backward()
        assert_close(x.grad, np.where(a < beta, d / beta, np.sign(d)))
    for delta in (0.5, 2.0):
        x = tc.tensor(d, device=device, requires_grad=True)
        loss = F.huber_loss(x, tc.zeros(8, dtype=tc.float64, device=device), reduction="none",
                            delta=delta)  # fmt: skip
        a = np.abs(d)
        assert_close(loss, np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)))
        loss.sum().backward()
        assert_close(x.grad, np.clip(d, -delta, delta))


# (input shape, target shape, reduction) -> PyTorch 2.13's node name and whether the loss is
# a view (read by hand from ``F.nll_loss`` and ``F.cross_entropy``)
_NLL_NODES = [
    ((6, 5), (6,), "none", "NllLossBackward0", False),
    ((5,), (), "none", "NllLossBackward0", False),
    ((2, 5, 3), (2, 3), "none", "ViewBackward0", True),
    ((2, 5, 3), (2, 3), "mean", "NllLoss2DBackward0", False),
    ((2, 5, 3, 4), (2, 3, 4), "none", "NllLoss2DBackward0", False),
    ((2, 5, 3, 2, 2), (2, 3, 2, 2), "none", "ViewBackward0", True),
    ((2, 5, 3, 2, 2), (2, 3, 2, 2), "sum", "NllLoss2DBackward0", False),
]


@pytest.mark.parametrize(("xs", "ts", "reduction", "node", "view"), _NLL_NODES)
def test_nll_loss_node_and_view_as_pytorch(
    device: str, xs: tuple[int, ...], ts: tuple[int, ...], reduction: str, node: str, view: bool
) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(xs)
    t = rng.integers(0, 5, ts)
    x = tc.tensor(a, device=device, requires_grad=True)
    loss = F.cross_entropy(x, tc.tensor(t, device=device), reduction=reduction)
    assert (loss.grad_fn.name(), loss._base is not None) == (node, view)
    c = 0 if len(xs) == 1 else 1  # (the class dim)
    picked = -np.take_along_axis(_log_softmax(a, c), np.expand_dims(t, c), c).squeeze(c)
    want = {"none": picked, "mean": picked.mean(), "sum": picked.sum()}[reduction]
    assert_close(loss, want)
    loss.sum().backward()  # (through the renamed node)
    assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("ignore_index", [-100, 0, 2, 7])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_targets_and_ignore_index(device: str, ignore_index: int, reduction: str) -> None:
    # Every case of the kernels' target check against NumPy: no target ignored, some (an
    # ignore_index that is a class or not), a non-contiguous target, and the gradient.
    rng = np.random.default_rng(1)
    logp = _log_softmax(rng.standard_normal((6, 4)), 1)
    for target in ([0, 3, 1, 3, 2, 1], [0, 2, 2, 1, 2, 3], [-100, 1, -100, 3, 0, 0]):
        t = np.array(target)
        if ((t < 0) | (t >= 4))[t != ignore_index].any():
            continue
        keep = t != ignore_index
        picked = np.where(keep, -logp[np.arange(6), np.where(keep, t, 0)], 0.0)
        want = {"mean": picked.sum() / keep.sum(), "sum": picked.sum(), "none": picked}[reduction]
        grad = np.zeros((6, 4))
        scale = 1.0 / keep.sum() if reduction == "mean" else 1.0
        grad[np.arange(6)[keep], t[keep]] = -scale
        tt = tc.tensor(np.stack([t, t], 1), device=device)[:, 0]  # (non-contiguous)
        x = tc.tensor(logp, dtype=tc.float32, device=device, requires_grad=True)
        got = F.nll_loss(x, tt, ignore_index=ignore_index, reduction=reduction)
        assert_close(got, np.asarray(want, np.float32))
        got.sum().backward()
        assert_close(x.grad, grad.astype(np.float32))


def test_mse_loss_is_one_node_of_its_input_and_target() -> None:
    # PyTorch's 60-minute blitz walks loss.grad_fn.next_functions: MseLossBackward0's inputs
    # are the output's node (a Linear's AddmmBackward0) and the target's (None here).
    x = tc.randn(2, 5, requires_grad=True)
    out = tc.nn.functional.linear(x, tc.randn(3, 5, requires_grad=True), tc.randn(3))
    loss = tc.nn.MSELoss()(out, tc.randn(2, 3))
    assert type(loss.grad_fn).__name__ == "MseLossBackward0"
    assert loss.grad_fn.next_functions == ((out.grad_fn, 0), (None, 0))
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "AddmmBackward0"
    t = tc.randn(2, 3, requires_grad=True)
    edge = tc.nn.functional.mse_loss(out, t, reduction="none").grad_fn.next_functions[1][0]
    assert type(edge).__name__ == "AccumulateGrad"
