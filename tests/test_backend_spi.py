"""The backend SPI (``tensorcore.backend``): its version check, its fast constructor against
the plain path, and the helpers backends build on."""

from __future__ import annotations

import types
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import backend
from tensorcore.plugins import hookimpl
from tensorcore.plugins.hookspecs import SPI_VERSION, spi_compatible


def _plugin(name: str, spi: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    if spi is not None:
        mod.TENSORCORE_SPI = spi  # type: ignore[attr-defined]

    @hookimpl
    def tensorcore_register_kernels(register: Any) -> None:
        pass

    mod.tensorcore_register_kernels = tensorcore_register_kernels  # type: ignore[attr-defined]
    return mod


@pytest.mark.parametrize("declared", ["1.0", (1, 0), None])
def test_a_plugin_written_for_this_spi_loads(declared: Any) -> None:
    name = f"spi-ok-{declared!r}"
    assert tc.backends.register(_plugin(name, declared), name=name).status == "loaded"


@pytest.mark.parametrize(
    ("declared", "advice"),
    [("2.0", "upgrade tensorcore"), ("1.9", "upgrade tensorcore"), ("0.3", "written for this")],
)
def test_an_incompatible_plugin_is_refused_naming_both_versions(declared: str, advice: str) -> None:
    name = f"spi-bad-{declared}"
    have = f"{SPI_VERSION[0]}.{SPI_VERSION[1]}"
    with pytest.raises(RuntimeError) as info:
        tc.backends.register(_plugin(name, declared), name=name)
    msg = str(info.value)
    assert f"plugin '{name}' was written for tensorcore backend SPI {declared}" in msg
    assert f"this tensorcore provides SPI {have}" in msg
    assert advice in msg
    assert name not in [p.name for p in tc.backends.list() if p.status == "loaded"]


@pytest.mark.parametrize("declared", ["1", "one.zero", 1.0, (1,), ("1", "x")])
def test_a_malformed_declaration_is_a_type_error(declared: Any) -> None:
    with pytest.raises(TypeError, match="TENSORCORE_SPI must be a version string"):
        spi_compatible(declared)


def test_in_tree_plugins_declare_the_spi() -> None:
    import tensorcore_cpu.plugin
    import tensorcore_cuda.plugin
    import tensorcore_sparse.plugin

    for mod in (tensorcore_cpu.plugin, tensorcore_cuda.plugin, tensorcore_sparse.plugin):
        assert spi_compatible(mod.TENSORCORE_SPI) == SPI_VERSION, mod.__name__


def _slots(t: tc.Tensor) -> dict[str, Any]:
    out = {}
    for cls in type(t).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if slot != "__weakref__":
                out[slot] = getattr(t, slot)
    return out


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (4, 1, 2)])
def test_contiguous_tensor_is_the_plain_constructor(shape: tuple[int, ...]) -> None:
    data = object()
    dev = tc.device("cpu")
    n = 1
    for s in shape:
        n *= s
    fast = backend.contiguous_tensor(data, 4 * n, shape, tc.float32, dev, "native")
    st = backend.Storage(data, 4 * n, dev, tc.float32)
    plain = backend.make_tensor(
        st, shape, backend.contiguous_strides(shape), 0, tc.float32, dev, "native"
    )
    a, b = _slots(fast), _slots(plain)
    assert a.keys() == b.keys()
    for key in a:
        if key == "_storage":
            sa, sb = a[key], b[key]
            assert [getattr(sa, s) for s in type(sa).__slots__ if s != "__weakref__"] == [
                getattr(sb, s) for s in type(sb).__slots__ if s != "__weakref__"
            ]
        else:
            assert a[key] == b[key], key


def test_native_and_from_native_share_memory() -> None:
    x = tc.arange(6.0).reshape(2, 3)
    arr = backend.native(x.t())
    assert arr.shape == (3, 2)
    arr[0, 1] = 100.0  # writes through the storage
    assert x[1, 0].item() == 100.0
    y = backend.from_native(arr, "cpu")
    y[2, 0] = -1.0
    assert x[0, 2].item() == -1.0


def test_from_native_refuses_a_foreign_object() -> None:
    with pytest.raises(TypeError, match=r"the 'cpu' backend does not take a builtins\.list"):
        backend.from_native([1, 2], "cpu")


