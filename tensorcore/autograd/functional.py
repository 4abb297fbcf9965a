"""``tensorcore.autograd.functional``: derivatives of whole functions (PyTorch's
``torch.autograd.functional``): ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp``, ``hvp``.

Each is written with :func:`tensorcore.autograd.grad`: forward-mode products (``jvp``,
``hvp``) with the double-backward trick, the Jacobian one output element at a time
(``vectorize`` and ``strategy`` change nothing in the values, but the combinations PyTorch
refuses are refused in its words). Results mirror the tuple-ness of
``inputs`` and of ``func``'s outputs as PyTorch's do; with ``create_graph=False`` they are
detached. Where an output does not depend on an input, the derivative is zeros (``strict=True``
raises instead).

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, tc.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from .._tensor import Tensor
from ..ops import functions as ops
from . import grad_mode
from .engine import grad as _grad

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    # (a tuple, as PyTorch's: a list is refused as a value that is not a Tensor)
    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            what = f"the value at index {i}" if is_tuple else f"the given {arg}"
            raise TypeError(
                f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but "
                f"{what} has type {type(t)}."
            )
    return is_tuple, items


def _prepare(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    # With create_graph, inputs that require grad stay connected to their graph (a view of
    # each), so that the result can be differentiated with respect to them.
    return tuple(
        t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_()
        for t in inputs
    )


def _finish(xs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    return tuple(x if create_graph or x is None else x.detach() for x in xs)


def _fill(
    grads: tuple[Any, ...], like: tuple[Tensor, ...], strict: bool, what: str
) -> tuple[Tensor, ...]:
    out = []
    for i, (g, t) in enumerate(zip(grads, like, strict=True)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. "
                    f"This is not allowed in strict mode{what}."
                )
            g = ops.zeros_like(t)
        out.append(g)
    return tuple(out)


def _check_requires_grad(xs: tuple[Any, ...], kind: str, strict: bool) -> None:
    # strict mode refuses an output (``kind="outputs"``) or a first derivative
    # (``kind="jacobian"``, inside hessian/hvp/vhp) that is not differentiable, before any
    # backward pass, in PyTorch's words.
    if not strict:
        return
    for i, x in enumerate(xs):
        if x is not None and not x.requires_grad:
            if kind == "jacobian":
                raise RuntimeError(
                    "While computing the hessian, found that the jacobian of the "
                    f"user-provided function with respect to input {i} is independent of the "
                    "input. This is not allowed in strict mode. You should ensure that your "
                    "function is twice differentiable and that the jacobian depends on the "
                    "inputs (this would be violated by a linear function for example)."
                )
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


_F = TypeVar("_F", bound=Callable[..., Any])


def _grad_enabled(fn: _F) -> _F:
    # PyTorch runs each of these with grad mode on, so that they work inside no_grad (a
    # log-det check under torch.no_grad(), a jacobian in an evaluation loop).
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with grad_mode.enable_grad():
            return fn(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _call(func: Callable[..., Any], inputs: tuple[Tensor, ...], fn: str) -> Any:
    with grad_mode.enable_grad():
        out = func(*inputs)
    return out


#: PyTorch's words for a v left out where it cannot be: ``like`` is the function's outputs
#: (vjp) or its inputs (the others).
_V_NONE = {
    "outputs": "The vector v can only be None if the user-provided function returns a single "
    "Tensor with a single element.",
    "inputs": "The vector v can only be None if the input to the user-provided function is a "
    "single Tensor with a single element.",
}


def _check_v(
    v: Any, like: tuple[Tensor, ...], like_tuple: bool, fn: str, what: str
) -> tuple[Tensor, ...]:
    """``v`` as a tuple matching ``like`` (``ones`` for a one-element ``like`` when ``v`` is
    None), or PyTorch's error; ``like_tuple``: whether ``like`` was given as a tuple."""
    if v is None:
        if len(like) != 1 or like[0].numel() != 1:
            raise RuntimeError(_V_NONE[what])
        return (ops.ones_like(like[0]),)
    _, vs = _as_tuple(v, "v", fn)
    if len(vs) != len(like):
        if like_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(like)} but got {len(vs)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(vs, like, strict=True)):
        if a.shape != b.shape:
            entry = f"Entry {i} in " if like_tuple else ""
            raise RuntimeError(f"{entry}v has invalid size: should be {b.shape} but got {a.shape}.")
    return vs


