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


# ------------------------------------------------------------------ helpers.axpy
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [37, 5000, 150_000])  # plain, one scratch piece, three pieces
def test_axpy_updates_in_place_as_numpy_does(dtype: Any, n: int) -> None:
    from tensorcore_xp.helpers import axpy

    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 2)).astype(dtype)
    y = rng.standard_normal((n, 2)).astype(dtype)
    want = y + x * dtype(-0.01)
    before = y.__array_interface__["data"][0]
    axpy(np)(-0.01, x, y)
    assert y.__array_interface__["data"][0] == before
    np.testing.assert_array_equal(y, want)  # the same two roundings, piece by piece


@pytest.mark.parametrize(
    "case", ["zero scale", "strided", "overlapping", "integer", "mixed dtypes", "broadcast"]
)
def test_axpy_falls_back_to_numpy_where_pieces_cannot(case: str) -> None:
    """Each case the scratch pieces cannot take gives NumPy's ``y += x * a``."""
    from tensorcore_xp.helpers import axpy

    a, n = -0.5, 10_000
    base = np.arange(2 * n, dtype=np.float32)
    x, y = base[:n].copy(), base[n:].copy()
    if case == "zero scale":  # inf * 0 must give NaN
        a, x = 0.0, np.full(n, np.inf, np.float32)
    elif case == "strided":
        y = base.copy()[::2]
    elif case == "overlapping":
        y = base.copy()
        x, y = y[1 : n + 1], y[:n]
    elif case == "integer":
        x, y, a = x.astype(np.int64), y.astype(np.int64), 2
    elif case == "mixed dtypes":
        x = x.astype(np.float64)
    elif case == "broadcast":
        x = x[:1]
    want = y.copy()
    with np.errstate(invalid="ignore"):
        want += x * a
        axpy(np)(a, x, y)
    np.testing.assert_array_equal(y, want)


def test_pieces_cover_the_arrays_in_order() -> None:
    from tensorcore_xp.helpers import PIECE, pieces

    x = np.arange(2 * PIECE + 5, dtype=np.float32)
    y = x * 2
    got = list(pieces(np, x, y))
    assert [len(a) for a, _ in got] == [PIECE, PIECE, 5]
    np.testing.assert_array_equal(np.concatenate([b for _, b in got]), y)
    assert all(np.shares_memory(a, x) for a, _ in got)  # views, not copies
    # whole: strided, short, or shapes that differ
    for args in [(x[::2], y[::2]), (x[:10], y[:10]), (x, y[:-1])]:
        (whole,) = pieces(np, *args)
        assert all(p is a for p, a in zip(whole, args, strict=True))


def test_axpy_of_another_module_is_the_plain_expression() -> None:
    from tensorcore_xp.helpers import axpy

    class Module:  # an array module without BLAS: NumPy's arrays under another name
        __name__ = "other"

    y = np.ones(3)
    axpy(Module())(2.0, np.arange(3.0), y)
    np.testing.assert_array_equal(y, [1.0, 3.0, 5.0])


