"""Serialisation: pickle, copy.copy, copy.deepcopy and tensorcore.save/load round-trip every
kind of tensor with PyTorch's semantics; save/load interoperates with other safetensors
writers and readers (NumPy's stands in for PyTorch's) and rejects bad files clearly."""

from __future__ import annotations

import copy
import io
import itertools
import json
import math
import multiprocessing
import operator
import os
import pickle
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import safetensors
import safetensors.numpy

import tensorcore as tc
from tensorcore._pickling import _rebuild_storage
from tensorcore._storage import Storage
from tensorcore.plugins import DeviceInterface
from tensorcore.plugins.manager import device_backend

TESTS_DIR = os.path.dirname(__file__)

_NP = {
    tc.bool: np.bool_,
    tc.uint8: np.uint8,
    tc.int8: np.int8,
    tc.int16: np.int16,
    tc.int32: np.int32,
    tc.int64: np.int64,
    tc.float16: np.float16,
    tc.bfloat16: ml_dtypes.bfloat16,
    tc.float32: np.float32,
    tc.float64: np.float64,
    tc.complex64: np.complex64,
    tc.complex128: np.complex128,
}
DTYPES = list(_NP)


def _oracle(dtype: tc.dtype, shape: tuple[int, ...]) -> Any:
    """Distinct, exactly representable values of ``dtype`` (negative ones where it has
    them, a NaN for floating dtypes)."""
    n = math.prod(shape)
    a = np.arange(n, dtype=np.float64) - (n // 2 if dtype.is_signed else 0)
    if dtype is tc.bool:
        return (np.arange(n) % 2 == 0).reshape(shape)
    if dtype.is_complex:
        a = a + 1j * (2 * a + 1)
    elif dtype.is_floating_point and n > 1:
        a[1] = np.nan
    return a.astype(_NP[dtype]).reshape(shape)


# (tensor view, the same view of a NumPy array), from a base of the given shape.
KINDS: dict[str, tuple[tuple[int, ...], Callable[[Any], Any], Callable[[Any], Any]]] = {
    "contiguous": ((2, 3), lambda t: t, lambda a: a),
    "0-d": ((), lambda t: t, lambda a: a),
    "empty": ((0, 3), lambda t: t, lambda a: a),
    "transposed": ((3, 4), lambda t: t.t(), lambda a: a.T),
    "sliced": ((4, 6), lambda t: t[1:, ::2], lambda a: a[1:, ::2]),
    "expanded": ((1, 3), lambda t: t.expand(4, 3), lambda a: np.broadcast_to(a, (4, 3))),
    "offset": ((10,), lambda t: t[3:7], lambda a: a[3:7]),
}


def _via_pickle(x: Any) -> Any:
    return pickle.loads(pickle.dumps(x))


def _via_save(x: Any) -> Any:
    buf = io.BytesIO()
    tc.save(x, buf)
    buf.seek(0)
    return tc.load(buf)


MECHANISMS: dict[str, Callable[[Any], Any]] = {
    "pickle": _via_pickle,
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "save": _via_save,
}


def _table() -> list[Any]:
    out = []
    for mech in MECHANISMS:
        for kind in KINDS:
            for dt in DTYPES:
                for rg in (False, True) if dt.is_floating_point or dt.is_complex else (False,):
                    rid = f"{mech}-{kind}-{dt.name}" + ("-requires_grad" if rg else "")
                    out.append(pytest.param(mech, kind, dt, rg, id=rid))
    return out


def _host(t: tc.Tensor) -> Any:
    return t.detach().cpu().numpy()


def _same(a: Any, b: Any) -> None:
    """Equal dtype, shape and bits (NaN included, which assert_array_equal misses for
    bfloat16)."""
    assert (a.dtype, a.shape) == (b.dtype, b.shape)
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def _on(device: str, a: Any) -> tc.Tensor:
    """``a`` as a tensor on ``device``; skips where the device lacks the dtype (CuPy has no
    bfloat16)."""
    try:
        return tc.from_numpy(a.copy()).to(device)
    except TypeError as exc:
        pytest.skip(str(exc))


def _make(kind: str, dt: tc.dtype, device: str) -> tuple[tc.Tensor, Any]:
    shape, view, np_view = KINDS[kind]
    base = _oracle(dt, shape)
    return view(_on(device, base)), np_view(base)


# ------------------------------------------------------------------ the round-trip table
@pytest.mark.parametrize(("mech", "kind", "dt", "requires_grad"), _table())
def test_round_trip(mech: str, kind: str, dt: tc.dtype, requires_grad: bool, device: str) -> None:
    t, ref = _make(kind, dt, device)
    if requires_grad:
        t.requires_grad_()
    out = MECHANISMS[mech](t)
    assert (out.dtype, out.shape, out.device) == (t.dtype, t.shape, t.device)
    assert out.layout is tc.strided
    assert (out.requires_grad, out.is_leaf, out.grad) == (requires_grad, True, None)
    assert out.stride() == t.stride()
    _same(_host(out), ref)
    if mech == "copy":  # PyTorch's copy.copy: a new tensor over the same storage
        assert out is not t and out.untyped_storage() is t.untyped_storage()
        assert out.storage_offset() == t.storage_offset()
        return
    assert out.untyped_storage() is not t.untyped_storage()
    if mech != "save":  # the whole storage, as PyTorch does (save keeps what is viewed)
        assert out.storage_offset() == t.storage_offset()
        assert out.untyped_storage().nbytes == t.untyped_storage().nbytes


SPARSE_DTYPES = [tc.float32, tc.bfloat16, tc.complex128, tc.int64, tc.bool]


def _sparse_table() -> list[Any]:
    out = []
    for mech in MECHANISMS:
        for dt in SPARSE_DTYPES:
            for coalesced in (False, True):
                for hybrid in (False, True):
                    rgs = (False, True) if dt.is_floating_point or dt.is_complex else (False,)
                    for rg in rgs:
                        rid = (
                            f"{mech}-{dt.name}-{'coalesced' if coalesced else 'uncoalesced'}"
                            f"{'-hybrid' if hybrid else ''}{'-requires_grad' if rg else ''}"
                        )
                        out.append(pytest.param(mech, dt, coalesced, hybrid, rg, id=rid))
    return out


@pytest.mark.sparse
@pytest.mark.parametrize(("mech", "dt", "coalesced", "hybrid", "requires_grad"), _sparse_table())
def test_sparse_round_trip(
    mech: str, dt: tc.dtype, coalesced: bool, hybrid: bool, requires_grad: bool, device: str
) -> None:
    idx = np.array([[1, 0, 1, 2], [2, 0, 2, 1]])  # (1, 2) twice: uncoalesced
    vals = _oracle(dt, (4, 2) if hybrid else (4,))
    shape = (3, 3, 2) if hybrid else (3, 3)
    s = tc.sparse_coo_tensor(idx, _on(device, vals), shape)
    if coalesced:
        s = s.coalesce()
    if requires_grad:
        s.requires_grad_()
    out = MECHANISMS[mech](s)
    assert (out.layout, out.dtype, out.shape, out.device) == (s.layout, dt, s.shape, s.device)
    assert (out.requires_grad, out.is_leaf, out.is_coalesced()) == (requires_grad, True, coalesced)
    _same(_host(out.to_dense()), _host(s.to_dense()))
    _same(_host(out._indices()), _host(s._indices()))
    shared = out._values().untyped_storage() is s._values().untyped_storage()
    assert shared == (mech == "copy")


# ------------------------------------------------------------------ sharing and identity
@pytest.mark.parametrize("mech", ["pickle", "deepcopy", "save"])
def test_views_of_one_storage_stay_views_of_one_storage(mech: str, device: str) -> None:
    x = tc.arange(12.0, device=device).reshape(3, 4)
    objs = [x, x.t(), x[1], x[:, ::2], x.expand(2, 3, 4)]
    out = MECHANISMS[mech](objs)
    for a, b in zip(out, objs, strict=True):
        assert a.stride() == b.stride()
        np.testing.assert_array_equal(_host(a), _host(b))
    assert all(o.untyped_storage() is out[0].untyped_storage() for o in out)
    out[0][1, 2] = -1.0
    assert out[1][2, 1].item() == out[2][2].item() == out[3][1, 1].item() == -1.0
    assert x[1, 2].item() == 6.0  # the original is untouched


@pytest.mark.parametrize("mech", ["pickle", "deepcopy", "save"])
def test_real_and_imag_views_of_a_complex_tensor_stay_views(mech: str, device: str) -> None:
    z = tc.tensor([1 + 2j, 3 + 4j, 5 + 6j], device=device)
    out = MECHANISMS[mech]({"imag": z.imag, "z": z, "real": z.real})
    assert (out["imag"].dtype, out["imag"].stride()) == (tc.float32, (2,))
    assert out["imag"].untyped_storage() is out["z"].untyped_storage()
    out["z"][0] = 9 + 8j
    assert out["real"].tolist() == [9.0, 3.0, 5.0] and out["imag"].tolist() == [8.0, 4.0, 6.0]


def test_deepcopy_shares_a_storage_through_its_memo(device: str) -> None:
    x = tc.arange(6.0, device=device)
    memo: dict[int, Any] = {}
    a, b = copy.deepcopy(x, memo), copy.deepcopy(x[2:], memo)
    assert b.untyped_storage() is a.untyped_storage() and b.storage_offset() == 2
    assert copy.deepcopy(x, memo) is a


def test_save_keeps_tensor_identity_and_sharing_of_sparse_parts() -> None:
    w = tc.ones(2, 2)
    s = tc.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,))
    out = _via_save({"a": w, "tied": w, "s": s, "vals": s._values()})
    assert out["tied"] is out["a"]
    assert out["vals"].untyped_storage() is out["s"]._values().untyped_storage()


