"""PyTorch API that real programs use, added together: ``tc.gradient``, ``renorm``, ``put``,
shared memory for Hogwild training (``share_memory_``, ``is_shared``, ``Module.share_memory``),
the ``tc.mps`` namespace and the legacy ``Tensor.storage()``. Values against NumPy (or by
hand), on every device; the generic tests (samples, gradcheck, fuzz) cover the operators'
other properties."""

from __future__ import annotations

import multiprocessing as mp
import pickle
import warnings
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import _typed_storage
from tensorcore.testing import assert_close

F64 = tc.float64


# ------------------------------------------------------------------ gradient
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(device: str, edge_order: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 5, 3))
    x = tc.tensor(a, device=device)
    for got, want in zip(tc.gradient(x, edge_order=edge_order),
                         np.gradient(a, edge_order=edge_order), strict=True):  # fmt: skip
        assert_close(got, want)
    (got,) = tc.gradient(x, spacing=0.5, dim=1, edge_order=edge_order)
    assert_close(got, np.gradient(a, 0.5, axis=1, edge_order=edge_order))
    got2 = tc.gradient(x, spacing=[2.0, 3.0], dim=[-1, 0], edge_order=edge_order)
    want2 = np.gradient(a, 2.0, 3.0, axis=(2, 0), edge_order=edge_order)
    for g, w in zip(got2, want2, strict=True):
        assert_close(g, w)
    coords = [np.cumsum(rng.uniform(0.2, 1.5, size=n)) for n in a.shape]
    got3 = tc.gradient(
        x, spacing=[tc.tensor(c, device=device) for c in coords], edge_order=edge_order
    )
    for g, w in zip(got3, np.gradient(a, *coords, edge_order=edge_order), strict=True):
        assert_close(g, w)
    # A 0-d tensor is a number; integer input gives the default float dtype.
    (g,) = tc.gradient(tc.tensor([1, 2, 4], device=device), spacing=tc.tensor(2.0))
    assert g.dtype == tc.float32 and g.tolist() == [0.5, 0.75, 1.0]
    assert tc.gradient(tc.tensor(3.0, device=device)) == ()


def test_gradient_is_differentiable_and_refuses_as_pytorch(device: str) -> None:
    x = tc.randn(4, 3, dtype=F64, device=device, requires_grad=True)
    c = tc.tensor([0.0, 0.5, 2.0, 2.5], dtype=F64, device=device, requires_grad=True)
    d = tc.tensor([0.0, 1.0, 1.5], dtype=F64, device=device)
    assert tc.autograd.gradcheck(
        lambda x, c: tc.stack(tc.gradient(x, spacing=[c, d], edge_order=2)), (x, c)
    )
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        tc.gradient(x, spacing=[c, 1.5])
    with pytest.raises(RuntimeError, match="only supports edge_order=1 and edge_order=2"):
        tc.gradient(x, edge_order=3)
    with pytest.raises(RuntimeError, match="each dimension size to be at least edge_order"):
        tc.gradient(tc.ones(2, 3, device=device), edge_order=2)
    with pytest.raises(RuntimeError, match=r"list of length equal to 'self.dim\(\) = 2'"):
        tc.gradient(x, spacing=[1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="spacing argument of length 2 and a dim argument"):
        tc.gradient(x, spacing=[1.0, 2.0], dim=1)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        tc.gradient(x, dim=[0, -2])
    with pytest.raises(RuntimeError, match="to have one dimension, but got an element with 2"):
        tc.gradient(x, spacing=[tc.ones(4, 1), tc.ones(3)])
    with pytest.raises(IndexError, match="Dimension out of range"):
        tc.gradient(x, dim=2)


# ------------------------------------------------------------------ renorm
def _renorm_ref(a: Any, p: float, dim: int, maxnorm: float) -> Any:
    moved = np.moveaxis(a, dim, 0)
    flat = moved.reshape(moved.shape[0], -1)
    norms = np.linalg.norm(flat, ord=p, axis=1)
    scale = np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)
    return np.moveaxis(moved * scale.reshape((-1,) + (1,) * (a.ndim - 1)), 0, dim)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, float("inf")])
