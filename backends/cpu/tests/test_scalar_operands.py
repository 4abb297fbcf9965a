"""Python floats meeting float tensors in the CPU kernels go through a cache of read-only
0-d arrays (``_util.scalar_arrays``): results must be those of NumPy's weak scalars, which
for 32- and 64-bit floats convert the scalar to the compute dtype as PyTorch does (16-bit
floats, where the core converts first: ``tests/test_scalar_conversion.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorcore as tc


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64])
@pytest.mark.parametrize(
    "value", [1.1, -0.0, 0.0, math.nan, math.inf, -3.5e38, 1e6, 1e-300, 1e-166, 3.5e38]
)
def test_float_scalars_give_numpys_weak_scalar_results(dtype: tc.dtype, value: float) -> None:
    x = tc.tensor([1.5, -2.0, 0.0, 3.0], dtype=dtype)
    a = x.numpy()
    with np.errstate(all="ignore"):
        for _ in range(2):  # the second call finds the cached array
            for got, want in [
                (x * value, a * value),
                (value * x, value * a),
                (x + value, a + value),
                (value - x, value - a),
                # (full_like refuses a value the dtype overflows on, as PyTorch does)
                (tc.maximum(x, tc.tensor([value] * 4, dtype=dtype)), np.maximum(a, value)),
            ]:
                np.testing.assert_array_equal(got.numpy(), want)
                assert got.numpy().dtype == want.dtype
                # the sign of zeros too
                np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(want))


def test_many_distinct_scalars() -> None:
    x = tc.ones(3)
    for k in range(1000):
        assert (x * (k + 0.5)).tolist() == [k + 0.5] * 3


def test_activation_backward_refuses_integers() -> None:
    # PyTorch's kernels are floating-only: an integer "gradient" is a mistake upstream.
    g = tc.tensor([1, 2, 3], dtype=tc.int32)
    y = tc.tensor([0, 1, 2], dtype=tc.int32)
    with pytest.raises(NotImplementedError, match="\"tanh_backward\" not implemented for 'Int'"):
        tc.tanh_backward(g, y)
    with pytest.raises(NotImplementedError, match='"sigmoid_backward" not implemented'):
        tc.sigmoid_backward(g, y)
