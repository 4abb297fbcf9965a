"""Pointwise operators, generically: every operator tagged ``pointwise`` in the operator table
runs against a NumPy oracle on broadcast shapes, mixed dtypes, Python scalars and
non-contiguous inputs, with its in-place and ``out=`` variants; then the Python operators."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _pointwise_oracles import ORACLES, result_dtype, skip_without_kernel
from hypothesis import given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.dispatch import get_op
from tensorcore.ops._call import call as call_op
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close, dtype_unsupported, numpy_dtype, to_numpy
from tensorcore.testing import strategies as tcst

POINTWISE = sorted(name for name, decl in OPS.items() if "pointwise" in decl.tags)
INPLACE = sorted(name for name in POINTWISE if OPS[name].inplace)
WITH_OUT = sorted(name for name in POINTWISE if OPS[name].out and OPS[name].function)


def test_every_pointwise_operator_has_an_oracle() -> None:
    assert set(ORACLES) == set(POINTWISE)


@pytest.mark.parametrize("name", sorted(n for n in POINTWISE if "composite" not in OPS[n].tags))
def test_oracle_result_policy_agrees_with_the_table(name: str) -> None:
    assert ORACLES[name].result == OPS[name].promote or (
        ORACLES[name].result == "same" and OPS[name].promote == "int"
    )


def _draw_case(
    data: st.DataObject, name: str, device: str, self_shape_is_result: bool = False
) -> Any:
    """Draw operands for ``name``: (operands, NumPy arrays of their values)."""
    oracle = ORACLES[name]
    first = data.draw(st.sampled_from(oracle.dtypes), label="dtype")
    dts = [
        first if oracle.same_dtype else data.draw(st.sampled_from(oracle.dtypes), label=f"dtype{i}")
        for i in range(1, oracle.arity)
    ]
    dts = [first, *dts]
    if name == "where":
        dts[0] = tc.bool
    shapes = list(data.draw(tcst.broadcastable_shapes(num_shapes=oracle.arity), label="shapes"))
    if self_shape_is_result:
        shapes[0] = tc.broadcast_shapes(*shapes)
    operands: list[Any] = []
    arrays: list[Any] = []
    for i, (d, shape) in enumerate(zip(dts, shapes, strict=True)):
        dom = oracle.domain(i, d)
        if i == 1 and oracle.scalars and data.draw(st.booleans(), label="scalar other"):
            # Float scalars are drawn as float32 values: PyTorch converts a scalar to the
            # compute dtype, and values float32 cannot hold would only test that rounding.
            kind = {tc.bool: bool, tc.int32: int, tc.int64: int}.get(d, float)
            el = tcst.elements(tc.float32 if kind is float else d, **dom, device=device)
            value = kind(data.draw(el, label="scalar"))
            operands.append(value)
            arrays.append(value)
            continue
        # (no subnormals where the device flushes them: its arithmetic, not the operator's)
        arr = data.draw(tcst.arrays(d, shape, **dom, device=device), label=f"array{i}")
        layouts = (
            ("contiguous", "permuted", "sliced") if (i == 0 and self_shape_is_result) else None
        )
        layout = None if layouts is None else data.draw(st.sampled_from(layouts), label="layout")
        t, arr = data.draw(tcst.tensors_from_arrays(arr, device, layout), label=f"tensor{i}")
        operands.append(t)
        arrays.append(arr)
    return operands, arrays


def _oracle(name: str, operands: list[Any], arrays: list[Any]) -> Any:
    oracle = ORACLES[name]
    compute, result = result_dtype(oracle, operands)
    npc = numpy_dtype(compute)
    args = []
    for i, a in enumerate(arrays):
        if name == "where" and i == 0:
            args.append(np.asarray(a))
        else:
            args.append(np.asarray(a).astype(npc))
    with np.errstate(all="ignore"):
        out = oracle.fn(*oracle.arguments(args))
        if isinstance(out, tuple):  # several results: the first has the result dtype
            return (np.asarray(out[0]).astype(numpy_dtype(result)), *out[1:]), result
        out = np.asarray(out).astype(numpy_dtype(result))
    return out, result


def _assert_results(got: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert_close(g, e)
    else:
        assert_close(got, expected)


@pytest.mark.parametrize("name", POINTWISE)
@given(data=st.data())
def test_pointwise_matches_numpy(device: str, name: str, data: st.DataObject) -> None:
    skip_without_kernel(name, device)
    operands, arrays = _draw_case(data, name, device)
    expected, _ = _oracle(name, operands, arrays)
    extra, leading = ORACLES[name].extra, ORACLES[name].leading
    arguments = ORACLES[name].arguments(operands)
    # (an operator without a function: one that nn.functional reaches, as torch._C._nn's)
    fn = getattr(tc, name) if OPS[name].function else lambda *a: call_op(get_op(name), a)
    got = fn(*arguments)
    assert all(g.device.type == device for g in (got if isinstance(got, tuple) else (got,)))
    _assert_results(got, expected)
    if OPS[name].method:
        assert not leading
        _assert_results(getattr(operands[0], name)(*operands[1:], *extra), expected)
    if name in WITH_OUT:
        outs = tuple(
            tc.tensor(np.full(e.shape, 7, dtype=e.dtype), device=device)
            for e in (expected if isinstance(expected, tuple) else (expected,))
        )
        out = outs if isinstance(expected, tuple) else outs[0]
        res = getattr(tc, name)(*arguments, out=out)
        assert res is out or (isinstance(res, tuple) and all(map(operator.is_, res, outs)))
        _assert_results(out, expected)


@pytest.mark.parametrize("name", INPLACE)
@given(data=st.data())
def test_inplace_variant_writes_through_views(device: str, name: str, data: st.DataObject) -> None:
    skip_without_kernel(name, device)
    operands, arrays = _draw_case(data, name, device, self_shape_is_result=True)
    expected, result_dtype = _oracle(name, operands, arrays)
    self = operands[0]
    # Give `self` a base whose other elements must stay untouched.
    base_np = np.full((3, *self.shape), 5, dtype=numpy_dtype(self.dtype))
    base = tc.tensor(base_np, device=device)
    view = base[1]
    view.copy_(self)
    base_np[1] = arrays[0]
    version = base._version
    ptr = view.data_ptr()
    method = getattr(view, name + "_")
    refusal = None
    if OPS[name].promote == "double" and result_dtype is not self.dtype:
        refusal = "requires dtype"  # float_power_ writes into float64 (complex128) only
    elif not tc.can_cast(result_dtype, self.dtype):
        refusal = "can't be cast to the desired output type"
    if refusal is not None:
        with pytest.raises(RuntimeError, match=refusal):
            method(*operands[1:], *ORACLES[name].extra)
        assert_close(base, base_np)
        return
    assert method(*operands[1:], *ORACLES[name].extra) is view
    assert view.data_ptr() == ptr and view.dtype is self.dtype
    assert base._version > version
    with np.errstate(all="ignore"):
        base_np[1] = expected.astype(base_np.dtype)
    assert_close(base, base_np)


# ---------------------------------------------------------------- explicit cases
def test_inplace_refuses_uncastable_results(device: str) -> None:
    x = tc.tensor([1, 2], device=device)
    before = x._version
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        x.add_(1.5)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        x.mul_(tc.tensor([0.5, 1.0], device=device))
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        x.exp_()
    with pytest.raises(
        RuntimeError, match="result type Long can't be cast to the desired output type Bool"
    ):
        tc.tensor([True], device=device).add_(1)
    with pytest.raises(
        RuntimeError,
        match="result type ComplexFloat can't be cast to the desired output type Float",
    ):
        tc.tensor([1.0], device=device).mul_(1j)
    assert x.tolist() == [1, 2]
    assert x._version == before


def test_inplace_refuses_to_grow_self(device: str) -> None:
    x = tc.tensor([1.0, 2.0, 3.0], device=device)
    with pytest.raises(
        RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        x.add_(tc.tensor(np.ones((2, 3), np.float32), device=device))
    with pytest.raises(
        RuntimeError, match=r"output with shape \[1\] doesn't match the broadcast shape \[3\]"
    ):
        tc.tensor([1.0], device=device).mul_(x)


def test_inplace_keeps_self_dtype_when_castable(device: str) -> None:
    x = tc.tensor([1.5, 2.5], dtype=tc.float32, device=device)
    x.add_(tc.tensor([1.0, 1.0], dtype=tc.float64, device=device))
    assert x.dtype is tc.float32 and x.tolist() == [2.5, 3.5]
    i = tc.tensor([1, 2], dtype=tc.int32, device=device)
    i.mul_(tc.tensor([3, 4], device=device))
    assert i.dtype is tc.int32 and i.tolist() == [3, 8]
    f = tc.tensor([0.0, 1.0], device=device)
    f.logical_not_()
    assert f.tolist() == [1.0, 0.0]


@pytest.mark.parametrize(("self_dtype", "other_dtype"), [("uint8", "int16"), ("int8", "uint8")])
def test_inplace_and_out_wrap_between_signed_and_unsigned(
    device: str, self_dtype: str, other_dtype: str
) -> None:
    """``uint8.add_(int16)`` computes in int16 and stores with wraparound (a cast PyTorch
    allows), into ``self`` and into an ``out=`` tensor alike; NumPy's casts are the oracle."""
    a = np.array([1, 2, 100], dtype=self_dtype)
    b = (
        np.array([-3, 1, 100], dtype=other_dtype)
        if other_dtype == "int16"
        else np.array([200, 2, 3], dtype=other_dtype)
    )
    want = (a.astype(np.int64) + b.astype(np.int64)).astype(self_dtype)
    x = tc.tensor(a.tolist(), dtype=getattr(tc, self_dtype), device=device)
    y = tc.tensor(b.tolist(), dtype=getattr(tc, other_dtype), device=device)
    x.add_(y)
    assert x.dtype is getattr(tc, self_dtype) and to_numpy(x).tolist() == want.tolist()
    out = tc.zeros(3, dtype=getattr(tc, self_dtype), device=device)
    tc.add(tc.tensor(a.tolist(), dtype=getattr(tc, self_dtype), device=device), y, out=out)
    assert to_numpy(out).tolist() == want.tolist()


