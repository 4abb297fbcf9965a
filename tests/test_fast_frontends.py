"""The fast pointwise frontends give what the general one gives.

``ops.frontends.bind`` hands pointwise operators whose result dtype follows from the input's
alone a fast frontend (``pointwise_unary``, ``pointwise_binary``) that skips promotion,
broadcasting and the checks when nothing needs them, and falls back to ``pointwise``
otherwise. Every sample of every such operator runs twice, once as bound and once with the
general frontend forced, and the two results (values, dtype, shape, strides) or errors must
agree: the fast paths are an optimisation, never a second semantics.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.dispatch import get_op
from tensorcore.ops import frontends
from tensorcore.testing.samples import SAMPLES, call_op, core_ops

FAST = sorted(
    name
    for name in core_ops()
    if get_op(name).frontend in (frontends.pointwise_unary, frontends.pointwise_binary)
)


def _outcome(name: str, sample: Any) -> Any:
    try:
        res = call_op(name, sample)
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return type(exc), str(exc)
    return res.dtype, tuple(res.shape), res.stride(), res.detach().cpu().numpy()


def test_the_fast_frontends_cover_the_common_operators() -> None:
    # (the test below must not pass vacuously)
    for name in ("add", "mul", "div", "lt", "eq", "exp", "neg", "atan2"):
        assert name in FAST


@pytest.mark.parametrize("name", FAST)
def test_fast_frontend_agrees_with_the_general_one(
    device: str, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = get_op(name)
    cases = 0
    for dtype in sorted(op.dtypes_ok, key=lambda d: d.name):
        for sample in SAMPLES[name](device, dtype) if name in SAMPLES else ():
            fast = _outcome(name, sample)
            with monkeypatch.context() as m:
                m.setattr(op, "frontend", frontends.pointwise)
                general = _outcome(name, sample)
            cases += 1
            if isinstance(general[0], type):
                assert fast == general, f"{name} {sample}: {fast} != {general}"
                continue
            assert not isinstance(fast[0], type), f"{name} {sample}: raised {fast}"
            assert fast[:3] == general[:3], f"{name} {sample}: {fast[:3]} != {general[:3]}"
            np.testing.assert_array_equal(fast[3], general[3], err_msg=f"{name} {sample}")
    if name in SAMPLES:
        assert cases, f"no sample of {name} ran"


@pytest.mark.parametrize(
    ("call", "want"),
    [
        # a scalar that does not fit the tensor's dtype is converted to the compute dtype,
        # never wrapped into the tensor's (atan2 of uint8 computes in float32)
        (lambda: tc.atan2(tc.tensor(0, dtype=tc.uint8), -1), np.pi),
        (lambda: tc.tensor(2, dtype=tc.uint8) / -1, -2.0),
        (lambda: tc.tensor(1, dtype=tc.int8) > 300, False),
        (lambda: tc.tensor(1.5) < 2, True),
        # a float scalar meets a bool-result operator in the tensor's dtype (1e-166 is 0 in
        # float32), not in the result's
        (lambda: tc.logical_xor(1e-166, tc.tensor(0.0)), False),
        (lambda: tc.tensor(0.0) != 1e-50, False),
        (lambda: tc.ones(2).div(tc.full((2,), 2.0), rounding_mode=None)[0], 0.5),
        (lambda: tc.ones(2).div(tc.full((2,), 2.0), rounding_mode="floor")[0], 0.0),
    ],
)
def test_fast_binary_paths_keep_promotion(call: Any, want: Any) -> None:
    assert call().item() == pytest.approx(want)


def test_fast_binary_paths_keep_the_declared_check() -> None:
    x = tc.ones(2)
    with pytest.raises(RuntimeError, match="rounding_mode"):
        x.div(x, rounding_mode="up")
    with pytest.raises(RuntimeError, match="rounding_mode"):
        x.div(2.0, rounding_mode="up")


def test_comparisons_in_place_keep_the_tensor_dtype() -> None:
    x = tc.tensor([1.0, 3.0])
    assert x.lt_(tc.tensor([2.0, 2.0])).tolist() == [1.0, 0.0]
    assert x.dtype is tc.float32


def test_an_operator_of_tensor_lists_takes_its_device_from_them() -> None:
    # (the call path's factory shortcut is for operators without any tensor parameter;
    # ``cat`` has only a tensor list, whose device is the result's)
    x = tc.ones(2, device="meta")
    assert tc.cat([x, x]).device == tc.device("meta")
    assert tc.stack([x, x]).device == tc.device("meta")
    assert tc.zeros(2, device=tc.device("meta")).device == tc.device("meta")