# ------------------------------------------------------------------ autograd semantics
@pytest.mark.parametrize("mech", ["pickle", "copy", "save"])
def test_a_non_leaf_comes_back_as_a_leaf_that_requires_grad(mech: str) -> None:
    y = tc.ones(3, requires_grad=True) * 2
    out = MECHANISMS[mech](y)
    assert (out.requires_grad, out.is_leaf, out.grad_fn) == (True, True, None)
    assert out.tolist() == [2.0, 2.0, 2.0]


def test_deepcopy_refuses_a_non_leaf_as_pytorch_does() -> None:
    y = tc.ones(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"graph leaves\) support the deepcopy protocol"):
        copy.deepcopy(y)


@pytest.mark.parametrize("mech", list(MECHANISMS))
def test_grad_is_kept_by_deepcopy_only(mech: str) -> None:
    x = tc.ones(3, requires_grad=True)
    (x * tc.tensor([1.0, 2.0, 3.0])).sum().backward()
    out = MECHANISMS[mech](x)
    if mech != "deepcopy":
        assert out.grad is None
        return
    assert out.grad.tolist() == [1.0, 2.0, 3.0]
    assert out.grad.untyped_storage() is not x.grad.untyped_storage()


# ------------------------------------------------------------------ the backend contract
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: d.name)
def test_default_storage_bytes_match_the_cpu_backend(dt: tc.dtype) -> None:
    # The DeviceInterface defaults (tolist + struct, from_data) against NumPy's bytes.
    cpu = device_backend(tc.device("cpu"))
    a = _oracle(dt, (7,))
    if dt.is_floating_point:
        a[2:5] = np.array([-0.0, np.inf, -np.inf]).astype(_NP[dt])
    st = tc.from_numpy(a).untyped_storage()
    raw = DeviceInterface.storage_to_bytes(cpu, st)
    assert raw == cpu.storage_to_bytes(st) == a.tobytes()
    back = DeviceInterface.storage_from_bytes(cpu, raw, dt, tc.device("cpu"))
    assert (back.dtype, back.nbytes, back.data.tobytes()) == (dt, st.nbytes, raw)
    assert DeviceInterface.clone_storage(cpu, st).data.tobytes() == raw