def test_sub_refuses_every_bool_operand(device: str) -> None:
    """A bool tensor or Python bool on either side of ``-`` raises, also where promotion with
    a number would give a numeric dtype (``mask - 1``, ``1 - mask``, ``x - True``)."""
    mask = tc.tensor([True, False], device=device)
    x = tc.tensor([1.0, 2.0], device=device)
    for call in (
        lambda: mask - 1,
        lambda: 1.5 - mask,
        lambda: x - mask,
        lambda: x - True,
        lambda: tc.rsub(mask, 2),
        lambda: x.sub_(mask),
    ):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            call()
    assert (x - 1).tolist() == [0.0, 1.0]


def test_add_and_sub_alpha(device: str) -> None:
    a = tc.tensor([1.0, 2.0], device=device)
    b = tc.tensor([10.0, 20.0], device=device)
    assert tc.add(a, b, alpha=2).tolist() == [21.0, 42.0]
    assert tc.sub(a, b, alpha=0.5).tolist() == [-4.0, -8.0]
    assert a.add(b, alpha=-1).tolist() == [-9.0, -18.0]
    assert tc.rsub(a, b, alpha=2).tolist() == [8.0, 16.0]
    ints = tc.tensor([1, 2], device=device)
    assert tc.add(ints, ints, alpha=3).tolist() == [4, 8]
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        tc.add(ints, ints, alpha=1.5)


