"""Memory formats: ``channels_last`` (NHWC) and ``channels_last_3d`` (NDHWC) as PyTorch
documents them. NumPy is the oracle: a format's strides are those of ``np.ascontiguousarray``
of the channels-last transpose, read back in NCHW order; the strides of size-0 and size-1
dims, which NumPy chooses differently, are PyTorch's numbers written out."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close, to_numpy

CL, CL3 = tc.channels_last, tc.channels_last_3d
F = tc.nn.functional


def _np_strides(shape: tuple[int, ...], fmt: tc.memory_format) -> tuple[int, ...]:
    """The element strides NumPy gives an array of ``shape`` stored channels-last."""
    perm = (0, *range(2, len(shape)), 1)  # NCHW -> NHWC
    a = np.ascontiguousarray(np.zeros(shape, np.float32).transpose(perm))
    back = a.transpose(np.argsort(perm))
    return tuple(s // a.itemsize for s in back.strides)


def _x(device: str, *shape: int) -> tuple[tc.Tensor, np.ndarray]:
    n = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape) - 7
    return tc.tensor(n, device=device), n


def test_format_objects() -> None:
    assert repr(CL) == "tensorcore.channels_last"
    assert repr(CL3) == "tensorcore.channels_last_3d"
    assert repr(tc.contiguous_format) == "tensorcore.contiguous_format"
    assert repr(tc.preserve_format) == "tensorcore.preserve_format"
    for f in (CL, CL3, tc.contiguous_format, tc.preserve_format):
        assert isinstance(f, tc.memory_format)
        assert pickle.loads(pickle.dumps(f)) is f


@pytest.mark.parametrize(
    ("shape", "fmt"), [((2, 3, 4, 5), CL), ((3, 2, 5, 4), CL), ((2, 3, 4, 5, 6), CL3)]
)
def test_contiguous_in_format(device: str, shape: tuple[int, ...], fmt: Any) -> None:
    x, n = _x(device, *shape)
    y = x.contiguous(memory_format=fmt)
    assert y.stride() == _np_strides(shape, fmt)
    assert_close(y, n)
    assert y.untyped_storage() is not x.untyped_storage()
    assert y.is_contiguous(memory_format=fmt) and not y.is_contiguous()
    assert x.is_contiguous() and not x.is_contiguous(memory_format=fmt)
    assert y.contiguous(memory_format=fmt) is y
    assert y.to(memory_format=fmt) is y
    back = y.contiguous()
    assert back.is_contiguous() and back.stride() == x.stride()
    assert_close(back, n)
    assert_close(x.clone(memory_format=fmt), n)
    assert x.clone(memory_format=fmt).stride() == y.stride()


@pytest.mark.parametrize(
    ("shape", "strides", "contiguous"),
    [  # PyTorch's numbers: it multiplies by the sizes as they are, 0 included
        ((0, 3, 2, 2), (12, 1, 6, 3), True),
        ((2, 0, 2, 2), (0, 1, 0, 0), True),
        ((2, 3, 1, 1), (3, 1, 3, 3), True),
        ((2, 1, 2, 2), (4, 1, 2, 1), True),
        ((1, 3, 2, 2), (12, 1, 6, 3), False),
    ],
)
def test_degenerate_sizes(
    device: str, shape: tuple[int, ...], strides: tuple[int, ...], contiguous: bool
) -> None:
    e = tc.empty(shape, memory_format=CL, device=device)
    assert e.stride() == strides and e.device.type == device
    assert e.is_contiguous(memory_format=CL)
    assert e.is_contiguous() is contiguous
    assert tc.zeros(shape, device=device).to(memory_format=CL).stride() == strides


def test_is_contiguous_arguments(device: str) -> None:
    x = tc.zeros(2, 3, 4, device=device)
    assert not x.is_contiguous(memory_format=CL)  # another rank: False, not an error
    assert not tc.zeros(2, 3, 4, 5, device=device).is_contiguous(memory_format=CL3)
    assert x.is_contiguous(memory_format=tc.preserve_format)
    assert x.is_contiguous(memory_format=tc.contiguous_format)
    with pytest.raises(TypeError, match="memory_format"):
        x.is_contiguous(memory_format=None)
    with pytest.raises(TypeError):
        x.is_contiguous(CL)  # keyword-only, as in PyTorch
    sliced = tc.zeros(2, 3, 4, 5, device=device).contiguous(memory_format=CL)[:, :, ::2]
    assert not sliced.is_contiguous(memory_format=CL)
    nhwc = tc.zeros(2, 4, 5, 3, device=device).permute(0, 3, 1, 2)
    assert nhwc.is_contiguous(memory_format=CL) and not nhwc.is_contiguous()


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.contiguous(memory_format=CL),
        lambda x: x.clone(memory_format=CL),
        lambda x: x.to(memory_format=CL),
        lambda x: x.to(tc.float64, memory_format=CL),
        lambda x: tc.empty(x.shape, memory_format=CL, device=x.device),
        lambda x: tc.empty_like(x, memory_format=CL),
        lambda x: tc.zeros_like(x, memory_format=CL),
        lambda x: tc.full_like(x, 2.0, memory_format=CL),
    ],
)
def test_rank_errors(device: str, call: Any) -> None:
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        call(tc.zeros(2, 3, 4, device=device))
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        call(tc.zeros(2, 3, 4, 5, 6, device=device))


def test_other_errors(device: str) -> None:
    x = tc.zeros(2, 3, 4, 5, device=device)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        x.contiguous(memory_format=CL3)
    assert x.contiguous(memory_format=tc.preserve_format) is x
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        x.transpose(2, 3).contiguous(memory_format=tc.preserve_format)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        tc.empty(2, 3, memory_format=tc.preserve_format, device=device)
    for call in (
        lambda: x.contiguous(memory_format=1),
        lambda: x.to(memory_format=1),
        lambda: x.clone(memory_format="channels_last"),
    ):
        with pytest.raises(TypeError, match=r"must be tensorcore\.memory_format"):
            call()


def test_to(device: str) -> None:
    x, n = _x(device, 2, 3, 4, 5)
    cl_strides = _np_strides((2, 3, 4, 5), CL)
    y = x.to(memory_format=CL)
    assert y.stride() == cl_strides
    assert_close(y, n)
    assert y.to(memory_format=CL, copy=True) is not y
    assert y.to(memory_format=CL, copy=True).stride() == cl_strides
    # with a dtype: converted and laid out at once; a dtype alone keeps the memory order
    z = x.to(tc.float64, memory_format=CL)
    assert z.dtype is tc.float64 and z.stride() == cl_strides
    assert_close(z, n.astype(np.float64))
    assert y.to(tc.float64).stride() == cl_strides
    m = tc.zeros(2, 3, device=device).t()
    assert m.to(tc.int64).stride() == m.stride() == (1, 3)
    assert y.to(device=device, memory_format=CL) is y
    c = y.to(memory_format=tc.contiguous_format)
    assert c.is_contiguous() and c.stride() == (60, 20, 5, 1)
    assert_close(c, n)
    assert y.to(memory_format=tc.preserve_format) is y
    # strides that merely pass the contiguity test do not suggest the format: PyTorch copies
    w = tc.zeros(4, 1, 3, 3, device=device)
    assert w.is_contiguous(memory_format=CL) and w.contiguous(memory_format=CL) is w
    assert w.to(memory_format=CL).stride() == (9, 1, 3, 1)
    e = tc.empty(2, 3, 1, 1, memory_format=CL, device=device)
    assert e.to(memory_format=tc.contiguous_format).stride() == (3, 1, 1, 1)


@pytest.mark.parametrize(
    "name", ["empty_like", "zeros_like", "ones_like", "rand_like", "full_like"]
)
def test_like_factories(device: str, name: str) -> None:
    x = tc.zeros(2, 3, 4, 5, device=device)
    y = x.contiguous(memory_format=CL)
    fn = getattr(tc, name)
    args = (1.5,) if name == "full_like" else ()
    cl_strides = _np_strides((2, 3, 4, 5), CL)
    assert fn(x, *args, memory_format=CL).stride() == cl_strides
    assert fn(y, *args).stride() == cl_strides  # preserve_format, the default
    assert fn(y, *args, memory_format=tc.contiguous_format).stride() == x.stride()
    assert fn(x, *args, memory_format=CL, dtype=tc.float64).dtype is tc.float64
    if name in ("zeros_like", "ones_like", "full_like"):
        want = {"zeros_like": 0.0, "ones_like": 1.0, "full_like": 1.5}[name]
        assert_close(fn(x, *args, memory_format=CL), np.full((2, 3, 4, 5), want, np.float32))


def test_pointwise_keeps_channels_last(device: str) -> None:
    x, n = _x(device, 2, 3, 4, 5)
    y = x.contiguous(memory_format=CL)
    cl_strides = y.stride()
    bias, nb = _x(device, 3, 1, 1)
    row, nr = _x(device, 5)
    for got, want in [
        (y + 1, n + 1),
        (y + y, n + n),
        (y + bias, n + nb),
        (y * row, n * nr),
        (y.relu(), np.maximum(n, 0)),
        (y.sin(), np.sin(n)),
        (y + x, n + n),  # both dense: the first operand's order, as PyTorch's TensorIterator
        (tc.where(y > 0, y, 0.0), np.where(n > 0, n, 0)),
    ]:
        assert got.stride() == cl_strides
        assert_close(got, want, rtol=1e-5, atol=1e-5)
    assert (x + y).stride() == x.stride()
    y.add_(1)
    assert y.stride() == cl_strides
    assert_close(y, n + 1)


def test_operand_expanded_from_one_element_has_no_say(device: str) -> None:
    # A scalar expanded (the gradient sum's rule hands on) gives a row-major result alone,
    # and leaves the order to the other operand (PyTorch's TensorIterator skips its dims).
    one = tc.tensor(2.0, device=device).expand(3, 4, 5)
    x, n = _x(device, 3, 4, 5)
    t = x.permute(2, 0, 1).contiguous().permute(1, 2, 0)  # dense, dims ordered 2, 0, 1
    assert (one * 3).stride() == (20, 5, 1)
    assert_close(one * 3, np.full((3, 4, 5), 6.0, np.float32))
    for got in (one * t, t * one):
        assert got.stride() == t.stride()
        assert_close(got, 2 * n)


def test_module_to(device: str) -> None:
    model = tc.nn.Sequential(
        tc.nn.Conv2d(3, 4, 3), tc.nn.BatchNorm2d(4), tc.nn.Flatten(), tc.nn.Linear(16, 2)
    ).to(device)
    w = model[0].weight
    before = to_numpy(w)
    assert model.to(memory_format=CL) is model
    assert model[0].weight is w and w.stride() == _np_strides((4, 3, 3, 3), CL)
    np.testing.assert_array_equal(to_numpy(w), before)
    assert model[0].bias.stride() == (1,) and model[3].weight.stride() == (16, 1)
    assert model[1].running_mean.stride() == (1,)
    model.to(tc.float64, memory_format=CL)
    assert w.dtype is tc.float64 and w.stride() == _np_strides((4, 3, 3, 3), CL)
    assert tc.nn.Conv2d(1, 4, 3).to(memory_format=CL).weight.stride() == (9, 1, 3, 1)
    conv3 = tc.nn.Conv3d(2, 4, 3).to(device)
    assert conv3.to(memory_format=CL3).weight.stride() == _np_strides((4, 2, 3, 3, 3), CL3)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        tc.nn.Conv3d(2, 4, 3).to(memory_format=CL)


@pytest.mark.parametrize(
    "layer",
    [
        lambda: tc.nn.Conv2d(3, 4, 3, padding=1),
        lambda: tc.nn.Conv2d(3, 6, 3, stride=2, groups=3),
        lambda: tc.nn.MaxPool2d(2),
        lambda: tc.nn.AvgPool2d(3, stride=2, padding=1),
        lambda: tc.nn.AdaptiveAvgPool2d(1),
        lambda: tc.nn.BatchNorm2d(3),
        lambda: tc.nn.Upsample(scale_factor=2),
    ],
)
def test_layers_on_channels_last_input(device: str, layer: Any) -> None:
    """Values and gradients are those of the row-major input (whose values the layers' own
    tests check against NumPy); the layouts: ``test_memory_format_layers.py``."""
    tc.manual_seed(0)
    m = layer().to(device)
    n = np.random.default_rng(0).standard_normal((2, 3, 6, 7)).astype(np.float32)
    x = tc.tensor(n, device=device, requires_grad=True)
    xc = tc.tensor(n, device=device).contiguous(memory_format=CL).requires_grad_()
    assert xc.is_contiguous(memory_format=CL)
    a, b = m(x), m(xc)
    assert_close(b, to_numpy(a.detach()), rtol=1e-5, atol=1e-5)
    gy = tc.tensor(np.random.default_rng(1).standard_normal(a.shape).astype(np.float32))
    a.backward(gy.to(device))
    b.backward(gy.to(device))
    assert x.grad is not None
    assert_close(xc.grad, to_numpy(x.grad), rtol=1e-5, atol=1e-5)
