"""The device x layout grid of the sparse kernels: every device type with an array namespace
gets the same kernels, registering them needs no CuPy, and the CUDA namespace's code paths
(written for CuPy's API) compute what the CPU ones do. Without a GPU, those paths run over
NumPy and SciPy standing in for CuPy and ``cupyx.scipy.sparse``: the namespace uses nothing
that NumPy lacks."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sps
from tensorcore_cpu.device import wrap
from tensorcore_sparse import _xp

import tensorcore as tc
from tensorcore.dispatch import ops

KERNEL_DTYPES = [tc.float32, tc.float64, tc.int64, tc.int32, tc.int8, tc.complex64, tc.bool]


def _kernels(device: str) -> dict[tuple[str, str], Any]:
    """(operator, layout) -> the undecorated function the sparse plugin registered."""
    out = {}
    for name, op in ops().items():
        for (dev, lay), rec in op.registered.items():
            if dev == device and rec.plugin == "sparse":
                out[name, lay] = getattr(rec.fn, "fn", rec.fn)  # unwrap DirectKernel
    return out


def test_every_cpu_kernel_has_the_same_cuda_kernel() -> None:
    cpu, cuda = _kernels("cpu"), _kernels("cuda")
    assert ("mm", "sparse_coo") in cpu and ("to_sparse", "strided") in cpu
    assert set(cuda) == set(cpu), f"only on one device: {sorted(set(cpu) ^ set(cuda))}"
    different = sorted(k for k in cpu if cuda[k] is not cpu[k])
    assert not different, f"kernels that differ between cpu and cuda: {different}"
    assert set(_xp.DEVICE_TYPES) == {"cpu", "cuda"}


def test_registering_needs_no_cupy() -> None:
    # Blocking the cuda plugin stands for tensorcore-cuda not being installed (its probe is
    # the only thing that imports CuPy): the sparse plugin still registers its cuda kernels.
    code = (
        "import sys\n"
        "import tensorcore as tc\n"
        "from tensorcore.dispatch import get_op\n"
        "x = tc.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], (2, 2))\n"
        "print((x @ tc.ones(2, 1)).tolist())\n"
        "print(get_op('mm').record(('cuda', 'sparse_coo')).plugin)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('cupy', 'cupyx')))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("TENSORCORE_")}
    env["TENSORCORE_BACKENDS"] = "cpu,sparse"
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[[2.0], [3.0]]", "sparse", "[]"]


# ------------------------------------------------------------------ the CUDA namespace
@pytest.fixture
def stand_in() -> _xp.CuPyNamespace:
    """The CUDA namespace over NumPy and SciPy."""
    return _xp.CuPyNamespace(np, sps, wrap)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int64, np.int32, np.int8, np.complex64, np.bool_]
)
def test_add_at_matches_numpy(stand_in: _xp.CuPyNamespace, dtype: Any) -> None:
    rng = np.random.default_rng(0)
    idx = (rng.integers(0, 4, 30), rng.integers(0, 3, 30))
    vals = (rng.standard_normal(30) * 10).astype(dtype)
    if dtype is np.complex64:
        vals = vals + 1j * vals[::-1]
    want = np.ones((4, 3), dtype=dtype)
    np.add.at(want, idx, vals)
    got = np.ones((4, 3), dtype=dtype)
    stand_in.add_at(got, idx, vals)
    # Float sums may round differently (the complex route adds the parts into zeros first;
    # a GPU adds in any order); integer and bool sums are exact.
    np.testing.assert_allclose(got, want, rtol=1e-6)
    if dtype is np.int64:  # the uint64 route wraps exactly like int64 arithmetic
        big = np.array([2**62, 2**62, -(2**62)], dtype=np.int64)
        acc = np.zeros(1, dtype=np.int64)
        stand_in.add_at(acc, np.zeros(3, dtype=np.int64), big)
        assert acc.tolist() == [2**62]


def test_repeat_and_segments_match_numpy(stand_in: _xp.CuPyNamespace) -> None:
    cpu = _xp.ns_of_type("cpu")
    counts = np.array([2, 0, 3, 1, 0])
    a = np.arange(5) * 10
    np.testing.assert_array_equal(stand_in.repeat(a, counts), cpu.repeat(a, counts))
    assert stand_in.repeat(a, np.zeros(5, dtype=np.int64)).shape == (0,)
    assert stand_in.repeat(a[:0], counts[:0]).shape == (0,)
    vals = np.arange(12, dtype=np.float64).reshape(6, 2) - 5
    starts = np.array([0, 2, 5])
    seg = np.array([0, 0, 1, 1, 1, 2])
    np.testing.assert_array_equal(
        stand_in.segment_sum(vals, starts), cpu.segment_sum(vals, starts, seg)
    )
    np.testing.assert_array_equal(
        stand_in.segment_shift(vals, starts, seg), cpu.segment_shift(vals, starts, seg)
    )
    flags = np.array([True, False, False, False, True, False])
    assert stand_in.segment_sum(flags, starts).tolist() == [True, True, False]


def _results(dtype: tc.dtype) -> list[Any]:
    """Every kind of sparse result, computed with whatever namespace ``cpu`` has now."""
    idx = tc.tensor([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])
    raw = [3.0, -4.0, 5.0, 1.0, 2.0] if dtype is not tc.bool else [1, 0, 1, 1, 0]
    x = tc.sparse_coo_tensor(idx, tc.tensor(raw).to(dtype), (3, 3))
    xc = x.coalesce()
    out: list[Any] = [x.to_dense(), xc.values(), (x + x).to_dense(), x.sum(0).to_dense()]
    out += [(x * xc).to_dense(), x.sparse_mask(xc.t().coalesce()).to_dense()]
    d = tc.ones(3, 3).to(dtype)
    dense = d.clone()
    dense.add_(x)
    out += [dense, (d + x), (x * d).to_dense()]
    if dtype is not tc.bool:
        out += [x @ d, d @ x, (x @ xc).to_dense(), (xc @ xc).to_dense()]
        hyper = tc.sparse_coo_tensor(idx, tc.tensor(raw).to(dtype), (10**6, 3))
        out += [(hyper @ d).sum(0)]
    if dtype.is_floating_point:
        out += [tc.sparse.softmax(x, 1).to_dense(), tc.sparse.log_softmax(x, 0).to_dense()]
        w = tc.sparse_coo_tensor(idx, tc.tensor(raw).to(dtype), (3, 3), requires_grad=True)
        v = tc.ones(3, 2, dtype=dtype, requires_grad=True)
        (tc.sparse.softmax(w, 1).to_dense().sum() + (w @ v).sum() + (w @ w).sum()).backward()
        assert w.grad is not None and v.grad is not None
        out += [w.grad.to_dense(), v.grad]
    out += _selection_results(x, xc, d, dtype)
    out += _compressed_results(x, d, dtype)
    return [(r.dtype, r.tolist()) for r in out]


def _selection_results(x: tc.Tensor, xc: tc.Tensor, d: tc.Tensor, dtype: tc.dtype) -> list[Any]:
    """Selection, joining and the products of the rows that have entries."""
    pick = tc.tensor([-1, 0, 2])
    out = [x.select(0, 1).to_dense(), x[:, 2].to_dense(), x.narrow_copy(1, 1, 2).to_dense()]
    out += [x.unsqueeze(1).to_dense(), tc.cat([x, xc], 1).to_dense(), x.index_select(0, pick)]
    out[-1] = out[-1].to_dense()
    z = x.clone()
    z.zero_()
    out += [z.to_dense(), tc.stack([x, xc]).to_dense()]
    if dtype is not tc.bool:
        out += [tc.mv(x, d[:, 0]), tc.hspmm(x, d).to_dense(), tc.smm(x, d).to_dense()]
        out += [tc.bmm(tc.stack([x, xc]), tc.stack([d, d]))]
    if dtype.is_floating_point:
        out += [x.norm(), x.norm(1)]
        c = xc.to_sparse_csr()
        out += [tc.sparse.sampled_addmm(c, d, d, beta=0.5).to_dense(), d.sparse_mask(c).to_dense()]
        w = x.detach().requires_grad_()
        (w.select(0, 0).to_dense().sum() + w.narrow_copy(0, 1, 2).to_dense().sum()).backward()
        assert w.grad is not None
        out += [w.grad.to_dense()]
    return out


def _compressed_results(x: tc.Tensor, d: tc.Tensor, dtype: tc.dtype) -> list[Any]:
    """The CSR and CSC kernels' results (their conversions, products and gradients)."""
    c = x.to_sparse_csr()
    out = [c.to_dense(), c.t().to_dense(), c.to_sparse_csc().to_dense(), c.to_sparse().to_dense()]
    out += [(c + c).to_dense(), (c * c).to_dense(), c.to_sparse_csc().to_sparse_csr().to_dense()]
    out += [d.to_sparse_csr().to_dense(), d.to_sparse_csc().to_dense(), (c * d).to_dense()]
    if dtype is not tc.bool:
        out += [c @ d, d @ c, c.t() @ d, (c @ c).to_dense(), c.sum(), (c * 2).to_dense()]
    if dtype.is_floating_point:
        w = c.detach().requires_grad_()
        v = tc.ones(3, 2, dtype=dtype, requires_grad=True)
        (tc.sparse.mm(w, v).sum() + (w @ w).to_dense().sum()).backward()
        assert w.grad is not None and w.grad.layout is tc.sparse_csr and v.grad is not None
        out += [w.grad.to_dense(), v.grad]
    return out


@pytest.fixture
def emulated(stand_in: _xp.CuPyNamespace) -> Iterator[None]:
    """Route the ``cpu`` sparse kernels through the CUDA namespace (over NumPy)."""
    stand_in.device_type = "cpu"
    real = _xp._NAMESPACES["cpu"]
    _xp._NAMESPACES["cpu"] = stand_in
    try:
        yield
    finally:
        _xp._NAMESPACES["cpu"] = real


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=lambda d: d.name)
def test_cuda_code_paths_compute_what_the_cpu_ones_do(dtype: tc.dtype, request: Any) -> None:
    want = _results(dtype)
    request.getfixturevalue("emulated")
    got = _results(dtype)
    assert len(got) == len(want)
    for (gd, gv), (wd, wv) in zip(got, want, strict=True):
        assert gd is wd
        np.testing.assert_allclose(np.array(gv), np.array(wv), rtol=1e-5, atol=1e-6)
