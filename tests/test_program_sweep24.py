"""Gaps found by running the training infrastructure of PyTorch scripts (the ImageNet
example's loop, Hugging-Face-style trainers, timm's utilities) with
``import tensorcore as torch`` (the twenty-fourth sweep): each test pins PyTorch 2.13's
behaviour that such a script meets."""

from __future__ import annotations

import io
import pickle
import warnings
from collections import defaultdict
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.utils.data import DataLoader


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