def _check_single(outs: tuple[Tensor, ...], out_tuple: bool, fn: str) -> None:
    """PyTorch's check that a function given to hessian, hvp or vhp returns one number."""
    if out_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )


@_grad_enabled
def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import vjp
    >>> vjp(lambda x: x ** 2, tc.tensor([1.0, 2.0]), tc.tensor([1.0, 1.0]))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    xs = _prepare(xs, create_graph)
    out_tuple, outs = _as_tuple(
        _call(func, xs, "vjp"), "outputs of the user-provided function", "vjp"
    )
    _check_requires_grad(outs, "outputs", strict)
    vs = _check_v(v, outs, out_tuple, "vjp", "outputs")
    grads = _grad(outs, xs, vs, create_graph=create_graph, allow_unused=True, retain_graph=True)
    res = _finish(_fill(grads, xs, strict, ""), create_graph)
    o = _finish(outs, create_graph)
    return (o if out_tuple else o[0]), (res if in_tuple else res[0])


@_grad_enabled
def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs`` (computed with the
    double-backward trick: two reverse passes).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import jvp
    >>> jvp(lambda x: x ** 2, tc.tensor([1.0, 2.0]), tc.tensor([1.0, 0.0]))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    xs = _prepare(xs, create_graph)
    vs = _check_v(v, xs, in_tuple, "jvp", "inputs")
    out_tuple, outs = _as_tuple(
        _call(func, xs, "jvp"), "outputs of the user-provided function", "jvp"
    )
    _check_requires_grad(outs, "outputs", strict)
    # u stands for the output gradients: J^T u is linear in u, and its gradient with respect
    # to u along v is J v. Any u would do: ones, since a rule may take the log of its
    # gradient (logcumsumexp's), whose derivative at zero is lost; zeros where a rule refuses
    # ones (svd's checks that the gradient ignores the vectors' phases).
    for fill in (1, 0):
        us = tuple(ops.full_like(o, fill).requires_grad_() for o in outs)
        try:
            g = _grad(outs, xs, us, create_graph=True, allow_unused=True)
            break
        except RuntimeError:
            if fill == 0:
                raise
    g = _fill(g, xs, strict, "")
    keep = [(gi, vi) for gi, vi in zip(g, vs, strict=True) if gi.requires_grad]
    if keep:
        res = _grad(
            [k[0] for k in keep], us, [k[1] for k in keep],
            create_graph=create_graph, allow_unused=True,
        )  # fmt: skip
    else:
        res = (None,) * len(us)
    res = _finish(_fill(res, outs, strict, ""), create_graph)
    o = _finish(outs, create_graph)
    return (o if out_tuple else o[0]), (res if out_tuple else res[0])


