"""Samplers the distributions need: standard gamma (the ``_standard_gamma`` operator, whose
CPU kernel draws PyTorch's numbers, with its implicit reparameterisation gradient here),
Poisson and binomial. The last two are written with tensor operators, so they run on every
device: vectorised rejection loops that stop when every element is accepted; their draws are
exact samples of the distributions but not PyTorch's draws.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as dt
from .._finfo import finfo
from .._tensor import Tensor, torch_name
from ..autograd.function import Function, FunctionCtx
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops

__all__ = [
    "binomial",
    "dirichlet_grad",
    "dirichlet_rsample",
    "poisson",
    "sample_dirichlet",
    "standard_gamma",
]


def standard_gamma_grad(x: Tensor, alpha: Tensor) -> Tensor:
    """``dx/dalpha`` of a Gamma(alpha, 1) draw ``x`` at a fixed CDF value (implicit
    reparameterisation): ``-(dP(alpha, x)/dalpha) / density(x)``, from the series
    ``P(a, x) = sum_n x^(a+n) e^-x / Gamma(a+n+1)``, in float64."""
    x64, a64 = x.to(dt.float64), alpha.to(dt.float64)
    logx = x64.log()
    lg_a = a64.lgamma()
    total = ops.zeros_like(x64)
    n0 = 0
    while True:
        n = ops.arange(n0, n0 + 64, dtype=dt.float64, device=x.device)
        an = a64.unsqueeze(-1) + n + 1
        terms = ((n + 1) * logx.unsqueeze(-1) + lg_a.unsqueeze(-1) - an.lgamma()).exp() * (
            logx.unsqueeze(-1) - an.digamma()
        )
        total = total + terms.sum(-1)
        n0 += 64
        # The terms fall once n passes x - alpha; stop when the last is negligible everywhere.
        last = terms[..., -1].abs()
        past_peak = (n0 + a64 > x64) | ~ops.isfinite(x64)
        if bool((past_peak & (last <= 1e-16 * total.abs() + 1e-300)).all()) or n0 > 100_000:
            break
    return (-total).to(x.dtype)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, alpha: Tensor) -> Tensor:
        x = ops._standard_gamma(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx: FunctionCtx, g: Tensor) -> Tensor:
        x, alpha = ctx.saved_tensors
        with no_grad():
            return g * standard_gamma_grad(x, alpha)


def _beta_series(a: Tensor, b: Tensor, x: Tensor, in_a: bool) -> tuple[Tensor, Tensor]:
    """``S = sum_n t_n`` and ``S' = sum_n t_n d_n`` with ``t_n = prod_{k<n} (a+b+k)/(a+1+k)
    x^n`` (the positive series of ``I_x(a, b) = x^a (1-x)^b S / (a B(a, b))``) and ``d_n``
    the derivative of ``log t_n`` in ``a`` (``in_a``) or in ``b``; in float64, for
    ``x <= (a+1)/(a+b+2)`` where the terms fall from the first on."""
    s = ops.ones_like(x)
    ds = ops.zeros_like(x)
    term = ops.ones_like(x)
    d = ops.zeros_like(x)
    k = 0
    while True:
        for _ in range(32):
            term = term * (a + b + k) / (a + 1 + k) * x
            d = d + (1.0 / (a + b + k) - 1.0 / (a + 1 + k) if in_a else 1.0 / (a + b + k))
            s = s + term
            ds = ds + term * d
            k += 1
        if bool((term <= 1e-17 * s).all()) or k > 100_000:
            return s, ds


def dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """PyTorch's ``_dirichlet_grad``: the derivative of a Dirichlet draw's coordinate ``x``
    in its concentration ``alpha`` through the implicit reparameterisation of its marginal,
    ``Beta(alpha, total - alpha)`` (``-(dI_x/dalpha) / density(x)``, ``I`` the regularised
    incomplete beta function), divided by ``1 - x``; computed exactly (PyTorch's kernel
    approximates it) from the positive power series of ``I``, on the side of the mode where
    it converges fastest (``I_x(a, b) = 1 - I_{1-x}(b, a)``)."""
    x64, a, t = x.to(dt.float64), alpha.to(dt.float64), total.to(dt.float64)
    b = t - a
    low = x64 <= (a + 1) / (t + 2)
    dig = a.digamma() - t.digamma()
    logx = x64.log()
    # (each side runs on every element with its argument clamped to its own range)
    xs = ops.where(low, x64, 0.0)
    s, ds = _beta_series(a, b, xs, True)
    g_low = -x64 / a * (s * (logx - 1.0 / a - dig) + ds)
    ys = ops.where(low, 0.0, 1.0 - x64)
    s2, ds2 = _beta_series(b, a, ys, False)
    g_high = x64 / b * (s2 * (logx - dig) + ds2)
    return ops.where(low, g_low, g_high).to(x.dtype)


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, concentration: Tensor) -> Tensor:
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx: FunctionCtx, g: Tensor) -> tuple[None, Tensor]:
        x, c = ctx.saved_tensors
        with no_grad():
            total = c.sum(-1, keepdim=True).expand_as(c)
            grad = dirichlet_grad(x, c, total)
            return None, grad * (g - (x * g).sum(-1, keepdim=True))


def sample_dirichlet(concentration: Tensor, generator: Any = None) -> Tensor:
    """Dirichlet draws of ``concentration`` (its last dim the categories), without a graph:
    gamma draws in float64, normalised, in ``concentration``'s dtype at least its smallest
    normal number and below 1, as PyTorch's ``_sample_dirichlet`` makes them (on the CPU,
    PyTorch's numbers for a seed)."""
    if not concentration.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"dirichlet\" not implemented for '{torch_name(concentration.dtype)}'"
        )
    with no_grad():
        g = ops._standard_gamma(concentration.to(dt.float64), generator)
        x = (g / g.sum(-1, keepdim=True)).to(concentration.dtype)
        fi = finfo(x.dtype)
        return x.clamp_(fi.tiny, 1 - fi.eps / 2)


