"""``tensorcore.jit``: TorchScript's names let PyTorch programs that script or trace run
eagerly, with the plain function's results."""

from __future__ import annotations

import copy
import io
import zipfile
from typing import Any

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


def test_a_scripted_or_traced_module_saves_and_loads_back(tmp_path: Any) -> None:
    # The PyTorch tutorial's round trip: script(model).save(path), then jit.load(path).
    net = tc.nn.Sequential(tc.nn.Linear(3, 4), tc.nn.ReLU(), tc.nn.Linear(4, 2))
    x = tc.randn(5, 3)
    want = net(x)
    scripted = tc.jit.script(net)
    assert scripted is net and isinstance(net, tc.jit.ScriptModule)
    assert isinstance(net, tc.nn.Sequential) and repr(net).startswith("Sequential(")
    path = tmp_path / "model_scripted.pt"
    scripted.save(str(path), _extra_files={"note.txt": "hello"})
    extra = {"note.txt": "", "absent": ""}
    loaded = tc.jit.load(str(path), map_location="cpu", _extra_files=extra)
    assert isinstance(loaded, tc.jit.ScriptModule) and isinstance(loaded, tc.nn.Sequential)
    assert loaded is not net and tc.equal(loaded(x), want)
    assert extra == {"note.txt": b"hello", "absent": ""}
    buf = io.BytesIO()
    tc.jit.save(tc.jit.trace(loaded.eval(), x), buf)  # (a traced module, saved again)
    buf.seek(0)
    again = tc.jit.load(buf)
    assert tc.equal(again(x), want) and not again.training
    copied = copy.deepcopy(again)
    assert isinstance(copied, tc.jit.ScriptModule) and tc.equal(copied(x), want)
    # a module saved whole with tensorcore.save loads as one too
    buf = io.BytesIO()
    tc.save(tc.nn.Linear(3, 1), buf)
    buf.seek(0)
    assert isinstance(tc.jit.load(buf), tc.jit.ScriptModule)


class _OldStyle(tc.jit.ScriptModule):
    def __init__(self) -> None:
        super().__init__()
        self.lin = tc.nn.Linear(2, 2)

    @tc.jit.script_method
    def forward(self, x: tc.Tensor) -> tc.Tensor:
        return self.lin(x).relu()


def test_a_script_module_subclass_is_a_module_that_saves() -> None:
    # TorchScript's older API: subclass jit.ScriptModule, mark methods with script_method.
    m = _OldStyle()
    assert isinstance(m, tc.nn.Module) and len(list(m.parameters())) == 2
    x = tc.randn(3, 2)
    buf = io.BytesIO()
    m.save(buf)
    buf.seek(0)
    again = tc.jit.load(buf)
    assert type(again) is _OldStyle and tc.equal(again(x), m(x))
    assert type(copy.deepcopy(m)) is _OldStyle and tc.jit.script(m) is m


def test_jit_load_refuses_what_it_cannot_run() -> None:
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:  # (the shape of PyTorch's TorchScript archive)
        z.writestr("model/code/__torch__.py", "")
        z.writestr("model/constants.pkl", b"")
    archive.seek(0)
    with pytest.raises(NotImplementedError, match="TorchScript archive written by PyTorch"):
        tc.jit.load(archive)
    with pytest.raises(TypeError, match="expected a module"):
        tc.jit.save(lambda x: x, io.BytesIO())
    buf = io.BytesIO()
    tc.save({"w": tc.ones(1)}, buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="not a module"):
        tc.jit.load(buf)
