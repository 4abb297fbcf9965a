"""Gaps found by running the training infrastructure of PyTorch scripts (the ImageNet
example's loop, Hugging-Face-style trainers, timm's utilities) with
``import tensorcore as torch`` (the twenty-fourth sweep): each test pins PyTorch 2.13's
behaviour that such a script meets."""

from __future__ import annotations

import functools
import io
import multiprocessing
import pickle
import warnings
from collections import OrderedDict, defaultdict
from typing import Any

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.utils import checkpoint as ckpt
from tensorcore.utils.data import DataLoader
from tensorcore.utils.tensorboard import SummaryWriter
from tensorcore.utils.tensorboard._graph import graph_def


def test_persistent_workers_keep_their_seed_between_epochs() -> None:
    # PyTorch draws the workers' base seed from the loader's generator when it starts an
    # iterator; persistent workers are reused, so later epochs draw only the shuffle.
    # (Orders recorded from PyTorch 2.13.)
    g = tc.Generator().manual_seed(0)
    dl = DataLoader(
        list(range(8)),
        batch_size=4,
        shuffle=True,
        num_workers=2,
        persistent_workers=True,
        generator=g,
    )
    epochs = [[b.tolist() for b in dl] for _ in range(3)]
    assert epochs == [
        [[5, 3, 1, 7], [2, 6, 4, 0]],
        [[0, 3, 4, 6], [1, 7, 5, 2]],
        [[1, 0, 7, 3], [2, 5, 6, 4]],
    ]
    assert tc.rand(2, generator=g).tolist() == pytest.approx([0.1387168765, 0.2422350049])


def test_workers_that_do_not_persist_draw_a_seed_each_epoch() -> None:
    g = tc.Generator().manual_seed(0)
    dl = DataLoader(list(range(8)), batch_size=4, shuffle=True, num_workers=2, generator=g)
    epochs = [[b.tolist() for b in dl] for _ in range(3)]
    assert epochs == [
        [[5, 3, 1, 7], [2, 6, 4, 0]],
        [[2, 3, 4, 7], [1, 0, 6, 5]],
        [[3, 5, 6, 7], [0, 2, 1, 4]],
    ]
    assert tc.rand(2, generator=g).tolist() == pytest.approx([0.2782524824, 0.4819588065])


def test_save_accepts_pytorchs_arguments() -> None:
    # Older repositories write torch.save(state, f, _use_new_zipfile_serialization=False).
    buf = io.BytesIO()
    tc.save(
        {"w": tc.ones(2)},
        buf,
        pickle_module=pickle,
        pickle_protocol=4,
        _use_new_zipfile_serialization=False,
        _disable_byteorder_record=False,
    )
    buf.seek(0)
    assert tc.load(buf)["w"].tolist() == [1.0, 1.0]


def _saved(obj: Any) -> io.BytesIO:
    buf = io.BytesIO()
    tc.save(obj, buf)
    buf.seek(0)
    return buf


def test_load_with_pickle_module_means_not_weights_only() -> None:
    assert tc.load(_saved({"s": {1, 2}, "w": tc.ones(1)}), pickle_module=pickle)["s"] == {1, 2}
    with pytest.raises(
        RuntimeError,
        match=r"^Can not safely load weights when explicit pickle_module is specified$",
    ):
        tc.load(_saved({"w": tc.ones(1)}), pickle_module=pickle, weights_only=True)


