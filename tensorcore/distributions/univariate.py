"""More distributions on the line and the circle: ``Cauchy``, ``StudentT``, ``Chi2``,
``FisherSnedecor``, ``VonMises`` and ``ContinuousBernoulli``, as ``torch.distributions``'
(same parameters, formulas and constraint messages; the draws that go through gamma
variables, and VonMises' rejection sampler, are exact but not PyTorch's draws)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from . import constraints
from .continuous import Gamma
from .distribution import Distribution
from .distributions import _LocScale
from .exp_family import ExponentialFamily
from .utils import (
    _binary_logits,
    _probs_or_logits,
    _tensor,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    softplus,
    tiny,
)

__all__ = ["Cauchy", "Chi2", "ContinuousBernoulli", "FisherSnedecor", "StudentT", "VonMises"]

_C = dict[str, constraints.Constraint]


class Cauchy(_LocScale):
    """The Cauchy (Lorentz) distribution of location ``loc`` and half-width ``scale``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Cauchy(0.0, 1.0)
    >>> d.cdf(tc.tensor(1.0)), round(d.log_prob(tc.tensor(0.0)).item(), 4)
    (tensor(0.7500), -1.1447)
    """

    @property
    def mean(self) -> Tensor:
        """Undefined (NaN)."""
        return ops.full_like(self.loc, math.nan)

    @property
    def variance(self) -> Tensor:
        """Infinite."""
        return ops.full_like(self.loc, math.inf)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + scale * tan(pi (u - 1/2))`` with ``u`` uniform."""
        shape = self._extended_shape(sample_shape)
        u = ops.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value: Any) -> Tensor:
        """``-log(pi scale) - log1p(((value - loc) / scale)^2)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    def cdf(self, value: Any) -> Tensor:
        """``atan((value - loc) / scale) / pi + 1/2``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (_tensor(value, self.loc) - self.loc) / self.scale
        return z.atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        """``loc + scale * tan(pi (value - 1/2))``."""
        return self.loc + self.scale * (math.pi * (_tensor(value, self.loc) - 0.5)).tan()

    def entropy(self) -> Tensor:
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + self.scale.log()