def test_a_third_party_device_round_trips_through_the_defaults(run_py: Any) -> None:
    code = """
        import copy, io, pickle
        import tensorcore as tc
        from toy_backend import ToyPlugin

        tc.backends.register(ToyPlugin("toydev"), name="toydev")
        x = tc.tensor([[1.0, 2.0], [3.0, 4.0]], device="toydev")
        a, b = pickle.loads(pickle.dumps([x, x.t()]))
        assert b.untyped_storage() is a.untyped_storage(), "views not kept"
        assert (b.device.type, b.tolist()) == ("toydev", [[1.0, 3.0], [2.0, 4.0]])
        d = copy.deepcopy(x)
        assert d.untyped_storage() is not x.untyped_storage() and d.tolist() == x.tolist()
        buf = io.BytesIO()
        tc.save({"x": x, "xt": x.t()}, buf)
        buf.seek(0)
        state = tc.load(buf)
        assert state["xt"].device.type == "toydev" and state["xt"].tolist() == b.tolist()
        buf.seek(0)
        state = tc.load(buf, map_location={"toydev": "cpu"})
        assert state["x"].device.type == "cpu" and state["x"].tolist() == x.tolist()
        print("ok")
    """
    assert run_py(code, env={"PYTHONPATH": TESTS_DIR}).stdout == "ok\n"


class _ForeignStorage:
    """Pickles as a storage of device ``xpu:0`` would on a machine that had one."""

    def __reduce__(self) -> Any:
        return (_rebuild_storage, (tc.device("xpu", 0), tc.float32, b"\0" * 8))