def test_load_pickle_load_args() -> None:
    # encoding= (for Python 2 checkpoints) warns unless weights_only=False, and still loads.
    with pytest.warns(
        UserWarning, match=r"^pickle_load_args only works if `weights_only=False`\.$"
    ):
        out = tc.load(_saved({"w": tc.ones(1)}), encoding="latin1")
    assert out["w"].tolist() == [1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tc.load(_saved([1]), encoding="latin1", weights_only=False) == [1]
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        tc.load(_saved([1]), foo=1)


def test_load_mmap(tmp_path: Any) -> None:
    # HF loads with mmap=True; that needs a path, as in PyTorch.
    path = tmp_path / "w.pt"
    tc.save({"w": tc.arange(3.0)}, path)
    assert tc.load(path, mmap=True, map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0]
    assert tc.load(str(path), mmap=False)["w"].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(
        ValueError, match=r"^f must be a file path in order to use the mmap argument$"
    ):
        tc.load(_saved([1]), mmap=True)


class _Lookahead(tc.optim.Optimizer):
    """timm's Lookahead: an Optimizer that never calls Optimizer.__init__ (it shares its
    base optimizer's param_groups and keeps its own state)."""

    def __init__(self, base: tc.optim.Optimizer, alpha: float = 0.5, k: int = 2) -> None:
        self._base_optimizer = base
        self.param_groups = base.param_groups
        self.defaults = base.defaults
        self.defaults.update(lookahead_alpha=alpha, lookahead_k=k, lookahead_step=0)
        self.state = defaultdict(dict)
        for group in self.param_groups:
            group.setdefault("lookahead_step", 0)

    @tc.no_grad()
    def step(self, closure: Any = None) -> Any:
        loss = self._base_optimizer.step(closure)
        for group in self.param_groups:
            group["lookahead_step"] += 1
        return loss


def test_optimizer_subclass_without_base_init_steps() -> None:
    p = nn.Parameter(tc.ones(2))
    opt = _Lookahead(tc.optim.SGD([p], lr=0.5))
    sched = tc.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(2):
        opt.zero_grad()
        (p * p).sum().backward()
        opt.step()
        sched.step()
    # p: 1 -> 1 - 0.5 * 2 = 0 -> 0 (lr 0.25, grad 0)
    assert p.tolist() == [0.0, 0.0]
    assert opt.param_groups[0]["lookahead_step"] == 2
    assert sched.get_last_lr() == [0.125]


_INPLACE_INFERENCE = (
    r"^Inplace update to inference tensor outside InferenceMode is not allowed\.You can make "
    r"a clone to get a normal tensor before doing inplace update\.See "
    r"https://github\.com/pytorch/rfcs/pull/17 for more details\.$"
)


def _inference_ones(device: str) -> tc.Tensor:
    with tc.inference_mode():
        return tc.ones(3, device=device)


@pytest.mark.parametrize(
    "write",
    [
        lambda a: a.add_(1),
        lambda a: a[:2].mul_(2),
        lambda a: a.__setitem__(0, 5.0),
        lambda a: a.copy_(tc.zeros(3, device=a.device)),
        lambda a: a.zero_(),
        lambda a: tc.add(tc.ones(3, device=a.device), 1, out=a),
        lambda a: a.resize_(4),
    ],
)
def test_inplace_write_to_inference_tensor_outside_the_mode(device: str, write: Any) -> None:
    # Evaluation code run under inference_mode, whose outputs a later step updates in place.
    a = _inference_ones(device)
    with pytest.raises(RuntimeError, match=_INPLACE_INFERENCE):
        write(a)
    with tc.no_grad(), pytest.raises(RuntimeError, match=_INPLACE_INFERENCE):
        write(a)
    with tc.inference_mode():
        write(a)  # inside the mode it is allowed


def test_inference_tensor_writes_that_pytorch_allows(device: str) -> None:
    a = _inference_ones(device)
    a.data.add_(1)  # .data and detach() count versions of their own
    a.detach().add_(1)
    assert a.tolist() == [3.0, 3.0, 3.0]
    assert a.detach().is_inference()
    assert (a + 1).tolist() == [4.0, 4.0, 4.0]


def test_inference_tensor_saved_for_backward_is_refused(device: str) -> None:
    a = _inference_ones(device)
    w = tc.ones(3, device=device, requires_grad=True)
    msg = (
        r"^Inference tensors cannot be saved for backward\. Please do not use Tensors created "
        r"in inference mode in computation tracked by autograd\. To work around this, you can "
        r"make a clone to get a normal tensor and use it in autograd, or use `torch\.no_grad\(\)` "
        r"instead of `torch\.inference_mode\(\)`\.$"
    )
    with pytest.raises(RuntimeError, match=msg):
        a * w
    with pytest.raises(RuntimeError, match=msg):
        nn.functional.linear(a.view(1, 3), w.view(1, 3))
    # what is not saved, or a clone, is fine
    (a + w).sum().backward()
    (a.clone() * w).sum().backward()
    assert w.grad is not None and w.grad.tolist() == [2.0, 2.0, 2.0]


def test_requires_grad_on_inference_tensor_outside_the_mode(device: str) -> None:
    a = _inference_ones(device)
    msg = r"^Setting requires_grad=True on inference tensor outside InferenceMode is not allowed\.$"
    with pytest.raises(RuntimeError, match=msg):
        a.requires_grad_()
    with pytest.raises(RuntimeError, match=msg):
        a.requires_grad = True
    with pytest.raises(RuntimeError, match=msg):
        nn.Parameter(a)
    a.requires_grad_(False)


def test_backends_namespaces_as_a_cpu_build() -> None:
    cudnn = tc.backends.cudnn
    assert cudnn.version() is None and cudnn.is_acceptable(tc.ones(1)) is False
    with cudnn.flags(enabled=False, benchmark=True):
        assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (False, True, False)
    assert (cudnn.enabled, cudnn.benchmark) == (True, False)
    cuda = tc.backends.cuda
    assert cuda.flash_sdp_enabled() and cuda.math_sdp_enabled() and cuda.cudnn_sdp_enabled()
    cuda.enable_flash_sdp(False)
    assert cuda.flash_sdp_enabled() is False
    cuda.enable_flash_sdp(True)
    deprecated = pytest.warns(FutureWarning, match=r"sdp_kernel\(\)` is deprecated")
    with deprecated, cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False) as k:
        assert k == {}
        assert not cuda.flash_sdp_enabled() and not cuda.mem_efficient_sdp_enabled()
        assert cuda.math_sdp_enabled()
    assert cuda.flash_sdp_enabled() and cuda.mem_efficient_sdp_enabled()
    assert isinstance(tc.backends.cpu.get_cpu_capability(), str)
    import tensorcore.backends.mkldnn as mkldnn

    assert mkldnn.enabled is True


