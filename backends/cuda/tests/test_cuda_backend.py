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


def test_cuda_offers_pinned_memory_and_says_why_it_cannot_here() -> None:
    from tensorcore.plugins import manager

    assert manager.device_interfaces()["cuda"].can_pin_memory()
    if not cuda_ok:
        with pytest.raises(RuntimeError, match="Cannot access accelerator device") as info:
            tc.ones(2).pin_memory()
        assert "cuda: " in str(info.value)  # names the backend and why it is unavailable
        assert not tc.ones(2).is_pinned()


@needs_gpu
def test_pin_memory_allocates_page_locked_host_memory() -> None:
    import cupy

    x = tc.arange(12.0).reshape(3, 4).t()  # a dense, permuted tensor keeps its strides
    assert not x.is_pinned()
    p = x.pin_memory()
    assert p.device.type == "cpu" and p.is_pinned() and p[1:].is_pinned()
    assert p.stride() == x.stride() and p.tolist() == x.tolist()
    attrs = cupy.cuda.runtime.pointerGetAttributes(p.data_ptr())
    assert attrs.type == cupy.cuda.runtime.memoryTypeHost
    assert p.pin_memory() is p  # already pinned
    assert tc.ones(0).pin_memory().is_pinned()
    y = p.to("cuda", non_blocking=True)
    tc.cuda.synchronize()
    assert y.cpu().tolist() == x.tolist()