@pytest.mark.parametrize("momentum", [0.0, 0.9])
def test_fused_sgd_in_pieces_matches_the_per_parameter_path(momentum: float) -> None:
    """The fused step (in cache-sized pieces, its update through axpy) against the
    operator-by-operator path, on parameters large (several pieces) and small, contiguous and
    transposed, and an infinite gradient."""
    shapes = [(300, 7), (7,), (5, 4), (300, 500)]

    def run(foreach: Any) -> list[Any]:
        rng2, rng3 = np.random.default_rng(2), np.random.default_rng(3)
        ps = [tc.nn.Parameter(tc.from_numpy(rng2.standard_normal(s).astype(np.float32)))
              for s in shapes]  # fmt: skip
        ps.append(tc.nn.Parameter(tc.ones(6, 3).t()))  # a transposed (non-contiguous) one
        opt = tc.optim.SGD(ps, lr=0.1, momentum=momentum, foreach=foreach)
        for step in range(3):
            for i, p in enumerate(ps):
                g = np.asarray(rng3.standard_normal(p.shape), np.float32)
                if i == 2 and step == 2:
                    g[0, 0] = np.inf
                p.grad = tc.from_numpy(g)
            opt.step()
        return [p.detach().numpy().copy() for p in ps]

    fused, plain = run(None), run(False)
    for a, b in zip(fused, plain, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert np.isinf(fused[2][0, 0]) and np.isinf(plain[2][0, 0])


@pytest.mark.parametrize(
    "opts",
    [{}, {"amsgrad": True, "weight_decay": 0.1}, {"maximize": True, "weight_decay": 0.01}],
    ids=["plain", "amsgrad", "maximize"],
)
@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
def test_fused_adam_in_pieces_matches_the_per_parameter_path(cls: str, opts: Any) -> None:
    """Adam's fused step runs each parameter's formula piece by piece: the same numbers as
    the operator-by-operator path, on a parameter of several pieces and a transposed one."""
    shapes = [(300, 500), (7,), (300, 7)]

    def run(foreach: Any) -> list[Any]:
        rng2, rng3 = np.random.default_rng(2), np.random.default_rng(3)
        ps = [tc.nn.Parameter(tc.from_numpy(rng2.standard_normal(s).astype(np.float32)))
              for s in shapes]  # fmt: skip
        ps.append(tc.nn.Parameter(tc.ones(6, 3).t()))
        opt = getattr(tc.optim, cls)(ps, lr=0.1, foreach=foreach, **opts)
        for _ in range(3):
            for p in ps:
                p.grad = tc.from_numpy(np.asarray(rng3.standard_normal(p.shape), np.float32))
            opt.step()
        return [p.detach().numpy().copy() for p in ps]

    for a, b in zip(run(None), run(False), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "case", ["contiguous", "batched", "transposed input", "float64", "inf bias", "empty inner"]
)
def test_linear_with_a_bias_matches_numpy(case: str) -> None:
    """``linear`` on the CPU (matmul into the output, then the bias) against NumPy."""
    rng = np.random.default_rng(4)
    dtype = np.float64 if case == "float64" else np.float32
    k = 0 if case == "empty inner" else 7
    x = rng.standard_normal((2, 5, k) if case == "batched" else (5, k)).astype(dtype)
    w = rng.standard_normal((3, k)).astype(dtype)
    b = rng.standard_normal(3).astype(dtype)
    if case == "inf bias":
        b[1] = np.inf
    xt = tc.from_numpy(x)
    if case == "transposed input":
        xt = tc.from_numpy(np.ascontiguousarray(x.T)).t()
    got = tc.nn.functional.linear(xt, tc.from_numpy(w), tc.from_numpy(b)).numpy()
    np.testing.assert_allclose(got, x @ w.T + b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum, np.fmax])
@pytest.mark.parametrize(
    "shape, axis",
    [
        ((300, 10), 1),
        ((300, 10), -1),
        ((40, 3, 50), 1),
        ((64, 2), 0),
        ((5, 4), 1),
        ((300, 64), 1),  # (folded to 16, then the slices)
        ((40, 36, 3), 1),  # (folded to 9)
        ((64, 100), 1),  # (halves of 25: the reduce)
        ((16, 16), 1),  # (few rows a slice: the reduce)
        ((64, 32), 1),  # (the same after a fold)
        ((128, 16), 1),  # (enough rows: the slices)
    ],
)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_extreme_is_numpys_reduce(ufunc: Any, shape: Any, axis: int, keepdims: bool) -> None:
    """Over the slices of a short axis (folded in halves first where that reaches one) or
    by NumPy's reduce (a long axis, few rows): the same values, NaN included."""
    from tensorcore_xp.helpers import reduce_extreme

    x = np.random.default_rng(5).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[7] = np.nan
    want = ufunc.reduce(x, axis=axis, keepdims=keepdims)
    out = np.empty_like(want)
    reduce_extreme(np, ufunc, x, axis, out, keepdims)
    np.testing.assert_array_equal(out, want)


def test_reduce_extreme_into_its_own_input_takes_numpys_reduce() -> None:
    from tensorcore_xp.helpers import reduce_extreme

    x = np.random.default_rng(6).standard_normal((300, 4))
    want = x.max(1)
    reduce_extreme(np, np.maximum, x, 1, x[:, 0], False)  # out overlaps x
    np.testing.assert_array_equal(x[:, 0], want)


@pytest.mark.parametrize("log", [True, False])
@pytest.mark.parametrize(
    "shape, dim",
    [((300, 10), 1), ((300, 10), -1), ((20, 6, 40), 1), ((8, 16), 1), ((4, 6, 5), 1)],
)
def test_softmax_and_its_backward_on_short_class_dims_match_numpy(
    log: bool, shape: Any, dim: int
) -> None:
    """The softmax kernels' in-place paths (the maximum over slices of a short dim, the
    backward written in its result) against NumPy's formulas."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    z = x - x.max(dim, keepdims=True)
    lse = np.log(np.exp(z).sum(dim, keepdims=True))
    y = z - lse if log else np.exp(z - lse)
    xt = tc.from_numpy(x).requires_grad_()
    yt = xt.log_softmax(dim) if log else xt.softmax(dim)
    np.testing.assert_allclose(yt.detach().numpy(), y, rtol=1e-5, atol=1e-6)
    (gx,) = tc.autograd.grad(yt, xt, tc.from_numpy(g))
    if log:
        want = g - np.exp(y) * g.sum(dim, keepdims=True)
    else:
        want = y * (g - (g * y).sum(dim, keepdims=True))
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["plain", "into_itself", "subclass", "half", "broadcast"])
def test_a_formula_kernels_one_operand_path_is_the_general_one(case: str) -> None:
    """``formula_kernel``'s path for one small operand of the result's shape and dtype, and
    the calls it leaves to the general path (a result in the operand's own storage, a
    subclass, a 16-bit result computed in float32, an operand to broadcast): the same
    values as the formula on NumPy's arrays."""
    from tensorcore_xp.helpers import formula_kernel

    apply = formula_kernel(np)

    def f(c: Any, dest: Any, x: Any) -> Any:  # x * (x + 0.5), written over dest where given
        r = np.add(x, c(0.5), out=dest)
        return np.multiply(r, x, out=r)

    a = np.random.default_rng(8).standard_normal((4, 6)).astype(np.float32)
    x = tc.from_numpy(a.copy())
    out = tc.empty(4, 6)
    want = a * (a + np.float32(0.5))
    if case == "into_itself":
        out = x
    elif case == "subclass":
        x = tc.nn.Parameter(x)
    elif case == "half":
        out = tc.empty(4, 6, dtype=tc.float16)
        want = want.astype(np.float16)
    elif case == "broadcast":
        x = tc.from_numpy(a[:1].copy())
        want = np.broadcast_to(want[:1], (4, 6))
    with tc.no_grad():
        apply(out, (x,), f)
    np.testing.assert_array_equal(out.numpy(), want)