def test_saved_state_dict_keeps_its_metadata() -> None:
    # PyTorch pickles the OrderedDict with its _metadata: a module's _load_from_state_dict
    # then reads the version the checkpoint was written with (not None, "an old file").
    class Versioned(nn.Module):
        _version = 3

        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(2, 2)
            self.seen: list[Any] = []

        def _load_from_state_dict(self, state_dict: Any, prefix: str, meta: Any, *a: Any) -> None:
            self.seen.append(meta.get("version"))
            super()._load_from_state_dict(state_dict, prefix, meta, *a)

    m = Versioned()
    sd = m.state_dict()
    loaded = tc.load(_saved(sd))
    assert type(loaded) is type(sd)
    assert dict(loaded._metadata) == {"": {"version": 3}, "lin": {"version": 1}}
    assert list(loaded) == ["lin.weight", "lin.bias"]
    m.load_state_dict(loaded)
    assert m.seen == [3]
    nested = tc.load(_saved({"model": sd, "epoch": 2}))
    assert nested["model"]._metadata[""] == {"version": 3}
    # a plain OrderedDict is still one
    plain = tc.load(_saved(OrderedDict(a=tc.ones(1))))
    assert type(plain) is OrderedDict and not vars(plain)


def test_dataset_base_classes_as_pytorchs() -> None:
    # PyTorch's TensorDataset asserts the sizes; its IterableDataset is an abstract Iterable.
    with pytest.raises(AssertionError, match=r"^Size mismatch between tensors$"):
        tc.utils.data.TensorDataset(tc.ones(3), tc.ones(4))
    with pytest.raises(TypeError, match="abstract"):
        tc.utils.data.IterableDataset()

    class Stream(tc.utils.data.IterableDataset):
        def __iter__(self) -> Any:
            return iter(range(3))

    assert list(Stream()) == [0, 1, 2]
    assert isinstance(Stream(), tc.utils.data.Dataset)