def test_unpickling_onto_a_missing_device_names_it_and_what_to_install() -> None:
    with pytest.raises(RuntimeError) as info:
        pickle.loads(pickle.dumps(_ForeignStorage()))
    msg = str(info.value)
    assert "cannot unpickle a storage of device 'xpu:0'" in msg
    assert "install a backend package that provides 'xpu'" in msg


def test_a_missing_layout_names_the_package_to_install(run_py: Any) -> None:
    s = tc.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,))
    buf = io.BytesIO()
    tc.save(s, buf)
    code = f"""
        import io, pickle
        import tensorcore as tc

        for load in (lambda: pickle.loads({pickle.dumps(s)!r}),
                     lambda: tc.load(io.BytesIO({buf.getvalue()!r}))):
            try:
                load()
            except RuntimeError as exc:
                print(exc)
    """
    out = run_py(code, env={"TENSORCORE_BACKENDS": "cpu"}).stdout.splitlines()
    assert len(out) == 2, out
    hint = "no installed backend provides the layout 'sparse_coo': install the backend "
    assert all(hint + "package 'tensorcore-sparse'" in line for line in out), out
    assert "tensorcore.load(): the BytesIO given holds a sparse_coo tensor" in out[1]


def _echo(x: Any) -> Any:
    return x


def test_tensors_travel_to_a_spawned_worker_and_back() -> None:
    x = tc.arange(6.0).reshape(2, 3).requires_grad_()
    s = tc.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        neg = pool.apply_async(operator.neg, (x.detach().t(),)).get(timeout=120)
        a, b, t = pool.apply_async(copy.copy, ([x, x[1], s],)).get(timeout=120)
    assert neg.tolist() == [[-0.0, -3.0], [-1.0, -4.0], [-2.0, -5.0]]
    assert b.untyped_storage() is a.untyped_storage() and a.requires_grad
    assert t.to_dense().tolist() == [1.0, 0.0, 2.0]


# ------------------------------------------------------------------ tc.save / tc.load
def _header(raw: bytes) -> tuple[int, dict[str, Any]]:
    n = int.from_bytes(raw[:8], "little")
    return n, json.loads(raw[8 : 8 + n])


def _spec_code(dt: tc.dtype) -> str:
    """The safetensors dtype code the format specifies: a kind letter and a bit width;
    complex128, which safetensors lacks, is stored as F64 pairs."""
    if dt.name in ("bool", "bfloat16", "complex128"):
        return {"bool": "BOOL", "bfloat16": "BF16", "complex128": "F64"}[dt.name]
    kind = "C" if dt.is_complex else "F" if dt.is_floating_point else "I" if dt.is_signed else "U"
    return f"{kind}{8 * dt.itemsize}"


def test_a_flat_dict_is_a_plain_safetensors_file() -> None:
    arrays = {f"layer.{dt.name}": _oracle(dt, (2, 3)) for dt in DTYPES}
    arrays["scalar"] = np.array(2.5, dtype=np.float32)
    arrays["empty"] = np.zeros((0, 4), dtype=np.int32)
    state = {k: tc.from_numpy(v.copy()) for k, v in arrays.items()}
    state["transposed"] = tc.from_numpy(_oracle(tc.float32, (3, 2)).copy()).t()
    arrays["transposed"] = _oracle(tc.float32, (3, 2)).T
    buf = io.BytesIO()
    tc.save(state, buf)
    raw = buf.getvalue()
    # The safetensors format: an 8-byte little-endian header length, a JSON header
    # (space-padded), then each entry's row-major little-endian bytes at its offsets,
    # covering the data exactly.
    n, header = _header(raw)
    assert n % 8 == 0 and raw[8 : 8 + n].decode().rstrip(" ").endswith("}")
    meta = header.pop("__metadata__")
    assert all(isinstance(v, str) for v in meta.values())
    assert set(header) == set(arrays)
    spans = sorted(tuple(e["data_offsets"]) for e in header.values())
    assert spans[0][0] == 0 and spans[-1][1] == len(raw) - 8 - n
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
    data = raw[8 + n :]
    for key, a in arrays.items():
        e = header[key]
        t = state[key]
        assert e["dtype"] == _spec_code(t.dtype), key
        want = np.ascontiguousarray(a)
        if t.dtype is tc.complex128:
            assert e["shape"] == [*a.shape, 2]
        else:
            assert e["shape"] == list(a.shape)
        begin, end = e["data_offsets"]
        assert data[begin:end] == want.tobytes(), key
    # A reader without tensorcore (NumPy's, standing in for PyTorch's, which has no
    # bfloat16) sees the same.
    no_bf16 = {k: v for k, v in state.items() if v.dtype is not tc.bfloat16}
    buf = io.BytesIO()
    tc.save(no_bf16, buf)
    loaded = safetensors.numpy.load(buf.getvalue())
    for key, t in no_bf16.items():
        want = arrays[key]
        if t.dtype is tc.complex128:
            want = want.view(np.float64).reshape(*want.shape, 2)
        assert loaded[key].dtype == want.dtype and loaded[key].shape == want.shape, key
        np.testing.assert_array_equal(loaded[key], want)