@_grad_enabled
def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: for output ``i`` and input ``j``, a tensor of
    shape ``outputs[i].shape + inputs[j].shape``, nested as PyTorch nests them (a tensor,
    a tuple over the inputs or the outputs, or a tuple of tuples).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import jacobian
    >>> jacobian(lambda a, b: a * b, (tc.tensor([2.0]), tc.tensor([3.0])))
    (tensor([[3.]]), tensor([[2.]]))
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more '
            'performant. Otherwise, prefer to use "reverse-mode".'
        )
    # PyTorch's combinations that it does not run (the values here would not depend on them:
    # every strategy is the same loop of reverse passes)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `strict=False` or `strategy="reverse-mode"`.'
            )
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )  # (sic: PyTorch's message lacks the space)
    xs = _prepare(xs, create_graph)
    out_tuple, outs = _as_tuple(
        _call(func, xs, "jacobian"), "outputs of the user-provided function", "jacobian"
    )
    _check_requires_grad(outs, "outputs", strict)
    if vectorize and strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    jac: list[tuple[Tensor, ...]] = []
    for i, out in enumerate(outs):
        flat = out.reshape(-1)
        rows: list[list[Tensor]] = [[] for _ in xs]
        for k in range(flat.numel()):
            g: tuple[Any, ...] = (None,) * len(xs)
            if out.requires_grad:
                g = _grad(
                    (flat[k],), xs, retain_graph=True, create_graph=create_graph,
                    allow_unused=True,
                )  # fmt: skip
            for j, (gj, x) in enumerate(zip(g, xs, strict=True)):
                if gj is None:
                    if strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of "
                            f"input {j}. This is not allowed in strict mode."
                        )
                    gj = ops.zeros_like(x)
                rows[j].append(gj)
        jac.append(
            tuple(
                _finish(
                    (ops.stack(r).reshape(tuple(out.shape) + tuple(x.shape))
                     if r else ops.zeros(tuple(out.shape) + tuple(x.shape),
                                         dtype=x.dtype, device=x.device),),
                    create_graph,
                )[0]
                for r, x in zip(rows, xs, strict=True)
            )
        )  # fmt: skip
    if out_tuple:
        return tuple(j if in_tuple else j[0] for j in jac)
    return jac[0] if in_tuple else jac[0][0]


@_grad_enabled
def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function at ``inputs``: a tensor of shape
    ``inputs.shape + inputs.shape``, or for tuple inputs a tuple of tuples (block ``i, j`` is
    the derivative with respect to input ``i`` then input ``j``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import hessian
    >>> hessian(lambda x: (x ** 3).sum(), tc.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_grad(*args: Tensor) -> tuple[Tensor, ...]:
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(outs, "outputs", strict)
        _check_single(outs, out_tuple, "hessian")
        g = _fill(_grad(outs, args, create_graph=True, allow_unused=True), args, strict, "")
        _check_requires_grad(g, "jacobian", strict)
        return g

    res = jacobian(
        scalar_grad, xs, create_graph=create_graph, strict=strict, vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )  # fmt: skip
    return res if in_tuple else res[0][0]


@_grad_enabled
def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)``: the vector-Hessian product of a scalar function.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), tc.tensor([1.0, 2.0]), tc.tensor([1.0, 1.0]))
    (tensor(9.), tensor([ 6., 12.]))
    """
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)


@_grad_enabled
def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(inputs), H v)``: the Hessian-vector product of a scalar function (equal to
    :func:`vhp`'s, the Hessian being symmetric for twice continuously differentiable
    functions).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), tc.tensor([1.0, 2.0]), tc.tensor([0.0, 1.0]))
    (tensor(9.), tensor([ 0., 12.]))
    """
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def _hessian_product(
    fn: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool
) -> tuple[Any, Any]:
    in_tuple, xs = _as_tuple(inputs, "inputs", fn)
    xs = _prepare(xs, create_graph)
    vs = _check_v(v, xs, in_tuple, fn, "inputs")
    out_tuple, outs = _as_tuple(_call(func, xs, fn), "outputs of the user-provided function", fn)
    _check_requires_grad(outs, "outputs", strict)
    _check_single(outs, out_tuple, fn)
    g = _fill(_grad(outs, xs, create_graph=True, allow_unused=True), xs, strict, "")
    _check_requires_grad(g, "jacobian", strict)
    keep = [(gi, vi) for gi, vi in zip(g, vs, strict=True) if gi.requires_grad]
    res: tuple[Any, ...] = (None,) * len(xs)
    if keep:
        res = _grad(
            [k[0] for k in keep], xs, [k[1] for k in keep],
            create_graph=create_graph, allow_unused=True,
        )  # fmt: skip
    res = _finish(_fill(res, xs, strict, ""), create_graph)
    o = _finish(outs, create_graph)[0]
    return o, (res if in_tuple else res[0])
