"""``tensorcore.special``: special functions under PyTorch's ``torch.special`` names.

Each function is a thin name for an operator of the table (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``...) or a short composition of operators (``ndtr``, ``ndtri``,
``log_ndtr``, ``entr``, ``xlog1py``, ``multigammaln``), so every one runs on every device and
is differentiable through the operators' derivative rules. ``out=`` is accepted where PyTorch
takes it; a composition writes its last operator's result into ``out``.

The Bessel functions of the first and second kind (``bessel_j0``, ``modified_bessel_k0``...),
``airy_ai`` and ``zeta`` are operators of their own, computed by SciPy (CuPy's
``cupyx.scipy.special`` on CUDA), in ``_special_bessel.py``; as PyTorch's, the Bessel and
Airy functions have no gradient and ``zeta`` has one in ``other`` only. The orthogonal polynomials
(``chebyshev_polynomial_t``...) are evaluated by their recurrences (``_polynomials.py``).

Examples
--------
>>> import tensorcore as tc
>>> tc.special.expit(tc.tensor([0.0]))
tensor([0.5000])
>>> tc.special.ndtr(tc.tensor([0.0, 1.0]))
tensor([0.5000, 0.8413])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ._igamma import gammainc, gammaincc
from ._polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from ._special_bessel import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
    zeta,
)
from ._tensor import Tensor
from .dtypes import get_default_dtype, result_type
from .ops import functions as ops
from .ops.factories import tensor

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
#: Below this, ``log_ndtr`` uses the asymptotic series of ``log(ndtr(x))``: there, 12 terms
#: are exact to double precision, and above it ``erfc(-x/sqrt(2))`` does not underflow in
#: float32 (it is about 1e-23 at the threshold).
_LOG_NDTR_ASYMPTOTIC_BELOW = -10.0


def expit(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))`` (:func:`tensorcore.sigmoid`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.expit(tc.tensor([0.0, 100.0]))
    tensor([0.5000, 1.0000])
    """
    return ops.sigmoid(input, out=out)