class Chi2(Gamma):
    """The chi-squared distribution of ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.Chi2(tc.tensor([3.0]))
    >>> d.mean, d.variance, d.df
    (tensor([3.]), tensor([6.]), tensor([3.]))
    """

    arg_constraints: ClassVar[_C] = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df_t,) = broadcast_all(df)
        super().__init__(0.5 * df_t, 0.5 * ops.ones_like(df_t), validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        """The degrees of freedom, ``2 * concentration``."""
        return self.concentration * 2


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``; ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` with ``X`` normal and ``Z``
    chi-squared (differentiable in all three).

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.StudentT(tc.tensor([1.0, 3.0]))
    >>> d.mean, d.variance
    (tensor([nan, 0.]), tensor([nan, 3.]))
    """

    arg_constraints: ClassVar[_C] = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support: Any = constraints.real
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"df": 0, "loc": 0, "scale": 0}

    def __init__(
        self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(tuple(self.df.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        """The same parameters broadcast to ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, StudentT)
        new._chi2 = self._chi2.expand(batch_shape)  # type: ignore[assignment]
        return new

    @property
    def mean(self) -> Tensor:
        """``loc`` where ``df > 1``, NaN elsewhere."""
        return ops.where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale^2 df / (df - 2)`` where ``df > 2``, infinite for ``1 < df <= 2``, NaN
        for ``df <= 1``."""
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2).clamp(min=tiny(df.dtype))
        return ops.where(df > 2, finite, ops.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``loc + scale * X * rsqrt(Z / df)``, ``X ~ N(0, 1)``, ``Z ~ Chi2(df)``."""
        shape = self._extended_shape(sample_shape)
        x = ops.randn(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value: Any) -> Tensor:
        """``-(df + 1) / 2 log1p(y^2 / df) - log(scale sqrt(df pi) B(df / 2, 1 / 2))``."""
        if self._validate_args:
            self._validate_sample(value)
        y = (_tensor(value, self.loc) - self.loc) / self.scale
        df = self.df
        log_norm = (
            self.scale.log()
            + 0.5 * df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * df).lgamma()
            - (0.5 * (df + 1)).lgamma()
        )
        return -0.5 * (df + 1) * (y.pow(2) / df).log1p() - log_norm

    def entropy(self) -> Tensor:
        """``log(scale sqrt(df) B(df/2, 1/2)) + (df + 1)/2 (psi((df + 1)/2) - psi(df/2))``."""
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )


class FisherSnedecor(Distribution):
    """The F distribution of ``df1`` and ``df2`` degrees of freedom: the ratio of two
    independent chi-squared variables, each divided by its degrees of freedom.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.FisherSnedecor(tc.tensor(4.0), tc.tensor(6.0))
    >>> d.mean, round(d.log_prob(tc.tensor(1.0)).item(), 4)
    (tensor(1.5000), -0.8802)
    """

    arg_constraints: ClassVar[_C] = {"df1": constraints.positive, "df2": constraints.positive}
    support: Any = constraints.positive
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"df1": 0, "df2": 0}

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(tuple(self.df1.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> FisherSnedecor:
        """The same parameters broadcast to ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, FisherSnedecor)
        new._gamma1 = self._gamma1.expand(batch_shape)  # type: ignore[assignment]
        new._gamma2 = self._gamma2.expand(batch_shape)  # type: ignore[assignment]
        return new

    @property
    def mean(self) -> Tensor:
        """``df2 / (df2 - 2)`` where ``df2 > 2``, NaN elsewhere."""
        df2 = self.df2
        return ops.where(df2 > 2, df2 / (df2 - 2).clamp(min=tiny(df2.dtype)), math.nan)

    @property
    def mode(self) -> Tensor:
        """``(df1 - 2) / df1 * df2 / (df2 + 2)`` where ``df1 > 2``, NaN elsewhere."""
        m = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return ops.where(self.df1 > 2, m, math.nan)

    @property
    def variance(self) -> Tensor:
        """``2 df2^2 (df1 + df2 - 2) / (df1 (df2 - 2)^2 (df2 - 4))`` where ``df2 > 4``."""
        df1, df2 = self.df1, self.df2
        v = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return ops.where(df2 > 4, v, math.nan)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """The ratio of the two scaled gamma draws (kept above the smallest normal)."""
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape).clamp(min=tiny(self.df1.dtype))
        return (x1 / x2).clamp(min=tiny(self.df1.dtype))

    def log_prob(self, value: Any) -> Tensor:
        """``log B(df1/2, df2/2)^-1 + (df1/2) log(df1/df2) + (df1/2 - 1) log x
        - ((df1 + df2)/2) log1p(df1 x / df2)``."""
        if self._validate_args:
            self._validate_sample(value)
        x = _tensor(value, self.df1)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        t1 = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        t2 = h1 * self.df1.log() + h2 * self.df2.log()
        t3 = (h1 - 1) * x.log()
        t4 = (h1 + h2) * (self.df2 + self.df1 * x).log()
        return t1 + t2 + t3 - t4


def _log_bessel_i(order: int, k: Tensor) -> Tensor:
    """``log I_order(k)`` for ``order`` 0 or 1 and ``k >= 0``: the Bessel function where it
    is finite, its asymptotic expansion ``e^k / sqrt(2 pi k) (1 - (4n^2 - 1)/(8k) ...)``
    for large ``k`` (where ``I`` overflows)."""
    big = 500.0 if k.dtype.itemsize == 8 else 60.0
    small = ops.where(k < big, k, 1.0)
    exact = (small.i0() if order == 0 else ops.special_i1(small)).log()
    kk = ops.where(k < big, big, k)
    mu = 4.0 * order * order
    series = ops.ones_like(kk)
    term = ops.ones_like(kk)
    for j in range(1, 6):
        term = term * -(mu - (2 * j - 1) ** 2) / (j * 8.0 * kk)
        series = series + term
    asym = kk - 0.5 * (2 * math.pi * kk).log() + series.log()
    return ops.where(k < big, exact, asym)


class VonMises(Distribution):
    """The von Mises (circular normal) distribution on ``[-pi, pi)`` of mean direction
    ``loc`` and concentration ``concentration``. Draws by Best and Fisher's rejection
    sampler; ``variance`` is the circular variance ``1 - I1(k) / I0(k)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.VonMises(tc.tensor(0.0), tc.tensor(1.0))
    >>> round(d.log_prob(tc.tensor(0.0)).item(), 4), round(d.variance.item(), 4)
    (-1.0738, 0.5536)
    """

    arg_constraints: ClassVar[_C] = {
        "loc": constraints.real,
        "concentration": constraints.positive,
    }
    support: Any = constraints.real
    has_rsample = False
    _expand_params: ClassVar[dict[str, int]] = {"loc": 0, "concentration": 0}

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(tuple(self.loc.shape), validate_args=validate_args)

    def log_prob(self, value: Any) -> Tensor:
        """``k cos(value - loc) - log(2 pi) - log I0(k)``."""
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        lp = k * (_tensor(value, self.loc) - self.loc).cos()
        return lp - math.log(2 * math.pi) - _log_bessel_i(0, k)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Best and Fisher's (1979) wrapped-Cauchy envelope rejection, in float64."""
        shape = self._extended_shape(sample_shape)
        with no_grad():
            k = self.concentration.double().expand(shape)
            loc = self.loc.double().expand(shape)
            tau = 1 + (1 + 4 * k.pow(2)).sqrt()
            rho = (tau - (2 * tau).sqrt()) / (2 * k)
            # For tiny k, r = (1 + rho^2) / (2 rho) loses every digit: use its expansion.
            r = ops.where(k < 1e-5, 1 / k + k, (1 + rho.pow(2)) / (2 * rho))
            out = ops.zeros_like(k)
            pending = ops.ones_like(k, dtype=out.dtype).bool()
            # As PyTorch draws them (one (3, *shape) uniform tensor per round) and keeps them
            # (a later round's acceptance replaces an earlier one: the value is still an
            # accepted proposal, chosen independently of its value), so that seeded programs
            # get PyTorch's samples.
            while bool(pending.any()):
                u1, u2, u3 = ops.rand((3, *shape), dtype=k.dtype, device=k.device).unbind()
                z = (math.pi * u1).cos()
                f = (1 + r * z) / (r + z)
                c = k * (r - f)
                ok = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
                theta = (u3 - 0.5).sign() * f.clamp(min=-1, max=1).acos()
                out = ops.where(ok, theta, out)
                pending = pending & ~ok
            x = ops.remainder(out + loc + math.pi, 2 * math.pi) - math.pi
            return x.to(self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        """``loc`` (the mean direction)."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (_log_bessel_i(1, k) - _log_bessel_i(0, k)).exp()


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on ``[0, 1]`` (Loaiza-Ganem and Cunningham,
    2019): density ``C(p) p^x (1 - p)^(1 - x)``; near ``p = 1/2`` (inside ``lims``) the
    normalizer and moments use their Taylor expansions.

    Examples
    --------
    >>> import tensorcore as tc
    >>> d = tc.distributions.ContinuousBernoulli(tc.tensor([0.2, 0.5]))
    >>> d.mean, round(d.log_prob(tc.tensor([0.3, 0.3]))[1].item(), 4)
    (tensor([0.3880, 0.5000]), 0.0)
    """

    arg_constraints: ClassVar[_C] = {"probs": constraints.unit_interval, "logits": constraints.real}
    support: Any = constraints.unit_interval
    has_rsample = True
    _expand_params: ClassVar[dict[str, int]] = {"probs": 0, "logits": 0}
    logits = lazy_property(_binary_logits)

    @lazy_property
    def probs(self) -> Tensor:
        """``sigmoid(logits)``, clamped away from 0 and 1."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple[float, float] = (0.499, 0.501),
        validate_args: bool | None = None,
    ) -> None:
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        self._lims = lims
        super().__init__(tuple(param.shape), validate_args=validate_args)
        if name == "probs":
            # As PyTorch, the given probabilities are clamped after validation.
            self.probs = clamp_probs(param)

    def _outside(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        return ops.where(self._outside(), self.probs, self._lims[0])

    def _log_norm(self) -> Tensor:
        """``log C(p)``: ``log(|log(1-p) - log p| / |1 - 2p|)``, Taylor near 1/2."""
        p = self._cut_probs()
        lower = ops.where(p <= 0.5, p, 0.0)
        upper = ops.where(p >= 0.5, p, 1.0)
        denom = ops.where(p <= 0.5, (-2.0 * lower).log1p(), (2.0 * upper - 1.0).log())
        exact = ((-p).log1p() - p.log()).abs().log() - denom
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ops.where(self._outside(), exact, taylor)

    @property
    def mean(self) -> Tensor:
        """``p / (2p - 1) + 1 / (log(1 - p) - log p)``, Taylor near 1/2."""
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return ops.where(self._outside(), exact, taylor)

    @property
    def variance(self) -> Tensor:
        """``p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2``, Taylor near 1/2."""
        p = self._cut_probs()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + ((-p).log1p() - p.log()).pow(-2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ops.where(self._outside(), exact, taylor)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """``icdf(u)`` for ``u`` uniform, without gradients."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """``icdf(u)`` for ``u`` uniform (differentiable in the parameters)."""
        shape = self._extended_shape(sample_shape)
        u = ops.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Tensor:
        """``x logits - softplus(logits) + log C(p)``, i.e. ``-BCE(logits, x) + log C``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, x = broadcast_all(self.logits, value)
        return x * logits - softplus(logits) + self._log_norm()

    def cdf(self, value: Any) -> Tensor:
        """``(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1)`` on ``[0, 1]``; ``x`` near 1/2."""
        if self._validate_args:
            self._validate_sample(value)
        x = _tensor(value, self.probs)
        p = self._cut_probs()
        inner = (p.pow(x) * (1.0 - p).pow(1.0 - x) + p - 1.0) / (2.0 * p - 1.0)
        inner = ops.where(self._outside(), inner, x)
        return ops.where(x <= 0.0, 0.0, ops.where(x >= 1.0, 1.0, inner))

    def icdf(self, value: Any) -> Tensor:
        """``(log1p(-p + u (2p - 1)) - log1p(-p)) / (log p - log1p(-p))``; ``u`` near 1/2."""
        u = _tensor(value, self.probs)
        p = self._cut_probs()
        x = ((-p + u * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return ops.where(self._outside(), x, u)

    def entropy(self) -> Tensor:
        """``mean (log(1 - p) - log p) - log C(p) - log(1 - p)``."""
        log0, log1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log0 - log1) - self._log_norm() - log0

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, *params: Tensor) -> Tensor:
        """``log((exp(x) - 1) / x)``, Taylor near 0."""
        x = params[0]
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = ops.where(outside, x, ops.ones_like(x))
        exact = (cut.exp() - 1.0).abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return ops.where(outside, exact, taylor)

    _mean_carrier_measure = 0
