"""``tc.amp.GradScaler``: loss scaling for float16 training, as PyTorch's.

A float16 gradient underflows where the float32 one would not; the scaler multiplies the loss
by a large factor before ``backward``, divides the gradients by it before the optimizer steps
(``unscale_``), skips the step when a gradient is not finite, and adapts the factor: halved
after a step with an inf or NaN, doubled after ``growth_interval`` clean steps.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from .. import _registry
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..dtypes import float32
from ..ops import functions as ops

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps whose gradients overflowed.

    Parameters
    ----------
    device
        The device type the gradients live on (``"cuda"``, ``"cpu"``...). A scaler for a
        device type that is not available warns and disables itself, as PyTorch's does.
    init_scale, growth_factor, backoff_factor, growth_interval
        The starting factor; what it is multiplied by after ``growth_interval`` steps without
        an inf or NaN, and after a step with one.
    enabled
        False makes every method a pass-through.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.nn.Parameter(tc.ones(2))
    >>> opt = tc.optim.SGD([w], lr=0.1)
    >>> scaler = tc.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale((w * w).sum()).backward()
    >>> w.grad
    tensor([2048., 2048.])
    >>> scaler.step(opt); scaler.update(); w
    Parameter containing:
    tensor([0.8000, 0.8000], requires_grad=True)
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device = device
        if enabled and not _registry.is_usable(device):
            warnings.warn(
                f"tensorcore.amp.GradScaler is enabled, but {device} is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
            enabled = False
        self._enabled = enabled
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # ------------------------------------------------------------ scaling
    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples of them) times the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": 0})

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and note whether any is
        inf or NaN (call it before clipping gradients; ``step`` calls it otherwise)."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = 0
        per_device: dict[Any, int] = {}
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if g.is_sparse:
                        g = g.coalesce()
                        p.grad = g
                        vals = g._values()
                    else:
                        vals = g
                    vals.mul_(inv)
                    flag = per_device.setdefault(g.device, 0)
                    if not flag and not bool(vals.isfinite().all()):
                        found = per_device[g.device] = 1
        state["found_inf"] = found
        state["found_inf_per_device"] = per_device
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (if not done yet), then ``optimizer.step(*args, **kwargs)`` unless a
        gradient was inf or NaN; returns what the step returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Adjust the scale for the next iteration (or set it to ``new_scale``)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["stage"] != _READY]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = self._scale * self._growth_factor
                    if math.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
        self._per_optimizer.clear()

    def _found_inf_per_device(self, optimizer: Any) -> dict[Any, Tensor]:
        """PyTorch's (private, read by training frameworks to tell a skipped step): per
        device of ``optimizer``'s gradients, a one-element float32 tensor, 1.0 where
        ``unscale_`` found an inf or NaN; empty before ``unscale_`` in this iteration."""
        found = self._per_optimizer.get(id(optimizer), {}).get("found_inf_per_device", {})
        return {d: ops.full((1,), float(f), dtype=float32, device=d) for d, f in found.items()}

    def _get_growth_tracker(self) -> int:
        """How many clean steps in a row since the scale last changed (PyTorch's)."""
        return self._growth_tracker if self._enabled else 0

    # ------------------------------------------------------------ accessors and state
    def get_scale(self) -> float:
        """The current scale factor (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the factor the scale grows by."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """The factor the scale shrinks by after an overflow."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the factor the scale shrinks by after an overflow."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """How many clean steps make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set how many clean steps make the scale grow."""
        self._growth_interval = int(new_interval)

    def is_enabled(self) -> bool:
        """Whether the scaler does anything."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's keys: ``scale``, ``growth_factor``, ``backoff_factor``,
        ``growth_interval``, ``_growth_tracker`` (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self._scale,
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` gave."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
