"""LBFGS: its trajectory, step by step, against a NumPy implementation of the algorithm in
PyTorch's documentation (two-loop recursion; fixed steps or the strong-Wolfe search of Nocedal
and Wright with cubic interpolation), on a quadratic and on Rosenbrock's function; its
stopping rules, evaluation counts, state dict and errors."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import optim
from tensorcore.testing import assert_close

A = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]])
B = np.array([1.0, -1.0, 2.0])


def quad_np(x: Any) -> tuple[float, Any]:
    return float(0.5 * x @ A @ x - B @ x), A @ x - B


def rosen_np(x: Any) -> tuple[float, Any]:
    f = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
    g = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])
    return float(f), g


def quad_tc(w: Any) -> Any:
    a = tc.tensor(A, dtype=w.dtype, device=w.device)
    b = tc.tensor(B, dtype=w.dtype, device=w.device)
    return 0.5 * (w * (a @ w)).sum() - (b * w).sum()


def rosen_tc(w: Any) -> Any:
    return (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2


PROBLEMS = {"quadratic": (quad_np, quad_tc, [2.0, -1.0, 0.5]),
            "rosenbrock": (rosen_np, rosen_tc, [-1.2, 1.0])}  # fmt: skip


# ------------------------------------------------------------------ NumPy reference
def _cubic(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
           lo: float | None = None, hi: float | None = None) -> float:  # fmt: skip
    if lo is None or hi is None:
        lo, hi = min(x1, x2), max(x1, x2)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    sq = d1**2 - g1 * g2
    if sq < 0:
        return (lo + hi) / 2
    d2 = math.sqrt(sq)
    # The formula is written from the right end of the interval (its larger point).
    if x1 <= x2:
        m = x2 - (x2 - x1) * (g2 + d2 - d1) / (g2 - g1 + 2 * d2)
    else:
        m = x1 - (x1 - x2) * (g1 + d2 - d1) / (g1 - g2 + 2 * d2)
    return min(max(m, lo), hi)


def _wolfe(phi: Callable[[float], tuple[float, Any]], d: Any, t: float, f: float, g: Any,
           gtd: float, c1: float = 1e-4, c2: float = 0.9, tol: float = 1e-9,
           max_ls: int = 25) -> tuple[float, Any, float, int]:  # fmt: skip
    """Algorithm 3.5 (bracketing) then 3.6 (zoom) of Nocedal and Wright."""
    pts = [(0.0, f, g, gtd)]  # (step, loss, grad, slope)
    fn, gn = phi(t)
    n, it = 1, 0
    cur = (t, fn, gn, float(gn @ d))
    br: list[Any] = []
    while it < max_ls:
        prev = pts[-1]
        if (
            cur[1] > f + c1 * t * gtd
            or (it > 1 and cur[1] >= prev[1])
            or (abs(cur[3]) > -c2 * gtd and cur[3] >= 0)
        ):
            br = [prev, cur]
            break
        if abs(cur[3]) <= -c2 * gtd:
            return cur[1], cur[2], cur[0], n
        t = _cubic(prev[0], prev[1], prev[3], cur[0], cur[1], cur[3],
                   cur[0] + 0.01 * (cur[0] - prev[0]), cur[0] * 10)  # fmt: skip
        pts.append(cur)
        fn, gn = phi(t)
        n, it = n + 1, it + 1
        cur = (t, fn, gn, float(gn @ d))
    if it == max_ls:
        br = [(0.0, f, g, gtd), cur]
    low = 0 if br[0][1] <= br[1][1] else 1
    stuck = False
    while it < max_ls:
        (a, fa, _, sa), (b, fb, _, sb) = br
        if abs(b - a) * np.abs(d).max() < tol:
            break
        t = _cubic(a, fa, sa, b, fb, sb)
        top, bot = max(a, b), min(a, b)
        eps = 0.1 * (top - bot)
        if min(top - t, t - bot) < eps:
            if stuck or t >= top or t <= bot:
                t = top - eps if abs(t - top) < abs(t - bot) else bot + eps
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        fn, gn = phi(t)
        n, it = n + 1, it + 1
        new = (t, fn, gn, float(gn @ d))
        if fn > f + c1 * t * gtd or fn >= br[low][1]:
            br[1 - low] = new
            low = 0 if br[0][1] <= br[1][1] else 1
        else:
            if abs(new[3]) <= -c2 * gtd:
                br[low] = new
                break
            if new[3] * (br[1 - low][0] - br[low][0]) >= 0:
                br[1 - low] = br[low]
            br[low] = new
    return br[low][1], br[low][2], br[low][0], n


def ref_lbfgs_step(fg: Callable[[Any], tuple[float, Any]], x: Any, st: dict[str, Any],
                   lr: float = 1.0, max_iter: int = 20, max_eval: int | None = None,
                   tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9,
                   history_size: int = 100, line_search_fn: str | None = None) -> Any:  # fmt: skip
    max_eval = max_iter * 5 // 4 if max_eval is None else max_eval
    loss, g = fg(x)
    evals = 1
    st["evals"] = st.get("evals", 0) + 1
    if np.abs(g).max() <= tolerance_grad:
        return x
    for k in range(1, max_iter + 1):
        st["n"] = st.get("n", 0) + 1
        if st["n"] == 1:
            d = -g
            st["S"], st["Y"], st["H"] = [], [], 1.0
        else:
            y, s = g - st["g"], st["d"] * st["t"]
            if y @ s > 1e-10:
                st["S"], st["Y"] = (st["S"] + [s])[-history_size:], (st["Y"] + [y])[-history_size:]
                st["H"] = (y @ s) / (y @ y)
            q, alphas = -g, []
            for s_i, y_i in reversed(list(zip(st["S"], st["Y"], strict=True))):
                alphas.append((s_i @ q) / (y_i @ s_i))
                q = q - alphas[-1] * y_i
            r = st["H"] * q
            for (s_i, y_i), a in zip(zip(st["S"], st["Y"], strict=True), reversed(alphas),
                                     strict=True):  # fmt: skip
                r = r + (a - (y_i @ r) / (y_i @ s_i)) * s_i
            d = r
        st["g"], prev_loss = g, loss
        t = min(1.0, 1.0 / np.abs(g).sum()) * lr if st["n"] == 1 else lr
        gtd = g @ d
        if gtd > -tolerance_change:
            break
        if line_search_fn == "strong_wolfe":
            x0 = x
            loss, g, t, used = _wolfe(lambda s, x0=x0, d=d: fg(x0 + s * d), d, t, loss, g, gtd)
            x = x0 + t * d
        else:
            x = x + t * d
            used = 0
            if k != max_iter:
                loss, g = fg(x)
                used = 1
        st["d"], st["t"] = d, t
        evals += used
        st["evals"] += used
        if k == max_iter or evals >= max_eval or np.abs(g).max() <= tolerance_grad:
            break
        if np.abs(d * t).max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
            break
    return x


# ------------------------------------------------------------------ tests
def _closure(opt: Any, w: Any, f: Any) -> Callable[[], Any]:
    def closure() -> Any:
        opt.zero_grad()
        loss = f(w)
        loss.backward()
        return loss

    return closure


OPTIONS = [{}, {"lr": 0.5, "max_iter": 4, "history_size": 2}, {"max_iter": 3, "max_eval": 2}]


@pytest.mark.parametrize("problem", sorted(PROBLEMS))
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("opts", OPTIONS, ids=["defaults", "short-history", "max-eval"])
def test_trajectory_matches_reference(device: str, problem: str, line_search_fn: Any,
                                      opts: dict[str, Any]) -> None:  # fmt: skip
    fg, f, x0 = PROBLEMS[problem]
    w = tc.nn.Parameter(tc.tensor(x0, dtype=tc.float64, device=device))
    opt = optim.LBFGS([w], line_search_fn=line_search_fn, **opts)
    x, st = np.array(x0), {}
    # Fixed unit steps on Rosenbrock amplify rounding: compare a few iterations per step.
    steps = 3 if problem == "quadratic" or line_search_fn else 2
    for _ in range(steps):
        loss = opt.step(_closure(opt, w, f))
        assert isinstance(loss, tc.Tensor)
        x = ref_lbfgs_step(fg, x, st, line_search_fn=line_search_fn, **opts)
        assert_close(w, x, rtol=1e-9, atol=1e-10)
        state = opt.state[w]
        assert (state["func_evals"], state["n_iter"]) == (st["evals"], st["n"])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_converges_on_rosenbrock_and_quadratic(line_search_fn: Any) -> None:
    for name, want in (("quadratic", np.linalg.solve(A, B)), ("rosenbrock", np.ones(2))):
        _, f, x0 = PROBLEMS[name]
        w = tc.nn.Parameter(tc.tensor(x0, dtype=tc.float64))
        lr = 1.0 if line_search_fn else 0.1
        opt = optim.LBFGS([w], lr=lr, max_iter=200, line_search_fn=line_search_fn)
        for _ in range(5):
            opt.step(_closure(opt, w, f))
        assert_close(w, want, atol=1e-4, rtol=0)


def test_several_parameters_form_one_vector() -> None:
    a = tc.nn.Parameter(tc.tensor([[1.0, 2.0]], dtype=tc.float64))
    b = tc.nn.Parameter(tc.tensor([3.0], dtype=tc.float64))
    unused = tc.nn.Parameter(tc.tensor([5.0], dtype=tc.float64))
    opt = optim.LBFGS([a, b, unused], line_search_fn="strong_wolfe")
    for _ in range(2):
        opt.step(_closure(opt, a, lambda _: quad_tc(tc.cat([a.reshape(-1), b]))))
    assert_close(tc.cat([a.reshape(-1), b]), np.linalg.solve(A, B), atol=1e-4, rtol=0)
    assert unused.item() == 5.0 and set(opt.state) == {a}


def test_stops_at_once_when_the_gradient_is_small() -> None:
    w = tc.nn.Parameter(tc.tensor([1.0], dtype=tc.float64))
    opt = optim.LBFGS([w])
    loss = opt.step(_closure(opt, w, lambda w: ((w - 1) ** 2).sum()))
    assert loss.item() == 0.0 and w.item() == 1.0
    assert opt.state[w] == {"func_evals": 1, "n_iter": 0}


def test_state_dict_round_trip_continues_the_trajectory() -> None:
    _, f, x0 = PROBLEMS["rosenbrock"]

    def make() -> tuple[Any, Any]:
        w = tc.nn.Parameter(tc.tensor(x0, dtype=tc.float64))
        return w, optim.LBFGS([w], max_iter=3, line_search_fn="strong_wolfe")

    wa, oa = make()
    oa.step(_closure(oa, wa, f))
    sd = oa.state_dict()
    assert sd["param_groups"][0]["max_eval"] == 3 and sd["param_groups"][0]["lr"] == 1
    assert {"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad"} <= set(
        sd["state"][0]
    )
    wb, ob = make()
    with tc.no_grad():
        wb.copy_(wa)
    ob.load_state_dict(copy.deepcopy(sd))
    for _ in range(2):
        oa.step(_closure(oa, wa, f))
        ob.step(_closure(ob, wb, f))
    assert_close(wa, wb, rtol=0, atol=0)
    # PyTorch's value types: ro, H_diag and al hold 0-d tensors (al: one per history slot)
    state = oa.state_dict()["state"][0]
    assert all(isinstance(r, tc.Tensor) and r.shape == () for r in state["ro"])
    assert isinstance(state["H_diag"], tc.Tensor) and state["H_diag"].dtype == tc.float64
    assert len(state["al"]) == 100 and isinstance(state["al"][0], tc.Tensor)


def test_errors_and_defaults() -> None:
    w = tc.nn.Parameter(tc.ones(2))
    opt = optim.LBFGS([w])
    group = opt.param_groups[0]
    got = (group["lr"], group["max_iter"], group["max_eval"], group["history_size"])
    assert got == (1, 20, 25, 100)
    assert (group["tolerance_grad"], group["tolerance_change"]) == (1e-7, 1e-9)
    assert group["line_search_fn"] is None
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [w]}, {"params": [tc.nn.Parameter(tc.ones(1))]}])
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.LBFGS([w], lr=-1)
    bad = optim.LBFGS([w], line_search_fn="armijo")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        bad.step(_closure(bad, w, lambda w: (w * w).sum()))


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_complex_parameter_steps_as_its_real_view(line_search_fn: Any) -> None:
    """L-BFGS treats a complex parameter as the real vector of its parts, as PyTorch's."""
    target = np.array([[1.0, 2.0], [-0.5, 0.25]])

    def run(p: tc.Tensor, real: Callable[[tc.Tensor], tc.Tensor]) -> tc.Tensor:
        opt = optim.LBFGS([p], lr=0.5, max_iter=6, line_search_fn=line_search_fn)

        def closure() -> tc.Tensor:
            opt.zero_grad()
            x = real(p)
            loss = ((x - tc.tensor(target)) ** 2).sum() + (x[..., 0] ** 4).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        return real(p.detach())

    z = tc.zeros(2, dtype=tc.complex128, requires_grad=True)
    r = tc.zeros(2, 2, dtype=tc.float64, requires_grad=True)
    assert_close(run(z, tc.view_as_real), run(r, lambda t: t), rtol=1e-12, atol=1e-12)
