"""3-D pooling, the adaptive max pools of 1 and 3 dims and the LP pools, against a NumPy
loop over PyTorch's window definitions, with gradcheck and PyTorch's errors."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.testing import assert_close

F64 = tc.float64


def _out(n: int, k: int, s: int, p: int, d: int, ceil: bool) -> int:
    span = n + 2 * p - d * (k - 1) - 1
    o = (math.ceil(span / s) if ceil else span // s) + 1
    return o - 1 if ceil and (o - 1) * s >= n + p else o


def ref_pool3d(x: Any, k: Any, s: Any, p: Any, d: Any, ceil: bool, mode: str, **kw: Any) -> Any:
    """PyTorch's 3-D max/avg pooling, one window at a time."""
    N, C, *sizes = x.shape
    outs = [_out(n, *a, ceil) for n, *a in zip(sizes, k, s, p, d, strict=True)]
    res = np.zeros((N, C, *outs))
    idx = np.zeros((N, C, *outs), dtype=np.int64)
    for o in itertools.product(*(range(n) for n in outs)):
        if mode == "max":
            pos = [[o[i] * s[i] - p[i] + j * d[i] for j in range(k[i])] for i in range(3)]
            best = np.full((N, C), -np.inf)
            arg = np.zeros((N, C), dtype=np.int64)
            for a, b, c in itertools.product(*pos):
                if 0 <= a < sizes[0] and 0 <= b < sizes[1] and 0 <= c < sizes[2]:
                    v = x[:, :, a, b, c]
                    better = v > best
                    best = np.where(better, v, best)
                    arg = np.where(better, (a * sizes[1] + b) * sizes[2] + c, arg)
            res[(slice(None), slice(None), *o)] = best
            idx[(slice(None), slice(None), *o)] = arg
        else:
            lo = [o[i] * s[i] - p[i] for i in range(3)]
            hi = [min(lo[i] + k[i], sizes[i] + p[i]) for i in range(3)]
            pool = math.prod(hi[i] - lo[i] for i in range(3))
            lo = [max(v, 0) for v in lo]
            hi = [min(hi[i], sizes[i]) for i in range(3)]
            win = x[:, :, lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]]
            div = kw.get("divisor_override") or (
                pool if kw.get("count_include_pad", True) else win[0, 0].size
            )
            res[(slice(None), slice(None), *o)] = win.sum((2, 3, 4)) / div
    return res, idx


CASES = [
    ((2, 2, 2), None, (0, 0, 0), (1, 1, 1), False),
    ((3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), True),
    ((2, 3, 2), (1, 2, 2), (1, 1, 0), (2, 1, 2), False),
]


@pytest.mark.parametrize("case", range(3))
def test_max_pool3d_against_numpy(case: int) -> None:
    k, s, p, d, ceil = CASES[case]
    rng = np.random.default_rng(case)
    x = np.round(rng.normal(size=(2, 2, 5, 6, 5)), 1)  # ties: the first in scan order wins
    got, gi = F.max_pool3d(tc.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    want, wi = ref_pool3d(x, k, s or k, p, d, ceil, "max")
    assert_close(got, want)
    assert gi.tolist() == wi.tolist()
    unbatched = F.max_pool3d(tc.tensor(x[0]), k, s, p, d, ceil_mode=ceil)
    assert_close(unbatched, want[0])
    m = tc.nn.MaxPool3d(k, s, p, d, return_indices=True, ceil_mode=ceil)
    assert m(tc.tensor(x))[1].tolist() == wi.tolist()


@pytest.mark.parametrize("case", range(3))
@pytest.mark.parametrize("opts", [{}, {"count_include_pad": False}, {"divisor_override": 5}])
def test_avg_pool3d_against_numpy(case: int, opts: dict[str, Any]) -> None:
    k, s, p, _, ceil = CASES[case]
    x = np.random.default_rng(case).normal(size=(2, 2, 5, 6, 5))
    got = F.avg_pool3d(tc.tensor(x), k, s, p, ceil, **opts)
    want, _ = ref_pool3d(x, k, s or k, p, (1, 1, 1), ceil, "avg", **opts)
    assert_close(got, want)
    assert_close(tc.nn.AvgPool3d(k, s, p, ceil, **opts)(tc.tensor(x)), want)


def test_gradients() -> None:
    x = tc.randn(1, 2, 4, 5, 4, dtype=F64, requires_grad=True)
    assert tc.autograd.gradcheck(lambda t: F.max_pool3d(t, 2, 1, 1), (x,))
    assert tc.autograd.gradcheck(lambda t: F.avg_pool3d(t, 3, 2, 1, True, False), (x,))
    assert tc.autograd.gradcheck(lambda t: F.adaptive_avg_pool3d(t, (3, 2, 3)), (x,))
    assert tc.autograd.gradcheck(lambda t: F.adaptive_max_pool3d(t, (3, 2, 3)), (x,))
    y = tc.rand(2, 3, 7, dtype=F64).add(0.5).requires_grad_()
    assert tc.autograd.gradcheck(lambda t: F.adaptive_max_pool1d(t, 3), (y,))
    assert tc.autograd.gradcheck(lambda t: F.lp_pool1d(t, 2.0, 3, 2), (y,))
    assert tc.autograd.gradcheck(lambda t: F.lp_pool2d(t.unsqueeze(0), 3.0, 2), (y,))


def test_adaptive_against_numpy() -> None:
    x = np.random.default_rng(5).normal(size=(2, 3, 5, 7, 4))

    def bounds(n: int, o: int) -> list[tuple[int, int]]:
        return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]

    outs = (3, 4, 2)
    want_avg = np.zeros((2, 3, *outs))
    want_max = np.zeros((2, 3, *outs))
    for (i, (a0, a1)), (j, (b0, b1)), (m, (c0, c1)) in itertools.product(
        *(enumerate(bounds(n, o)) for n, o in zip(x.shape[2:], outs, strict=True))
    ):
        win = x[:, :, a0:a1, b0:b1, c0:c1]
        want_avg[:, :, i, j, m] = win.mean((2, 3, 4))
        want_max[:, :, i, j, m] = win.max((2, 3, 4))
    assert_close(F.adaptive_avg_pool3d(tc.tensor(x), outs), want_avg)
    assert_close(tc.nn.AdaptiveMaxPool3d(outs)(tc.tensor(x)), want_max)
    assert tc.nn.AdaptiveAvgPool3d((None, 7, 2))(tc.tensor(x)).shape == (2, 3, 5, 7, 2)
    assert tc.nn.AdaptiveAvgPool3d(1)(tc.tensor(x)).shape == (2, 3, 1, 1, 1)
    z = x[:, :, :, 0, 0]
    want1 = np.stack([z[:, :, lo:hi].max(-1) for lo, hi in bounds(5, 3)], -1)
    assert_close(tc.nn.AdaptiveMaxPool1d(3)(tc.tensor(z)), want1)


