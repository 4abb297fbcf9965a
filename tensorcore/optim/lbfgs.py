"""L-BFGS: the limited-memory quasi-Newton method, with an optional strong-Wolfe line
search, as ``torch.optim.LBFGS``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..ops import functions as ops
from ._line_search import strong_wolfe
from .optimizer import Optimizer, real_view

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """L-BFGS, PyTorch's algorithm. ``step(closure)`` runs up to ``max_iter`` iterations
    (and ``max_eval`` evaluations of ``closure``, which must zero the gradients, compute the
    loss, call ``backward`` and return the loss). Each iteration builds a direction from the
    last ``history_size`` curvature pairs (two-loop recursion, scaled by ``y.s / y.y``) and
    moves along it by ``lr`` (the first step by ``min(1, 1 / |g|_1) * lr``), or by a step that
    meets the strong Wolfe conditions with ``line_search_fn="strong_wolfe"``. Iterations stop
    when the gradient's largest entry is at most ``tolerance_grad``, or the step or the change
    of the loss falls under ``tolerance_change``. The parameters are treated as one flat
    vector, so only one parameter group is allowed.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.tensor([0.0, 0.0], dtype=tc.float64))
    >>> target = tc.tensor([1.0, -2.0], dtype=tc.float64)
    >>> opt = tc.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - target) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> round(opt.step(closure).item(), 4)
    5.0
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, -2.0]
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr, "max_iter": max_iter, "max_eval": max_eval,
            "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
            "history_size": history_size, "line_search_fn": line_search_fn,
        }  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # ------------------------------------------------------------ flat views
    # A complex parameter takes part as its real view (two real entries per element), as in
    # PyTorch's, so the curvature pairs and line search stay real.
    def _flat_grad(self) -> Tensor:
        parts = []
        for p in self._params:
            if p.grad is None:
                g = ops.zeros(p.shape, dtype=p.dtype, device=p.device)
            elif p.grad.is_sparse:
                g = p.grad.to_dense()
            else:
                g = p.grad
            parts.append(real_view(g).reshape(-1))
        return ops.cat(parts, 0)

    def _add_to_params(self, step: float, direction: Tensor) -> None:
        offset = 0
        for p in self._params:
            p = real_view(p)
            n = p.numel()
            p.add_(direction[offset : offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluate(self, closure: Callable[[], Any]) -> float:
        return float(self._closure_loss(closure))

    # ------------------------------------------------------------ step
    def step(self, closure: Callable[[], Any]) -> Any:  # type: ignore[override]
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` re-evaluates the loss and
        its gradients. Returns the loss of the first evaluation."""
        if closure is None:
            raise RuntimeError("LBFGS requires a closure")
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history, line_search = group["history_size"], group["line_search_fn"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._closure_loss(closure)
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if float(ops.abs(flat_grad).max()) <= tol_grad:
            return orig_loss

        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro, h_diag = [], [], [], 1
            else:
                # (ro, H_diag and the two-loop's al are 0-d tensors, as PyTorch's state)
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = ops.dot(y, s)
                if float(ys) > 1e-10:  # keep only pairs of positive curvature
                    if len(old_dirs) == history:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / ops.dot(y, y)
                al = state.setdefault("al", [None] * history)
                d = _two_loop(flat_grad, old_dirs, old_stps, ro, h_diag, al)
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            first = state["n_iter"] == 1
            t = min(1.0, 1.0 / float(ops.abs(flat_grad).sum())) * lr if first else lr
            gtd = float(ops.dot(flat_grad, d))
            if gtd > -tol_change:  # not a descent direction
                break

            if line_search is not None:
                if line_search != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]

                def evaluate(
                    step: float, start: list[Tensor] = start, d: Tensor = d
                ) -> tuple[float, Tensor]:
                    self._add_to_params(step, d)
                    f = self._evaluate(closure)
                    g = self._flat_grad()
                    for p, x in zip(self._params, start, strict=True):
                        p.copy_(x)
                    return f, g

                loss, flat_grad, t, ls_evals = strong_wolfe(evaluate, t, d, loss, flat_grad, gtd)
                self._add_to_params(t, d)
                opt_cond = float(ops.abs(flat_grad).max()) <= tol_grad
            else:
                self._add_to_params(t, d)
                ls_evals = 0
                opt_cond = False
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    flat_grad = self._flat_grad()
                    opt_cond = float(ops.abs(flat_grad).max()) <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals

            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if float(ops.abs(d * t).max()) <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break

        state.update(
            d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
            prev_flat_grad=prev_flat_grad, prev_loss=prev_loss,
        )  # fmt: skip
        return orig_loss


def _two_loop(
    grad: Tensor,
    dirs: list[Tensor],
    stps: list[Tensor],
    ro: list[Tensor],
    h_diag: Any,
    al: list[Any],
) -> Tensor:
    """The L-BFGS direction ``-H grad``, ``H`` the inverse-Hessian estimate from the pairs
    (``al``: the first loop's coefficients, written in place)."""
    q = -grad
    for i in range(len(dirs) - 1, -1, -1):
        al[i] = ops.dot(stps[i], q) * ro[i]
        q = q - al[i] * dirs[i]
    r = q * h_diag
    for i in range(len(dirs)):
        be = ops.dot(dirs[i], r) * ro[i]
        r = r + (al[i] - be) * stps[i]
    return r
