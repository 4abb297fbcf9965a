"""The everyday API PyTorch programs reach for: NumPy keyword spellings (``axis``,
``keepdims``), ``size=`` on factories, ``tc.multinomial``, a ``tc.cuda`` namespace that always
exists, and the examples' entry points."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.ops._api import _last_required
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close
from tensorcore.testing.samples import SAMPLES, Sample, call_op, core_ops

ALIASED = [
    n for n in core_ops()
    if OPS[n].function and (i := OPS[n].param("dim")) >= 0
    and _last_required(OPS[n].parsed.params, i)
    and n in SAMPLES
]  # fmt: skip


@pytest.mark.parametrize("name", ALIASED)
def test_axis_and_keepdims_are_aliases_of_dim_and_keepdim(name: str) -> None:
    decl = OPS[name]
    params = [p.name for p in decl.parsed.params]
    for sample in SAMPLES[name]("cpu", tc.float64):
        args = list(sample.args)
        kwargs = dict(sample.kwargs)
        i = params.index("dim")
        if i < len(args):
            kwargs["dim"] = args.pop(i)
            if len(args) > i:  # a later positional argument: keep the call as it is
                continue
        if "dim" not in kwargs or "random" in decl.tags:
            continue
        want = call_op(name, Sample(tuple(args), kwargs))
        aliased = {("axis" if k == "dim" else "keepdims" if k == "keepdim" else k): v
                   for k, v in kwargs.items()}  # fmt: skip
        got = getattr(tc, name)(*args, **aliased)
        for g, w in zip(_flat(got), _flat(want), strict=True):
            assert_close(g, w, equal_nan=True)


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (tuple, list)) else [x]


def test_numpy_spellings_on_methods() -> None:
    x = tc.arange(6.0).reshape(2, 3)
    assert x.sum(axis=0).tolist() == [3.0, 5.0, 7.0]
    assert x.mean(axis=1, keepdims=True).shape == (2, 1)
    assert x.sum(dim=[0, 1]).item() == 15.0
    assert x.cumsum(axis=1).tolist() == [[0, 1, 3], [3, 7, 12]]
    assert x.max(axis=0).values.tolist() == [3.0, 4.0, 5.0]
    assert x.argmax(axis=1).tolist() == [2, 2]
    assert x.unsqueeze(axis=0).shape == (1, 2, 3)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'dim'"):
        x.cumsum()


def test_size_keyword_on_factories() -> None:
    for fn in (tc.zeros, tc.ones, tc.empty, tc.rand, tc.randn):
        assert fn(size=(2, 3)).shape == (2, 3)
        assert fn(size=[4]).shape == (4,)
    assert tc.arange(6).reshape(shape=(2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        tc.zeros(2, size=(3,))
    g = tc.Generator().manual_seed(4)
    a = tc.randn(size=(3,), generator=g)
    b = tc.randn(3, generator=tc.Generator().manual_seed(4))
    assert a.tolist() == b.tolist()


def test_multinomial_statistics_and_errors() -> None:
    g = tc.Generator().manual_seed(0)
    w = tc.tensor([1.0, 0.0, 3.0, 4.0])
    draws = tc.multinomial(w, 40000, replacement=True, generator=g).numpy()
    freq = np.bincount(draws, minlength=4) / len(draws)
    assert np.allclose(freq, [0.125, 0.0, 0.375, 0.5], atol=0.01)
    rows = tc.multinomial(tc.tensor([[1.0, 1.0, 1.0], [0.0, 5.0, 1.0]]), 3, generator=g)
    assert rows.shape == (2, 3) and sorted(rows[0].tolist()) == [0, 1, 2]
    assert sorted(rows[1].tolist()) == [0, 1, 2] and rows[1, 2].item() == 0  # zero weight last
    firsts = (
        np.bincount([tc.multinomial(w, 2, generator=g)[0].item() for _ in range(3000)], minlength=4)
        / 3000
    )
    assert np.allclose(firsts, [0.125, 0.0, 0.375, 0.5], atol=0.03)
    with pytest.raises(RuntimeError, match="without replacement"):
        tc.multinomial(w, 5)
    with pytest.raises(RuntimeError, match="element < 0"):
        tc.multinomial(tc.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="floating-point dtypes for input, got: Long"):
        tc.multinomial(tc.tensor([1, 2]), 1)


_CUDA_AS_CPU_BUILD = """
import tensorcore as tc
print(tc.cuda.is_available(), tc.cuda.device_count())
for seed_fn in (tc.cuda.manual_seed, tc.cuda.manual_seed_all):
    assert seed_fn(0) is None
