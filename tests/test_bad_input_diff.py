"""Bad input that a differential run against PyTorch found handled differently: each call
raises PyTorch's exception type with its wording (and the operator's name), and leaves its
inputs as they were."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc

F = tc.nn.functional


def _state(t: tc.Tensor) -> Any:
    return t.shape, t.stride(), t.dtype, t._version, repr(t.tolist())


def _refused(exc: type[BaseException], match: str, fn: Callable[[], Any], *inputs: Any) -> None:
    """``fn()`` raises ``exc`` matching ``match`` and changes none of ``inputs``."""
    before = [_state(t) for t in inputs]
    with pytest.raises(exc, match=match):
        fn()
    assert [_state(t) for t in inputs] == before


def test_out_that_is_an_input_is_not_resized(device: str) -> None:
    a = tc.arange(6.0, device=device).reshape(2, 3)
    _refused(
        RuntimeError,
        r"cat\(\): unsupported operation: some elements of the input tensor and the written",
        lambda: tc.cat([a, a], out=a),
        a,
    )
    x, b = tc.ones(3, device=device), tc.ones(2, 3, device=device)
    _refused(
        RuntimeError,
        r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\] \(in add\)",
        lambda: tc.add(x, b, out=x),
        x,
        b,
    )
    _refused(RuntimeError, r"sum\(\): unsupported operation", lambda: tc.sum(a, 0, out=a), a)
    # an out that no input reads is still resized, as PyTorch resizes it (with its warning)
    o = tc.empty(0, device=device)
    assert tc.add(x, b, out=o).shape == (2, 3) and o.shape == (2, 3)
    assert tc.add(x, 1, out=x) is x  # (the same shape: an ordinary in-place call)


@pytest.mark.parametrize(
    ("dtype", "name"),
    [(tc.float64, "double"), (tc.int64, "long int"), (tc.float16, "c10::Half")],
)
def test_assigned_grad_must_have_the_tensors_dtype(device: str, dtype: tc.dtype, name: str) -> None:
    w = tc.ones(3, device=device, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=f"attempting to assign a gradient with dtype '{name}' to a tensor with "
        "grad_dtype 'Float'",
    ):
        w.grad = tc.ones(3, dtype=dtype, device=device)
    assert w.grad is None
    w.grad = tc.ones(3, device=device)
    assert w.grad.dtype == tc.float32


def test_embedding_weight_must_be_a_matrix(device: str) -> None:
    w = tc.arange(5.0, device=device)
    with pytest.raises(RuntimeError, match=r"embedding\(\): 'weight' must be 2-D, got .*\[5\]"):
        F.embedding(tc.tensor([1], device=device), w)


@pytest.mark.parametrize("dtype", [tc.int64, tc.int32, tc.uint8, tc.bool])
def test_round_to_decimals_needs_floats(device: str, dtype: tc.dtype) -> None:
    x = tc.ones(2, dtype=dtype, device=device)
    _refused(
        NotImplementedError,
        rf"round\(\): \"round_{device}\" not implemented for '.*' \(decimals=1\)",
        lambda: tc.round(x, decimals=1),
        x,
    )
    _refused(NotImplementedError, r"round_\(\): ", lambda: x.round_(decimals=-1), x)
    if dtype is not tc.bool:  # (PyTorch refuses bools either way)
        assert tc.round(x).tolist() == x.tolist()  # without decimals: unchanged
    assert tc.round(tc.tensor([1.26], device=device), decimals=1).item() == pytest.approx(1.3)


_Z = lambda d: tc.ones(2, dtype=tc.complex64, device=d)  # noqa: E731


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda d: _Z(d).sort(), r"sort\(\): Sort does not support complex dtypes"),
        (lambda d: _Z(d).argsort(), r"argsort\(\): Sort does not support complex dtypes"),
        (lambda d: tc.msort(_Z(d)), r"Sort does not support complex dtypes"),
        (lambda d: _Z(d).topk(1), r"^topk does not support complex dtypes"),
        (
            lambda d: tc.ones(2, dtype=tc.bool, device=d).topk(1),
            r"topk does not support bool dtypes",
        ),
        (lambda d: tc.maximum(_Z(d), _Z(d)), r"maximum not implemented for complex tensors\."),
        (lambda d: tc.minimum(tc.ones(2, device=d), _Z(d)), r"minimum not implemented for"),
        (lambda d: tc.fmax(_Z(d), _Z(d)), r"fmax not implemented for complex tensors\."),
        (lambda d: tc.fmin(_Z(d), _Z(d)), r"fmin not implemented for complex tensors\."),
        (lambda d: tc.heaviside(_Z(d), _Z(d)), r"heaviside is not yet implemented for complex"),
        (lambda d: _Z(d).max(0), r"max\(\): does not support complex input"),
        (lambda d: _Z(d).min(dim=0), r"min\(\): does not support complex input"),
        (
            lambda d: tc.multinomial(tc.ones(2, dtype=tc.int32, device=d), 1),
            r"multinomial only supports floating-point dtypes for input, got: Int",
        ),
    ],
)
def test_dtypes_refused_with_the_operators_own_error(device: str, call: Any, match: str) -> None:
    """Where PyTorch's operator checks the dtype itself, a ``RuntimeError`` in its words
    (not the dispatcher's ``NotImplementedError``)."""
    with pytest.raises(RuntimeError, match=match):
        call(device)


def test_normal_refuses_a_negative_std(device: str) -> None:
    mean = tc.zeros(2, device=device)
    with pytest.raises(RuntimeError, match=r"normal expects std >= 0\.0, but found std -1"):
        tc.normal(mean, -1.0)
    for std in ([-1.0, 1.0], [float("nan"), 1.0]):
        with pytest.raises(RuntimeError, match=r"normal expects all elements of std >= 0\.0"):
            tc.normal(mean, tc.tensor(std, device=device))
        with pytest.raises(RuntimeError, match=r"normal expects all elements of std >= 0\.0"):
            tc.normal(0.0, tc.tensor(std, device=device))
    assert tc.normal(mean, tc.zeros(2, device=device)).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("rate", [-1.0, float("nan")])
def test_poisson_refuses_a_negative_or_nan_rate(device: str, rate: float) -> None:
    # (a NaN rate used to spin forever in the rejection sampler)
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-neg"):
        tc.poisson(tc.tensor([2.0, rate], device=device))


def test_narrow_errors_as_pytorch(device: str) -> None:
    x = tc.arange(10.0, device=device)
    with pytest.raises(RuntimeError, match=r"start \(8\) \+ length \(3\) exceeds dimension size"):
        x.narrow(0, 8, 3)
    with pytest.raises(RuntimeError, match=r"start \(7\) \+ length \(5\) exceeds"):
        x.narrow(0, -3, 5)  # (the start PyTorch reports is the wrapped one)
    with pytest.raises(RuntimeError, match=r"narrow\(\): length must be non-negative\."):
        x.narrow(0, 0, -1)
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of "):
        x.narrow(0, -11, 1)
    assert x.narrow(0, 10, 0).shape == (0,) and x.narrow(0, -3, 3).tolist() == [7.0, 8.0, 9.0]


def test_index_fill_and_index_copy_take_int64_indices_only(device: str) -> None:
    a = tc.ones(2, 3, device=device)
    for index in (tc.tensor([0.0], device=device), tc.tensor([0], dtype=tc.int32, device=device)):
        _refused(
            IndexError,
            r"index_fill_\(\): Expected dtype int64 for index\.",
            lambda i=index: a.index_fill_(0, i, 2.0),
            a,
        )
        _refused(
            RuntimeError,
            r"index_copy_\(\): Expected a long tensor for index, but got (Float|Int)",
            lambda i=index: a.index_copy_(0, i, tc.zeros(1, 3, device=device)),
            a,
        )
    # index_add_ takes int32 as PyTorch's does
    a.index_add_(0, tc.tensor([1], dtype=tc.int32, device=device), tc.ones(1, 3, device=device))
    assert a.tolist() == [[1.0] * 3, [2.0] * 3]


def test_a_string_index_is_a_type_error(device: str) -> None:
    a = tc.ones(2, 3, device=device)
    with pytest.raises(TypeError, match="invalid index of type 'str'"):
        a["x"]  # type: ignore[index]
    with pytest.raises(TypeError, match="invalid index of type 'str'"):
        a[None, "x"]  # type: ignore[index]
    with pytest.raises(IndexError, match="only integers, slices"):
        a[1.5]  # type: ignore[index]


def test_view_takes_its_dtype_as_a_keyword(device: str) -> None:
    a = tc.arange(6.0, device=device).reshape(2, 3)
    assert a.view(dtype=tc.int32).dtype == tc.int32
    assert a.view(dtype=tc.int32).tolist() == a.view(tc.int32).tolist()
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view"):
        a.view(dtype=tc.complex64)
    with pytest.raises(TypeError, match=r"view\(\) got an unexpected keyword argument 'foo'"):
        a.view(foo=1)
    with pytest.raises(TypeError, match=r"view\(\) got an unexpected keyword argument 'dtype'"):
        a.view(3, dtype=tc.int32)


def test_unflatten_refuses_no_sizes(device: str) -> None:
    with pytest.raises(RuntimeError, match="unflatten: sizes must be non-empty"):
        tc.ones(2, device=device).unflatten(0, ())


@pytest.mark.parametrize(
    ("shapes", "exc", "match"),
    [
        (
            ((2, 3, 4), (2,)),
            RuntimeError,
            r"nll_loss\(\): Expected target size \[2, 4\], got \[2\]",
        ),
        (((2, 3, 4, 5), (2, 4)), RuntimeError, r"Expected target size \[2, 4, 5\], got \[2, 4\]"),
        (((2, 3), (2, 4)), RuntimeError, r"0D or 1D target tensor expected, multi-target not"),
        (((2, 3), (3,)), ValueError, r"Expected input batch_size \(2\) to match target batch_s"),
        (((2, 3, 4), ()), ValueError, r"Expected input batch_size \(2\) to match target batch_s"),
        (((3,), (2,)), ValueError, r"For 1D input, 1D target must have size 1, but got target"),
        (((3,), (1, 1)), RuntimeError, r"0D or 1D target tensor expected"),
        (((), ()), ValueError, r"Expected 1 or more dimensions \(got 0\)"),
    ],
)
def test_nll_loss_target_shapes_as_pytorch(
    device: str, shapes: Any, exc: type[Exception], match: str
) -> None:
    x = tc.zeros(*shapes[0], device=device).log_softmax(0 if len(shapes[0]) < 2 else 1)
    t = tc.zeros(shapes[1], dtype=tc.int64, device=device)
    with pytest.raises(exc, match=match):
        F.nll_loss(x, t)
    if x.ndim:  # (cross_entropy's log_softmax refuses a 0-d input first, as PyTorch's)
        with pytest.raises(exc, match=match):
            F.cross_entropy(x, t)


def test_nll_loss_takes_a_one_element_target_for_a_vector(device: str) -> None:
    x = tc.tensor([0.1, 0.7, 0.2], device=device).log()
    t = tc.tensor([1], device=device)
    assert F.nll_loss(x, t).item() == pytest.approx(-x[1].item())
    assert F.cross_entropy(x, t).item() == pytest.approx(-x.log_softmax(0)[1].item())


def test_writing_one_value_into_an_expanded_tensor(device: str) -> None:
    """``fill_``/``zero_`` write one value wherever they write, so PyTorch lets them write
    into elements that share memory; ``masked_fill_``/``index_put_`` do it with a
    deprecation warning; the others refuse."""
    base = tc.arange(3.0, device=device)
    a = base.expand(2, 3)
    a.fill_(2.0)
    assert base.tolist() == [2.0] * 3
    a.zero_()
    assert base.tolist() == [0.0] * 3
    mask = tc.tensor([[True, False, True], [False, False, False]], device=device)
    with pytest.warns(UserWarning, match="Use of masked_fill_ on expanded tensors is deprecated"):
        a.masked_fill_(mask, 5.0)
    assert base.tolist() == [5.0, 0.0, 5.0]
    with pytest.warns(UserWarning, match="Use of index_put_ on expanded tensors is deprecated"):
        a.index_put_((tc.tensor([0], device=device),), tc.ones(3, device=device))
    assert base.tolist() == [1.0] * 3
    for call in (lambda: a.uniform_(), lambda: a.clamp_(0, 0), lambda: a.add_(1)):
        _refused(RuntimeError, "more than one element of the written-to tensor", call, base)


@pytest.mark.sparse
def test_a_sparse_tensor_has_no_storage(device: str) -> None:
    s = tc.ones(2, 3, device=device).to_sparse()
    with pytest.raises(NotImplementedError, match="Cannot access storage of a tensor of layout"):
        s.untyped_storage()
    with pytest.raises(RuntimeError, match="Cannot access data pointer of Tensor that doesn't"):
        s.data_ptr()


def test_a_complex_number_converts_to_bool_as_not_zero(device: str) -> None:
    """Every number converts to bool (True unless zero): a complex one too, imaginary or not
    (``masked_fill`` used to take its real part: ``1j`` gave False)."""
    mask = tc.ones(2, dtype=tc.bool, device=device)
    b = tc.zeros(2, dtype=tc.bool, device=device)
    assert tc.full((2,), 1j, dtype=tc.bool, device=device).tolist() == [True, True]
    assert b.clone().fill_(1j).tolist() == [True, True]
    assert b.clone().fill_(0j).tolist() == [False, False]
    assert b.masked_fill(mask, 1j).tolist() == [True, True]
    assert b.masked_fill(mask, tc.tensor(1j, device=device)).tolist() == [True, True]
    assert mask.masked_fill(mask, 0j).tolist() == [False, False]
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64 without"):
        tc.full((2,), 1j, dtype=tc.int64, device=device)


def test_conversions_of_a_tensor_of_several_elements(device: str) -> None:
    t = tc.ones(2, device=device)
    for convert in (int, float, complex):
        with pytest.raises(ValueError, match="only one element tensors can be converted to Pyth"):
            convert(t)
    assert int(tc.tensor([[2.7]], device=device)) == 2


def test_contains(device: str) -> None:
    t = tc.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    assert 3 in t and 5 not in t
    assert tc.tensor([3.0, 4.0], device=device) in t  # (any element equal, broadcast)
    with pytest.raises(RuntimeError, match=r"Tensor\.__contains__ only supports Tensor or scalar"):
        "a" in t  # noqa: B015


def test_grad_refuses_materialize_grads_without_allow_unused(device: str) -> None:
    w = tc.ones(2, device=device, requires_grad=True)
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed when"):
        tc.autograd.grad(w.sum(), w, allow_unused=False, materialize_grads=True)
    (g,) = tc.autograd.grad(w.sum(), w, materialize_grads=True)
    assert g.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("leaf", [True, False])
def test_a_tensor_hook_may_not_change_the_gradients_shape_or_dtype(device: str, leaf: bool) -> None:
    for hook, exc, match in (
        (lambda g: tc.ones(5, device=device), RuntimeError, "has changed the size of value"),
        (lambda g: g.double(), RuntimeError, "has changed the type of value"),
        (lambda g: 5, TypeError, "expected Variable, but hook returned 'int'"),
    ):
        w = tc.ones(3, device=device, requires_grad=True)
        y = w if leaf else w * 1
        y.register_hook(hook)
        with pytest.raises(exc, match=match):
            (y * 2).sum().backward()
        assert w.grad is None
    w = tc.ones(3, device=device, requires_grad=True)
    (w if leaf else w * 1).register_hook(lambda g: g * 10)
    (w * 1 if leaf else w).sum().backward()


def test_binary_cross_entropy_checks_its_target_and_weight(device: str) -> None:
    p, t = tc.tensor([0.5], device=device), tc.tensor([1.0], device=device)
    for bad in (2.0, -0.5, float("nan")):
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and"):
            F.binary_cross_entropy(p, tc.tensor([bad], device=device))
    with pytest.raises(RuntimeError, match=r"output with shape \[1\] doesn't match the broadcast"):
        F.binary_cross_entropy(p, t, weight=tc.ones(2, device=device))
    p2 = tc.tensor([[0.5, 0.25]], device=device)
    w = tc.tensor([2.0, 1.0], device=device)
    got = F.binary_cross_entropy(p2, tc.tensor([[1.0, 0.0]], device=device), weight=w)
    assert got.item() == pytest.approx((2 * math.log(2) - math.log(0.75)) / 2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda d: tc.nanmean(tc.ones(2, dtype=tc.int32, device=d)), r"nanmean\(\): expected inpu"),
        (lambda d: tc.frexp(tc.ones(2, dtype=tc.int64, device=d)), "only supports floating-point"),
        (
            lambda d: F.smooth_l1_loss(tc.ones(2, device=d), tc.ones(2, device=d), beta=-1),
            "smooth_l1_loss does not support negative values for beta",
        ),
        (
            lambda d: F.adaptive_avg_pool1d(tc.ones(1, 1, 4, device=d), -1),
            "elements of output_size must be greater than or equal to 0",
        ),
        (
            lambda d: F.adaptive_max_pool2d(tc.ones(1, 1, 4, 4, device=d), (2, -1)),
            "elements of output_size must be greater than or equal to 0",
        ),
        (
            lambda d: F.interpolate(tc.ones(1, 1, 4, 4, device=d), size=(0, 2)),
            r"Input and output sizes should be greater than 0, but got input \(H: 4, W: 4\) out",
        ),
        (
            lambda d: F.interpolate(tc.ones(1, 1, 4, device=d), scale_factor=0.1),
            r"Input and output sizes should be greater than 0.*output \(W: 0\)",
        ),
    ],
)
def test_runtime_errors_as_pytorch(device: str, call: Any, match: str) -> None:
    with pytest.raises(RuntimeError, match=match):
        call(device)


def test_adaptive_pooling_to_no_cells(device: str) -> None:
    x = tc.ones(1, 1, 4, 4, device=device, requires_grad=True)
    assert F.adaptive_avg_pool2d(x, (0, 2)).shape == (1, 1, 0, 2)
    values, indices = F.adaptive_max_pool2d(x, (0, 2), return_indices=True)
    assert values.shape == indices.shape == (1, 1, 0, 2) and indices.dtype == tc.int64
    F.adaptive_avg_pool1d(x[0], 0).sum().backward()
    assert x.grad is not None and x.grad.tolist() == tc.zeros(1, 1, 4, 4).tolist()


def test_broadcast_shapes_refuses_a_negative_length() -> None:
    with pytest.raises(ValueError, match="Attempting to broadcast a dimension with negative len"):
        tc.broadcast_shapes((-2,))
