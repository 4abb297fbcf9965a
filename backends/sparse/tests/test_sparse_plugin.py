"""The plugin's registrations and the core mechanisms it relies on: ``direct=True`` kernels
(no frontend), plugin-declared operators outside the core's table, and what users see
without the plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, ClassVar

import pytest

import tensorcore as tc
from tensorcore.dispatch import DirectKernel, get_op
from tensorcore.ops.schema import OPS
from tensorcore.plugins import hookimpl


def test_declared_operators_join_the_runtime_table_only() -> None:
    for name in ("to_sparse", "coalesce", "sparse_mask", "_sparse_softmax"):
        assert get_op(name).name == name
        assert name not in OPS  # the core's table is the core's operators
    assert callable(tc._sparse_softmax) and callable(tc.sparse_coo_tensor)
    assert tc.sparse.mm is not None


def test_kernels_that_skip_the_frontend_are_direct() -> None:
    x = tc.sparse_coo_tensor([[0]], [1.0], (2,))
    x + x
    assert isinstance(get_op("add").table[("cpu", "sparse_coo")], DirectKernel)
    x.sum()
    assert isinstance(get_op("sum").table[("cpu", "sparse_coo")], DirectKernel)


class _Tagged:
    """A runtime plugin whose ``direct=True`` kernel records how the core called it."""

    calls: ClassVar[list[tuple[Any, ...]]] = []

    @hookimpl
    def tensorcore_register_layouts(self, register: Any) -> None:
        register.layout("direct_probe", priority=5)

    @hookimpl
    def tensorcore_register_kernels(self, register: Any) -> None:
        def add(self: Any, other: Any, alpha: Any = 1, out: Any = None) -> Any:
            _Tagged.calls.append((self, other, alpha, out))
            return out if out is not None else "result"

        register.kernel("add", "cpu", "direct_probe", add, direct=True)


def test_direct_kernel_calling_convention() -> None:
    tc.backends.register(_Tagged(), name="direct-probe")
    from tensorcore._tensor import make_tensor

    lay = tc.direct_probe
    t = make_tensor(None, (2,), (0,), 0, tc.float32, tc.device("cpu"), object(), lay)
    dense = tc.ones(3)  # a shape that does not broadcast: the frontend would have raised
    assert tc.add(t, dense) == "result"
    assert _Tagged.calls[-1] == (t, dense, 1, None)
    out = tc.zeros(1)
    assert tc.add(t, dense, alpha=2, out=out) is out
    assert _Tagged.calls[-1][2:] == (2, out)
    assert dense.add_(t) is dense
    assert _Tagged.calls[-1][3] is dense  # in place: out is self


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("TENSORCORE_")}
    full.update(env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120
    )


def test_without_the_plugin_users_get_the_install_hint() -> None:
    code = (
        "import tensorcore as tc\n"
        "try:\n"
        "    tc.nn.functional.embedding(tc.tensor([0]), tc.ones(2, 2), sparse=True)\n"
        "except NotImplementedError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    tc.sparse_coo\n"
        "except AttributeError as e:\n"
        "    print(e)\n"
        "print(tc.nn.functional.embedding(tc.tensor([1]), tc.eye(2)).tolist())\n"
    )
    proc = _run(code, TENSORCORE_BACKENDS="cpu")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "pip install tensorcore-sparse" in lines[0]
    assert "tensorcore-sparse" in lines[1]
    assert lines[2] == "[[0.0, 1.0]]"


def test_report_lists_the_layout() -> None:
    proc = _run("import runpy; runpy.run_module('tensorcore', run_name='__main__')")
    assert proc.returncode == 0, proc.stderr
    assert "sparse_coo  1         sparse" in proc.stdout
    assert "tensorcore-sparse" in proc.stdout


@pytest.mark.parametrize("op", ["add", "mul", "mm", "sum", "transpose", "to_dense"])
def test_explain_resolves_to_the_plugin(op: str) -> None:
    x = tc.sparse_coo_tensor([[0], [0]], [1.0], (2, 2))
    args: tuple[Any, ...] = {
        "add": (x, x),
        "mul": (x, x),
        "mm": (x, x),
        "sum": (x,),
        "transpose": (x, 0, 1),
        "to_dense": (x,),
    }[op]
    assert "from plugin 'sparse'" in tc.explain(op, *args)


def test_the_namespace_imports_as_a_submodule() -> None:
    # PyTorch programs write ``import torch.sparse`` and ``from torch.sparse import mm``.
    code = (
        "import tensorcore.sparse as s, tensorcore as tc\n"
        "from tensorcore.sparse import mm\n"
        "assert s is tc.sparse and mm is tc.sparse.mm\n"
        "try:\n"
        "    import tensorcore.nosuchthing\n"
        "except ModuleNotFoundError as e:\n"
        "    assert e.name == 'tensorcore.nosuchthing'\n"
        "else:\n"
        "    raise AssertionError('imported a module that does not exist')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
