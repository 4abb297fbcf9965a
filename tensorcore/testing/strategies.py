"""Hypothesis strategies for device-generic tests: shapes, broadcasting, dtypes, NumPy arrays
to use as oracles, tensors laid out non-contiguously, and random chains of view operators.

Needs Hypothesis and NumPy (the ``test`` extra). Tensors are made from NumPy arrays with
:func:`tensorcore.tensor`, so the strategies work for every device.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorcore as tc

from ._helpers import dtype_unsupported, flushes_subnormals, numpy_dtype

if TYPE_CHECKING:
    from .._tensor import Tensor

__all__ = [
    "COMMON_DTYPES",
    "ViewStep",
    "apply_view_chain",
    "arrays",
    "broadcastable_shapes",
    "dtypes",
    "elements",
    "shapes",
    "tensors_from_arrays",
    "view_chains",
]

#: The dtypes generic tests draw by default: bool, the usual integers and floats.
COMMON_DTYPES: tuple[tc.dtype, ...] = (tc.bool, tc.int32, tc.int64, tc.float32, tc.float64)

_MAX_DIMS = 6


def shapes(
    min_dims: int = 0, max_dims: int = 4, min_side: int = 1, max_side: int = 5
) -> st.SearchStrategy[tuple[int, ...]]:
    """Tensor shapes (tuples of sizes); 0-d shapes ``()`` are included by default.

    Examples
    --------
    >>> from hypothesis import Phase, find, settings
    >>> quick = settings(phases=[Phase.generate, Phase.shrink])  # (no explain phase)
    >>> from tensorcore.testing.strategies import shapes
    >>> find(shapes(min_dims=2), lambda s: True, settings=quick)
    (1, 1)
    """
    return hnp.array_shapes(
        min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
    )


def broadcastable_shapes(
    num_shapes: int = 2, min_dims: int = 0, max_dims: int = 4, min_side: int = 1, max_side: int = 5
) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    """Tuples of ``num_shapes`` shapes that broadcast together (sizes 1 and missing dims).

    Examples
    --------
    >>> from hypothesis import find
    >>> from tensorcore.testing.strategies import broadcastable_shapes
    >>> find(broadcastable_shapes(), lambda p: len(p[0]) == 2 and len(p[1]) == 1)
    ((1, 1), (1,))
    """
    return hnp.mutually_broadcastable_shapes(
        num_shapes=num_shapes,
        min_dims=min_dims,
        max_dims=max_dims,
        min_side=min_side,
        max_side=max_side,
    ).map(lambda b: tuple(b.input_shapes))


def dtypes(include: tuple[tc.dtype, ...] | None = None) -> st.SearchStrategy[tc.dtype]:
    """tensorcore dtypes, drawn from ``include`` (default :data:`COMMON_DTYPES`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from hypothesis import Phase, find, settings
    >>> quick = settings(phases=[Phase.generate, Phase.shrink])  # (no explain phase)
    >>> from tensorcore.testing.strategies import dtypes
    >>> find(dtypes((tc.float32, tc.int8)), lambda d: True, settings=quick)
    tensorcore.float32
    """
    return st.sampled_from(COMMON_DTYPES if include is None else tuple(include))


def elements(
    dtype: tc.dtype,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    exclude_zero: bool = False,
    device: Any = None,
) -> st.SearchStrategy[Any]:
    """Python scalars for ``dtype``: finite, and small (``[-10, 10]`` unless bounded).

    Integers stay small so that products and powers do not overflow; unsigned integers
    start at 0. Floats exclude NaN and infinity (edge values have explicit tests), and
    subnormal numbers where ``device``'s arithmetic flushes them to zero
    (:func:`~tensorcore.testing.flushes_subnormals`: the device's arithmetic differs there,
    by design, from the oracle's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from hypothesis import Phase, find, settings
    >>> quick = settings(phases=[Phase.generate, Phase.shrink])  # (no explain phase)
    >>> from tensorcore.testing.strategies import elements
    >>> find(elements(tc.int64, min_value=3), lambda v: True, settings=quick)
    3
    """
    # (None: Hypothesis's default, subnormals where the bounds hold any)
    subnormal = (
        False
        if (dtype.is_floating_point or dtype.is_complex)
        and device is not None
        and flushes_subnormals(device, dtype)
        else None
    )
    if dtype is tc.bool:
        strat: st.SearchStrategy[Any] = st.booleans()
    elif dtype.is_complex:
        bound = 10.0 if max_value is None else float(max_value)
        part = st.floats(
            -bound,
            bound,
            allow_nan=False,
            allow_infinity=False,
            width=32,
            allow_subnormal=subnormal,
        )
        strat = st.builds(complex, part, part)
    elif dtype.is_floating_point:
        lo = -10.0 if min_value is None else float(min_value)
        hi = 10.0 if max_value is None else float(max_value)
        width: Literal[16, 32, 64] = (
            64 if dtype is tc.float64 else 32 if dtype is tc.float32 else 16
        )
        strat = st.floats(
            lo, hi, allow_nan=False, allow_infinity=False, width=width, allow_subnormal=subnormal
        )
        if dtype is tc.bfloat16:
            # Values bfloat16 holds exactly, so the oracle sees the same inputs.
            strat = strat.map(lambda v: float(np.asarray(v, numpy_dtype(tc.bfloat16))))
    else:
        lo = (0 if not dtype.is_signed else -10) if min_value is None else math.ceil(min_value)
        hi = 10 if max_value is None else math.floor(max_value)
        strat = st.integers(lo, hi)
    if exclude_zero:
        strat = strat.filter(lambda v: v != 0)
    return strat


def arrays(
    dtype: tc.dtype,
    shape: tuple[int, ...] | st.SearchStrategy[tuple[int, ...]] | None = None,
    *,
    min_value: float | None = None,
    max_value: float | None = None,
    exclude_zero: bool = False,
    device: Any = None,
) -> st.SearchStrategy[Any]:
    """NumPy arrays of the NumPy dtype matching ``dtype``, with values from :func:`elements`
    (no subnormal floats where ``device`` flushes them to zero).

    ``shape`` is a shape, a strategy of shapes, or None for :func:`shapes`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from hypothesis import Phase, find, settings
    >>> quick = settings(phases=[Phase.generate, Phase.shrink])  # (no explain phase)
    >>> from tensorcore.testing.strategies import arrays
    >>> find(arrays(tc.int32, (2, 2)), lambda a: True, settings=quick)
    array([[0, 0],
           [0, 0]], dtype=int32)
    """
    el = elements(
        dtype, min_value=min_value, max_value=max_value, exclude_zero=exclude_zero, device=device
    )
    npd = numpy_dtype(dtype)
    if shape is None:
        shape = shapes()
    if dtype is tc.bfloat16:
        # Hypothesis has no bfloat16 arrays: draw float32 values bfloat16 holds exactly.
        return hnp.arrays(np.float32, shape, elements=el).map(lambda a: a.astype(npd))
    return hnp.arrays(npd, shape, elements=el)


@st.composite
def tensors_from_arrays(draw: Any, array: Any, device: Any, layout: str | None = None) -> Any:
    """A tensor on ``device`` and the NumPy array of its values, laid out in one of four ways.

    ``layout`` (drawn when None) is ``"contiguous"``; ``"permuted"`` (a permutation of a
    contiguous tensor); ``"sliced"`` (every other element of a larger tensor, so strides
    are not contiguous and the storage offset may be non-zero); or ``"expanded"`` (some
    dims of size 1 broadcast with stride 0 -- the values then repeat along those dims,
    and the returned array repeats them too).

    Returns ``(tensor, array)``; compare results against NumPy run on the returned array.
    An array of a dtype the device lacks (bfloat16 on a CuPy without it) is rejected.
    """
    a = np.asarray(array)
    d = getattr(tc, a.dtype.name, None)
    if isinstance(d, tc.dtype) and dtype_unsupported(device, d) is not None:
        reject()
    if layout is None:
        layout = draw(st.sampled_from(("contiguous", "permuted", "sliced", "expanded")))
    a = np.asarray(array)
    n = a.ndim
    if layout == "permuted" and n >= 2:
        perm = draw(st.permutations(range(n)))
        inv = tuple(int(i) for i in np.argsort(perm))
        t = tc.tensor(np.ascontiguousarray(a.transpose(perm)), device=device).permute(inv)
        return t, a
    if layout == "sliced" and n >= 1:
        big_shape = tuple(2 * s + 1 for s in a.shape)
        big = np.zeros(big_shape, dtype=a.dtype)
        index = tuple(slice(1, None, 2) for _ in a.shape)
        big[index] = a
        return tc.tensor(big, device=device)[index], a
    if layout == "expanded" and n >= 1:
        collapse = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        small = a[tuple(slice(0, 1) if c else slice(None) for c in collapse)]
        t = tc.tensor(np.ascontiguousarray(small), device=device).expand(*a.shape)
        return t, np.ascontiguousarray(np.broadcast_to(small, a.shape))
    return tc.tensor(a, device=device), a


@dataclass(frozen=True)
class ViewStep:
    """One view operator with its arguments, applicable to a tensor and to a NumPy array.

    ``name`` is a tensorcore view operator (``transpose``, ``permute``, ``slice``,
    ``select``, ``unsqueeze``, ``squeeze``, ``expand``, ``narrow``, ``diagonal``,
    ``unfold``); ``apply_np`` is NumPy's own view for the same operation, so NumPy's
    strides and offsets are an independent oracle.
    """

    name: str
    args: tuple[Any, ...]

    def apply_tc(self, t: Tensor) -> Tensor:
        """The view of tensor ``t``."""
        a = self.args
        if self.name == "slice":
            dim, start, stop, step = a
            return t[(slice(None),) * dim + (slice(start, stop, step),)]
        return getattr(t, self.name)(*a)

    def apply_np(self, x: Any) -> Any:
        """The same view of NumPy array ``x``."""
        a = self.args
        name = self.name
        if name == "transpose":
            return np.swapaxes(x, a[0], a[1])
        if name == "permute":
            return x.transpose(a[0])
        if name == "slice":
            dim, start, stop, step = a
            return x[(slice(None),) * dim + (slice(start, stop, step),)]
        if name == "select":
            dim, index = a
            return x[(slice(None),) * (dim % x.ndim) + (index, Ellipsis)]
        if name == "unsqueeze":
            return np.expand_dims(x, a[0])
        if name == "squeeze":
            if a[0] is None:
                return np.squeeze(x)
            return np.squeeze(x, a[0]) if x.shape[a[0]] == 1 else x
        if name == "expand":
            return np.broadcast_to(x, a[0])
        if name == "narrow":
            dim, start, length = a
            return x[(slice(None),) * (dim % x.ndim) + (slice(start, start + length),)]
        if name == "diagonal":
            return np.diagonal(x, *a)
        if name == "unfold":
            dim, size, step = a
            w = np.lib.stride_tricks.sliding_window_view(x, size, axis=dim)
            return w[(slice(None),) * (dim % x.ndim) + (slice(None, None, step),)]
        raise ValueError(f"unknown view step {name!r}")


def _step(draw: Any, shape: tuple[int, ...], writable: bool) -> ViewStep:
    n = len(shape)
    names = ["unsqueeze"] if n < _MAX_DIMS else []
    if n >= 1:
        names += ["transpose", "permute", "slice", "narrow", "squeeze"]
        if any(s > 0 for s in shape):
            names += ["select", "unfold"]
        if not writable and n < _MAX_DIMS:
            names.append("expand")
    if n >= 2:
        names.append("diagonal")
    name = draw(st.sampled_from(names))
    dim = st.integers(-n, n - 1) if n else st.just(0)
    if name == "unsqueeze":
        return ViewStep(name, (draw(st.integers(-n - 1, n)),))
    if name == "transpose":
        return ViewStep(name, (draw(dim), draw(dim)))
    if name == "permute":
        return ViewStep(name, (tuple(draw(st.permutations(range(n)))),))
    if name == "slice":
        d = draw(st.integers(0, n - 1))
        size = shape[d]
        bound = st.none() | st.integers(-size - 2, size + 2)
        return ViewStep(name, (d, draw(bound), draw(bound), draw(st.integers(1, 3))))
    if name == "narrow":
        d = draw(dim)
        size = shape[d]
        start = draw(st.integers(0, size))
        return ViewStep(name, (d, start, draw(st.integers(0, size - start))))
    if name == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        choice = st.none() | st.sampled_from(ones) if ones else st.none()
        return ViewStep(name, (draw(choice | dim),))
    if name == "select":
        d = draw(st.sampled_from([i for i, s in enumerate(shape) if s > 0]))
        return ViewStep(name, (d, draw(st.integers(-shape[d], shape[d] - 1))))
    if name == "unfold":
        d = draw(st.sampled_from([i for i, s in enumerate(shape) if s > 0]))
        size = draw(st.integers(1, shape[d]))
        step = draw(st.integers(size, size + 2) if writable else st.integers(1, 3))
        return ViewStep(name, (d, size, step))
    if name == "expand":
        lead = draw(st.integers(0, 1))
        new = [draw(st.integers(1, 3)) for _ in range(lead)]
        new += [draw(st.integers(1, 3)) if s == 1 else s for s in shape]
        return ViewStep(name, (tuple(new),))
    if name == "diagonal":
        d1 = draw(dim)
        d2 = draw(dim.filter(lambda x: x % n != d1 % n))
        return ViewStep(name, (draw(st.integers(-3, 3)), d1, d2))
    raise AssertionError(name)


def _shape_after(step: ViewStep, shape: tuple[int, ...]) -> tuple[int, ...]:
    # NumPy computes the shape: a zero-size dummy array with the right shape suffices.
    return tuple(step.apply_np(np.empty(shape, dtype=np.int8)).shape)


@st.composite
def view_chains(
    draw: Any,
    shape: tuple[int, ...],
    min_steps: int = 1,
    max_steps: int = 4,
    writable: bool = False,
) -> list[ViewStep]:
    """Random sequences of view operators valid for a tensor of ``shape``.

    With ``writable=True`` the chain avoids views whose elements overlap in memory
    (``expand`` and overlapping ``unfold`` windows), so writing through them is well
    defined.

    Examples
    --------
    >>> from hypothesis import Phase, find, settings
    >>> quick = settings(phases=[Phase.generate, Phase.shrink])  # (no explain phase)
    >>> from tensorcore.testing.strategies import view_chains
    >>> chain = find(view_chains((2, 3)), lambda c: True, settings=quick)
    >>> len(chain)
    1
    """
    steps: list[ViewStep] = []
    count = draw(st.integers(min_steps, max_steps))
    for _ in range(count):
        step = _step(draw, shape, writable)
        steps.append(step)
        shape = _shape_after(step, shape)
    return steps


def apply_view_chain(x: Any, chain: list[ViewStep]) -> Any:
    """Apply ``chain`` to a tensor (tensorcore views) or a NumPy array (NumPy views).

    Examples
    --------
    >>> import numpy as np, tensorcore as tc
    >>> from tensorcore.testing.strategies import ViewStep, apply_view_chain
    >>> chain = [ViewStep("transpose", (0, 1)), ViewStep("select", (0, 2))]
    >>> apply_view_chain(tc.tensor([[1, 2, 3], [4, 5, 6]]), chain).stride()
    (3,)
    >>> apply_view_chain(np.array([[1, 2, 3], [4, 5, 6]]), chain).strides
    (24,)
    """
    is_tensor = isinstance(x, tc.Tensor)
    for step in chain:
        x = step.apply_tc(x) if is_tensor else step.apply_np(x)
    return x
