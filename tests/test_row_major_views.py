"""A row-major view's strides become the shared tuple the fast paths know (``_tensor.row_major``).

The lanes recognise a contiguous operand by the identity of its strides with the tuple
``contiguous_strides`` shares for its shape. A view made with an equal tuple of its own (a
slice of rows, the pieces of ``unbind(0)`` or ``chunk``) took the general path on every
operator; ``row_major`` answers by value where the identity fails and stores the shared tuple.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore._memory_format import result_strides
from tensorcore._tensor import _CONTIG, contiguous_strides, row_major
from tensorcore.dispatch import get_op

VIEWS: list[tuple[str, Callable[[tc.Tensor], tc.Tensor]]] = [
    ("rows", lambda x: x[1:3]),
    ("unbind(0)", lambda x: x.reshape(2, 3, 4).unbind(0)[1]),
    ("chunk(2)", lambda x: x.chunk(2)[1]),
    ("narrow(0)", lambda x: x.narrow(0, 1, 2)),
    ("select(0) of 3-d", lambda x: x.reshape(3, 2, 4)[2]),
    ("transpose", lambda x: x.t()),
    ("columns", lambda x: x[:, 1:3]),
    ("every other row", lambda x: x[::2]),
    ("a size-1 dim", lambda x: x[:, None][2:3]),
]


@pytest.mark.parametrize(("name", "make"), VIEWS, ids=[v[0] for v in VIEWS])
def test_row_major_answers_as_the_strides_say(name: str, make: Callable[..., Any]) -> None:
    v = make(tc.arange(24.0).reshape(6, 4))
    expect = v.stride() == contiguous_strides(tuple(v.shape))
    assert row_major(v) is expect
    # (the shared tuple once found; another one left as it is)
    assert (v._stride is _CONTIG.get(v._shape)) is expect


@pytest.mark.parametrize(("name", "make"), VIEWS, ids=[v[0] for v in VIEWS])
def test_operators_on_views_against_numpy(device: str, name: str, make: Callable[..., Any]) -> None:
    a = np.arange(24.0, dtype=np.float32).reshape(6, 4)
    x = tc.tensor(a, device=device)
    want = np.asarray(make(tc.tensor(a)).numpy())
    for fn, ref in [
        (lambda t: t + t, lambda n: n + n),
        (lambda t: t * make(x), lambda n: n * n),
        (tc.tanh, np.tanh),
        (lambda t: t - 1.5, lambda n: n - np.float32(1.5)),
        (lambda t: tc.where(t > 3, t, 0.0), lambda n: np.where(n > 3, n, np.float32(0))),
    ]:
        got = fn(make(x))
        assert got.is_contiguous() or name in ("transpose", "columns", "every other row")
        np.testing.assert_allclose(got.cpu().numpy(), ref(want), rtol=1e-6)


def test_a_fresh_slice_of_rows_takes_the_lane() -> None:
    x = tc.randn(10, 8)
    _ = x + x  # (the call path resolves the kernel on a first call)
    _ = x + x
    add = get_op("add").lane
    r = add(x[2:4], x[5:7], 1)
    assert r is not None
    np.testing.assert_array_equal(r.numpy(), x.numpy()[2:4] + x.numpy()[5:7])


# (view, whether a pointwise lane lays its result out itself: row-major or in row-major order)
ORDERED: list[tuple[str, Callable[[tc.Tensor], tc.Tensor], bool]] = [
    ("chunk(4, 1)", lambda x: x.chunk(4, 1)[1], True),
    ("columns", lambda x: x[:, 2:6], True),
    ("overlapping rows", lambda x: x.as_strided((5, 4), (2, 1)), True),
    ("every other row and column", lambda x: x[::2, ::2], True),
    ("a size-1 dim", lambda x: x[:1, 2:6], False),
    ("transpose", lambda x: x[:, :6].t(), False),
    ("expanded", lambda x: x[0, :4].expand(3, 4), False),
]


@pytest.mark.parametrize(("name", "make", "lane"), ORDERED, ids=[v[0] for v in ORDERED])
def test_results_laid_out_as_tensoriterator_lays_them_out(
    name: str, make: Callable[..., Any], lane: bool
) -> None:
    x = tc.arange(64.0).reshape(8, 8)
    v = make(x)
    for op, args in [("tanh", (v,)), ("mul", (v, v.clone())), ("add", (v, 1.0, 1))]:
        fn = get_op(op)
        _ = fn.lane(*args)  # (a first call resolves the kernel)
        _ = getattr(tc, op)(*args[:2])
        r = fn.lane(*args)
        assert (r is not None) is lane, op
        got = getattr(tc, op)(*args[:2])
        assert got.stride() == result_strides(
            tuple(v.shape),
            [v.stride()] + [a.stride() for a in args[1:2] if isinstance(a, tc.Tensor)],
        )
        want = {"tanh": np.tanh, "mul": lambda a, b: a * b, "add": lambda a, b: a + b}[op](
            *[a.numpy() if isinstance(a, tc.Tensor) else np.float32(a) for a in args[:2]]
        )
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
