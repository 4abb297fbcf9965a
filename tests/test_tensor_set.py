"""``Tensor.set_``: PyTorch's storage re-pointing (a tensor source, a storage with a
geometry, nothing), writes visible both ways, PyTorch's errors and autograd rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_close


def test_set_to_a_tensor_shares_its_storage(device: str) -> None:
    a = tc.arange(6.0, device=device)
    b = tc.zeros(2, device=device)
    assert b.set_(a) is b
    assert b.is_set_to(a) and b.shape == (6,) and b.stride() == (1,)
    assert b.untyped_storage() is a.untyped_storage()
    b[0] = 100.0
    a[1] = -1.0
    assert_close(a, np.array([100.0, -1, 2, 3, 4, 5], np.float32))
    assert_close(b, np.array([100.0, -1, 2, 3, 4, 5], np.float32))
    t = a.reshape(2, 3).t()[1:]  # a strided, offset view
    c = tc.empty(0, device=device).set_(source=t)
    assert c.is_set_to(t) and c.storage_offset() == 1 and tc.equal(c, t)
    c.mul_(2)
    assert tc.equal(t, c)


def test_set_to_a_storage_with_a_geometry(device: str) -> None:
    a = tc.arange(6.0, device=device)
    c = tc.empty(0, device=device).set_(a.untyped_storage(), 2, (2, 2), (1, 2))
    assert c.storage_offset() == 2 and c.stride() == (1, 2)
    assert_close(c, np.array([[2.0, 4.0], [3.0, 5.0]], np.float32))
    c[0, 0] = 7.0
    assert a[2].item() == 7.0
    d = tc.empty(0, device=device).set_(a.untyped_storage(), 1, (3,))  # contiguous strides
    assert d.stride() == (1,) and d.tolist() == [1.0, 7.0, 3.0]
    whole = tc.empty(0, device=device).set_(a.untyped_storage())
    assert tc.equal(whole, a)
    kw = tc.empty(0, device=device).set_(
        source=a.untyped_storage(), storage_offset=1, size=(2,), stride=(2,)
    )
    assert kw.tolist() == [1.0, 3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (TypedStorage is deprecated, as in PyTorch)
        typed = a.storage()
    assert tc.equal(tc.empty(0, device=device).set_(typed), a)
    # the bytes seen in another dtype, the offset in its elements (PyTorch's)
    wide = tc.empty(0, dtype=tc.float64, device=device).set_(a.untyped_storage(), 1, (1,))
    assert wide.item() == a.cpu().numpy().view(np.float64)[1]


def test_set_with_no_source_gives_an_empty_storage(device: str) -> None:
    a = tc.ones(3, device=device)
    b = a[1:]
    assert b.set_() is b
    assert b.shape == (0,) and b.untyped_storage().nbytes() == 0
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_set_errors_are_pytorchs(device: str) -> None:
    a = tc.arange(6.0, device=device)
    s = a.untyped_storage()
    with pytest.raises(
        RuntimeError, match="Could not set tensor of type float to a tensor of type double"
    ):
        tc.zeros(2, dtype=tc.float64, device=device).set_(a)
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        tc.empty(0, device=device).set_(s, 0, (10,))
    with pytest.raises(RuntimeError, match="Tensor: invalid storage offset -1"):
        tc.empty(0, device=device).set_(s, -1, (2,))
    with pytest.raises(RuntimeError, match=r"unequal size length \(2\) and stride length \(1\)"):
        tc.empty(0, device=device).set_(s, 0, [2, 2], [2])
    with pytest.raises(TypeError, match="must be Tensor or Storage, not float"):
        tc.empty(0, device=device).set_(3.0)
    if device != "meta":
        with pytest.raises(RuntimeError, match='tensor on device "meta" to a storage on'):
            tc.empty(0, device="meta").set_(a)


def test_set_autograd_rules(device: str) -> None:
    a = tc.arange(3.0, device=device)
    leaf = tc.zeros(2, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        leaf.set_(a)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        leaf.set_()
    with tc.no_grad():
        leaf.set_(a)
    assert leaf.requires_grad and leaf.is_leaf and tc.equal(leaf, a)
    # In a graph, the result has PyTorch's node without a derivative.
    src = tc.arange(3.0, device=device, requires_grad=True)
    y = tc.zeros(3, device=device)
    y.set_(src)
    assert y.requires_grad and not y.is_leaf and type(y.grad_fn).__name__ == "NotImplemented"
    assert y.grad_fn.next_functions[1][0] is not None  # (src's accumulator)
    assert y._version == 1 and src._version == 0
    with pytest.raises(RuntimeError, match="derivative for set_ is not implemented"):
        y.sum().backward()
    x = tc.zeros(2, device=device, requires_grad=True) * 2
    x.set_(a)
    assert type(x.grad_fn).__name__ == "NotImplemented"
