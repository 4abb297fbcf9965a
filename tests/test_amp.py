"""``tc.autocast`` and ``tc.amp.GradScaler`` (PyTorch's automatic mixed precision)."""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
import tensorcore.nn.functional as F
from tensorcore.ops import _call
from tensorcore.testing import assert_close


def _holds_data(device: str) -> bool:
    from tensorcore import _registry

    return bool(_registry.interface(tc.device(device)).holds_data)


def test_lower_precision_operators(device: str) -> None:
    kind = tc.device(device).type
    low = tc.get_autocast_dtype(kind)  # (PyTorch's: bfloat16 on the CPU, float16 on CUDA)
    a = tc.ones(2, 3, device=device)
    b = tc.ones(3, 4, device=device)
    w = tc.ones(5, 3, device=device)
    img = tc.ones(1, 2, 5, 5, device=device)
    k = tc.ones(3, 2, 3, 3, device=device)
    with tc.autocast(kind):
        assert (a @ b).dtype is low
        assert tc.mm(a, b).dtype is low
        assert tc.bmm(a[None], b[None]).dtype is low
        assert tc.addmm(tc.ones(2, 4, device=device), a, b).dtype is low
        assert F.linear(a, w).dtype is low
        assert F.conv2d(img, k).dtype is low
        # float64 is never cast (PyTorch's rule), other operators run as they are
        assert (a.double() @ b.double()).dtype is tc.float64
        assert (a + 1).dtype is tc.float32
        assert a.exp().dtype is tc.float32
        # in-place and out= calls are not autocast
        out = tc.empty(2, 4, device=device)
        assert tc.mm(a, b, out=out).dtype is tc.float32
    with tc.autocast(kind, dtype=tc.float16):
        assert (a @ b).dtype is tc.float16
    assert (a @ b).dtype is tc.float32


def test_float32_and_promote_operators(device: str) -> None:
    kind = tc.device(device).type
    logits = tc.ones(4, 3, device=device, dtype=tc.get_autocast_dtype(kind))
    target = tc.tensor([0, 1, 2, 0], device=device)
    with tc.autocast(kind):
        assert F.nll_loss(F.log_softmax(logits, 1), target).dtype is tc.float32
        assert F.cross_entropy(logits, target).dtype is tc.float32
        assert F.mse_loss(logits, tc.zeros(4, 3, device=device)).dtype is tc.float32
        assert tc.prod(logits).dtype is tc.float32
        # cat takes the widest floating dtype of its inputs
        both = tc.cat([logits, tc.ones(1, 3, device=device)])
        assert both.dtype is tc.float32
        assert tc.stack([tc.ones(3, device=device), logits[0]]).dtype is tc.float32


