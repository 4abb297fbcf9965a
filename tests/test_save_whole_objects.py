"""``tc.save`` of whole objects, as ``torch.save(model, path)`` takes them: a module with
buffers and parameters shared between submodules, an optimizer, tensors viewing one storage,
round-trip through ``tc.load(f, weights_only=False)`` with their sharing; ``tc.load(f)``
(``weights_only=True``) refuses them as PyTorch does; files of data only are unchanged."""

from __future__ import annotations

import io
import json
import pickle
from typing import Any

import pytest
import safetensors

import tensorcore as tc
from tensorcore import nn


class TiedNet(nn.Module):
    """An encoder and a decoder sharing one weight (tied), a batch norm with buffers, a
    submodule reached twice and a buffer that is a view of a parameter."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Linear(3, 4)
        self.dec = nn.Linear(4, 3, bias=False)
        self.bn = nn.BatchNorm1d(4)
        self.again = self.enc
        self.head = nn.Linear(4, 4)
        self.tied = nn.Linear(3, 4)
        self.tied.weight = self.enc.weight  # one Parameter in two submodules
        self.register_buffer("first_row", self.head.weight.detach()[0])  # a view

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        return self.dec(self.bn(self.enc(x) + self.tied(x)))


class Holder:
    """Any object with tensors in its attributes: a tensor and two views of it."""

    def __init__(self, base: tc.Tensor) -> None:
        self.base, self.col, self.t = base, base[:, 1], base.t()


def _round_trip(obj: Any, **load: Any) -> Any:
    buf = io.BytesIO()
    tc.save(obj, buf)
    buf.seek(0)
    return tc.load(buf, weights_only=False, **load)


def _trained(device: str) -> tuple[TiedNet, tc.optim.Optimizer]:
    tc.manual_seed(0)
    model = TiedNet().to(device)
    opt = tc.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        model(tc.randn(5, 3, device=device)).pow(2).sum().backward()
        opt.step()
    return model, opt


def test_a_model_and_its_optimizer_round_trip_with_their_sharing(device: str) -> None:
    model, opt = _trained(device)
    back = _round_trip({"model": model, "optimizer": opt, "epoch": 2})
    m, o = back["model"], back["optimizer"]
    assert type(m) is TiedNet and back["epoch"] == 2
    assert m.again is m.enc and m.tied.weight is m.enc.weight  # shared, not copies
    assert type(m.enc.weight) is nn.Parameter and m.enc.weight.requires_grad
    assert m.enc.weight.device.type == device and m.enc.weight.grad is None  # (not saved)
    # buffers: the running statistics, and a view of a parameter that is still one
    assert m.bn.running_mean.tolist() == model.bn.running_mean.tolist()
    assert int(m.bn.num_batches_tracked) == 2
    # (a view of the model's parameter on the CPU; ``to(device)`` moves the buffer and the
    # parameter one by one elsewhere, as PyTorch's does, and the round trip keeps either)
    shared = model.first_row.untyped_storage() is model.head.weight.untyped_storage()
    assert shared == (device == "cpu")
    assert (m.first_row.untyped_storage() is m.head.weight.untyped_storage()) == shared
    # the optimizer's parameters are the model's, its state is kept
    assert all(p is q for p, q in zip(o.param_groups[0]["params"], m.parameters(), strict=True))
    st = o.state[m.enc.weight]
    assert st["exp_avg"].tolist() == opt.state[model.enc.weight]["exp_avg"].tolist()
    x = tc.randn(2, 3, device=device)
    model.eval()
    m.eval()
    assert m(x).tolist() == model(x).tolist()
    # and training goes on from there, as from the original
    for mm, oo in ((model, opt), (m, o)):
        oo.zero_grad()
        mm(x).sum().backward()
        oo.step()
    assert m.dec.weight.tolist() == model.dec.weight.tolist()


def test_tensors_viewing_one_storage_come_back_as_views(device: str) -> None:
    base = tc.arange(12.0, device=device).reshape(3, 4)
    h = _round_trip(Holder(base))
    assert h.col.untyped_storage() is h.base.untyped_storage() is h.t.untyped_storage()
    assert h.col.tolist() == base[:, 1].tolist() and h.t.stride() == (1, 4)
    h.base[0, 1] = -1.0  # writes through, as before saving
    assert h.col[0].item() == -1.0 and h.t[1, 0].item() == -1.0


def test_a_pickled_file_is_refused_without_weights_only_false(tmp_path: Any) -> None:
    path = tmp_path / "model.safetensors"
    tc.save(nn.Linear(2, 2), path)
    with pytest.raises(pickle.UnpicklingError) as info:
        tc.load(path)
    msg = str(info.value)
    assert msg.startswith(f"Weights only load failed. {str(path)!r} holds pickled Python")
    assert "'tensorcore.nn.modules.linear.Linear' at obj" in msg or "Linear' at obj" in msg, msg
    assert "Re-running `tensorcore.load` with `weights_only` set to `False`" in msg
    assert "Do it only if you got the file from a trusted source" in msg
    assert type(tc.load(path, weights_only=False)) is nn.Linear


def test_the_tensors_of_a_pickled_object_are_plain_safetensors_entries(tmp_path: Any) -> None:
    model = nn.Linear(3, 2)
    path = tmp_path / "m.safetensors"
    tc.save(model, path)
    data = path.read_bytes()
    entries = dict(safetensors.deserialize(data))  # any safetensors reader sees them
    assert sorted(e["shape"] for e in entries.values()) == [[2], [2, 3]]
    n = int.from_bytes(data[:8], "little")
    meta = json.loads(data[8 : 8 + n])["__metadata__"]
    assert meta["tensorcore.format"] == "2" and "tensorcore.object" not in meta
    assert b"\\x00" not in meta["tensorcore.pickle"].encode()  # (base64 text)
    # a state dict stays data only, in format 1, loadable with weights_only=True
    tc.save(model.state_dict(), path)
    n = int.from_bytes(path.read_bytes()[:8], "little")
    assert json.loads(path.read_bytes()[8 : 8 + n])["__metadata__"]["tensorcore.format"] == "1"
    assert tc.load(path)["weight"].tolist() == model.weight.tolist()


def test_what_cannot_be_pickled_raises_and_writes_nothing() -> None:
    buf = io.BytesIO()
    with pytest.raises((AttributeError, TypeError, pickle.PicklingError)):
        tc.save({"fn": lambda x: x, "w": tc.ones(1)}, buf)
    assert buf.getvalue() == b""


def test_map_location_places_a_pickled_models_tensors() -> None:
    m = _round_trip(nn.Linear(2, 2), map_location="cpu")
    assert m.weight.device.type == "cpu" and type(m.weight) is nn.Parameter
