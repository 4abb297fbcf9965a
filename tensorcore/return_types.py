"""Named tuples returned by operators with several outputs (as ``torch.return_types``)."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["frexp", "max", "max_pool2d_with_indices", "min", "sort", "topk"]


class max(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.max` along a dim."""

    values: Any
    indices: Any


class min(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.min` along a dim."""

    values: Any
    indices: Any


class sort(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.sort`."""

    values: Any
    indices: Any


class topk(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.topk`."""

    values: Any
    indices: Any


class max_pool2d_with_indices(NamedTuple):
    """``values`` and ``indices`` of :func:`tensorcore.max_pool2d_with_indices`."""

    values: Any
    indices: Any


class frexp(NamedTuple):
    """``mantissa`` and (int32) ``exponent`` of :func:`tensorcore.frexp`."""

    mantissa: Any
    exponent: Any