@pytest.mark.parametrize("mode", [None, "trunc", "floor"])
def test_div_rounding_modes(device: str, mode: str | None) -> None:
    a = np.array([7.0, -7.0, 7.5, -7.5, 1.0, 3.0, -2.0, 2.0], dtype=np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 0.1, np.inf, -np.inf], dtype=np.float32)
    # PyTorch's floor mode is Python's //: 3 // 0.1 is 29 (floor(3 / 0.1) is 30), -2 // inf is
    # -1 and 2 // -inf is -1 (floor(-0.0) would be -0.0).
    floor = np.array([3.0, -4.0, -4.0, 3.0, 0.0, 29.0, -1.0, -1.0], dtype=np.float32)
    expected = {None: a / b, "trunc": np.trunc(a / b), "floor": floor}[mode]
    got = tc.div(tc.tensor(a, device=device), tc.tensor(b, device=device), rounding_mode=mode)
    assert_close(got, expected)
    ia, ib = a[:2].astype(np.int64), b[:2].astype(np.int64)
    got_int = tc.div(tc.tensor(ia, device=device), tc.tensor(ib, device=device), rounding_mode=mode)
    if mode is None:
        assert_close(got_int, (ia / ib).astype(np.float32))
    else:
        assert got_int.dtype is tc.int64
        assert got_int.tolist() == ([3, -3] if mode == "trunc" else [3, -4])
    with pytest.raises(RuntimeError, match="rounding_mode"):
        tc.div(tc.tensor(a, device=device), 2, rounding_mode="up")
    if mode is not None:  # no rounded quotient of bools or complex numbers (PyTorch's error)
        mask = tc.tensor([True, False], device=device)
        with pytest.raises(NotImplementedError, match=f"div_{mode}.*'Bool'"):
            tc.div(mask, mask, rounding_mode=mode)
        with pytest.raises(NotImplementedError, match=f"div_{mode}.*'ComplexFloat'"):
            tc.div(tc.tensor([1 + 1j], device=device), 2, rounding_mode=mode)
        assert tc.div(mask, 2, rounding_mode=mode).tolist() == [0, 0]


