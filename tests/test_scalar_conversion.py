"""Python scalars meeting tensors in pointwise operators are converted to the dtype the
operator computes in, as PyTorch converts them: rounded (``float32`` underflow to 0 and
overflow to ``inf``; ``float16``/``bfloat16`` through ``float32``), wrapped (integers), or
kept in ``float32`` where PyTorch multiplies or divides a 16-bit float tensor by them.

The oracle converts the scalar with NumPy's casts first, then runs the operator's NumPy
oracle with it as a 0-d array of that dtype, for every operator that takes a scalar, every
dtype and scalars of every magnitude."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _pointwise_oracles import ORACLES, result_dtype, skip_without_kernel
from hypothesis import assume, given
from hypothesis import strategies as st

import tensorcore as tc
from tensorcore.dtypes import all_dtypes
from tensorcore.ops.schema import OPS
from tensorcore.testing import dtype_unsupported, flushes_subnormals, numpy_dtype, to_numpy
from tensorcore.testing import strategies as tcst

#: PyTorch keeps a scalar in float32 where these operators meet a 16-bit float tensor.
OPMATH = {"mul", "div", "true_divide", "floor_divide", "lerp"}
#: Operators PyTorch computes in float32 for 16-bit floats, rounding once, whose NumPy oracle
#: takes several steps (each of which would round in the 16-bit dtype).
ONE_ROUNDING = {"xlogy"}
# Operators whose GPU math library is not correctly rounded (CUDA's pow, atan2, hypot, log
# and exp are within a few ulp): compared within 4 ulp off the CPU.
INEXACT_ON_GPU = {"pow", "float_power", "atan2", "hypot", "logaddexp", "logaddexp2", "xlogy"}
#: Operators whose scalars PyTorch takes as a checked ``Scalar``, by argument position: an
#: integer the integer compute dtype cannot hold raises.
CHECKED = {"pow": (1,), "clamp": (1, 2), "clip": (1, 2), "where": (1, 2)}
#: Those whose check also refuses a number past the largest float (``where`` rounds it to inf).
CHECKED_FLOATS = {"pow", "clamp", "clip"}
#: Operators tested with complex operands too (NumPy's complex semantics are PyTorch's).
COMPLEX_OK = {"add", "sub", "rsub", "mul", "div", "true_divide", "eq", "ne", "where"}
#: Where a scalar may stand, by operator; binary operators take one on either side.
SLOTS = {"clamp": (1, 2), "clip": (1, 2), "where": (1, 2), "lerp": (2,)}
OPERATORS = sorted(
    [
        n
        for n, o in ORACLES.items()
        if o.arity == 2 and o.scalars and n in OPS and not OPS[n].tensors_only
    ]
    + list(SLOTS)
)
CATEGORIES = ("bool", "int", "float", "complex")
#: Operators PyTorch refuses for 16-bit floats (its "... not implemented for 'Half'").
HALF_REFUSED = {"special_zeta"}


def _scalars(categories: set[str]) -> st.SearchStrategy[Any]:
    """Python scalars of every magnitude PyTorch accepts, with the edges of each dtype."""
    edges_int = [0, 1, -1, 127, 128, 255, 256, 300, -129, 2**15, 2**31, 2**40 + 7]
    edges_int += [2**53 + 1, 2**53 + 2**29 + 1, 2**63 - 1, 2**63 + 5, 2**64 - 1, -(2**63)]
    edges_float = [1e-166, 1e-45, 6e-8, 2.9802322387695312e-08, 1 + 2**-11 + 2**-40, 1.001]
    edges_float += [0.1, -0.0, 65504.0, 65519.99, 65520.0, 3.4028235e38, 3.5e38, 1e300]
    kinds: list[st.SearchStrategy[Any]] = [st.booleans()]
    if categories & {"int", "float", "complex"}:
        kinds += [
            st.sampled_from(edges_int),
            st.integers(-(2**63), 2**64 - 1),
            st.integers(-300, 300),
        ]
    if categories & {"float", "complex"}:
        kinds += [st.sampled_from(edges_float), st.floats(), st.floats(-1e6, 1e6)]
    if "complex" in categories:
        kinds.append(st.complex_numbers())
    return st.one_of(kinds)


def _converted(v: Any, d: tc.dtype) -> Any:
    """``v`` as a 0-d NumPy array of ``d``, by NumPy's casts: integers through int64/uint64
    (wrapping), floats and complex numbers from double; 16-bit floats through float32."""
    npd = numpy_dtype(d)
    with np.errstate(all="ignore"):
        if isinstance(v, bool):
            a = np.asarray(v)
        elif isinstance(v, int):
            a = np.asarray(v, dtype=np.uint64 if v >= 2**63 else np.int64)
        else:
            a = np.asarray(v)
        if d in (tc.float16, tc.bfloat16) and a.dtype.kind != "b":
            a = a.astype(np.float32)
        return a.astype(npd)


def _category(d: tc.dtype) -> str:
    return CATEGORIES[d._category]


def _categories(name: str) -> set[str]:
    """The dtype categories the operator's oracle covers (and complex, where NumPy's)."""
    cats = {_category(d) for d in ORACLES[name].dtypes}
    return cats | {"complex"} if name in COMPLEX_OK else cats


def _operands(data: st.DataObject, name: str, device: str) -> tuple[list[Any], list[Any], int]:
    """(operands, NumPy arrays with the scalar as itself, the scalar's slot)."""
    oracle = ORACLES[name]
    arity = oracle.arity
    slot = data.draw(st.sampled_from(SLOTS.get(name, (0, 1))), label="slot")
    cats = _categories(name)
    held = [d for d in all_dtypes if _category(d) in cats and not dtype_unsupported(device, d)]
    d = data.draw(st.sampled_from(held), label="dtype")
    shape = data.draw(tcst.shapes(max_dims=2, max_side=3), label="shape")
    operands: list[Any] = []
    arrays: list[Any] = []
    for i in range(arity):
        if i == slot:
            s = data.draw(_scalars(cats), label="scalar")
            operands.append(s)
            arrays.append(s)
        elif name == "where" and i == 0:
            m = data.draw(tcst.arrays(tc.bool, shape), label="condition")
            operands.append(tc.tensor(m, device=device))
            arrays.append(m)
        else:
            a = data.draw(tcst.arrays(d, shape, **oracle.domain(i, d)), label=f"array{i}")
            operands.append(tc.tensor(a, device=device))
            arrays.append(a)
    if name in ("clamp", "clip"):
        operands[3 - slot] = arrays[3 - slot] = None  # the other bound
    return operands, arrays, slot


def _expected_error(name: str, slot: int, compute: tc.dtype, v: Any, operands: Any = ()) -> bool:
    """Whether PyTorch raises for this scalar (once converted): integer division by zero, an
    integer power with a negative exponent, a checked scalar that does not fit, a bool
    operand of a subtraction."""
    if name in ("sub", "rsub") and any(
        isinstance(a, bool) or (isinstance(a, tc.Tensor) and a.dtype is tc.bool) for a in operands
    ):
        return True
    if (
        name in CHECKED_FLOATS
        and slot in CHECKED[name]
        and compute._category >= 2
        and not (name == "pow" and compute.itemsize > 2)
    ):
        # a finite number past the largest float of the compute dtype (PyTorch's checked
        # conversion: clamp(half, max=1e6) raises; pow checks its exponent against the 16-bit
        # floats only: pow(float32 tensor, 1e39) is 0 or inf)
        big = tc.finfo(compute).max
        parts = (v.real, v.imag) if isinstance(v, complex) else (v,)
        return any(math.isfinite(p) and abs(p) > big for p in parts)
    if compute._category >= 2 or isinstance(v, (float, complex)):
        return False
    # An unsigned dtype takes -max .. -1 too, wrapped: PyTorch 2.13 gives
    # uint8.clamp(-1) == 255 and refuses uint8.clamp(-256).
    lo, hi = -(2 ** (8 * compute.itemsize) - 1), 2 ** (8 * compute.itemsize) - 1
    if compute.is_signed:
        lo, hi = -(2 ** (8 * compute.itemsize - 1)), 2 ** (8 * compute.itemsize - 1) - 1
    if slot in CHECKED.get(name, ()) and not lo <= v <= hi:
        return True
    if name == "pow" and slot == 1 and v < 0:
        return True  # (refused before any conversion: an unsigned dtype does not wrap it)
    wrapped = int(_converted(v, compute))
    return name in ("floor_divide", "remainder", "fmod") and slot == 1 and wrapped == 0


@pytest.mark.parametrize("name", OPERATORS)
@given(data=st.data())
def test_python_scalars_are_converted_to_the_compute_dtype(
    device: str, name: str, data: st.DataObject
) -> None:
    skip_without_kernel(name, device)
    oracle = ORACLES[name]
    operands, arrays, slot = _operands(data, name, device)
    promoted = operands[1:] if name == "where" else operands
    compute, result = result_dtype(oracle, [x for x in promoted if x is not None])
    # A bool scalar lifting nothing, or a float one lifting an integer tensor into a category
    # the operator refuses (bitwise ones on floats) has its own tests.
    assume(_category(compute) in _categories(name))
    v = operands[slot]
    call = getattr(tc, name)
    if name in HALF_REFUSED and compute in (tc.float16, tc.bfloat16):
        with pytest.raises(NotImplementedError, match="not implemented for"):
            call(*operands, *oracle.extra)
        return
    if _expected_error(name, slot, compute, v, operands):
        with pytest.raises(RuntimeError):
            call(*operands, *oracle.extra)
        return
    sd = tc.float32 if name in OPMATH and compute in (tc.float16, tc.bfloat16) else compute
    npc = numpy_dtype(compute)
    args = [
        None
        if a is None
        else _converted(a, sd)
        if i == slot
        else np.asarray(a)
        if name == "where" and i == 0
        else np.asarray(a).astype(npc)
        for i, a in enumerate(arrays)
    ]
    if name in ONE_ROUNDING and compute in (tc.float16, tc.bfloat16):
        args = [
            a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == npc else a
            for a in args
        ]
    with np.errstate(all="ignore"):
        fn = oracle.fn
        if name in ("clamp", "clip"):  # one bound
            x, lo, hi = args
            fn, args = (np.maximum, [x, lo]) if hi is None else (np.minimum, [x, hi])
        expected = np.asarray(fn(*args, *oracle.extra)).astype(numpy_dtype(result))
    if (compute.is_floating_point or compute.is_complex) and flushes_subnormals(device, compute):
        # (a GPU computes float32 subnormals as zero: none in the operands or the result)
        assume(not any(_subnormal(a, compute) for a in [*args, expected]))
    got = call(*operands, *oracle.extra)
    assert got.dtype is result
    _assert_same(to_numpy(got), expected, result, name, device)
    self = operands[0]
    if OPS[name].inplace and slot == 1 and result is self.dtype and self.shape == got.shape:
        # In place (the fast path for most of these), the same numbers. (NumPy's complex
        # loops round differently when the output is an input: the in-place oracle runs in
        # place too.)
        if isinstance(fn, np.ufunc) and result.is_complex:
            mine = np.array(args[0], copy=True)
            with np.errstate(all="ignore"):
                fn(mine, *args[1:], *oracle.extra, out=mine)
            expected = mine
        assert getattr(self, name + "_")(*operands[1:], *oracle.extra) is self
        _assert_same(to_numpy(self), expected, result, name, device)


def _subnormal(a: Any, d: tc.dtype) -> bool:
    """Whether ``a`` holds a nonzero number below the smallest normal number of ``d``."""
    a = np.asarray(a)
    if a.dtype.kind not in "fc":
        return False
    tiny = tc.finfo(d.to_real()).tiny
    with np.errstate(all="ignore"):
        parts = (a.real, a.imag) if a.dtype.kind == "c" else (a,)
        return any(bool(np.any((p != 0) & (np.abs(p) < tiny))) for p in parts)


def _assert_same(got: np.ndarray, expected: np.ndarray, result: tc.dtype, name: str,
                 device: str) -> None:  # fmt: skip
    """The oracle's numbers, bit for bit (within 4 ulp off the CPU for INEXACT_ON_GPU and
    complex results, whose products and quotients a GPU rounds its own way)."""
    wide = np.complex128 if result.is_complex else np.float64
    if device != "cpu" and (
        result.is_complex or (name in INEXACT_ON_GPU and result.is_floating_point)
    ):
        rtol = 4 * tc.finfo(result.to_real()).eps
        np.testing.assert_allclose(got.astype(wide), expected.astype(wide), rtol=rtol, atol=0)
        return
    np.testing.assert_array_equal(got.astype(wide), expected.astype(wide))


def test_the_issue_cases(device: str) -> None:
    # issue 15: an int32 tensor `logical_and` 1e-166 computes in float32, where 1e-166 is 0.
    x = tc.tensor([1, 0, 3], dtype=tc.int32, device=device)
    assert tc.logical_and(x, 1e-166).tolist() == [False, False, False]
    assert (x.float() == 1e-166).tolist() == [False, True, False]
    i8 = tc.tensor([1, 44], dtype=tc.int8, device=device)
    assert (i8 + 300).tolist() == [45, 88]  # 300 wraps to 44, as in PyTorch
    assert (i8 == 300).tolist() == [False, True]
    h = tc.tensor([0.0, 1e4], dtype=tc.float16, device=device)
    assert (h * 1e6).tolist() == [0.0, math.inf]  # float32 opmath: 0 * 1e6, not 0 * inf
    assert (h * 1e-8)[1].item() == float(np.float16(np.float32(1e4) * np.float32(1e-8))) > 0
    assert (h + 1e6).tolist() == [math.inf, math.inf]
    if not dtype_unsupported(device, tc.bfloat16):
        assert (tc.tensor([1.0], dtype=tc.bfloat16, device=device) == 1.001).item()


def test_integers_wider_than_64_bits(device: str) -> None:
    i = tc.tensor([1, 2], dtype=tc.int8, device=device)
    with pytest.raises(RuntimeError, match=r"add\(\): the Python integer 2361183241434822606848"):
        i + 2**71
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8"):
        i.clamp(min=300)
    # A float tensor takes any integer, rounded once (not through a double first).
    f = tc.zeros(1, device=device)
    assert (f + (2**70 + 2**46 + 1)).item() == 2**70 + 2**47
    assert (f + (2**53 + 2**29 + 1)).item() == 2**53 + 2**30
    assert (f + 10**400).item() == math.inf


def test_converted_floats_are_remembered_per_dtype(device: str) -> None:
    # The core keeps recent conversions: a value converted for one dtype is not reused for
    # another, and -0.0 keeps its sign (it compares equal to 0.0).
    for _ in range(2):
        h = tc.zeros(1, dtype=tc.float16, device=device)
        assert (h + 1e6).item() == math.inf and (h.float() + 1e6).item() == 1e6
        if not dtype_unsupported(device, tc.bfloat16):
            assert (h.bfloat16() + 1e6).item() == 999424.0
        z = tc.tensor([-0.0], dtype=tc.float16, device=device) + -0.0
        assert math.copysign(1.0, z.item()) == -1.0


def test_pow_checks_its_exponent_against_16_bit_floats_and_integers_only(device: str) -> None:
    skip_without_kernel("pow", device)
    two = tc.tensor([2.0, 0.5], device=device)
    for out in (None, tc.empty(2, device=device)):
        got = tc.pow(two, 1e39, out=out)  # (float32: no checked conversion, as PyTorch)
        assert got.cpu().tolist() == [float("inf"), 0.0]
    assert tc.pow(tc.tensor([2], dtype=tc.uint8, device=device), 3.5e38).dtype is tc.float32
    with pytest.raises(RuntimeError, match="cannot be converted to type float16"):
        tc.pow(two.half(), 1e6)
    if not dtype_unsupported(device, tc.bfloat16):
        with pytest.raises(RuntimeError, match="cannot be converted to type bfloat16"):
            tc.pow(two.bfloat16(), 3.5e38)
    with pytest.raises(RuntimeError, match="cannot be converted to type int8"):
        tc.pow(tc.tensor([2], dtype=tc.int8, device=device), 300)
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        tc.pow(tc.tensor([2], dtype=tc.uint8, device=device), -1)
