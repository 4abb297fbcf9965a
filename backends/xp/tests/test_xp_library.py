"""tensorcore-xp's public API: ``build``, ``register_kernels`` and the dtype mapping, and the
in-tree devices built on it."""

from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import tensorcore_xp
from tensorcore_xp import dtypes as xd

import tensorcore as tc


class Recorder:
    """A registration object that records ``register.kernel`` calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str, Any, Any]] = []

    def kernel(self, op: str, device_type: str, layout: str, fn: Any, dtypes: Any = None) -> None:
        self.calls.append((op, device_type, layout, fn, dtypes))


def test_build_gives_one_kernel_per_declared_operator() -> None:
    from tensorcore.dispatch import ops

    kernels = tensorcore_xp.build(np)
    assert len(kernels) > 150
    assert all(callable(fn) for fn in kernels.values())
    assert set(kernels) <= set(ops()), set(kernels) - set(ops())


def test_register_kernels_registers_everything_for_the_strided_layout() -> None:
    def my_add(out: Any, a: Any, b: Any, alpha: Any = 1) -> None:
        raise AssertionError("not called")

    reg = Recorder()
    done = tensorcore_xp.register_kernels(
        reg, "mydev", np, extra={"add": my_add}, dtypes=[tc.float32, tc.float64]
    )
    assert [c[0] for c in reg.calls] == list(done)
    assert {(c[1], c[2]) for c in reg.calls} == {("mydev", "strided")}
    assert {c[4] for c in reg.calls} == {frozenset({tc.float32, tc.float64})}
    assert done["add"] is my_add
    assert set(done) == set(tensorcore_xp.build(np))


def test_register_kernels_leaves_dtypes_unrestricted_by_default() -> None:
    reg = Recorder()
    tensorcore_xp.register_kernels(reg, "mydev", np)
    assert {c[4] for c in reg.calls} == {None}


def test_the_cpu_device_runs_the_librarys_kernels() -> None:
    from tensorcore.dispatch import get_op

    fn = get_op("mul").resolve(("cpu", "strided"))
    assert fn.__module__ == "tensorcore_xp.kernels.pointwise", fn.__module__


@pytest.mark.parametrize("d", sorted(xd.NAMES, key=lambda d: d.name), ids=lambda d: d.name)
def test_dtypes_map_both_ways(d: tc.dtype) -> None:
    nd = xd.to_native(d, np)
    assert nd == np.dtype(xd.NAMES[d])
    assert xd.from_native(nd, np) is d


def test_bfloat16_is_mapped_only_when_the_module_or_the_backend_has_one() -> None:
    with pytest.raises(TypeError, match="bfloat16 has no dtype in numpy"):
        xd.to_native(tc.bfloat16, np)
    m = xd.DtypeMap(np, {tc.bfloat16: ml_dtypes.bfloat16})
    assert m.to_native(tc.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert m.from_native(ml_dtypes.bfloat16) is tc.bfloat16
    assert m.dtypes == frozenset(tc.dtypes.all_dtypes)


def test_an_unknown_array_dtype_is_pytorchs_type_error() -> None:
    with pytest.raises(TypeError, match=r"can't convert numpy\.ndarray of type uint16\. The only"):
        xd.from_native(np.uint16, np)
    with pytest.raises(TypeError, match=r"can't convert np\.ndarray of type uint32"):
        tc.as_tensor(np.zeros(2, np.uint32))


def test_the_cuda_device_declares_its_array_module() -> None:
    from tensorcore_cuda.device import CUDADevice

    fake = object()
    assert CUDADevice(fake, "no GPU here").array_module is fake
    assert CUDADevice(None, "no CuPy").array_module is None


@pytest.mark.parametrize("scipy_fft", [True, False])
def test_fft_kernels_with_and_without_scipy(
    monkeypatch: pytest.MonkeyPatch, scipy_fft: bool
) -> None:
    # On NumPy the transforms are scipy.fft's where SciPy imports, numpy.fft's otherwise:
    # the same values and single precision either way; a large batch takes several workers.
    from tensorcore_xp.kernels import spectral

    if scipy_fft:
        module = pytest.importorskip("scipy.fft")
    else:
        monkeypatch.setitem(sys.modules, "scipy.fft", None)  # (import fails)
        module = np.fft
    calls: list[dict[str, Any]] = []
    real = module.rfftn

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "rfftn", spy)
    k = spectral.build(np)
    rng = np.random.default_rng(0)
    for shape in ((3, 10), (64, 1100)):  # (the second above the workers' threshold)
        a = rng.standard_normal(shape).astype(np.float32)
        want = np.fft.fft(a.astype(np.float64), norm="ortho")[:, : shape[1] // 2 + 1]
        out = tc.empty(shape[0], shape[1] // 2 + 1, dtype=tc.complex64)
        k["_fft_r2c"](out, tc.tensor(a), (1,), 1, True)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)
        full = tc.empty(*shape, dtype=tc.complex64)
        k["_fft_c2c"](full, tc.tensor(a.astype(np.complex64)), (0, 1), 0, True)
        np.testing.assert_allclose(full.numpy(), np.fft.fftn(a), rtol=1e-4, atol=1e-3)
        back = tc.empty(*shape, dtype=tc.float32)
        k["_fft_c2r"](back, out, (1,), 1, shape[1])
        np.testing.assert_allclose(back.numpy(), a, rtol=1e-5, atol=1e-5)
    assert [c.get("workers") for c in calls] == [None, tc.get_num_threads() if scipy_fft else None]
