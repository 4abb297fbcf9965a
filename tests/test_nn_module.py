"""``nn.Module`` semantics as PyTorch defines them: registration, traversal, modes, state
dicts, hooks, conversion, containers, repr, copying."""

from __future__ import annotations

import copy
import pickle
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.testing import assert_close


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(4, 2, bias=False)
        self.scale = nn.Parameter(tc.ones(()))
        self.register_buffer("steps", tc.zeros((), dtype=tc.int64))
        self.register_buffer("cache", tc.zeros(2), persistent=False)

    def forward(self, x: tc.Tensor) -> tc.Tensor:
        return self.fc2(self.act(self.fc1(x))) * self.scale


def test_registration_by_assignment_and_traversal_order() -> None:
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "scale",
        "fc1.weight",
        "fc1.bias",
        "fc2.weight",
    ]
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert net.fc2.bias is None and "bias" in net.fc2._parameters
    assert len(list(net.parameters(recurse=False))) == 1
    assert net.get_submodule("fc1") is net.fc1
    assert net.get_parameter("fc1.weight") is net.fc1.weight


def test_shared_parameters_are_listed_once() -> None:
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_modules())) == 3
    names = [n for n, _ in seq.named_parameters(remove_duplicate=False)]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_assignment_rules_and_errors() -> None:
    net = Net()
    with pytest.raises(TypeError, match=r"cannot assign .* as parameter 'scale'"):
        net.scale = tc.ones(())
    net.scale = None
    assert net.scale is None and "scale" in net._parameters
    with pytest.raises(TypeError, match="as child module 'fc1'"):
        net.fc1 = tc.ones(2)
    with pytest.raises(TypeError, match="as buffer 'steps'"):
        net.steps = 3
    net.steps = tc.ones((), dtype=tc.int64)
    assert net.steps.item() == 1
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        _ = net.nope
    with pytest.raises(KeyError, match="attribute 'fc1' already exists"):
        net.register_buffer("fc1", tc.ones(1))
    with pytest.raises(KeyError, match="contain"):
        net.register_parameter("a.b", None)
    del net.fc1
    assert "fc1" not in dict(net.named_children())

    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(tc.ones(1))

    with pytest.raises(AttributeError, match=r"before Module\.__init__"):
        Early()
    with pytest.raises(ValueError, match="non-leaf"):
        nn.Module().register_parameter("w", _nonleaf_parameter())


def _nonleaf_parameter() -> Any:
    p = nn.Parameter(tc.ones(1))
    p._grad_fn = (tc.ones(1, requires_grad=True) * 2).grad_fn
    return p


def test_forward_is_required() -> None:
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(tc.ones(1))


def test_train_eval_and_requires_grad() -> None:
    net = Net()
    assert net.training and net.fc1.training
    assert net.eval() is net
    assert not net.training and not net.fc1.training
    net.train()
    assert net.fc2.training
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    with pytest.raises(ValueError, match="boolean"):
        net.train("yes")  # type: ignore[arg-type]


def test_train_runs_each_childs_own_train() -> None:
    # LoRA layers override ``train`` to merge their weights on ``eval()``: the parent's switch
    # must reach them through their own method, at any depth.
    calls: list[tuple[str, bool]] = []

    class Merging(nn.Linear):
        def train(self, mode: bool = True) -> Merging:
            calls.append(("merging", mode))
            return super().train(mode)

    net = nn.Sequential(nn.Sequential(Merging(2, 2), nn.Dropout()), nn.ReLU())
    net.eval()
    assert calls == [("merging", False)]
    assert not any(m.training for m in net.modules())
    net.train()
    assert calls[-1] == ("merging", True) and all(m.training for m in net.modules())


