"""dtypes: PyTorch's promotion lattice, result_type with priorities, can_cast, defaults."""

from __future__ import annotations

import pickle

import pytest

import tensorcore as tc

# PyTorch's promotion table (c10/core/ScalarType.cpp), written in PyTorch's own ScalarType
# order (not the order of tensorcore/dtypes.py) so the two are typed independently.
_ORDER = ["u1", "i1", "i2", "i4", "i8", "f2", "f4", "f8", "c4", "c8", "b1", "bf"]
_PYTORCH_TABLE = """
    u1 i1 i2 i4 i8 f2 f4 f8 c4 c8 b1 bf
u1  u1 i2 i2 i4 i8 f2 f4 f8 c4 c8 u1 bf
i1  i2 i1 i2 i4 i8 f2 f4 f8 c4 c8 i1 bf
i2  i2 i2 i2 i4 i8 f2 f4 f8 c4 c8 i2 bf
i4  i4 i4 i4 i4 i8 f2 f4 f8 c4 c8 i4 bf
i8  i8 i8 i8 i8 i8 f2 f4 f8 c4 c8 i8 bf
f2  f2 f2 f2 f2 f2 f2 f4 f8 c4 c8 f2 f4
f4  f4 f4 f4 f4 f4 f4 f4 f8 c4 c8 f4 f4
f8  f8 f8 f8 f8 f8 f8 f8 f8 c8 c8 f8 f8
c4  c4 c4 c4 c4 c4 c4 c4 c8 c4 c8 c4 c4
c8  c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8 c8
b1  u1 i1 i2 i4 i8 f2 f4 f8 c4 c8 b1 bf
bf  bf bf bf bf bf f4 f4 f8 c4 c8 bf bf
"""
_CODE = {
    "u1": tc.uint8, "i1": tc.int8, "i2": tc.int16, "i4": tc.int32, "i8": tc.int64,
    "f2": tc.float16, "f4": tc.float32, "f8": tc.float64, "c4": tc.complex64,
    "c8": tc.complex128, "b1": tc.bool, "bf": tc.bfloat16,
}  # fmt: skip


def _table() -> list[tuple[tc.dtype, tc.dtype, tc.dtype]]:
    rows = [line.split() for line in _PYTORCH_TABLE.strip().splitlines()[1:]]
    return [
        (_CODE[row[0]], _CODE[col], _CODE[cell])
        for row in rows
        for col, cell in zip(_ORDER, row[1:], strict=True)
    ]


PROMOTIONS = _table()


def test_table_covers_every_dtype_pair() -> None:
    assert {(a, b) for a, b, _ in PROMOTIONS} == {
        (a, b) for a in tc.dtypes.all_dtypes for b in tc.dtypes.all_dtypes
    }


@pytest.mark.parametrize(("a", "b", "expected"), PROMOTIONS, ids=lambda d: getattr(d, "name", None))
def test_promote_types_matches_pytorch(a: tc.dtype, b: tc.dtype, expected: tc.dtype) -> None:
    assert tc.promote_types(a, b) is expected
    assert tc.promote_types(b, a) is expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (tc.uint8, tc.int8, tc.int16),
        (tc.bool, tc.float16, tc.float16),
        (tc.int64, tc.float16, tc.float16),
        (tc.bfloat16, tc.float16, tc.float32),
        (tc.float64, tc.complex64, tc.complex128),
        (tc.uint8, tc.bool, tc.uint8),
        (tc.int32, tc.bfloat16, tc.bfloat16),
    ],
)
def test_promote_types_named_cases(a: tc.dtype, b: tc.dtype, expected: tc.dtype) -> None:
    assert tc.promote_types(a, b) is expected


def _t(dtype: tc.dtype, zero_dim: bool = False) -> tc.Tensor:
    if zero_dim:
        return tc.tensor(1, dtype=dtype)
    return tc.tensor([1, 0], dtype=dtype)