assert tc.cuda.empty_cache() is None and tc.cuda.reset_peak_memory_stats() is None
print([f() for f in (tc.cuda.memory_allocated, tc.cuda.max_memory_allocated,
                     tc.cuda.memory_reserved, tc.cuda.max_memory_reserved)])
try:
    tc.cuda.synchronize()
except RuntimeError as e:
    print("synchronize raises:", "CUDA" in str(e))
# what PyTorch's CPU build answers without a device
assert tc.cuda.seed() is None and tc.cuda.seed_all() is None
assert tc.cuda.get_rng_state_all() == [] and tc.cuda.set_rng_state_all([]) is None
assert tc.cuda.get_arch_list() == [] and tc.cuda.default_generators == ()
assert dict(tc.cuda.memory_stats()) == {}
with tc.cuda.device(0), tc.cuda.device_of(tc.zeros(1)):
    pass
assert issubclass(tc.cuda.OutOfMemoryError, RuntimeError)
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    assert tc.cuda.memory_cached() == 0 and tc.cuda.reset_max_memory_allocated() is None
assert [x.category for x in w] == [FutureWarning, FutureWarning]
raising = []
for name in ("current_device", "get_device_name", "get_device_capability", "get_device_properties",
             "mem_get_info", "memory_summary", "initial_seed", "get_rng_state", "init",
             "ipc_collect", "current_stream", "default_stream", "Event"):
    try:
        getattr(tc.cuda, name)()
    except RuntimeError as e:
        raising.append("CUDA" in str(e))
print(len(raising), all(raising))
try:
    tc.cuda.nvtx.range_push("a")
except RuntimeError as e:
    print("nvtx raises:", "NVTX" in str(e))
