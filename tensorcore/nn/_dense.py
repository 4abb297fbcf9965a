"""``linear`` and ``dropout``, the two functions other private modules of ``tensorcore.nn``
(attention) build on; ``tensorcore.nn.functional`` exports them."""

from __future__ import annotations

from .._tensor import Tensor
from ..layouts import strided
from ..ops import functions as ops
from ..ops._validate import checked

__all__ = ["dropout", "linear"]


#: PyTorch's node of ``linear`` by input rank and bias: addmm or mm for a matrix, a view
#: of one otherwise.
_LINEAR_NODE = {
    (True, True): "AddmmBackward0",
    (True, False): "MmBackward0",
    (False, True): "ViewBackward0",
}


@checked("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> F = tc.nn.functional
    >>> F.linear(tc.ones(2, 3), tc.ones(4, 3), tc.zeros(4)).shape
    tensorcore.Size([2, 4])
    """
    if (
        input._layout is strided
        and weight._layout is strided
        and (bias is None or (bias._layout is strided and bias.ndim == 1))
        and input.ndim >= 1
    ):
        # One operator forward and one backward for dense operands; other layouts (sparse)
        # compose matmul and add, which their backends provide.
        out = ops.linear(input, weight, bias)
        if out._grad_fn is not None:
            key = (input.ndim == 2, bias is not None)
            name = _LINEAR_NODE.get(key) or (
                "SqueezeBackward4" if input.ndim == 1 else "UnsafeViewBackward0"
            )
            out._grad_fn.rename(name)
        return out
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


@checked("dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor")
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (the
    identity when not ``training``), drawing from the default generator.

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> y = tc.nn.functional.dropout(tc.ones(1000), 0.25)
    >>> sorted({round(v, 4) for v in y.tolist()})
    [0.0, 1.3333]
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    # PyTorch's mask: bernoulli_(1 - p), divided by 1 - p (the same draws for a seed).
    noise = ops.empty_like(input).bernoulli_(1.0 - p)
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise
