"""Printing: ``repr`` in PyTorch's text, print options, ``format()`` of tensors, the names that
``type()`` shows, and ``repr`` converting only the elements it prints.

The expected strings are PyTorch 2.13's output for the same calls (``torch.`` written as
``tensorcore.``), pasted as literals: PyTorch is never a test dependency.
"""

from __future__ import annotations

import math
import pickle
from typing import Any

import pytest

import tensorcore as tc

NAN, INF = math.nan, math.inf


@pytest.fixture(autouse=True)
def _restore_printoptions() -> Any:
    saved = tc.get_printoptions()
    yield
    tc.set_printoptions(**saved)


# (id, tensor maker, print options (``_default``: the default dtype) or None, PyTorch's text)
_CASES: list[tuple[str, Any, dict[str, Any] | None, str]] = [
    (
        "int",
        lambda: tc.tensor([1, -22, 333]),
        None,
        "tensor([  1, -22, 333])",
    ),
    (
        "int_2d",
        lambda: tc.tensor([[1, 2], [3, 4]]),
        None,
        "tensor([[1, 2],\n        [3, 4]])",
    ),
    (
        "float_fixed",
        lambda: tc.tensor([1.5, -2.25, 3.0]),
        None,
        "tensor([ 1.5000, -2.2500,  3.0000])",
    ),
    (
        "float_fixed_small",
        lambda: tc.tensor([0.1, 0.2, 0.3333]),
        None,
        "tensor([0.1000, 0.2000, 0.3333])",
    ),
    (
        "float_int_valued",
        lambda: tc.tensor([1.0, -2.0, 300.0]),
        None,
        "tensor([  1.,  -2., 300.])",
    ),
    (
        "float_sci_small",
        lambda: tc.tensor([1e-5, 1.0]),
        None,
        "tensor([1.0000e-05, 1.0000e+00])",
    ),
    (
        "float_sci_big",
        lambda: tc.tensor([1e9, 1.5]),
        None,
        "tensor([1.0000e+09, 1.5000e+00])",
    ),
    (
        "float_sci_ratio",
        lambda: tc.tensor([1.5, 2000.0]),
        None,
        "tensor([1.5000e+00, 2.0000e+03])",
    ),
    (
        "float_int_valued_sci",
        lambda: tc.tensor([1e10, 2.0]),
        None,
        "tensor([1.0000e+10, 2.0000e+00])",
    ),
    (
        "float_negative_zero",
        lambda: tc.tensor([-0.0, 1.0]),
        None,
        "tensor([-0., 1.])",
    ),
    (
        "float_zeros",
        lambda: tc.zeros(3),
        None,
        "tensor([0., 0., 0.])",
    ),
    (
        "float_nonfinite",
        lambda: tc.tensor([NAN, INF, -INF, 1.5]),
        None,
        "tensor([   nan,    inf,   -inf, 1.5000])",
    ),
    (
        "float_nan_int_valued",
        lambda: tc.tensor([NAN, 1.0]),
        None,
        "tensor([nan, 1.])",
    ),
    (
        "float_only_nan",
        lambda: tc.tensor([NAN, INF]),
        None,
        "tensor([nan, inf])",
    ),
    (
        "complex",
        lambda: tc.tensor([1 + 2j, -3.5 - 0.25j]),
        None,
        "tensor([ 1.0000+2.0000j, -3.5000-0.2500j])",
    ),
    (
        "complex_int_valued",
        lambda: tc.tensor([1 + 0j, -1j, 20 + 3j]),
        None,
        "tensor([ 1.+0.j, -0.-1.j, 20.+3.j])",
    ),
    (
        "complex_nan",
        lambda: tc.tensor([complex(NAN, 1.0), 2 + 1j]),
        None,
        "tensor([nan+1.j, 2.+1.j])",
    ),
    (
        "complex_sci",
        lambda: tc.tensor([1e-6 + 1j, 2 + 3j]),
        None,
        "tensor([1.0000e-06+1.j, 2.0000e+00+3.j])",
    ),
    (
        "bool",
        lambda: tc.tensor([True, False, True]),
        None,
        "tensor([ True, False,  True])",
    ),
    (
        "scalar_float",
        lambda: tc.tensor(3.0),
        None,
        "tensor(3.)",
    ),
    (
        "scalar_float_frac",
        lambda: tc.tensor(2.3058),
        None,
        "tensor(2.3058)",
    ),
    (
        "scalar_int",
        lambda: tc.tensor(-5),
        None,
        "tensor(-5)",
    ),
    (
        "scalar_bool",
        lambda: tc.tensor(True),
        None,
        "tensor(True)",
    ),
    (
        "scalar_complex",
        lambda: tc.tensor(1 - 2j),
        None,
        "tensor(1.-2.j)",
    ),
    (
        "scalar_nan",
        lambda: tc.tensor(NAN),
        None,
        "tensor(nan)",
    ),
    (
        "scalar_sci",
        lambda: tc.tensor(1.5e-7),
        None,
        "tensor(1.5000e-07)",
    ),
    (
        "scalar_float64",
        lambda: tc.tensor(1.5, dtype=tc.float64),
        None,
        "tensor(1.5000, dtype=tensorcore.float64)",
    ),
    (
        "empty",
        lambda: tc.tensor([]),
        None,
        "tensor([])",
    ),
    (
        "empty_2d",
        lambda: tc.zeros(2, 0),
        None,
        "tensor([], size=(2, 0))",
    ),
    (
        "empty_int",
        lambda: tc.tensor([], dtype=tc.int64),
        None,
        "tensor([], dtype=tensorcore.int64)",
    ),
    (
        "empty_int32_2d",
        lambda: tc.zeros(0, 3, dtype=tc.int32),
        None,
        "tensor([], size=(0, 3), dtype=tensorcore.int32)",
    ),
    (
        "empty_bool",
        lambda: tc.zeros(0, dtype=tc.bool),
        None,
        "tensor([], dtype=tensorcore.bool)",
    ),
    (
        "summary_1d",
        lambda: tc.arange(2000),
        None,
        "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])",
    ),
    (
        "summary_1d_float",
        lambda: tc.arange(2000.0) / 7,
        None,
        "tensor([0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 2.8529e+02, 2.8543e+02,\n"
        "        2.8557e+02])",
    ),
    (
        "summary_2d",
        lambda: tc.arange(3000.0).reshape(100, 30),
        None,
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 2.7000e+01, 2.8000e+01,\n"
        "         2.9000e+01],\n"
        "        [3.0000e+01, 3.1000e+01, 3.2000e+01,  ..., 5.7000e+01, 5.8000e+01,\n"
        "         5.9000e+01],\n"
        "        [6.0000e+01, 6.1000e+01, 6.2000e+01,  ..., 8.7000e+01, 8.8000e+01,\n"
        "         8.9000e+01],\n"
        "        ...,\n"
        "        [2.9100e+03, 2.9110e+03, 2.9120e+03,  ..., 2.9370e+03, 2.9380e+03,\n"
        "         2.9390e+03],\n"
        "        [2.9400e+03, 2.9410e+03, 2.9420e+03,  ..., 2.9670e+03, 2.9680e+03,\n"
        "         2.9690e+03],\n"
        "        [2.9700e+03, 2.9710e+03, 2.9720e+03,  ..., 2.9970e+03, 2.9980e+03,\n"
        "         2.9990e+03]])",
    ),
    (
        "summary_2d_narrow",
        lambda: tc.arange(2002).reshape(1001, 2),
        None,
        "tensor([[   0,    1],\n"
        "        [   2,    3],\n"
        "        [   4,    5],\n"
        "        ...,\n"
        "        [1996, 1997],\n"
        "        [1998, 1999],\n"
        "        [2000, 2001]])",
    ),
    (
        "summary_2d_wide",
        lambda: tc.arange(2002).reshape(2, 1001),
        None,
        "tensor([[   0,    1,    2,  ...,  998,  999, 1000],\n"
        "        [1001, 1002, 1003,  ..., 1999, 2000, 2001]])",
    ),
    (
        "summary_3d",
        lambda: tc.arange(343).reshape(7, 7, 7),
        {"threshold": 100, "edgeitems": 2},
        "tensor([[[  0,   1,  ...,   5,   6],\n"
        "         [  7,   8,  ...,  12,  13],\n"
        "         ...,\n"
        "         [ 35,  36,  ...,  40,  41],\n"
        "         [ 42,  43,  ...,  47,  48]],\n"
        "\n"
        "        [[ 49,  50,  ...,  54,  55],\n"
        "         [ 56,  57,  ...,  61,  62],\n"
        "         ...,\n"
        "         [ 84,  85,  ...,  89,  90],\n"
        "         [ 91,  92,  ...,  96,  97]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[245, 246,  ..., 250, 251],\n"
        "         [252, 253,  ..., 257, 258],\n"
        "         ...,\n"
        "         [280, 281,  ..., 285, 286],\n"
        "         [287, 288,  ..., 292, 293]],\n"
        "\n"
        "        [[294, 295,  ..., 299, 300],\n"
        "         [301, 302,  ..., 306, 307],\n"
        "         ...,\n"
        "         [329, 330,  ..., 334, 335],\n"
        "         [336, 337,  ..., 341, 342]]])",
    ),
    (
        "summary_4d",
        lambda: tc.arange(196).reshape(2, 7, 2, 7) - 100,
        {"threshold": 10, "edgeitems": 1},
        "tensor([[[[-100,  ...,  -94],\n"
        "          [ -93,  ...,  -87]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[ -16,  ...,  -10],\n"
        "          [  -9,  ...,   -3]]],\n"
        "\n"
        "\n"
        "        [[[  -2,  ...,    4],\n"
        "          [   5,  ...,   11]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[  82,  ...,   88],\n"
        "          [  89,  ...,   95]]]])",
    ),
    (
        "summary_hidden_outlier",
        lambda: tc.cat([tc.ones(1000), tc.tensor([1e10]), tc.ones(1000)]),
        None,
        "tensor([1., 1., 1.,  ..., 1., 1., 1.])",
    ),
    (
        "wrap_default",
        lambda: tc.arange(30.0) * 1.5,
        None,
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
        "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])",
    ),
    (
        "wrap_int",
        lambda: tc.arange(100) * 7,
        None,
        "tensor([  0,   7,  14,  21,  28,  35,  42,  49,  56,  63,  70,  77,  84,  91,\n"
        "         98, 105, 112, 119, 126, 133, 140, 147, 154, 161, 168, 175, 182, 189,\n"
        "        196, 203, 210, 217, 224, 231, 238, 245, 252, 259, 266, 273, 280, 287,\n"
        "        294, 301, 308, 315, 322, 329, 336, 343, 350, 357, 364, 371, 378, 385,\n"
        "        392, 399, 406, 413, 420, 427, 434, 441, 448, 455, 462, 469, 476, 483,\n"
        "        490, 497, 504, 511, 518, 525, 532, 539, 546, 553, 560, 567, 574, 581,\n"
        "        588, 595, 602, 609, 616, 623, 630, 637, 644, 651, 658, 665, 672, 679,\n"
        "        686, 693])",
    ),
    (
        "wrap_2d",
        lambda: (tc.arange(60.0).reshape(3, 20) - 30) / 4,
        None,
        "tensor([[-7.5000, -7.2500, -7.0000, -6.7500, -6.5000, -6.2500, -6.0000, -5.7500,\n"
        "         -5.5000, -5.2500, -5.0000, -4.7500, -4.5000, -4.2500, -4.0000, -3.7500,\n"
        "         -3.5000, -3.2500, -3.0000, -2.7500],\n"
        "        [-2.5000, -2.2500, -2.0000, -1.7500, -1.5000, -1.2500, -1.0000, -0.7500,\n"
        "         -0.5000, -0.2500,  0.0000,  0.2500,  0.5000,  0.7500,  1.0000,  1.2500,\n"
        "          1.5000,  1.7500,  2.0000,  2.2500],\n"
        "        [ 2.5000,  2.7500,  3.0000,  3.2500,  3.5000,  3.7500,  4.0000,  4.2500,\n"
        "          4.5000,  4.7500,  5.0000,  5.2500,  5.5000,  5.7500,  6.0000,  6.2500,\n"
        "          6.5000,  6.7500,  7.0000,  7.2500]])",
    ),
    (
        "wrap_3d",
        lambda: tc.arange(2 * 2 * 24).reshape(2, 2, 24) * 11,
        None,
        "tensor([[[   0,   11,   22,   33,   44,   55,   66,   77,   88,   99,  110,\n"
        "           121,  132,  143,  154,  165,  176,  187,  198,  209,  220,  231,\n"
        "           242,  253],\n"
        "         [ 264,  275,  286,  297,  308,  319,  330,  341,  352,  363,  374,\n"
        "           385,  396,  407,  418,  429,  440,  451,  462,  473,  484,  495,\n"
        "           506,  517]],\n"
        "\n"
        "        [[ 528,  539,  550,  561,  572,  583,  594,  605,  616,  627,  638,\n"
        "           649,  660,  671,  682,  693,  704,  715,  726,  737,  748,  759,\n"
        "           770,  781],\n"
        "         [ 792,  803,  814,  825,  836,  847,  858,  869,  880,  891,  902,\n"
        "           913,  924,  935,  946,  957,  968,  979,  990, 1001, 1012, 1023,\n"
        "          1034, 1045]]])",
    ),
    (
        "wrap_linewidth",
        lambda: tc.arange(30.0) * 1.5,
        {"linewidth": 40},
        "tensor([ 0.0000,  1.5000,  3.0000,\n"
        "         4.5000,  6.0000,  7.5000,\n"
        "         9.0000, 10.5000, 12.0000,\n"
        "        13.5000, 15.0000, 16.5000,\n"
        "        18.0000, 19.5000, 21.0000,\n"
        "        22.5000, 24.0000, 25.5000,\n"
        "        27.0000, 28.5000, 30.0000,\n"
        "        31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000,\n"
        "        40.5000, 42.0000, 43.5000])",
    ),
    (
        "wrap_linewidth_tiny",
        lambda: tc.arange(5),
        {"linewidth": 3},
        "tensor([0,\n        1,\n        2,\n        3,\n        4])",
    ),
    (
        "wrap_complex",
        lambda: tc.arange(20.0) * (1 + 2j),
        None,
        "tensor([ 0.+0.j,  1.+2.j,  2.+4.j,  3.+6.j,  4.+8.j,  5.+10.j,  6.+12.j,  7.+14.j,\n"
        "         8.+16.j,  9.+18.j, 10.+20.j, 11.+22.j, 12.+24.j, 13.+26.j, 14.+28.j, 15.+30.j,\n"
        "        16.+32.j, 17.+34.j, 18.+36.j, 19.+38.j])",
    ),
    (
        "wrap_suffix",
        lambda: tc.arange(9.0, dtype=tc.float64) * 1.25,
        None,
        "tensor([ 0.0000,  1.2500,  2.5000,  3.7500,  5.0000,  6.2500,  7.5000,  8.7500,\n"
        "        10.0000], dtype=tensorcore.float64)",
    ),
    (
        "wrap_suffix_2d",
        lambda: tc.ones(2, 9, dtype=tc.float64) * 1.25,
        None,
        "tensor([[1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500],\n"
        "        [1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500, 1.2500]],\n"
        "       dtype=tensorcore.float64)",
    ),
    (
        "requires_grad",
        lambda: tc.tensor([1.0, 2.0], requires_grad=True),
        None,
        "tensor([1., 2.], requires_grad=True)",
    ),
    (
        "requires_grad_scalar",
        lambda: tc.tensor(2.0, requires_grad=True),
        None,
        "tensor(2., requires_grad=True)",
    ),
    (
        "grad_fn",
        lambda: tc.tensor([1.0, 2.0], requires_grad=True) * 2,
        None,
        "tensor([2., 4.], grad_fn=<MulBackward0>)",
    ),
    (
        "grad_fn_sum",
        lambda: tc.tensor([1.0, 2.0], requires_grad=True).sum(),
        None,
        "tensor(3., grad_fn=<SumBackward0>)",
    ),
    (
        "grad_fn_dtype",
        lambda: tc.tensor([1.0, 2.0], dtype=tc.float64, requires_grad=True).exp(),
        None,
        "tensor([2.7183, 7.3891], dtype=tensorcore.float64, grad_fn=<ExpBackward0>)",
    ),
    (
        "float64",
        lambda: tc.tensor([1.0, 2.5], dtype=tc.float64),
        None,
        "tensor([1.0000, 2.5000], dtype=tensorcore.float64)",
    ),
    (
        "float16",
        lambda: tc.tensor([1.1, 2.2], dtype=tc.float16),
        None,
        "tensor([1.0996, 2.1992], dtype=tensorcore.float16)",
    ),
    (
        "bfloat16",
        lambda: tc.tensor([1.1, 2.2], dtype=tc.bfloat16),
        None,
        "tensor([1.1016, 2.2031], dtype=tensorcore.bfloat16)",
    ),
    (
        "int32",
        lambda: tc.tensor([1, 2], dtype=tc.int32),
        None,
        "tensor([1, 2], dtype=tensorcore.int32)",
    ),
    (
        "int8",
        lambda: tc.tensor([-128, 127], dtype=tc.int8),
        None,
        "tensor([-128,  127], dtype=tensorcore.int8)",
    ),
    (
        "uint8",
        lambda: tc.tensor([0, 255], dtype=tc.uint8),
        None,
        "tensor([  0, 255], dtype=tensorcore.uint8)",
    ),
    (
        "int16",
        lambda: tc.tensor([[1], [-2]], dtype=tc.int16),
        None,
        "tensor([[ 1],\n        [-2]], dtype=tensorcore.int16)",
    ),
    (
        "complex128",
        lambda: tc.tensor([1.5 + 1j], dtype=tc.complex128),
        None,
        "tensor([1.5000+1.j], dtype=tensorcore.complex128)",
    ),
    (
        "precision_2",
        lambda: tc.tensor([1.12345, -22.5]),
        {"precision": 2},
        "tensor([  1.12, -22.50])",
    ),
    (
        "precision_8",
        lambda: tc.tensor([1 / 3, 2.0], dtype=tc.float64),
        {"precision": 8},
        "tensor([0.33333333, 2.00000000], dtype=tensorcore.float64)",
    ),
    (
        "precision_0",
        lambda: tc.tensor([1.5, 2.25]),
        {"precision": 0},
        "tensor([2, 2])",
    ),
    (
        "sci_mode_on",
        lambda: tc.tensor([1.5, 2.0]),
        {"sci_mode": True},
        "tensor([1.5000e+00, 2.0000e+00])",
    ),
    (
        "sci_mode_on_int_valued",
        lambda: tc.tensor([1.0, 200.0]),
        {"sci_mode": True},
        "tensor([1.0000e+00, 2.0000e+02])",
    ),
    (
        "sci_mode_off",
        lambda: tc.tensor([1e-6, 1.0, 123456789.0]),
        {"sci_mode": False},
        "tensor([        0.0000,         1.0000, 123456792.0000])",
    ),
    (
        "threshold_5",
        lambda: tc.arange(10),
        {"threshold": 5},
        "tensor([0, 1, 2,  ..., 7, 8, 9])",
    ),
    (
        "threshold_edgeitems",
        lambda: tc.arange(100.0).reshape(10, 10),
        {"threshold": 5, "edgeitems": 1},
        "tensor([[ 0.,  ...,  9.],\n        ...,\n        [90.,  ..., 99.]])",
    ),
    (
        "edgeitems_0",
        lambda: tc.arange(10),
        {"threshold": 5, "edgeitems": 0},
        "tensor([...], size=(10,))",
    ),
    (
        "edgeitems_0_2d",
        lambda: tc.arange(100).reshape(10, 10),
        {"threshold": 5, "edgeitems": 0},
        "tensor([...], size=(10, 10))",
    ),
    (
        "edgeitems_0_small",
        lambda: tc.arange(3),
        {"edgeitems": 0},
        "tensor([0, 1, 2], size=(3,))",
    ),
    (
        "profile_short",
        lambda: tc.arange(2000.0) / 3,
        {"profile": "short"},
        "tensor([0.00e+00, 3.33e-01,  ..., 6.66e+02, 6.66e+02])",
    ),
    (
        "default_float64_float32",
        lambda: tc.tensor([1.5, 2.0], dtype=tc.float32),
        {"_default": "float64"},
        "tensor([1.5000, 2.0000], dtype=tensorcore.float32)",
    ),
    (
        "default_float64_float64",
        lambda: tc.tensor([1.5, 2.0]),
        {"_default": "float64"},
        "tensor([1.5000, 2.0000])",
    ),
    (
        "default_float64_complex64",
        lambda: tc.tensor([1.5j], dtype=tc.complex64),
        {"_default": "float64"},
        "tensor([0.+1.5000j], dtype=tensorcore.complex64)",
    ),
    (
        "default_float64_complex128",
        lambda: tc.tensor([1.5j]),
        {"_default": "float64"},
        "tensor([0.+1.5000j])",
    ),
    (
        "default_float64_empty",
        lambda: tc.zeros(0, dtype=tc.float32),
        {"_default": "float64"},
        "tensor([], dtype=tensorcore.float32)",
    ),
    (
        "transposed",
        lambda: tc.arange(6.0).reshape(2, 3).t(),
        None,
        "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])",
    ),
    (
        "expanded_summary",
        lambda: tc.tensor([1.5, -2.0]).reshape(2, 1).expand(2, 3000),
        None,
        "tensor([[ 1.5000,  1.5000,  1.5000,  ...,  1.5000,  1.5000,  1.5000],\n"
        "        [-2.0000, -2.0000, -2.0000,  ..., -2.0000, -2.0000, -2.0000]])",
    ),
    (
        "strided_summary",
        lambda: tc.arange(10000.0)[::3],
        None,
        "tensor([0.0000e+00, 3.0000e+00, 6.0000e+00,  ..., 9.9930e+03, 9.9960e+03,\n"
        "        9.9990e+03])",
    ),
    (
        "bool_summary",
        lambda: tc.arange(2000) % 3 == 0,
        None,
        "tensor([ True, False, False,  ..., False,  True, False])",
    ),
    (
        "complex_summary",
        lambda: tc.arange(2000.0) * (1 + 1j),
        None,
        "tensor([0.0000e+00+0.0000e+00j, 1.0000e+00+1.0000e+00j, 2.0000e+00+2.0000e+00j,\n"
        "         ..., 1.9970e+03+1.9970e+03j, 1.9980e+03+1.9980e+03j,\n"
        "        1.9990e+03+1.9990e+03j])",
    ),
    (
        "float16_summary",
        lambda: (tc.arange(2000.0) / 4).to(tc.float16),
        None,
        "tensor([0.0000e+00, 2.5000e-01, 5.0000e-01,  ..., 4.9925e+02, 4.9950e+02,\n"
        "        4.9975e+02], dtype=tensorcore.float16)",
    ),
    (
        "summary_grad_fn",
        lambda: tc.arange(2000.0).requires_grad_() * 2,
        None,
        "tensor([0.0000e+00, 2.0000e+00, 4.0000e+00,  ..., 3.9940e+03, 3.9960e+03,\n"
        "        3.9980e+03], grad_fn=<MulBackward0>)",
    ),
    (
        "wrap_suffix_requires_grad",
        lambda: tc.arange(9.0).mul(1.25).requires_grad_(),
        None,
        "tensor([ 0.0000,  1.2500,  2.5000,  3.7500,  5.0000,  6.2500,  7.5000,  8.7500,\n"
        "        10.0000], requires_grad=True)",
    ),
    (
        "large_ints",
        lambda: tc.tensor([10**12, -1]),
        None,
        "tensor([1000000000000,            -1])",
    ),
    (
        "sci_negative",
        lambda: tc.tensor([-1e-5, 1e5]),
        None,
        "tensor([-1.0000e-05,  1.0000e+05])",
    ),
    (
        "threshold_equal",
        lambda: tc.arange(12).reshape(3, 4),
        {"threshold": 12},
        "tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])",
    ),
    (
        "threshold_zero_scalar",
        lambda: tc.tensor(1.5),
        {"threshold": 0, "edgeitems": 0},
        "tensor(1.5000, size=())",
    ),
    (
        "edgeitems_large",
        lambda: tc.arange(20),
        {"threshold": 5, "edgeitems": 10},
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
        "        18, 19])",
    ),
]


