"""The bad values a parameter of each type can be given, certainly invalid or an edge."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tensorcore as tc


# ------------------------------------------------------------------ bad values
class _Ctx:
    """Builds bad tensors on one device, shaped like a reference tensor."""

    def __init__(self, device: Any) -> None:
        self.device = tc.device(device)

    def t(self, data: Any, dtype: Any = None) -> tc.Tensor:
        return tc.tensor(data, dtype=dtype, device=self.device)


# (label, factory(ctx, ref), certainly invalid?)
Bad = tuple[str, Callable[[_Ctx, Any], Any], bool]


def _tensor_bads(optional: bool, scalars_ok: bool) -> list[Bad]:
    def like(ref: Any, dtype: Any) -> Any:
        return ref.detach().to(dtype) if isinstance(ref, tc.Tensor) else None

    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list of floats", lambda c, r: [1.0, 2.0], True),
        ("a Python float", lambda c, r: 1.5, not scalars_ok),
        ("a complex tensor", lambda c, r: like(r, tc.complex64), False),
        ("a bool tensor", lambda c, r: like(r, tc.bool), False),
        ("an int64 tensor", lambda c, r: like(r, tc.int64), False),
        ("a float64 tensor", lambda c, r: like(r, tc.float64), False),
        ("a 0-d tensor", lambda c, r: c.t(0.5), False),
        ("an empty tensor", lambda c, r: c.t([]), False),
        ("a (7, 3) tensor", lambda c, r: tc.ones(7, 3, device=c.device), False),
        ("a tensor of nan/inf", lambda c, r: c.t([math.nan, math.inf, -math.inf]), False),
        ("an expanded tensor", lambda c, r: c.t([1.0]).expand(3, 2), False),
    ]


def _tensor_list_bads(optional: bool) -> list[Bad]:
    def one(c: Any, r: Any) -> Any:
        # The list the samples give, or a tensor of the device under test (one of the
        # default device would make every list a mixed-device one).
        return r[0] if isinstance(r, (list, tuple)) and r else tc.ones(2, device=c.device)

    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "ab", True),
        ("a tensor instead of a list", lambda c, r: one(c, r), True),
        ("[None]", lambda c, r: [None], not optional),
        ("a list with a string", lambda c, r: [one(c, r), "a"], True),
        ("an empty list", lambda c, r: [], False),
        ("mixed dtypes", lambda c, r: [one(c, r), one(c, r).to(tc.int64)], False),
        ("mixed shapes", lambda c, r: [one(c, r), tc.ones(7, 3, device=c.device)], False),
    ]


# Parameter names whose ints are dims (an out-of-range value is invalid) and sizes (a negative
# or astronomically large value is invalid).
_DIM_NAMES = {"dim", "dim0", "dim1", "dim2", "dimension", "start_dim", "end_dim", "axis0", "axis1"}
_COUNT_NAMES = {"length", "chunks", "n", "m", "steps", "k", "storage_offset"}
_COUNT_PARAMS = {("unfold", "size"), ("unfold", "step")}
#: Ints under a count's name that may be negative (a matrix power's exponent).
_SIGNED_PARAMS = {("matrix_power", "n"), ("linalg_matrix_power", "n")}
# Parameters with a count's name that take any int (``rot90`` turns ``k % 4`` times).
_NOT_COUNT_PARAMS = {("rot90", "k")}


def _int_bads(op: str, name: str, optional: bool) -> list[Bad]:
    dim = name in _DIM_NAMES
    if (op, name) in _COUNT_PARAMS:
        name = "n"  # a count
    if (op, name) in _SIGNED_PARAMS:
        name = "exponent"
    if (op, name) in _NOT_COUNT_PARAMS:
        name = "turns"
    return [
        ("None", lambda c, r: None, not optional),
        ("a float", lambda c, r: 1.5, True),
        ("a string", lambda c, r: "1", True),
        ("an object()", lambda c, r: object(), True),
        ("a list", lambda c, r: [1], True),
        # Python ints beyond int64 are taken where the result is well defined (PyTorch
        # refuses them all); negative ones where a count must not be negative.
        ("2**64", lambda c, r: 2**64, False),
        ("-2**63 - 1", lambda c, r: -(2**63) - 1, dim or name in _COUNT_NAMES),
        ("a float tensor", lambda c, r: c.t(1.0), True),
        ("an int tensor", lambda c, r: c.t(1), False),
        ("10**9", lambda c, r: 10**9 if dim else 2**62, dim),
        ("-10**9", lambda c, r: -(10**9), dim or name in _COUNT_NAMES),
        ("-1", lambda c, r: -1, name in _COUNT_NAMES - {"k"}),
    ]


_SIZE_NAMES = {"size", "sizes", "shape", "repeats", "s"}  # (s: the signal sizes of tc.fft)
# Size-like lists under another name, and lists that are neither sizes nor dims.
_SIZE_PARAMS = {("tile", "dims")}
_FREE_LISTS = {"shifts", "stride"}


def _int_list_bads(op: str, name: str, optional: bool) -> list[Bad]:
    size = name in _SIZE_NAMES or (op, name) in _SIZE_PARAMS
    dims = not size and name not in _FREE_LISTS
    return [
        ("None", lambda c, r: None, not optional),
        ("[1.5]", lambda c, r: [1.5], True),
        ("a string", lambda c, r: "ab", True),
        ("[None]", lambda c, r: [None], True),
        ("[[1]]", lambda c, r: [[1]], True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("[2**64]", lambda c, r: [2**64], size or dims),
        ("[-5]", lambda c, r: [-5], size),
        ("[-5, 3]", lambda c, r: [-5, 3], size),
        ("[2**62, 2**62]", lambda c, r: [2**62, 2**62], size),
        ("[10**9]", lambda c, r: [2**62] if size else [10**9], dims),
    ]


def _scalar_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list", lambda c, r: [1, 2], True),
        ("a 2-element tensor", lambda c, r: c.t([1.0, 2.0]), True),
        ("1j", lambda c, r: 1j, False),
        ("nan", lambda c, r: math.nan, False),
        ("inf", lambda c, r: math.inf, False),
        ("2**64", lambda c, r: 2**64, False),
        ("True", lambda c, r: True, False),
        ("a 0-d tensor", lambda c, r: c.t(2.0), False),
    ]


def _float_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "a", True),
        ("1j", lambda c, r: 1j, True),
        ("a list", lambda c, r: [1.0], True),
        ("nan", lambda c, r: math.nan, False),
    ]


def _bool_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("a string", lambda c, r: "yes", True),
        ("a float", lambda c, r: 1.5, True),
        ("a list", lambda c, r: [True], True),
    ]


def _str_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("an int", lambda c, r: 1, True),
        ("'nonsense'", lambda c, r: "nonsense", True),
    ]


def _dtype_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("'f'", lambda c, r: "f", True),
        ("'float32'", lambda c, r: "float32", True),
        ("an int", lambda c, r: 1, True),
        ("an object()", lambda c, r: object(), True),
        ("a device", lambda c, r: tc.device("cpu"), True),
    ]


def _device_bads(optional: bool) -> list[Bad]:
    return [
        ("None", lambda c, r: None, not optional),
        ("'nonsense!'", lambda c, r: "nonsense!", True),
        ("'nosuchdevice'", lambda c, r: "nosuchdevice", True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("a dtype", lambda c, r: tc.float32, True),
    ]


def _object_bads() -> list[Bad]:
    return [
        ("a string", lambda c, r: "a", True),
        ("an int", lambda c, r: 1, True),
        ("an object()", lambda c, r: object(), True),
    ]


def bads_for(type_: str, name: str, op: str, scalars_ok: bool) -> list[Bad]:
    """The bad values for a parameter of PyTorch schema type ``type_`` named ``name`` of
    operator ``op`` (``scalars_ok``: a tensor parameter that also takes a Python scalar)."""
    optional = type_.endswith("?") or type_.endswith("?[]")
    base = type_.rstrip("?")
    if base.startswith("Tensor") and base.endswith("[]"):
        return _tensor_list_bads("?" in type_)
    if base.startswith("Tensor"):
        return _tensor_bads(optional, scalars_ok=scalars_ok)
    if base == "int":
        return _int_bads(op, name, optional)
    if base == "int[]":
        return _int_list_bads(op, name, optional)
    if base == "Scalar":
        return _scalar_bads(optional)
    if base == "float":
        return _float_bads(optional)
    if base == "bool":
        return _bool_bads(optional)
    if base == "str":
        return _str_bads(optional)
    if base == "ScalarType":
        return _dtype_bads(optional)
    if base == "Device":
        return _device_bads(optional)
    if base in ("Generator", "MemoryFormat", "Layout"):
        return _object_bads()
    return []  # Any: the operator documents what it accepts
