"""The orthogonal polynomials of ``torch.special`` (Chebyshev of the four kinds and their
shifted forms, Hermite (physicists' and probabilists'), Laguerre, Legendre), evaluated at
``input`` for the integer degrees ``n`` (broadcast; a float degree is truncated, a negative
one gives 0) by their three-term recurrences, with PyTorch's closed forms at ``|x| = 1`` and
its trigonometric forms for high degrees inside ``(-1, 1)``. As PyTorch's, the results have
no gradient.

Examples
--------
>>> import tensorcore as tc
>>> tc.special.chebyshev_polynomial_t(tc.tensor([0.5]), 2)
tensor([-0.5000])
>>> tc.special.hermite_polynomial_h(tc.tensor([1.0]), tc.tensor([0, 1, 2, 3]))
tensor([ 1.,  2.,  2., -4.])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .ops import functions as ops

__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
]

#: ``(p0, p1, step)``: the degree-0 and degree-1 polynomials and ``p_{k+1}`` from
#: ``(x, p_k, p_{k-1}, k)``.
_Rec = tuple[
    Callable[[Tensor], Any], Callable[[Tensor], Tensor], Callable[[Tensor, Any, Any, int], Any]
]


def _operands(input: Any, n: Any) -> tuple[Tensor, Tensor]:
    x = input if isinstance(input, Tensor) else None
    m = n if isinstance(n, Tensor) else None
    if x is None and m is None:
        # (PyTorch's overloads take a Tensor input, a Tensor n, or both)
        raise TypeError(
            "the special polynomials take a Tensor input or a Tensor n, got "
            f"({type(input).__name__}, {type(n).__name__})"
        )
    device = (x if x is not None else m).device  # type: ignore[union-attr]
    if x is None:
        x = ops.full((), input, dtype=dt.get_default_dtype(), device=device)
    if m is None:
        m = ops.full((), n, device=device)
    dtype = dt.result_type(x, m)
    if dtype._category < dt.FLOATING:
        dtype = dt.get_default_dtype()
    x, m = ops.broadcast_tensors(x.detach().to(dtype), m.detach())
    return x, m.to(dt.int64)


def _evaluate(
    input: Any, n: Any, rec: _Rec, special: Callable[[Tensor, Tensor, Tensor], Tensor] | None
) -> Tensor:
    with no_grad():
        x, m = _operands(input, n)
        p0, p1, step = rec
        out = ops.zeros_like(x) + p0(x)
        if m.device.type == "meta" or m.numel() == 0:
            return out
        top = int(m.max())
        if top >= 1:
            prev, cur = ops.ones_like(x) * p0(x), p1(x)
            out = ops.where(m == 1, cur, out)
            for k in range(1, top):
                prev, cur = cur, step(x, cur, prev, k)
                out = ops.where(m == k + 1, cur, out)
        out = ops.where(m < 0, 0.0, out)
        if special is not None:
            out = special(x, m, out)
        return out


def _odd(m: Tensor) -> Tensor:
    return ops.remainder(m, 2) == 1


def _sign_by_parity(m: Tensor, even: Any, odd: Any) -> Tensor:
    return ops.where(_odd(m), odd, even)


def _t_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    one = x.abs() == 1
    edge = ops.where((x > 0) | ~_odd(m), 1.0, -1.0).to(x.dtype)
    trig = ops.cos(m * ops.acos(x.clamp(-1, 1)))
    out = ops.where((m > 6) & (x.abs() < 1), trig, out)
    return ops.where((m >= 0) & one, edge, out)


def _u_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    one = x.abs() == 1
    edge = ops.where((x > 0) | ~_odd(m), m + 1, -(m + 1)).to(x.dtype)
    theta = ops.acos(x.clamp(-1, 1))
    s = ops.sin(theta)
    trig = ops.sin((m + 1) * theta) / ops.where(s != 0, s, 1.0)
    out = ops.where((m > 8) & (x.abs() < 1) & (s != 0), trig, out)
    return ops.where((m >= 0) & one, edge, out)


def _v_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    one = x.abs() == 1
    edge = ops.where(x > 0, ops.ones_like(m), _sign_by_parity(m, 2 * m + 1, -(2 * m + 1)))
    theta = ops.acos(x.clamp(-1, 1))
    c = ops.cos(theta / 2)
    trig = ops.cos((m + 0.5) * theta) / ops.where(c != 0, c, 1.0)
    out = ops.where((m > 8) & (x.abs() < 1) & (c != 0), trig, out)
    return ops.where((m >= 0) & one, edge.to(x.dtype), out)


def _w_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    one = x.abs() == 1
    edge = ops.where(x > 0, 2 * m + 1, _sign_by_parity(m, ops.ones_like(m), -ops.ones_like(m)))
    theta = ops.acos(x.clamp(-1, 1))
    s = ops.sin(theta / 2)
    trig = ops.sin((m + 0.5) * theta) / ops.where(s != 0, s, 1.0)
    out = ops.where((m > 8) & (x.abs() < 1) & (s != 0), trig, out)
    return ops.where((m >= 0) & one, edge.to(x.dtype), out)


def _p_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    edge = ops.where((x > 0) | ~_odd(m), 1.0, -1.0).to(x.dtype)
    return ops.where((m >= 0) & (x.abs() == 1), edge, out)


def _l_special(x: Tensor, m: Tensor, out: Tensor) -> Tensor:
    return ops.where((m >= 0) & (x == 0), 1.0, out)


_CHEB: dict[str, _Rec] = {
    "t": (lambda x: 1.0, lambda x: x, lambda x, q, p, k: 2 * x * q - p),
    "u": (lambda x: 1.0, lambda x: 2 * x, lambda x, q, p, k: 2 * x * q - p),
    "v": (lambda x: 1.0, lambda x: 2 * x - 1, lambda x, q, p, k: 2 * x * q - p),
    "w": (lambda x: 1.0, lambda x: 2 * x + 1, lambda x, q, p, k: 2 * x * q - p),
}
_CHEB_SPECIAL = {"t": _t_special, "u": _u_special, "v": _v_special, "w": _w_special}


def _chebyshev(kind: str, shifted: bool) -> Callable[..., Tensor]:
    name = f"{'shifted_' if shifted else ''}chebyshev_polynomial_{kind}"

    def fn(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
        x = input
        if shifted:
            x, m = _operands(input, n)
            x, n = 2 * x - 1, m
        r = _evaluate(x, n, _CHEB[kind], _CHEB_SPECIAL[kind])
        return r if out is None else out.copy_(r)

    fn.__name__ = fn.__qualname__ = name
    shift = " at ``2 x - 1`` (on [0, 1])" if shifted else ""
    fn.__doc__ = f"The Chebyshev polynomial of the {kind.upper()} kind of degree ``n``{shift}."
    fn.__module__ = "tensorcore.special"
    return fn


chebyshev_polynomial_t = _chebyshev("t", False)
chebyshev_polynomial_u = _chebyshev("u", False)
chebyshev_polynomial_v = _chebyshev("v", False)
chebyshev_polynomial_w = _chebyshev("w", False)
shifted_chebyshev_polynomial_t = _chebyshev("t", True)
shifted_chebyshev_polynomial_u = _chebyshev("u", True)
shifted_chebyshev_polynomial_v = _chebyshev("v", True)
shifted_chebyshev_polynomial_w = _chebyshev("w", True)


def hermite_polynomial_h(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
    """The physicists' Hermite polynomial ``H_n``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.hermite_polynomial_h(tc.tensor([0.5]), 3)
    tensor([-5.])
    """
    rec: _Rec = (lambda x: 1.0, lambda x: 2 * x, lambda x, q, p, k: 2 * x * q - 2 * k * p)
    r = _evaluate(input, n, rec, None)
    return r if out is None else out.copy_(r)


def hermite_polynomial_he(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
    """The probabilists' Hermite polynomial ``He_n``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.hermite_polynomial_he(tc.tensor([2.0]), 3)
    tensor([2.])
    """
    rec: _Rec = (lambda x: 1.0, lambda x: x, lambda x, q, p, k: x * q - k * p)
    r = _evaluate(input, n, rec, None)
    return r if out is None else out.copy_(r)


def laguerre_polynomial_l(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
    """The Laguerre polynomial ``L_n``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.laguerre_polynomial_l(tc.tensor([1.0]), 2)
    tensor([-0.5000])
    """
    rec: _Rec = (
        lambda x: 1.0,
        lambda x: 1 - x,
        lambda x, q, p, k: ((2 * k + 1 - x) * q - k * p) / (k + 1),
    )
    r = _evaluate(input, n, rec, _l_special)
    return r if out is None else out.copy_(r)


def legendre_polynomial_p(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
    """The Legendre polynomial ``P_n``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.special.legendre_polynomial_p(tc.tensor([0.5]), 2)
    tensor([-0.1250])
    """
    rec: _Rec = (
        lambda x: 1.0,
        lambda x: x,
        lambda x, q, p, k: ((2 * k + 1) * x * q - k * p) / (k + 1),
    )
    r = _evaluate(input, n, rec, _p_special)
    return r if out is None else out.copy_(r)
