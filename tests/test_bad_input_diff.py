"""Bad input that a differential run against PyTorch found handled differently: each call
raises PyTorch's exception type with its wording (and the operator's name), and leaves its
inputs as they were."""

from __future__ import annotations

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
        (lambda d: _Z(d).topk(1), r"topk\(\): topk does not support complex dtypes"),
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
