"""The declared ``_embedding_bag`` and ``_embedding_bag_dense_backward``: values and the
weight's gradient against a NumPy loop over bags (empty bags, padding, include_last_offset,
per_sample_weights, max with its first-maximum rule), gradients by gradcheck (double backward
too), and the kernels' scatter path (the one off NumPy) against their reduceat path."""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close

MODES = ["sum", "mean", "max"]


def _bags_loop(idx: Any, offs: Any, ilo: bool) -> list[list[int]]:
    end = offs[-1] if ilo else len(idx)
    starts = list(offs[:-1] if ilo else offs)
    stops = [*starts[1:], end]
    return [list(range(a, b)) for a, b in zip(starts, stops, strict=True)]


def _np_forward(idx, offs, w, mode, psw, pad, ilo):  # type: ignore[no-untyped-def]
    out = np.zeros((len(_bags_loop(idx, offs, ilo)), w.shape[1]))
    gw = np.zeros_like(w)  # the gradient of out.sum()
    for b, pos in enumerate(_bags_loop(idx, offs, ilo)):
        pos = [p for p in pos if idx[p] != pad]
        if not pos:
            continue
        rows = w[[idx[p] for p in pos]]
        if mode == "max":
            out[b] = rows.max(0)
            for c in range(w.shape[1]):
                gw[idx[pos[int(np.argmax(rows[:, c]))]], c] += 1
            continue
        s = np.array([psw[p] for p in pos]) if psw is not None else np.ones(len(pos))
        if mode == "mean":
            s = s / len(pos)
        out[b] = (rows * s[:, None]).sum(0)
        for p, sp in zip(pos, s, strict=True):
            gw[idx[p]] += sp
    return out, gw


def _case(rng: Any) -> tuple[Any, ...]:
    n = int(rng.integers(0, 12))
    idx = rng.integers(0, 6, n)
    offs = np.sort(rng.integers(0, n + 1, int(rng.integers(1, 5))))
    offs[0] = 0
    ilo = bool(rng.integers(0, 2))
    if ilo:
        offs = np.append(offs, rng.integers(offs[-1], n + 1))
    pad = [None, 2][int(rng.integers(0, 2))]
    return idx, offs, ilo, pad


@pytest.mark.parametrize("mode", MODES)
def test_values_and_weight_gradient_match_a_loop_over_bags(device: str, mode: str) -> None:
    rng = np.random.default_rng(MODES.index(mode))
    for _ in range(25):
        idx, offs, ilo, pad = _case(rng)
        w = rng.permutation(24).reshape(6, 4) / 7.0  # (distinct: one maximum per column)
        psw = rng.normal(size=len(idx)) if mode == "sum" else None
        want, want_gw = _np_forward(idx, offs, w, mode, psw, pad, ilo)
        wt = tc.tensor(w, device=device, requires_grad=True)
        got = F.embedding_bag(
            tc.tensor(idx, device=device),
            wt,
            tc.tensor(offs, device=device),
            mode=mode,
            per_sample_weights=None if psw is None else tc.tensor(psw, device=device),
            include_last_offset=ilo,
            padding_idx=pad,
        )
        assert got.grad_fn.name() == "EmbeddingBagBackward0"
        got.sum().backward()
        assert_close(got, want)
        assert_close(wt.grad, want_gw)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_operator_results_and_gradients(device: str, mode: int) -> None:
    idx = tc.tensor([1, 2, 4, 5, 4, 3, 0, 6, 2], device=device)
    offs = tc.tensor([0, 3, 3, 5, 8], device=device)
    w = tc.tensor(np.random.default_rng(1).permutation(21).reshape(7, 3) / 5.0, device=device)
    w.requires_grad_()
    _, o2b, sizes, maxi = F._nn_op(
        "_embedding_bag", w, idx, offs, False, mode, False, None, True, 4
    )
    assert o2b.tolist() == [0, 0, 0, 2, 2, 3, 3, 3, -1]
    assert sizes.tolist() == [2, 0, 1, 3]
    assert maxi.shape == ((4, 3) if mode == 2 else (0,))
    if mode == 2:
        assert maxi[1].tolist() == [-1, -1, -1]

    def fn(wt: tc.Tensor) -> tc.Tensor:
        return F._nn_op("_embedding_bag", wt, idx, offs, False, mode, False, None, True, 4)[0]

    assert tc.autograd.gradcheck(fn, (w,))
    if mode != 2:  # (max's gradient is piecewise constant: its second derivative is 0)
        assert tc.autograd.gradgradcheck(fn, (w,))


def test_per_sample_weights_double_backward(device: str) -> None:
    rng = np.random.default_rng(5)
    idx = tc.tensor([1, 2, 4, 5, 4, 3], device=device)
    offs = tc.tensor([0, 2, 2], device=device)
    w = tc.tensor(rng.normal(size=(6, 3)), device=device, requires_grad=True)
    p = tc.tensor(rng.normal(size=6), device=device, requires_grad=True)

    def fn(wt: tc.Tensor, pt: tc.Tensor) -> tc.Tensor:
        return F.embedding_bag(idx, wt, offs, mode="sum", per_sample_weights=pt, padding_idx=4)

    assert tc.autograd.gradcheck(fn, (w, p))
    assert tc.autograd.gradgradcheck(fn, (w, p))


