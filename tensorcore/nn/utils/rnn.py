"""Variable-length sequences for the recurrent layers: ``PackedSequence``,
``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``, ``pack_sequence``, in
PyTorch's format (``data`` holds the time steps one after the other, each with the
sequences still running, longest first; ``batch_sizes`` counts them per step)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from ... import dtypes as dt
from ..._tensor import Tensor
from ...ops import functions as ops
from ...ops.factories import tensor
from ...ops.frontends import named_as

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence(NamedTuple):
    """A batch of sequences of different lengths, packed: what ``RNN``/``LSTM``/``GRU`` take
    and return for variable-length input."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequences with ``data`` moved or cast (``Tensor.to``'s arguments)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    def _with(self, fn: Callable[[Tensor], Tensor]) -> PackedSequence:
        return self._replace(data=fn(self.data))

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data`` on a CUDA device (``Tensor.cuda``'s arguments)."""
        return self._with(lambda t: t.cuda(*args, **kwargs))

    def cpu(self) -> PackedSequence:
        """``data`` on the CPU."""
        return self._with(lambda t: t.cpu())

    def pin_memory(self) -> PackedSequence:
        """``data`` in pinned host memory."""
        return self._with(lambda t: t.pin_memory())

    def double(self) -> PackedSequence:
        """``data`` as float64."""
        return self._with(lambda t: t.double())

    def float(self) -> PackedSequence:
        """``data`` as float32."""
        return self._with(lambda t: t.float())

    def half(self) -> PackedSequence:
        """``data`` as float16."""
        return self._with(lambda t: t.half())

    def long(self) -> PackedSequence:
        """``data`` as int64."""
        return self._with(lambda t: t.long())

    def int(self) -> PackedSequence:
        """``data`` as int32."""
        return self._with(lambda t: t.int())

    def short(self) -> PackedSequence:
        """``data`` as int16."""
        return self._with(lambda t: t.short())

    def char(self) -> PackedSequence:
        """``data`` as int8."""
        return self._with(lambda t: t.char())

    def byte(self) -> PackedSequence:
        """``data`` as uint8."""
        return self._with(lambda t: t.byte())

    @property
    def is_cuda(self) -> bool:
        """Whether ``data`` is on a CUDA device."""
        return bool(self.data.is_cuda)

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned host memory."""
        return bool(self.data.is_pinned())


def _lengths(lengths: Any) -> list[int]:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _counts_above(values: list[int], n: int) -> list[int]:
    """For each ``i < n``, how many of the non-increasing ``values`` exceed ``i``."""
    counts, k = [], len(values)
    for i in range(n):
        while k and values[k - 1] <= i:
            k -= 1
        counts.append(k)
    return counts


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded batch (T, B, *) (or (B, T, *) with ``batch_first``) of sequences with
    the given ``lengths``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.rnn import pack_padded_sequence
    >>> x = tc.tensor([[1, 2, 3], [4, 5, 0]])
    >>> p = pack_padded_sequence(x, [3, 2], batch_first=True)
    >>> p.data.tolist(), p.batch_sizes.tolist()
    ([1, 4, 2, 5, 3], [2, 2, 1])
    """
    lens = _lengths(lengths)
    b = input.shape[0 if batch_first else 1]
    if len(lens) != b:
        raise ValueError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} (batch_size="
            f"{b})"
        )
    if any(n <= 0 for n in lens):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    sorted_indices = None
    order = list(range(b))
    if enforce_sorted:
        if any(lens[i] < lens[i + 1] for i in range(len(lens) - 1)):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
    else:
        order = sorted(range(b), key=lambda i: -lens[i])
        sorted_indices = tensor(order, dtype=dt.int64, device=input.device)
        lens = [lens[i] for i in order]
    steps = lens[0]
    sizes = _counts_above(lens, steps)
    # The packed rows, gathered in one call: step t of the j-th longest sequence, for the
    # (t, j) where that sequence is still running, in that (row-major) order.
    t_len = input.shape[1 if batch_first else 0]
    times = ops.arange(steps).unsqueeze(1)
    seqs = tensor(order, dtype=dt.int64).unsqueeze(0)
    flat_pos = seqs * t_len + times if batch_first else times * b + seqs
    rows = flat_pos.masked_select(times < tensor(lens, dtype=dt.int64).unsqueeze(0))
    flat = input.reshape(-1, *input.shape[2:])
    data = flat.index_select(0, rows.to(input.device))
    named_as(data, "PackPaddedSequenceBackward0")
    unsorted = None
    if sorted_indices is not None:
        inverse = [0] * b
        for pos, i in enumerate(sorted_indices.tolist()):
            inverse[i] = pos
        unsorted = tensor(inverse, dtype=dt.int64, device=input.device)
    return PackedSequence(data, tensor(sizes, dtype=dt.int64), sorted_indices, unsorted)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo :func:`pack_padded_sequence`: the padded batch and the lengths (in the original
    order).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    >>> p = pack_padded_sequence(tc.tensor([[1, 2, 3], [4, 5, 0]]), [3, 2], batch_first=True)
    >>> padded, lengths = pad_packed_sequence(p, batch_first=True)
    >>> padded.tolist(), lengths.tolist()
    ([[1, 2, 3], [4, 5, 0]], [3, 2])
    """
    data, sizes_t = sequence.data, sequence.batch_sizes
    sizes = [int(v) for v in sizes_t.tolist()]
    steps, b = len(sizes), sizes[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps_out = total_length
    else:
        steps_out = steps
    # One gather from the data and a row of the padding value: position (t, k) of the result
    # (k in the original order) reads the step t of the sequence sorted to ``pos[k]``.
    unsorted = sequence.unsorted_indices
    pos = list(range(b)) if unsorted is None else [int(v) for v in unsorted.tolist()]
    starts = [0] * steps_out
    for t in range(1, steps_out):
        starts[t] = starts[t - 1] + (sizes[t - 1] if t - 1 < steps else 0)
    ends = tensor(sizes + [0] * (steps_out - steps), dtype=dt.int64).unsqueeze(1)
    pos_t = tensor(pos, dtype=dt.int64).unsqueeze(0)
    rows = ops.where(
        pos_t < ends, tensor(starts, dtype=dt.int64).unsqueeze(1) + pos_t, data.shape[0]
    )
    fill = ops.full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)
    padded = ops.cat([data, fill], 0).index_select(0, rows.reshape(-1).to(data.device))
    padded = padded.reshape(steps_out, b, *data.shape[1:])
    named_as(padded, "IndexSelectBackward0" if unsorted is not None else "CopySlices")
    lengths = _counts_above(sizes, b)  # (the sorted sequences': as many as steps they run)
    lens = tensor([lengths[p] for p in pos], dtype=dt.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lens


def pad_sequence(
    sequences: Iterable[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of different lengths (L_i, *) into (T, B, *) (or (B, T, *)), padded
    with ``padding_value`` on the right (or the left).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.rnn import pad_sequence
    >>> pad_sequence([tc.tensor([1, 2, 3]), tc.tensor([4])], batch_first=True).tolist()
    [[1, 2, 3], [4, 0, 0]]
    """
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side should be either 'right' or 'left', but got {padding_side}")
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    # Any iterable, as in PyTorch: a generator, or a tensor (its rows are the sequences).
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    out = []
    for s in sequences:
        extra = longest - s.shape[0]
        if extra:
            fill = ops.full((extra, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = ops.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        out.append(s)
    return ops.stack(out, 0 if batch_first else 1)


def pack_sequence(sequences: Iterable[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences (L_i, *)."""
    sequences = tuple(sequences)
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Any, batch_first: bool = False
) -> list[Tensor]:
    """The inverse of :func:`pad_sequence`: the sequences of ``padded_sequences`` (T, B, *)
    (or (B, T, *)) cut to their ``lengths``, as a list.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.rnn import unpad_sequence
    >>> padded = tc.tensor([[1, 2, 3], [4, 0, 0]])
    >>> [t.tolist() for t in unpad_sequence(padded, tc.tensor([3, 1]), batch_first=True)]
    [[1, 2, 3], [4]]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths(lengths), strict=True)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The inverse of :func:`pack_sequence`: the list of sequences of ``packed_sequences``,
    in their original order.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> packed = pack_sequence([tc.tensor([1]), tc.tensor([2, 3])], enforce_sorted=False)
    >>> [t.tolist() for t in unpack_sequence(packed)]
    [[1], [2, 3]]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