@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16])
def test_remainder_zero_keeps_the_dividends_sign(device: str, dtype: tc.dtype) -> None:
    # PyTorch's remainder is fmod's, corrected to the divisor's sign where it is not zero: a
    # zero result keeps x's sign (NumPy's takes y's), also in place and with a number.
    x = np.array([-0.0, 0.0, -3.0, 3.0, -4.0, 5.0], dtype=np.float64)
    y = np.array([2.0, -2.0, 3.0, -3.0, 2.0, -3.0], dtype=np.float64)
    want = np.array([-0.0, 0.0, -0.0, 0.0, -0.0, -1.0])
    tx, ty = tc.tensor(x, dtype=dtype, device=device), tc.tensor(y, dtype=dtype, device=device)
    for got in (tc.remainder(tx, ty), tx % ty, tx.clone().remainder_(ty)):
        values = got.double().cpu().numpy()
        np.testing.assert_array_equal(values, want)
        np.testing.assert_array_equal(np.signbit(values), np.signbit(want))
    got = (tc.tensor([-6.0, 6.0], dtype=dtype, device=device) % -3).double().cpu().numpy()
    np.testing.assert_array_equal(np.signbit(got), [True, False])


def test_round_decimals(device: str) -> None:
    x = tc.tensor([1.2345, -2.5, 0.5, 1.5], dtype=tc.float64, device=device)
    assert x.round().tolist() == [1.0, -2.0, 0.0, 2.0]
    assert_close(tc.round(x, decimals=2), np.round(np.array([1.2345, -2.5, 0.5, 1.5]), 2))


def test_nan_and_infinity(device: str) -> None:
    vals = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0], dtype=np.float32)
    x = tc.tensor(vals, device=device)
    assert x.isnan().tolist() == [True, False, False, False, False]
    assert x.isinf().tolist() == [False, True, True, False, False]
    assert x.isfinite().tolist() == [False, False, False, True, True]
    assert_close(x.nan_to_num(), np.nan_to_num(vals))
    assert_close(
        x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0), np.array([1, 2, -2, 1, 0], np.float32)
    )
    for half in (tc.float16, tc.bfloat16):
        if dtype_unsupported(device, half):
            continue  # (bfloat16 on a CuPy without it)
        # each 16-bit dtype's own largest value (NumPy skips bfloat16, which it does not
        # see as a float type)
        big = tc.finfo(half).max
        got = x.to(half).nan_to_num()
        assert got.dtype is half
        assert got.tolist() == [0.0, big, -big, 1.0, 0.0]
    assert_close(
        tc.maximum(x, tc.zeros(5, device=device)), np.array([np.nan, np.inf, 0, 1, 0], np.float32)
    )
    assert_close(x * 0, np.array([np.nan, np.nan, np.nan, 0, 0], np.float32))
    assert (x == x).tolist() == [False, True, True, True, True]