"""


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({"TENSORCORE_BACKENDS": "cpu"}, id="backend-not-loaded"),
        pytest.param({}, id="installed-backends"),
    ],
)
def test_cuda_namespace_without_a_device_behaves_as_pytorchs_cpu_build(
    run_py: Any, env: dict[str, str]
) -> None:
    """As ``torch.cuda`` in PyTorch's CPU build: no-ops, zero statistics, ``synchronize``
    raises. Run with the CUDA backend not loaded, and with the installed backends (on a
    machine without a GPU, the CUDA backend loaded with its device unavailable)."""
    if not env and tc.cuda.is_available():
        pytest.skip("a CUDA device is available here")
    out = run_py(_CUDA_AS_CPU_BUILD, env=env)
    assert out.stdout.split("\n")[:5] == [
        "False 0",
        "[0, 0, 0, 0]",
        "synchronize raises: True",
        "13 True",
        "nvtx raises: True",
    ]


def test_cuda_backend_namespace_without_a_device() -> None:
    """The backend's own namespace (``tensorcore_cuda.namespace``) where its device is
    unavailable: the same no-ops and zeros; what needs a device raises."""
    ns = pytest.importorskip("tensorcore_cuda.namespace", reason="needs tensorcore-cuda")
    if ns.is_available():
        pytest.skip("a CUDA device is available here")
    ns.empty_cache()
    ns.manual_seed(1)
    ns.manual_seed_all(1)
    ns.reset_peak_memory_stats()
    stats = (ns.memory_allocated, ns.max_memory_allocated, ns.memory_reserved,
             ns.max_memory_reserved)  # fmt: skip
    assert [f() for f in stats] == [0, 0, 0, 0]
    for needs_device in (ns.synchronize, ns.current_device):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            needs_device()


def test_cuda_names_without_the_backend_hint_at_installing_it(run_py: Any) -> None:
    out = run_py(
        """
        import tensorcore as tc
        try:
            tc.cuda.current_device()
        except RuntimeError as e:
            print("hint:", "tensorcore-cuda" in str(e))
        try:
            tc.cuda.Stream
        except AttributeError as e:
            print("hint:", "tensorcore-cuda" in str(e))
        """,
        env={"TENSORCORE_BACKENDS": "cpu"},
    )
    assert out.stdout.split() == ["hint:", "True", "hint:", "True"]


def test_cuda_namespace_forwards_to_the_backend() -> None:
    pytest.importorskip("tensorcore_cuda", reason="needs the tensorcore-cuda backend installed")
    assert isinstance(tc.cuda.is_available(), bool)
    assert callable(tc.cuda.synchronize) and callable(tc.cuda.memory_allocated)


def test_tensor_type_and_new_factories() -> None:
    t = tc.tensor([True, False])
    assert t.type() == "tensorcore.BoolTensor"
    assert t.type(tc.float).dtype is tc.float32 and t.type("torch.LongTensor").dtype is tc.int64
    f = tc.ones(2, dtype=tc.float64)
    assert f.type(tc.float64) is f
    with pytest.raises(ValueError, match="invalid type"):
        t.type("torch.FooTensor")
    n = f.new_zeros(2, 3)
    assert n.shape == (2, 3) and n.dtype is tc.float64 and not n.requires_grad
    assert f.new_ones((4,)).tolist() == [1.0] * 4
    assert f.new_empty(size=(1, 2)).shape == (1, 2)
    assert f.new_full((2,), 7).tolist() == [7.0, 7.0]
    assert f.new_tensor([1, 2]).dtype is tc.float64
    assert f.new_zeros(2, dtype=tc.int32).dtype is tc.int32


def test_small_pytorch_compatibility_names() -> None:
    assert tc.is_tensor(tc.nn.Parameter(tc.ones(1))) and not tc.is_tensor(1.0)
    assert tc.numel(tc.ones(3, 4)) == 12
    v = tc.autograd.Variable(tc.ones(2), requires_grad=True)
    assert v.requires_grad
    assert tc.backends.mps.is_available() is False and tc.backends.cudnn.is_available() is False
    tc.backends.cudnn.benchmark = True  # accepted, as programs written for PyTorch set it
    tc.backends.cudnn.benchmark = False


def test_compile_wraps_a_module_as_pytorch_does() -> None:
    # Programs reach the original through ``_orig_mod`` and strip the ``_orig_mod.`` prefix
    # from checkpoints saved from the compiled model (nanoGPT, lit-gpt, accelerate).
    net = tc.nn.Sequential(tc.nn.Linear(2, 3), tc.nn.Dropout(0.5))
    seen: list[int] = []
    net.register_forward_hook(lambda m, i, o: seen.append(1))
    opt = tc.compile(net)
    assert type(opt).__name__ == "OptimizedModule" and opt._orig_mod is net
    assert not isinstance(opt, tc.nn.Sequential) and len(opt) == 2
    assert list(opt.state_dict()) == ["_orig_mod.0.weight", "_orig_mod.0.bias"]
    assert [n for n, _ in opt.named_parameters()] == ["_orig_mod.0.weight", "_orig_mod.0.bias"]
    x = tc.ones(4, 2)
    opt.eval()
    assert not net.training and not opt.training and not net[1].training
    assert tc.equal(opt(x), net(x)) and seen == [1, 1]
    opt.train()
    assert net.training and net[1].training
    opt.tag = "kept"  # attributes are the original's, as in PyTorch
    assert net.tag == "kept" and opt.tag == "kept"
    del opt.tag
    assert not hasattr(net, "tag")
    twin = copy.deepcopy(opt)
    assert twin._orig_mod is not net and tc.equal(twin.eval()(x), net.eval()(x))
    state = {k.removeprefix("_orig_mod."): v for k, v in opt.state_dict().items()}
    fresh = tc.nn.Sequential(tc.nn.Linear(2, 3), tc.nn.Dropout(0.5))
    fresh.load_state_dict(state)
    assert tc.equal(fresh.eval()(x), net.eval()(x))


def test_runtime_knobs_of_pytorch_programs() -> None:
    net = tc.nn.Linear(2, 2)
    assert tc.compile(net)._orig_mod is net and tc.compile(len) is len
    assert tc.compile(mode="max-autotune")(len) is len
    before = tc.get_num_threads()
    tc.set_num_threads(1)
    assert tc.get_num_threads() == 1
    tc.set_num_threads(before)
    with pytest.raises(RuntimeError, match="positive integer"):
        tc.set_num_threads(0)
    tc.set_float32_matmul_precision("high")
    assert tc.get_float32_matmul_precision() == "high"
    tc.set_float32_matmul_precision("highest")
    tc.backends.cuda.matmul.allow_tf32 = True  # accepted, as programs set it
    assert tc.backends.cuda.is_available() is False


def test_deterministic_algorithms_knob_is_recorded() -> None:
    assert tc.are_deterministic_algorithms_enabled() is False
    assert tc.get_deterministic_debug_mode() == 0
    try:
        tc.use_deterministic_algorithms(True)
        assert tc.are_deterministic_algorithms_enabled() is True
        assert tc.is_deterministic_algorithms_warn_only_enabled() is False
        assert tc.get_deterministic_debug_mode() == 2
        tc.use_deterministic_algorithms(True, warn_only=True)
        assert tc.is_deterministic_algorithms_warn_only_enabled() is True
        assert tc.get_deterministic_debug_mode() == 1
        assert tc.arange(4.0).sum().item() == 6.0  # computing is unaffected
        tc.set_deterministic_debug_mode("error")
        assert (tc.are_deterministic_algorithms_enabled(),
                tc.is_deterministic_algorithms_warn_only_enabled()) == (True, False)  # fmt: skip
        tc.set_deterministic_debug_mode("default")
        assert tc.are_deterministic_algorithms_enabled() is False
        with pytest.raises(TypeError, match=r"argument 'mode' .* must be bool, not int"):
            tc.use_deterministic_algorithms(1)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="takes 1 positional argument"):
            tc.use_deterministic_algorithms(True, False)  # type: ignore[misc]
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
            tc.set_deterministic_debug_mode("x")
        with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
            tc.set_deterministic_debug_mode(3)
    finally:
        tc.use_deterministic_algorithms(False)


# PyTorch's functions that make a tensor all take ``layout=`` and ``pin_memory=`` (its
# TensorOptions); programs pass them explicitly (``torch.zeros(n, layout=torch.strided)``).
_OPTION_CALLS: dict[str, Any] = {
    "empty": lambda **kw: tc.empty(2, 3, **kw),
    "zeros": lambda **kw: tc.zeros(2, 3, **kw),
    "ones": lambda **kw: tc.ones((2, 3), **kw),
    "full": lambda **kw: tc.full((2,), 1.5, **kw),
    "arange": lambda **kw: tc.arange(4, **kw),
    "linspace": lambda **kw: tc.linspace(0, 1, 3, **kw),
    "logspace": lambda **kw: tc.logspace(0, 1, 3, **kw),
    "eye": lambda **kw: tc.eye(3, **kw),
    "rand": lambda **kw: tc.rand(2, **kw),
    "randn": lambda **kw: tc.randn(2, **kw),
    "randint": lambda **kw: tc.randint(0, 5, (3,), **kw),
    "randperm": lambda **kw: tc.randperm(4, **kw),
    "tril_indices": lambda **kw: tc.tril_indices(3, 3, **kw),
    "triu_indices": lambda **kw: tc.triu_indices(3, 3, **kw),
    "normal": lambda **kw: tc.normal(0.0, 1.0, (2,), **kw),
    "empty_like": lambda **kw: tc.empty_like(tc.ones(2), **kw),
    "zeros_like": lambda **kw: tc.zeros_like(tc.ones(2), **kw),
    "ones_like": lambda **kw: tc.ones_like(tc.ones(2), **kw),
    "full_like": lambda **kw: tc.full_like(tc.ones(2), 3.0, **kw),
    "rand_like": lambda **kw: tc.rand_like(tc.ones(2), **kw),
    "randn_like": lambda **kw: tc.randn_like(tc.ones(2), **kw),
    "hann_window": lambda **kw: tc.hann_window(4, **kw),
    "hamming_window": lambda **kw: tc.hamming_window(4, **kw),
    "blackman_window": lambda **kw: tc.blackman_window(4, **kw),
    "bartlett_window": lambda **kw: tc.bartlett_window(4, **kw),
    "kaiser_window": lambda **kw: tc.kaiser_window(4, **kw),
}


def test_every_tensor_making_function_is_covered() -> None:
    from tensorcore.ops._api import tensor_options

    declared = {name for name, decl in OPS.items() if decl.function and tensor_options(decl)}
    assert declared <= set(_OPTION_CALLS), declared - set(_OPTION_CALLS)


@pytest.mark.parametrize("name", sorted(_OPTION_CALLS))
def test_factories_take_layout_and_pin_memory(name: str) -> None:
    make = _OPTION_CALLS[name]
    plain = make()
    for kw in ({"layout": tc.strided}, {"layout": None}, {"pin_memory": False}):
        got = make(**kw)
        assert (got.shape, got.dtype, got.layout) == (plain.shape, plain.dtype, tc.strided)
    # Another layout runs the kernel a plugin registers for (factory, device, layout):
    # the sparse backend's zeros and empty (and so zeros_like and empty_like) make a sparse
    # tensor without entries.
    if name.removesuffix("_like") in ("zeros", "empty") and hasattr(tc, "sparse_coo"):
        got = make(layout=tc.sparse_coo)
        assert (got.layout, got._nnz(), got.shape) == (tc.sparse_coo, 0, plain.shape)
    else:
        # (``ones_like`` names the factory it asked too: ``ones_like(): ones(): layout=...``)
        with pytest.raises(
            NotImplementedError, match=rf"{name}\(\): (\w+\(\): )?layout=tensorcore.sparse_coo"
        ):
            make(layout=tc.sparse_coo)
    with pytest.raises(TypeError, match=r"'layout' must be tensorcore\.layout, not str"):
        make(layout="strided")
    with pytest.raises(TypeError, match="'pin_memory' must be bool"):
        make(pin_memory="yes")
    # Without an accelerator there is no page-locked memory: PyTorch's error.
    if not tc.cuda.is_available():
        with pytest.raises(RuntimeError, match="accelerator"):
            make(pin_memory=True)


@pytest.mark.parametrize("name", sorted(set(_OPTION_CALLS) - {"tril_indices", "triu_indices"}))
def test_factories_take_requires_grad(name: str) -> None:
    # D2L writes ``torch.normal(0, 0.01, size=(20, 5), requires_grad=True)``; every factory
    # PyTorch gives requires_grad (all but tril/triu_indices) makes a leaf that requires grad.
    t = _OPTION_CALLS[name](requires_grad=True, dtype=tc.float32)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert not _OPTION_CALLS[name](dtype=tc.float32).requires_grad


def test_tensor_takes_pin_memory_but_no_layout() -> None:
    # (as torch.tensor: pin_memory, and no layout)
    assert tc.tensor([1.0, 2.0], pin_memory=False).tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="'pin_memory' must be bool"):
        tc.tensor([1.0], pin_memory="yes")
    with pytest.raises(TypeError, match="layout"):
        tc.tensor([1.0], layout=tc.strided)  # type: ignore[call-arg]


def test_legacy_typed_constructors() -> None:
    # torch.FloatTensor(2, 3), torch.LongTensor([1, 2]), isinstance(x, torch.FloatTensor)
    # and x.type(torch.LongTensor), as old PyTorch programs write them.
    assert tc.FloatTensor(2, 3).shape == (2, 3) and tc.FloatTensor(2, 3).dtype is tc.float32
    assert tc.FloatTensor(tc.Size([4])).shape == (4,)
    assert tc.FloatTensor().shape == (0,)
    assert tc.LongTensor([1, 2]).tolist() == [1, 2] and tc.LongTensor([1, 2]).dtype is tc.int64
    assert tc.DoubleTensor(np.array([[1.5]])).dtype is tc.float64
    assert tc.BoolTensor([True, False]).dtype is tc.bool
    x = tc.ones(2)
    assert tc.FloatTensor(x) is x  # a tensor of the type: itself
    assert isinstance(x, tc.FloatTensor) and not isinstance(x, tc.LongTensor)
    assert not isinstance(x.double(), tc.FloatTensor) and not isinstance(1.0, tc.FloatTensor)
    assert x.type(tc.LongTensor).dtype is tc.int64
    assert (
        tc.HalfTensor.dtype is tc.float16 and repr(tc.IntTensor) == "<class 'tensorcore.IntTensor'>"
    )
    with pytest.raises(TypeError, match="expected a CPU tensor of dtype float32"):
        tc.FloatTensor(x.long())
    with pytest.raises(TypeError, match="data must be a sequence"):
        tc.FloatTensor(2.5)
    with pytest.raises(RuntimeError, match="expects device type: cpu"):
        tc.FloatTensor(3, device="meta")


def test_a_slice_sum_or_repeat_of_a_size_is_a_size() -> None:
    s = tc.zeros(2, 3, 4).shape
    cases = [(s[1:], (3, 4)), (s[::-1], (4, 3, 2)), (s + (5,), (2, 3, 4, 5)),
             ((1,) + s, (1, 2, 3, 4)), (s * 2, (2, 3, 4) * 2), (2 * s, (2, 3, 4) * 2)]  # fmt: skip
    for got, want in cases:
        assert type(got) is tc.Size and got == want
    assert s[-1] == 4 and type(s[0]) is int and s[1:].numel() == 12
    with pytest.raises(TypeError):
        s + [5]  # type: ignore[operator]


def test_get_device_is_minus_one_off_indexed_devices(device: str) -> None:
    t = tc.ones(2, device=device)
    want = t.device.index if t.device.index is not None else (0 if device == "cuda" else -1)
    assert t.get_device() == want
    assert tc.ones(1).get_device() == -1


def test_cuda_device_queries_on_a_gpu() -> None:
    """PyTorch's device queries, events and streams where a CUDA device is usable."""
    if not tc.cuda.is_available():
        pytest.skip("needs a usable CUDA device")
    name = tc.cuda.get_device_name(0)
    props = tc.cuda.get_device_properties(0)
    assert isinstance(name, str) and props.name == name and props.total_memory > 0
    assert tc.cuda.get_device_capability() == (props.major, props.minor)
    free, total = tc.cuda.mem_get_info()
    assert 0 < free <= total
    assert tc.cuda.get_arch_list() == [f"sm_{props.major}{props.minor}"]
    start, end = tc.cuda.Event(enable_timing=True), tc.cuda.Event(enable_timing=True)
    start.record()
    x = tc.ones(256, 256, device="cuda") @ tc.ones(256, 256, device="cuda")
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0 and end.query()
    s = tc.cuda.Stream()
    with tc.cuda.stream(s):
        y = x + 1
    tc.cuda.current_stream().wait_stream(s)
    assert y[0, 0].item() == 257.0
    state = tc.cuda.get_rng_state()
    a = tc.rand(3, device="cuda")
    tc.cuda.set_rng_state(state)
    assert tc.equal(a, tc.rand(3, device="cuda"))
    assert tc.cuda.memory_stats()["allocated_bytes.all.current"] >= 0
    assert "allocated_bytes" in tc.cuda.memory_summary()
    with tc.cuda.device(0):
        assert tc.cuda.current_device() == 0
    with tc.cuda.nvtx.range("step {}", 1):
        pass