def test_renorm_matches_numpy_and_is_differentiable(device: str, p: float) -> None:
    a = np.random.default_rng(1).normal(size=(3, 4, 2))
    x = tc.tensor(a, device=device)
    for dim in (0, 1, -1):
        assert_close(x.renorm(p, dim, 1.0), _renorm_ref(a, p, dim % 3, 1.0))
        assert_close(tc.renorm(x, p, dim, 1.0), _renorm_ref(a, p, dim % 3, 1.0))
    y = x.clone()
    assert y.renorm_(p, 1, 0.5) is y
    assert_close(y, _renorm_ref(a, p, 1, 0.5))
    if p != float("inf"):  # (the max norm's gradient is not smooth at ties)
        w = tc.tensor(a, device=device, requires_grad=True)
        assert tc.autograd.gradcheck(lambda w: w.renorm(p, 0, 1.0), (w,))


def test_renorm_refuses_as_pytorch(device: str) -> None:
    x = tc.ones(2, 3, device=device)
    with pytest.raises(RuntimeError, match="non-positive-norm not supported"):
        x.renorm(0, 0, 1)
    with pytest.raises(RuntimeError, match="expected maxnorm to be >= 0 but got -1"):
        x.renorm(2, 0, -1)
    with pytest.raises(RuntimeError, match="input needs at least 2 dimensions, got 1"):
        tc.ones(3, device=device).renorm(2, 0, 1)
    with pytest.raises(RuntimeError, match="floating point or complex"):
        tc.ones(2, 3, dtype=tc.int64, device=device).renorm(2, 0, 1)


# ------------------------------------------------------------------ put
def test_put_writes_and_accumulates_at_flat_indices(device: str) -> None:
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device)
    idx = tc.tensor([[1, -1], [1, 0]], device=device)
    src = tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, device=device)
    want = a.copy().reshape(-1)
    np.add.at(want, [1, -1, 1, 0], [1.0, 2.0, 3.0, 4.0])
    assert_close(x.put(idx, src, accumulate=True), want.reshape(2, 3))
    assert_close(tc.put(x, tc.tensor([4, 0], device=device), src[0]), [[2.0, 1, 2], [3, 1, 5]])
    y = x.clone()
    assert y.put_(tc.tensor([5], device=device), src[1, :1]) is y
    assert y.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 3.0]]
    assert x.tolist() == a.tolist()
    z = tc.zeros((), device=device)
    z.put_(tc.tensor([0], device=device), tc.tensor(3.0, device=device))
    assert z.item() == 3.0
    # gradients: self's written positions get none, source's elements get theirs
    w = tc.tensor(a, device=device, requires_grad=True)
    s = tc.ones(2, dtype=F64, device=device, requires_grad=True)
    weights = tc.arange(6.0, device=device).view(2, 3)
    (w.put(tc.tensor([1, 4], device=device), s) * weights).sum().backward()
    assert w.grad is not None and s.grad is not None
    assert w.grad.tolist() == [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0]] and s.grad.tolist() == [1.0, 4.0]


def test_put_refuses_as_pytorch(device: str) -> None:
    x = tc.zeros(2, 3, device=device)
    one = tc.ones(1, device=device)
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        x.put(tc.tensor([1.0], device=device), one)
    with pytest.raises(IndexError, match=r"source.numel\(\) = 1, index.numel\(\) = 2"):
        x.put(tc.tensor([1, 2], device=device), one)
    with pytest.raises(RuntimeError, match=r"self\.dtype = Float and source\.dtype = Double"):
        x.put(tc.tensor([1], device=device), one.double())
    for bad in (6, -7):
        with pytest.raises(IndexError, match=f"tried to access index {bad} on a tensor of 6"):
            x.put_(tc.tensor([0, bad], device=device), tc.ones(2, device=device))
    assert x.sum().item() == 0  # nothing written


