"""PyTorch's ``__torch_function__`` protocol (``tensorcore.overrides``): subclasses of Tensor
keep their type through the operators, a type's own ``__torch_function__`` takes over the calls
it is passed to (tensor subclasses and tensor-likes), in PyTorch's order and with PyTorch's
arguments; ``Parameter`` and ``_disabled_torch_function_impl`` opt out; the blocks that turn
the protocol off; and the autograd engine's rules never reach a handler."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import pytest

import tensorcore as tc
from tensorcore import overrides

F = tc.nn.functional


class Tagged(tc.Tensor):
    pass


class Logged(tc.Tensor):
    calls: ClassVar[list[tuple[str, int, tuple[str, ...]]]] = []

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        cls.calls.append((func.__name__, len(args), tuple(sorted(kwargs or {}))))
        return super().__torch_function__(func, types, args, kwargs)


class Like:
    """A tensor-like: not a Tensor, its type defines ``__torch_function__``."""

    seen: ClassVar[list[tuple[Any, tuple[type, ...], tuple[Any, ...], dict[str, Any]]]] = []

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        cls.seen.append((func, tuple(types), tuple(args), dict(kwargs or {})))
        return "handled"


def test_a_subclass_keeps_its_type_through_operators(device: str) -> None:
    x = tc.arange(6.0, device=device).reshape(2, 3).as_subclass(Tagged)
    results = {
        "x + 1": x + 1,
        "tc.exp": tc.exp(x),
        "x.sum()": x.sum(),
        "x.sum(0)": x.sum(0),
        "tc.stack": tc.stack([x, x]),
        "tc.cat of a plain and a subclass": tc.cat([tc.ones(1, 3, device=device), x]),
        "x.T": x.T,
        "x[0]": x[0],
        "x.view(6)": x.view(6),
        "x.max(0).values": x.max(0).values,
        "x.max(0).indices": x.max(0).indices,
        "F.relu": F.relu(x),
        "F.silu": F.silu(x),
        "F.softmax": F.softmax(x, 1),
        "x @ x.T": x @ x.T,
        "x.clone()": x.clone(),
        "x.to(float64)": x.to(tc.float64),
    }
    for what, r in results.items():
        assert type(r) is Tagged, what
    assert type(x.max(0)) is tc.return_types.max
    assert (x + 1).tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert type(x.shape) is tc.Size and type(x.tolist()) is list
    y = x.clone()
    assert y.add_(1) is y and type(y) is Tagged


def test_parameters_and_the_opted_out_give_plain_tensors() -> None:
    class Plain(tc.Tensor):
        __torch_function__ = tc._C._disabled_torch_function_impl

    p = tc.nn.Parameter(tc.ones(3, 2))
    b = tc.nn.Buffer(tc.ones(2))
    q = tc.ones(2).as_subclass(Plain)
    assert type(p * 2) is tc.Tensor and type(F.linear(tc.ones(1, 2), p)) is tc.Tensor
    assert type(b + 1) is tc.Tensor and type(q + 1) is tc.Tensor and type(q.sum()) is tc.Tensor
    assert not overrides.overrides(tc.nn.Parameter) and not overrides.overrides(Plain)
    assert overrides.overrides(Tagged) and not overrides.overrides(tc.Tensor)


def test_a_subclass_handler_sees_each_call_with_pytorchs_arguments() -> None:
    x = tc.ones(3).as_subclass(Logged)
    Logged.calls.clear()
    tc.add(x, 2, alpha=3)
    x.sum()
    tc.mean(x)
    x.mul_(2)
    # (the positional arguments given, the keyword-only ones that differ from their defaults)
    assert Logged.calls == [
        ("add", 2, ("alpha",)),
        ("sum", 1, ()),
        ("mean", 1, ()),
        ("mul_", 2, ()),
    ]


def test_a_structured_operators_other_tensor_is_looked_at() -> None:
    w = tc.ones(3, 2).as_subclass(Logged)
    Logged.calls.clear()
    y = F.linear(tc.ones(4, 2), w)
    assert Logged.calls and Logged.calls[0][0] == "linear"
    assert type(y) is Logged and y.tolist() == [[2.0] * 3] * 4


def test_tensor_likes_take_over_the_functions_they_are_given() -> None:
    Like.seen.clear()
    obj = Like()
    assert tc.mean(obj) == "handled"
    assert tc.add(obj, 1, alpha=2) == "handled"
    assert tc.cat([tc.ones(1), obj]) == "handled"
    (f1, t1, a1, k1), (f2, _, a2, k2), (f3, _, a3, _) = Like.seen
    assert f1 is tc.mean and t1 == (Like,) and a1 == (obj,) and k1 == {}
    assert f2 is tc.add and a2 == (obj, 1) and k2 == {"alpha": 2}
    assert f3 is tc.cat and a3[0][1] is obj
    assert overrides.is_tensor_like(obj) and overrides.is_tensor_like(tc.ones(1))
    assert not overrides.is_tensor_like([1.0])


def test_python_functions_hand_themselves_over() -> None:
    def scaled(x: Any, k: float = 2.0) -> Any:
        if overrides.has_torch_function_unary(x):
            return overrides.handle_torch_function(scaled, (x,), x, k=k)
        return x * k

    Like.seen.clear()
    assert scaled(Like(), k=3.0) == "handled" and Like.seen[0][0] is scaled
    assert Like.seen[0][3] == {"k": 3.0}
    assert scaled(tc.ones(1)).tolist() == [2.0]
    assert overrides.has_torch_function((tc.ones(1), [Like()]))
    assert not overrides.has_torch_function((tc.ones(1), 2, tc.nn.Parameter(tc.ones(1))))
    assert overrides.has_torch_function_variadic(tc.ones(1), Like())
    assert F.has_torch_function is overrides.has_torch_function


def test_functional_hands_itself_over_once() -> None:
    # (nn.functional's Python functions are handed over whole, with every parameter; inside
    # the default handler the operators they call are not handed over again)
    Like.seen.clear()
    obj = Like()
    assert F.cross_entropy(obj, tc.tensor([0])) == "handled"
    assert F.gelu(obj) == "handled"
    assert [s[0] for s in Like.seen] == [F.cross_entropy, F.gelu]
    assert Like.seen[0][2][:2] == (obj, Like.seen[0][2][1])
    x = tc.randn(2, 3).as_subclass(Logged)
    Logged.calls.clear()
    y = F.softmax(x, 1)
    assert [c[0] for c in Logged.calls] == ["softmax"] and type(y) is Logged
    assert type(F.mse_loss(x, x)) is Logged


def test_no_implementation_is_a_type_error_naming_the_function_and_types() -> None:
    class Refuses:
        @classmethod
        def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None):
            return NotImplemented

    with pytest.raises(TypeError, match=r"no implementation found for 'tensorcore.exp' on types"):
        tc.exp(Refuses())
    with pytest.raises(TypeError, match="Refuses"):
        tc.exp(Refuses())


def test_subclasses_are_asked_before_their_bases() -> None:
    order: list[str] = []

    class A(tc.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("A")
            return NotImplemented

    class B(A):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            order.append("B")
            assert types == (B, A)
            return "B's"

    a, b = tc.ones(1).as_subclass(A), tc.ones(1).as_subclass(B)
    assert tc.add(a, b) == "B's" and order == ["B"]


def test_the_protocol_is_off_inside_its_blocks() -> None:
    x = tc.ones(2).as_subclass(Tagged)
    with tc._C.DisableTorchFunctionSubclass():
        assert type(x + 1) is tc.Tensor
        assert not overrides.has_torch_function((x,))
    assert type(x + 1) is Tagged

    @tc._C.DisableTorchFunction()
    def plain(t: Any) -> Any:
        return t * 2

    assert type(plain(x)) is tc.Tensor


def test_backward_rules_never_reach_a_handler() -> None:
    x = tc.tensor([1.0, 2.0, 3.0], requires_grad=True).as_subclass(Logged)
    y = (x * x).sum()
    Logged.calls.clear()
    y.backward()
    # (backward itself is handed over, as PyTorch's; the rules run in the engine, unseen)
    assert [c[0] for c in Logged.calls] == ["backward"]
    g = tc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g * g).sum().backward()
    assert g.grad is not None and g.grad.tolist() == [2.0, 4.0, 6.0]


def test_plain_programs_never_turn_the_protocol_on() -> None:
    # (the call path looks for overriding arguments only once such a type exists)
    code = (
        "import tensorcore as tc\n"
        "from tensorcore import overrides\n"
        "m = tc.nn.Linear(3, 2)\n"
        "m(tc.ones(4, 3)).sum().backward()\n"
        "tc.optim.SGD(m.parameters(), lr=0.1).step()\n"
        "assert not overrides.state.active\n"
        "class T(tc.Tensor):\n"
        "    pass\n"
        "assert overrides.state.active\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


class _Log(overrides.TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("add", lambda x: x + x),
        ("add", lambda x: x + 1),
        ("mul_", lambda x: x.mul_(1)),
        ("t", lambda x: x.t()),
        ("cat", lambda x: tc.cat([x, x])),
        ("clamp", lambda x: x.clamp(0, 1)),
        ("sum", lambda x: x.sum(0)),
        ("max", lambda x: x.max(1)),
        ("zeros", lambda x: tc.zeros(2)),
        ("arange", lambda x: tc.arange(3)),
        ("reshape", lambda x: x.reshape(3, 2)),
        ("linear", lambda x: tc.nn.functional.linear(x, x)),
        ("relu", lambda x: tc.nn.functional.relu(x)),
    ],
)
def test_a_mode_is_handed_every_kind_of_call(name: str, call) -> None:
    # (each kind of call has its own fast lane: every one must leave the call to the mode)
    x = tc.ones(2, 3)
    call(x)  # (a first call outside, so that the lane is ready)
    with _Log() as log:
        call(x)
    assert log.seen == [name]
    with _Log() as log:
        pass
    call(x)
    assert log.seen == []


def test_modes_nest_innermost_first_and_are_off_while_they_run() -> None:
    order: list[str] = []

    class Tag(overrides.TorchFunctionMode):
        def __init__(self, tag: str) -> None:
            super().__init__()
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            order.append(f"{self.tag}:{func.__name__}")
            return func(*args, **(kwargs or {}))

    x = tc.ones(2, requires_grad=True)
    with Tag("outer"), Tag("inner"):
        assert tc._C._len_torch_function_stack() == 2
        y = tc.exp(x).sum()
    assert order == ["inner:exp", "outer:exp", "inner:sum", "outer:sum"]
    assert tc._C._len_torch_function_stack() == 0 and not overrides.state.modes
    order.clear()
    with Tag("c"):
        y.backward()  # (handed over; the rules run unseen, as PyTorch's engine runs them)
    assert order == ["c:backward"]
    assert x.grad.tolist() == pytest.approx([2.718281828, 2.718281828])


def test_a_mode_may_replace_a_result_or_pass_it_on_to_the_arguments() -> None:
    class Zeros(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if func.__name__ == "add":
                return tc.zeros(1)
            if func.__name__ == "mul":
                return NotImplemented  # (on to the arguments: a subclass handles it)
            return func(*args, **(kwargs or {}))

    class Answering(tc.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return f"{func.__name__} answered"

    with Zeros():
        assert tc.add(tc.ones(1), 1).tolist() == [0.0]
        assert tc.sub(tc.ones(1), 1).tolist() == [0.0]
        assert tc.mul(tc.ones(1).as_subclass(Answering), 3) == "mul answered"
        with pytest.raises(TypeError, match=r"no implementation found for .tensorcore\.mul."):
            tc.mul(tc.ones(1), 3)  # (no argument takes it over either)
        # A subclass that runs the function (Tensor's handler) meets the mode again, which
        # declines again: a TypeError, as in PyTorch (whose operator protocol then raises
        # "unsupported operand type(s)").
        t = tc.ones(1).as_subclass(Logged)
        with pytest.raises(TypeError):
            t * 3


def test_disable_torch_function_turns_modes_off() -> None:
    with _Log() as log, overrides.DisableTorchFunction():
        tc.ones(1) + 1
    assert log.seen == []


def test_disable_torch_function_subclass_keeps_the_modes_on() -> None:
    # PyTorch's DisableTorchFunctionSubclass turns off the arguments' handlers only: an
    # entered mode still sees the calls made in the block (DisableTorchFunction turns both off).
    x = tc.ones(2).as_subclass(Tagged)
    with _Log() as log:
        with tc._C.DisableTorchFunctionSubclass():
            r = x + 1
            assert overrides.has_torch_function((tc.ones(1),))
        with tc._C.DisableTorchFunction():
            x + 1
            assert not overrides.has_torch_function((x,))
    assert type(r) is tc.Tensor  # (the subclass's handler stayed off)
    assert log.seen == ["add", "ones"]  # (PyTorch 2.13's list for the same block)