def test_pytorchs_cpu_lists() -> None:
    """The CPU autocast lists (PyTorch's ``autocast_mode.cpp``): products and ``prelu`` in
    bfloat16; decompositions, spectral transforms, 3-D pooling, reflection/replication
    padding, grid sampling and the margin losses in float32 (on bfloat16 inputs that the
    kernels refuse outside autocast); ``index_copy`` promotes; an operator of a list runs
    with autocast off inside (``lstsq``'s products stay float32); ``bilinear`` is on no list."""
    bf = tc.bfloat16
    tc.manual_seed(0)
    a, b = tc.randn(2, 3, 4), tc.randn(2, 4, 5)
    x = tc.randn(4, 3)
    h = tc.randn(1, 2, 5, 5).to(bf)
    vol = tc.randn(1, 1, 4, 4, 4).to(bf)
    with tc.autocast("cpu"):
        lower = {
            "baddbmm": tc.baddbmm(tc.zeros(2, 3, 5), a, b),
            "addbmm": tc.addbmm(tc.zeros(3, 5), a, b),
            "einsum": tc.einsum("bij,bjk->bik", a, b),
            "vecdot": tc.linalg.vecdot(x, x),
            "prelu": F.prelu(x, tc.ones(3)),
        }
        fp32 = {
            "cdist": tc.cdist(x.to(bf), x.to(bf)),
            "trace": tc.trace(x[:3].to(bf)),
            "quantile": tc.quantile(x.to(bf), 0.5),
            "svdvals": tc.linalg.svdvals(x.to(bf)),
            "eigvalsh": tc.linalg.eigvalsh(tc.eye(3, dtype=bf)),
            "lstsq": tc.linalg.lstsq(x.to(bf), x[:, :1].to(bf)).solution,
            "lstsq_f32": tc.linalg.lstsq(x, x[:, :1]).solution,
            "rfft": tc.fft.rfft(x[:, 0].to(bf)),
            "reflect": F.pad(h, (1, 1, 1, 1), mode="reflect"),
            "replicate": F.pad(h, (1, 1), mode="replicate"),
            "avg_pool3d": F.avg_pool3d(vol, 2),
            "adaptive_max_pool3d": F.adaptive_max_pool3d(vol, 2),
            "grid_sample": F.grid_sample(h, tc.zeros(1, 2, 2, 2), align_corners=False),
            "margin_ranking": F.margin_ranking_loss(x[:, 0].to(bf), x[:, 1].to(bf), tc.ones(4)),
            "index_copy": x.to(bf).index_copy(0, tc.tensor([0]), tc.ones(1, 3)),
        }
        kept = {
            "bilinear": F.bilinear(x, x, tc.ones(2, 3, 3)),
            "constant pad": F.pad(h, (1, 1)),
            "reflect 3-D": F.pad(vol, (1, 1, 1, 1, 1, 1), mode="reflect"),
        }
    for name, t in lower.items():
        assert t.dtype is bf, name
    for name, t in fp32.items():
        assert t.dtype in (tc.float32, tc.complex64), name
    assert kept["bilinear"].dtype is tc.float32
    assert kept["constant pad"].dtype is bf and kept["reflect 3-D"].dtype is bf
    # the values of a list's operator are its float32 values
    assert_close(fp32["lstsq_f32"], tc.linalg.lstsq(x, x[:, :1]).solution)
    assert tc.is_autocast_enabled("cpu") is False


def test_nesting_disabling_threads_and_the_hook() -> None:
    a = tc.ones(2, 2)
    assert _call._autocast is None
    with tc.autocast("cpu"):
        assert tc.is_autocast_enabled("cpu") and not tc.is_autocast_enabled("cuda")
        with tc.autocast("cpu", enabled=False):
            assert not tc.is_autocast_enabled("cpu")
            assert (a @ a).dtype is tc.float32
        assert (a @ a).dtype is tc.bfloat16
        seen: list[Any] = []
        t = threading.Thread(target=lambda: seen.append((a @ a).dtype))
        t.start()
        t.join()
        assert seen == [tc.float32]  # the state is per thread, as in PyTorch
    assert not tc.is_autocast_enabled("cpu")
    assert _call._autocast is None  # calls outside any region pay one test

    @tc.autocast("cpu")
    def f(x: tc.Tensor) -> tc.Tensor:
        return x @ x

    assert f(a).dtype is tc.bfloat16
    assert tc.amp.autocast is tc.autocast
    with pytest.raises(RuntimeError, match="supports bfloat16 and float16"):
        tc.autocast("cpu", dtype=tc.float32)
    with pytest.raises(ValueError, match="device_type"):
        tc.autocast(tc.device("cpu"))  # type: ignore[arg-type]