def test_take_reads_flat_indices(device: str) -> None:
    # NCF-style evaluation: torch.take(item, topk_indices)
    a = np.arange(6.0).reshape(2, 3)
    x = tc.tensor(a, device=device, requires_grad=True)
    idx = [[1, -1], [5, 1]]
    got = tc.take(x, tc.tensor(idx, device=device))
    assert type(got.grad_fn).__name__ == "TakeBackward0"
    assert_close(got, np.take(a, idx))
    assert_close(x.t().take(tc.tensor([1, 4], device=device)), np.take(a.T, [1, 4]))
    got.sum().backward()
    want = np.zeros(6)
    np.add.at(want, np.array(idx).reshape(-1), 1.0)
    assert_close(x.grad, want.reshape(2, 3))
    assert tc.take(tc.tensor(5.0, device=device), tc.tensor([0, -1], device=device)).tolist() == [
        5.0,
        5.0,
    ]
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        tc.take(x, tc.tensor([1.0], device=device))
    for bad in (6, -7):
        with pytest.raises(IndexError, match=f"tried to access index {bad} on a tensor of 6"):
            tc.take(x, tc.tensor([0, bad], device=device))


# ------------------------------------------------------------------ shared memory
def _hogwild_worker(model: Any, x: Any, y: Any, steps: int, done: Any) -> None:
    opt = tc.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(steps):
        opt.zero_grad()
        tc.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    done.put([p.is_shared() for p in model.parameters()])


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_processes_train_one_shared_model(method: str) -> None:
    """PyTorch's Hogwild example in small: processes started with the model as an argument
    update the parameters the parent sees."""
    tc.manual_seed(0)
    model = tc.nn.Linear(3, 1)
    assert not model.weight.is_shared()
    x = tc.randn(16, 3)
    y = x @ tc.tensor([[1.0], [-2.0], [0.5]]) + 0.25
    before = tc.nn.functional.mse_loss(model(x), y).item()
    assert model.share_memory() is model and model.weight.is_shared() and model.bias.is_shared()
    ctx = mp.get_context(method)
    done = ctx.Queue()
    procs = [ctx.Process(target=_hogwild_worker, args=(model, x, y, 40, done)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    assert done.get(timeout=10) == [True, True] and done.get(timeout=10) == [True, True]
    assert tc.nn.functional.mse_loss(model(x), y).item() < before / 10


def _add_in_child(t: Any, done: Any) -> None:
    t.add_(1)
    done.put(t.is_shared())


def _fail_in_child(i: int, what: str) -> None:
    if i == 1:
        raise ValueError(what)


def _fail_or_wait(i: int) -> None:
    if i == 1:
        raise ValueError("process 1 gives up")
    import time

    time.sleep(300)


def test_spawn_stops_the_others_when_one_fails() -> None:
    """As PyTorch's: ``join`` returns at the first failure, not after every process ends;
    the others are terminated and the raising one is reported."""
    import time

    import tensorcore.multiprocessing as tmp

    start = time.monotonic()
    with pytest.raises(tmp.ProcessRaisedException, match="process 1 gives up") as info:
        tmp.spawn(_fail_or_wait, nprocs=2)
    assert info.value.error_index == 1 and time.monotonic() - start < 60


def test_tensorcore_multiprocessing_shares_what_it_sends() -> None:
    """As torch.multiprocessing: a CPU tensor sent to another process (here a spawned
    process's argument) moves into shared memory, so the child's writes reach the parent."""
    import tensorcore.multiprocessing as tmp

    ctx = tmp.get_context("spawn")
    x = tc.zeros(3)
    done = ctx.Queue()
    p = ctx.Process(target=_add_in_child, args=(x, done))
    p.start()
    p.join(timeout=120)
    assert p.exitcode == 0 and done.get(timeout=10) is True
    assert x.is_shared() and x.tolist() == [1.0, 1.0, 1.0]
    assert tmp.Queue is not None and "spawn" in tmp.__all__ and "Process" in tmp.__all__
    tmp.spawn(_fail_in_child, args=("fine",), nprocs=1)
    with pytest.raises(tmp.ProcessRaisedException, match="ValueError: boom") as info:
        tmp.spawn(_fail_in_child, args=("boom",), nprocs=2)
    assert info.value.error_index == 1
    context = tmp.spawn(_fail_in_child, args=("x",), nprocs=1, join=False)
    assert context is not None and len(context.pids()) == 1
    while not context.join():
        pass
    with pytest.raises(AssertionError, match="unknown sharing strategy"):
        tmp.set_sharing_strategy("file_system")


def test_share_memory_keeps_values_views_and_pickling() -> None:
    x = tc.arange(6.0).view(2, 3)
    row = x[1]
    _ = row + 1  # a view whose native array was computed before the move
    assert x.share_memory_() is x and x.is_shared() and row.is_shared()
    assert x.share_memory_() is x  # a second call is a no-op
    row.add_(10)
    assert x.tolist() == [[0.0, 1.0, 2.0], [13.0, 14.0, 15.0]]
    # plain pickle (and deepcopy) copy the values into private memory
    back = pickle.loads(pickle.dumps(x))
    assert back.tolist() == x.tolist() and not back.is_shared()
    empty = tc.zeros(0).share_memory_()
    assert empty.is_shared() and empty.numel() == 0
    assert not tc.zeros(2).is_shared()


def test_share_memory_where_the_backend_cannot_share() -> None:
    with pytest.raises(RuntimeError, match="'meta' backend cannot share memory"):
        tc.zeros(2, device="meta").share_memory_()
    assert not tc.zeros(2, device="meta").is_shared()


# ------------------------------------------------------------------ mps, storage()
def test_mps_namespace_behaves_as_pytorchs_build_without_mps() -> None:
    assert tc.mps.is_available() is False and tc.mps.device_count() == 0
    assert tc.mps.manual_seed(0) is None
    assert tc.backends.mps.is_available() is False
    for fn, what in [
        (tc.mps.synchronize, "deviceSynchronize"),
        (tc.mps.empty_cache, "emptyCache"),
        (tc.mps.seed, "getDefaultGenerator"),
        (tc.mps.get_rng_state, "getDefaultGenerator"),
        (tc.mps.current_allocated_memory, "getCurrentAllocatedMemory"),
        (tc.mps.driver_allocated_memory, "getDriverAllocatedMemory"),
        (tc.mps.recommended_max_memory, "getRecommendedMaxMemory"),
    ]:
        with pytest.raises(RuntimeError, match=f"Cannot execute {what}\\(\\) without MPS"):
            fn()
    with pytest.raises(TypeError, match="must be `float`"):
        tc.mps.set_per_process_memory_fraction(1)
    assert "mps" in tc.__all__


def test_storage_is_a_typed_view_of_the_whole_storage(
    device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_typed_storage, "_WARNED", [False])
    x = tc.arange(4.0, device=device)[1:]
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = x.storage()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.storage()  # warns once per process, as PyTorch
    assert s.dtype == tc.float32 and s.device == x.device
    assert s.size() == len(s) == 4 and s.nbytes() == 16 and s.element_size() == 4
    assert s.untyped() is x.untyped_storage() and s.data_ptr() == x.untyped_storage().data_ptr()
    assert s.tolist() == [0.0, 1.0, 2.0, 3.0] and s[1] == 1.0 and s[-1] == 3.0
    s[1] = 7.0
    assert x.tolist() == [7.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="slices are only supported"):
        s[1:2]
    with pytest.raises(IndexError, match="out of range"):
        s[4]
    assert "TypedStorage(dtype=tensorcore.float32" in repr(s) and not s.is_shared()


def test_compiler_namespace_answers_as_eager_pytorch() -> None:
    """``torch.compiler``'s queries and decorators, as code guarded by them calls them."""
    c = tc.compiler
    assert not c.is_compiling() and not c.is_dynamo_compiling() and not c.is_exporting()

    def f(x: Any) -> Any:
        return x * 2

    assert c.disable(f) is f and c.disable(recursive=False)(f) is f
    assert c.allow_in_graph(f) is f and c.assume_constant_result(f) is f
    assert c.substitute_in_graph(len)(f) is f
    net = tc.nn.Linear(2, 2)
    assert c.compile(net)._orig_mod is net and c.list_backends() == []
    assert c.reset() is None and c.cudagraph_mark_step_begin() is None

    @c.set_stance("force_eager")
    def g(x: Any) -> Any:
        return x + 1

    with c.set_stance("eager_on_recompile"):
        assert g(tc.tensor(1)).item() == 2
    with pytest.raises(RuntimeError, match="stance"):
        c.set_stance("warp")


_MAKE_DTYPES = [tc.bool, tc.uint8, tc.int16, tc.int64, tc.float16, tc.float64, tc.complex64]


@pytest.mark.parametrize("dtype", _MAKE_DTYPES)
def test_make_tensor_ranges_and_options(device: str, dtype: Any) -> None:
    from tensorcore.testing import make_tensor

    t = make_tensor(3, 5, dtype=dtype, device=device)
    assert t.shape == (3, 5) and t.dtype is dtype and t.device.type == device.split(":")[0]
    if device == "meta":
        return
    v = t.cpu().numpy()
    if dtype.is_complex:
        v = np.concatenate([v.real, v.imag])
    if dtype is not tc.bool:
        lo = 0 if dtype is tc.uint8 else -9
        floating = dtype.is_floating_point or dtype.is_complex
        assert v.min() >= lo and v.max() < (9 if floating else 10)
    nz = make_tensor((4, 4), dtype=dtype, device=device, exclude_zero=True)
    assert (nz != 0).all()
    nc = make_tensor(2, 3, dtype=dtype, device=device, noncontiguous=True)
    assert nc.shape == (2, 3) and not nc.is_contiguous()
    few = make_tensor(6, dtype=dtype, device=device, low=2, high=4)
    if dtype is not tc.bool and not dtype.is_complex:
        assert ((few >= 2) & (few <= 4)).all()
    if dtype.is_floating_point or dtype.is_complex:
        g = make_tensor(2, dtype=dtype, device=device, requires_grad=True)
        assert g.requires_grad and g.is_leaf
    else:
        with pytest.raises(ValueError, match="requires_grad"):
            make_tensor(2, dtype=dtype, device=device, requires_grad=True)
    with pytest.raises(ValueError, match="low"):
        make_tensor(2, dtype=tc.float32, device=device, low=3, high=1)


def test_make_tensor_as_pytorch_testing(device: str) -> None:
    # torch.testing.make_tensor: ranges per dtype, noncontiguous views, exclude_zero, grad.
    from tensorcore.testing import make_tensor

    t = make_tensor((20, 3), dtype=tc.float32, device=device, low=-1, high=1)
    assert t.shape == (20, 3) and t.dtype is tc.float32 and t.device.type == device
    assert bool(((t >= -1) & (t < 1)).all())
    ints = make_tensor(50, dtype=tc.int64, device=device, low=0, high=3, exclude_zero=True)
    assert set(ints.tolist()) <= {1, 2}
    assert make_tensor((2, 2), dtype=tc.bool, device=device).dtype is tc.bool
    assert make_tensor((3,), dtype=tc.complex64, device=device).dtype is tc.complex64
    nc = make_tensor(3, 4, dtype=tc.float64, device=device, noncontiguous=True)
    assert nc.shape == (3, 4) and not nc.is_contiguous()
    assert make_tensor((2,), dtype=tc.float32, device=device, requires_grad=True).requires_grad
    with pytest.raises(ValueError, match="`low` must be less than `high`, but got 2 >= 1"):
        make_tensor((3,), dtype=tc.float32, device=device, low=2, high=1)


def test_assert_close_takes_pytorch_pairs(device: str) -> None:
    # torch.testing.assert_close's other inputs: containers, numbers, arrays, a callable msg,
    # check_stride (tests/test_assert_close.py checks the messages word for word).
    one = tc.ones(2, device=device)
    assert_close([one, {"a": one}], (one, {"a": one}))
    assert_close(1.0, 1.0 + 1e-9)
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-12]))
    with pytest.raises(AssertionError, match="The length of the sequences mismatch: 2 != 1"):
        assert_close([one, one], [one])
    with pytest.raises(AssertionError, match="keys of the mappings do not match"):
        assert_close({"a": one}, {"b": one})
    with pytest.raises(AssertionError, match=r"not close!(.|\n)*item \['a'\]$"):
        assert_close({"a": one}, {"a": one * 2})
    with pytest.raises(AssertionError, match="The \\(d\\)types do not match"):
        assert_close(1, 1.0)
    with pytest.raises(AssertionError, match=r"^ctx: Tensor-likes are not close!"):
        assert_close(one, one * 2, msg=lambda m: f"ctx: {m}")
    with pytest.raises(AssertionError, match="attribute 'stride\\(\\)' do not match"):
        assert_close(
            tc.ones(2, 3, device=device).t(), tc.ones(3, 2, device=device), check_stride=True
        )