def test_scale_grad_by_freq_divides_by_each_index_count(device: str) -> None:
    w = tc.ones(4, 2, dtype=tc.float64, device=device, requires_grad=True)
    idx = tc.tensor([0, 3, 3, 1, 3], device=device)
    out = F.embedding_bag(
        idx, w, tc.tensor([0, 2], device=device), mode="sum", scale_grad_by_freq=True
    )
    out.sum().backward()
    assert w.grad[:, 0].tolist() == [1.0, 1.0, 0.0, 1.0]
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient"):
        F.embedding_bag(idx, w, tc.tensor([0], device=device), mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        F.embedding_bag(idx, w, tc.tensor([0], device=device), mode="max", sparse=True)


def test_half_precision_sums_in_float32() -> None:
    w = tc.tensor([[1.0, 2.0], [2048.0, 0.0]], dtype=tc.float16)
    idx = tc.tensor([1, 0, 0])
    got = F.embedding_bag(idx, w, tc.tensor([0]), mode="sum")
    want = F.embedding_bag(idx, w.float(), tc.tensor([0]), mode="sum").half()
    assert got.dtype == tc.float16 and got.tolist() == want.tolist()


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_scatter_path_matches_reduceat_path(mode: int) -> None:
    # The kernels off NumPy scatter (add.at, maximum.at) where NumPy runs reduceat: the same
    # kernels built over NumPy under another module name take that path here.
    from tensorcore_xp.kernels import embedding

    shim = types.ModuleType("not_numpy")
    shim.__dict__.update({k: getattr(np, k) for k in dir(np) if not k.startswith("__")})
    host, device = embedding.build(np), embedding.build(shim)
    rng = np.random.default_rng(mode)
    for _ in range(20):
        idx, offs, ilo, pad = _case(rng)
        count = len(offs) - 1 if ilo else len(offs)
        w = tc.tensor(rng.normal(size=(6, 4)))
        psw = tc.tensor(rng.normal(size=len(idx))) if mode == 0 else None
        args = (
            w,
            tc.tensor(idx),
            tc.tensor(offs),
            False,
            mode,
            False,
            psw,
            ilo,
            -1 if pad is None else pad,
        )
        outs = []
        for kernels in (host, device):
            res = (
                tc.empty(count, 4),
                tc.empty(len(idx), dtype=tc.int64),
                tc.empty(count, dtype=tc.int64),
                tc.empty(*((count, 4) if mode == 2 else (0,)), dtype=tc.int64),
            )
            kernels["_embedding_bag"](res, *args)
            grad = tc.empty(6, 4)
            kernels["_embedding_bag_dense_backward"](
                grad,
                tc.ones(count, 4),
                args[1],
                res[1],
                res[2],
                res[3],
                6,
                True,
                mode,
                psw,
                args[8],
            )
            outs.append([r.tolist() for r in (*res, grad)])
        for a, b in zip(*outs, strict=True):
            np.testing.assert_allclose(
                np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-6, atol=1e-6
            )


@pytest.mark.parametrize("mode", MODES)
def test_many_bags_of_mixed_lengths(mode: str) -> None:
    # Enough bags that the sums step through the runs together, with long ones left over
    # (their tails summed apart), and indices repeated enough for the same in the gradient.
    rng = np.random.default_rng(7)
    lengths = np.concatenate([rng.integers(0, 6, 70), [40, 90]])
    rng.shuffle(lengths)
    offs = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    idx = rng.integers(0, 30, int(lengths.sum()))
    idx[:60] = 3
    w = rng.permutation(30 * 5).reshape(30, 5) / 11.0
    psw = rng.normal(size=len(idx)) if mode == "sum" else None
    want, want_gw = _np_forward(idx, offs, w, mode, psw, 7, False)
    wt = tc.tensor(w, requires_grad=True)
    got = F.embedding_bag(
        tc.tensor(idx),
        wt,
        tc.tensor(offs),
        mode=mode,
        per_sample_weights=None if psw is None else tc.tensor(psw),
        padding_idx=7,
    )
    got.sum().backward()
    assert_close(got, want)
    assert_close(wt.grad, want_gw)


@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_sparse_gradient_stays_sparse_coo(mode: str) -> None:
    rng = np.random.default_rng(11)
    idx, offs = tc.tensor([1, 2, 4, 5, 4, 3, 0]), tc.tensor([0, 3, 3, 5])
    w, g = rng.normal(size=(7, 3)), tc.tensor(rng.normal(size=(4, 3)))
    grads = {}
    for sparse in (True, False):
        wt = tc.tensor(w, requires_grad=True)
        F.embedding_bag(idx, wt, offs, mode=mode, sparse=sparse, padding_idx=4).backward(g)
        grads[sparse] = wt.grad
    assert grads[True].layout == tc.sparse_coo and grads[False].layout == tc.strided
    assert_close(grads[True].to_dense(), grads[False])
