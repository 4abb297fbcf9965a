"""Finite-difference checks of gradients: ``gradcheck`` and ``gradgradcheck``.

Backend authors can run them on their own kernels: they only use the public API.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from .._tensor import Tensor
from ..ops import functions as ops
from . import grad_mode
from .engine import grad as autograd_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` when analytical and numerical gradients disagree."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _diff_outputs(func: Callable[..., Any], inputs: Sequence[Any]) -> tuple[Tensor, ...]:
    return tuple(
        o
        for o in _as_tuple(func(*inputs))
        if isinstance(o, Tensor) and (o._dtype.is_floating_point or o._dtype.is_complex)
    )


def _indices(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(s) for s in shape)))


def _numerical(
    func: Callable[..., Any], inputs: Sequence[Any], x: Tensor, eps: float
) -> list[list[list[list[Any]]]]:
    """For each element of ``x``, per direction (the real axis, and the imaginary axis for a
    complex ``x``), per output: the derivatives of the output's elements (central
    differences)."""
    cols: list[list[list[list[Any]]]] = []
    xd = x.detach()
    steps = (eps, eps * 1j) if x._dtype.is_complex else (eps,)
    for idx in _indices(x._shape):
        orig = xd[idx].item()
        per_dir = []
        for step in steps:
            # ``func`` runs in the caller's grad mode: gradgradcheck's ``func`` itself calls
            # autograd.grad, which needs the graph recorded. Only the perturbations are
            # untracked.
            with grad_mode.no_grad():
                xd[idx] = orig + step
            plus = [o.detach().reshape(-1).tolist() for o in _diff_outputs(func, inputs)]
            with grad_mode.no_grad():
                xd[idx] = orig - step
            minus = [o.detach().reshape(-1).tolist() for o in _diff_outputs(func, inputs)]
            with grad_mode.no_grad():
                xd[idx] = orig
            per_dir.append(
                [
                    [(p - m) / (2 * eps) for p, m in zip(po, mo, strict=True)]
                    for po, mo in zip(plus, minus, strict=True)
                ]
            )
        cols.append(per_dir)
    return cols


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Compare autograd's gradients of ``func`` with central finite differences.

    Inputs that require grad should be float64 or complex128 (finite differences in lower
    precision are too coarse). Every element of every output is checked against every input
    element; on a mismatch the report names the output, the input, the element and both
    values.

    Complex numbers follow PyTorch's convention: ``backward`` with gradient ``v`` of a
    complex output ``o`` computes, for an input ``z = x + iy``, ``dL/dx + i dL/dy`` of the real
    function ``L = Re(conj(v) * o)``. Complex outputs are checked with ``v = 1`` and
    ``v = 1j`` (their real and imaginary parts).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([0.5, 1.5], dtype=tc.float64, requires_grad=True)
    >>> tc.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    True
    >>> z = tc.tensor([0.5 + 1j, -1 + 0.5j], dtype=tc.complex128, requires_grad=True)
    >>> tc.autograd.gradcheck(lambda t: (t * t.conj() + t.exp()).real, (z,))
    True
    """

    if not callable(func):
        raise TypeError(f"gradcheck(): argument 'func' must be callable, not {type(func).__name__}")
    inputs = _as_tuple(inputs)
    wrt = [(k, x) for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    outputs = _diff_outputs(func, inputs)
    # The numerical Jacobian of every output, once per input (each perturbation runs ``func``
    # and reads all outputs). The perturbations are done before the graph below is recorded,
    # which must not see them (they write to the inputs).
    numericals = [_numerical(func, inputs, x, eps) for _, x in wrt]
    # The analytical one: a single forward, its graph kept for one vector-Jacobian product per
    # output element, which gives the rows of every input at once.
    outs = _diff_outputs(func, inputs)
    analytical: dict[tuple[int, Any, int], tuple[Any, ...]] = {}
    for oi, out in enumerate(outputs):
        n_out = out.numel()
        directions: tuple[Any, ...] = (1.0, 1j) if out._dtype.is_complex else (1.0,)
        o = outs[oi]
        for v in directions:
            for j in range(n_out):
                if o._requires_grad:
                    onehot = ops.zeros(n_out, dtype=out._dtype, device=out._device)
                    onehot[j] = v
                    analytical[oi, v, j] = autograd_grad(
                        o,
                        [x for _, x in wrt],
                        onehot.reshape(out._shape),
                        retain_graph=True,
                        allow_unused=True,
                    )
                else:
                    # An output outside the graph has zero derivatives, which the
                    # numerical ones must then be (PyTorch's gradcheck): a backward that
                    # dropped its graph under create_graph fails gradgradcheck here.
                    analytical[oi, v, j] = (None,) * len(wrt)
    worst: tuple[float, str] = (0.0, "")
    for oi, out in enumerate(outputs):
        n_out = out.numel()
        directions = (1.0, 1j) if out._dtype.is_complex else (1.0,)
        for w, (k, x) in enumerate(wrt):
            numerical = numericals[w]
            for v in directions:
                for j in range(n_out):
                    g = analytical[oi, v, j][w]
                    row = [0.0] * x.numel() if g is None else g.reshape(-1).tolist()
                    for e, idx in enumerate(_indices(x._shape)):
                        dirs = numerical[e]
                        # d/dx (and d/dy) of L = Re(conj(v) * o_j).
                        n: Any = (v.conjugate() * dirs[0][oi][j]).real
                        if len(dirs) > 1:
                            n = complex(n, (v.conjugate() * dirs[1][oi][j]).real)
                        a = row[e]
                        err = abs(a - n)
                        # (a NaN on either side fails, as PyTorch's allclose; equal
                        # infinities pass)
                        bad = a != n and not err <= atol + rtol * abs(n)
                        rank = err if err == err else math.inf
                        if bad and (rank > worst[0] or not worst[1]):
                            part = "" if v == 1.0 else " (imaginary part)"
                            worst = (
                                rank,
                                f"Jacobian mismatch for output {oi}{part} with respect to input "
                                f"{k}: at output element {j}, input element {idx}: numerical "
                                f"{n!r}, analytical {a!r} (|difference| {err:.3g} > atol {atol} "
                                f"+ rtol {rtol} * |numerical|)",
                            )
    if worst[1]:
        if raise_exception:
            raise GradcheckError(worst[1])
        return False
    return True


def _check_undefined_is_zero(
    func: Callable[..., Any], inputs: tuple[Any, ...], k: int, eps: float, atol: float
) -> None:
    """Raise unless func's outputs do not change with input ``k`` (central differences)."""
    for e, per_dir in enumerate(_numerical(func, inputs, inputs[k], eps)):
        for per_out in per_dir:
            for oi, col in enumerate(per_out):
                for j, n in enumerate(col):
                    if not abs(n) <= atol:  # (a NaN too)
                        raise GradcheckError(
                            f"gradgradcheck: the first derivative of output {oi} with respect "
                            f"to input {k} is undefined (autograd.grad gave None), but its "
                            f"numerical value at output element {j}, input element "
                            f"{_indices(inputs[k]._shape)[e]}, is {n!r}: the graph that "
                            "should compute it is missing, so its second derivatives cannot "
                            "be checked"
                        )


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
) -> bool:
    """Check second derivatives: gradcheck of the gradient of ``func`` (built with create_graph).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([0.5, 1.5], dtype=tc.float64, requires_grad=True)
    >>> tc.autograd.gradgradcheck(lambda t: t.exp() * t, (x,))
    True
    """

    inputs = _as_tuple(inputs)
    outputs = _diff_outputs(func, inputs)
    if grad_outputs is None:
        gens = []
        for o in outputs:
            # Uniform on [-1, 1), drawn as PyTorch's ``make_tensor(low=-1, high=1)`` draws
            # them, so that a seeded program's later draws stay in step with PyTorch's.
            g = ops.empty(o._shape, dtype=o._dtype, device=o._device).uniform_(-1, 1)
            gens.append(g.requires_grad_())
        grad_outputs = tuple(gens)
    grad_outputs = _as_tuple(grad_outputs)
    wrt_pos = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    n_in = len(inputs)

    def first_grads(*args: Any) -> tuple[Any, ...]:
        ins, gos = args[:n_in], args[n_in:]
        outs = _diff_outputs(func, ins)
        pairs = [(o, go) for o, go in zip(outs, gos, strict=False) if o._requires_grad]
        if not pairs:
            return (None,) * len(wrt_pos)
        return autograd_grad(
            [o for o, _ in pairs],
            [ins[k] for k in wrt_pos],
            [go for _, go in pairs],
            create_graph=True,
            allow_unused=True,
        )

    defined = [g is not None for g in first_grads(*inputs, *grad_outputs)]
    for k, keep in zip(wrt_pos, defined, strict=True):
        if not keep:
            # A first derivative that autograd leaves undefined (None) is dropped from the
            # check below, which must then not pass for want of anything to compare (as
            # PyTorch's does): it has to be zero, numerically.
            _check_undefined_is_zero(func, inputs, k, eps, atol)
    if not any(defined):
        return True  # (every first derivative is zero: so are the second ones)

    def first_grad(*args: Any) -> tuple[Any, ...]:
        # The derivatives defined at the inputs, in fixed positions (zeros where one comes
        # back None at a perturbed point), so that every perturbation compares alike.
        gs = first_grads(*args)
        ins = args[:n_in]
        return tuple(
            (ops.zeros_like(ins[k]) if g is None else g)
            for k, g, keep in zip(wrt_pos, gs, defined, strict=True)
            if keep
        )

    return gradcheck(
        first_grad,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