# (operands, expected): "d:<dtype>" is a tensor with dims, "z:<dtype>" a zero-dim tensor, other
# values are Python scalars. PyTorch's rule: dim tensors > zero-dim tensors > scalars, and a
# lower-priority operand only matters when its category (bool < int < float < complex) is
# higher; then a float/complex scalar contributes the default dtype.
RESULT_TYPE_CASES = [
    (("d:int8", 3), "int8"),
    (("d:uint8", -1), "uint8"),
    (("d:int16", True), "int16"),
    (("d:bool", 1), "int64"),
    (("d:bool", True), "bool"),
    (("d:bool", 1.5), "float32"),
    (("d:int32", 1.5), "float32"),
    (("d:int64", 1.5), "float32"),
    (("d:float16", 1.5), "float16"),
    (("d:bfloat16", 2.0), "bfloat16"),
    (("d:float64", 2.0), "float64"),
    (("d:int32", 1j), "complex64"),
    (("d:float32", 1j), "complex64"),
    (("d:float64", 1j), "complex128"),
    (("d:int8", "z:int64"), "int8"),
    (("d:uint8", "z:int64"), "uint8"),
    (("d:float16", "z:float64"), "float16"),
    (("d:int64", "z:float32"), "float32"),
    (("d:int32", "z:float64"), "float64"),
    (("d:bool", "z:float64"), "float64"),
    (("d:bool", "z:int8"), "int8"),
    (("d:float32", "z:complex128"), "complex64"),
    (("d:float64", "z:complex64"), "complex128"),
    (("d:int64", "z:complex128"), "complex128"),
    (("d:int8", "d:uint8"), "int16"),
    (("d:int8", "d:float16"), "float16"),
    (("d:float32", "d:float64"), "float64"),
    (("z:int8", 3), "int8"),
    (("z:int8", 3.5), "float32"),
    (("z:float64", 3.5), "float64"),
    (("z:int32", "z:int64"), "int64"),
    (("z:float16", "z:float64"), "float64"),
    ((3, 4), "int64"),
    ((3, 4.5), "float32"),
    ((True, False), "bool"),
    ((1.5, 2j), "complex64"),
    (("d:int8", "z:int64", 2.5), "float32"),
    (("d:int8", "z:float64", 2.5), "float64"),
]


def _operand(spec: object) -> object:
    if isinstance(spec, str):
        kind, name = spec.split(":")
        return _t(getattr(tc, name), zero_dim=kind == "z")
    return spec


@pytest.mark.parametrize(("operands", "expected"), RESULT_TYPE_CASES, ids=str)
def test_result_type_priorities(operands: tuple[object, ...], expected: str) -> None:
    assert tc.result_type(*(_operand(o) for o in operands)) is getattr(tc, expected)


def test_result_type_follows_the_default_dtype() -> None:
    ints = tc.tensor([1, 2], dtype=tc.int32)
    tc.set_default_dtype(tc.float64)
    try:
        assert tc.result_type(ints, 1.5) is tc.float64
        assert tc.result_type(ints, 1j) is tc.complex128
        assert tc.result_type(2, 1.5) is tc.float64
    finally:
        tc.set_default_dtype(tc.float32)
    assert tc.result_type(ints, 1.5) is tc.float32


def test_result_type_needs_an_operand() -> None:
    with pytest.raises(TypeError):
        tc.result_type()


@pytest.mark.parametrize(
    ("operands", "expected"),
    [
        (("d:int8", 3), "int8"),
        (("d:int32", 1.5), "float32"),
        (("d:int8", "z:int64"), "int8"),
        (("d:float16", "z:float64"), "float16"),
        (("d:int64", "z:float64"), "float64"),
        (("d:uint8", "d:int8"), "int16"),
        (("d:bool", 2), "int64"),
        (("d:float64", 1j), "complex128"),
    ],
    ids=str,
)
def test_operators_compute_in_the_result_type(
    device: str, operands: tuple[object, ...], expected: str
) -> None:
    ops = [o.to(device) if isinstance(o, tc.Tensor) else o for o in map(_operand, operands)]
    assert tc.add(*ops).dtype is getattr(tc, expected)
    assert tc.mul(*ops).dtype is getattr(tc, expected)


def _can_cast_pytorch(frm: tc.dtype, to: tc.dtype) -> bool:
    # c10::canCast: no complex -> non-complex, no floating -> integral, no non-bool -> bool.
    if frm.is_complex and not to.is_complex:
        return False
    if frm.is_floating_point and not (to.is_floating_point or to.is_complex):
        return False
    return not (frm is not tc.bool and to is tc.bool)


@pytest.mark.parametrize("frm", tc.dtypes.all_dtypes, ids=lambda d: d.name)
def test_can_cast_matches_pytorch(frm: tc.dtype) -> None:
    for to in tc.dtypes.all_dtypes:
        assert tc.can_cast(frm, to) is _can_cast_pytorch(frm, to), (frm, to)


@pytest.mark.parametrize(
    ("frm", "to", "ok"),
    [
        (tc.float64, tc.int32, False),
        (tc.int32, tc.float16, True),
        (tc.int64, tc.int8, True),
        (tc.bool, tc.uint8, True),
        (tc.uint8, tc.bool, False),
        (tc.complex64, tc.float64, False),
        (tc.float16, tc.complex128, True),
    ],
)
def test_can_cast_named_cases(frm: tc.dtype, to: tc.dtype, ok: bool) -> None:
    assert tc.can_cast(frm, to) is ok


