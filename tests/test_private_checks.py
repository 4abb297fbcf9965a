"""PyTorch's private assertion helpers that public model code calls (torch._assert in
torchvision's ViT, torch._check* in Hugging Face code): exception types and messages."""

from __future__ import annotations

import pytest

import tensorcore as tc

GENERIC = "Expected cond to be True, but got False"


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("_check", RuntimeError),
        ("_check_index", IndexError),
        ("_check_value", ValueError),
        ("_check_type", TypeError),
        ("_check_not_implemented", NotImplementedError),
    ],
)
def test_checks_raise_their_type(name: str, error: type) -> None:
    fn = getattr(tc, name)
    fn(True)
    fn(True, lambda: pytest.fail("the message is built only on failure"))
    with pytest.raises(error, match=GENERIC):
        fn(False)
    with pytest.raises(error, match=r"^custom 3$"):
        fn(1 > 2, lambda: f"custom {3}")
    with pytest.raises(TypeError, match="cond must be a bool, but got a Tensor"):
        fn(tc.tensor(True))
    with pytest.raises(TypeError, match="cond must be a bool, but got <class 'int'>"):
        fn(1)
    with pytest.raises(TypeError, match="message must be a callable"):
        fn(False, "not callable")


def test_check_with_and_tensor_all() -> None:
    with pytest.raises(KeyError, match="k"):
        tc._check_with(KeyError, False, lambda: "k")
    with pytest.raises(AssertionError, match="subclass of Exception but not Warning"):
        tc._check_with(UserWarning, False, lambda: "w")
    tc._check_tensor_all(tc.ones(3) > 0)
    with pytest.raises(RuntimeError, match=r"^two$"):
        tc._check_tensor_all(tc.tensor([True, False]), lambda: "two")
    with pytest.raises(ValueError, match=GENERIC):
        tc._check_tensor_all_with(ValueError, tc.tensor([False]))
    with pytest.raises(TypeError, match=r"must have dtype torch\.bool, but got"):
        tc._check_tensor_all(tc.tensor([1, 0]))
    with pytest.raises(TypeError, match="cond must be a tensor"):
        tc._check_tensor_all(True)


def test_assert_and_assert_async() -> None:
    tc._assert(tc.ones(2, 3).dim() == 2, "unused")
    tc._assert(tc.tensor(1.0), "unused")
    with pytest.raises(AssertionError, match=r"^Expected 3-d input$"):
        tc._assert(tc.ones(2).dim() == 3, "Expected 3-d input")
    with pytest.raises(RuntimeError, match="more than one value is ambiguous"):
        tc._assert(tc.ones(2) > 0, "m")
    tc._assert_async(tc.tensor(2))
    with pytest.raises(RuntimeError, match="single nonzero value, but got zero"):
        tc._assert_async(tc.tensor(0.0))
    with pytest.raises(RuntimeError, match=r"^mine$"):
        tc._assert_async(tc.tensor(False), "mine")
    with pytest.raises(RuntimeError, match="no values is ambiguous"):
        tc._assert_async(tc.ones(0))
    with pytest.raises(
        TypeError, match=r"argument 'input' \(position 1\) must be Tensor, not bool"
    ):
        tc._assert_async(True)
