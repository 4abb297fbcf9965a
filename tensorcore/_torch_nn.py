"""PyTorch's top-level forms of the ``nn.functional`` layers (``torch.conv2d``,
``torch.batch_norm``, ``torch.dropout``...): the same computations with ``torch``'s
positional signatures, which differ from ``nn.functional``'s for ``instance_norm`` (weight and
bias before the running statistics), ``embedding`` (weight first) and the losses (an
integer ``reduction``: 0 none, 1 mean, 2 sum). ``tensorcore/__init__.py`` loads them on
first use.

Examples
--------
>>> import tensorcore as tc
>>> tc.conv1d(tc.ones(1, 1, 4), tc.ones(1, 1, 2)).shape
tensorcore.Size([1, 1, 3])
>>> tc.kl_div(tc.zeros(2), tc.zeros(2), 2)
tensor(0.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._tensor import Tensor

__all__: list[str] = []

#: ``nn.functional`` functions whose positional signature ``torch.<name>`` shares.
_SAME = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "avg_pool1d",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "adaptive_avg_pool1d",
    "bilinear",
    "celu",
    "selu",
    "threshold",
    "prelu",
    "pixel_shuffle",
    "pixel_unshuffle",
    "channel_shuffle",
    "pairwise_distance",
    "rms_norm",
    "hardshrink",
    "celu_",
    "selu_",
    "threshold_",
]


def _F() -> Any:
    from .nn import functional

    return functional


def _forward(name: str) -> Callable[..., Any]:
    def fn(*args: Any, **kwargs: Any) -> Any:
        return getattr(_F(), name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tensorcore.nn.functional.{name}``, under PyTorch's top-level name."
    fn.__module__ = "tensorcore"
    return fn


for _name in _SAME:
    globals()[_name] = _forward(_name)
    __all__.append(_name)


def _public(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.__module__ = "tensorcore"
    __all__.append(fn.__name__)
    return fn


def _reduction(fn: str, reduction: Any) -> str:
    if reduction.__class__ is not int or reduction not in (0, 1, 2):
        raise TypeError(
            f"{fn}(): argument 'reduction' must be int (0: none, 1: mean, 2: sum), not "
            f"{type(reduction).__name__}"
        )
    return ("none", "mean", "sum")[reduction]


@_public
def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout with probability ``p`` when ``train`` (see ``nn.functional.dropout``)."""
    return _F().dropout(input, p, train)


@_public
def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`dropout`."""
    return _F().dropout(input, p, train, True)


@_public
def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout with probability ``p`` when ``train``."""
    return _F().alpha_dropout(input, p, train)


@_public
def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`alpha_dropout`."""
    return _F().alpha_dropout(input, p, train, True)


@_public
def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels with probability ``p`` when ``train``."""
    return _F().feature_alpha_dropout(input, p, train)


@_public
def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`feature_alpha_dropout`."""
    return _F().feature_alpha_dropout(input, p, train, True)


@_public
def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """Randomised leaky ReLU (see ``nn.functional.rrelu``)."""
    return _F().rrelu(input, lower, upper, training)


@_public
def rrelu_(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False
) -> Tensor:
    """In-place :func:`rrelu`."""
    return _F().rrelu_(input, lower, upper, training)


@_public
def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool = True,
) -> Tensor:
    """Instance normalisation, in ``torch.instance_norm``'s argument order."""
    return _F().instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


@_public
def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-05,
    cudnn_enabled: bool = True,
) -> Tensor:
    """Group normalisation, in ``torch.group_norm``'s argument order (``cudnn_enabled``, a
    CUDA library switch, changes nothing).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.group_norm(tc.arange(8.0).reshape(1, 4, 2), 2, None, None, 1e-5, False).shape
    tensorcore.Size([1, 4, 2])
    """
    return _F().group_norm(input, num_groups, weight, bias, eps)


@_public
def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows ``indices`` of ``weight`` (``torch.embedding``'s order: the weight first;
    ``padding_idx`` -1 is none)."""
    return _F().embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


@_public
def kl_div(input: Tensor, target: Tensor, reduction: int = 1, log_target: bool = False) -> Tensor:
    """KL divergence loss, with an integer ``reduction``."""
    r = _reduction("kl_div", reduction)
    return _F().kl_div(input, target, reduction=r, log_target=log_target)


@_public
def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 1,
) -> Tensor:
    """Binary cross entropy of logits, with an integer ``reduction``."""
    r = _reduction("binary_cross_entropy_with_logits", reduction)
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=r, pos_weight=pos_weight
    )


@_public
def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """Cosine embedding loss, with an integer ``reduction``."""
    r = _reduction("cosine_embedding_loss", reduction)
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=r)


@_public
def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 1
) -> Tensor:
    """Hinge embedding loss, with an integer ``reduction``."""
    r = _reduction("hinge_embedding_loss", reduction)
    return _F().hinge_embedding_loss(input, target, margin, reduction=r)


@_public
def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 1
) -> Tensor:
    """Margin ranking loss, with an integer ``reduction``."""
    r = _reduction("margin_ranking_loss", reduction)
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=r)


@_public
def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 1,
) -> Tensor:
    """Triplet margin loss, with an integer ``reduction``."""
    r = _reduction("triplet_margin_loss", reduction)
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=r)


@_public
def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """Poisson negative log likelihood, with an integer ``reduction``."""
    r = _reduction("poisson_nll_loss", reduction)
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=r)


@_public
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 1,
    zero_infinity: bool = False,
) -> Tensor:
    """Connectionist temporal classification loss, with an integer ``reduction``."""
    r = _reduction("ctc_loss", reduction)
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, r, zero_infinity)


@_public
def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of the adaptive max pooling (``torch.adaptive_max_pool1d``
    returns both)."""
    return _F().adaptive_max_pool1d(input, output_size, True)
