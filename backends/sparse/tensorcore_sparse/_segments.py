"""Sums of consecutive runs of rows on NumPy, as ``np.add.reduceat(vals, starts, axis=0)``
computes them, bit for bit, without its cost on rows of several elements.

``reduceat`` along axis 0 of an (n, d) array calls its inner loop once per run *and per
column*, on a strided column: coalescing the gradient of ``Embedding(100000, 64,
sparse=True)`` for (256, 50) indices (12,800 rows of 64, most runs of one row) took 26 ms
on one core, where the arithmetic is 0.1 ms. Here the runs are summed a row position at a
time across all runs (one vectorized add per position), which is the order ``reduceat``
adds in: its result is ``a0 + S`` with ``S`` the column sum of the run's other rows, which
NumPy's pairwise summation computes in order, ``(a1 + a2) + a3 ...``, below 8 elements.
Runs of more than :data:`SHORT` rows (the pairwise blocks of 8 begin there) keep
``reduceat``, on their rows alone.

Only for the dtypes whose ``reduceat`` adds in their own precision (float32, float64) or
exactly (integers, bool): float16 accumulates in float32, complex in its own pairwise loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["SHORT", "run_sums", "takes"]

#: Rows of the longest run summed position by position: ``reduceat``'s pairwise sum of a
#: run's rows after the first is plain in-order addition below 8 of them.
SHORT = 8

#: (below this many elements the single ``reduceat`` call costs less than the passes)
_MIN_SIZE = 4096
#: (the longest mean run length taken)
_MEAN_RUN = 4


def takes(vals: Any, starts: Any) -> bool:
    """Whether :func:`run_sums` should sum ``vals`` (a NumPy array of runs along axis 0
    starting at ``starts``): rows of more than one element, enough of them, in short runs
    (``reduceat``'s loop per run and column costs little next to long runs' additions: at
    13 rows a run on average, (12800, 64) float32, both take 5 ms), and a dtype summed in
    ``reduceat``'s order."""
    return (
        len(starts) * _MEAN_RUN > vals.shape[0]
        and vals.ndim > 1
        and vals.size >= _MIN_SIZE
        and vals.size > vals.shape[0]
        and (vals.dtype.kind in "iub" or vals.dtype in (np.float32, np.float64))
    )


def run_sums(vals: Any, starts: Any) -> Any:
    """The sum over axis 0 of each run ``vals[starts[k]:starts[k + 1]]`` (``starts`` sorted
    and distinct, the first 0), equal to ``np.add.reduceat(vals, starts, axis=0,
    dtype=vals.dtype)`` bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> vals = np.arange(12, dtype=np.float32).reshape(6, 2)
    >>> run_sums(vals, np.array([0, 1, 4])).tolist()
    [[0.0, 1.0], [12.0, 15.0], [18.0, 20.0]]
    """
    n = vals.shape[0]
    lens = np.diff(starts, append=n)
    out = vals[starts]  # each run's first row (a copy)
    long = lens > SHORT
    if long.any():
        k = np.flatnonzero(long)
        klen = lens[k]
        local = np.zeros(len(k), dtype=np.intp)
        np.cumsum(klen[:-1], out=local[1:])
        rows = np.repeat(starts[k] - local, klen) + np.arange(int(klen.sum()))
        out[k] = np.add.reduceat(vals[rows], local, axis=0, dtype=vals.dtype)
        lens = np.where(long, 1, lens)  # (done: no position below adds to them)
    multi = np.flatnonzero(lens > 1)
    if not len(multi):
        return out
    first = starts[multi]
    rest = vals[first + 1]  # S, from the second row on: -0.0 + a1 is a1, bit for bit
    mlen = lens[multi]
    for r in range(2, int(mlen.max())):
        sel = np.flatnonzero(mlen > r)
        rest[sel] += vals[first[sel] + r]
    out[multi] += rest
    return out
