"""Gradients of every differentiable operator on the target against finite differences
(``tensorcore.autograd.gradcheck``, in float64)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.testing.samples import Sample, call_op, inplace_only, split_leaves

from ._run import claimed, decl, picked, run, sample_count, samples, strided
from ._session import target


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    params = [
        pytest.param(name, i, own, id=f"{name}-{i}")
        for name, (_, own) in claimed().items()
        if decl(name).has_backward and not inplace_only(name)
        for i in picked(sample_count(name, tc.float64))
    ]
    metafunc.parametrize(("name", "i", "own"), params)


def _leaves(sample: Sample) -> tuple[Callable[[list[Any]], Sample], list[tc.Tensor]]:
    """The sample's floating tensors as strided leaves that require grad, and a function
    putting tensors back in their places."""
    return split_leaves(
        sample,
        lambda a: a.dtype.is_floating_point,
        lambda a: strided(a.detach()).detach().requires_grad_(),
    )


def _dense_outputs(res: Any) -> Any:
    outs = res if isinstance(res, (tuple, list)) else (res,)
    return tuple(strided(o) for o in outs if isinstance(o, tc.Tensor) and o.dtype.is_floating_point)


def test_gradcheck(name: str, i: int, own: bool) -> None:
    """``gradcheck`` of the operator on sample ``i`` in float64, its inputs on the target
    (for a layout, the first one converted inside the function, so the conversion is part
    of what is differentiated)."""
    t = target()
    dev, _ = samples(name, tc.float64, i)
    first = run(name, dev)
    if first.exc is not None:
        pytest.skip(f"{name} does not run on this sample here (see test_samples/test_dtype)")
    rebuild, leaves = _leaves(dev)
    if not leaves or not _dense_outputs(first.value):
        pytest.skip(f"{name} sample {i}: no floating-point input or output")

    def fn(*xs: Any) -> Any:
        s = rebuild(list(xs))
        if t.is_layout and t.to_layout is not None:
            # The same argument as the samples check converts: the first tensor one.
            k = next((k for k, a in enumerate(s.args) if isinstance(a, tc.Tensor)), None)
            if k is not None and s.args[k].dtype.is_floating_point:
                conv = getattr(s.args[k], t.to_layout)()
                s.args = (*s.args[:k], conv, *s.args[k + 1 :])
        s.args = dev.perturbed(s.args)
        res = call_op(name, s)
        res = dev.invariant(res) if dev.invariant is not None else res
        return _dense_outputs(res)

    assert tc.autograd.gradcheck(fn, leaves), f"{name}: {dev!r}"
