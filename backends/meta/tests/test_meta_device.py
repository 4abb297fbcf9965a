"""The meta device: tensors with real metadata and no data, what reading their values does,
transfers both ways, printing, and the plugin's use of the public SPI only."""

from __future__ import annotations

import ast
import copy
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import backend

PACKAGE = Path(__file__).resolve().parents[1] / "tensorcore_meta"


def test_storage_holds_nothing_and_reports_the_real_size() -> None:
    x = tc.empty(1000, 3, dtype=tc.float64, device="meta")
    st = x.untyped_storage()
    assert st.data is None and st.nbytes == 24000 == x.numel() * x.element_size()
    assert x.nbytes == 24000 and st.data_ptr() == 0 and x.data_ptr() == 0
    assert x.device == tc.device("meta") and x.is_contiguous()
    assert not backend.interface("meta").holds_data and backend.interface("cpu").holds_data


@pytest.mark.parametrize(
    "make",
    [
        lambda x: x[0].t(),
        lambda x: x[0].t().contiguous(),
        lambda x: x.permute(2, 0, 1),
        lambda x: x.permute(2, 0, 1) + 1,  # an elementwise result follows its input's layout
        lambda x: x.permute(2, 0, 1).clone(),
        lambda x: x[1:, ::2],
        lambda x: x[:, None, 1].expand(2, 5, 4),
        lambda x: x.sum(1, keepdim=True),
        lambda x: x.reshape(4, -1).t() @ x.reshape(4, -1),
        lambda x: tc.empty_like(x.transpose(0, 2)),
        lambda x: x.transpose(0, 1).softmax(-1),
        lambda x: tc.cat([x, x], 1).unbind(0)[1],
    ],
    ids=[
        "t",
        "t-contiguous",
        "permute",
        "permute-add",
        "permute-clone",
        "slice",
        "expand",
        "sum-keepdim",
        "matmul",
        "empty_like",
        "softmax",
        "cat-unbind",
    ],
)
def test_metadata_is_the_cpus(make: object) -> None:
    """Shapes, dtypes, strides and offsets as the CPU gives them (views are the core's)."""
    fn = make  # type: ignore[assignment]
    cpu = fn(tc.arange(24.0).reshape(2, 3, 4))  # type: ignore[operator]
    meta = fn(tc.empty(2, 3, 4, device="meta"))  # type: ignore[operator]
    assert meta.device.type == "meta"
    assert (meta.shape, meta.dtype, meta.stride(), meta.storage_offset()) == (
        cpu.shape,
        cpu.dtype,
        cpu.stride(),
        cpu.storage_offset(),
    )


def test_factories_and_the_default_device() -> None:
    assert tc.zeros(2, 3, device="meta").device.type == "meta"
    assert tc.tensor([[1, 2], [3, 4]], device="meta").shape == (2, 2)
    assert tc.arange(10, device="meta").dtype is tc.int64
    assert tc.randn(3, 4, device="meta").shape == (3, 4)
    with tc.device("meta"):
        assert tc.ones(5).device.type == "meta"
        assert tc.nn.Linear(3, 2).weight.device.type == "meta"
    assert tc.ones(5).device.type == "cpu"
    tc.set_default_device("meta")
    assert tc.full((2,), 7).device.type == "meta"


def test_reading_values_raises_as_in_pytorch() -> None:
    x = tc.ones(3, device="meta")
    one = tc.ones((), device="meta")
    with pytest.raises(RuntimeError, match=r"Tensor.item\(\) cannot be called on meta tensors"):
        one.item()
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        bool(one)
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        float(one)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        x.tolist()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        x.numpy()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        np.asarray(x)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        x.__dlpack__()


def test_copying_in_keeps_metadata_and_copying_out_raises() -> None:
    c = tc.arange(6.0).reshape(2, 3)
    m = c.to("meta")
    assert (m.device.type, m.shape, m.dtype) == ("meta", c.shape, c.dtype)
    assert tc.as_tensor(np.ones((2, 2), np.float64), device="meta").dtype is tc.float64
    target = tc.empty(2, 3, device="meta")
    assert target.copy_(c) is target and target._version == 1
    with pytest.raises(RuntimeError, match="must match the size"):
        target.copy_(tc.ones(4, device="meta"))
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.to("cpu")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.cpu()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        c.copy_(m)


def test_in_place_initialisers_write_nothing_and_check_their_arguments() -> None:
    x = tc.empty(3, 4, device="meta")
    g = tc.Generator("cpu").manual_seed(1)
    for call in (
        lambda: x.fill_(2.0),
        lambda: x.zero_(),
        lambda: x.uniform_(-1, 1, generator=g),
        lambda: x.normal_(0, 2),
        lambda: x.bernoulli_(0.5),
        lambda: tc.nn.init.kaiming_uniform_(x),
        lambda: tc.nn.init.trunc_normal_(x),
    ):
        assert call() is x
    fresh = tc.Generator("cpu").manual_seed(1)
    assert tc.rand(3, generator=g).tolist() == tc.rand(3, generator=fresh).tolist()  # no draws
    with pytest.raises(RuntimeError, match=r"from=2 > to=1$"):  # (C++ prints 2.0 as 2)
        x.uniform_(2.0, 1.0)
    with pytest.raises(TypeError, match="must be Number"):  # the core's check
        x.fill_(tc.ones(2, device="meta"))