def test_float_of_a_tensor_that_requires_grad_warns_once(
    device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``float(loss)`` in grad mode: PyTorch's once-per-process warning, which d2l's training
    loops (``Accumulator.add(float(l.sum()), ...)``) show; ``int()``, ``item()``, no_grad and
    a detached tensor do not warn."""
    import warnings

    from tensorcore import _tensor_methods

    monkeypatch.setattr(_tensor_methods, "_SCALAR_OF_GRAPH_WARNED", [False])
    s = tc.ones(2, device=device, requires_grad=True).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert (int(s), s.item(), float(s.detach())) == (2, 2.0, 2.0)
        with tc.no_grad():
            assert complex(s) == 2.0 and float(s) == 2.0
        assert not caught
        assert float(s) == 2.0 and complex(s) == 2.0
    assert [str(w.message) for w in caught] == [
        "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
        "behavior.\nConsider using tensor.detach() first."
    ]
    assert caught[0].category is UserWarning and caught[0].filename == __file__


def test_symbolic_size_helpers_are_the_plain_operations() -> None:
    assert tc.sym_int(2.7) == 2 and tc.sym_int(-2.7) == -2 and tc.sym_float(3) == 3.0
    assert tc.sym_max(3, 5) == 5 and tc.sym_min(3, 5) == 3 and tc.sym_not(0) is True
    assert tc.sym_ite(False, "a", "b") == "b" and tc.sym_sqrt(9) == 3.0
    assert tc.sym_sum([1, 2, 3]) == 6


def test_device_modules_and_top_level_names() -> None:
    assert tc.get_device_module("cpu") is tc.cpu
    assert tc.get_device_module(tc.device("cuda")) is tc.cuda
    with pytest.raises(RuntimeError, match="does not have a corresponding module"):
        tc.get_device_module("meta")
    assert tc.GradScaler is tc.amp.GradScaler
    assert tc.DisableTorchFunction is tc.overrides.DisableTorchFunction
    assert tc.autograd.is_multithreading_enabled()
    with tc.autograd.set_multithreading_enabled(False):
        assert not tc.autograd.is_multithreading_enabled()
    assert tc.autograd.is_multithreading_enabled()
    assert tc.autograd.has_torch_function is tc.overrides.has_torch_function


def test_wrap_torch_function_hands_a_python_function_to_a_mode() -> None:
    @tc.overrides.wrap_torch_function(lambda x: (x,))
    def twice(x):
        return x * 2

    seen = []

    class Mode(tc.overrides.BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = tc.ones(1)
    with Mode():
        y = twice(x)
    assert seen == ["twice"]  # (the mode is off while it runs: twice's own mul is not seen)
    assert y.tolist() == [2.0]
    assert tc.overrides.is_tensor_method_or_property(tc.Tensor.add)
    assert tc.overrides.resolve_name(tc.add) == "tensorcore.add"


def test_func_linearize_functionalize_and_batch_norm_replacement() -> None:
    x = tc.tensor([0.5, 1.0], dtype=tc.float64)
    out, jvp_fn = tc.func.linearize(lambda t: t.sin() * t, x)
    np.testing.assert_allclose(out.numpy(), np.sin([0.5, 1.0]) * [0.5, 1.0])
    want = np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0])
    np.testing.assert_allclose(jvp_fn(tc.ones(2, dtype=tc.float64)).numpy(), want)
    f = tc.func.functionalize(lambda t: t.add_(1))
    assert f(tc.zeros(1)).tolist() == [1.0]
    with pytest.raises(RuntimeError, match="invalid argument for remove"):
        tc.func.functionalize(f, remove="views")
    net = tc.nn.Sequential(tc.nn.BatchNorm1d(2), tc.nn.InstanceNorm1d(2, track_running_stats=True))
    assert tc.func.replace_all_batch_norm_modules_(net) is net
    assert net[0].running_mean is None and not net[0].track_running_stats
    assert net[1].track_running_stats  # (an instance norm is no batch norm, as in PyTorch)


def test_instance_norms_are_not_batch_norms() -> None:
    from tensorcore.nn.modules.batchnorm import _BatchNorm, _NormBase

    inorm = tc.nn.InstanceNorm2d(3, track_running_stats=True)
    assert isinstance(inorm, _NormBase) and not isinstance(inorm, _BatchNorm)
    assert isinstance(tc.nn.BatchNorm2d(3), _BatchNorm)
    converted = tc.nn.SyncBatchNorm.convert_sync_batchnorm(tc.nn.Sequential(inorm))
    assert type(converted[0]) is tc.nn.InstanceNorm2d


def test_module_paths_that_model_code_imports_from() -> None:
    from tensorcore.nn.common_types import _size_2_t, _size_any_t
    from tensorcore.storage import TypedStorage, UntypedStorage
    from tensorcore.utils.data._utils.collate import default_collate
    from tensorcore.utils.model_zoo import load_url

    assert load_url is tc.hub.load_state_dict_from_url
    assert default_collate([tc.ones(2), tc.zeros(2)]).shape == (2, 2)
    assert isinstance(tc.ones(2).untyped_storage(), UntypedStorage)
    assert tc.TypedStorage is TypedStorage and tc.UntypedStorage is UntypedStorage
    assert _size_2_t is not None and _size_any_t is not None
