"""The CPU backend's cache of large host blocks (``tensorcore_cpu/_cache.py``): a dead
storage's block serves the next allocation of its size, never while anything still views it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys

import numpy as np
import pytest
from tensorcore_cpu._cache import MIN_BYTES, cache

import tensorcore as tc

pytestmark = [
    pytest.mark.skipif(cache is None, reason="TENSORCORE_CPU_CACHE_MB=0"),
    pytest.mark.usefixtures("freeze_older_objects"),  # (conftest.py)
]
N = MIN_BYTES // 4  # float32 elements in one cached block


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    gc.collect()
    assert cache is not None
    cache.clear()


def test_a_dead_block_serves_the_next_allocation_of_its_size() -> None:
    x = tc.ones(N)
    y = x + 1
    ptr = y.data_ptr()
    del y
    z = x * 3  # same size
    assert z.data_ptr() == ptr
    assert z.tolist()[:2] == [3.0, 3.0]
    x64 = tc.ones(N // 4, 2, dtype=tc.float64)  # the same bytes in another dtype and shape
    del z
    v = x64 * 5
    assert v.data_ptr() == ptr
    assert v.shape == (N // 4, 2) and np.all(v.numpy() == 5.0)


def test_a_block_still_viewed_is_not_reused() -> None:
    x = tc.ones(N)
    y = x + 1
    held = y.numpy()  # a NumPy view of y's memory outlives y
    sliced = (x + 4)[::2].numpy()  # a strided view of another result
    ptr = y.data_ptr()
    del y
    z = x + 9
    assert z.data_ptr() != ptr
    assert np.all(held == 2.0) and np.all(sliced == 5.0)


def test_a_reused_block_still_viewed_is_not_reused_again() -> None:
    # a block the cache handed out before: the storage's array is a view of it
    x = tc.ones(N)
    for view in (lambda t: t.numpy(), lambda t: t[1:].numpy()):
        y = x + 1
        ptr = y.data_ptr()
        del y
        z = x * 2  # reuses y's block
        assert z.data_ptr() == ptr
        held = view(z)  # the storage's own array, or a slice of it
        del z
        w = x + 5
        assert w.data_ptr() != ptr
        assert np.all(held == 2.0)
        del held, w
        gc.collect()
        assert cache is not None
        cache.clear()


def test_saved_tensors_keep_their_blocks() -> None:
    x = tc.full((N,), 0.5, requires_grad=True)
    y = x.exp()  # saves its result for backward
    for _ in range(3):
        tc.ones(N) * 7  # allocations of the same size in between
    y.sum().backward()
    assert np.allclose(x.grad.numpy(), np.exp(0.5))


def test_the_cache_stays_within_its_limit() -> None:
    assert cache is not None
    xs = [tc.ones(N * k) + 1 for k in range(1, 40)]
    del xs
    assert cache.held <= cache.limit
    assert sum(len(v) * n for n, v in cache.free.items()) == cache.held


def test_the_cache_can_be_turned_off() -> None:
    code = (
        "import tensorcore as tc\n"
        "from tensorcore_cpu._cache import cache\n"
        "x = tc.ones(2**20)\n"
        "print(cache, (x + 1).sum().item())\n"
    )
    env = {**os.environ, "TENSORCORE_CPU_CACHE_MB": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split() == ["None", "2097152.0"]