def test_autocast_state_functions_as_pytorchs_top_level() -> None:
    a = tc.ones(2, 2)
    # set_autocast_dtype: the dtype a region without dtype= takes (and get_ answers)
    tc.set_autocast_dtype("cpu", tc.float16)
    try:
        assert tc.get_autocast_dtype("cpu") is tc.float16
        with tc.autocast("cpu"):
            assert (a @ a).dtype is tc.float16
    finally:
        tc.set_autocast_dtype("cpu", tc.bfloat16)
    # set_autocast_enabled: on outside any region (the hook installed), then off again
    tc.set_autocast_enabled("cpu", True)
    try:
        assert tc.is_autocast_enabled("cpu") and (a @ a).dtype is tc.bfloat16
        with tc.autocast("cpu", enabled=False):
            assert (a @ a).dtype is tc.float32
        assert (a @ a).dtype is tc.bfloat16
    finally:
        tc.set_autocast_enabled("cpu", False)
    assert not tc.is_autocast_enabled("cpu") and (a @ a).dtype is tc.float32
    assert _call._autocast is None
    tc.set_autocast_enabled(True)  # (the old one-argument form: CUDA's switch)
    assert tc.is_autocast_enabled() and tc.is_autocast_enabled("cuda")
    tc.set_autocast_enabled(False)
    assert not tc.is_autocast_enabled()
    # the deprecated per-device spellings warn as PyTorch's and answer the same
    with pytest.warns(DeprecationWarning, match=r"is_autocast_enabled\('cpu'\) instead"):
        assert tc.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match=r"get_autocast_dtype\('cuda'\)"):
        assert tc.get_autocast_gpu_dtype() is tc.float16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with tc.autocast("cpu"):
            assert tc.is_autocast_cpu_enabled()
        assert tc.get_autocast_cpu_dtype() is tc.bfloat16
        assert tc.get_autocast_xla_dtype() is tc.bfloat16
        tc.set_autocast_cpu_dtype(tc.float16)
        assert tc.get_autocast_dtype("cpu") is tc.float16
        tc.set_autocast_cpu_dtype(tc.bfloat16)
        tc.set_autocast_cpu_enabled(True)
        assert tc.is_autocast_enabled("cpu")
        tc.set_autocast_cpu_enabled(False)
    assert _call._autocast is None
    # the nesting count regions keep, and the cache flag
    with tc.autocast("cpu"):
        assert tc.autocast_increment_nesting() == 2
        assert tc.autocast_decrement_nesting() == 1
    assert tc.is_autocast_cache_enabled()
    tc.set_autocast_cache_enabled(False)
    assert not tc.is_autocast_cache_enabled()
    tc.set_autocast_cache_enabled(True)
    tc.clear_autocast_cache()


def test_gradients_reach_float32_parameters_in_float32(device: str) -> None:
    if not _holds_data(device):
        pytest.skip(f"device '{device}' holds no data to compare")
    tc.manual_seed(0)
    model = tc.nn.Sequential(tc.nn.Linear(8, 16), tc.nn.ReLU(), tc.nn.Linear(16, 3)).to(device)
    x = tc.randn(32, 8).to(device)
    y = tc.randint(0, 3, (32,)).to(device)
    F.cross_entropy(model(x), y).backward()
    want = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with tc.autocast(tc.device(device).type):
        loss = F.cross_entropy(model(x), y)
    assert loss.dtype is tc.float32
    loss.backward()
    for p, g in zip(model.parameters(), want, strict=True):
        assert p.grad.dtype is tc.float32
        assert_close(p.grad, g, rtol=5e-2, atol=5e-2)  # bfloat16 matmuls


def test_custom_fwd() -> None:
    f = tc.amp.custom_fwd(lambda x: (x @ x).dtype, device_type="cpu", cast_inputs=tc.float32)
    with tc.autocast("cpu"):
        assert f(tc.ones(2, 2, dtype=tc.bfloat16)) is tc.float32
    plain = tc.amp.custom_fwd(device_type="cpu")(lambda x: (x @ x).dtype)
    with tc.autocast("cpu"):
        assert plain(tc.ones(2, 2)) is tc.bfloat16


# ------------------------------------------------------------------ GradScaler
def _setup(scale: float = 8.0) -> tuple[Any, Any, Any]:
    w = tc.nn.Parameter(tc.tensor([1.0, 2.0]))
    opt = tc.optim.SGD([w], lr=0.5)
    return w, opt, tc.amp.GradScaler("cpu", init_scale=scale, growth_interval=2)