class _Boxed:
    """A foreign "array" that only the ``boxdev`` test device understands."""

    def __init__(self, values: list[float]) -> None:
        self.values = values


def test_from_object_is_asked_for_its_own_device_type() -> None:
    # ``tc.as_tensor(obj)`` on the default device (cpu) offers ``obj`` to every backend;
    # each is asked for a tensor on a device of its own type, and the core moves the result.
    from toy_backend import ToyDevice, ToyPlugin

    asked: list[Any] = []

    class BoxDevice(ToyDevice):
        def from_object(self, obj: Any, dtype: Any, device: Any, copy: bool) -> Any:
            if not isinstance(obj, _Boxed):
                return None
            asked.append(device)
            return self.from_data(obj.values, (len(obj.values),), dtype or tc.float64, device)

    class BoxPlugin(ToyPlugin):
        @hookimpl
        def tensorcore_register_devices(self, register: Any) -> None:
            register.device(BoxDevice(self.device_type))

    tc.backends.register(BoxPlugin("boxdev"), name="boxdev")
    x = tc.as_tensor(_Boxed([1.0, 2.0]))
    assert x.device == tc.device("cpu") and x.dtype == tc.float64 and x.tolist() == [1.0, 2.0]
    y = tc.tensor(_Boxed([3.0]), dtype=tc.float32)
    assert y.device == tc.device("cpu") and y.dtype == tc.float32 and y.tolist() == [3.0]
    z = tc.as_tensor(_Boxed([4.0]), device="boxdev")
    assert z.device.type == "boxdev" and z.tolist() == [4.0]
    assert [d.type for d in asked] == ["boxdev"] * 3


def test_interface_names_what_to_install() -> None:
    assert backend.interface("cpu").type == "cpu"
    assert backend.interface("cpu").array_module.__name__ == "numpy"
    with pytest.raises(RuntimeError, match="no installed backend provides the device type"):
        backend.interface("nosuchdevice")


def test_generator_for_checks_the_device_type() -> None:
    cpu = tc.device("cpu")
    g = tc.Generator()
    assert backend.generator_for(g, cpu) is g
    assert backend.generator_for(None, cpu) is backend.default_generator("cpu")
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator"):
        backend.generator_for(g, tc.device("cuda"))


def test_errors_name_the_operator_and_the_tensors() -> None:
    exc = backend.unsupported("svd", tc.zeros(2, 3, dtype=tc.float64), 2, why="no LAPACK")
    assert isinstance(exc, NotImplementedError)
    assert str(exc) == (
        "svd: not supported for (float64 tensor of shape [2, 3] on cpu (strided)): no LAPACK"
    )
    assert backend.dtype_name(tc.complex64) == "ComplexFloat"
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got 2"):
        backend.wrap_dim(2, 2)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times"):
        backend.normalize_dims((0, -2), 2)


def test_generic_rule_and_op_parameters_read_the_tables() -> None:
    saves, fn = backend.generic_rule("sin")
    assert saves == ("self",) and callable(fn)
    assert backend.op_parameters("sum") == ("self", "dim", "keepdim", "dtype")


def test_bump_version_is_seen_by_autograd() -> None:
    x = tc.ones(3, requires_grad=True)
    w = tc.ones(3)
    y = (x * w).sum()
    backend.bump_version(w)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_every_public_name_is_documented() -> None:
    for name in backend.__all__:
        obj = getattr(backend, name)
        if callable(obj):
            assert obj.__doc__, name


# ------------------------------------------------------------------ resolved_kernels
def test_resolved_kernels_follows_the_lookup_order_and_sees_runtime_registrations() -> None:
    from toy_backend import ToyPlugin

    before = backend.resolved_kernels("spi_toy")
    # Before any plugin registers the device type, only the wildcard kernels reach it.
    assert before and all(r.device_type == "*" for r in before.values())
    assert "add" not in before
    tc.backends.register(ToyPlugin("spi_toy", kernels=("add",)), name="spi-resolved")
    kernels = backend.resolved_kernels("spi_toy")
    assert kernels["add"].plugin == "spi-resolved"
    assert (kernels["add"].device_type, kernels["add"].layout) == ("spi_toy", "strided")
    # Views come through the core's */strided kernels, composites through */*.
    assert (kernels["transpose"].device_type, kernels["transpose"].plugin) == ("*", "views")
    assert (kernels["t"].device_type, kernels["t"].layout) == ("*", "strided")
    assert (kernels["aminmax"].plugin, kernels["aminmax"].layout) == ("composite", "*")
    assert "mul" not in kernels
    # Every entry is what the dispatcher itself resolves, and only those.
    table = tc.dispatch.ops()
    assert all(table[n].record(("spi_toy", "strided")) is r for n, r in kernels.items())
    assert all(table[n].record(("spi_toy", "strided")) is None for n in table if n not in kernels)


