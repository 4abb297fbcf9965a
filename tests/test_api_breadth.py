"""Names PyTorch programs call that are other spellings or small conveniences: the aliases
of ``schema/aliases.py`` (``absolute``, ``multiply``...), the in-place functions
(``torch.exp_(x)``), the Tensor predicates and the legacy forms."""

from __future__ import annotations

from typing import Any

import pytest

import tensorcore as tc
from tensorcore.ops.schema import ALIASES, INPLACE_FUNCTIONS, OPS
from tensorcore.testing import assert_close
from tensorcore.testing.samples import SAMPLES, call_op


def _flat(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (tuple, list)) else [x]


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_an_alias_runs_its_operator(name: str, device: str) -> None:
    alias = ALIASES[name]
    decl = OPS[alias.target]
    for sample in SAMPLES[alias.target](device, tc.float64)[:3]:
        want = call_op(alias.target, sample)
        if alias.has("function"):
            got = getattr(tc, name)(*sample.args, **sample.kwargs)
            for g, w in zip(_flat(got), _flat(want), strict=True):
                assert_close(g, w, equal_nan=True)
        if alias.has("method"):
            self, *rest = sample.args
            got = getattr(self, name)(*rest, **sample.kwargs)
            for g, w in zip(_flat(got), _flat(want), strict=True):
                assert_close(g, w, equal_nan=True)
        if alias.has("inplace") and want.dtype == sample.args[0].dtype:
            self, *rest = sample.args
            if want.shape == self.shape:
                copy = self.clone()
                assert getattr(copy, name + "_")(*rest, **sample.kwargs) is copy
                assert_close(copy, want, equal_nan=True)
    fn = getattr(tc, name, None) if alias.has("function") else getattr(tc.Tensor, name)
    assert fn.__name__ == name and f":func:`{decl.name}`" in fn.__doc__


def test_an_alias_records_its_operators_node() -> None:
    x = tc.tensor([-1.5, 2.0], requires_grad=True)
    assert type(tc.absolute(x).grad_fn).__name__ == "AbsBackward0"
    assert type(x.multiply(2).grad_fn).__name__ == "MulBackward0"
    assert type(tc.fix(x).grad_fn).__name__ == "TruncBackward0"
    (g,) = tc.autograd.grad(tc.subtract(x, 1, alpha=2).sum() + tc.arctan2(x, x).sum(), x)
    assert g.tolist() == [1.0, 1.0]
    assert tc.divide(x, 2, rounding_mode="floor").tolist() == [-1.0, 1.0]
    assert x.greater_equal(2).tolist() == [False, True]
    assert tc.concatenate([x, x], 0).shape == (4,)
    with pytest.raises(TypeError, match="absolute"):
        tc.absolute(x, 1)


@pytest.mark.parametrize("name", sorted(INPLACE_FUNCTIONS))
def test_an_inplace_function_writes_its_first_argument(name: str, device: str) -> None:
    target = ALIASES[name].target if name in ALIASES else name
    fname = name if name.endswith("_") else name + "_"
    fn = getattr(tc, fname)
    assert fn.__name__ == fname
    for sample in SAMPLES[target](device, tc.float64)[:2]:
        self, *rest = sample.args
        copy = self.clone()
        if target.endswith("_"):
            want = getattr(self.clone(), target)(*rest, **sample.kwargs)
        else:
            want = call_op(target, sample)
            if want.shape != self.shape or want.dtype != self.dtype:
                continue
        assert fn(copy, *rest, **sample.kwargs) is copy
        assert_close(copy, want, equal_nan=True)


def test_inplace_functions_take_input_by_keyword() -> None:
    x = tc.tensor([-1.0, 2.0])
    assert tc.relu_(input=x) is x and x.tolist() == [0.0, 2.0]
    tc.clamp_(x, max=1.0)
    assert x.tolist() == [0.0, 1.0]
    x.square_().clip_(0.5)
    assert x.tolist() == [0.5, 1.0]
    x.true_divide_(2)
    assert x.tolist() == [0.25, 0.5]
    with pytest.raises(TypeError, match="abs_"):
        tc.abs_(1.0)
