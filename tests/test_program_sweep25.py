"""Gaps found by running small PyTorch programs of domains the earlier sweeps left out
(detection utilities, point clouds, audio, recommenders, mixtures of experts, contrastive
learning, classic ML, quantisation, printing) with ``import tensorcore as torch`` (the
twenty-fifth sweep): each test pins PyTorch 2.13's behaviour that such a program meets."""

from __future__ import annotations

import pytest

import tensorcore as tc
from tensorcore import nn


def test_randint_takes_high_and_size_by_name() -> None:
    # ``torch.randint(n_items, size=(5,))`` (negative sampling) and the all-keyword form;
    # the draws are PyTorch's (recorded from PyTorch 2.13 with manual_seed(0)).
    tc.manual_seed(0)
    assert tc.randint(5, size=(3,)).tolist() == [4, 4, 3]
    assert tc.randint(low=2, high=5, size=(3,)).tolist() == [2, 3, 2]
    assert tc.randint(high=5, size=(3,)).tolist() == [2, 3, 2]
    assert tc.randint(2, 5, size=(3,)).tolist() == [2, 4, 4]
    assert tc.randint(2, high=5, size=(3,)).tolist() == [2, 2, 3]
    assert tc.randint(2, 5, (2,)).tolist() == [4, 2]
    assert tc.randint(5, tc.Size([2])).tolist() == [3, 4]
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        tc.randint(3, 5)
    with pytest.raises(TypeError, match="'size'"):
        tc.randint(5)


def test_optimizer_repr_parts_groups_with_a_blank_line() -> None:
    a, b = nn.Parameter(tc.zeros(1)), nn.Parameter(tc.zeros(1))
    opt = tc.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=0.01)
    keys = ["dampening", "differentiable", "foreach", "fused", "lr", "maximize", "momentum"]
    keys += ["nesterov", "weight_decay"]
    text = repr(opt).splitlines()
    assert text[0] == "SGD ("
    assert text[1] == "Parameter Group 0"
    assert text[11] == ""
    assert text[12] == "Parameter Group 1"
    assert text[-1] == ")"
    assert [line.split(":")[0].strip() for line in text[13:-1]] == keys
    assert text[17] == "    lr: 0.1"


def test_set_printoptions_resets_sci_mode_when_left_out() -> None:
    # PyTorch assigns sci_mode on every call: ``set_printoptions(threshold=5)`` after
    # ``sci_mode=True`` prints integer-valued floats plainly again.
    try:
        tc.set_printoptions(sci_mode=True)
        assert repr(tc.tensor([1.5, 2.5])) == "tensor([1.5000e+00, 2.5000e+00])"
        tc.set_printoptions(threshold=5, edgeitems=2)
        assert tc.get_printoptions()["sci_mode"] is None
        assert repr(tc.arange(20.0).view(4, 5)) == (
            "tensor([[ 0.,  1.,  ...,  3.,  4.],\n"
            "        [ 5.,  6.,  ...,  8.,  9.],\n"
            "        [10., 11.,  ..., 13., 14.],\n"
            "        [15., 16.,  ..., 18., 19.]])"
        )
    finally:
        tc.set_printoptions(profile="default")


_NAN, _INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        # float32 rounds 0.05 * 10 to 0.5 (to even: 0); float64 does not; NaN goes to
        # quant_min, as PyTorch's integer cast sends it (values recorded from PyTorch 2.13)
        ("float32", [0.0, 0.2, 0.2, 0.0, 12.7, 12.7, -12.8, 0.0, -12.8, 0.4]),
        ("float64", [0.1, 0.2, 0.2, -0.1, 12.7, 12.7, -12.8, 0.0, -12.8, 0.3]),
        (
            "float16",
            [0.0, 0.199951171875, 0.199951171875, 0.0, 12.703125, 12.703125]
            + [-12.796875, 0.0, -12.796875, 0.39990234375],
        ),
        (
            "bfloat16",
            [0.10009765625, 0.2001953125, 0.2001953125, -0.10009765625, 12.6875]
            + [12.6875, -12.8125, 0.0, -12.8125, 0.30078125],
        ),
    ],
)
def test_fake_quantize_per_tensor_affine_values(dtype: str, expected: list[float]) -> None:
    x = tc.tensor([0.05, 0.15, 0.25, -0.05, 1e9, _INF, _NAN, -0.01, -30.0, 0.35])
    out = tc.fake_quantize_per_tensor_affine(x.to(getattr(tc, dtype)), 0.1, 0, -128, 127)
    assert out.dtype == getattr(tc, dtype)
    assert out.float().tolist() == pytest.approx(expected, rel=1e-6)


