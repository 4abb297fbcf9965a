"""ConstantLR, PolynomialLR, MultiplicativeLR, CosineAnnealingWarmRestarts, CyclicLR,
SequentialLR and ChainedScheduler: each trajectory against a reference written from the
formula PyTorch documents, plus state dicts and PyTorch's argument errors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.optim import lr_scheduler as S


def _opt(lr: float = 0.1, adam: bool = False) -> tc.optim.Optimizer:
    p = [tc.nn.Parameter(tc.ones(1))]
    return tc.optim.Adam(p, lr=lr) if adam else tc.optim.SGD(p, lr=lr, momentum=0.9)


def _trajectory(opt: tc.optim.Optimizer, sched: Any, n: int) -> list[float]:
    lrs = [sched.get_last_lr()[0]]
    for _ in range(n):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        assert opt.param_groups[0]["lr"] == lrs[-1]
    return lrs


def _close(got: list[float], want: list[float]) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12), (i, got, want)


def test_constant_polynomial_multiplicative() -> None:
    o = _opt()
    _close(
        _trajectory(o, S.ConstantLR(o, factor=0.25, total_iters=3), 6),
        [0.1 * (0.25 if e < 3 else 1.0) for e in range(7)],
    )
    o = _opt()
    _close(
        _trajectory(o, S.PolynomialLR(o, total_iters=5, power=2.0), 8),
        [0.1 * (1 - min(e, 5) / 5) ** 2 for e in range(9)],
    )
    o = _opt()
    _close(
        _trajectory(o, S.MultiplicativeLR(o, lambda e: 1 - 0.1 * e), 4),
        [0.1 * math.prod(1 - 0.1 * k for k in range(1, e + 1)) for e in range(5)],
    )
    with pytest.raises(ValueError, match="Constant multiplicative factor expected"):
        S.ConstantLR(_opt(), factor=1.5)


def _sgdr(base: float, eta_min: float, t0: int, mult: int, n: int) -> list[float]:
    out, t_cur, t_i = [], 0, t0
    for _ in range(n + 1):
        out.append(eta_min + (base - eta_min) * (1 + math.cos(math.pi * t_cur / t_i)) / 2)
        t_cur += 1
        if t_cur >= t_i:
            t_cur, t_i = t_cur - t_i, t_i * mult
    return out


@pytest.mark.parametrize(("t0", "mult"), [(3, 1), (2, 2), (3, 3)])
def test_cosine_annealing_warm_restarts(t0: int, mult: int) -> None:
    o = _opt()
    sched = S.CosineAnnealingWarmRestarts(o, T_0=t0, T_mult=mult, eta_min=0.01)
    _close(_trajectory(o, sched, 20), _sgdr(0.1, 0.01, t0, mult, 20))
    # A fractional epoch (the per-batch call) lands inside the period.
    sched.step(t0 + 0.5 if mult == 1 else 0.5)
    want = 0.01 + 0.09 * (1 + math.cos(math.pi * 0.5 / t0)) / 2
    assert math.isclose(sched.get_last_lr()[0], want)
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        S.CosineAnnealingWarmRestarts(_opt(), T_0=0)
    with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 0"):
        S.CosineAnnealingWarmRestarts(_opt(), T_0=2, T_mult=0)


def _cyclic(
    lo: float,
    hi: float,
    up: int,
    down: int,
    scale: Callable[[float], float],
    by_cycle: bool,
    e: int,
) -> tuple[float, float]:
    total = up + down
    cycle = math.floor(1 + e / total)
    x = 1 + e / total - cycle
    ratio = up / total
    f = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
    amp = scale(cycle if by_cycle else e)
    return lo + (hi - lo) * f * amp, 0.9 - (0.9 - 0.8) * f * amp


@pytest.mark.parametrize(
    ("mode", "scale", "by_cycle"),
    [
        ("triangular", lambda x: 1.0, True),
        ("triangular2", lambda x: 1 / 2 ** (x - 1), True),
        ("exp_range", lambda x: 0.95**x, False),
    ],
)
def test_cyclic_lr_and_its_momentum(
    mode: str, scale: Callable[[float], float], by_cycle: bool
) -> None:
    o = _opt()
    sched = S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5, mode=mode, gamma=0.95)
    momenta = [o.param_groups[0]["momentum"]]
    lrs = [sched.get_last_lr()[0]]
    for _ in range(20):
        o.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        momenta.append(o.param_groups[0]["momentum"])
    want = [_cyclic(0.01, 0.1, 3, 5, scale, by_cycle, e) for e in range(21)]
    _close(lrs, [w[0] for w in want])
    _close(momenta, [w[1] for w in want])
    adam = _opt(adam=True)
    S.CyclicLR(adam, 0.01, 0.1, step_size_up=2)
    assert adam.param_groups[0]["betas"][0] == 0.9
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.CyclicLR(tc.optim.Adagrad([tc.nn.Parameter(tc.ones(1))]), 0.01, 0.1)


def test_sequential_lr_warmup_then_cosine() -> None:
    o = _opt()
    warm = S.LinearLR(o, start_factor=0.1, total_iters=4)
    cos = S.CosineAnnealingLR(o, T_max=10, eta_min=0.0)
    sched = S.SequentialLR(o, [warm, cos], milestones=[4])
    want = [0.1 * (0.1 + 0.9 * e / 4) for e in range(4)]
    want += [0.1 * (1 + math.cos(math.pi * k / 10)) / 2 for k in range(11)]
    _close(_trajectory(o, sched, 14), want)
    state = sched.state_dict()
    assert isinstance(state["_schedulers"], list) and "optimizer" not in state
    o2 = _opt()
    again = S.SequentialLR(
        o2, [S.LinearLR(o2, 0.1, total_iters=4), S.CosineAnnealingLR(o2, 10)], [4]
    )
    again.load_state_dict(state)
    assert again.last_epoch == sched.last_epoch
    assert again._schedulers[1].last_epoch == cos.last_epoch
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        S.SequentialLR(o, [warm, cos], milestones=[2, 3])
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        S.SequentialLR(_opt(), [warm, cos], milestones=[2])
    plateau = S.ReduceLROnPlateau(o)
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.SequentialLR(o, [warm, plateau], milestones=[2])


def test_chained_scheduler_composes_factors() -> None:
    o = _opt()
    sched = S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=3), S.ExponentialLR(o, gamma=0.9)]
    )
    _close(_trajectory(o, sched, 6), [0.1 * (0.5 if e < 3 else 1.0) * 0.9**e for e in range(7)])
    assert len(sched.state_dict()["_schedulers"]) == 2


def test_the_old_lrscheduler_name_is_subclassed_by_custom_schedulers() -> None:
    # Warmup schedulers written before PyTorch 2.0 subclass ``_LRScheduler``.
    class Warmup(S._LRScheduler):
        def __init__(self, optimizer: Any, warmup: int, last_epoch: int = -1) -> None:
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self) -> list[float]:
            f = min(1.0, (self.last_epoch + 1) / self.warmup)
            return [base * f for base in self.base_lrs]

    opt = _opt(0.1)
    sched = Warmup(opt, 4)
    assert isinstance(sched, S.LRScheduler)
    lrs = []
    for _ in range(5):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1])


class _Halve:
    """A callable object: its attributes travel in the state dict."""

    def __init__(self) -> None:
        self.factor = 0.5

    def __call__(self, x: float) -> float:
        return self.factor


def test_state_dicts_have_pytorchs_keys() -> None:
    # MultiplicativeLR saves its functions as LambdaLR does (None for a plain function, a
    # callable object's attributes); CyclicLR records the momentum range in each group and
    # saves a custom scale_fn the same way; ReduceLROnPlateau keeps default_min_lr and
    # mode_worse.
    opt = _opt()
    halve = _Halve()
    m = S.MultiplicativeLR(opt, [halve])
    assert m.state_dict()["lr_lambdas"] == [{"factor": 0.5}]
    halve.factor = 0.9
    m.load_state_dict({**m.state_dict(), "lr_lambdas": [{"factor": 0.25}]})
    assert halve.factor == 0.25
    assert S.MultiplicativeLR(_opt(), lambda e: 0.9).state_dict()["lr_lambdas"] == [None]
    opt = _opt()
    c = S.CyclicLR(opt, 0.01, 0.1, base_momentum=0.7, max_momentum=0.95)
    group = opt.param_groups[0]
    assert (group["momentum"], group["base_momentum"], group["max_momentum"]) == (0.95, 0.7, 0.95)
    assert c.state_dict()["_scale_fn_custom"] is None
    scaled = S.CyclicLR(_opt(), 0.01, 0.1, scale_fn=halve, cycle_momentum=False)
    assert scaled.state_dict()["_scale_fn_custom"] == {"factor": 0.25}
    state = S.ReduceLROnPlateau(_opt(), mode="max", min_lr=0.001).state_dict()
    assert (state["default_min_lr"], state["mode_worse"]) == (0.001, -math.inf)
    state = S.ReduceLROnPlateau(_opt(), min_lr=[0.01]).state_dict()
    assert (state["default_min_lr"], state["mode_worse"], state["min_lrs"]) == (
        None,
        math.inf,
        [0.01],
    )


_BUILT_IN: list[Callable[[tc.optim.Optimizer], Any]] = [
    lambda o: S.StepLR(o, 2),
    lambda o: S.LambdaLR(o, lambda e: 0.9**e),
    lambda o: S.MultiplicativeLR(o, lambda e: 0.9),
    lambda o: S.MultiStepLR(o, [1, 2]),
    lambda o: S.ConstantLR(o),
    lambda o: S.LinearLR(o),
    lambda o: S.ExponentialLR(o, 0.9),
    lambda o: S.PolynomialLR(o),
    lambda o: S.CosineAnnealingLR(o, 3),
    lambda o: S.CosineAnnealingWarmRestarts(o, 2),
    lambda o: S.CyclicLR(o, 0.01, 0.1),
    lambda o: S.OneCycleLR(o, 0.1, total_steps=10),
    lambda o: tc.optim.swa_utils.SWALR(o, 0.05),
]


@pytest.mark.parametrize("make", _BUILT_IN)
def test_step_flags_are_state_and_get_lr_outside_step_warns(make: Any) -> None:
    # PyTorch's state dicts hold the two flags its schedules keep (both False between
    # steps), and a built-in ``get_lr`` called by hand warns; inside ``step`` it does not.
    opt = _opt()
    sched = make(opt)
    state = sched.state_dict()
    order = ["_step_count", "_is_initial", "_get_lr_called_within_step", "_last_lr"]
    assert [k for k in state if k in order] == order
    assert state["_is_initial"] is False and state["_get_lr_called_within_step"] is False
    opt.step()
    sched.step()  # (no warning: the filter turns one into an error)
    with pytest.warns(UserWarning, match=r"please use `get_last_lr\(\)`"):
        sched.get_lr()


def test_flags_during_steps_and_step_before_optimizer_warns() -> None:
    seen: list[tuple[bool, bool]] = []

    class Half(S.LRScheduler):
        def get_lr(self) -> list[float]:
            seen.append((self._is_initial, self._get_lr_called_within_step))
            return [b * 0.5**self.last_epoch for b in self.base_lrs]

    opt = _opt(lr=1.0)
    sched = Half(opt)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before"):
        sched.step()
    opt.step()
    sched.step()  # (warns once at most: only the first step after __init__ checks)
    assert seen == [(True, True), (False, True), (False, True)]
    assert sched.get_last_lr() == [0.25] and not sched._get_lr_called_within_step
    sched.get_lr()  # (a schedule of one's own does not warn, as PyTorch's do not)
    # An optimizer stepped first: no warning.
    opt2 = _opt()
    sched2 = S.StepLR(opt2, 1)
    opt2.step()
    sched2.step()


def test_step_with_epoch_warns_and_sequential_restarts_without_warning() -> None:
    opt = _opt()
    opt.step()
    step_lr = S.StepLR(opt, 2, gamma=0.5)
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        step_lr.step(4)  # (the closed form: 0.1 * 0.5**2)
    assert step_lr.get_last_lr() == [pytest.approx(0.025)]
    plateau = S.ReduceLROnPlateau(opt)
    with pytest.warns(UserWarning, match="The epoch parameter"):
        plateau.step(1.0, 3)
    # SequentialLR restarts a stage at its milestone without a step of that stage's own
    # (PyTorch's ``_update_lr(0)``): nothing warns, and the stage counts no step there.
    opt = _opt()
    stages = [S.ConstantLR(opt, total_iters=2), S.CosineAnnealingWarmRestarts(opt, 3)]
    seq = S.SequentialLR(opt, stages, [2])
    got = []
    for _ in range(5):
        opt.step()
        seq.step()
        got.append(round(seq.get_last_lr()[0], 6))
    assert got == [0.033333, 0.1, 0.075, 0.025, 0.1]
    assert [s._step_count for s in stages] == [2, 0]