def test_weight_norm_parametrization_loads_old_weight_norm_keys() -> None:
    # Checkpoints written with nn.utils.weight_norm (weight_g, weight_v) load into the
    # parametrization that replaced it, as PyTorch's compatibility hook does.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = nn.utils.weight_norm(nn.Conv1d(2, 3, 2), name="weight")
    sd = tc.load(_saved(old.state_dict()))
    assert sorted(sd) == ["bias", "weight_g", "weight_v"]
    new = nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 2))
    result = new.load_state_dict(sd)
    assert not result.missing_keys and not result.unexpected_keys
    x = tc.randn(1, 2, 5)
    assert tc.allclose(new(x), old(x))
    assert tc.equal(new.parametrizations.weight.original1, old.weight_v)
    # nested, under a prefix
    seq = nn.Sequential(nn.utils.parametrizations.weight_norm(nn.Conv1d(2, 3, 2)))
    seq.load_state_dict({f"0.{k}": v for k, v in sd.items()})
    assert tc.equal(seq[0].parametrizations.weight.original0, old.weight_g)


def test_dataloader_multiprocessing_context_and_in_order() -> None:
    dl = DataLoader(list(range(4)), batch_size=2, num_workers=1, multiprocessing_context="spawn")
    assert isinstance(dl.multiprocessing_context, multiprocessing.context.BaseContext)
    assert dl.multiprocessing_context.get_start_method() == "spawn"
    assert DataLoader(list(range(4)), in_order=False).in_order is False
    with pytest.raises(
        ValueError,
        match=r"^multiprocessing_context can only be used with multi-process loading "
        r"\(num_workers > 0\), but got num_workers=0$",
    ):
        DataLoader(list(range(4)), multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="should specify a valid start method in"):
        DataLoader(list(range(4)), num_workers=1, multiprocessing_context="nope")
    with pytest.raises(TypeError, match="should be a valid context object"):
        DataLoader(list(range(4)), num_workers=1, multiprocessing_context=3)


def test_checkpoint_context_fn_and_helpers() -> None:
    entered: list[str] = []

    class Mark:
        def __init__(self, name: str) -> None:
            self.name = name

        def __enter__(self) -> None:
            entered.append(self.name)

        def __exit__(self, *exc: object) -> None:
            return None

    w = tc.ones(2, 2, requires_grad=True)
    y = ckpt.checkpoint(
        lambda t: (t @ w).sin(),
        tc.ones(3, 2),
        use_reentrant=False,
        context_fn=lambda: (Mark("forward"), Mark("recompute")),
    )
    assert entered == ["forward"]
    y.sum().backward()
    assert entered == ["forward", "recompute"]
    assert w.grad is not None
    # PyTorch 2.13: cos(2) * 3 in every entry
    assert w.grad.flatten().tolist() == pytest.approx([-1.2484405] * 4)
    # selective checkpointing: the policy is checked, the region recomputed
    policy = lambda ctx, op, *a, **k: ckpt.CheckpointPolicy.MUST_SAVE  # noqa: E731
    y = ckpt.checkpoint(
        lambda t: (t @ w).sin(),
        tc.ones(3, 2),
        use_reentrant=False,
        context_fn=functools.partial(ckpt.create_selective_checkpoint_contexts, policy),
    )
    y.sum().backward()
    assert w.grad.flatten().tolist() == pytest.approx([-2.496881] * 4)
    with pytest.raises(TypeError, match="must be either a function or a list of ops"):
        ckpt.create_selective_checkpoint_contexts(3)
    x = tc.ones(2, requires_grad=True)
    only = r"^Passing `context_fn` or `debug` is only supported when use_reentrant=False\.$"
    with pytest.raises(ValueError, match=only):
        ckpt.checkpoint(lambda t: t * 2, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match=only):
        ckpt.checkpoint(lambda t: t * 2, x, use_reentrant=True, context_fn=lambda: (None, None))
    with pytest.raises(
        ValueError, match=r"^determinism_check should be one of \['default', 'none'\], but got x$"
    ):
        ckpt.checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="x")
    out = ckpt.checkpoint(lambda t: t * 2, x, use_reentrant=False, determinism_check="none")
    assert out.tolist() == [2.0, 2.0]
    d, n = ckpt.detach_variable((x * 2, 3))
    assert d.grad_fn is None and d.requires_grad and n == 3
    with pytest.raises(
        RuntimeError, match=r"^Only tuple of tensors is supported\. Got Unsupported"
    ):
        ckpt.detach_variable([x])  # type: ignore[arg-type]
    with ckpt.set_checkpoint_early_stop(False), ckpt.set_checkpoint_debug_enabled(True):
        pass
    assert ckpt.DefaultDeviceType.get_device_type() == "cpu"


