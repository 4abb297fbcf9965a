"""``tensorcore.jit``: TorchScript's names let PyTorch programs that script or trace run
eagerly, with the plain function's results."""

from __future__ import annotations

import io

import pytest

import tensorcore as tc


class _Scaled(tc.nn.Module):
    factor: tc.jit.Final[float] = 2.0

    def __init__(self) -> None:
        super().__init__()
        self.lin = tc.nn.Linear(3, 2)

    @tc.jit.export
    def twice(self, x: tc.Tensor) -> tc.Tensor:
        return self.forward(self.forward(x)[..., :1].expand(-1, 3))

    @tc.jit.ignore
    def debug(self) -> str:
        return "not scripted"

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        if tc.jit.is_scripting() or tc.jit.is_tracing():
            raise AssertionError("tensorcore runs eagerly")
        return self.lin(x) * self.factor


def test_script_returns_functions_and_modules_that_compute_as_before(device: str) -> None:
    @tc.jit.script
    def gelu_ish(x: tc.Tensor) -> tc.Tensor:
        return x * tc.sigmoid(1.702 * x)

    x = tc.randn(4, device=device)
    assert tc.equal(gelu_ish(x), x * tc.sigmoid(1.702 * x))
    net = _Scaled().to(device)
    assert tc.jit.script(net) is net
    y = tc.ones(1, 3, device=device)
    assert tc.equal(net(y), net.lin(y) * 2.0) and net.debug() == "not scripted"
    assert net.twice(y).shape == (1, 2)
    assert tc.jit.freeze(tc.jit.script(net.eval())) is net
    assert tc.jit.optimize_for_inference(net) is net


def test_trace_runs_the_example_once_and_returns_the_callable(device: str) -> None:
    calls: list[tuple[int, ...]] = []

    def f(a: tc.Tensor, b: tc.Tensor) -> tc.Tensor:
        calls.append(tuple(a.shape))
        return a @ b

    a, b = tc.ones(2, 3, device=device), tc.ones(3, 1, device=device)
    assert tc.jit.trace(f, (a, b)) is f and calls == [(2, 3)]
    net = _Scaled().to(device)
    assert tc.jit.trace(net, tc.ones(5, 3, device=device)) is net
    assert tc.jit.trace(net, example_kwarg_inputs={"x": tc.ones(1, 3, device=device)}) is net
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        tc.jit.trace(net, tc.ones(5, 4, device=device))  # the example must run
    with pytest.raises(RuntimeError, match="example_inputs or example_kwarg_inputs"):
        tc.jit.trace(net)


def test_trace_warns_where_the_function_takes_python_values_out(device: str) -> None:
    def f(x: tc.Tensor) -> tc.Tensor:
        k = x.sum().item()
        if x.sum() > 0:  # bool(t)
            k += int(x.max()) + float(x.min()) + len(x.tolist())
        return x * k + tc.tensor(1.0, device=device)

    x = tc.ones(2, device=device)
    with pytest.warns(tc.jit.TracerWarning) as record:
        assert tc.jit.trace(f, x) is f
    got = [str(w.message).split(" might")[0] for w in record]
    assert got == [
        "Converting a tensor to a Python number",
        "Converting a tensor to a Python boolean",
        "Converting a tensor to a Python integer",
        "Converting a tensor to a Python float",
        "Converting a tensor to a Python list",
        "torch.tensor results are registered as constants in the trace. You can safely ignore "
        "this warning if you use this function to create tensors out of constant variables that "
        "would be the same every time you call this function. In any other case, this",
    ]
    assert all(w.filename == __file__ for w in record)  # pointing at the user's line
    assert "treated as a constant in the future" in str(record[0].message)
    # tensorcore's own conversions (bool(t) calls t.item()) do not warn; nothing does after
    assert tc.Tensor.item.__name__ == "item" and tc.tensor.__module__ == "tensorcore.ops.factories"
    f(x)  # (warnings are errors in this suite: none is raised outside trace())
    assert issubclass(tc.jit.TracerWarning, Warning)


def test_trace_without_conversions_does_not_warn(device: str) -> None:
    net = _Scaled().to(device)
    tc.jit.trace(net, tc.ones(5, 3, device=device))  # (warnings are errors in this suite)


def test_the_other_torchscript_helpers() -> None:
    fut = tc.jit.fork(lambda x, k=1: x + k, 2, k=3)
    assert fut.done() and tc.jit.wait(fut) == 5
    assert tc.jit.annotate(list[int], []) == []
    assert tc.jit.unused(len) is len and tc.jit.script_if_tracing(len) is len
    assert tc.jit.script(None) is None


def test_save_and_load_say_what_to_do_instead() -> None:
    with pytest.raises(NotImplementedError, match="state_dict"):
        tc.jit.save(_Scaled(), io.BytesIO())
    with pytest.raises(NotImplementedError, match="load_state_dict"):
        tc.jit.load(io.BytesIO())