def test_clamp_with_scalars_and_one_bound(device: str) -> None:
    x = tc.tensor([-2.0, 0.5, 3.0], device=device)
    assert x.clamp(-1, 1).tolist() == [-1.0, 0.5, 1.0]
    assert x.clamp(min=0).tolist() == [0.0, 0.5, 3.0]
    assert x.clamp(max=0).tolist() == [-2.0, 0.0, 0.0]
    assert tc.clip(x, 0, 1).tolist() == [0.0, 0.5, 1.0]
    assert tc.tensor([1, 5], device=device).clamp(2, 3).dtype is tc.int64
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        x.clamp()
    x.clamp_(0, 1)
    assert x.tolist() == [0.0, 0.5, 1.0]


def test_clamp_into_an_out_that_is_a_bound_or_a_strided_view(device: str) -> None:
    # (On NumPy both steps are computed in out; a max bound sharing it must not change first.)
    want = [1.0, 3.0, 1.0, math.nan]
    for into in ("lo", "hi", "x"):
        x, lo, hi = (
            tc.tensor(v, device=device)
            for v in ([0.0, 5.0, -5.0, math.nan], [1.0] * 4, [2.0, 3.0, 4.0, 5.0])
        )
        out = {"lo": lo, "hi": hi, "x": x}[into]
        assert tc.clamp(x, lo, hi, out=out) is out
        assert_close(out, np.array(want, np.float32), equal_nan=True)
    big = tc.zeros(4, 2, device=device)
    x = tc.tensor([0.0, 5.0, -5.0, 2.5], device=device)
    tc.clamp(x, 1.0, tc.tensor(3.0, device=device), out=big[:, 1])
    assert big.tolist() == [[0.0, 1.0], [0.0, 3.0], [0.0, 1.0], [0.0, 2.5]]
    i = tc.tensor([0, 9], device=device)
    assert tc.clamp(i, 1, 3).tolist() == [1, 3]
    assert tc.clamp(i, 0.5, 2.5).tolist() == [0.5, 2.5]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_squares_and_cubes_are_products_as_in_pytorch(device: str, dtype: Any) -> None:
    # x ** 2 is x * x (the correctly rounded square); x ** 3 is x * x * x in the compute
    # dtype (float32 for float16, rounded once), as PyTorch computes them.
    a = np.array([-3.5, -1.25, -0.0, 0.0, 0.7, 2.0, 11.0, np.inf, -np.inf, np.nan])
    a = np.concatenate([a, np.random.default_rng(0).standard_normal(50) * 8]).astype(dtype)
    wide = np.float32 if dtype == np.float16 else dtype
    w = a.astype(wide)
    cube = (w * w * w).astype(dtype)
    t = tc.tensor(a, device=device)
    assert_close(t**2, a * a, rtol=0, atol=0, equal_nan=True)
    assert_close(t**2.0, a * a, rtol=0, atol=0, equal_nan=True)
    assert_close(t**3, cube, rtol=0, atol=0, equal_nan=True)
    assert_close(tc.pow(t, 3.0), cube, rtol=0, atol=0, equal_nan=True)
    assert t.pow_(3) is t
    assert_close(t, cube, rtol=0, atol=0, equal_nan=True)
    i = tc.tensor([-3, 2], device=device)
    assert (i**2).tolist() == [9, 4] and (i**3).tolist() == [-27, 8]


def test_where_with_scalars(device: str) -> None:
    c = tc.tensor([True, False, True], device=device)
    x = tc.tensor([1.0, 2.0, 3.0], device=device)
    assert tc.where(c, x, 0.0).tolist() == [1.0, 0.0, 3.0]
    assert x.where(c, -1.0).tolist() == [1.0, -1.0, 3.0]
    assert tc.where(c, x, tc.tensor([7, 8, 9], device=device)).dtype is tc.float32
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        tc.where(tc.tensor([1, 0, 1], device=device), x, x)


def test_lerp_with_scalar_weight(device: str) -> None:
    a = tc.tensor([0.0, 10.0], device=device)
    b = tc.tensor([10.0, 20.0], device=device)
    assert_close(tc.lerp(a, b, 0.25), np.array([2.5, 12.5], np.float32))
    a.lerp_(b, 0.5)
    assert a.tolist() == [5.0, 15.0]


