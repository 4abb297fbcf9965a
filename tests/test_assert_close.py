"""``tensorcore.testing.assert_close`` against ``torch.testing.assert_close``: each case's
outcome (the exception type and its message, word for word) is what PyTorch 2.13 gives for
the same call, with ``torch.`` read as ``tensorcore.``; then tensorcore's NumPy-oracle
extension and the deprecated ``assert_allclose``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.testing import assert_allclose, assert_close, dtype_unsupported

M = tc
nan, inf = math.nan, math.inf
Case = tuple[Callable[[Any], None], "type[Exception] | None", "str | None"]

# fmt: off
# ruff: noqa: E501

TENSORS: list[Case] = [
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.1])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.04761900380253792 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1, 2]), T([1, 3])), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 0.3333333432674408 at index (1,)'),
    (lambda T: assert_close(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 2.5], [3.0, 5.0]])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (0, 1) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 2.5], [3.0, 5.0]]), rtol=0, atol=0), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: 1.0 at index (1, 1)\nGreatest relative difference: 0.20000000298023224 at index (0, 1)'),
    (lambda T: assert_close(T([[[1.0, 2.0], [3.0, 4.0]]]), T([[[1.0, 2.0], [3.0, 5.0]]])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\nGreatest absolute difference: 1.0 at index (0, 1, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (0, 1, 1) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.5, 2.5])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 0.5 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (0,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([2.0, 1.0]), T([2.5, 1.5])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 0.5 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([0.0, 1.0]), T([0.0, 0.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, inf]), T([1.0, inf])), None, None),
    (lambda T: assert_close(T([1.0, inf]), T([1.0, -inf])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, nan]), T([1.0, 2.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, nan])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([nan, 1.0]), T([nan, 1.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([nan, 1.0]), T([nan, 1.0]), equal_nan=True), None, None),
    (lambda T: assert_close(T([[1.0, nan], [3.0, 4.0]]), T([[1.0, 5.0], [nan, 4.0]]), equal_nan=True), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: nan at index (0, 1) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (0, 1) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([[1.0, nan], [3.0, 4.0]]), T([[1.0, nan], [3.0, 5.0]]), equal_nan=True), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\nGreatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1, 1) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1e-30, 3e38]), T([0.0, inf])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([0.0, 1.0, 2.0]), T([1e-20, 1.0, 2.0]), rtol=0, atol=0), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute difference: 9.999999682655225e-21 at index (0,)\nGreatest relative difference: 1.0 at index (0,)'),
    (lambda T: assert_close(T([1.0, 1.0000134]), T([1.0, 1.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.33514404296875e-05 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.33514404296875e-05 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, 1.0000135]), T([1.0, 1.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.3470649719238281e-05 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.3470649719238281e-05 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([100.0, 100.00014]), T([100.0, 100.0])), None, None),
    (lambda T: assert_close(T([100.0, 100.00015]), T([100.0, 100.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.000152587890625 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.5258789289873675e-06 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([0.1, 0.2, 0.3]) * 3, T([0.3, 0.6, 0.9])), None, None),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.float64), T([1.0, 2.0 + 1e-7], dtype=M.float64)), None, None),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.float64), T([1.0, 2.0 + 2e-7], dtype=M.float64)), None, None),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.float16), T([1.0, 2.01], dtype=M.float16)), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.009765625 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.00485992431640625 at index (1,) (up to 0.001 allowed)'),
    (lambda T: assert_close(T([1.001, 2.002], dtype=M.float16), T([1.0, 2.0], dtype=M.float16)), None, None),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.bfloat16), T([1.0, 2.1], dtype=M.bfloat16)), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.09375 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.044677734375 at index (1,) (up to 0.016 allowed)'),
    (lambda T: assert_close(T([1.01, 2.03], dtype=M.bfloat16), T([1.0, 2.0], dtype=M.bfloat16)), None, None),
    (lambda T: assert_close(T([1 + 1j, 2]), T([1 + 1j, 2.5])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([[1 + 1j, 2 + 2j], [3, 4j]]), T([[1 + 1j, 2 + 2.0001j], [3, 4.1j]])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\nGreatest absolute difference: 0.09999990463256836 at index (1, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.024390220642089844 at index (1, 1) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1 + 1j, 2 + 2j], dtype=M.complex128), T([1 + 1j, 2 + 2.0001j], dtype=M.complex128)), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.00010000000000021103 at index (1,) (up to 1e-07 allowed)\nGreatest relative difference: 3.535445518697432e-05 at index (1,) (up to 1e-07 allowed)'),
    (lambda T: assert_close(T([1 + 1j, nan]), T([1 + 1j, nan]), equal_nan=True), None, None),
    (lambda T: assert_close(T([True, False]), T([True, True])), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 1.0 at index (1,)'),
    (lambda T: assert_close(T([1, 2], dtype=M.uint8), T([1, 0], dtype=M.uint8)), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 2 at index (1,)\nGreatest relative difference: inf at index (1,)'),
    (lambda T: assert_close(T([1, 2], dtype=M.int8), T([-100, 100], dtype=M.int8)), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 101 at index (0,)\nGreatest relative difference: 1.0099999904632568 at index (0,)'),
    (lambda T: assert_close(T([0, -5], dtype=M.int16), T([0, 5], dtype=M.int16)), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 10 at index (1,)\nGreatest relative difference: 2.0 at index (1,)'),
    (lambda T: assert_close(T([1, 2]), T([1, 3]), rtol=0.1, atol=0.1), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,) (up to 0.1 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 0.1 allowed)'),
    (lambda T: assert_close(T([1, 2, 3]), T([1, 2, 4]), rtol=0.25, atol=0.0), None, None),
    (lambda T: assert_close(T([10, 20], dtype=M.uint8), T([11, 20], dtype=M.uint8), rtol=0.05, atol=0.5), None, None),
    (lambda T: assert_close(T([True, False]), T([True, True]), rtol=0.5, atol=0.5), None, None),
    (lambda T: assert_close(T([True, False]), T([True, True]), rtol=0.5, atol=1.0), None, None),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.5]), rtol=0.1, atol=0), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 0 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 0.1 allowed)'),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.5]), rtol=0.3, atol=0), None, None),
    (lambda T: assert_close(T([]), T([])), None, None),
]

ZERO_DIM: list[Case] = [
    (lambda T: assert_close(T(nan), T(nan)), AssertionError, 'Scalars are not close!\n\nExpected nan but got nan.\nAbsolute difference: nan (up to 1e-05 allowed)\nRelative difference: nan (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T(nan), T(nan), equal_nan=True), None, None),
    (lambda T: assert_close(T(True), T(False)), AssertionError, 'Scalars are not equal!\n\nExpected False but got True.\nAbsolute difference: 1\nRelative difference: inf'),
    (lambda T: assert_close(T(3), T(4)), AssertionError, 'Scalars are not equal!\n\nExpected 4 but got 3.\nAbsolute difference: 1\nRelative difference: 0.25'),
    (lambda T: assert_close(T(3.0), T(4.0)), AssertionError, 'Scalars are not close!\n\nExpected 4.0 but got 3.0.\nAbsolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 0.25 (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T(7, dtype=M.int8), T(-7, dtype=M.int8)), AssertionError, 'Scalars are not equal!\n\nExpected -7 but got 7.\nAbsolute difference: 14\nRelative difference: 2.0'),
    (lambda T: assert_close(T(1.5, dtype=M.float16), T(1.25, dtype=M.float16)), AssertionError, 'Scalars are not close!\n\nExpected 1.25 but got 1.5.\nAbsolute difference: 0.25 (up to 1e-05 allowed)\nRelative difference: 0.2 (up to 0.001 allowed)'),
    (lambda T: assert_close(T(1.5, dtype=M.bfloat16), T(1.25, dtype=M.bfloat16)), AssertionError, 'Scalars are not close!\n\nExpected 1.25 but got 1.5.\nAbsolute difference: 0.25 (up to 1e-05 allowed)\nRelative difference: 0.2 (up to 0.016 allowed)'),
    (lambda T: assert_close(T(1 + 2j), T(1 + 3j)), AssertionError, 'Scalars are not close!\n\nExpected (1+3j) but got (1+2j).\nAbsolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 0.31622776601683794 (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T(0.0), T(1e-6)), None, None),
    (lambda T: assert_close(T(0.0), T(1e-4)), AssertionError, 'Scalars are not close!\n\nExpected 9.999999747378752e-05 but got 0.0.\nAbsolute difference: 9.999999747378752e-05 (up to 1e-05 allowed)\nRelative difference: 1.0 (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T(nan), T(1.0)), AssertionError, 'Scalars are not close!\n\nExpected 1.0 but got nan.\nAbsolute difference: nan (up to 1e-05 allowed)\nRelative difference: nan (up to 1.3e-06 allowed)'),
]

ATTRIBUTES: list[Case] = [
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.0], dtype=M.float64)), AssertionError, "The values for attribute 'dtype' do not match: tensorcore.float32 != tensorcore.float64."),
    (lambda T: assert_close(T([1, 2]), T([1, 2]).to(M.float32)), AssertionError, "The values for attribute 'dtype' do not match: tensorcore.int64 != tensorcore.float32."),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.0, 3.0])), AssertionError, "The values for attribute 'shape' do not match: tensorcore.Size([2]) != tensorcore.Size([3])."),
    (lambda T: assert_close(T([1.0, 2.0]), T([[1.0, 2.0]])), AssertionError, "The values for attribute 'shape' do not match: tensorcore.Size([2]) != tensorcore.Size([1, 2])."),
    (lambda T: assert_close(T(1.0), T([1.0])), AssertionError, "The values for attribute 'shape' do not match: tensorcore.Size([]) != tensorcore.Size([1])."),
    (lambda T: assert_close(T([[1.0, 2.0]]), T([[1.0, 2.0]]).t()), AssertionError, "The values for attribute 'shape' do not match: tensorcore.Size([1, 2]) != tensorcore.Size([2, 1])."),
    (lambda T: assert_close(T([[1.0, 2.0], [3.0, 4.0]]).t(), T([[1.0, 3.0], [2.0, 4.0]]), check_stride=True), AssertionError, "The values for attribute 'stride()' do not match: (1, 2) != (2, 1)."),
    (lambda T: assert_close(T([[1.0, 2.0], [3.0, 4.0]]).t(), T([[1.0, 3.0], [2.0, 4.0]])), None, None),
    (lambda T: assert_close(T([1.0, 2.0]).reshape(2, 1).expand(2, 3), T([[1.0] * 3, [2.0] * 3]), check_stride=True), AssertionError, "The values for attribute 'stride()' do not match: (1, 0) != (3, 1)."),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.0], dtype=M.float64), check_dtype=False), None, None),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.5], dtype=M.float64), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1, 2]), T([1.0, 2.5]), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([True, False]), T([1.0, 0.0]), check_dtype=False), None, None),
    (lambda T: assert_close(T([True, False]), T([1.0, 0.5]), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1, 2], dtype=M.uint8), T([1, -2], dtype=M.int8), check_dtype=False), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 4 at index (1,)\nGreatest relative difference: 2.0 at index (1,)'),
    (lambda T: assert_close(T([1, 2], dtype=M.int32), T([1, 5], dtype=M.int64), check_dtype=False), AssertionError, 'Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 3 at index (1,)\nGreatest relative difference: 0.6000000238418579 at index (1,)'),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.float16), T([1.0, 2.5]), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 0.001 allowed)'),
    (lambda T: assert_close(T([1.0, 2.0], dtype=M.float16), T([1.0, 2.5], dtype=M.bfloat16), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 0.016 allowed)'),
    (lambda T: assert_close(T([1 + 1j, 2]), T([1.0, 2.5]), check_dtype=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(M.nn.Parameter(T([1.0, 2.0])), T([1.0, 2.0])), None, None),
    (lambda T: assert_close(M.nn.Parameter(T([1.0, 2.0])), T([1.0, 2.0]), allow_subclasses=False), TypeError, "No comparison pair was able to handle inputs of type <class 'tensorcore.nn.parameter.Parameter'> and <class 'tensorcore.Tensor'>."),
]

META: list[Case] = [
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.0]).to("meta")), AssertionError, "The values for attribute 'device' do not match: {DEV} != meta."),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 3.0]).to("meta"), check_device=False), None, None),
    (lambda T: assert_close(T([1.0, 2.0]).to("meta"), T([1.0, 3.0]).to("meta")), None, None),
    (lambda T: assert_close(T([1.0, 2.0]).to("meta"), T([1.0, 2.0]).to("meta").double()), AssertionError, "The values for attribute 'dtype' do not match: tensorcore.float32 != tensorcore.float64."),
]

SPARSE: list[Case] = [
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.0]).to_sparse()), AssertionError, "The values for attribute 'layout' do not match: tensorcore.strided != tensorcore.sparse_coo."),
    (lambda T: assert_close(T([1.0, 2.0]).to_sparse(), T([1.0, 3.0]).to_sparse()), AssertionError, 'Sparse COO values are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, 0.0]).to_sparse(), T([1.0, 3.0]).to_sparse()), AssertionError, 'The number of specified values in sparse COO tensors does not match: 1 != 2'),
    (lambda T: assert_close(T([[1.0, 0.0], [0, 2]]).to_sparse(), T([[1.0, 0.0], [2.0, 0]]).to_sparse()), AssertionError, 'Sparse COO indices are not equal!\n\nMismatched elements: 1 / 4 (25.0%)\nGreatest absolute difference: 1 at index (1, 1)\nGreatest relative difference: inf at index (1, 1)'),
    (lambda T: assert_close(T([1.0, 2.0]).to_sparse(), T([1.0, 2.0]), check_layout=False), None, None),
    (lambda T: assert_close(T([1.0, 2.0]).to_sparse(), T([1.0, 2.5]), check_layout=False), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)'),
    (lambda T: assert_close(T([1.0, 2.0]).to_sparse(), T([1.0, 2.0]).double().to_sparse()), AssertionError, "The values for attribute 'dtype' do not match: tensorcore.float32 != tensorcore.float64."),
    (lambda T: assert_close(T([1.0, 2.0]).to_sparse(), T([1.0, 2.5]).double().to_sparse(), check_dtype=False), AssertionError, 'Sparse COO values are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)'),
]

OPTIONS: list[Case] = [
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.1]), rtol=1e-3), ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."),
    (lambda T: assert_close(T([1.0, 2.0]), T([1.0, 2.1]), atol=1e-3), ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol."),
    (lambda T: assert_close([T([1.0, 2.0])], [T([1.0, 2.1])], atol=1e-3, msg="ignored while pairing"), ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.\n\nThe failure occurred for item [0]"),
    (lambda T: assert_close(1.0, 1.0, rtol=1e-3), ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."),
    (lambda T: assert_close([], [], rtol=1e-3), None, None),
    (lambda T: assert_close(T([1, 2]), T([1, 3]), msg="custom"), AssertionError, 'custom'),
    (lambda T: assert_close(T([1, 2]), T([1, 3]), msg=lambda m: "<" + m + ">"), AssertionError, '<Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1 at index (1,)\nGreatest relative difference: 0.3333333432674408 at index (1,)>'),
    (lambda T: assert_close(T(1.5), T(2.5), msg=lambda m: m.upper()), AssertionError, 'SCALARS ARE NOT CLOSE!\n\nEXPECTED 2.5 BUT GOT 1.5.\nABSOLUTE DIFFERENCE: 1.0 (UP TO 1E-05 ALLOWED)\nRELATIVE DIFFERENCE: 0.4 (UP TO 1.3E-06 ALLOWED)'),
    (lambda T: assert_close([T([1.0, 2.0]), 3], [T([1.0, 2.0]), 4], msg="replaced"), AssertionError, 'replaced'),
    (lambda T: assert_close([T([1.0, 2.0]), 3], [T([1.0, 2.0]), 4], msg=lambda m: "C:" + m), AssertionError, 'C:Scalars are not equal!\n\nExpected 4 but got 3.\nAbsolute difference: 1\nRelative difference: 0.25\n\nThe failure occurred for item [1]'),
    (lambda T: assert_close([1, 2], [1], msg="ignored while pairing"), AssertionError, 'The length of the sequences mismatch: 2 != 1'),
    (lambda T: assert_close(T([1, 2]), T([1, 3]), msg=""), AssertionError, ''),
    (lambda T: assert_close(T([1.0]), T([1.0]), unknown=1), TypeError, "assert_close() got an unexpected keyword argument 'unknown'"),
    (lambda T: assert_close(T([1.0])), TypeError, "assert_close() missing 1 required positional argument: 'expected'"),
    (lambda T: assert_close(T([1.0]), T([1.0]), 1e-3, 1e-3), TypeError, 'assert_close() takes 2 positional arguments but 4 were given'),
]

PYTHON: list[Case] = [
    (lambda T: assert_close(1, 1.0), AssertionError, "The (d)types do not match: <class 'int'> != <class 'float'>."),
    (lambda T: assert_close(1.0, 1.5), AssertionError, 'Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.3333333333333333 (up to 1e-07 allowed)'),
    (lambda T: assert_close(1, 2), AssertionError, 'Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5'),
    (lambda T: assert_close(1 + 1j, 1 + 2j), AssertionError, 'Scalars are not close!\n\nExpected (1+2j) but got (1+1j).\nAbsolute difference: 1.0 (up to 1e-07 allowed)\nRelative difference: 0.4472135954999579 (up to 1e-07 allowed)'),
    (lambda T: assert_close(True, False), AssertionError, 'Booleans mismatch: True is not False'),
    (lambda T: assert_close(None, 1), AssertionError, 'None mismatch: None is not 1'),
    (lambda T: assert_close(None, None), None, None),
    (lambda T: assert_close("a", "a"), TypeError, "No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>."),
    (lambda T: assert_close(M.float32, M.float32), TypeError, "No comparison pair was able to handle inputs of type <class 'tensorcore.dtype'> and <class 'tensorcore.dtype'>."),
    (lambda T: assert_close(nan, nan), AssertionError, 'Scalars are not close!\n\nExpected nan but got nan.\nAbsolute difference: nan (up to 1e-07 allowed)\nRelative difference: nan (up to 1e-07 allowed)'),
    (lambda T: assert_close(nan, nan, equal_nan=True), None, None),
    (lambda T: assert_close(1.0, 2.0, rtol=0, atol=0), AssertionError, 'Scalars are not equal!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0\nRelative difference: 0.5'),
    (lambda T: assert_close(1.0, 1, check_dtype=False), None, None),
    (lambda T: assert_close(1.0, 1.5, check_dtype=False), AssertionError, 'Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.3333333333333333 (up to 1e-07 allowed)'),
    (lambda T: assert_close(1, 2, rtol=1, atol=0), None, None),
    (lambda T: assert_close(5, 2, rtol=0.1, atol=0.1), AssertionError, 'Scalars are not close!\n\nExpected 2 but got 5.\nAbsolute difference: 3 (up to 0.1 allowed)\nRelative difference: 1.5 (up to 0.1 allowed)'),
    (lambda T: assert_close(1 + 1j, 1, check_dtype=False), AssertionError, 'Scalars are not close!\n\nExpected 1 but got (1+1j).\nAbsolute difference: 1.0 (up to 1e-07 allowed)\nRelative difference: 1.0 (up to 1e-07 allowed)'),
    (lambda T: assert_close(1.0, inf), AssertionError, 'Scalars are not close!\n\nExpected inf but got 1.0.\nAbsolute difference: inf (up to 1e-07 allowed)\nRelative difference: nan (up to 1e-07 allowed)'),
    (lambda T: assert_close(inf, inf), None, None),
    (lambda T: assert_close(-inf, inf), AssertionError, 'Scalars are not close!\n\nExpected inf but got -inf.\nAbsolute difference: inf (up to 1e-07 allowed)\nRelative difference: nan (up to 1e-07 allowed)'),
    (lambda T: assert_close(0.0, 1e-300), None, None),
    (lambda T: assert_close(0.0, 0.1), AssertionError, 'Scalars are not close!\n\nExpected 0.1 but got 0.0.\nAbsolute difference: 0.1 (up to 1e-07 allowed)\nRelative difference: 1.0 (up to 1e-07 allowed)'),
    (lambda T: assert_close(1e-9, 1e-10, rtol=0, atol=0), AssertionError, 'Scalars are not equal!\n\nExpected 1e-10 but got 1e-09.\nAbsolute difference: 9.000000000000001e-10\nRelative difference: 9.0'),
    (lambda T: assert_close(np.float64(1.0), np.float32(1.0)), None, None),
    (lambda T: assert_close(np.float32(1.0), np.float32(1.5)), AssertionError, 'Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\nRelative difference: 0.3333333333333333 (up to 1e-07 allowed)'),
    (lambda T: assert_close(np.int64(1), 1), None, None),
    (lambda T: assert_close(np.bool_(True), True), None, None),
    (lambda T: assert_close(np.bool_(True), np.bool_(False)), AssertionError, 'Booleans mismatch: True is not False'),
    (lambda T: assert_close(np.array(1.0), np.array(2.0)), AssertionError, 'Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to 1e-07 allowed)\nRelative difference: 0.5 (up to 1e-07 allowed)'),
    (lambda T: assert_close(np.array([1.0, 2.0]), np.array([1.0, 3.0])), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-07 allowed)\nGreatest relative difference: 0.3333333333333333 at index (1,) (up to 1e-07 allowed)'),
    (lambda T: assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32)), AssertionError, "The values for attribute 'dtype' do not match: tensorcore.float64 != tensorcore.float32."),
    (lambda T: assert_close(np.array([1, 2]), [1, 2]), TypeError, "No comparison pair was able to handle inputs of type <class 'numpy.ndarray'> and <class 'list'>."),
    (lambda T: assert_close(np.array([1.0]), T([1.0])), TypeError, "No comparison pair was able to handle inputs of type <class 'numpy.ndarray'> and <class 'tensorcore.Tensor'>."),
    (lambda T: assert_close((1.0, 2.0), T([1.0, 2.0])), TypeError, "No comparison pair was able to handle inputs of type <class 'tuple'> and <class 'tensorcore.Tensor'>."),
]

CONTAINERS: list[Case] = [
    (lambda T: assert_close([1, 2], [1, 3]), AssertionError, 'Scalars are not equal!\n\nExpected 3 but got 2.\nAbsolute difference: 1\nRelative difference: 0.3333333333333333\n\nThe failure occurred for item [1]'),
    (lambda T: assert_close([1, 2], [1]), AssertionError, 'The length of the sequences mismatch: 2 != 1'),
    (lambda T: assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2}), AssertionError, "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\nAdditional keys in the actual mapping: ['b']"),
    (lambda T: assert_close({"a": 1, "b": T([1.0, 2.0])}, {"a": 1, "b": T([1.0, 3.0])}), AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['b']"),
    (lambda T: assert_close({"a": [1, {"x": T([1.0, 2.0])}]}, {"a": [1, {"x": T([1.0, 3.0])}]}), AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['a'][1]['x']"),
    (lambda T: assert_close((T([1.0]), 2), [T([1.0]), 3]), AssertionError, 'Scalars are not equal!\n\nExpected 3 but got 2.\nAbsolute difference: 1\nRelative difference: 0.3333333333333333\n\nThe failure occurred for item [1]'),
    (lambda T: assert_close([T([1.0, 2.0]), [T([3.0])]], [T([1.0, 2.0]), [T([4.0])]]), AssertionError, 'Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.25 at index (0,) (up to 1.3e-06 allowed)\n\nThe failure occurred for item [1][0]'),
    (lambda T: assert_close([1, "a"], [2, "a"]), TypeError, "No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.\n\nThe failure occurred for item [1]"),
    (lambda T: assert_close([1, T([1.0])], [2, T([1.0], dtype=M.float64)]), AssertionError, 'Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5\n\nThe failure occurred for item [0]'),
    (lambda T: assert_close({"b": 1, "a": 2}, {"b": 2, "a": 3}), AssertionError, "Scalars are not equal!\n\nExpected 3 but got 2.\nAbsolute difference: 1\nRelative difference: 0.3333333333333333\n\nThe failure occurred for item ['a']"),
    (lambda T: assert_close([[1, 2], [3, 4]], [[1, 2], [3, 5]]), AssertionError, 'Scalars are not equal!\n\nExpected 5 but got 4.\nAbsolute difference: 1\nRelative difference: 0.2\n\nThe failure occurred for item [1][1]'),
    (lambda T: assert_close(range(3), [0, 1, 2]), None, None),
    (lambda T: assert_close(M.Size([2]), M.Size([3])), AssertionError, 'Scalars are not equal!\n\nExpected 3 but got 2.\nAbsolute difference: 1\nRelative difference: 0.3333333333333333\n\nThe failure occurred for item [0]'),
    (lambda T: assert_close([T([1.0]), {"k": (1.0, None)}], (T([1.0]), {"k": [1.0, None]})), None, None),
]
# fmt: on


def _check(device: str, case: Case) -> None:
    call, kind, msg = case

    def make(*args: Any, **kwargs: Any) -> tc.Tensor:
        if "dtype" in kwargs and (why := dtype_unsupported(device, kwargs["dtype"])):
            pytest.skip(why)  # (bfloat16 on a CuPy without it)
        return tc.tensor(*args, device=device, **kwargs)

    if kind is None:
        call(make)
        return
    with pytest.raises(kind) as info:
        call(make)
    assert msg is not None
    dev = str(make(0.0).device)
    assert str(info.value) == msg.replace("{DEV}", dev)


def _ids(cases: list[Case]) -> list[str]:
    return [str(i) for i in range(len(cases))]


@pytest.mark.parametrize("case", TENSORS, ids=_ids(TENSORS))
def test_tensor_values(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", ZERO_DIM, ids=_ids(ZERO_DIM))
def test_zero_dim_tensors_read_as_scalars(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", ATTRIBUTES, ids=_ids(ATTRIBUTES))
def test_tensor_attributes_and_promotion(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", META, ids=_ids(META))
def test_meta_tensors_compare_attributes_only(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.sparse
@pytest.mark.parametrize("case", SPARSE, ids=_ids(SPARSE))
def test_sparse_coo_tensors(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", OPTIONS, ids=_ids(OPTIONS))
def test_tolerances_msg_and_signature(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", PYTHON, ids=_ids(PYTHON))
def test_python_numbers_numpy_scalars_and_arrays(device: str, case: Case) -> None:
    _check(device, case)


@pytest.mark.parametrize("case", CONTAINERS, ids=_ids(CONTAINERS))
def test_sequences_and_mappings(device: str, case: Case) -> None:
    _check(device, case)


def test_a_bool_against_a_number_is_no_pair() -> None:
    # PyTorch fails while pairing (a RuntimeError naming the pair), not with an assertion.
    with pytest.raises(
        RuntimeError,
        match=r"^Originating a NumberPair\(\) at item  with\n\n"
        r"bool\(\): True\n\nand\n\nint\(\): 1\n\n",
    ):
        assert_close(True, 1)
    with pytest.raises(RuntimeError, match=r"at item \[0\]\['k'\] with\n\nint\(\): 1\n\n"):
        assert_close([{"k": 1}], [{"k": False}])


def test_negative_tolerances_are_refused(device: str) -> None:
    x = tc.ones(2, device=device)
    with pytest.raises(
        RuntimeError, match=r"rtol must be greater than or equal to zero, but got -0\.001"
    ):
        assert_close(x, x, rtol=-1e-3, atol=0.0)
    with pytest.raises(
        RuntimeError, match="atol must be greater than or equal to zero, but got -1"
    ):
        assert_close(x, x, rtol=0.0, atol=-1)


# ------------------------------------------------------------------ the NumPy oracle
def test_oracle_nans_are_equal_unless_equal_nan_is_false(device: str) -> None:
    x = tc.tensor([1.0, nan], device=device)
    assert_close(x, np.array([1.0, np.nan], np.float32))
    assert_close(x, [1.0, nan])
    with pytest.raises(AssertionError) as info:
        assert_close(x, np.array([1.0, np.nan], np.float32), equal_nan=False)
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        assert_close(x, np.array([1.0, 2.0], np.float32))


def test_oracle_checks_the_dtype_of_arrays_only(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    with pytest.raises(AssertionError) as info:
        assert_close(x, np.array([1.0, 2.0]))
    assert str(info.value) == (
        "The values for attribute 'dtype' do not match: tensorcore.float32 != tensorcore.float64."
    )
    with pytest.raises(AssertionError, match=r"tensorcore.int64 != numpy.uint16\.$"):
        assert_close(tc.tensor([1, 2], device=device), np.array([1, 2], np.uint16))
    assert_close(x, np.array([1.0, 2.0]), check_dtype=False)
    assert_close(x, [1, 2.0])  # (a list's dtype is not checked)
    assert_close(tc.tensor(3, device=device), 3)
    assert_close(tc.tensor(3, device=device), np.int64(3))
    assert_close(tc.tensor([True, False], device=device), [True, False])
    assert_close(tc.tensor([1, 2], dtype=tc.int8, device=device), np.array([1, 2], np.int8))


def test_oracle_messages_are_pytorchs(device: str) -> None:
    x = tc.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    with pytest.raises(AssertionError) as info:
        assert_close(x, np.array([[1.0, 2.5], [3.0, 5.0]], np.float32))
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\n"
        "Greatest absolute difference: 1.0 at index (1, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.20000000298023224 at index (0, 1) (up to 1.3e-06 allowed)"
    )
    with pytest.raises(AssertionError) as info:
        assert_close(x, [[1.0, 2.0]])
    assert str(info.value) == (
        "The values for attribute 'shape' do not match: tensorcore.Size([2, 2]) != "
        "tensorcore.Size([1, 2])."
    )
    with pytest.raises(AssertionError) as info:
        assert_close(tc.tensor(3, device=device), 4)
    assert str(info.value) == (
        "Scalars are not equal!\n\nExpected 4 but got 3.\nAbsolute difference: 1\n"
        "Relative difference: 0.25"
    )


def test_oracle_tolerances_are_the_tensors_and_both_or_none(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    assert_close(x, [1.0, 2.00001])  # float32: rtol 1.3e-6, atol 1e-5
    with pytest.raises(AssertionError, match="not close"):
        assert_close(x.double(), [1.0, 2.00001])
    assert_close(x.double(), [1.0, 2.00001], rtol=1e-5, atol=0.0)
    with pytest.raises(
        ValueError,
        match=r"^Both 'rtol' and 'atol' must be either specified or "
        r"omitted, but got no rtol\.$",
    ):
        assert_close(x, [1.0, 2.0], atol=1e-3)
    with pytest.raises(AssertionError, match="not equal"):
        assert_close(tc.tensor([1, 2], device=device), [1, 2.5])


def test_oracle_in_containers_and_msg(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    assert_close((x, [x]), [np.array([1.0, 2.0], np.float32), [[1.0, 2.0]]])
    with pytest.raises(AssertionError, match=r"^at: Tensor-likes(.|\n)*item \[1\]\[0\]$"):
        assert_close((x, [x]), (x, [[1.0, 3.0]]), msg=lambda m: f"at: {m}")
    with pytest.raises(AssertionError, match=r"^replaced$"):
        assert_close(x, [1.0, 3.0], msg="replaced")


def test_oracle_pairs_only_a_tensor_actual(device: str) -> None:
    x = tc.tensor([1.0], device=device)
    with pytest.raises(
        TypeError,
        match=r"No comparison pair was able to handle inputs of type "
        r"<class 'numpy\.ndarray'> and <class 'tensorcore\.Tensor'>\.$",
    ):
        assert_close(np.array([1.0], np.float32), x)
    with pytest.raises(TypeError, match=r"<class 'tensorcore\.Tensor'> and <class 'str'>"):
        assert_close(x, "1.0")


# ------------------------------------------------------------------ assert_allclose
def test_assert_allclose_is_deprecated_and_loose(device: str) -> None:
    x = tc.tensor([1.0, 2.0], device=device)
    if x.device.type != "cpu":
        # PyTorch's makes a non-tensor expected on the CPU, then checks the devices.
        with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="'device'"):
            assert_allclose(x, [1.0, 2.0])
        return
    with pytest.warns(
        FutureWarning,
        match=r"`torch.testing.assert_allclose\(\)` is deprecated "
        r"since 1.12 and will be removed in a future release. Please use "
        r"`torch.testing.assert_close\(\)` instead.",
    ):
        assert_allclose(x, [1.0, 2.0001])  # float32: rtol 1e-4, atol 1e-5, check_dtype False
    with pytest.warns(FutureWarning), pytest.raises(AssertionError) as info:
        assert_allclose(x, [1.0, 2.01])
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.009999990463256836 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.0049751196056604385 at index (1,) (up to 0.0001 allowed)"
    )
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match=r"^custom$"):
        assert_allclose(x, [1.0, 3.0], msg="custom")
    with pytest.warns(FutureWarning):
        assert_allclose(tc.tensor([nan], device=device), [nan])  # NaNs equal
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not equal"):
        assert_allclose(x.to(tc.complex64), [1.0, 2.0001])  # no default tolerance for complex
