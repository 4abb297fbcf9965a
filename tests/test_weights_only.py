"""``tc.load(f, weights_only=True)`` of a file holding a pickled object (format 2): PyTorch's
weights-only rules (allowlisted globals only) and ``tc.serialization``'s allowlist API
(``add_safe_globals``, ``get_safe_globals``, ``clear_safe_globals``, ``safe_globals``,
``get_unsafe_globals_in_checkpoint``)."""

from __future__ import annotations

import collections
import io
import os
import pickle
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.serialization import (
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    get_unsafe_globals_in_checkpoint,
    safe_globals,
)


@pytest.fixture(autouse=True)
def _no_safe_globals() -> Iterator[None]:
    clear_safe_globals()
    yield
    clear_safe_globals()


class Config:
    """A user's class: not allowlisted by default."""

    def __init__(self, lr: float, tags: list[str]) -> None:
        self.lr, self.tags = lr, tags


class Pair(NamedTuple):
    weight: Any
    bias: Any


class Evil:
    def __reduce__(self) -> Any:
        return (os.system, ("echo pwned",))


class CallsEval:
    def __reduce__(self) -> Any:
        return (eval, ("1 + 1",))


def _saved(obj: Any) -> io.BytesIO:
    buf = io.BytesIO()
    tc.save(obj, buf)
    buf.seek(0)
    return buf


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, tc.Tensor):
        return (
            isinstance(b, tc.Tensor)
            and a.dtype == b.dtype
            and a.device == b.device
            and a.tolist() == b.tolist()
        )
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_equal, a, b))
    return bool(type(a) is type(b) and a == b)


def test_a_checkpoint_with_a_state_dict_and_optimizer_state_loads_weights_only(
    device: str,
) -> None:
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(device)
    opt = tc.optim.Adam(model.parameters(), lr=1e-3)
    model(tc.randn(5, 3, device=device)).sum().backward()
    opt.step()
    ckpt = {
        "model": model.state_dict(),  # an OrderedDict
        "optimizer": opt.state_dict(),  # int keys, tensors, tuples, None
        "epoch": 3,
        "loss": 0.25,
        "name": "run-1",
        "history": [1.0, 0.5, 0.25],
        "seen": {1, 2, 3},  # a set: JSON cannot describe it, so the file is pickled
        "counts": collections.Counter("aab"),
        "raw": b"\x00\x01",
        "z": 1 + 2j,
        "dtype": tc.float16,
        "where": tc.device(device),
        "shape": tc.Size([2, 3]),
    }
    buf = _saved(ckpt)
    back = tc.load(buf)  # weights_only=True
    assert _equal(ckpt, back)
    assert type(back["model"]) is collections.OrderedDict
    model.load_state_dict(back["model"])
    opt.load_state_dict(back["optimizer"])


def test_parameters_and_their_sharing_survive_a_weights_only_load() -> None:
    p = nn.Parameter(tc.ones(2, 3))
    buf = _saved({"p": p, "again": p, "row": p.detach()[1], "s": {0}})
    back = tc.load(buf)
    assert type(back["p"]) is nn.Parameter and back["again"] is back["p"]
    assert back["row"].untyped_storage() is back["p"].untyped_storage()


def test_a_custom_class_is_refused_then_allowed() -> None:
    buf = _saved({"config": Config(0.1, ["a"]), "w": tc.ones(2)})
    with pytest.raises(pickle.UnpicklingError) as info:
        tc.load(buf)
    msg = str(info.value)
    path = f"{__name__}.Config"
    assert msg.startswith("Weights only load failed.")
    assert "Re-running `tensorcore.load` with `weights_only` set to `False`" in msg
    assert (
        f"WeightsUnpickler error: Unsupported global: GLOBAL {path} was not an allowed global "
        f"by default. Please use `tensorcore.serialization.add_safe_globals([{path}])` or the "
        f"`tensorcore.serialization.safe_globals([{path}])` context manager"
    ) in msg
    # the context manager allows it inside its block only
    with safe_globals([Config]):
        assert get_safe_globals() == [Config]
        buf.seek(0)
        back = tc.load(buf)
    assert get_safe_globals() == []
    assert type(back["config"]) is Config and back["config"].tags == ["a"]
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL .*Config was not an allowed"):
        tc.load(buf)
    add_safe_globals([Config])
    buf.seek(0)
    assert tc.load(buf)["config"].lr == 0.1
    buf.seek(0)
    assert tc.load(buf, weights_only=False)["config"].lr == 0.1