def test_out_argument(device: str) -> None:
    a = tc.tensor([1.0, 2.0], device=device)
    out = tc.tensor([0.0, 0.0], dtype=tc.float64, device=device)
    assert tc.add(a, a, out=out) is out
    assert out.dtype is tc.float64 and out.tolist() == [2.0, 4.0]
    empty = tc.tensor(np.zeros(0, np.float32), device=device)
    assert tc.mul(a, 3, out=empty) is empty
    assert empty.tolist() == [3.0, 6.0]
    bad = tc.tensor([0, 0], device=device)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        tc.add(a, a, out=bad)
    with pytest.raises(TypeError):
        tc.add(a, a, out=[1, 2])


def test_integer_edge_cases(device: str) -> None:
    x = tc.tensor([-7, 7], device=device)
    assert (x // 2).tolist() == [-4, 3]
    assert (x % 3).tolist() == [2, 1]
    assert tc.fmod(x, 3).tolist() == [-1, 1]
    assert (x // -2).tolist() == [3, -4]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        x**-1  # a Python exponent is refused...
    # ...a tensor of exponents is not (PyTorch's integer power): x ** -n is 1 for x == 1,
    # +-1 for x == -1 by n's parity, else 0
    assert (x ** tc.tensor([-1, 2], device=device)).tolist() == [0, 49]
    base = tc.tensor([[1], [-1], [0], [3]], dtype=tc.int32, device=device)
    exps = tc.tensor([-3, -2, 2], dtype=tc.int8, device=device)
    want = [[1 if b == 1 else (-1) ** e if b == -1 else 0 if e < 0 else b**e for e in
             (-3, -2, 2)] for b in (1, -1, 0, 3)]  # fmt: skip
    got = base**exps
    assert got.tolist() == want and got.dtype is tc.int32
    assert (2 ** tc.tensor([-1, 3], device=device)).tolist() == [0, 8]
    u = tc.tensor([250], dtype=tc.uint8, device=device)
    assert (u + 10).tolist() == [4]
    assert (u + 10).dtype is tc.uint8


def test_bool_arithmetic_restrictions(device: str) -> None:
    b = tc.tensor([True, False], device=device)
    two = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `\\^`"
    one = "Subtraction, the `-` operator, with a bool tensor is not supported"
    neg = "Negation, the `-` operator, on a bool tensor is not supported"
    # PyTorch raises RuntimeError itself (not the dispatcher's NotImplementedError, a subclass
    # that pytest.raises(RuntimeError) would accept too).
    for fn, match in [
        (lambda: b - b, two),
        (lambda: tc.sub(b, b, alpha=2), two),
        (lambda: tc.rsub(b, b), two),
        (lambda: b.clone().sub_(b), two),
        (lambda: b - True, two),
        (lambda: True - b, two),
        (lambda: b - 1, one),
        (lambda: 1 - b, one),
        (lambda: -b, neg),
        (lambda: b.clone().neg_(), neg),
    ]:
        with pytest.raises(RuntimeError, match=match) as info:
            fn()
        assert info.type is RuntimeError
    assert (b + b).tolist() == [True, False]
    assert (b * 3).tolist() == [3, 0]
    sq = tc.square(b)  # pow(b, 2), as in PyTorch: not b * b
    assert sq.dtype is tc.int64 and sq.tolist() == [1, 0]
    assert (~b).tolist() == [False, True]


# ---------------------------------------------------------------- Python operators
def _pair(device: str) -> tuple[tc.Tensor, np.ndarray]:
    a = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], dtype=np.float32)
    return tc.tensor(a, device=device), a


BINARY_DUNDERS = [
    ("+", np.add), ("-", np.subtract), ("*", np.multiply), ("/", np.true_divide),
    ("//", np.floor_divide), ("%", np.remainder), ("**", np.power),
    ("==", np.equal), ("!=", np.not_equal), ("<", np.less), ("<=", np.less_equal),
    (">", np.greater), (">=", np.greater_equal),
]  # fmt: skip


