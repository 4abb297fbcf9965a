"""Fractional max pooling (``fractional_max_pool2d``, Graham 2014): windows of a fixed size
whose starts advance by pseudo-random steps of ``floor`` or ``ceil`` of ``input / output``,
drawn from one pair of uniform samples per plane.

The windows' starts follow PyTorch's sequence exactly (computed in the input's dtype, as its
kernel does), so that the same ``_random_samples`` choose the same windows. The pooling is a
``gather`` of every window's elements and a ``max`` over them, so every backend gets it and
the gradient reaches each window's maximum through the declared operators.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as dt
from .._tensor import Tensor
from ..amp.autocast_mode import fp32_function
from ..ops import functions as ops
from ..ops._validate import checked
from ._conv import _batched, _tuple

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]


def _starts(samples: Tensor, size: int, out: int, k: int) -> Tensor:
    """The windows' starts along one dim, ``(N, C, out)``, from one sample per plane."""
    n, c = samples.shape
    last = ops.full((n, c, 1), size - k, dtype=dt.int64, device=samples.device)
    if out == 1:
        return last
    # alpha = (size - k) / (out - 1) and the starts trunc((i + u) alpha) - trunc(u alpha),
    # in the samples' dtype as PyTorch's kernel computes them.
    fdt, dev = samples.dtype, samples.device
    alpha = ops.full((), size - k, dtype=fdt, device=dev) / ops.full(
        (), out - 1, dtype=fdt, device=dev
    )
    i = ops.arange(out - 1, dtype=fdt, device=dev)
    u = samples.unsqueeze(-1)
    seq = ((i + u) * alpha).to(dt.int64) - (u * alpha).to(dt.int64)
    return ops.cat([seq, last], -1)


