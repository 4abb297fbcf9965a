"""Optimizers and schedules: each optimizer's trajectory, step by step, against a NumPy
implementation of the algorithm in PyTorch's documentation; fused kernels against the
per-parameter path; state dicts, groups, zero_grad; the schedules against their formulas."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import optim
from tensorcore.optim import lr_scheduler as sched
from tensorcore.testing import assert_close, dtype_unsupported

F64 = tc.float64
# () too: a scalar parameter (a GP's raw lengthscale, a learned temperature); NumPy's
# ufuncs give 0-d arrays back as scalars, which in-place kernels must not write into.
SHAPES = [(3, 2), (4,), ()]


def _grads(step: int) -> list[Any]:
    rng = np.random.default_rng(100 + step)
    return [np.asarray(rng.normal(size=s)) for s in SHAPES]


def _init() -> list[Any]:
    rng = np.random.default_rng(0)
    return [np.asarray(rng.normal(size=s)) for s in SHAPES]


# ------------------------------------------------------------------ NumPy references
def ref_sgd(p: Any, g: Any, st: dict[str, Any], lr: float, momentum: float = 0.0,
            dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
            maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    if momentum:
        b = st.get("b")
        b = g.copy() if b is None else momentum * b + (1 - dampening) * g
        st["b"] = b
        g = g + momentum * b if nesterov else b
    return p - lr * g


def ref_adam(p: Any, g: Any, st: dict[str, Any], lr: float, betas: Any = (0.9, 0.999),
             eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False,
             maximize: bool = False, decoupled: bool = False) -> Any:  # fmt: skip
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    if amsgrad:
        v = st["vmax"] = np.maximum(st.get("vmax", 0), v)
    denom = np.sqrt(v) / math.sqrt(1 - b2**t) + eps
    return p - lr / (1 - b1**t) * m / denom


def ref_rmsprop(p: Any, g: Any, st: dict[str, Any], lr: float, alpha: float = 0.99,
                eps: float = 1e-8, weight_decay: float = 0.0, momentum: float = 0.0,
                centered: bool = False, maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    s = st["s"] = alpha * st.get("s", 0) + (1 - alpha) * g * g
    if centered:
        ga = st["ga"] = alpha * st.get("ga", 0) + (1 - alpha) * g
        avg = np.sqrt(s - ga * ga) + eps
    else:
        avg = np.sqrt(s) + eps
    if momentum:
        b = st["b"] = momentum * st.get("b", 0) + g / avg
        return p - lr * b
    return p - lr * g / avg


def ref_adagrad(p: Any, g: Any, st: dict[str, Any], lr: float, lr_decay: float = 0.0,
                weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
                eps: float = 1e-10, maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s = st["s"] = st.get("s", initial_accumulator_value) + g * g
    return p - clr * g / (np.sqrt(s) + eps)


CASES = [
    (optim.SGD, ref_sgd, {"lr": 0.1}),
    (optim.SGD, ref_sgd, {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "weight_decay": 0.01}),
    (optim.SGD, ref_sgd, {"lr": 0.05, "momentum": 0.8, "nesterov": True, "maximize": True}),
    (optim.Adam, ref_adam, {"lr": 0.01}),
    (optim.Adam, ref_adam, {"lr": 0.02, "betas": (0.8, 0.99), "weight_decay": 0.1,
                            "amsgrad": True}),
    (optim.Adam, ref_adam, {"lr": 0.01, "maximize": True, "eps": 1e-3}),
    (optim.RMSprop, ref_rmsprop, {"lr": 0.01}),
    (optim.RMSprop, ref_rmsprop, {"lr": 0.01, "momentum": 0.9, "centered": True,
                                  "weight_decay": 0.1}),
    (optim.Adagrad, ref_adagrad, {"lr": 0.1}),
    (optim.Adagrad, ref_adagrad, {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1,
                                  "initial_accumulator_value": 0.5}),
]  # fmt: skip


def ref_adadelta(p: Any, g: Any, st: dict[str, Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0.0) -> Any:  # fmt: skip
    if weight_decay:
        g = g + weight_decay * p
    v = st["v"] = rho * st.get("v", 0) + (1 - rho) * g * g
    d = np.sqrt(st.get("u", 0) + eps) / np.sqrt(v + eps) * g
    st["u"] = rho * st.get("u", 0) + (1 - rho) * d * d
    return p - lr * d


def ref_adamax(p: Any, g: Any, st: dict[str, Any], lr: float = 2e-3, eps: float = 1e-8,
               weight_decay: float = 0.0) -> Any:  # fmt: skip
    b1, b2 = 0.9, 0.999
    if weight_decay:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    u = st["u"] = np.maximum(b2 * st.get("u", 0), np.abs(g) + eps)
    return p - lr / (1 - b1**t) * m / u


def _adamw_ref(p: Any, g: Any, st: dict[str, Any], **kw: Any) -> Any:
    return ref_adam(p, g, st, decoupled=True, **kw)


CASES += [
    (optim.Adadelta, ref_adadelta, {}),
    (optim.Adadelta, ref_adadelta, {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    (optim.Adamax, ref_adamax, {}),
    (optim.Adamax, ref_adamax, {"lr": 0.01, "weight_decay": 0.1}),
    (optim.AdamW, _adamw_ref, {"lr": 0.01, "weight_decay": 0.01}),
    (optim.AdamW, _adamw_ref, {"lr": 0.01, "weight_decay": 0.2, "amsgrad": True}),
]


def ref_nadam(p: Any, g: Any, st: dict[str, Any], lr: float = 2e-3, betas: Any = (0.9, 0.999),
              eps: float = 1e-8, weight_decay: float = 0.0, momentum_decay: float = 4e-3,
              decoupled_weight_decay: bool = False, maximize: bool = False) -> Any:  # fmt: skip
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    # PyTorch keeps the product of the mu's in a float32 0-d tensor
    prod = st["prod"] = np.float32(st.get("prod", np.float32(1.0)) * np.float32(mu))
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    denom = np.sqrt(v / (1 - b2**t)) + eps
    prod = float(prod)
    p = p - lr * (1 - mu) / (1 - prod) * g / denom
    return p - lr * mu_next / (1 - prod * mu_next) * m / denom


def ref_radam(p: Any, g: Any, st: dict[str, Any], lr: float = 1e-3, betas: Any = (0.9, 0.999),
              eps: float = 1e-8, weight_decay: float = 0.0,
              decoupled_weight_decay: bool = False, maximize: bool = False) -> Any:  # fmt: skip
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
    m_hat = m / (1 - b1**t)
    if rho_t <= 5:
        return p - lr * m_hat
    r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    return p - lr * m_hat * math.sqrt(1 - b2**t) / (np.sqrt(v) + eps) * r


def ref_asgd(p: Any, g: Any, st: dict[str, Any], lr: float = 1e-2, lambd: float = 1e-4,
             alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0.0,
             maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    eta = float(st.get("eta", np.float32(lr)))  # a float32 0-d tensor in PyTorch
    p = p * (1 - lambd * eta) - eta * g
    mu = float(st.get("mu", 1.0))
    st["ax"] = p.copy() if mu == 1 else st["ax"] + (p - st["ax"]) * mu
    st["eta"] = np.float32(lr / (1 + lambd * lr * t) ** alpha)
    st["mu"] = np.float32(1 / max(1, t - t0))
    return p


def ref_rprop(p: Any, g: Any, st: dict[str, Any], lr: float = 1e-2, etas: Any = (0.5, 1.2),
              step_sizes: Any = (1e-6, 50), maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    prev = st.get("prev", np.zeros_like(p))
    size = st.get("size", np.full_like(p, lr))
    s = np.sign(g * prev)
    size = st["size"] = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1)),
                                *step_sizes)  # fmt: skip
    g = st["prev"] = np.where(s < 0, 0.0, g)
    return p - np.sign(g) * size


CASES += [
    (optim.NAdam, ref_nadam, {}),
    (optim.NAdam, ref_nadam, {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.1,
                              "momentum_decay": 0.01}),
    (optim.NAdam, ref_nadam, {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
                              "maximize": True}),
    (optim.RAdam, ref_radam, {}),
    # betas[1] = 0.5 makes rho_t exceed 5 from the fourth step on: both branches run
    (optim.RAdam, ref_radam, {"lr": 0.01, "betas": (0.8, 0.5), "weight_decay": 0.1}),
    (optim.RAdam, ref_radam, {"lr": 0.01, "betas": (0.9, 0.6), "weight_decay": 0.1,
                              "decoupled_weight_decay": True, "maximize": True}),
    (optim.ASGD, ref_asgd, {}),
    (optim.ASGD, ref_asgd, {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 2,
                            "weight_decay": 0.1, "maximize": True}),
    (optim.Rprop, ref_rprop, {}),
    (optim.Rprop, ref_rprop, {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (0.05, 0.2),
                              "maximize": True}),
]  # fmt: skip


def _ids(case: Any) -> str:
    return f"{case[0].__name__}-{'-'.join(f'{k}={v}' for k, v in case[2].items())}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
@pytest.mark.parametrize("foreach", [None, False])
def test_trajectory_matches_reference(device: str, case: Any, foreach: Any) -> None:
    cls, ref, opts = case
    params = [tc.nn.Parameter(tc.tensor(a, device=device)) for a in _init()]
    extra = {} if cls is optim.RMSprop else {"foreach": foreach}
    opt = cls(params, **opts, **extra)
    want = _init()
    states: list[dict[str, Any]] = [{} for _ in params]
    for step in range(6):
        for p, g in zip(params, _grads(step), strict=True):
            p.grad = tc.tensor(g, device=device)
        opt.step()
        want = [ref(w, g, st, **opts) for w, g, st in zip(want, _grads(step), states, strict=True)]
        for p, w in zip(params, want, strict=True):
            assert_close(p, w, rtol=1e-10, atol=1e-12)


def test_training_a_quadratic_through_backward(device: str) -> None:
    target = tc.tensor([1.0, -2.0, 3.0], dtype=F64, device=device)
    for cls, kw in [(optim.SGD, {"lr": 0.1, "momentum": 0.5}), (optim.Adam, {"lr": 0.1}),
                    (optim.RMSprop, {"lr": 0.05}), (optim.Adagrad, {"lr": 0.5})]:  # fmt: skip
        w = tc.nn.Parameter(tc.zeros(3, dtype=F64, device=device))
        opt = cls([w], **kw)
        for _ in range(300):
            opt.zero_grad()
            loss = ((w - target) ** 2).sum()
            loss.backward()
            opt.step()
        assert_close(w, target, atol=1e-2, rtol=0)


def test_closure_is_evaluated_with_grad_enabled() -> None:
    w = tc.nn.Parameter(tc.tensor([2.0]))
    opt = optim.SGD([w], lr=0.25)

    def closure() -> tc.Tensor:
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with tc.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0 and w.item() == 1.0


@pytest.mark.parametrize("foreach", [None, False])
def test_sgd_without_momentum_keeps_no_state(foreach: Any) -> None:
    # PyTorch's SGD touches its state only for a momentum buffer: the state dict stays empty.
    a, b = tc.nn.Parameter(tc.ones(2)), tc.nn.Parameter(tc.ones(3))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "momentum": 0.9}], lr=0.1, foreach=foreach)
    (a.sum() + b.sum()).backward()
    opt.step()
    assert list(opt.state_dict()["state"]) == [1]
    assert_close(a, np.full(2, 0.9, np.float32))


def test_param_groups_zero_grad_and_errors() -> None:
    a, b = tc.nn.Parameter(tc.ones(2)), tc.nn.Parameter(tc.ones(3))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[0]["momentum"] == 0
    (a.sum() + b.sum()).backward()
    opt.zero_grad(set_to_none=False)
    assert a.grad is not None and a.grad.sum().item() == 0
    opt.zero_grad()
    assert a.grad is None
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {a}}], lr=0.1)
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([a], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([a], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 0"):
        optim.Adam([a], betas=(1.0, 0.9))
    assert "Parameter Group 1" in repr(opt) and "    lr: 0.5" in repr(opt)


@pytest.mark.parametrize(
    "cls",
    [optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad, optim.NAdam, optim.RAdam,
     optim.ASGD, optim.Rprop],
)  # fmt: skip
def test_state_dict_round_trip_continues_the_trajectory(cls: Any, tmp_path: Any) -> None:
    kw = {"lr": 0.05, "momentum": 0.9} if cls in (optim.SGD, optim.RMSprop) else {"lr": 0.05}

    def make() -> tuple[list[tc.Tensor], Any]:
        ps = [tc.nn.Parameter(tc.tensor(a)) for a in _init()]
        return ps, cls(ps, **kw)

    pa, oa = make()
    for step in range(2):
        for p, g in zip(pa, _grads(step), strict=True):
            p.grad = tc.tensor(g)
        oa.step()
    sd = oa.state_dict()
    n = list(range(len(SHAPES)))
    assert sorted(sd["state"]) == n and sd["param_groups"][0]["params"] == n
    pb, ob = make()
    with tc.no_grad():
        for x, y in zip(pb, pa, strict=True):
            x.copy_(y)
    ob.load_state_dict(copy.deepcopy(sd))
    for step in range(2, 4):
        for ps in (pa, pb):
            for p, g in zip(ps, _grads(step), strict=True):
                p.grad = tc.tensor(g)
        oa.step()
        ob.step()
    for x, y in zip(pa, pb, strict=True):
        assert_close(x, y)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        ob.load_state_dict({"state": {}, "param_groups": []})


def _sparse_grad(rows: list[int], values: Any, shape: tuple[int, int], device: str) -> tc.Tensor:
    return tc.sparse_coo_tensor([rows], tc.tensor(values, device=device), shape).to(device)


def _sparse_adam_ref(p: Any, g: Any, st: dict[str, Any], lr: float) -> Any:
    # SparseAdam's own rule (eps outside the bias correction), on rows touched every step.
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    return p - lr * math.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)


@pytest.mark.sparse
@pytest.mark.parametrize(
    ("cls", "ref"),
    [(optim.SGD, ref_sgd), (optim.Adagrad, ref_adagrad), (optim.SparseAdam, _sparse_adam_ref)],
)
def test_sparse_gradients_update_only_their_rows(device: str, cls: Any, ref: Any) -> None:
    init = np.arange(12.0).reshape(4, 3) / 10
    w = tc.nn.Parameter(tc.tensor(init, device=device))
    opt = cls([w], lr=0.1)
    rows = init[[1, 3]]
    st: dict[str, Any] = {}
    rng = np.random.default_rng(1)
    for _ in range(3):
        vals = rng.normal(size=(2, 3))
        w.grad = _sparse_grad([1, 3], vals, (4, 3), device)
        opt.step()
        rows = ref(rows, vals, st, lr=0.1)
    got = w.detach().cpu().numpy()
    np.testing.assert_allclose(got[[1, 3]], rows, rtol=1e-10)
    np.testing.assert_allclose(got[[0, 2]], init[[0, 2]])
    if cls is optim.SparseAdam:  # PyTorch's SparseAdam counts its steps in a Python int
        assert type(opt.state[w]["step"]) is int and opt.state[w]["step"] == 3
        again = cls([w], lr=0.1)
        again.load_state_dict(opt.state_dict())
        assert again.state[w]["step"] == 3
        again.step()
        assert again.state[w]["step"] == 4
    w.grad = _sparse_grad([0], np.ones((1, 3)), (4, 3), device)
    with pytest.raises(RuntimeError, match="does not support sparse gradients"):
        optim.Adam([w], lr=0.1).step()


@pytest.mark.sparse
def test_sparse_adam_sums_a_repeated_index(device: str) -> None:
    # SparseAdam writes the moments' new values at the gradient's coalesced indices: a row
    # named twice in an uncoalesced gradient gets one update, of the summed gradient.
    init = np.arange(12.0).reshape(4, 3) / 10
    w = tc.nn.Parameter(tc.tensor(init, device=device))
    opt = optim.SparseAdam([w], lr=0.1)
    rng = np.random.default_rng(2)
    rows, st = init[[1, 3]], {}
    for _ in range(3):
        vals = rng.normal(size=(3, 3))
        w.grad = _sparse_grad([1, 3, 1], vals, (4, 3), device)
        opt.step()
        rows = _sparse_adam_ref(rows, vals[[0, 1]] + vals[[2, 2]] * [[1], [0]], st, lr=0.1)
    got = w.detach().cpu().numpy()
    np.testing.assert_allclose(got[[1, 3]], rows, rtol=1e-10)
    np.testing.assert_allclose(got[[0, 2]], init[[0, 2]])


def test_sparse_adam_refuses_dense_gradients() -> None:
    w = tc.nn.Parameter(tc.ones(2))
    w.grad = tc.ones(2)
    with pytest.raises(RuntimeError, match="does not support dense gradients"):
        optim.SparseAdam([w]).step()


def test_step_hooks() -> None:
    w = tc.nn.Parameter(tc.ones(1))
    opt = optim.SGD([w], lr=0.1)
    seen: list[str] = []
    h = opt.register_step_pre_hook(lambda o, a, k: seen.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: seen.append("post"))
    opt.step()
    h.remove()
    opt.step()
    assert seen == ["pre", "post", "post"]


# ------------------------------------------------------------------ schedules
def _run(make: Any, n: int, lr: float = 1.0, opt_cls: Any = optim.SGD, **kw: Any) -> list[float]:
    opt = opt_cls([tc.nn.Parameter(tc.ones(1))], lr=lr, **kw)
    s = make(opt)
    out = [opt.param_groups[0]["lr"]]
    for _ in range(n):
        opt.step()
        s.step()
        out.append(s.get_last_lr()[0])
    return out


def test_step_multistep_exponential_lambda_linear() -> None:
    assert _run(lambda o: sched.StepLR(o, 3, 0.5), 7) == [0.5 ** (e // 3) for e in range(8)]
    got = _run(lambda o: sched.MultiStepLR(o, [2, 5, 5], 0.1), 6)
    want = [1, 1, 0.1, 0.1, 0.1, 1e-3, 1e-3]
    assert np.allclose(got, want)
    assert np.allclose(_run(lambda o: sched.ExponentialLR(o, 0.9), 5), [0.9**e for e in range(6)])
    assert np.allclose(_run(lambda o: sched.LambdaLR(o, lambda e: 1 / (e + 1)), 4),
                       [1 / (e + 1) for e in range(5)])  # fmt: skip
    got = _run(lambda o: sched.LinearLR(o, 0.25, 1.0, 3), 5)
    assert np.allclose(got, [0.25, 0.5, 0.75, 1.0, 1.0, 1.0])


def test_cosine_annealing_follows_the_closed_form() -> None:
    got = _run(lambda o: sched.CosineAnnealingLR(o, T_max=10, eta_min=0.1), 20)
    want = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 10)) / 2 for e in range(21)]
    assert np.allclose(got, want)


def test_one_cycle_phases_and_momentum() -> None:
    opt = optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=0.1, momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=10, pct_start=0.3)
    lrs, moms = [opt.param_groups[0]["lr"]], [opt.param_groups[0]["momentum"]]
    for _ in range(9):
        opt.step()
        s.step()
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    initial, peak_step = 1.0 / 25, 3 - 1
    assert math.isclose(lrs[0], initial) and math.isclose(lrs[peak_step], 1.0)
    assert math.isclose(lrs[-1], initial / 1e4)
    assert math.isclose(moms[peak_step], 0.85) and math.isclose(moms[-1], 0.95)

    def cos(start: float, end: float, pct: float) -> float:
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)

    assert math.isclose(lrs[1], cos(initial, 1.0, 1 / 2))
    assert math.isclose(lrs[5], cos(1.0, initial / 1e4, (5 - 2) / (9 - 2)))
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        s.step()
        s.step()
    adam = optim.Adam([tc.nn.Parameter(tc.ones(1))], lr=0.1)
    sched.OneCycleLR(adam, max_lr=0.5, total_steps=5)
    assert adam.param_groups[0]["betas"][0] == 0.95
    # PyTorch's state: checkpoints carry these keys.
    state = s.state_dict()
    assert state["_anneal_func_type"] == "cos" and "anneal_strategy" not in state
    assert state["_schedule_phases"] == [
        {"end_step": 2.0, "start_lr": "initial_lr", "end_lr": "max_lr",
         "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
        {"end_step": 9, "start_lr": "max_lr", "end_lr": "min_lr",
         "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
    ]  # fmt: skip


def test_reduce_on_plateau() -> None:
    opt = optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    s = sched.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, cooldown=1, min_lr=0.2)
    lrs = []
    for metric in [1.0, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]:
        s.step(tc.tensor(metric))
        lrs.append(s.get_last_lr()[0])
    # patience 1: the second bad epoch reduces; cooldown 1 ignores the epoch after; min_lr 0.2
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2]
    with pytest.raises(ValueError, match=r"Factor should be < 1\.0"):
        sched.ReduceLROnPlateau(opt, factor=1.0)


def test_scheduler_state_dict_and_resume() -> None:
    opt = optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    s = sched.StepLR(opt, 2, 0.5)
    for _ in range(3):
        opt.step()
        s.step()
    sd = s.state_dict()
    assert sd["last_epoch"] == 3 and "optimizer" not in sd
    opt2 = optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0)
    s2 = sched.StepLR(opt2, 2, 0.5)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 3
    with pytest.raises(KeyError, match="initial_lr"):
        sched.StepLR(optim.SGD([tc.nn.Parameter(tc.ones(1))], lr=1.0), 2, last_epoch=3)


def test_sparse_embedding_model_trains_end_to_end() -> None:
    """A bag-of-embeddings classifier with ``Embedding(sparse=True)``: SparseAdam on the
    embedding (sparse gradients) and Adam on the dense head reach a fixed accuracy."""
    pytest.importorskip("tensorcore_sparse", reason="needs the sparse backend (tensorcore-sparse)")
    g = tc.Generator().manual_seed(0)
    tokens = tc.randint(0, 50, (256, 6), generator=g)
    labels = (tokens < 25).to(tc.int64).sum(1).gt(3).to(tc.int64)  # "mostly low tokens"
    emb = tc.nn.Embedding(50, 8, sparse=True)
    head = tc.nn.Linear(8, 2)
    opt_sparse = optim.SparseAdam(emb.parameters(), lr=0.05)
    opt_dense = optim.Adam(head.parameters(), lr=0.05)
    for _ in range(60):
        opt_sparse.zero_grad()
        opt_dense.zero_grad()
        logits = head(emb(tokens).mean(1))
        loss = tc.nn.functional.cross_entropy(logits, labels)
        loss.backward()
        assert emb.weight.grad.is_sparse
        opt_sparse.step()
        opt_dense.step()
    acc = (head(emb(tokens).mean(1)).argmax(1) == labels).to(tc.float64).mean().item()
    assert acc > 0.9


def test_new_optimizers_check_their_options_as_pytorch() -> None:
    a = tc.nn.Parameter(tc.ones(2))
    with pytest.raises(ValueError, match="Invalid momentum_decay value: -1"):
        optim.NAdam([a], momentum_decay=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.RAdam([a], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match=r"Invalid eta values: 1\.5, 1\.2"):
        optim.Rprop([a], etas=(1.5, 1.2))
    with pytest.raises(ValueError, match="Invalid weight_decay value"):
        optim.ASGD([a], weight_decay=-0.1)
    a.grad = tc.sparse_coo_tensor([[0]], tc.ones(1), (2,))
    for cls in (optim.NAdam, optim.RAdam, optim.ASGD, optim.Rprop):
        with pytest.raises(RuntimeError, match=f"{cls.__name__} does not support sparse"):
            cls([a]).step()
    # the scalar state is kept as PyTorch keeps it: float32 0-d tensors
    b = tc.nn.Parameter(tc.ones(2, dtype=F64))
    b.grad = tc.ones(2, dtype=F64)
    opt = optim.ASGD([b])
    opt.step()
    assert list(opt.state[b]) == ["step", "eta", "mu", "ax"]
    assert opt.state[b]["eta"].dtype == tc.float32 and opt.state[b]["ax"].dtype == F64
    opt2 = optim.NAdam([b])
    opt2.step()
    assert list(opt2.state[b]) == ["step", "mu_product", "exp_avg", "exp_avg_sq"]


@pytest.mark.parametrize(
    "cls",
    [
        "Adam",
        "AdamW",
        "NAdam",
        "RAdam",
        "Adamax",
        "ASGD",
        "Rprop",
        "Adagrad",
        "Adadelta",
        "RMSprop",
    ],
)
def test_optimizer_scalar_state_follows_the_default_dtype(cls: str) -> None:
    # PyTorch keeps step (and NAdam's mu_product, ASGD's eta and mu) in float64 while the
    # default dtype is float64 (a program's set_default_dtype), in float32 otherwise, whatever
    # the parameters' dtype.
    def scalar_dtypes() -> set[tc.dtype]:
        p = tc.nn.Parameter(tc.ones(2, dtype=F64))
        p.grad = tc.ones(2, dtype=F64)
        opt = getattr(optim, cls)([p], lr=0.1)
        opt.step()
        return {v.dtype for v in opt.state[p].values() if v.ndim == 0}

    assert scalar_dtypes() == {tc.float32}
    old = tc.get_default_dtype()
    tc.set_default_dtype(F64)
    try:
        assert scalar_dtypes() == {F64}
    finally:
        tc.set_default_dtype(old)


# ------------------------------------------------------------------ Adafactor and Muon
def ref_adafactor(p: Any, g: Any, st: dict[str, Any], lr: float = 1e-2, beta2_decay: float = -0.8,
                  eps: Any = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0,
                  maximize: bool = False) -> Any:  # fmt: skip
    g = -g if maximize else g
    eps1 = np.finfo(p.dtype).eps if eps[0] is None else eps[0]
    t = st["t"] = st.get("t", 0) + 1
    decay = t**beta2_decay
    alpha = max(eps[1], np.sqrt(np.mean(p * p))) * min(lr, 1 / np.sqrt(t))
    p = p * (1 - lr * weight_decay)
    if g.ndim > 1:
        row = st["row"] = (
            st.get("row", 0.0) * (1 - decay) + np.mean(g * g, -1, keepdims=True) * decay
        )
        col = st["col"] = (
            st.get("col", 0.0) * (1 - decay) + np.mean(g * g, -2, keepdims=True) * decay
        )
        est = row @ col / np.maximum(np.mean(row, -2, keepdims=True), eps1)
    else:
        est = st["v"] = st.get("v", 0.0) * (1 - decay) + g * g * decay
    u = g / np.sqrt(np.maximum(est, eps1 * eps1))
    return p - alpha / max(1.0, np.sqrt(np.mean(u * u)) / d) * u


@pytest.mark.parametrize(
    "opts",
    [{}, {"lr": 0.1, "beta2_decay": -0.5, "eps": (1e-30, 1e-2), "d": 1.5, "weight_decay": 0.1,
          "maximize": True}],
)  # fmt: skip
def test_adafactor_trajectory_matches_reference(device: str, opts: Any) -> None:
    shapes = [*SHAPES, (2, 3, 4)]
    rng = np.random.default_rng(1)
    init = [rng.normal(size=s) for s in shapes]
    params = [tc.nn.Parameter(tc.tensor(a, device=device)) for a in init]
    opt = optim.Adafactor(params, **opts)
    want, states = init, [{} for _ in params]
    for _ in range(6):
        grads = [rng.normal(size=s) for s in shapes]
        for p, g in zip(params, grads, strict=True):
            p.grad = tc.tensor(g, device=device)
        opt.step()
        want = [
            ref_adafactor(w, g, st, **opts) for w, g, st in zip(want, grads, states, strict=True)
        ]
        for p, w in zip(params, want, strict=True):
            assert_close(p, w, rtol=1e-10, atol=1e-12)
    assert sorted(opt.state[params[0]]) == ["col_var", "row_var", "step"]
    assert sorted(opt.state[params[1]]) == ["step", "variance"]


def _bf16(x: Any) -> Any:
    import ml_dtypes

    return np.asarray(x, dtype=np.float32).astype(ml_dtypes.bfloat16)


def ref_muon(p: Any, g: Any, st: dict[str, Any], lr: float = 1e-3, weight_decay: float = 0.1,
             momentum: float = 0.95, nesterov: bool = True,
             adjust_lr_fn: Any = None) -> Any:  # fmt: skip
    """PyTorch's Muon: bfloat16 Newton-Schulz, each matrix product accumulated in float32
    and rounded once."""
    a, b, c = 3.4445, -4.775, 2.0315
    buf = st["buf"] = st.get("buf", np.zeros_like(g)) * momentum + g * (1 - momentum)
    upd = g + momentum * (buf - g) if nesterov else buf
    f32 = np.float32
    x = _bf16(upd.T if upd.shape[0] > upd.shape[1] else upd)
    norm = _bf16(np.sqrt(np.sum(np.square(x.astype(f32)))))
    x = _bf16(x.astype(f32) / max(norm.astype(f32), _bf16(1e-7).astype(f32)))
    for _ in range(5):
        xf = x.astype(f32)
        gram = _bf16(xf @ xf.T).astype(f32)
        gu = _bf16(b * gram + c * (gram @ gram)).astype(f32)
        x = _bf16(a * xf + gu @ xf)
    o = (x.T if upd.shape[0] > upd.shape[1] else x).astype(np.float64)
    rows, cols = p.shape
    scale = (
        0.2 * np.sqrt(max(rows, cols))
        if adjust_lr_fn == "match_rms_adamw"
        else np.sqrt(max(1, rows / cols))
    )
    return p * (1 - lr * weight_decay) - lr * scale * o


@pytest.mark.parametrize(
    "opts",
    [{}, {"lr": 0.05, "momentum": 0.9, "nesterov": False, "weight_decay": 0.01,
          "adjust_lr_fn": "match_rms_adamw"}],
)  # fmt: skip
def test_muon_trajectory_matches_reference(device: str, opts: Any) -> None:
    shapes = [(3, 2), (2, 5), (4, 4)]
    rng = np.random.default_rng(2)
    init = [rng.normal(size=s) for s in shapes]
    params = [tc.nn.Parameter(tc.tensor(a, device=device)) for a in init]
    opt = optim.Muon(params, **opts)
    want, states = init, [{} for _ in params]
    # (a device without bfloat16 iterates in float32: within bfloat16's rounding of the reference)
    exact = dtype_unsupported(device, tc.bfloat16) is None
    tol = {"rtol": 1e-6, "atol": 1e-9} if exact else {"rtol": 1e-2, "atol": 1e-2}
    for _ in range(4):
        grads = [rng.normal(size=s) for s in shapes]
        for p, g in zip(params, grads, strict=True):
            p.grad = tc.tensor(g, device=device)
        opt.step()
        want = [ref_muon(w, g, st, **opts) for w, g, st in zip(want, grads, states, strict=True)]
        for p, w in zip(params, want, strict=True):
            assert_close(p, w, **tol)


def test_muon_and_adafactor_check_their_options_as_pytorch() -> None:
    w = tc.nn.Parameter(tc.ones(2, 2))
    with pytest.raises(ValueError, match="Muon only supports 2D parameters whereas we found"):
        optim.Muon([w, tc.nn.Parameter(tc.ones(3))])
    with pytest.raises(ValueError, match="Adjust learning rate function cubic is not supported"):
        optim.Muon([w], adjust_lr_fn="cubic")
    with pytest.raises(ValueError, match="momentum should be >= 0 but is: -1"):
        optim.Muon([w], momentum=-1)
    with pytest.raises(ValueError, match=r"beta2_decay should be <= 0 but is: 0\.5"):
        optim.Adafactor([w], beta2_decay=0.5)
    with pytest.raises(ValueError, match=r"Clipping threshold d should be >= 1 but is: 0\.5"):
        optim.Adafactor([w], d=0.5)
    z = tc.nn.Parameter(tc.ones(2, 2, dtype=tc.complex64))
    z.grad = tc.ones(2, 2, dtype=tc.complex64)
    with pytest.raises(RuntimeError, match="Adafactor does not support complex parameters"):
        optim.Adafactor([z]).step()
    with pytest.raises(RuntimeError, match="Muon does not support complex parameters"):
        optim.Muon([z]).step()


@pytest.mark.parametrize(
    "make",
    [
        lambda p: optim.Adam(p, lr=0.1, weight_decay=0.1),
        lambda p: optim.AdamW(p, lr=0.1, amsgrad=True),
        lambda p: optim.Adamax(p, lr=0.1),
        lambda p: optim.NAdam(p, lr=0.1, decoupled_weight_decay=True, weight_decay=0.1),
        lambda p: optim.RAdam(p, lr=0.1),
        lambda p: optim.RMSprop(p, lr=0.01, centered=True, momentum=0.5),
        lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.01),
        lambda p: optim.Adadelta(p),
        lambda p: optim.Rprop(p, lr=0.01),
        lambda p: optim.ASGD(p, lr=0.1, t0=1),
        lambda p: optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
    ],
)
def test_complex_parameter_updates_as_its_real_view(device: str, make: Any) -> None:
    """A complex parameter steps as the real tensor of its parts would (PyTorch's optimizers
    update ``view_as_real`` of it), its state staying complex."""
    rng = np.random.default_rng(0)
    start = rng.normal(size=(3, 2)).astype(np.float32)
    z = tc.nn.Parameter(tc.view_as_complex(tc.tensor(start, device=device)))
    r = tc.nn.Parameter(tc.tensor(start, device=device))
    oz, orr = make([z]), make([r])
    for _ in range(4):
        g = rng.normal(size=(3, 2)).astype(np.float32)
        z.grad = tc.view_as_complex(tc.tensor(g, device=device))
        r.grad = tc.tensor(g, device=device)
        oz.step()
        orr.step()
    assert z.dtype == tc.complex64
    assert_close(tc.view_as_real(z.detach()), r.detach(), rtol=1e-6, atol=1e-6)
    for k, v in oz.state[z].items():
        if v.dim():
            assert v.dtype == tc.complex64
            assert_close(tc.view_as_real(v), orr.state[r][k], rtol=1e-6, atol=1e-6)


# ------------------------------------------------------------------ named parameters, hooks
def test_optimizer_takes_named_parameters_and_keeps_their_names() -> None:
    model = tc.nn.Linear(3, 2)
    opt = optim.SGD(model.named_parameters(), lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.param_groups[0]["params"] == [model.weight, model.bias]
    sd = opt.state_dict()
    assert sd["param_groups"][0]["param_names"] == ["weight", "bias"]
    # a state dict saved without names keeps the optimizer's
    del sd["param_groups"][0]["param_names"]
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    with pytest.raises(ValueError, match="all optimizer params should be with/without names"):
        optim.SGD([("w", model.weight), model.bias], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names"):
        opt.add_param_group({"params": [tc.nn.Parameter(tc.ones(1))]})
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([model.weight, model.weight], lr=0.1)


def test_optimizer_state_dict_hooks_run_in_order() -> None:
    w = tc.nn.Parameter(tc.ones(2))
    opt = optim.SGD([w], lr=0.1)
    calls: list[str] = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: calls.append("first"), prepend=True)
    h = opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    sd = opt.state_dict()
    assert calls == ["first", "pre"] and sd["extra"] == 1
    h.remove()
    assert "extra" not in opt.state_dict()
    opt.register_load_state_dict_pre_hook(
        lambda o, sd: {**sd, "param_groups": [dict(g, lr=0.5) for g in sd["param_groups"]]}
    )
    opt.register_load_state_dict_post_hook(lambda o: calls.append("loaded"))
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.5 and calls[-1] == "loaded"
    assert sd["param_groups"][0]["lr"] == 0.1  # (the caller's dict is left alone)