def test_a_global_may_be_allowed_under_the_name_it_was_pickled_with() -> None:
    buf = _saved([Config(1.0, [])])
    add_safe_globals([(Config, f"{__name__}.Config")])
    assert type(tc.load(buf)[0]) is Config
    buf.seek(0)
    clear_safe_globals()
    add_safe_globals([(Config, "elsewhere.Config")])  # not the pickled name
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        tc.load(buf)


def test_a_namedtuple_of_tensors_loads_once_allowed(device: str) -> None:
    pair = Pair(tc.ones(2, device=device), None)
    buf = _saved({"pair": pair})
    with pytest.raises(pickle.UnpicklingError, match="Pair"):
        tc.load(buf)
    buf.seek(0)
    with safe_globals([Pair]):
        back = tc.load(buf)["pair"]
    assert type(back) is Pair and back.bias is None and _equal(pair.weight, back.weight)


def test_blocked_modules_stay_refused_even_when_allowlisted() -> None:
    buf = _saved({"x": Evil()})
    add_safe_globals([os.system])
    with pytest.raises(pickle.UnpicklingError, match="is blocked"):
        tc.load(buf)


def test_builtins_are_named_without_their_module_and_never_called() -> None:
    buf = _saved([CallsEval()])
    with pytest.raises(pickle.UnpicklingError) as info:
        tc.load(buf)
    assert "GLOBAL eval was not an allowed global by default" in str(info.value)
    assert "add_safe_globals([eval])" in str(info.value)


def test_a_whole_module_needs_its_classes_allowed() -> None:
    buf = _saved(nn.Linear(2, 1))
    assert get_unsafe_globals_in_checkpoint(buf) == ["tensorcore.nn.modules.linear.Linear"]
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"nn\.modules\.linear\.Linear"):
        tc.load(buf)
    buf.seek(0)
    with safe_globals([nn.Linear]):
        back = tc.load(buf)
    assert type(back) is nn.Linear and type(back.weight) is nn.Parameter
    assert get_unsafe_globals_in_checkpoint(_saved({"w": tc.ones(1)})) == []
    assert get_unsafe_globals_in_checkpoint(_saved({"s": {1}})) == []


def test_what_may_be_called_or_filled_is_checked() -> None:
    from tensorcore._weights_only import Unpickler

    def load(data: bytes) -> Any:
        return Unpickler(io.BytesIO(data), lambda pid: None).load()

    assert load(pickle.dumps(collections.OrderedDict(a=1))) == {"a": 1}
    # a persistent object (a tensor) is not an allowlisted type: it cannot be built or filled
    with pytest.raises(pickle.UnpicklingError, match="Can only build"):
        load(b"\x80\x05P0\n}\x94b.")  # PERSID, EMPTY_DICT, BUILD
    with pytest.raises(pickle.UnpicklingError, match="Can only set items of"):
        load(b"\x80\x05P0\nK\x01K\x02s.")  # PERSID, 1, 2, SETITEM
    with pytest.raises(pickle.UnpicklingError, match="unrecognized function"):
        load(b"\x80\x05P0\n)R.")  # PERSID, EMPTY_TUPLE, REDUCE
    with pytest.raises(pickle.UnpicklingError, match="extension codes"):
        load(b"\x80\x05\x82\x01.")  # EXT1 1
    with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL shutil\.rmtree"):
        load(b"\x80\x05\x8c\x06shutil\x8c\x06rmtree\x93.")  # STACK_GLOBAL: refused unread


def test_add_safe_globals_checks_its_items() -> None:
    with pytest.raises(ValueError, match="Expected tuple of length 2"):
        add_safe_globals([(Config, "a", "b")])
    with pytest.raises(TypeError, match="Expected second item in tuple to be str"):
        add_safe_globals([(Config, 1)])
    with pytest.raises(TypeError, match="expected a list"):
        add_safe_globals(Config)  # type: ignore[arg-type]
    add_safe_globals([Config, Config])
    assert get_safe_globals() == [Config]
    clear_safe_globals()
    assert get_safe_globals() == []