def test_constant_arrays_are_cached_zero_dimensional_arrays_of_the_dtype() -> None:
    from tensorcore_xp.helpers import constant_arrays

    const = constant_arrays(np)
    for d in (np.dtype(np.float32), np.dtype(np.float64)):
        for v in (0, 0.0, 1, 0.1, -2.5, 1e300):
            c = const(v, d)
            assert c is const(v, d) or not isinstance(c, np.ndarray)
            assert np.asarray(c).dtype == d or not isinstance(c, np.ndarray)
            with np.errstate(over="ignore"):
                assert np.asarray(c, d) == d.type(v)
        assert not np.signbit(const(0, d)) and const(0, d).dtype == d
        assert not const(0, d).flags.writeable


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xlogy_of_one_shape_is_its_broadcasting_path_bit_for_bit(dtype: Any) -> None:
    """``xlogy``'s path for operands of one shape and dtype (in one array, the zeros copied
    in) against its path for operands to broadcast: the same bits, NaN and signed zeros
    included."""
    v = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5, 1e-40]
    a = np.array([[p, q] for p in v for q in v], dtype)
    x, y = tc.from_numpy(a[:, :1].copy()), tc.from_numpy(a[:, 1:].copy())
    same = tc.xlogy(x, y)
    wide = tc.xlogy(x.expand(len(a), 2), y)[:, :1]  # (shapes (n, 2) and (n, 1))
    assert same.numpy().tobytes() == wide.contiguous().numpy().tobytes()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_gradient_with_and_without_weights_matches_numpy(
    reduction: str, weighted: bool
) -> None:
    """``nll_loss_backward``'s unweighted path (no weight array) and its weighted one."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((30, 4)).astype(np.float32)
    t = rng.integers(0, 4, 30)
    w = rng.uniform(0.5, 2.0, 4).astype(np.float32) if weighted else np.ones(4, np.float32)
    xt = tc.from_numpy(x).requires_grad_()
    loss = tc.nn.functional.nll_loss(
        xt, tc.from_numpy(t), tc.from_numpy(w) if weighted else None, reduction=reduction
    )
    g = np.linspace(0.5, 1.5, 30).astype(np.float32) if reduction == "none" else np.float32(0.7)
    (gx,) = tc.autograd.grad(loss, xt, tc.from_numpy(np.asarray(g)))
    want = np.zeros_like(x)
    want[np.arange(30), t] = -g * w[t]
    if reduction == "mean":
        want /= w[t].sum()
    np.testing.assert_allclose(gx.numpy(), want, rtol=1e-6, atol=1e-7)


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


def test_scipy_blas_runs_on_one_thread_beside_numpys_and_is_restored() -> None:
    """Where SciPy's wheel brings its own OpenBLAS beside NumPy's, the kernels' SciPy
    BLAS/LAPACK calls run it on one thread (two pools taking turns spin against each other),
    and its thread count comes back after."""
    pytest.importorskip("scipy.linalg")
    pytest.importorskip("threadpoolctl")
    from tensorcore_xp import helpers

    libs = helpers._other_blas()
    if not libs:
        pytest.skip("NumPy's BLAS is the only one loaded (a shared system BLAS)")
    before = [lib.num_threads for lib in libs]
    with helpers.scipy_blas_single_thread():
        assert [lib.num_threads for lib in libs] == [1] * len(libs)
        a = tc.tensor([[2.0, 0.0], [1.0, 4.0]])
        x = tc.linalg.solve_triangular(a, tc.tensor([[2.0], [9.0]]), upper=False)
    assert x.flatten().tolist() == [1.0, 2.0]
    assert [lib.num_threads for lib in libs] == before