@pytest.mark.parametrize(
    ("op", "match"),
    [
        (lambda x: x.nonzero(), "nonzero: not supported for .* on meta"),
        (lambda x: tc.argwhere(x), "argwhere: not supported"),
        (lambda x: x[x > 0], "index: not supported .*boolean mask"),
        (lambda x: tc.unique(x), "unique: not supported"),
        (lambda x: x.repeat_interleave(tc.ones(3, dtype=tc.int64, device="meta")), "output_size"),
    ],
    ids=["nonzero", "argwhere", "bool-mask", "unique", "repeat_interleave"],
)
def test_data_dependent_shapes_raise_naming_the_operator_and_meta(op: object, match: str) -> None:
    x = tc.ones(3, device="meta")
    with pytest.raises(NotImplementedError, match=match) as info:
        op(x)  # type: ignore[operator]
    assert "meta tensors do not have" in str(info.value)


def test_shape_only_kernels() -> None:
    a, b = tc.empty(2, 3, device="meta"), tc.empty(3, 5, 4, device="meta", dtype=tc.float64)
    r = tc.einsum("ij,jkl->ikl", a, b)
    assert (r.shape, r.dtype) == ((2, 5, 4), tc.float64)
    assert tc.einsum(
        "...j,j", tc.empty(7, 2, 3, device="meta"), tc.empty(3, device="meta")
    ).shape == (7, 2)
    assert tc.einsum("ii", tc.empty(3, 3, device="meta")).shape == ()
    with pytest.raises(RuntimeError, match="einsum"):
        tc.einsum("ij,jk", a, tc.empty(4, 2, device="meta"))
    x = tc.empty(4, 5, 6, device="meta")
    i = tc.zeros(2, 3, dtype=tc.int64, device="meta")
    assert x[i].shape == (2, 3, 5, 6)
    assert x[:, i, i].shape == (4, 2, 3)
    assert x[i, :, i].shape == (2, 3, 5)  # separated advanced indices go first
    assert tc.tril_indices(4, 5, 1, device="meta").shape == tc.tril_indices(4, 5, 1).shape
    assert tc.triu_indices(5, 3, -1, device="meta").shape == tc.triu_indices(5, 3, -1).shape
    assert x.repeat_interleave(2, dim=1).shape == (4, 10, 6)
    counts = tc.ones(5, dtype=tc.int64, device="meta")
    assert x.repeat_interleave(counts, dim=1, output_size=9).shape == (4, 9, 6)
    assert tc.histc(x, bins=7).shape == (7,)


def test_printing_shows_the_size_not_values() -> None:
    assert repr(tc.empty(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(tc.empty((), dtype=tc.int64, device="meta")) == (
        "tensor(..., device='meta', size=(), dtype=tensorcore.int64)"
    )
    w = tc.nn.Parameter(tc.empty(4, device="meta"))
    assert repr(w * 2) == "tensor(..., device='meta', size=(4,), grad_fn=<MulBackward0>)"


def test_deepcopy_copies_metadata_and_pickling_refuses() -> None:
    x = tc.empty(3, 4, device="meta").t()
    y = copy.deepcopy(x)
    assert (y.device.type, y.shape, y.stride()) == ("meta", x.shape, x.stride())
    assert y.untyped_storage() is not x.untyped_storage()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        pickle.dumps(x)


def test_explain_names_the_meta_kernels() -> None:
    x = tc.empty(2, device="meta")
    assert tc.explain("add", x, x) == "add[meta, strided] -> kernel 'add' from plugin 'meta'"
    assert "from plugin 'meta'" in tc.explain("nonzero", x)
    assert "from plugin 'views'" in tc.explain("t", x)


def test_python_m_tensorcore_lists_the_device() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tensorcore"], capture_output=True, text=True, check=True
    ).stdout
    assert any(line.split()[:2] == ["meta", "tensorcore-meta"] for line in out.splitlines())
    assert any(line.split()[:3] == ["meta", "available", "1"] for line in out.splitlines())


def test_the_plugin_declares_the_spi() -> None:
    from tensorcore_meta import plugin

    from tensorcore.plugins.hookspecs import SPI_VERSION, spi_compatible

    assert spi_compatible(plugin.TENSORCORE_SPI) == SPI_VERSION


#: The modules a backend may import from tensorcore: the public SPI and facade.
PUBLIC = {"tensorcore", "tensorcore.backend", "tensorcore.plugins"}


def test_the_backend_uses_only_the_public_spi() -> None:
    """No import of a tensorcore module other than the public ones, no private name imported,
    and no private attribute read (``t._shape``) anywhere in the package."""
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                mod = node.module or ""
                if mod.split(".")[0] == "tensorcore":
                    assert mod in PUBLIC, f"{path.name}:{node.lineno} imports {mod}"
                    for alias in node.names:
                        assert not alias.name.startswith("_"), f"{path.name}:{node.lineno}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "tensorcore":
                        assert alias.name in PUBLIC, f"{path.name}:{node.lineno}"
            elif isinstance(node, ast.Attribute):
                name = node.attr
                private = name.startswith("_") and not name.startswith("__")
                assert not private, f"{path.name}:{node.lineno} reads .{name}"