@pytest.mark.parametrize(
    ("make", "options", "text"), [c[1:] for c in _CASES], ids=[c[0] for c in _CASES]
)
def test_repr_is_pytorchs_text(make: Any, options: dict[str, Any] | None, text: str) -> None:
    options = dict(options or {})
    default = options.pop("_default", None)
    if default is not None:
        tc.set_default_dtype(getattr(tc, default))
    if options:
        tc.set_printoptions(**options)
    assert repr(make()) == text
    assert str(make()) == text


@pytest.fixture
def converted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of elements of each tensor that ``tolist`` turns into Python values."""
    counts: list[int] = []
    real = tc.Tensor.tolist

    def tolist(self: tc.Tensor) -> Any:
        counts.append(self.numel())
        return real(self)

    monkeypatch.setattr(tc.Tensor, "tolist", tolist)
    return counts


def _on(device: str, text: str) -> str:
    where = tc.empty(0, device=device).device  # (cuda:0 on a GPU, as PyTorch prints it)
    if device == "cpu":
        return text
    # PyTorch moves the suffix to its own line when the last line would pass 80 characters.
    suffix = f"device='{where}')"
    last = text[:-1].rsplit("\n", 1)[-1]
    sep = ",\n       " if len(last) + 2 + len(suffix) > 80 else ", "
    return f"{text[:-1]}{sep}{suffix}"


def test_repr_converts_only_the_printed_elements(device: str, converted: list[int]) -> None:
    x = tc.arange(10**6, device=device).reshape(1000, 1000)
    assert repr(x) == _on(
        device,
        "tensor([[     0,      1,      2,  ...,    997,    998,    999],\n"
        "        [  1000,   1001,   1002,  ...,   1997,   1998,   1999],\n"
        "        [  2000,   2001,   2002,  ...,   2997,   2998,   2999],\n"
        "        ...,\n"
        "        [997000, 997001, 997002,  ..., 997997, 997998, 997999],\n"
        "        [998000, 998001, 998002,  ..., 998997, 998998, 998999],\n"
        "        [999000, 999001, 999002,  ..., 999997, 999998, 999999]])",
    )
    assert sum(converted) == 6 * 6
    converted.clear()
    repr(tc.zeros(100, 100, 100, device=device))
    assert sum(converted) == 6 * 6 * 6
    converted.clear()
    repr(tc.zeros(5, 300, device=device))  # summarised, but only its long dim is cut
    assert sum(converted) == 5 * 6
    converted.clear()
    repr(tc.zeros(10, 100, device=device))  # 1000 elements: printed in full
    assert sum(converted) == 1000


def test_repr_of_a_huge_expanded_tensor_allocates_nothing(
    device: str, converted: list[int]
) -> None:
    x = tc.ones(1, device=device).expand(2**40)
    assert repr(x) == _on(device, "tensor([1., 1., 1.,  ..., 1., 1., 1.])")
    assert sum(converted) == 6
    converted.clear()
    y = tc.ones(1, 1, device=device).expand(2**20, 2**20)
    assert repr(y) == _on(
        device,
        "tensor([[1., 1., 1.,  ..., 1., 1., 1.],\n"
        "        [1., 1., 1.,  ..., 1., 1., 1.],\n"
        "        [1., 1., 1.,  ..., 1., 1., 1.],\n"
        "        ...,\n"
        "        [1., 1., 1.,  ..., 1., 1., 1.],\n"
        "        [1., 1., 1.,  ..., 1., 1., 1.],\n"
        "        [1., 1., 1.,  ..., 1., 1., 1.]])",
    )
    assert sum(converted) == 6 * 6


@pytest.mark.parametrize(
    ("make", "spec", "text"),
    [
        (lambda: tc.tensor(2.3058), "", "2.305799961090088"),
        (lambda: tc.tensor(2.3058), "+.2f", "+2.31"),
        (lambda: tc.tensor(2.3058), ".3e", "2.306e+00"),
        (lambda: tc.tensor(2.3058), ">20", "   2.305799961090088"),
        (lambda: tc.tensor(2.3058), "^9.1f", "   2.3   "),
        (lambda: tc.tensor(5), "05d", "00005"),
        (lambda: tc.tensor(-7), "", "-7"),
        (lambda: tc.tensor(True), "", "True"),
        (lambda: tc.tensor(1 - 2j), ".1f", "1.0-2.0j"),
        (lambda: (tc.tensor([1.0, 2.0], requires_grad=True) * 2).sum(), ".1f", "6.0"),
        # Only a 0-d tensor is a number; any other tensor takes only the empty spec.
        (lambda: tc.tensor([1.0, 2.0]), "", "tensor([1., 2.])"),
        (lambda: tc.ones(1), ".2f", TypeError),
        (lambda: tc.ones(2, 2), ">10", TypeError),
        (lambda: tc.ones(0), "d", TypeError),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_format_follows_pytorch(make: Any, spec: str, text: str | type) -> None:
    if isinstance(text, str):
        assert format(make(), spec) == text
        assert f"{{:{spec}}}".format(make()) == text
    else:
        with pytest.raises(text, match=r"unsupported format string passed to Tensor\.__format__"):
            format(make(), spec)


def test_printoptions_defaults_and_profiles() -> None:
    defaults = {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert tc.get_printoptions() == defaults
    tc.set_printoptions(profile="short")
    assert tc.get_printoptions() == {**defaults, "precision": 2, "edgeitems": 2}
    tc.set_printoptions(profile="full", linewidth=100)
    assert tc.get_printoptions() == {**defaults, "threshold": math.inf, "linewidth": 100}
    assert "..." not in repr(tc.arange(5000))
    tc.set_printoptions(profile="default")
    assert tc.get_printoptions() == defaults


def test_printoptions_left_out_keep_their_value() -> None:
    # All but sci_mode: as in PyTorch, every call that leaves sci_mode out resets it to None.
    tc.set_printoptions(precision=2, sci_mode=False)
    assert repr(tc.tensor([1e-6, 1.0])) == "tensor([0.00, 1.00])"
    tc.set_printoptions(linewidth=50)
    assert tc.get_printoptions()["precision"] == 2
    assert tc.get_printoptions()["sci_mode"] is None
    assert repr(tc.tensor([1e-6, 1.0])) == "tensor([1.00e-06, 1.00e+00])"
    tc.set_printoptions(sci_mode=False)
    saved = tc.get_printoptions()
    tc.set_printoptions(profile="default")
    assert tc.get_printoptions()["sci_mode"] is None
    tc.set_printoptions(**saved)
    assert tc.get_printoptions() == saved
    tc.set_printoptions(sci_mode=None)
    assert repr(tc.tensor([1e-6, 1.0])) == "tensor([1.00e-06, 1.00e+00])"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"precision": -1}, ValueError),
        ({"precision": 2.5}, TypeError),
        ({"precision": True}, TypeError),
        ({"edgeitems": -1}, ValueError),
        ({"edgeitems": "3"}, TypeError),
        ({"linewidth": 0}, ValueError),
        ({"threshold": -1}, ValueError),
        ({"threshold": NAN}, ValueError),
        ({"threshold": "1000"}, TypeError),
        ({"sci_mode": "yes"}, TypeError),
        ({"profile": "nonsense"}, ValueError),
        ({"precision": 2, "linewidth": 0}, ValueError),
        ({"profile": "short", "sci_mode": 1}, TypeError),
    ],
    ids=repr,
)
def test_bad_printoptions_raise_and_change_nothing(kwargs: dict[str, Any], error: type) -> None:
    before = tc.get_printoptions()
    with pytest.raises(error, match="set_printoptions"):
        tc.set_printoptions(**kwargs)
    assert tc.get_printoptions() == before


def _public_classes() -> list[Any]:
    cases = [
        ("Tensor", tc.zeros(1)),
        ("Size", tc.zeros(1).shape),
        ("Storage", tc.zeros(1).untyped_storage()),
        ("dtype", tc.float32),
        ("device", tc.device("cpu")),
        ("layout", tc.strided),
        ("memory_format", tc.contiguous_format),
        ("Generator", tc.Generator()),
    ]
    return [pytest.param(name, obj, id=name) for name, obj in cases]


@pytest.mark.parametrize(("name", "obj"), _public_classes())
def test_public_classes_show_and_pickle_under_their_public_name(name: str, obj: Any) -> None:
    cls = getattr(tc, name)
    assert type(obj) is cls
    assert repr(cls) == f"<class 'tensorcore.{name}'>"
    assert pickle.loads(pickle.dumps(cls)) is cls


def test_named_singletons_pickle_by_reference() -> None:
    objs = [*tc.dtypes.all_dtypes, tc.strided, tc.preserve_format, tc.device("cpu")]
    objs += [lay for lay in tc.layouts.registered_layouts() if lay is not tc.strided]
    for obj in objs:
        assert pickle.loads(pickle.dumps(obj)) == obj