def test_a_plain_safetensors_file_loads_as_a_dict_of_tensors(tmp_path: Path) -> None:
    arrays = {
        "w": np.arange(6, dtype=np.float32).reshape(2, 3),
        "b16": np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16),
        "c": np.array([1 + 2j], dtype=np.complex64),
        "flag": np.array([True, False]),
        "i8": np.array(-3, dtype=np.int8),
        "empty": np.zeros((0, 2), dtype=np.float64),
    }
    path = tmp_path / "numpy.safetensors"
    safetensors.numpy.save_file(arrays, path, metadata={"format": "np"})
    out = tc.load(path)
    header = _header(path.read_bytes())[1]
    assert list(out) == [k for k in header if k != "__metadata__"]  # in the header's order
    assert set(out) == set(arrays)
    for key, a in arrays.items():
        assert (out[key].device, out[key].requires_grad) == (tc.device("cpu"), False)
        assert out[key].dtype is tc.from_numpy(a).dtype
        np.testing.assert_array_equal(out[key].numpy(), a)


def test_a_checkpoint_round_trips_with_its_structure() -> None:
    w = tc.randn(4, 3).requires_grad_()
    state = {
        "model": OrderedDict([("linear.weight", w), ("linear.bias", tc.zeros(4))]),
        "optimizer": {
            "state": {0: {"step": tc.tensor(10.0), "exp_avg": tc.zeros(4, 3)}, 1: {}},
            "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0, 1]}],
        },
        "misc": [None, True, -(2**70), 1.5, math.inf, -math.inf, "é\n", 1 - 2j],
        "nan": math.nan,
        "types": (tc.float16, tc.device("cpu"), tc.Size([2, 3])),
        "keys": {None: 1, 2.5: 2, False: 3, "x": 4},
    }
    out = _via_save(state)
    assert type(out["model"]) is OrderedDict and list(out["model"]) == list(state["model"])
    assert out["model"]["linear.weight"].requires_grad
    np.testing.assert_array_equal(out["model"]["linear.weight"].detach().numpy(), _host(w))
    assert list(out["optimizer"]["state"]) == [0, 1]  # int keys stay ints
    assert out["optimizer"]["param_groups"] == state["optimizer"]["param_groups"]
    assert out["misc"] == state["misc"]
    assert [type(v) for v in out["misc"]] == [type(v) for v in state["misc"]]
    assert math.isnan(out["nan"])
    assert out["types"] == state["types"] and type(out["types"][2]) is tc.Size
    assert out["keys"] == state["keys"] and [type(k) for k in out["keys"]] == [
        type(k) for k in state["keys"]
    ]


def test_tensors_whose_elements_repeat_are_saved_once() -> None:
    big = tc.ones(1).expand(10**7)
    buf = io.BytesIO()
    tc.save({"big": big}, buf)
    assert len(buf.getvalue()) < 2000
    buf.seek(0)
    out = tc.load(buf)["big"]
    assert out.shape == (10**7,) and out.stride() == (0,) and out[123].item() == 1.0


def test_paths_and_file_objects(tmp_path: Path) -> None:
    x = {"x": tc.arange(3)}
    for target in (str(tmp_path / "a.safetensors"), tmp_path / "b.safetensors"):
        tc.save(x, target)
        assert tc.load(target)["x"].tolist() == [0, 1, 2]
    with open(tmp_path / "c.safetensors", "wb") as f:
        tc.save(x, f)
    with open(tmp_path / "c.safetensors", "rb") as f:
        assert tc.load(f)["x"].tolist() == [0, 1, 2]
    with (
        open(tmp_path / "c.safetensors", encoding="latin-1") as f,
        pytest.raises(TypeError, match="open the file in binary mode"),
    ):
        tc.load(f)
    with (
        open(tmp_path / "d.safetensors", "w") as f,
        pytest.raises(TypeError, match=r"save\(\): f is a text file: open it in binary mode"),
    ):
        tc.save(x, f)
    with pytest.raises(TypeError, match=r"save\(\): f must be a path or a binary file"):
        tc.save(x, 42)
    with pytest.raises(TypeError, match=r"load\(\): f must be a path or a binary file"):
        tc.load(42)