def test_grad_scaler_scales_unscales_and_steps() -> None:
    w, opt, scaler = _setup()
    loss = (w * w).sum()
    scaled = scaler.scale(loss)
    assert scaled.item() == pytest.approx(8.0 * 5.0)
    assert [t.item() for t in scaler.scale([loss, (loss,)])[1]] == [40.0]
    scaled.backward()
    assert w.grad.tolist() == [16.0, 32.0]
    scaler.unscale_(opt)
    assert w.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    assert w.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 8.0  # one clean step of growth_interval=2
    opt.zero_grad()
    scaler.scale((w + 1).sum()).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 16.0


def test_grad_scaler_skips_a_step_with_an_overflow_and_backs_off() -> None:
    w, opt, scaler = _setup()
    scaler.scale((w * float("inf")).sum()).backward()
    assert scaler.step(opt) is None
    assert w.tolist() == [1.0, 2.0]  # skipped
    scaler.update()
    assert scaler.get_scale() == 4.0
    with pytest.raises(AssertionError, match="No inf checks"):
        scaler.update()
    scaler.update(new_scale=2.0)
    assert scaler.get_scale() == 2.0


def test_grad_scaler_found_inf_per_device_and_growth_tracker() -> None:
    """The private readers frameworks use to tell a skipped step, as PyTorch's give them."""
    w, opt, scaler = _setup()
    assert scaler._found_inf_per_device(opt) == {}
    for bad, tracker in ((False, 1), (True, 0)):
        scaler.scale((w * (float("inf") if bad else 1.0)).sum()).backward()
        scaler.unscale_(opt)
        found = scaler._found_inf_per_device(opt)
        assert list(found) == [w.device]
        (flag,) = found.values()
        assert flag.dtype == tc.float32 and flag.shape == (1,) and flag.item() == float(bad)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        assert scaler._get_growth_tracker() == tracker
    assert tc.amp.GradScaler("cpu", enabled=False)._get_growth_tracker() == 0


def test_grad_scaler_state_dict_and_disabled() -> None:
    _, _, scaler = _setup(4.0)
    state = scaler.state_dict()
    assert state == {
        "scale": 4.0,
        "growth_factor": 2.0,
        "backoff_factor": 0.5,
        "growth_interval": 2,
        "_growth_tracker": 0,
    }
    other = tc.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == 4.0
    off = tc.amp.GradScaler("cpu", enabled=False)
    loss = tc.ones(1)
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    with pytest.raises(ValueError, match="growth factor"):
        tc.amp.GradScaler("cpu", growth_factor=1.0)


def test_a_cuda_grad_scaler_without_cuda_disables_itself() -> None:
    if tc.cuda.is_available():
        pytest.skip("CUDA is available here")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = tc.amp.GradScaler()
    assert not scaler.is_enabled()
    assert any("cuda is not available" in str(w.message) for w in caught)