def test_scheduler_resumed_without_initial_lr_message() -> None:
    opt = tc.optim.SGD([nn.Parameter(tc.ones(1))], lr=1.0)
    with pytest.raises(KeyError) as info:
        tc.optim.lr_scheduler.StepLR(opt, 1, last_epoch=5)
    assert info.value.args[0] == (
        "param 'initial_lr' is not specified in param_groups[0] when resuming scheduler with "
        "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training "
        "from a checkpoint but haven't properly loaded the optimizer state\n2. You're using "
        "last_epoch >= 0 for a fresh training run (not recommended)"
    )


class _NumpyAugment(tc.utils.data.Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i: int) -> int:
        return int(np.random.randint(1000))


def test_workers_seed_numpy_as_pytorchs() -> None:
    # PyTorch seeds NumPy's global stream in each worker from the base seed and the worker
    # id; without it every worker repeats the parent's NumPy draws (the duplicated
    # augmentation bug). Values recorded from PyTorch 2.13.
    g = tc.Generator().manual_seed(123)
    dl = DataLoader(_NumpyAugment(), batch_size=2, num_workers=2, generator=g)
    assert [b.tolist() for b in dl] == [[437, 746], [579, 596]]
    assert [b.tolist() for b in dl] == [[392, 298], [835, 317]]


def _fields(data: bytes) -> list[tuple[int, Any]]:
    """The (field number, value) pairs of an encoded protobuf message (varint and
    length-delimited fields, what a GraphDef holds)."""
    out, i = [], 0

    def varint() -> int:
        nonlocal i
        n = shift = 0
        while True:
            b = data[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return n

    while i < len(data):
        key = varint()
        if key & 7 == 0:
            out.append((key >> 3, varint()))
        else:
            n = varint()
            out.append((key >> 3, data[i : i + n]))
            i += n
    return out


def test_add_graph_writes_the_recorded_operations(tmp_path: Any) -> None:
    # The TensorBoard tutorial's writer.add_graph(net, images): PyTorch writes a trace; here
    # the autograd graph, in the modules' scopes (PyTorch's node names for them).
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(3, 4)
            self.head = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())

        def forward(self, x: tc.Tensor) -> tc.Tensor:
            return self.head(self.fc(x).relu() + 1)

    nodes = []
    for field, node in _fields(graph_def(Net(), tc.ones(2, 3))):
        if field == 1:
            f = _fields(node)
            name = next(v.decode() for k, v in f if k == 1)
            op = next(v.decode() for k, v in f if k == 2)
            nodes.append((name, op, [v.decode() for k, v in f if k == 3]))
    assert nodes == [
        ("input/x", "IO Node", []),
        ("Net/Sequential[head]/Linear[0]/bias", "Parameter", []),
        ("Net/Sequential[head]/Linear[0]/weight", "Parameter", []),
        ("Net/Linear[fc]/bias", "Parameter", []),
        ("Net/Linear[fc]/weight", "Parameter", []),
        (
            "Net/Linear[fc]/addmm",
            "addmm",
            ["input/x", "Net/Linear[fc]/weight", "Net/Linear[fc]/bias"],
        ),
        ("Net/relu", "relu", ["Net/Linear[fc]/addmm"]),
        ("Net/add", "add", ["Net/relu"]),
        (
            "Net/Sequential[head]/Linear[0]/addmm",
            "addmm",
            [
                "Net/add",
                "Net/Sequential[head]/Linear[0]/weight",
                "Net/Sequential[head]/Linear[0]/bias",
            ],
        ),
        (
            "Net/Sequential[head]/Sigmoid[1]/sigmoid",
            "sigmoid",
            ["Net/Sequential[head]/Linear[0]/addmm"],
        ),
        ("output/output.1", "IO Node", ["Net/Sequential[head]/Sigmoid[1]/sigmoid"]),
    ]
    with SummaryWriter(tmp_path) as w:
        w.add_graph(Net(), tc.ones(2, 3))
    assert any(p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir())
