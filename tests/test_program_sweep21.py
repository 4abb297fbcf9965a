"""Gaps found by running public-style generative and probabilistic PyTorch programs (VAEs,
flows, GANs, diffusion, mixture density networks, Bayesian regression, energy-based models)
with ``import tensorcore as torch`` (the twenty-first sweep). The expected values are PyTorch
2.13's, recorded once."""

from __future__ import annotations

from typing import ClassVar

import pytest

import tensorcore as tc
from tensorcore import distributions as dist

_cpu_streams = pytest.mark.skipif(
    "cpu" not in tc.backends.devices(), reason="the CPU backend reproduces PyTorch's streams"
)


@_cpu_streams
def test_half_float_uniforms_are_the_float32_draws_rounded() -> None:
    # A diffusion sampler under bfloat16 autocast draws its noise in 16 bits: PyTorch keeps
    # 24 bits of each draw, as for float32, and rounds (not 8 or 11 bits).
    tc.manual_seed(0)
    assert tc.rand(4, dtype=tc.bfloat16).tolist() == [
        0.49609375, 0.76953125, 0.08837890625, 0.1318359375
    ]  # fmt: skip
    tc.manual_seed(0)
    got = tc.empty(3, dtype=tc.float16).uniform_(-2, 3).tolist()
    assert got == [0.481201171875, 1.8408203125, -1.5576171875]


@_cpu_streams
def test_half_float_blocked_normals_draw_block_by_block() -> None:
    # 20 = one block of 16 and a redrawn tail: the tail's uniforms follow the first block's
    # 16 draws directly (float32 draws all 20 first).
    tc.manual_seed(0)
    got = tc.randn(20, dtype=tc.float16).tolist()
    assert got == [
        -1.1259765625, -1.15234375, -0.25048828125, -0.433837890625, -1.3525390625,
        -1.6962890625, 0.56689453125, 0.79345703125, 0.5986328125, -1.5546875,
        -0.34130859375, 1.8525390625, 0.75, -0.58544921875, -0.17333984375,
        0.1834716796875, 1.3896484375, 1.5859375, 0.9462890625, -0.84375,
    ]  # fmt: skip
    tc.manual_seed(0)
    y = tc.empty(33, dtype=tc.bfloat16).normal_(1.0, 2.0)
    assert y[-3:].tolist() == [5.59375, -1.9375, -2.171875]
    assert tc.rand(1).item() == pytest.approx(0.2782524824142456, abs=0)  # the stream after


def test_validate_args_is_a_class_attribute() -> None:
    class Plain(dist.Distribution):
        arg_constraints: ClassVar[dict] = {}

    class Quiet(dist.Distribution):
        arg_constraints: ClassVar[dict] = {}
        _validate_args = False  # a subclass's own default, which PyTorch keeps

    assert dist.Distribution._validate_args is True
    assert Plain()._validate_args is True
    assert Plain(validate_args=False)._validate_args is False
    assert Quiet()._validate_args is False
    dist.Distribution.set_default_validate_args(False)
    try:
        assert dist.Distribution._validate_args is False
        assert Plain()._validate_args is False
        assert not dist.Normal(0.0, -1.0)._validate_args  # no error: validation is off
    finally:
        dist.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="scale"):
        dist.Normal(0.0, -1.0)


@_cpu_streams
def test_from_numpy_of_a_read_only_array_shares_it_and_warns_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Glow's LU init does torch.from_numpy(np.diag(w_u)) (a read-only view); pandas'
    # copy-on-write .values are read-only too. PyTorch warns once per process and shares the
    # memory: in-place operators write through (tensorcore raised ValueError on add_).
    np = pytest.importorskip("numpy")
    import tensorcore_cpu.device as cpu_device

    monkeypatch.setattr(cpu_device, "_warned_read_only", False)
    base = np.eye(3)
    diag = np.diag(base)
    assert not diag.flags.writeable
    with pytest.warns(UserWarning, match="The given NumPy array is not writable") as rec:
        t = tc.from_numpy(diag)
    assert rec[0].filename == __file__  # the warning names the caller's line
    t.add_(1.0)
    assert diag.tolist() == [2.0, 2.0, 2.0]
    assert tc.as_tensor(diag).tolist() == [2.0, 2.0, 2.0]  # the second time: no warning
    frozen = np.frombuffer(bytes(16), dtype=np.float64)  # memory that cannot be written
    u = tc.as_tensor(frozen)
    u.add_(1.0)
    assert u.tolist() == [1.0, 1.0] and frozen.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_losses_broadcast_a_mismatched_target_with_a_warning(
    device: str, name: str
) -> None:
    # A regressor's (N, 1) prediction against an (N,) target: PyTorch warns and broadcasts
    # to (N, N) (tensorcore raised); the program runs on with the broadcast loss.
    fn = getattr(tc.nn.functional, name)
    x = tc.ones(4, 1, device=device)
    t = tc.arange(4.0, device=device)
    with pytest.warns(
        UserWarning, match=r"Using a target size .* different to the input size"
    ) as rec:
        out = fn(x, t, reduction="none")
    assert rec[0].filename == __file__
    assert tuple(out.shape) == (4, 4)
    with pytest.warns(UserWarning):
        mean = fn(x, t).item()
    want = {"mse_loss": 1.5, "l1_loss": 1.0, "smooth_l1_loss": 0.625, "huber_loss": 0.625}
    assert mean == pytest.approx(want[name])
    with pytest.warns(UserWarning):
        assert tuple(fn(tc.ones(3, device=device), tc.zeros(2, 3, device=device)).shape) == ()
    with pytest.raises(RuntimeError, match="must match the size"):
        fn(tc.ones(3, device=device), tc.zeros(4, device=device))


def test_private_dirichlet_sampler_and_gradient_as_pytorchs() -> None:
    # A Dirichlet-VAE program calls torch._sample_dirichlet directly (tensorcore had none):
    # PyTorch 2.13's CPU draws for seed 0, the generator form, dtypes, and _dirichlet_grad.
    c = tc.tensor([0.5, 1.0, 2.0])
    tc.manual_seed(0)
    want = [3.9424869e-04, 5.9426978e-02, 9.4017875e-01]
    assert tc._sample_dirichlet(c).tolist() == pytest.approx(want, rel=1e-6)
    g = tc.Generator().manual_seed(0)
    assert tc._sample_dirichlet(c, generator=g).tolist() == pytest.approx(want, rel=1e-6)
    assert tc._sample_dirichlet(tc.ones(2, 2, dtype=tc.float64)).dtype is tc.float64
    with pytest.raises(NotImplementedError, match="\"dirichlet\" not implemented for 'Long'"):
        tc._sample_dirichlet(tc.tensor([1, 2]))
    grad = tc._dirichlet_grad(tc.tensor([0.3, 0.7]), tc.tensor([1.0, 2.0]), tc.tensor([3.0, 3.0]))
    assert grad.tolist() == pytest.approx([0.4123, 0.4161], abs=2e-4)