def dirichlet_rsample(x: Tensor, concentration: Tensor) -> Tensor:
    """The Dirichlet draws ``x`` (made without a graph) as a function of ``concentration``,
    with PyTorch's gradient (``_Dirichlet``'s backward: :func:`dirichlet_grad` of each
    coordinate, projected by ``grad - sum(x * grad)``)."""
    if concentration.requires_grad:
        out: Tensor = _Dirichlet.apply(x, concentration)
        return out
    return x


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws of ``alpha``'s shape, differentiable in ``alpha`` (the implicit
    reparameterisation gradient PyTorch's ``_standard_gamma`` has)."""
    if alpha.requires_grad:
        out: Tensor = _StandardGamma.apply(alpha)
        return out
    with no_grad():
        return ops._standard_gamma(alpha)


def poisson(rate: Tensor, generator: Any = None) -> Tensor:
    """Poisson(rate) draws of ``rate``'s shape: Knuth's product of uniforms below rate 10,
    Hormann's transformed rejection (PTRS) above, as PyTorch's sampler chooses; the
    uniforms come from ``generator`` (the default one when None)."""
    with no_grad():
        r = rate.detach()
        if r.numel() and not bool((r >= 0).all()):
            # (a NaN rate would also never leave the rejection loop below)
            raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
        out = ops.zeros_like(r)
        small = r < 10
        if bool(small.any()):
            limit = (-ops.where(small, r, 0.0)).exp()
            prod = ops.ones_like(r)
            count = ops.zeros_like(r)
            going = small.clone()
            while bool(going.any()):
                prod = prod * ops.where(
                    going,
                    ops.rand(r.shape, dtype=r.dtype, device=r.device, generator=generator),
                    1.0,
                )
                going = going & (prod > limit)
                count = count + going.to(r.dtype)
            out = ops.where(small, count, out)
        big = ~small
        if bool(big.any()):
            out = ops.where(big, _ptrs(ops.where(big, r, 10.0), generator), out)
        return out


def _ptrs(lam: Tensor, generator: Any = None) -> Tensor:
    """Hormann (1993), "The transformed rejection method for generating Poisson random
    variables", for ``lam >= 10``."""
    slam = lam.sqrt()
    loglam = lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    out = ops.zeros_like(lam)
    pending = ops.ones_like(lam, dtype=dt.bool_)
    while bool(pending.any()):
        u = ops.rand(lam.shape, dtype=lam.dtype, device=lam.device, generator=generator) - 0.5
        v = ops.rand(lam.shape, dtype=lam.dtype, device=lam.device, generator=generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        valid = (k >= 0) & ~((us < 0.013) & (v > us))
        lhs = (v * inv_alpha / (a / (us * us) + b)).log()
        rhs = -lam + k * loglam - (k + 1).lgamma()
        ok = quick | (valid & (lhs <= rhs))
        out = ops.where(ok & pending, k, out)
        pending = pending & ~ok
    return out


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """Binomial(count, prob) draws: the number of uniforms below ``prob`` among ``count``
    (the counts' maximum bounds the work), by inversion of the geometric waiting times;
    the uniforms come from ``generator`` (the default one when None)."""
    with no_grad():
        n = count.detach()
        p = prob.detach()
        flip = p > 0.5
        q = ops.where(flip, 1 - p, p)  # sample the rarer outcome, then reflect
        # Successes are the geometric jumps (waiting times) that fit within n trials.
        log_q = (-q).log1p()
        successes = ops.zeros_like(q)
        used = ops.zeros_like(q)
        going = (n > 0) & (q > 0)
        while bool(going.any()):
            u = ops.rand(q.shape, dtype=q.dtype, device=q.device, generator=generator)
            wait = ((1 - u).log() / log_q).floor() + 1  # trials up to the next success
            used = used + ops.where(going, wait, 0.0)
            going = going & (used <= n)
            successes = successes + going.to(q.dtype)
        return ops.where(flip, n - successes, successes)
