"""``out=`` on the operators written with other operators (the composites): one mechanism
(``tensorcore/ops/_out.py``) with PyTorch's rules, driven by the operator table."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.ops.schema import OPS
from tensorcore.testing.samples import SAMPLES

#: The composites that take ``out=`` (their kernel makes its own result).
COMPOSITE_OUT = sorted(
    name
    for name, d in OPS.items()
    if d.out and d.function and d.frontend == "unstructured" and name in SAMPLES
)


def _first_call(name: str, device: str) -> tuple[tuple, dict, object] | None:
    for dtype in (tc.float64, tc.int64):
        for s in SAMPLES[name](device, dtype):
            try:
                res = getattr(tc, name)(*s.args, **s.kwargs)
            except Exception:  # noqa: BLE001 - (a sample this dtype does not take)
                continue
            return s.args, s.kwargs, res
    return None


def _np(t: tc.Tensor) -> np.ndarray:
    return t.cpu().numpy()


def test_the_composites_take_out() -> None:
    # (PyTorch's everyday ones among them: a regression to "unexpected keyword 'out'")
    for name in ("stack", "hstack", "zeros", "ones", "max", "min", "clip", "addcmul", "take"):
        assert OPS[name].out, name
    assert len(COMPOSITE_OUT) > 40


@pytest.mark.parametrize("name", COMPOSITE_OUT)
def test_out_matches_the_result(name: str, device: str) -> None:
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    if "random" in OPS[name].tags:
        pytest.skip("random values")
    call = _first_call(name, device)
    if call is None:
        pytest.skip("no sample runs")
    args, kwargs, want = call
    many = isinstance(want, tuple)
    wants = tuple(want) if many else (want,)
    # Empty outs of the results' dtypes: resized silently, written, returned.
    outs = tuple(tc.empty(0, dtype=w.dtype, device=device) for w in wants)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(tc, name)(*args, **kwargs, out=outs if many else outs[0])
    gots = tuple(got) if many else (got,)
    for g, o, w in zip(gots, outs, wants, strict=True):
        assert g is o
        assert o.shape == w.shape and o.dtype == w.dtype
        np.testing.assert_array_equal(_np(o), _np(w))
    if many:
        assert type(got) is type(want)


def test_out_resize_warns_when_it_had_elements(device: str) -> None:
    a, b = tc.ones(2, device=device), tc.zeros(2, device=device)
    o = tc.full((5,), 7.0, device=device)
    with pytest.warns(UserWarning, match=r"had shape \[5\].*required output shape \[2, 2\]"):
        r = tc.stack([a, b], out=o)
    assert r is o and o.shape == (2, 2)
    if device != "meta":
        np.testing.assert_array_equal(_np(o), [[1.0, 1.0], [0.0, 0.0]])


def test_out_dtype_rules(device: str) -> None:
    x = tc.arange(6.0, device=device).reshape(2, 3)
    # Castable where PyTorch's operator casts (the cat family, pointwise composites)...
    assert tc.stack([x, x], out=tc.empty(0, dtype=tc.float64, device=device)).dtype == tc.float64
    assert tc.zeros(2, out=tc.empty(2, dtype=tc.int64, device=device)).dtype == tc.int64
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        tc.square(x, out=tc.empty(0, dtype=tc.int64, device=device))
    # ... the result's own dtype where PyTorch's wants it.
    with pytest.raises(
        RuntimeError, match="Expected out tensor to have dtype float, but got double"
    ):
        tc.aminmax(
            x, dim=0, out=(tc.empty(0, dtype=tc.float64, device=device), tc.empty(0, device=device))
        )
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        tc.clip(x, 0.0, out=tc.empty(0, dtype=tc.float64, device=device))
    # max: the full reduction casts, (values, indices) along a dim want their own dtypes
    assert tc.max(x, out=tc.empty(0, dtype=tc.float64, device=device)).dtype == tc.float64
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        tc.max(x, 1, out=(tc.empty(0, device=device), tc.empty(0, dtype=tc.int32, device=device)))


def test_a_refused_out_changes_nothing(device: str) -> None:
    x = tc.arange(4.0, device=device)
    v = tc.full((3,), 5.0, device=device)
    i = tc.empty(0, dtype=tc.int32, device=device)
    with pytest.raises(RuntimeError):
        tc.kthvalue(x, 2, out=(v, i))  # (indices must be int64: checked before any write)
    assert v.shape == (3,)
    if device != "meta":
        np.testing.assert_array_equal(_np(v), [5.0, 5.0, 5.0])


def test_out_overlap_and_structure(device: str) -> None:
    x = tc.arange(4.0, device=device)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        tc.take(x, tc.tensor([0, 1, 2], device=device), out=tc.empty(1, device=device).expand(3))
    with pytest.raises(RuntimeError, match="input tensor and the written-to tensor"):
        tc.kthvalue(x, 2, out=(x, tc.empty(0, dtype=tc.int64, device=device)))
    with pytest.raises(RuntimeError, match="input tensor and the written-to tensor"):
        tc.take(x, tc.tensor([0, 1], device=device), out=x[:2])  # (not pointwise: refused)
    assert tc.square(x, out=x) is x  # (pointwise: allowed)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        tc.aminmax(x, out=tc.empty(0, device=device))
    r = tc.aminmax(x, out=[tc.empty(0, device=device), tc.empty(0, device=device)])
    assert type(r).__name__ == "aminmax"


def test_out_refuses_inputs_that_require_grad(device: str) -> None:
    a = tc.ones(3, device=device, requires_grad=True)
    for call in (
        lambda o: tc.add(a, a, out=o),  # a structured operator
        lambda o: tc.square(a, out=o),  # a composite
        lambda o: tc.stack([a, a], out=o),
    ):
        o = tc.empty(0, device=device)
        with pytest.raises(RuntimeError, match=r"functions with out=\.\.\. arguments"):
            call(o)
        assert not o.requires_grad and o.shape == (0,)
    # ... but not without grad mode, nor for an operator without a derivative
    with tc.no_grad():
        assert not tc.square(a, out=tc.empty(0, device=device)).requires_grad
    assert tc.argmax(a, out=tc.empty((), dtype=tc.int64, device=device)).dtype == tc.int64