def test_untyped_storage_counts_bytes_and_typed_storage_elements(device: str) -> None:
    # PyTorch: t.untyped_storage().size(), len() and nbytes() are bytes, its elements bytes;
    # t.storage().size() counts elements of t's dtype.
    x = tc.arange(1.0, 5.0, device=device)[1:]
    u = x.untyped_storage()
    assert u.size() == len(u) == u.nbytes() == u.nbytes == 16 and u.element_size() == 1
    assert not u.is_cuda or device == "cuda"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = x.storage()
    assert s.size() == len(s) == 4 and s.nbytes() == 16
    assert s.clone().size() == 4 and s.clone().data_ptr() != s.data_ptr()
    assert u.clone().size() == 16 and u.cpu().size() == 16
    if device != "meta":
        raw = bytes(u.tolist())
        assert raw == np.arange(1.0, 5.0, dtype=np.float32).tobytes()
        assert u[4] == raw[4] and u[-1] == raw[-1] and list(u)[:4] == list(raw[:4])
        with pytest.raises(IndexError, match="out of range"):
            u[16]
        c = u.clone().fill_(0)
        assert c.tolist() == [0] * 16 and x.tolist() == [2.0, 3.0, 4.0]
        assert s.cpu().tolist() == [1.0, 2.0, 3.0, 4.0]
    if device == "cpu":
        assert u.get_device() is None and s.get_device() is None and not u.is_pinned()


def test_top_level_norms_take_pytorchs_cudnn_switch() -> None:
    # torch.batch_norm/layer_norm/group_norm/instance_norm end with a cuDNN switch that
    # programs pass positionally; it changes nothing here.
    x = tc.arange(24.0).reshape(2, 4, 3)
    for on in (True, False):
        np.testing.assert_allclose(
            tc.layer_norm(x, [3], None, None, 1e-5, on).numpy(),
            tc.nn.functional.layer_norm(x, (3,)).numpy(),
        )
        np.testing.assert_allclose(
            tc.group_norm(x, 2, None, None, 1e-5, on).numpy(),
            tc.nn.functional.group_norm(x, 2).numpy(),
        )
        np.testing.assert_allclose(
            tc.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, on).numpy(),
            tc.nn.functional.batch_norm(x, None, None, training=True).numpy(),
        )
        np.testing.assert_allclose(
            tc.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, on).numpy(),
            tc.nn.functional.instance_norm(x).numpy(),
        )
