"""The strong-Wolfe line search of ``LBFGS`` (Nocedal and Wright, *Numerical Optimization*,
algorithms 3.5 and 3.6, with a safeguarded cubic interpolation), on flat parameter vectors."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..ops import functions as ops

__all__ = ["cubic_minimizer", "strong_wolfe"]


def cubic_minimizer(
    x1: float,
    f1: float,
    g1: float,
    x2: float,
    f2: float,
    g2: float,
    bounds: tuple[float, float] | None = None,
) -> float:
    """Minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clipped to ``bounds`` (the interval's ends by default); the bounds' midpoint when
    the cubic has no minimum.

    Examples
    --------
    >>> from tensorcore.optim._line_search import cubic_minimizer
    >>> cubic_minimizer(0.0, 0.0, -2.0, 2.0, 0.0, 2.0)  # (x - 1)**2 - 1 fits it
    1.0
    """
    lo, hi = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (lo + hi) / 2
    d2 = math.sqrt(disc)
    if x1 <= x2:
        x = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        x = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(x, lo), hi)


def strong_wolfe(
    evaluate: Callable[[float], tuple[float, Any]],
    t: float,
    d: Any,
    f: float,
    g: Any,
    gtd: float,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Any, float, int]:
    """Search along ``d`` for a step meeting the strong Wolfe conditions, starting at ``t``.

    ``evaluate(t)`` returns the loss and flat gradient at ``x + t d``; ``f``, ``g`` and
    ``gtd`` are the loss, gradient and directional derivative at ``x``. Returns the accepted
    step's loss, gradient, the step and the number of evaluations (at most ``max_ls``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.optim._line_search import strong_wolfe
    >>> x, d = tc.tensor([3.0], dtype=tc.float64), tc.tensor([-1.0], dtype=tc.float64)
    >>> def evaluate(t):
    ...     y = x + t * d
    ...     return float((y * y).sum()), 2 * y
    >>> f, g, t, n = strong_wolfe(evaluate, 1.0, d, 9.0, 2 * x, -6.0)
    >>> round(t, 6), n
    (1.0, 1)
    """
    d_norm = float(ops.abs(d).max())
    f_new, g_new = evaluate(t)
    evals = 1
    gtd_new = float(ops.dot(g_new, d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    it = 0
    # Bracketing: grow the step until an interval surely holds an acceptable one.
    bracket: list[float] = []
    b_f: list[float] = []
    b_g: list[Any] = []
    b_gtd: list[float] = []
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev):
            bracket, b_f = [t_prev, t], [f_prev, f_new]
            b_g, b_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, b_f, b_g, done = [t], [f_new], [g_new], True
            break
        if gtd_new >= 0:
            bracket, b_f = [t_prev, t], [f_prev, f_new]
            b_g, b_gtd = [g_prev, g_new], [gtd_prev, gtd_new]
            break
        lo_step, hi_step = t + 0.01 * (t - t_prev), t * 10
        t_prev, t = t, cubic_minimizer(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                       bounds=(lo_step, hi_step))  # fmt: skip
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(ops.dot(g_new, d))
        it += 1
    if it == max_ls:
        bracket, b_f, b_g = [0.0, t], [f, f_new], [g, g_new]
    # Zoom: shrink the bracket, keeping at `low` the end with the lower loss.
    insufficient = False
    low, high = (0, 1) if b_f[0] <= b_f[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = cubic_minimizer(bracket[0], b_f[0], b_gtd[0], bracket[1], b_f[1], b_gtd[1])
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            # Too close to an end: move away from it unless the last step made progress.
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(ops.dot(g_new, d))
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= b_f[low]:
            bracket[high], b_f[high], b_g[high], b_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if b_f[0] <= b_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], b_f[high] = bracket[low], b_f[low]
                b_g[high], b_gtd[high] = b_g[low], b_gtd[low]
            bracket[low], b_f[low], b_g[low], b_gtd[low] = t, f_new, g_new, gtd_new
    return b_f[low], b_g[low], bracket[low], evals