@pytest.mark.parametrize("tensor_qparams", [False, True])
def test_fake_quantize_passes_the_gradient_within_the_range(tensor_qparams: bool) -> None:
    x = tc.linspace(-2, 2, 9, requires_grad=True)
    if tensor_qparams:
        y = tc.fake_quantize_per_tensor_affine(
            x, tc.tensor(0.25), tc.tensor(10, dtype=tc.int32), 0, 15
        )
    else:
        y = tc.fake_quantize_per_tensor_affine(x, 0.25, 10, 0, 15)
    y.backward(tc.arange(9.0))
    assert y.tolist() == [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.25, 1.25]
    assert x.grad is not None
    assert x.grad.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
    name = "TensorQparams" if tensor_qparams else ""
    assert type(y.grad_fn).__name__ == f"FakeQuantizePerTensorAffineCachemask{name}Backward0"


def test_fake_quantize_per_channel_affine() -> None:
    w = tc.tensor([[0.05, 0.26, 0.14], [1.0, -1.0, 0.33]], requires_grad=True)
    zp = tc.tensor([0, 1, -2], dtype=tc.int32)
    y = tc.fake_quantize_per_channel_affine(w, tc.tensor([0.1, 0.2, 0.3]), zp, 1, -8, 7)
    y.sum().backward()
    assert y.flatten().tolist() == pytest.approx([0.0, 0.2, 0.0, 0.7, -1.0, 0.3])
    assert w.grad is not None
    assert w.grad.tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    assert type(y.grad_fn).__name__ == "FakeQuantizePerChannelAffineCachemaskBackward0"
    # a floating zero point is added before rounding
    y = tc.fake_quantize_per_channel_affine(
        w.detach(), tc.tensor([0.1, 0.2]), tc.tensor([0.0, 0.5]), 0, -8, 7
    )
    assert y.flatten().tolist() == pytest.approx([0.0, 0.3, 0.1, 1.1, -0.9, 0.3])


def test_fake_quantize_errors() -> None:
    x = tc.ones(2, 4)
    with pytest.raises(RuntimeError, match="`quant_min` should be less than or equal"):
        tc.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 3)
    with pytest.raises(RuntimeError, match="`zero_point` must be between"):
        tc.fake_quantize_per_tensor_affine(x, 0.1, 200, -128, 127)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        tc.fake_quantize_per_tensor_affine(x.int(), 0.1, 0, -128, 127)
    i32 = tc.int32
    with pytest.raises(RuntimeError, match="not consistent with input tensor"):
        tc.fake_quantize_per_channel_affine(
            x, tc.tensor([0.1]), tc.tensor([0], dtype=i32), 0, -128, 127
        )
    with pytest.raises(IndexError, match="Dimension out of range"):
        tc.fake_quantize_per_channel_affine(
            x, tc.tensor([0.1, 0.1]), tc.tensor([0, 0], dtype=i32), 2, -128, 127
        )
    with pytest.raises(RuntimeError, match="Zero-point must be Int32, Float or Half, found Long"):
        tc.fake_quantize_per_channel_affine(x, tc.tensor([0.1, 0.1]), tc.tensor([0, 0]), 0, 0, 9)
    with pytest.raises(RuntimeError, match="Scale must be Float or BFloat16, found Double"):
        tc.fake_quantize_per_channel_affine(
            x, tc.tensor([0.1, 0.1]).double(), tc.tensor([0, 0], dtype=i32), 0, 0, 9
        )
    with pytest.raises(RuntimeError, match="`zero_point` must be between"):
        tc.fake_quantize_per_channel_affine(
            x, tc.tensor([0.1, 0.1]), tc.tensor([0, 200], dtype=i32), 0, -128, 127
        )