@pytest.mark.parametrize(
    ("shape", "outs"),
    [
        ((2, 3, 7), (3,)),
        ((2, 1, 5, 9), (2, None)),
        ((3, 5, 7), (4, 3)),
        ((1, 2, 4, 5, 6), (3, 2, 4)),
    ],
)
def test_adaptive_max_pool_indices_against_numpy(
    device: str, shape: tuple[int, ...], outs: tuple[Any, ...]
) -> None:
    # return_indices: the flat index of each window's maximum in its plane (PyTorch's).
    nd = len(outs)
    batched = len(shape) == nd + 2
    x = np.random.default_rng(8).permutation(math.prod(shape)).reshape(shape) / 10.0
    xb = x if batched else x[None]
    sizes = xb.shape[2:]
    full = tuple(n if o is None else o for n, o in zip(sizes, outs, strict=True))

    def bounds(n: int, o: int) -> list[tuple[int, int]]:
        return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]

    want_v = np.zeros((*xb.shape[:2], *full))
    want_i = np.zeros((*xb.shape[:2], *full), dtype=np.int64)
    cells = (enumerate(bounds(n, o)) for n, o in zip(sizes, full, strict=True))
    for cell in itertools.product(*cells):
        win = xb[(slice(None), slice(None), *(slice(lo, hi) for _, (lo, hi) in cell))]
        flat = win.reshape(*xb.shape[:2], -1)
        local = np.unravel_index(flat.argmax(-1), win.shape[2:])
        pos = [lo + loc for (_, (lo, _)), loc in zip(cell, local, strict=True)]
        at = (slice(None), slice(None), *(i for i, _ in cell))
        want_v[at] = flat.max(-1)
        want_i[at] = np.ravel_multi_index(pos, sizes)
    if not batched:
        want_v, want_i = want_v[0], want_i[0]
    xt = tc.tensor(x, device=device, requires_grad=True)
    fn = getattr(F, f"adaptive_max_pool{nd}d")
    values, indices = fn(xt, outs, return_indices=True)
    assert indices.dtype == tc.int64
    assert_close(values, want_v)
    assert_close(indices, want_i)
    module = getattr(tc.nn, f"AdaptiveMaxPool{nd}d")(outs, return_indices=True)
    assert_close(module(xt)[1], want_i)
    assert tc.autograd.gradcheck(lambda t: fn(t, outs, return_indices=True)[0], (xt,))


def test_lp_pools() -> None:
    x = np.abs(np.random.default_rng(6).normal(size=(2, 3, 6, 4)))
    got = tc.nn.LPPool2d(2, (2, 2))(tc.tensor(x))
    want = np.sqrt((x**2).reshape(2, 3, 3, 2, 2, 2).sum((3, 5)))
    assert_close(got, want)
    got1 = tc.nn.LPPool1d(3, 2)(tc.tensor(x[:, :, :, 0]))
    assert_close(got1, np.cbrt((x[:, :, :, 0] ** 3).reshape(2, 3, 3, 2).sum(-1)))
    # a stride of one element, as PyTorch takes it
    assert_close(F.lp_pool1d(tc.tensor(x[:, :, :, 0]), 3, 2, stride=(2,)), got1)
    x3 = np.abs(np.random.default_rng(7).normal(size=(1, 2, 4, 4, 4)))
    got3 = tc.nn.LPPool3d(1, 2)(tc.tensor(x3))
    assert_close(got3, x3.reshape(1, 2, 2, 2, 2, 2, 2, 2).sum((3, 5, 7)))
    assert (
        repr(tc.nn.LPPool2d(2, 3))
        == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    )


def test_errors() -> None:
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel"):
        F.max_pool3d(tc.ones(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel"):
        F.avg_pool3d(tc.ones(1, 1, 4, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="output size would be too small"):
        F.max_pool3d(tc.ones(1, 1, 1, 4, 4), 2)
    with pytest.raises(RuntimeError, match=r"expected 4D \(unbatched\) or 5D \(batched\) input"):
        F.max_pool3d(tc.ones(1, 4, 4), 2)
