"""Operators that public PyTorch programs call and tensorcore lacked: ``where(condition)``,
``nonzero(as_tuple=True)``, ``diag``, ``index_add_``, ``addcmul``, ``cdist``, the in-place
view changes (``unsqueeze_``...) and the random state. Each test compares with NumPy (or a
value computed by hand) on every device; the generic tests (samples, gradcheck, fuzz) cover
the new operators' other properties."""

from __future__ import annotations

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close


def test_where_alone_and_nonzero_as_tuple_give_index_tensors(device: str) -> None:
    a = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    x = tc.tensor(a, device=device)
    rows, cols = tc.where(x > 0)
    want = np.nonzero(a > 0)
    assert_close(rows, want[0])
    assert_close(cols, want[1])
    assert rows.dtype == tc.int64 and rows.is_contiguous()
    for got in (x.nonzero(as_tuple=True), tc.nonzero(x, as_tuple=True)):
        assert isinstance(got, tuple) and len(got) == 2
        assert_close(got[0], want[0])
        assert_close(got[1], want[1])
    assert_close(x[tc.where(x > 0)], a[a > 0])
    assert_close(tc.nonzero(x), np.argwhere(a))
    assert_close(tc.argwhere(x), np.argwhere(a))
    # A 0-d tensor counts as 1-D, as in PyTorch.
    (only,) = tc.tensor(5.0, device=device).nonzero(as_tuple=True)
    assert only.tolist() == [0]
    assert tuple(tc.tensor(5.0, device=device).nonzero().shape) == (1, 0)
    # The three-argument form is unchanged; two arguments are refused.
    assert_close(tc.where(x > 0, x, -1.0), np.where(a > 0, a, -1.0))
    with pytest.raises(TypeError, match=r"where\(\) missing 1 required argument: 'other'"):
        tc.where(x > 0, x)