def test_zero_grad_to_none_and_to_zero() -> None:
    net = Net()
    net(tc.ones(5, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_state_dict_keys_values_and_round_trip(tmp_path: Any) -> None:
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"].data_ptr() == net.fc1.weight.data_ptr()  # shares storage
    assert net.state_dict(keep_vars=True)["fc1.weight"] is net.fc1.weight
    path = tmp_path / "net.safetensors"
    tc.save(sd, path)
    fresh = Net()
    res = fresh.load_state_dict(tc.load(path))
    assert res.missing_keys == [] and res.unexpected_keys == []
    x = tc.randn(4, 3)
    assert_close(fresh(x), net(x))


def test_load_state_dict_errors_and_non_strict() -> None:
    net = Net()
    sd = dict(net.state_dict())
    sd.pop("fc1.bias")
    sd["extra"] = tc.ones(1)
    with pytest.raises(RuntimeError) as err:
        Net().load_state_dict(sd)
    msg = str(err.value)
    assert "Error(s) in loading state_dict for Net" in msg
    assert 'Missing key(s) in state_dict: "fc1.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "extra"' in msg
    res = Net().load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias"] and res.unexpected_keys == ["extra"]
    assert repr(res) == "_IncompatibleKeys(missing_keys=['fc1.bias'], unexpected_keys=['extra'])"
    assert str(Net().load_state_dict(net.state_dict())) == "<All keys matched successfully>"
    bad = dict(net.state_dict())
    bad["fc1.weight"] = tc.ones(5, 5)
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1\.weight"):
        Net().load_state_dict(bad)


def test_load_state_dict_assign_takes_the_tensors() -> None:
    net = Net()
    sd = {k: v.clone() for k, v in Net().state_dict().items()}
    net.load_state_dict(sd, assign=True)
    assert net.fc1.weight.data_ptr() == sd["fc1.weight"].data_ptr()
    assert isinstance(net.fc1.weight, nn.Parameter) and net.fc1.weight.requires_grad


def test_forward_hooks_and_pre_hooks() -> None:
    lin = nn.Linear(2, 2)
    calls: list[str] = []

    def pre(mod: nn.Module, args: tuple[Any, ...]) -> Any:
        calls.append("pre")
        return (args[0] * 0,)

    def post(mod: nn.Module, args: tuple[Any, ...], out: tc.Tensor) -> Any:
        calls.append("post")
        return out + 1

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    y = lin(tc.ones(1, 2))
    assert calls == ["pre", "post"]
    assert_close(y, lin.bias.detach().reshape(1, 2) + 1)
    h1.remove()
    h2.remove()
    assert_close(lin(tc.zeros(1, 2)), lin.bias.detach().reshape(1, 2))

    seen: dict[str, Any] = {}
    lin.register_forward_pre_hook(lambda m, a, k: (a, {**k}), with_kwargs=True)
    lin.register_forward_hook(lambda m, a, k, o: seen.update(out=o), with_kwargs=True)
    lin.register_forward_hook(lambda m, a, o: calls.append("first"), prepend=True)
    out = lin(tc.ones(1, 2))
    assert seen["out"] is out and calls[-1] == "first"


def test_full_backward_hooks(device: str) -> None:
    # Linear: grad_input = grad_output @ W, checked against NumPy.
    lin = nn.Linear(3, 2).to(device, tc.float64)
    w = lin.weight.detach().cpu().numpy()
    x = tc.randn(4, 3, dtype=tc.float64, device=device, requires_grad=True)
    g = np.arange(8.0).reshape(4, 2)
    seen: list[Any] = []
    order: list[str] = []
    h = lin.register_full_backward_hook(lambda m, gi, go: seen.append((m, gi, go)))
    lin.register_full_backward_pre_hook(lambda m, go: order.append("pre"))
    lin.register_full_backward_hook(lambda m, gi, go: order.append("hook"))
    out = lin(x)
    assert out.grad_fn.name() == "BackwardHookFunctionBackward"
    out.backward(tc.tensor(g, device=device))
    ((m, gi, go),) = seen
    assert m is lin and len(gi) == 1 and len(go) == 1
    assert_close(go[0], g)
    assert_close(gi[0], g @ w)
    assert order == ["pre", "hook"]
    h.remove()
    # A hook's result replaces grad_input; a pre-hook's replaces grad_output.
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    x.grad = None
    lin(x).backward(tc.tensor(g, device=device))
    assert_close(x.grad, 2 * g @ w)
    lin2 = nn.Linear(3, 2).to(device, tc.float64)
    lin2.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    x.grad = None
    lin2(x).sum().backward()
    assert_close(x.grad, np.zeros((4, 3)))
    assert lin2.weight.grad.abs().sum().item() == 0
    # No input requires grad: the hook runs with grad_input all None; a non-tensor
    # argument is a None too.
    lin3 = nn.Linear(3, 2).to(device, tc.float64)
    got: list[Any] = []
    lin3.register_full_backward_hook(lambda m, gi, go: got.append((gi, go[0].shape)))
    lin3(x.detach()).sum().backward()
    assert got == [((None,), (4, 2))]
    # A wrong number of gradients is an error.
    lin4 = nn.Linear(3, 2).to(device, tc.float64)
    lin4.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        lin4(x).sum().backward()
    # Removed hooks leave the module's output as it was.
    plain = nn.Linear(3, 2)
    plain.register_full_backward_hook(lambda m, gi, go: None).remove()
    assert plain(tc.ones(1, 3)).grad_fn.name() != "BackwardHookFunctionBackward"


def test_legacy_backward_hook_sees_the_last_nodes_gradients(device: str) -> None:
    relu = nn.ReLU()
    got: list[Any] = []
    h = relu.register_backward_hook(lambda m, gi, go: got.append((m, gi, go)))
    x = tc.tensor([-1.0, 2.0], device=device, requires_grad=True)
    y = x * 1  # one node in, one node out: no warning
    relu(y).backward(tc.tensor([3.0, 4.0], device=device))
    ((m, gi, go),) = got
    assert m is relu and len(gi) == 1 and len(go) == 1
    assert_close(go[0], [3.0, 4.0])
    assert_close(gi[0], [0.0, 4.0])
    # A non-None result replaces grad_input.
    h.remove()
    relu.register_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x.grad = None
    relu(x * 1).sum().backward()
    assert_close(x.grad, [0.0, 0.0])
    # A forward of several operators: PyTorch's warning, and only the last node's inputs.
    seq = nn.Sequential(nn.Linear(3, 2), nn.ReLU()).to(device)
    shapes: list[Any] = []
    seq.register_backward_hook(lambda m, gi, go: shapes.append([g.shape for g in gi]))
    with pytest.warns(FutureWarning, match="non-full backward hook when the forward contains"):
        out = seq(tc.randn(4, 3, device=device, requires_grad=True))
    out.sum().backward()
    assert shapes == [[(4, 2)]]
    # Legacy and full hooks do not mix on one module (either order).
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
        seq.register_full_backward_hook(lambda m, gi, go: None)
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full"):
        lin.register_backward_hook(lambda m, gi, go: None)


def test_forward_hook_always_call_runs_on_error() -> None:
    class Boom(nn.Module):
        def forward(self, x: Any) -> Any:
            raise ValueError("boom")

    seen: list[Any] = []
    m = Boom()
    m.register_forward_hook(lambda mod, a, out: seen.append(out), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        m(1)
    assert seen == [None]


def test_to_keeps_parameter_identity_and_casts_floating_only() -> None:
    net = Net()
    w = net.fc1.weight
    net(tc.ones(2, 3)).sum().backward()
    assert net.to(tc.float64) is net
    assert net.fc1.weight is w and w.dtype is tc.float64 and w.grad.dtype is tc.float64
    assert net.steps.dtype is tc.int64
    net.float()
    assert w.dtype is tc.float32
    with pytest.raises(TypeError, match="floating point or complex"):
        net.to(tc.int32)
    net.to("cpu", tc.float64)
    assert net.scale.dtype is tc.float64


def test_to_empty_gives_new_storage_of_the_same_metadata() -> None:
    """``to_empty`` replaces every parameter's, buffer's and gradient's data by an empty
    tensor of the same shape, dtype and strides on the device (parameters stay the same
    objects); ``recurse=False`` leaves the submodules alone."""
    net = Net()
    net.fc1.weight.data = net.fc1.weight.data.t().contiguous().t()  # a transposed layout
    net(tc.ones(2, 3)).sum().backward()
    before = {n: (t.shape, t.dtype, t.stride()) for n, t in net.state_dict().items()}
    storages = {n: t.untyped_storage() for n, t in net.state_dict(keep_vars=True).items()}
    w, grad_storage = net.fc1.weight, net.fc1.weight.grad.untyped_storage()
    assert net.to_empty(device="cpu") is net
    after = net.state_dict(keep_vars=True)
    assert {n: (t.shape, t.dtype, t.stride()) for n, t in after.items()} == before
    assert all(after[n].untyped_storage() is not storages[n] for n in after)
    assert net.fc1.weight is w and w.requires_grad
    assert w.grad is not None and w.grad.untyped_storage() is not grad_storage
    own = net.scale.untyped_storage()
    fc_w = net.fc1.weight.untyped_storage()
    net.to_empty(device=tc.device("cpu"), recurse=False)
    assert net.scale.untyped_storage() is not own
    assert net.fc1.weight.untyped_storage() is fc_w
    with pytest.raises(TypeError):
        net.to_empty("cpu")  # type: ignore[misc]  # keyword-only, as in PyTorch


def test_apply_visits_children_first() -> None:
    order: list[str] = []
    Net().apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "ReLU", "Linear", "Net"]


def test_repr_matches_pytorch_layout() -> None:
    net = nn.Sequential(
        OrderedDict(
            [("conv", nn.Conv2d(1, 2, 3)), ("body", nn.Sequential(nn.ReLU(), nn.Dropout(0.2)))]
        )
    )
    assert repr(net) == (
        "Sequential(\n"
        "  (conv): Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1))\n"
        "  (body): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Dropout(p=0.2, inplace=False)\n"
        "  )\n"
        ")"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_sequential_api() -> None:
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    seq.append(c)
    assert len(seq) == 3 and seq[-1] is c and list(seq) == [a, b, c]
    assert isinstance(seq[1:], nn.Sequential) and list(seq[1:]) == [b, c]
    del seq[0]
    assert list(seq) == [b, c] and [n for n, _ in seq.named_children()] == ["0", "1"]
    seq.insert(0, a)
    assert seq[0] is a
    assert seq(tc.ones(4, 2)).shape == (4, 1)
    assert len(seq + nn.Sequential(nn.Identity())) == 4
    assert seq.pop(1) is b and len(seq) == 2
    with pytest.raises(IndexError):
        seq[5]


def test_module_list_dict_parameter_containers() -> None:
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml += [nn.ReLU()]
    assert len(ml) == 4 and len(list(ml.parameters())) == 6
    ml.insert(1, nn.Identity())
    assert isinstance(ml[1], nn.Identity) and isinstance(ml[-1], nn.ReLU)
    md = nn.ModuleDict({"a": nn.Linear(1, 2)})
    md["b"] = nn.ReLU()
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]
    pl = nn.ParameterList([tc.zeros(2), nn.Parameter(tc.ones(1))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"s": tc.ones(3)})
    pd["t"] = tc.zeros(1)
    assert [n for n, _ in pd.named_parameters()] == ["s", "t"] and "t" in pd
    # PyTorch's reprs: dtypes in a list, legacy type names in a dict, one line run on
    assert repr(pl) == (
        "ParameterList(\n    (0): Parameter containing: [tensorcore.float32 of size 2]\n"
        "    (1): Parameter containing: [tensorcore.float32 of size 1]\n)"
    )
    assert repr(pd) == (
        "ParameterDict(\n    (s): Parameter containing: [tensorcore.FloatTensor of size 3]\n"
        "    (t): Parameter containing: [tensorcore.FloatTensor of size 1]\n)"
    )
    one = nn.ParameterDict({"a": tc.ones(2, 3, dtype=tc.float64)})
    assert (
        repr(one)
        == "ParameterDict(  (a): Parameter containing: [tensorcore.DoubleTensor of size 2x3])"
    )
    assert repr(nn.ParameterDict()) == "ParameterDict()"


def test_deepcopy_and_pickle_keep_parameters() -> None:
    net = Net()
    net(tc.ones(2, 3)).sum().backward()
    for clone in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert isinstance(clone.fc1.weight, nn.Parameter)
        assert clone.fc1.weight.data_ptr() != net.fc1.weight.data_ptr()
        assert_close(clone.fc1.weight, net.fc1.weight)
        x = tc.randn(3, 3)
        assert_close(clone(x), net(x))
    assert copy.deepcopy(net).fc1.weight.grad is not None


def test_parameter_basics() -> None:
    p = nn.Parameter(tc.arange(3.0))
    assert p.requires_grad and p.is_leaf and isinstance(p, tc.Tensor)
    assert repr(p).startswith("Parameter containing:\ntensor([0., 1., 2.], requires_grad=True)")
    q = nn.Parameter(tc.ones(2), requires_grad=False)
    assert not q.requires_grad
    with pytest.raises(TypeError, match="must be a Tensor"):
        nn.Parameter([1.0])  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(tc.ones(2, dtype=tc.int64))
    assert nn.Parameter(tc.ones(2, dtype=tc.int64), requires_grad=False).dtype is tc.int64


def test_tensor_data_shares_storage_and_reassigns() -> None:
    w = tc.ones(3, requires_grad=True)
    d = w.data
    assert not d.requires_grad and d.data_ptr() == w.data_ptr()
    d.mul_(2)
    assert w.tolist() == [2.0, 2.0, 2.0] and w.grad_fn is None
    w.data = tc.zeros(2, dtype=tc.float64)
    assert w.shape == (2,) and w.dtype is tc.float64 and w.requires_grad
    with pytest.raises(TypeError, match="must be assigned a Tensor"):
        w.data = [1.0]  # type: ignore[assignment]


# ------------------------------------------------------------------ state dict protocol
class _Versioned(nn.Module):
    """A module whose layout changed (``fc`` became ``lin``) and that keeps extra state: it
    overrides ``_load_from_state_dict`` with PyTorch's signature, as real modules do."""

    _version = 2

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.count = 3
        self.seen: list[Any] = []

    def get_extra_state(self) -> Any:
        return {"count": self.count}

    def set_extra_state(self, state: Any) -> None:
        self.count = state["count"]

    def _load_from_state_dict(self, state_dict: Any, prefix: str, local_metadata: Any,
                              strict: bool, missing_keys: Any, unexpected_keys: Any,
                              error_msgs: Any) -> None:  # fmt: skip
        version = local_metadata.get("version")
        self.seen.append(version)
        if (version is None or version < 2) and prefix + "fc.weight" in state_dict:
            state_dict[prefix + "lin.weight"] = state_dict.pop(prefix + "fc.weight")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)  # fmt: skip


def test_state_dict_metadata_extra_state_and_versioned_loading() -> None:
    m = _Versioned()
    sd = m.state_dict()
    assert list(sd) == ["_extra_state", "lin.weight", "lin.bias"]
    assert dict(sd._metadata) == {"": {"version": 2}, "lin": {"version": 1}}  # type: ignore[attr-defined]
    # a checkpoint of the old layout, without metadata: the override renames its key
    old = {"fc.weight": tc.ones(2, 2), "lin.bias": tc.zeros(2), "_extra_state": {"count": 9}}
    m2 = _Versioned()
    assert str(m2.load_state_dict(old)) == "<All keys matched successfully>"
    assert m2.count == 9 and m2.seen == [None] and m2.lin.weight.tolist() == [[1, 1], [1, 1]]
    m2.load_state_dict(sd)
    assert m2.seen[-1] == 2 and m2.count == 3  # (the saved metadata reaches the override)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        m2.load_state_dict({"lin.weight": tc.ones(2, 2), "lin.bias": tc.zeros(2)})
    # a 0-d buffer takes a one-element tensor, as PyTorch's
    p = nn.Module()
    p.register_buffer("s", tc.tensor(1.0))
    p.load_state_dict({"s": tc.tensor([5.0])})
    assert p.s.shape == () and p.s.item() == 5.0


def test_state_dict_hooks_in_pytorchs_order() -> None:
    m = _Versioned()
    calls: list[Any] = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(("pre", prefix)))
    m.lin.register_state_dict_pre_hook(lambda mod, prefix, keep: calls.append(("pre-lin", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: calls.append(("post", prefix)))
    m.lin._register_state_dict_hook(
        lambda mod, sd, prefix, meta: calls.append(("post-lin", prefix))
    )
    assert list(m.state_dict(prefix="root.")) == [
        "root._extra_state", "root.lin.weight", "root.lin.bias"
    ]  # fmt: skip
    assert calls == [("pre", "root."), ("pre-lin", "root.lin."), ("post-lin", "root.lin."),
                     ("post", "root.")]  # fmt: skip
    h = m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        m.state_dict()
    h.remove()
    # the older private hook may replace the root's result
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": 1})
    assert m.state_dict() == {"only": 1}

    m3 = _Versioned()
    m3.register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, mk, uk, em: calls.append(("lpre", sorted(sd)))
    )
    m3.register_load_state_dict_post_hook(
        lambda mod, keys: calls.append(
            ("lpost", list(keys.missing_keys), list(keys.unexpected_keys))
        )
    )
    keys = m3.load_state_dict({"lin.weight": tc.ones(2, 2), "extra": tc.zeros(1)}, strict=False)
    assert (keys.missing_keys, keys.unexpected_keys) == (["_extra_state", "lin.bias"], ["extra"])
    assert calls[-2:] == [("lpre", ["extra", "lin.weight"]),
                          ("lpost", ["_extra_state", "lin.bias"], ["extra"])]  # fmt: skip
    # a post-hook that clears the lists lets a strict load pass
    m3.register_load_state_dict_post_hook(lambda mod, keys: keys.missing_keys.clear())
    m3.load_state_dict({"lin.weight": tc.ones(2, 2)})


def test_set_submodule_and_compile() -> None:
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    seq.set_submodule("1", nn.Tanh())
    assert isinstance(seq[1], nn.Tanh)
    with pytest.raises(AttributeError, match="Sequential has no attribute `2`"):
        seq.set_submodule("2.x", nn.Tanh())
    with pytest.raises(AttributeError, match="Tanh has no attribute `x`"):
        seq.set_submodule("1.x", nn.Tanh(), strict=True)
    with pytest.raises(ValueError, match=r"is not an nn\.Module"):
        seq.set_submodule("1", 3)  # type: ignore[arg-type]
    assert seq.compile() is None
    assert seq(tc.ones(1, 2)).shape == (1, 2)


def test_moves_across_meta_replace_the_parameters() -> None:
    """Across the meta device a parameter's data cannot be swapped in place (PyTorch's
    ``_has_compatible_shallow_copy_type``): each module gets a new Parameter, so weights tied
    by sharing one come apart and are re-tied by hand, as after PyTorch's ``to_empty``."""
    with tc.device("meta"):
        emb, head = nn.Embedding(5, 3), nn.Linear(3, 5, bias=False)
    head.weight = emb.weight
    net = nn.Sequential(emb, head)
    assert len(list(net.parameters())) == 1
    w = emb.weight
    net.to_empty(device="cpu")
    assert emb.weight is not w and emb.weight is not head.weight
    assert isinstance(emb.weight, nn.Parameter) and emb.weight.device.type == "cpu"
    assert len(list(net.parameters())) == 2
    fc = nn.Linear(2, 2)
    fc.weight.requires_grad_(False)
    fc.bias.grad = tc.ones(2)
    b = fc.bias
    fc.to("meta")
    assert fc.bias is not b and fc.bias.grad is not None and fc.bias.grad.is_meta
    assert fc.bias.requires_grad and not fc.weight.requires_grad
    b = fc.bias
    fc.to_empty(device="meta")  # (meta to meta: swapped in place)
    assert fc.bias is b
