"""CUDA-only behaviour: availability reporting, transfers, DLPack, streams.

Everything dense is covered by the device-generic suite, which runs on ``cuda`` when a GPU
is present; these tests cover what only the CUDA plugin does.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import tensorcore as tc

cuda_ok = "cuda" in tc.backends.devices() and tc.backends.devices()["cuda"]
reason = (
    "CUDA unavailable: " + str(tc.cuda.unavailable_reason())
    if "cuda" in tc.backends.devices()
    else "tensorcore-cuda not installed"
)
needs_gpu = pytest.mark.skipif(not cuda_ok, reason=reason)


def test_plugin_reports_availability() -> None:
    info = {p.name: p for p in tc.backends.list()}
    assert info["cuda"].status == "loaded"
    assert tc.cuda.is_available() == cuda_ok
    if not cuda_ok:
        assert tc.cuda.unavailable_reason()
        with pytest.raises(RuntimeError, match="not available"):
            tc.zeros(2, device="cuda")


def test_info_lists_cuda() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tensorcore"], capture_output=True, text=True, check=True
    ).stdout
    assert "cuda" in out


@needs_gpu
def test_transfers_round_trip() -> None:
    x = tc.arange(6, dtype=tc.float32).reshape(2, 3)
    y = x.to("cuda")
    assert y.device.type == "cuda" and y.cuda() is y
    assert y.cpu().tolist() == x.tolist()
    z = tc.empty(2, 3, device="cuda")
    z.copy_(x)
    assert z.cpu().tolist() == x.tolist()
    assert tc.tensor([1, 2], device="cuda").device.type == "cuda"
    assert y.to("cuda", non_blocking=True).cpu().tolist() == x.tolist()


@needs_gpu
def test_numpy_raises_and_views_share_memory() -> None:
    y = tc.arange(6, dtype=tc.float32, device="cuda").reshape(2, 3)
    with pytest.raises(TypeError, match="can't convert cuda"):
        y.numpy()
    v = y.t()
    v[0, 1] = 100.0
    assert y[1, 0].item() == 100.0
    assert v.data_ptr() == y.data_ptr()


@needs_gpu
def test_dlpack_and_cuda_array_interface() -> None:
    import cupy

    a = cupy.arange(4, dtype=cupy.float32)
    t = tc.from_dlpack(a)
    t[0] = 7
    assert float(a[0]) == 7.0
    b = cupy.from_dlpack(t)
    assert b.data.ptr == a.data.ptr


@needs_gpu
def test_autograd_on_cuda_and_mixed_devices() -> None:
    x = tc.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.cpu().tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + tc.ones(2)


@needs_gpu
def test_streams_and_memory_stats() -> None:
    s = tc.cuda.Stream()
    with tc.cuda.stream(s):
        y = tc.ones(1000, device="cuda") * 2
    s.synchronize()
    tc.cuda.synchronize()
    assert y.sum().item() == 2000.0
    assert tc.cuda.memory_allocated() > 0
    assert tc.cuda.max_memory_allocated() >= tc.cuda.memory_allocated()
    tc.cuda.empty_cache()