@pytest.mark.parametrize(("op", "fn"), BINARY_DUNDERS, ids=[o for o, _ in BINARY_DUNDERS])
def test_binary_operators(device: str, op: str, fn: Callable[..., Any]) -> None:
    x, a = _pair(device)
    y = x.t().contiguous().t() + 2
    b = a + 2
    env = {"x": x, "y": y}
    with np.errstate(all="ignore"):
        assert_close(eval(f"x {op} y", env), fn(a, b))
        assert_close(eval(f"x {op} 2", env), fn(a, np.float32(2)))
        assert_close(eval(f"x {op} 2.5", env), fn(a, np.float32(2.5)))
        if op not in ("==", "!=", "<", "<=", ">", ">="):
            # Reflected: the scalar is the left operand.
            assert_close(eval(f"2 {op} x", env), fn(np.float32(2), a))
            assert_close(eval(f"3.5 {op} x", env), fn(np.float32(3.5), a))


@pytest.mark.parametrize("op", ["&", "|", "^", "<<", ">>"])
def test_bitwise_operators(device: str, op: str) -> None:
    a = np.array([0, 1, 5, -6], dtype=np.int64)
    b = np.array([3, 1, 2, 1], dtype=np.int64)
    env = {"x": tc.tensor(a, device=device), "y": tc.tensor(b, device=device), "a": a, "b": b}
    assert_close(eval(f"x {op} y", env), eval(f"a {op} b", env))
    assert_close(eval(f"x {op} 1", env), eval(f"a {op} 1", env))
    assert_close(eval(f"3 {op} y", env), eval(f"3 {op} b", env))


def test_reflected_operators_keep_pytorch_dtypes(device: str) -> None:
    i8 = tc.tensor([1, 2], dtype=tc.int8, device=device)
    assert (2 - i8).dtype is tc.int8
    assert (2 - i8).tolist() == [1, 0]
    assert (2 / i8).dtype is tc.float32
    assert (2**i8).dtype is tc.int8
    assert (2**i8).tolist() == [2, 4]
    assert (2.0**i8).dtype is tc.float32
    assert (1 - tc.tensor([0.5], dtype=tc.float16, device=device)).dtype is tc.float16


def test_reflected_operators_on_zero_dim_tensors(device: str) -> None:
    # A Python scalar has lower priority than a zero-dim tensor: it must not promote it.
    i8 = tc.tensor(5, dtype=tc.int8, device=device)
    assert (i8 - 2).dtype is tc.int8
    assert (2 - i8).dtype is tc.int8
    assert (2 - i8).item() == -3
    h = tc.tensor(1.5, dtype=tc.float16, device=device)
    assert (1.0 - h).dtype is tc.float16
    assert (2**h).dtype is tc.float16
    assert (2 / tc.tensor(4, dtype=tc.int16, device=device)).dtype is tc.float32


def test_unary_operators(device: str) -> None:
    x, a = _pair(device)
    assert_close(-x, -a)
    assert_close(abs(x), np.abs(a))
    assert +x is x
    ints = tc.tensor([0, 5, -3], device=device)
    assert (~ints).tolist() == [-1, -6, 2]


def test_augmented_assignment_is_in_place(device: str) -> None:
    x, a = _pair(device)
    ident, storage, ptr, version = id(x), x.untyped_storage(), x.data_ptr(), x._version
    x += 1
    x *= tc.tensor([2.0, 2.0, 2.0], device=device)
    x -= 0.5
    x /= 2
    assert id(x) == ident
    assert x.untyped_storage() is storage and x.data_ptr() == ptr
    assert x._version == version + 4
    assert_close(x, ((a + 1) * 2 - 0.5) / 2)
    v = x[0]
    v += 100
    assert_close(x[0], ((a[0] + 1) * 2 - 0.5) / 2 + 100)
    ints = tc.tensor([1, 2], device=device)
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        ints += 1.5
    ints //= 2
    ints <<= 2
    assert ints.tolist() == [0, 4]


def test_operators_reject_unsupported_operands(device: str) -> None:
    x, _ = _pair(device)
    with pytest.raises(TypeError):
        x + "a"  # type: ignore[operator]
    with pytest.raises(TypeError):
        "a" * x  # type: ignore[operator]
    with pytest.raises(TypeError):
        x - object()  # type: ignore[operator]


def test_comparison_results(device: str) -> None:
    x = tc.tensor([1, 2, 3], device=device)
    r = x > 1.5
    assert r.dtype is tc.bool and r.tolist() == [False, True, True]
    assert (x == tc.tensor([1.0, 0.0, 3.0], device=device)).tolist() == [True, False, True]
    assert to_numpy(x != 2).tolist() == [True, False, True]