def test_a_mixed_precision_training_loop_learns() -> None:
    # The idiom of PyTorch's AMP recipe, on the CPU with bfloat16.
    tc.manual_seed(0)
    rng = np.random.default_rng(0)
    x = tc.tensor(rng.standard_normal((128, 4)), dtype=tc.float32)
    y = (x[:, 0] > 0).long()
    model = tc.nn.Sequential(tc.nn.Linear(4, 16), tc.nn.ReLU(), tc.nn.Linear(16, 2))
    opt = tc.optim.SGD(model.parameters(), lr=0.5)
    scaler = tc.amp.GradScaler("cpu")
    for _ in range(60):
        opt.zero_grad()
        with tc.autocast("cpu", dtype=tc.bfloat16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    acc = (model(x).argmax(1) == y).float().mean().item()
    assert acc > 0.9


def test_the_deprecated_cuda_amp_spellings() -> None:
    # torch.cuda.amp.autocast()/GradScaler() are still everywhere in training scripts.
    with pytest.warns(FutureWarning, match="tensorcore.amp.GradScaler\\('cuda'"):
        scaler = tc.cuda.amp.GradScaler(enabled=False)
    assert not scaler.is_enabled()
    with pytest.warns(FutureWarning, match="tensorcore.amp.autocast\\('cuda'"):
        region = tc.cuda.amp.autocast()
    assert region.device == "cuda" and region.fast_dtype is tc.float16
    with region:
        assert tc.is_autocast_enabled("cuda") and not tc.is_autocast_enabled("cpu")
        assert (tc.ones(2, 2) @ tc.ones(2, 2)).dtype is tc.float32  # CPU tensors: untouched


def test_the_amp_submodules_import_as_in_pytorch() -> None:
    # ``from torch.cuda.amp import autocast, GradScaler``: torch.cuda is a package there.
    import importlib

    from tensorcore.cuda.amp import GradScaler, autocast

    assert autocast is tc.cuda.amp.autocast and GradScaler is tc.cuda.amp.GradScaler
    assert importlib.import_module("tensorcore.cpu.amp") is tc.cpu.amp
    # An import system that maps another package name onto tensorcore finds them too.
    assert tc.cuda.__path__ == [] and tc.cpu.__path__ == []


def test_the_cpu_device_module() -> None:
    # torch.cpu: the accelerator-module interface for the CPU, and torch.cpu.amp.autocast.
    assert tc.cpu.is_available() and tc.cpu.device_count() == 1
    assert tc.cpu.current_device() == "cpu" and tc.cpu.is_initialized()
    tc.cpu.synchronize()
    tc.cpu.set_device("cpu")
    with pytest.warns(FutureWarning, match="tensorcore.amp.autocast\\('cpu'"):
        region = tc.cpu.amp.autocast()
    with region:
        assert (tc.ones(2, 2) @ tc.ones(2, 2)).dtype is tc.bfloat16


def test_custom_bwd_runs_under_the_forwards_autocast_state() -> None:
    seen: list[bool] = []

    def make(cast: Any) -> Any:
        class Mm(tc.autograd.Function):
            @staticmethod
            @tc.amp.custom_fwd(device_type="cpu", cast_inputs=cast)
            def forward(ctx: Any, x: Any) -> Any:
                return x.mm(x)

            @staticmethod
            @tc.amp.custom_bwd(device_type="cpu")
            def backward(ctx: Any, g: Any) -> Any:
                seen.append(tc.is_autocast_enabled("cpu"))
                return g

        return Mm

    x = tc.randn(2, 2, requires_grad=True)
    with tc.autocast("cpu"):
        y = make(None).apply(x)
        z = make(tc.float32).apply(x)
    assert y.dtype is tc.bfloat16 and z.dtype is tc.float32
    (y.float().sum() + z.sum()).backward()
    assert sorted(seen) == [False, True]  # cast_inputs ran without autocast: so does backward
    assert tc.amp.is_autocast_available("cpu") and not tc.amp.is_autocast_available("xla")
    assert tc.cuda.amp.custom_bwd is not None


def test_recurrent_layers_under_cpu_autocast_give_pytorchs_dtypes() -> None:
    # PyTorch 2.13: the LSTM runs as mkldnn_rnn_layer (lower precision, states included), an
    # RNN's steps are linear calls (lower precision), a GRU's stay in float32.
    x = tc.randn(2, 3, 4)
    want = {"RNN": [tc.bfloat16] * 2, "GRU": [tc.float32] * 2, "LSTM": [tc.bfloat16] * 3}
    for name, dtypes in want.items():
        m = getattr(tc.nn, name)(4, 5, batch_first=True)
        with tc.autocast("cpu", dtype=tc.bfloat16):
            out, h = m(x)
        got = [out.dtype, *(h if isinstance(h, tuple) else (h,))]
        assert [t.dtype if isinstance(t, tc.Tensor) else t for t in got] == dtypes, name
        (out.float().sum()).backward()
        assert all(p.grad is not None and p.grad.dtype == tc.float32 for p in m.parameters())
