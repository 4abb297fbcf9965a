"""Gaps found by running small PyTorch programs of domains the earlier sweeps left out
(detection utilities, point clouds, audio, recommenders, mixtures of experts, contrastive
learning, classic ML, quantisation, printing) with ``import tensorcore as torch`` (the
twenty-fifth sweep): each test pins PyTorch 2.13's behaviour that such a program meets."""

from __future__ import annotations

import pytest

import tensorcore as tc
from tensorcore import nn


def test_randint_takes_high_and_size_by_name() -> None:
    # ``torch.randint(n_items, size=(5,))`` (negative sampling) and the all-keyword form;
    # the draws are PyTorch's (recorded from PyTorch 2.13 with manual_seed(0)).
    tc.manual_seed(0)
    assert tc.randint(5, size=(3,)).tolist() == [4, 4, 3]
    assert tc.randint(low=2, high=5, size=(3,)).tolist() == [2, 3, 2]
    assert tc.randint(high=5, size=(3,)).tolist() == [2, 3, 2]
    assert tc.randint(2, 5, size=(3,)).tolist() == [2, 4, 4]
    assert tc.randint(2, high=5, size=(3,)).tolist() == [2, 2, 3]
    assert tc.randint(2, 5, (2,)).tolist() == [4, 2]
    assert tc.randint(5, tc.Size([2])).tolist() == [3, 4]
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        tc.randint(3, 5)
    with pytest.raises(TypeError, match="'size'"):
        tc.randint(5)


def test_optimizer_repr_parts_groups_with_a_blank_line() -> None:
    a, b = nn.Parameter(tc.zeros(1)), nn.Parameter(tc.zeros(1))
    opt = tc.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.1}], lr=0.01)
    keys = ["dampening", "differentiable", "foreach", "fused", "lr", "maximize", "momentum"]
    keys += ["nesterov", "weight_decay"]
    text = repr(opt).splitlines()
    assert text[0] == "SGD ("
    assert text[1] == "Parameter Group 0"
    assert text[11] == ""
    assert text[12] == "Parameter Group 1"
    assert text[-1] == ")"
    assert [line.split(":")[0].strip() for line in text[13:-1]] == keys
    assert text[17] == "    lr: 0.1"


def test_set_printoptions_resets_sci_mode_when_left_out() -> None:
    # PyTorch assigns sci_mode on every call: ``set_printoptions(threshold=5)`` after
    # ``sci_mode=True`` prints integer-valued floats plainly again.
    try:
        tc.set_printoptions(sci_mode=True)
        assert repr(tc.tensor([1.5, 2.5])) == "tensor([1.5000e+00, 2.5000e+00])"
        tc.set_printoptions(threshold=5, edgeitems=2)
        assert tc.get_printoptions()["sci_mode"] is None
        assert repr(tc.arange(20.0).view(4, 5)) == (
            "tensor([[ 0.,  1.,  ...,  3.,  4.],\n"
            "        [ 5.,  6.,  ...,  8.,  9.],\n"
            "        [10., 11.,  ..., 13., 14.],\n"
            "        [15., 16.,  ..., 18., 19.]])"
        )
    finally:
        tc.set_printoptions(profile="default")