def test_map_location() -> None:
    buf = io.BytesIO()
    tc.save({"a": tc.ones(2), "b": tc.ones(2)[:1]}, buf)
    raw = buf.getvalue()
    cpu = tc.device("cpu")
    for where in (None, "cpu", cpu, {"cpu": "cpu"}, {"cuda:3": "xpu"}):
        assert tc.load(io.BytesIO(raw), map_location=where)["a"].device == cpu
    seen = []

    def keep(storage: Storage, location: str) -> Storage:
        seen.append((storage.device, location))
        return storage

    assert tc.load(io.BytesIO(raw), map_location=keep)["b"].tolist() == [1.0]
    assert seen == [(cpu, "cpu")] * 2
    for fn in (lambda s, loc: None, lambda s, loc: "cpu"):
        assert tc.load(io.BytesIO(raw), map_location=fn)["a"].device == cpu
    with pytest.raises(TypeError, match="must return a Storage, a device or None"):
        tc.load(io.BytesIO(raw), map_location=lambda s, loc: 3)
    with pytest.raises(TypeError, match="map_location must be None, a device"):
        tc.load(io.BytesIO(raw), map_location=3)
    with pytest.raises(RuntimeError) as info:
        tc.load(io.BytesIO(raw), map_location="xpu")
    msg = str(info.value)
    assert "cannot be loaded onto 'xpu'" in msg and "provides 'xpu'" in msg
    assert "map_location" in msg


