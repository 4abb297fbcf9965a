"""The Bessel functions, the Airy function and the Hurwitz zeta function of
``tensorcore.special`` (PyTorch's ``torch.special`` names; ``special.py`` re-exports them).

``bessel_j0`` ... ``zeta`` are operators of their own (``special_bessel_j0``...), computed by
SciPy (``cupyx.scipy.special`` on CUDA); ``modified_bessel_i0``/``i1`` are ``i0``/``i1``
without a gradient and ``spherical_bessel_j0`` is ``sin(x) / x``, as PyTorch's (whose
Bessel functions have no derivative: their results never require grad).
"""

from __future__ import annotations

from typing import Any

from ._tensor import Tensor
from .dtypes import get_default_dtype
from .ops import functions as ops

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "zeta",
]


def modified_bessel_i0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (:func:`i0`, without a
    gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.modified_bessel_i0(tc.tensor([0.0]))
    tensor([1.])
    """
    return ops.i0(_detached(input), out=out)


def modified_bessel_i1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (:func:`i1`, without a
    gradient, as PyTorch's)."""
    return ops.special_i1(_detached(input), out=out)


def spherical_bessel_j0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (1 at 0;
    without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.spherical_bessel_j0(tc.tensor([0.0, 3.0]))
    tensor([1.0000, 0.0470])
    """
    x = _detached(input)
    if not x.dtype.is_floating_point:
        x = x.to(get_default_dtype())
    zero = x == 0
    r = ops.where(zero, 1.0, ops.sin(x) / ops.where(zero, 1.0, x))
    return r if out is None else out.copy_(r)


def bessel_j0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The Bessel function of the first kind of order 0, ``J0(x)`` (without a gradient, as
    PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.bessel_j0(tc.tensor([0.0, 1.0]))
    tensor([1.0000, 0.7652])
    """
    return ops.special_bessel_j0(input, out=out)


def bessel_j1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The Bessel function of the first kind of order 1, ``J1(x)`` (without a gradient, as
    PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.bessel_j1(tc.tensor([0.0, 1.0]))
    tensor([0.0000, 0.4401])
    """
    return ops.special_bessel_j1(input, out=out)


def bessel_y0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The Bessel function of the second kind of order 0, ``Y0(x)``: -inf at 0, NaN below
    (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.bessel_y0(tc.tensor([0.0, 1.0]))
    tensor([  -inf, 0.0883])
    """
    return ops.special_bessel_y0(input, out=out)


def bessel_y1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The Bessel function of the second kind of order 1, ``Y1(x)``: -inf at 0, NaN below
    (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.bessel_y1(tc.tensor([0.0, 1.0]))
    tensor([   -inf, -0.7812])
    """
    return ops.special_bessel_y1(input, out=out)


def modified_bessel_k0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the second kind of order 0, ``K0(x)``: inf at 0, NaN
    below (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.modified_bessel_k0(tc.tensor([0.0, 1.0]))
    tensor([   inf, 0.4210])
    """
    return ops.special_modified_bessel_k0(input, out=out)


def modified_bessel_k1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The modified Bessel function of the second kind of order 1, ``K1(x)``: inf at 0, NaN
    below (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.modified_bessel_k1(tc.tensor([0.0, 1.0]))
    tensor([   inf, 0.6019])
    """
    return ops.special_modified_bessel_k1(input, out=out)


def scaled_modified_bessel_k0(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``exp(x) K0(x)``, finite where ``K0`` underflows (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.scaled_modified_bessel_k0(tc.tensor([1.0, 1000.0]))
    tensor([1.1445, 0.0396])
    """
    return ops.special_scaled_modified_bessel_k0(input, out=out)


def scaled_modified_bessel_k1(input: Any, *, out: Tensor | None = None) -> Tensor:
    """``exp(x) K1(x)``, finite where ``K1`` underflows (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.scaled_modified_bessel_k1(tc.tensor([1.0, 1000.0]))
    tensor([1.6362, 0.0396])
    """
    return ops.special_scaled_modified_bessel_k1(input, out=out)


def airy_ai(input: Any, *, out: Tensor | None = None) -> Tensor:
    """The Airy function ``Ai(x)``, a solution of ``y'' = x y`` that decays for ``x > 0``
    (without a gradient, as PyTorch's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.airy_ai(tc.tensor([0.0, 1.0]))
    tensor([0.3550, 0.1353])
    """
    return ops.special_airy_ai(input, out=out)


def zeta(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """The Hurwitz zeta function ``sum_{k >= 0} (k + other) ** -input``, elementwise with
    broadcasting (the Riemann zeta function at ``other = 1``). Either argument may be a
    Python number, not both. As PyTorch's, it is differentiable in ``other`` only
    (``-input * zeta(input + 1, other)``); a gradient for ``input`` raises
    ``NotImplementedError``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.zeta(tc.tensor([2.0, 4.0]), 1.0)
    tensor([1.6449, 1.0823])
    >>> tc.special.zeta(2.0, tc.tensor([1.0, 2.0]))
    tensor([1.6449, 0.6449])
    """
    return ops.special_zeta(input, other, out=out)


def _detached(input: Any) -> Any:
    return input.detach() if isinstance(input, Tensor) else input