def test_float_arange_is_pytorchs_bit_for_bit(device: str) -> None:
    # PyTorch's CPU kernel counts each 256-bit vector from a base rounded to the dtype, with
    # fused multiply-adds: within an ulp of start + i * step, but not always it (a float32
    # time axis fed to sin of large arguments printed values 1e-3 apart). Values recorded
    # from PyTorch 2.13.
    t = tc.arange(0, 1, 0.01, device=device)
    idx = [9, 15, 18, 23, 27, 30]
    expected = [0.08999999612569809, 0.14999999105930328, 0.17999999225139618]
    expected += [0.22999998927116394, 0.26999998092651367, 0.29999998211860657]
    assert t[idx].tolist() == expected
    assert len(t) == 100 and t[-1].item() == pytest.approx(0.99)
    t = tc.arange(-3, 3, 0.1, dtype=tc.float64, device=device)
    expected = [-2.3000000000000003, -1.9000000000000001, -1.6999999999999997]
    expected += [-1.4999999999999998, -0.9999999999999999, -0.6999999999999998]
    assert t[[7, 11, 13, 15, 20, 23]].tolist() == expected
    t = tc.arange(0, 1, 0.01, dtype=tc.float16, device=device)
    assert t[90:94].tolist() == [0.89990234375, 0.90966796875, 0.919921875, 0.9296875]
    assert t[94:97].tolist() == [0.93994140625, 0.94970703125, 0.9599609375]
    t = tc.arange(0, 0.5, 1 / 8000, device=device)
    a = 2 * 3.141592653589793 * 1200 * t * (1 + t)
    assert tc.sin(a)[3237].item() == pytest.approx(0.09890385717153549, rel=1e-6)
    # whole numbers are exact whatever the counting
    assert tc.arange(5, dtype=tc.float32, device=device).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_float_arange_splits_long_ranges_as_pytorchs_threads() -> None:
    # More than 32768 elements: each of PyTorch's threads counts its own chunk (2 threads
    # recorded).
    threads = tc.get_num_threads()
    try:
        tc.set_num_threads(2)
        t = tc.arange(0, 1, 1e-5)
        assert t[[99985, 99986, 99990, 99994, 99998]].tolist() == [
            0.9998500347137451,
            0.9998600482940674,
            0.9999000430107117,
            0.999940037727356,
            0.9999800324440002,
        ]
    finally:
        tc.set_num_threads(threads)


def test_meshgrid_without_indexing_warns_with_pytorchs_words() -> None:
    with pytest.warns(UserWarning) as record:
        gx, _ = tc.meshgrid(tc.arange(3), tc.arange(2))
    assert str(record[0].message) == (
        "tensorcore.meshgrid: in an upcoming release, it will be required to pass the "
        "indexing argument."
    )
    assert gx.tolist() == [[0, 0], [1, 1], [2, 2]]


def test_fake_quantize_qparams_that_require_grad_are_refused_as_pytorch_refuses_them() -> None:
    # (PyTorch 2.13's messages; under no_grad the call runs)
    x = tc.randn(2, 3, requires_grad=True)
    s = tc.tensor([0.1, 0.2, 0.3], requires_grad=True)
    z = tc.zeros(3, dtype=tc.int32)
    per_channel = "The function 'fake_quantize_per_channel_affine_cachemask' is not"
    with pytest.raises(RuntimeError, match=f"^{per_channel} differentiable .* argument 'scale'"):
        tc.fake_quantize_per_channel_affine(x.detach(), s, z, 1, -8, 7)
    with pytest.raises(RuntimeError, match=r"argument 'zero_point'\. This input cannot have"):
        tc.fake_quantize_per_channel_affine(
            x, s.detach(), tc.zeros(3, requires_grad=True), 1, -8, 7
        )
    with pytest.raises(RuntimeError, match=r"^The function '_fake_quantize_per_tensor_affine_cach"):
        tc.fake_quantize_per_tensor_affine(x, s[0], tc.tensor(0, dtype=tc.int32), -8, 7)
    with tc.no_grad():
        assert not tc.fake_quantize_per_channel_affine(x, s, z, 1, -8, 7).requires_grad