def _rewrite(raw: bytes, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """``raw`` with its header edited (the data stays where it is)."""
    n, header = _header(raw)
    edit(header)
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + raw[8 + n :]


def _meta(key: str, edit: Callable[[Any], Any]) -> Callable[[dict[str, Any]], None]:
    def apply(header: dict[str, Any]) -> None:
        meta = header["__metadata__"]
        meta[key] = json.dumps(edit(json.loads(meta[key])))

    return apply


def _set(obj: Any, **changes: Any) -> Any:
    obj.update(changes)
    return obj


def test_a_tensor_saved_on_a_missing_device_says_to_use_map_location(tmp_path: Path) -> None:
    buf = io.BytesIO()
    tc.save({"a": tc.ones(2)}, buf)
    raw = _rewrite(
        buf.getvalue(),
        _meta("tensorcore.tensors", lambda recs: [_set(recs[0], device="xpu:0")]),
    )
    path = tmp_path / "xpu.safetensors"
    path.write_bytes(raw)
    with pytest.raises(RuntimeError) as info:
        tc.load(path)
    msg = str(info.value)
    assert repr(str(path)) in msg and "saved on 'xpu:0'" in msg and "map_location=" in msg
    assert tc.load(path, map_location="cpu")["a"].tolist() == [1.0, 1.0]


class _Opaque:
    pass


@pytest.mark.parametrize(
    ("obj", "message", "unsupported"),
    [
        ({"opt": [{"fn": _Opaque()}]}, "_Opaque' at obj['opt'][0]['fn']", "_Opaque"),
        ([np.float64(1.0)], "type 'numpy.float64' at obj[0]", "numpy"),
        ({"x": tc.ones(1).numpy()}, "type 'numpy.ndarray' at obj['x']", "numpy"),
    ],
    ids=["object", "numpy-scalar", "ndarray"],
)
def test_what_json_cannot_describe_is_pickled_and_named_when_refused(
    obj: Any, message: str, unsupported: str
) -> None:
    data = _saved(obj)
    with pytest.raises(pickle.UnpicklingError) as info:
        tc.load(io.BytesIO(data))  # weights_only=True: allowlisted globals only
    msg = str(info.value)
    assert msg.startswith("Weights only load failed. the BytesIO given holds pickled") and (
        message.removeprefix("type ") in msg
    ), msg
    assert "`weights_only` set to `False`" in msg and "trusted source" in msg
    assert "WeightsUnpickler error: Unsupported global: GLOBAL " in msg and unsupported in msg
    back = tc.load(io.BytesIO(data), weights_only=False)
    assert type(back) is type(obj) and len(back) == len(obj)


@pytest.mark.parametrize("obj", [{"a": {1, 2}}, {(1, 2): tc.ones(1)}], ids=["set", "tuple-key"])
def test_what_json_cannot_describe_but_pytorch_allows_loads_weights_only(obj: Any) -> None:
    data = _saved(obj)
    n = int.from_bytes(data[:8], "little")
    assert json.loads(data[8 : 8 + n])["__metadata__"]["tensorcore.format"] == "2"
    back = tc.load(io.BytesIO(data))  # pickled, but of allowlisted globals only
    assert type(back) is type(obj) and list(back) == list(obj)


def test_containers_that_contain_themselves_or_nest_deep_are_pickled() -> None:
    loop: list[Any] = [tc.ones(1)]
    loop.append(loop)
    back = tc.load(io.BytesIO(_saved(loop)))  # (lists only: weights_only allows them)
    assert back[1] is back and back[0].tolist() == [1.0]
    deep: Any = [tc.zeros(1)]
    for _ in range(200):
        deep = [deep]
    data = _saved(deep)
    n = int.from_bytes(data[:8], "little")
    meta = json.loads(data[8 : 8 + n])["__metadata__"]
    assert "nested deeper than 100 levels, at obj" in meta["tensorcore.pickled"]
    back = tc.load(io.BytesIO(data))
    for _ in range(200):
        back = back[0]
    assert back[0].tolist() == [0.0]


def _saved(obj: Any) -> bytes:
    buf = io.BytesIO()
    tc.save(obj, buf)
    return buf.getvalue()


def _plain(**arrays: Any) -> bytes:
    return safetensors.numpy.save(arrays)  # type: ignore[no-any-return]


def _entry(key: str, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda header: header[key].update(changes)


_X = {"x": tc.arange(4.0)}
_VIEWS = {"x": tc.arange(4.0), "v": None}
_VIEWS["v"] = _VIEWS["x"][1:]
_SPARSE = {"s": tc.sparse_coo_tensor([[0, 2]], [1.0, 2.0], (3,)).coalesce()}
_HEADER = _header(_saved(_X))[0]

# (how the file is damaged, a fragment of the message)
CORRUPT: dict[str, tuple[Callable[[], bytes], str]] = {
    "empty": (lambda: b"", "is not a valid safetensors file: Error while deserializing"),
    "truncated": (lambda: _saved(_X)[:-3], "not fully covered"),
    "header-beyond-the-file": (
        lambda: (_HEADER + 9999).to_bytes(8, "little") + _saved(_X)[8:],
        "is not a valid safetensors file",
    ),
    "huge-header-length": (
        lambda: (2**62).to_bytes(8, "little") + _saved(_X)[8:],
        "header too large",
    ),
    "header-not-json": (
        lambda: _saved(_X)[:8] + b"{" * _HEADER + _saved(_X)[8 + _HEADER :],
        "invalid JSON in header",
    ),
    "offsets-lie": (
        lambda: _rewrite(_saved(_X), _entry("x", data_offsets=[0, 2**40])),
        "invalid shape, data type, or offset",
    ),
    "huge-shape": (
        lambda: _rewrite(_saved(_X), _entry("x", shape=[2**40])),
        "invalid shape, data type, or offset",
    ),
    "unknown-safetensors-dtype": (
        lambda: _rewrite(_saved(_X), _entry("x", dtype="Q9")),
        "unknown variant `Q9`",
    ),
    "dtype-tensorcore-lacks": (
        lambda: _plain(x=np.zeros(2, np.uint16)),
        "cannot be loaded: tensor 'x' has dtype U16",
    ),
    "torch-pickle-checkpoint": (
        lambda: b"PK\x03\x04" + b"\0" * 64,
        "tensorcore does not unpickle checkpoints",
    ),
    "newer-format": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.format", lambda v: 99)),
        "written in tensorcore format '99'",
    ),
    "metadata-missing-a-key": (
        lambda: _rewrite(_saved(_X), lambda h: h["__metadata__"].pop("tensorcore.tensors")),
        "its metadata lacks 'tensorcore.tensors'",
    ),
    "metadata-not-json": (
        lambda: _rewrite(
            _saved(_X), lambda h: h["__metadata__"].update({"tensorcore.object": "{"})
        ),
        "metadata 'tensorcore.object' is not valid JSON",
    ),
    "object-nested-without-end": (
        lambda: _rewrite(
            _saved(_X),
            lambda h: h["__metadata__"].update({"tensorcore.object": "[" * 100000}),
        ),
        "metadata 'tensorcore.object' is not valid JSON",
    ),
    "object-nested-too-deep": (
        lambda: _rewrite(
            _saved(_X),
            _meta("tensorcore.object", lambda o: json.loads('{"list":[' * 150 + "]}" * 150)),
        ),
        "nests deeper than 100 containers",
    ),
    "unknown-object-kind": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.object", lambda o: {"pickle": "gASV"})),
        "unknown object kind 'pickle'",
    ),
    "dict-not-pairs": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.object", lambda o: {"dict": [[1]]})),
        "does not hold [key, value] pairs",
    ),
    "tensor-reference-out-of-range": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.object", lambda o: {"tensor": 7})),
        "references tensor 7, but it describes 1 tensors",
    ),
    "records-not-a-list": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.tensors", lambda r: {"0": r[0]})),
        "must be JSON lists",
    ),
    "record-references-missing-data": (
        lambda: _rewrite(_saved(_X), _meta("tensorcore.tensors", lambda r: [_set(r[0], key="y")])),
        "references tensor data 'y' that it lacks",
    ),
    "record-unknown-dtype": (
        lambda: _rewrite(
            _saved(_X), _meta("tensorcore.tensors", lambda r: [_set(r[0], dtype="float128")])
        ),
        "unknown dtype 'float128'",
    ),
    "record-disagrees-with-the-data": (
        lambda: _rewrite(
            _saved(_X), _meta("tensorcore.tensors", lambda r: [_set(r[0], dtype="int32")])
        ),
        "entry 'x' is F32 [4], but its metadata describes I32 [4]",
    ),
    "negative-shape": (
        lambda: _rewrite(
            _saved(_X), _meta("tensorcore.tensors", lambda r: [_set(r[0], shape=[-4])])
        ),
        "tensor 0's shape has a negative entry",
    ),
    "shape-of-2**64-elements": (
        lambda: _rewrite(
            _saved(_VIEWS),
            _meta("tensorcore.tensors", lambda r: [_set(r[0], shape=[2**32, 2**32]), r[1]]),
        ),
        "has more than 2**63 - 1 elements",
    ),
    "view-past-its-storage": (
        lambda: _rewrite(
            _saved(_VIEWS), _meta("tensorcore.tensors", lambda r: [r[0], _set(r[1], offset=2)])
        ),
        "reaches past the end of its storage of 16 bytes",
    ),
    "view-of-a-missing-storage": (
        lambda: _rewrite(
            _saved(_VIEWS), _meta("tensorcore.tensors", lambda r: [r[0], _set(r[1], storage=5)])
        ),
        "references storage 5, which it does not describe",
    ),
    "integer-tensor-requiring-grad": (
        lambda: _rewrite(
            _saved({"i": tc.arange(3)}),
            _meta("tensorcore.tensors", lambda r: [_set(r[0], requires_grad=True)]),
        ),
        "only Tensors of floating point and complex dtype can require gradients",
    ),
    "sparse-index-out-of-range": (
        lambda: _rewrite(
            _saved(_SPARSE),
            _meta("tensorcore.tensors", lambda r: [_set(r[0], shape=[2]), *r[1:]]),
        ),
        "size is inconsistent with indices",
    ),
    "sparse-falsely-coalesced": (
        lambda: _rewrite(
            _saved({"s": tc.sparse_coo_tensor([[2, 0]], [1.0, 2.0], (3,))}),
            _meta("tensorcore.tensors", lambda r: [_set(r[0], attrs={"coalesced": True}), *r[1:]]),
        ),
        "said to be coalesced has unsorted or repeated indices",
    ),
    "sparse-part-of-another-layout": (
        lambda: _rewrite(
            _saved(_SPARSE),
            _meta(
                "tensorcore.tensors",
                lambda r: [_set(r[0], parts={"indices": 0, "values": 2}), *r[1:]],
            ),
        ),
        "tensor 0's part 'indices' is not a strided tensor",
    ),
}


@pytest.mark.parametrize("case", list(CORRUPT))
def test_a_bad_file_raises_a_value_error_naming_it(case: str, tmp_path: Path) -> None:
    make, fragment = CORRUPT[case]
    path = tmp_path / f"{case}.safetensors"
    path.write_bytes(make())
    with pytest.raises(ValueError) as info:
        tc.load(path)
    msg = str(info.value)
    assert msg.startswith(f"tensorcore.load(): {str(path)!r} "), msg
    assert fragment in msg, msg


def test_weights_only_false_loads_data_files_too() -> None:
    for weights_only in (False, None, True):
        back = tc.load(io.BytesIO(_saved(_X)), weights_only=weights_only)
        assert back["x"].tolist() == _X["x"].tolist()
    with pytest.raises(TypeError, match="weights_only must be a bool"):
        tc.load(io.BytesIO(_saved(_X)), weights_only="no")