def test_the_spi_imports_without_loading_the_plugins(run_py: Any) -> None:
    """``from tensorcore import backend`` at the top of a plugin module runs while the
    plugins load: it must import the module, not load the plugins (a circular import)."""
    code = """
        import tensorcore
        from tensorcore import backend
        from tensorcore.plugins import manager
        assert not manager._loaded
        assert backend.SPI_VERSION == (1, 3)
        print("OK")
    """
    assert run_py(code).stdout.strip() == "OK"


# ------------------------------------------------------------------ operator facts
def test_op_frontend_says_how_each_operator_calls_its_kernel() -> None:
    """Every operator of the runtime table has one of the five kinds, and a kind whose
    frontend allocates is exactly one whose operator carries a meta function or a shape rule
    of its own (pointwise broadcasting, reduction dims)."""
    from tensorcore.dispatch import ops

    kinds = {name: backend.op_frontend(name) for name in ops()}
    assert set(kinds.values()) == {
        "pointwise",
        "reduction",
        "structured",
        "factory",
        "unstructured",
    }
    assert kinds["mul"] == "pointwise" and kinds["tolist"] == "unstructured"
    for name, kind in kinds.items():
        has_meta = ops()[name].decl.meta_function is not None
        assert has_meta == (kind in ("structured", "factory")), name
    with pytest.raises(ValueError, match="unknown operator 'nosuchop'"):
        backend.op_frontend("nosuchop")


# ------------------------------------------------------------------ communication backends
#: What only a communication backend needs: in the SPI, not in ``tensorcore.distributed``.
COMM_SPI_ONLY = ("AllreducePlan", "Disagreement", "DEFAULT_TIMEOUT", "spin", "timed_out")


def test_the_comm_backend_contract_is_in_the_spi() -> None:
    """A communication backend imports its whole contract from ``tensorcore.backend``: the
    classes it shares with ``tensorcore.distributed`` are the same objects there, and the
    helpers only a backend needs are not in ``tensorcore.distributed`` at all."""
    import tensorcore.distributed as dist

    for name in ("ProcessGroup", "Work", "ReduceOp", "DistBackendError"):
        assert name in backend.__all__ and getattr(backend, name) is getattr(dist, name), name
    for name in COMM_SPI_ONLY:
        assert name in backend.__all__, name
        assert name not in dist.__all__ and not hasattr(dist, name), name
    assert dist.default_pg_timeout == backend.DEFAULT_TIMEOUT
    err = backend.timed_out("all_reduce", backend.DEFAULT_TIMEOUT)
    assert isinstance(err, backend.DistBackendError)
    assert "all_reduce: timed out after 1800 s" in str(err)
    from datetime import timedelta

    with pytest.raises(backend.DistBackendError, match=r"barrier: timed out after 0\.001 s"):
        backend.spin(lambda: False, timedelta(milliseconds=1), "barrier")


def test_distributed_exports_pytorchs_names_only(run_py: Any) -> None:
    """``tensorcore.distributed.__all__`` holds names that ``torch.distributed`` has, and
    nothing a backend author alone needs (checked against PyTorch where it is installed)."""
    import importlib.util

    import tensorcore.distributed as dist

    assert not set(COMM_SPI_ONLY) & set(dist.__all__)
    if importlib.util.find_spec("torch") is None:
        pytest.skip("PyTorch is not installed: tensorcore.distributed not compared with it")
    code = """
        import torch.distributed as td
        import tensorcore.distributed as dist
        print(sorted(n for n in dist.__all__ if not hasattr(td, n)))
    """
    assert run_py(code).stdout.strip().splitlines()[-1] == "[]"
