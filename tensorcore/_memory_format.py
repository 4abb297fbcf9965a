"""The strides a new tensor made "like" another gets: PyTorch's ``preserve_format`` rule.

``empty_like`` and the other ``*_like`` factories keep the memory order of their input, as
PyTorch's ``memory_format=torch.preserve_format`` (their default) does:

- an input that is dense and non-overlapping (contiguous, transposed, permuted: its elements
  fill a block of memory exactly once), or empty, gives its strides as they are, including the
  stride of a size-1 dim;
- any other strided input (a slice with steps, an ``expand``, overlapping ``as_strided``) gives
  dense strides in the order of its own (:func:`infer_dense_strides`): dims sorted by stride
  with TensorIterator's stable insertion sort, a stride-0 dim staying where it is, so a
  broadcast input comes out row-major.

``channels_last`` (4-D, NHWC) and ``channels_last_3d`` (5-D, NDHWC) name a dim order
(``memory_format.order``, innermost first): :func:`format_strides` gives its strides and
:func:`is_contiguous_in` tests a tensor's, with PyTorch's formulas (``MemoryFormat.h``,
``compute_channels_last_contiguous_2d``), size-0 and size-1 dims included;
:func:`suggest_memory_format` reads the format a tensor's strides resemble, which decides
whether ``Tensor.to(memory_format=...)`` returns the tensor itself, and
:func:`layer_format` the format a layer's result takes from its inputs (convolution, pooling,
batch normalisation keep a channels-last input's format, as PyTorch's do), and
:func:`conv1d_result_strides` the same for a 1-D convolution, which PyTorch runs as a 2-D one.

Pure arithmetic on sizes and strides, shared by every strided device.
"""

from __future__ import annotations

from typing import Any

from .layouts import channels_last, channels_last_3d, contiguous_format, memory_format

__all__ = [
    "conv1d_result_strides",
    "format_strides",
    "infer_dense_strides",
    "is_contiguous_in",
    "is_non_overlapping_and_dense",
    "layer_format",
    "preserve_format_strides",
    "suggest_memory_format",
]


