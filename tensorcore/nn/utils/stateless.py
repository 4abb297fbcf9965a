"""``torch.nn.utils.stateless``: PyTorch 1.x's home of ``functional_call``, deprecated there in
favour of :func:`tensorcore.func.functional_call`."""

from __future__ import annotations

import warnings
from typing import Any

from ... import func

__all__ = ["functional_call"]


def functional_call(
    module: Any,
    parameters_and_buffers: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """:func:`tensorcore.func.functional_call` under its old name, with PyTorch's
    FutureWarning.

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> fc = tc.nn.Linear(2, 1)
    >>> params = {"weight": tc.ones(1, 2), "bias": tc.zeros(1)}
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     tc.nn.utils.stateless.functional_call(fc, params, (tc.ones(1, 2),))
    tensor([[2.]])
    """
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return func.functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