def logit(input: Any, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """``log(p / (1 - p))``, with ``p`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.logit(tc.tensor([0.5]))
    tensor([0.])
    """
    return ops.logit(input, eps, out=out)


def erf(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The error function.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.erf(tc.tensor([0.0]))
    tensor([0.])
    """
    return ops.erf(input, out=out)


def erfc(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The complementary error function ``1 - erf(x)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.erfc(tc.tensor([0.0]))
    tensor([1.])
    """
    return ops.erfc(input, out=out)


def erfinv(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`erf` on ``(-1, 1)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.erfinv(tc.tensor([0.0]))
    tensor([0.])
    """
    return ops.erfinv(input, out=out)


def gammaln(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``log(|gamma(x)|)`` (:func:`tensorcore.lgamma`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.gammaln(tc.tensor([1.0, 3.0]))
    tensor([0.0000, 0.6931])
    """
    return ops.lgamma(input, out=out)


def digamma(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The logarithmic derivative of the gamma function.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.digamma(tc.tensor([1.0]))
    tensor([-0.5772])
    """
    return ops.digamma(input, out=out)


def psi(input: Any, *, out: Tensor | None = None) -> Tensor:
    """Alias of :func:`digamma`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.psi(tc.tensor([1.0]))
    tensor([-0.5772])
    """
    return ops.digamma(input, out=out)


def polygamma(n: int, input: Any, *, out: Tensor | None = None) -> Tensor:
    """The ``n``-th derivative of :func:`digamma`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.polygamma(1, tc.tensor([1.0]))
    tensor([1.6449])
    """
    return ops.polygamma(n, input, out=out)


def multigammaln(input: Any, p: int, *, out: Tensor | None = None) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``:
    ``p (p - 1) / 4 * log(pi) + sum_{j < p} gammaln(x - j / 2)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.multigammaln(tc.tensor([2.0]), 1)
    tensor([0.])
    """
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if isinstance(input, Tensor) else tensor(input)
    if not x.dtype.is_floating_point:
        x = x.to(get_default_dtype())
    shifts = ops.arange(p, dtype=x.dtype, device=x.device) * -0.5
    terms = ops.lgamma(x.unsqueeze(-1) + shifts).sum(-1)
    return ops.add(terms, p * (p - 1) / 4 * math.log(math.pi), out=out)


def xlogy(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.xlogy(tc.tensor([0.0, 2.0]), tc.tensor([0.0, 1.0]))
    tensor([0., 0.])
    """
    return ops.xlogy(input, other, out=out)


def xlog1py(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.xlog1py(tc.tensor([0.0, 2.0]), tc.tensor([-1.0, 0.0]))
    tensor([0., 0.])
    """
    x, y = _tensors(input, other)
    zero = ops.logical_and(ops.eq(x, 0), ops.logical_not(ops.isnan(y)))
    # ``other`` is replaced where a 0 input meets a log1p that is not finite (other <= -1
    # or inf), so that 0 * inf is not computed; elsewhere the product itself is 0 at a 0
    # input and its gradient in input is log1p(other), as PyTorch's (0 where other <= -1).
    bad = ops.logical_or(ops.le(y, -1), ops.isinf(y))
    safe = ops.where(ops.logical_and(zero, bad), ops.zeros_like(y), y)
    return ops.mul(x, ops.log1p(safe), out=out)


def log1p(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``log(1 + x)``, accurate for small ``x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.log1p(tc.tensor([0.0]))
    tensor([0.])
    """
    return ops.log1p(input, out=out)


def expm1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``exp(x) - 1``, accurate for small ``x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.expm1(tc.tensor([0.0]))
    tensor([0.])
    """
    return ops.expm1(input, out=out)


def exp2(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``2 ** x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.exp2(tc.tensor([3.0]))
    tensor([8.])
    """
    return ops.exp2(input, out=out)


def sinc(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The normalised sinc ``sin(pi x) / (pi x)`` (1 at 0).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.sinc(tc.tensor([0.0, 1.0]))
    tensor([ 1.0000e+00, -2.7828e-08])
    """
    return ops.sinc(input, out=out)


def round(input: Any, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:
    """Round half to even, to ``decimals`` decimal places (:func:`tensorcore.round`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.round(tc.tensor([0.5, 1.5, 1.26]))
    tensor([0., 2., 1.])
    """
    return ops.round(input, decimals=decimals, out=out)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)`` (:func:`tensorcore.softmax`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.softmax(tc.tensor([0.0, 0.0]), 0)
    tensor([0.5000, 0.5000])
    """
    return ops.softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x, dim))``, computed stably (:func:`tensorcore.log_softmax`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.log_softmax(tc.tensor([0.0, 0.0]), 0)
    tensor([-0.6931, -0.6931])
    """
    return ops.log_softmax(input, dim, dtype)


def logsumexp(
    input: Tensor, dim: int | Sequence[int], keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """``log(exp(x).sum(dim))``, computed stably (:func:`tensorcore.logsumexp`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.logsumexp(tc.tensor([0.0, 0.0]), 0)
    tensor(0.6931)
    """
    return ops.logsumexp(input, dim, keepdim, out=out)


def i0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind, order 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.i0(tc.tensor([0.0]))
    tensor([1.])
    """
    return ops.i0(input, out=out)


def i1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind, order 1.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.i1(tc.tensor([0.0]))
    tensor([0.])
    """
    return ops.special_i1(input, out=out)


def i0e(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) I0(x)``: the exponentially scaled modified Bessel function of order 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.i0e(tc.tensor([0.0, 1000.0]))
    tensor([1.0000, 0.0126])
    """
    return ops.special_i0e(input, out=out)


def i1e(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``exp(-|x|) I1(x)``: the exponentially scaled modified Bessel function of order 1.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.i1e(tc.tensor([0.0, 1000.0]))
    tensor([0.0000, 0.0126])
    """
    return ops.special_i1e(input, out=out)


def erfcx(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The scaled complementary error function ``exp(x^2) erfc(x)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.erfcx(tc.tensor([0.0, 30.0]))
    tensor([1.0000, 0.0188])
    """
    return ops.special_erfcx(input, out=out)


def ndtr(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The standard normal CDF, ``0.5 * erfc(-x / sqrt(2))``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.ndtr(tc.tensor([0.0]))
    tensor([0.5000])
    """
    return ops.mul(ops.erfc(_float(input) * (-1.0 / _SQRT2)), 0.5, out=out)


def ndtri(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The inverse of :func:`ndtr`, ``sqrt(2) * erfinv(2p - 1)`` (``-inf`` at 0, ``inf`` at 1).

    Written with ``erfinv``, it loses relative precision for ``p`` near 0 (below about
    ``1e-8`` in float64), where ``2p - 1`` rounds towards -1.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.ndtri(tc.tensor([0.5, 0.0]))
    tensor([0., -inf])
    """
    return ops.mul(ops.erfinv(_float(input) * 2.0 - 1.0), _SQRT2, out=out)


def log_ndtr(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``log(ndtr(x))``, accurate for large ``|x|``: ``log1p(-ndtr(-x))`` above 0, the
    asymptotic series ``-x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 + 3/x^4 - ...)`` far
    below 0, ``log(ndtr(x))`` between.

    Examples
    --------
    >>> import tensorcore as tc
    >>> print(f"{tc.special.log_ndtr(tc.tensor([-40.0])).item():.2f}")  # ndtr(-40) underflows
    -804.61
    """
    x = _float(input)
    t = _LOG_NDTR_ASYMPTOTIC_BELOW
    # Each branch sees its input clamped into its own range, so that the branches where()
    # discards are finite and their zero gradient stays zero.
    upper = ops.log1p(ops.erfc(ops.clamp(x, min=0.0) * (1.0 / _SQRT2)) * -0.5)
    middle = ops.log(ops.erfc(ops.clamp(x, min=t, max=0.0) * (-1.0 / _SQRT2)) * 0.5)
    low = ops.clamp(x, max=t)
    inv2 = ops.reciprocal(low * low)
    series, term = ops.ones_like(low), ops.ones_like(low)
    for k in range(1, 13):
        term = term * inv2 * -(2 * k - 1)
        series = series + term
    lower = low * low * -0.5 - ops.log(-low) - _LOG_SQRT_2PI + ops.log(series)
    return ops.where(ops.ge(x, 0.0), upper, ops.where(ops.lt(x, t), lower, middle), out=out)


def entr(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The elementwise entropy: ``-x log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below 0.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.entr(tc.tensor([-1.0, 0.0, 1.0]))
    tensor([-inf, 0., 0.])
    """
    x = _float(input)
    return ops.where(ops.lt(x, 0.0), ops.full_like(x, -math.inf), 0.0 - ops.xlogy(x, x), out=out)


def _float(x: Any) -> Tensor:
    """``x`` as a floating tensor (integers and bools in the default dtype, as PyTorch's
    unary float operators compute them)."""
    t = x if isinstance(x, Tensor) else tensor(x)
    return t if t.dtype.is_floating_point or t.dtype.is_complex else t.to(get_default_dtype())


def _tensors(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    """Both operands as floating tensors on one device (a number joins the tensor's device)."""
    if not isinstance(a, Tensor) and isinstance(b, Tensor):
        a = tensor(a, device=b.device)
    if not isinstance(b, Tensor):
        b = tensor(b, device=_float(a).device)
    x, y = _float(a), _float(b)
    dtype = result_type(x, y)
    return x.to(dtype), y.to(dtype)