def test_integer_division_by_zero_raises_like_pytorch(device: str) -> None:
    x = tc.tensor([1, 2], device=device)
    for fn in (lambda: x // 0, lambda: x % tc.tensor([1, 0], device=device)):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn()
    assert (tc.tensor([1.0], device=device) / 0).tolist() == [float("inf")]


def test_writes_into_internally_overlapping_tensors_are_refused(device: str) -> None:
    base = tc.zeros(3, device=device)
    x = base.expand(2, 3)
    msg = "more than one element of the written-to tensor refers to a single memory location"
    for write in (
        lambda: x.add_(1),  # (fill_ and zero_ may: they write one value, as in PyTorch)
        lambda: x.copy_(tc.ones(2, 3, device=device)),
        lambda: tc.mul(tc.ones(2, 3, device=device), 2, out=x),
    ):
        with pytest.raises(RuntimeError, match=msg):
            write()
    assert base.tolist() == [0.0, 0.0, 0.0]
    # A size-1 dim of stride 0 addresses one element: writing is fine.
    y = tc.zeros(1, 3, device=device).expand(1, 3)
    y.add_(1)
    assert y.tolist() == [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16, tc.float32, tc.float64])
def test_threshold_backward_zeroes_inf_and_nan_gradients(device: str, dtype: tc.dtype) -> None:
    # PyTorch's rule: the gradient where ``self > threshold`` or ``self`` is NaN, else 0 (not
    # ``grad * mask``, which makes NaN of an inf or NaN gradient at a dropped position).
    inf, nan = math.inf, math.nan
    g = np.array([1.0, inf, nan, -inf, nan, 2.0, 3.0, inf])
    x = np.array([nan, -1.0, -1.0, 0.25, 1.0, 0.5, 0.25, 2.0])
    expected = np.array([1.0, 0.0, 0.0, 0.0, nan, 2.0, 0.0, inf])
    got = tc.threshold_backward(tc.tensor(g, dtype=dtype, device=device),
                                tc.tensor(x, dtype=dtype, device=device), 0.25)  # fmt: skip
    assert got.dtype is dtype
    np.testing.assert_array_equal(to_numpy(got).astype(np.float64), expected)
    # Broadcast and transposed operands, against NumPy.
    rng = np.random.default_rng(0)
    ga = rng.standard_normal((3, 4))
    ga[0, :2], ga[1, 1] = inf, nan
    xa = rng.standard_normal(4)
    gt = tc.tensor(ga.T.copy(), dtype=dtype, device=device).t()
    got = tc.threshold_backward(gt, tc.tensor(xa, dtype=dtype, device=device), 0.0)
    want = np.where(to_numpy(tc.tensor(xa, dtype=dtype)) <= 0, 0, to_numpy(gt))
    np.testing.assert_array_equal(to_numpy(got).astype(np.float64), want.astype(np.float64))
    # Through relu's derivative: an inf upstream gradient at a negative input stays 0.
    a = tc.tensor([-1.0, nan, 2.0], dtype=dtype, device=device, requires_grad=True)
    a.relu().backward(tc.tensor([inf, 5.0, nan], dtype=dtype, device=device))
    np.testing.assert_array_equal(to_numpy(a.grad).astype(np.float64), [0.0, 5.0, nan])


@pytest.mark.parametrize("dtype", [tc.float16, tc.bfloat16, tc.float32, tc.float64])
def test_lerp_is_exact_at_both_ends(device: str, dtype: tc.dtype) -> None:
    # PyTorch's formula interpolates from the nearer end: weight 1 gives ``end`` exactly
    # (self + 1 * (end - self) need not), in float32 for 16-bit floats.
    a = tc.tensor([0.1, 1e4, -3.3, 7.0], dtype=dtype, device=device)
    b = tc.tensor([0.7, -1e-3, 1e3, 7.5], dtype=dtype, device=device)
    assert tc.lerp(a, b, 1.0).tolist() == b.tolist()
    assert tc.lerp(a, b, 0.0).tolist() == a.tolist()
    assert tc.lerp(a, b, tc.ones(4, dtype=dtype, device=device)).tolist() == b.tolist()