def test_default_dtype() -> None:
    assert tc.get_default_dtype() is tc.float32
    assert tc.tensor([1.5]).dtype is tc.float32
    assert tc.tensor([1j]).dtype is tc.complex64
    tc.set_default_dtype(tc.float64)
    try:
        assert tc.get_default_dtype() is tc.float64
        assert tc.tensor([1.5]).dtype is tc.float64
        assert tc.tensor([1j]).dtype is tc.complex128
        assert tc.tensor([1, 2]).dtype is tc.int64
    finally:
        tc.set_default_dtype(tc.float32)
    assert tc.tensor([1.5]).dtype is tc.float32


@pytest.mark.parametrize("half", [tc.float16, tc.bfloat16])
def test_half_precision_default_dtype(half: tc.dtype) -> None:
    tc.set_default_dtype(half)
    try:
        assert tc.tensor([1.5]).dtype is half
        assert tc.rand(2).dtype is half and tc.zeros(2).dtype is half
        assert (tc.tensor([1, 2]) * 1.5).dtype is half
        assert (tc.tensor([1, 2]) * 1.5).tolist() == [1.5, 3.0]
        assert tc.tensor([1j]).dtype is tc.complex64  # no complex32 in tensorcore
    finally:
        tc.set_default_dtype(tc.float32)


@pytest.mark.parametrize("bad", [tc.int32, tc.bool, tc.complex64])
def test_set_default_dtype_rejects_non_floating(bad: tc.dtype) -> None:
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        tc.set_default_dtype(bad)
    assert tc.get_default_dtype() is tc.float32
    # (PyTorch's words for what is no dtype at all)
    with pytest.raises(TypeError, match="invalid dtype object: only floating-point types"):
        tc.set_default_dtype("float32")  # type: ignore[arg-type]


# name: (itemsize, is_signed, is_floating_point, is_complex), as in PyTorch.
FLAGS = {
    "bool": (1, False, False, False),
    "uint8": (1, False, False, False),
    "int8": (1, True, False, False),
    "int16": (2, True, False, False),
    "int32": (4, True, False, False),
    "int64": (8, True, False, False),
    "float16": (2, True, True, False),
    "bfloat16": (2, True, True, False),
    "float32": (4, True, True, False),
    "float64": (8, True, True, False),
    "complex64": (8, True, False, True),
    "complex128": (16, True, False, True),
}


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_dtype_flags(name: str) -> None:
    d = getattr(tc, name)
    assert (d.itemsize, d.is_signed, d.is_floating_point, d.is_complex) == FLAGS[name]
    assert repr(d) == f"tensorcore.{name}"
    assert pickle.loads(pickle.dumps(d)) is d


def test_every_dtype_has_flags() -> None:
    assert {d.name for d in tc.dtypes.all_dtypes} == set(FLAGS)


@pytest.mark.parametrize(
    ("alias", "dtype"),
    [("half", tc.float16), ("float", tc.float32), ("double", tc.float64), ("short", tc.int16),
     ("int", tc.int32), ("long", tc.int64), ("cfloat", tc.complex64),
     ("cdouble", tc.complex128), ("bool", tc.bool_)],
)  # fmt: skip
def test_dtype_aliases(alias: str, dtype: tc.dtype) -> None:
    assert getattr(tc, alias) is dtype


def test_real_and_complex_counterparts() -> None:
    assert tc.complex64.to_real() is tc.float32
    assert tc.complex128.to_real() is tc.float64
    assert tc.float32.to_real() is tc.float32
    assert tc.float32.to_complex() is tc.complex64
    assert tc.float64.to_complex() is tc.complex128
    with pytest.raises(TypeError):
        tc.int32.to_complex()


def test_tensor_dtype_properties(device: str) -> None:
    x = tc.tensor([1.0, 2.0], dtype=tc.float64, device=device)
    assert x.dtype is tc.float64
    assert x.element_size() == x.itemsize == 8
    assert x.nbytes == 16
    assert x.is_floating_point() and not x.is_complex()
    z = tc.tensor([1j], device=device)
    assert z.is_complex() and not z.is_floating_point()


def test_the_category_constants_agree_with_the_properties() -> None:
    # Hot paths compare ``dtype._category`` with these constants instead of calling the
    # properties: the two must say the same of every dtype, in the order they rely on.
    from tensorcore import dtypes

    assert dtypes.BOOL < dtypes.INTEGRAL < dtypes.FLOATING < dtypes.COMPLEX
    for d in dtypes.all_dtypes:
        cat = d._category
        assert (cat == dtypes.BOOL) == (d is tc.bool)
        assert (cat == dtypes.FLOATING) == d.is_floating_point
        assert (cat == dtypes.COMPLEX) == d.is_complex
        assert (cat == dtypes.INTEGRAL) == (
            not d.is_floating_point and not d.is_complex and d is not tc.bool
        )
