"""The CPU device's allocator builds its small tensors field by field (no ``make_tensor`` or
``Storage()`` call on every operation's path): it must set exactly what they set."""

from __future__ import annotations

import numpy as np
import pytest
from tensorcore_cpu.device import CPUDevice

import tensorcore as tc
from tensorcore._storage import Storage
from tensorcore._tensor import Tensor, contiguous_strides, make_tensor


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 5), (1, 2, 3)])
def test_small_allocation_matches_make_tensor(shape: tuple[int, ...]) -> None:
    dev = tc.device("cpu")
    t = CPUDevice().empty(shape, tc.float64, dev)
    st = t._storage
    assert st is not None
    ref = make_tensor(
        Storage(st.data, st.nbytes, dev, tc.float64),
        shape,
        contiguous_strides(shape),
        0,
        tc.float64,
        dev,
        t._native,
    )
    for slot in Tensor.__slots__:
        if slot == "__weakref__":
            continue
        got, want = getattr(t, slot), getattr(ref, slot)  # an unset slot raises here
        if slot == "_storage":
            for field in Storage.__slots__:
                if field != "__weakref__":
                    assert getattr(got, field) is getattr(want, field) or (
                        getattr(got, field) == getattr(want, field)
                    ), field
        else:
            assert got is want or got == want, slot
    assert t.numel() == 0 or t.fill_(1.5).sum().item() == 1.5 * t.numel()


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)])
def test_the_small_allocation_fast_path_builds_what_the_plain_constructors_build(
    shape: tuple[int, ...],
) -> None:
    # The allocator spells out Storage() and make_tensor for small buffers (they are on every
    # operator's path): slot by slot, what it builds must be what they build, so that a slot
    # added to Tensor or Storage cannot stay unset there.
    def same(a: object, b: object) -> bool:
        return a is b or (not hasattr(a, "shape") and a == b)  # (arrays: the very buffer)

    t = tc.empty(*shape)
    st = t._storage
    assert st is not None
    plain_st = Storage(st.data, st.nbytes, st.device, st.dtype)
    for slot in Storage.__slots__:
        if slot != "__weakref__":
            assert same(getattr(st, slot), getattr(plain_st, slot)), slot
    plain = make_tensor(st, shape, contiguous_strides(shape), 0, t.dtype, t.device, t._native)
    for slot in Tensor.__slots__:
        if slot != "__weakref__":
            assert same(getattr(t, slot), getattr(plain, slot)), slot


def test_set_num_threads_limits_numpys_blas() -> None:
    """``tc.set_num_threads`` reaches the CPU backend, which limits the BLAS that NumPy's
    matmul runs on (PyTorch's intra-op thread count), and back."""
    from threadpoolctl import threadpool_info

    def blas_threads() -> set[int]:
        return {i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}

    np.ones((2, 2)) @ np.ones((2, 2))  # (NumPy's BLAS is loaded)
    before, threads = tc.get_num_threads(), blas_threads()
    try:
        tc.set_num_threads(1)
        assert blas_threads() == {1}
        tc.set_num_threads(2)
        assert blas_threads() == {2} and tc.get_num_threads() == 2
    finally:
        tc.set_num_threads(before)
        if len(threads) == 1:  # (leave the BLAS as it was for the rest of the suite)
            from threadpoolctl import threadpool_limits

            threadpool_limits(threads.pop(), user_api="blas")