def _output_size(
    x: Tensor, kernel: tuple[int, ...], output_size: Any, output_ratio: Any
) -> tuple[int, int]:
    if output_size is None and output_ratio is None:
        raise ValueError(
            "fractional_max_pool2d requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        ratio = (output_ratio, output_ratio) if isinstance(output_ratio, float) else output_ratio
        ratio = tuple(ratio)
        if len(ratio) != 2 or not all(0 < r < 1 for r in ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        return int(x.shape[-2] * ratio[0]), int(x.shape[-1] * ratio[1])
    oh, ow = _tuple(output_size, 2, "output_size")
    return oh, ow


@checked(
    "fractional_max_pool2d_with_indices(Tensor input, Any kernel_size, Any output_size=None, "
    "Any output_ratio=None, bool return_indices=False, Tensor? _random_samples=None) -> Any"
)
def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """:func:`fractional_max_pool2d` returning ``(output, indices)`` (each index counts
    within its plane, ``h * W + w``, as :func:`max_unpool2d` takes them)."""
    x, unbatched = _batched(input, 2, "fractional_max_pool2d")
    kh, kw = _tuple(kernel_size, 2, "kernel_size")
    oh, ow = _output_size(x, (kh, kw), output_size, output_ratio)
    n, c, h, w = x.shape
    for what, o, k, size in (("height", oh, kh, h), ("width", ow, kw, w)):
        if o + k - 1 > size:
            raise RuntimeError(
                f"fractional_max_pool2d(): pool {what} {k} too large relative to input "
                f"{what} {size}"
            )
    if not x.is_floating_point():
        raise NotImplementedError(
            f"\"fractional_max_pool2d\" not implemented for '{x.dtype.name.title()}'"
        )
    samples = _random_samples
    if samples is None:
        samples = ops.rand(n, c, 2, dtype=x.dtype, device=x.device)
    else:
        if samples.dtype is not x.dtype:
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
        if samples.ndim != 3 or samples.shape[2] != 2:
            raise RuntimeError(
                f"Expect _random_samples of shape (N, C, 2), but got {list(samples.shape)}"
            )
        if samples.shape[0] < n:
            raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
        if samples.shape[1] != c:
            raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
        samples = samples[:n]
    dev = x.device
    rows = _starts(samples[..., 1], h, oh, kh).unsqueeze(-1) + ops.arange(kh, device=dev)
    cols = _starts(samples[..., 0], w, ow, kw).unsqueeze(-1) + ops.arange(kw, device=dev)
    # Every window's positions, (N, C, oH, oW, kH * kW), row-major within the window so
    # that ties go to the first in PyTorch's scan.
    flat = (rows[:, :, :, None, :, None] * w + cols[:, :, None, :, None, :]).reshape(
        n, c, oh, ow, kh * kw
    )
    values = x.reshape(n, c, h * w).gather(2, flat.reshape(n, c, -1)).reshape(flat.shape)
    out, arg = values.max(-1)
    indices = flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


@checked(
    "fractional_max_pool2d(Tensor input, Any kernel_size, Any output_size=None, "
    "Any output_ratio=None, bool return_indices=False, Tensor? _random_samples=None) -> Any"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)`` input: ``kernel_size``
    windows whose starts advance pseudo-randomly so that the output has ``output_size``
    (or ``output_ratio`` times the input's size, rounded down). ``_random_samples``, a
    ``(N, C, 2)`` tensor of the input's dtype with values in ``[0, 1)`` (width, height),
    fixes the windows; by default it is drawn from the default generator. With
    ``return_indices=True`` returns ``(output, indices)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(16.0).view(1, 1, 4, 4)
    >>> tc.nn.functional.fractional_max_pool2d(
    ...     x, 2, output_size=2, _random_samples=tc.full((1, 1, 2), 0.5))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    out, indices = fractional_max_pool2d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (out, indices) if return_indices else out


@checked(
    "fractional_max_pool3d_with_indices(Tensor input, Any kernel_size, Any output_size=None, "
    "Any output_ratio=None, bool return_indices=False, Tensor? _random_samples=None) -> Any"
)
def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """:func:`fractional_max_pool3d` returning ``(output, indices)`` (each index counts
    within its volume, ``(t * H + h) * W + w``, as :func:`max_unpool3d` takes them)."""
    x, unbatched = _batched(input, 3, "fractional_max_pool3d")
    kernel = _tuple(kernel_size, 3, "kernel_size")
    n, c, depth, h, w = x.shape
    if output_size is None and output_ratio is None:
        raise ValueError(
            "fractional_max_pool3d requires specifying either an output_size or an output_ratio"
        )
    if output_size is None:
        ratio = (output_ratio,) * 3 if isinstance(output_ratio, float) else tuple(output_ratio)
        if len(ratio) != 3 or not all(0 < r < 1 for r in ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        outs = tuple(int(s * r) for s, r in zip((depth, h, w), ratio, strict=True))
    else:
        outs = _tuple(output_size, 3, "output_size")
    for what, o, k, size in zip(
        ("time", "height", "width"), outs, kernel, (depth, h, w), strict=True
    ):
        if o + k - 1 > size:
            raise RuntimeError(
                f"fractional_max_pool3d_out(): pool {what} {k} too large relative to input "
                f"{what} {size}"
            )
    if not x.is_floating_point():
        raise NotImplementedError(
            f"\"fractional_max_pool3d\" not implemented for '{x.dtype.name.title()}'"
        )
    samples = _random_samples
    if samples is None:
        samples = ops.rand(n, c, 3, dtype=x.dtype, device=x.device)
    elif samples.ndim != 3 or samples.shape[2] != 3 or samples.shape[1] != c:
        raise RuntimeError(
            f"Expect _random_samples of shape (N, C, 3), but got {list(samples.shape)}"
        )
    samples = samples[:n]
    dev = x.device
    # Samples 0, 1, 2 place the windows along time, height and width (PyTorch's order).
    starts = [
        _starts(samples[..., i], size, o, k).unsqueeze(-1) + ops.arange(k, device=dev)
        for i, (size, o, k) in enumerate(zip((depth, h, w), outs, kernel, strict=True))
    ]
    t_, r_, c_ = starts
    flat = (
        t_[:, :, :, None, None, :, None, None] * (h * w)
        + r_[:, :, None, :, None, None, :, None] * w
        + c_[:, :, None, None, :, None, None, :]
    ).reshape(n, c, *outs, kernel[0] * kernel[1] * kernel[2])
    values = x.reshape(n, c, -1).gather(2, flat.reshape(n, c, -1)).reshape(flat.shape)
    out, arg = values.max(-1)
    indices = flat.gather(-1, arg.unsqueeze(-1)).squeeze(-1)
    if unbatched:
        out, indices = out.squeeze(0), indices.squeeze(0)
    return out, indices


@checked(
    "fractional_max_pool3d(Tensor input, Any kernel_size, Any output_size=None, "
    "Any output_ratio=None, bool return_indices=False, Tensor? _random_samples=None) -> Any"
)
@fp32_function  # (PyTorch's CPU autocast runs it in float32)
def fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Any:
    """Fractional max pooling of ``(N, C, T, H, W)`` or ``(C, T, H, W)`` input (see
    :func:`fractional_max_pool2d`); ``_random_samples`` is ``(N, C, 3)`` (time, height,
    width).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.arange(64.0).view(1, 1, 4, 4, 4)
    >>> tc.nn.functional.fractional_max_pool3d(
    ...     x, 2, output_size=2, _random_samples=tc.full((1, 1, 3), 0.5)).reshape(-1)
    tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    out, indices = fractional_max_pool3d_with_indices(
        input, kernel_size, output_size, output_ratio, return_indices, _random_samples
    )
    return (out, indices) if return_indices else out
