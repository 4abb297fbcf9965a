"""PyTorch's ``torch._foreach_*`` functions: one operator applied to each tensor of a list.

PyTorch fuses these into few kernel launches; here each is a loop over the tensors calling
the ordinary operator, so that type promotion, broadcasting, errors and autograd are exactly
the single-tensor operator's. Programs use them for exponential moving averages of weights
(``torch._foreach_mul_(ema, d); torch._foreach_add_(ema, params, alpha=1 - d)``) and in
hand-written optimizers. As PyTorch's, the out-of-place forms return a tuple of new tensors
and the in-place forms (trailing ``_``) update the tensors of ``self`` and return ``self``.

The second argument of a binary function is a number (the same for every tensor), a list of
numbers (one per tensor), a list of tensors (one per tensor) or a tensor (the same for every
tensor).

Examples
--------
>>> import tensorcore as tc
>>> ema = [tc.zeros(2), tc.zeros(3)]
>>> params = [tc.ones(2), tc.full((3,), 2.0)]
>>> _ = tc._foreach_mul_(ema, 0.9)
>>> _ = tc._foreach_add_(ema, params, alpha=0.1)
>>> ema
[tensor([0.1000, 0.1000]), tensor([0.2000, 0.2000, 0.2000])]
>>> tc._foreach_norm(params)
(tensor(1.4142), tensor(3.4641))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Number
from typing import Any

from ._tensor import Tensor
from .linalg import vector_norm

__all__: list[str] = []  # the functions are installed on tensorcore as _foreach_<name>

_Fn = Callable[..., Any]


def _tensors(self: Any, fn: str) -> Sequence[Tensor]:
    if not isinstance(self, (list, tuple)) or not all(isinstance(t, Tensor) for t in self):
        raise TypeError(
            f"{fn}(): argument 'self' must be a list or tuple of Tensors, not {type(self).__name__}"
        )
    if not self:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return self


def _per_tensor(self: Sequence[Tensor], other: Any, fn: str, what: str = "other") -> list[Any]:
    """``other`` spread over the tensors of ``self``: one entry per tensor."""
    if isinstance(other, (Tensor, Number)):
        return [other] * len(self)
    if isinstance(other, (list, tuple)):
        if all(isinstance(o, Tensor) for o in other) and other:
            if len(other) != len(self):
                raise RuntimeError(
                    "Tensor lists must have the same number of tensors, got "
                    f"{len(self)} and {len(other)}"
                )
            return list(other)
        if all(isinstance(o, Number) for o in other):
            if len(other) != len(self):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            return list(other)
    raise TypeError(
        f"{fn}(): argument '{what}' must be a number, a list of numbers, a Tensor or a list "
        f"of Tensors, not {type(other).__name__}"
    )


def _same_length(self: Sequence[Tensor], others: Any, fn: str, what: str) -> Sequence[Tensor]:
    if not isinstance(others, (list, tuple)) or not all(isinstance(t, Tensor) for t in others):
        raise TypeError(
            f"{fn}(): argument '{what}' must be a list or tuple of Tensors, not "
            f"{type(others).__name__}"
        )
    if len(others) != len(self):
        raise RuntimeError(
            f"Tensor lists must have the same number of tensors, got {len(self)} and {len(others)}"
        )
    return others


def _doc(fn: Callable[..., Any], name: str, text: str) -> Callable[..., Any]:
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = "tensorcore"
    fn.__doc__ = text
    return fn


def _unary(op: str, inplace: bool) -> _Fn:
    name = f"_foreach_{op}{'_' if inplace else ''}"
    method = op + ("_" if inplace else "")

    def fn(self: Any) -> Any:
        ts = _tensors(self, name)
        res = tuple(getattr(t, method)() for t in ts)
        return self if inplace else res

    return _doc(fn, name, f"``{method}`` of each tensor of ``self`` (PyTorch's ``{name}``).")


#: maximum/minimum with a number are clamps (Tensor.maximum takes tensors only).
_WITH_NUMBER = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _binary(op: str, inplace: bool, alpha: bool) -> _Fn:
    name = f"_foreach_{op}{'_' if inplace else ''}"
    method = op + ("_" if inplace else "")
    by_number = _WITH_NUMBER.get(op, op) + ("_" if inplace else "")

    def fn(self: Any, other: Any, *, alpha: Any = 1) -> Any:
        ts = _tensors(self, name)
        os = _per_tensor(ts, other, name)
        if by_number != method:
            res = tuple(
                getattr(t, by_number if isinstance(o, Number) else method)(o)
                for t, o in zip(ts, os, strict=True)
            )
        elif alpha != 1:
            res = tuple(getattr(t, method)(o, alpha=alpha) for t, o in zip(ts, os, strict=True))
        else:
            res = tuple(getattr(t, method)(o) for t, o in zip(ts, os, strict=True))
        return self if inplace else res

    if not alpha:

        def fn_no_alpha(self: Any, other: Any) -> Any:
            return fn(self, other)

        target = fn_no_alpha
    else:
        target = fn
    return _doc(
        target,
        name,
        f"``{method}`` of each tensor of ``self`` with ``other`` (a number, a list of "
        f"numbers, a tensor or a list of tensors) (PyTorch's ``{name}``).",
    )


def _pointwise3(op: str, inplace: bool) -> _Fn:
    name = f"_foreach_{op}{'_' if inplace else ''}"
    method = op + ("_" if inplace else "")

    def fn(self: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> Any:
        ts = _tensors(self, name)
        t1 = _same_length(ts, tensor1, name, "tensor1")
        t2 = _same_length(ts, tensor2, name, "tensor2")
        if isinstance(value, Tensor):  # one number per tensor, as a 1-D tensor
            if value.dim() != 1 or value.numel() != len(ts):
                raise RuntimeError(
                    f"Expected scalars to be a 1-D tensor of {len(ts)} elements, got shape "
                    f"{list(value.shape)}"
                )
            value = value.tolist()
        vs = _per_tensor(ts, value, name, "value")
        res = tuple(
            getattr(t, method)(a, b, value=v) for t, a, b, v in zip(ts, t1, t2, vs, strict=True)
        )
        return self if inplace else res

    return _doc(
        fn,
        name,
        f"``{method}(tensor1[i], tensor2[i], value=...)`` of each tensor of ``self``; "
        f"``value`` is a number, a list of numbers or a 1-D tensor of them (PyTorch's "
        f"``{name}``).",
    )


def _lerp(inplace: bool) -> _Fn:
    name = "_foreach_lerp_" if inplace else "_foreach_lerp"
    method = "lerp_" if inplace else "lerp"

    def fn(self: Any, tensors1: Any, weight: Any) -> Any:
        ts = _tensors(self, name)
        ends = _same_length(ts, tensors1, name, "tensors1")
        ws = _per_tensor(ts, weight, name, "weight")
        res = tuple(getattr(t, method)(e, w) for t, e, w in zip(ts, ends, ws, strict=True))
        return self if inplace else res

    return _doc(
        fn,
        name,
        f"``{method}(tensors1[i], weight)`` of each tensor of ``self``; ``weight`` is a "
        f"number, a list of numbers or a list of tensors (PyTorch's ``{name}``).",
    )


def _pow(inplace: bool) -> _Fn:
    name = "_foreach_pow_" if inplace else "_foreach_pow"
    method = "pow_" if inplace else "pow"

    def fn(self: Any, exponent: Any) -> Any:
        if not inplace and isinstance(self, Number):  # a number to the power of each tensor
            es = _tensors(exponent, name)
            return tuple(_rpow(self, e) for e in es)
        ts = _tensors(self, name)
        es = _per_tensor(ts, exponent, name, "exponent")
        res = tuple(getattr(t, method)(e) for t, e in zip(ts, es, strict=True))
        return self if inplace else res

    return _doc(
        fn,
        name,
        f"``{method}`` of each tensor of ``self``; out of place, ``self`` may be a number and "
        f"``exponent`` a list of tensors (PyTorch's ``{name}``).",
    )


def _rpow(base: Any, exponent: Tensor) -> Tensor:
    return base**exponent


def _foreach_norm(self: Any, ord: Any = 2, dtype: Any = None) -> tuple[Tensor, ...]:
    ts = _tensors(self, "_foreach_norm")
    return tuple(vector_norm(t, ord, dtype=dtype) for t in ts)


def _foreach_max(self: Any) -> tuple[Tensor, ...]:
    return tuple(t.max() for t in _tensors(self, "_foreach_max"))


def _foreach_clone(self: Any) -> tuple[Tensor, ...]:
    return tuple(t.clone() for t in _tensors(self, "_foreach_clone"))


def _foreach_zero_(self: Any) -> Any:
    for t in _tensors(self, "_foreach_zero_"):
        t.zero_()
    return self


def _foreach_copy_(self: Any, src: Any, non_blocking: bool = False) -> Any:
    ts = _tensors(self, "_foreach_copy_")
    for t, s in zip(ts, _same_length(ts, src, "_foreach_copy_", "src"), strict=True):
        t.copy_(s, non_blocking=non_blocking)
    return self


_UNARY = (
    "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
    "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round",
    "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
)  # fmt: skip


def _build() -> dict[str, _Fn]:
    table: dict[str, _Fn] = {}
    for inplace in (False, True):
        for op in _UNARY:
            f = _unary(op, inplace)
            table[f.__name__] = f
        for op in ("add", "sub"):
            f = _binary(op, inplace, alpha=True)
            table[f.__name__] = f
        for op in ("mul", "div", "maximum", "minimum", "clamp_min", "clamp_max"):
            f = _binary(op, inplace, alpha=False)
            table[f.__name__] = f
        for op in ("addcmul", "addcdiv"):
            f = _pointwise3(op, inplace)
            table[f.__name__] = f
        for f in (_lerp(inplace), _pow(inplace)):
            table[f.__name__] = f
    docs: dict[_Fn, str] = {
        _foreach_norm: "``linalg.vector_norm(t, ord, dtype=dtype)`` of each tensor of "
        "``self``: a tuple of 0-d tensors (PyTorch's ``_foreach_norm``).",
        _foreach_max: "The largest element of each tensor of ``self`` (PyTorch's "
        "``_foreach_max``).",
        _foreach_clone: "A copy of each tensor of ``self`` (PyTorch's ``_foreach_clone``).",
        _foreach_zero_: "Fill each tensor of ``self`` with zeros; returns ``self`` (PyTorch's "
        "``_foreach_zero_``).",
        _foreach_copy_: "Copy ``src[i]`` into ``self[i]`` for each tensor; returns ``self`` "
        "(PyTorch's ``_foreach_copy_``).",
    }
    for f, text in docs.items():
        table[f.__name__] = _doc(f, f.__name__, text)
    return table


#: ``_foreach_<name>`` -> function, installed on the ``tensorcore`` module.
FUNCTIONS = _build()