def is_non_overlapping_and_dense(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether a tensor's elements fill ``prod(sizes)`` consecutive memory slots, each once
    (dims of size 1 may have any stride; an empty tensor counts as dense, as in PyTorch).

    Examples
    --------
    >>> from tensorcore._memory_format import is_non_overlapping_and_dense
    >>> is_non_overlapping_and_dense((4, 3), (1, 4)), is_non_overlapping_and_dense((4, 3), (6, 2))
    (True, False)
    """
    if 0 in sizes:
        return True
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    order = sorted((d for d in range(len(sizes)) if sizes[d] >= 2), key=lambda d: strides[d])
    expected = 1
    for d in order:
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def infer_dense_strides(
    sizes: tuple[int, ...], strides: tuple[int, ...], *more: tuple[int, ...]
) -> tuple[int, ...]:
    """Dense strides that lay the dims out in the order of ``strides`` (PyTorch's
    ``infer_dense_strides``, the order TensorIterator gives its outputs). With ``more``
    operands' strides (broadcast to ``sizes``), each pair of dims is ordered by the first
    operand that has an opinion on it (neither dim broadcast, strides or sizes that differ),
    as TensorIterator orders its dims.

    Examples
    --------
    >>> from tensorcore._memory_format import infer_dense_strides
    >>> infer_dense_strides((3, 4), (2, 6))  # a sliced transposed matrix
    (1, 3)
    >>> infer_dense_strides((3, 4), (1, 0))  # an expanded column: row-major
    (4, 1)
    >>> infer_dense_strides((3, 4), (0, 1), (1, 3))  # ... unless another operand says
    (1, 3)
    """
    n = len(sizes)
    if n < 2:
        return (1,) * n
    perm = list(range(n - 1, -1, -1))  # innermost first

    operands = (strides, *more)

    def after(d0: int, d1: int) -> int:
        """1 if dim d0 goes after (outside) d1, -1 if before, 0 if undecided."""
        for st in operands:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:  # a broadcast dim: the next operand decides
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if sizes[d0] > sizes[d1]:
                return 1
        return 0  # (undecided: the place of a contiguous layout)

    for i in range(1, n):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = after(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * n
    step = 1
    for d in perm:
        out[d] = step
        if sizes[d] > 1:
            step *= sizes[d]
    return tuple(out)


def preserve_format_strides(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of a new tensor of ``sizes`` made in ``preserve_format`` from one with
    ``strides``: these strides where they are dense, else :func:`infer_dense_strides`.

    Examples
    --------
    >>> from tensorcore._memory_format import preserve_format_strides
    >>> preserve_format_strides((2, 4, 3), (12, 1, 4))  # a permuted tensor
    (12, 1, 4)
    >>> preserve_format_strides((2, 4, 3), (24, 2, 8))  # ... and sliced
    (12, 1, 4)
    """
    if is_non_overlapping_and_dense(sizes, strides):
        return strides
    return infer_dense_strides(sizes, strides)


def result_strides(sizes: tuple[int, ...], operands: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The strides TensorIterator gives the result of an elementwise operation of ``sizes``
    on operands with ``operands`` strides (broadcast to ``sizes``): theirs where they all
    have the same non-overlapping dense ones, else dense ones in the order of
    :func:`infer_dense_strides` over all of them (a transposed operand and a broadcast one
    give a transposed result, whichever comes first).

    Examples
    --------
    >>> from tensorcore._memory_format import result_strides
    >>> result_strides((2, 3), [(1, 2), (1, 2)])  # both column-major
    (1, 2)
    >>> result_strides((2, 3), [(0, 1), (1, 2)])  # expanded row, column-major
    (1, 2)
    >>> result_strides((2, 3), [(3, 1), (1, 2)])  # the first decides
    (3, 1)
    """
    if not operands:
        return infer_dense_strides(sizes, (0,) * len(sizes))  # (no tensor: contiguous)
    first = operands[0]
    if all(s == first for s in operands) and is_non_overlapping_and_dense(sizes, first):
        return first
    return infer_dense_strides(sizes, *operands)


def format_strides(fmt: memory_format, sizes: tuple[int, ...]) -> tuple[int, ...]:
    """The strides of a new tensor of ``sizes`` laid out in the channels-last format ``fmt``;
    a ``RuntimeError`` (PyTorch's) for a tensor of another rank.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._memory_format import format_strides
    >>> format_strides(tc.channels_last, (2, 3, 4, 5))
    (60, 1, 15, 3)
    >>> format_strides(tc.channels_last_3d, (2, 3, 4, 5, 6))
    (360, 1, 90, 18, 3)
    >>> format_strides(tc.channels_last, (2, 3, 4))
    Traceback (most recent call last):
        ...
    RuntimeError: required rank 4 tensor to use channels_last format
    """
    order = fmt.order
    assert order is not None, fmt
    if len(sizes) != len(order):
        raise RuntimeError(f"required rank {len(order)} tensor to use {fmt.name} format")
    out = [0] * len(sizes)
    step = 1
    for d in order:  # (PyTorch multiplies by the sizes as they are, 0 included)
        out[d] = step
        step *= sizes[d]
    return tuple(out)


def is_contiguous_in(fmt: memory_format, sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """Whether ``strides`` lay ``sizes`` out densely in the channels-last format ``fmt``
    (dims of size 1 may have any stride); False for a tensor of another rank.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._memory_format import is_contiguous_in
    >>> is_contiguous_in(tc.channels_last, (2, 3, 4, 5), (60, 1, 15, 3))
    True
    >>> is_contiguous_in(tc.channels_last, (2, 3, 4, 5), (60, 20, 5, 1))
    False
    """
    order = fmt.order
    assert order is not None, fmt
    if len(sizes) != len(order):
        return False
    expected = 1
    for d in order:
        if sizes[d] != 1:
            if strides[d] != expected:
                return False
            expected *= sizes[d]
    return True


def _strides_like(order: tuple[int, ...], sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """PyTorch's ``is_channels_last_strides_2d_s4`` (and ``_3d_s5``): strides that grow along
    ``order``, where the ambiguous cases (a size-1 channel dim, a ``(N, 1, 1, 1)`` tensor)
    count as row-major."""
    if len(sizes) != len(order) or strides[1] == 0:
        return False
    low = 0
    for d in order:
        if sizes[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def suggest_memory_format(sizes: tuple[int, ...], strides: tuple[int, ...]) -> memory_format:
    """The memory format a tensor's strides resemble (PyTorch's ``suggest_memory_format``):
    ``channels_last`` or ``channels_last_3d`` where they are ordered as it, else
    ``contiguous_format``.

    Examples
    --------
    >>> from tensorcore._memory_format import suggest_memory_format
    >>> suggest_memory_format((2, 3, 4, 5), (60, 1, 15, 3))
    tensorcore.channels_last
    >>> suggest_memory_format((4, 1, 3, 3), (9, 9, 3, 1))
    tensorcore.contiguous_format
    """
    if len(sizes) == 4 and _strides_like(channels_last.order or (), sizes, strides):
        return channels_last
    if len(sizes) == 5 and _strides_like(channels_last_3d.order or (), sizes, strides):
        return channels_last_3d
    return contiguous_format


def layer_format(*tensors: Any) -> memory_format | None:
    """The channels-last format that the first of ``tensors`` (None skipped) to suggest one
    suggests, or None: the format of the result of a convolution (of its input or weight),
    a pooling or a batch normalisation (of its input), as PyTorch lays those out (its
    ``suggest_memory_format`` of the arguments).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore._memory_format import layer_format
    >>> x = tc.zeros(2, 3, 4, 5)
    >>> layer_format(x, x.contiguous(memory_format=tc.channels_last))
    tensorcore.channels_last
    >>> layer_format(x, None) is None
    True
    """
    for t in tensors:
        if t is not None:
            n = len(t._shape)
            if n == 4 or n == 5:
                fmt = suggest_memory_format(t._shape, t._stride)
                if fmt is not contiguous_format:
                    return fmt
    return None


def _unsqueeze2(sizes: tuple[int, ...], strides: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """A 3-D tensor's sizes and strides viewed as 4-D with a size-1 dim 2 (``unsqueeze(2)``)."""
    return (sizes[0], sizes[1], 1, sizes[2]), (
        strides[0],
        strides[1],
        sizes[2] * strides[2],
        strides[2],
    )


def conv1d_result_strides(
    x_sizes: tuple[int, ...],
    x_strides: tuple[int, ...],
    w_sizes: tuple[int, ...],
    w_strides: tuple[int, ...],
    out_sizes: tuple[int, ...],
) -> tuple[int, ...] | None:
    """The strides of the result of a 1-D convolution (``out_sizes``, ``(N, C, L)``) of an
    input and a weight with these sizes and strides, or None for row-major ones.

    PyTorch's CPU convolution runs a 1-D one as a 2-D one on ``input.contiguous()`` and the
    weight with a size-1 dim 2 inserted, so the result comes out channels-last ("NLC":
    strides ``(C * L, 1, C)``) where either 4-D view suggests ``channels_last``: an input
    that is contiguous but whose size-1 channel dim has a stride of 1 (one made by
    ``transpose(1, 2)`` of an ``(N, L, 1)`` tensor, a common way into a ``Conv1d``), or such
    a weight.

    Examples
    --------
    >>> from tensorcore._memory_format import conv1d_result_strides
    >>> conv1d_result_strides((2, 1, 5), (5, 1, 1), (3, 1, 2), (2, 2, 1), (2, 3, 4))
    (12, 1, 3)
    >>> conv1d_result_strides((2, 1, 5), (5, 5, 1), (3, 1, 2), (2, 2, 1), (2, 3, 4)) is None
    True
    """
    if len(x_sizes) != 3 or len(w_sizes) != 3:
        return None
    expected = 1
    for size, stride in zip(x_sizes[::-1], x_strides[::-1], strict=True):
        if size != 1:
            if stride != expected:
                # (not contiguous: ``contiguous()`` makes it row-major, which never suggests it)
                return None
            expected *= size
    if not any(
        suggest_memory_format(*_unsqueeze2(sizes, strides)) is channels_last
        for sizes, strides in ((x_sizes, x_strides), (w_sizes, w_strides))
    ):
        return None
    c, length = out_sizes[1], out_sizes[2]
    return (c * length, 1, c)
