"""The implementation of :func:`tensorcore.save` and :func:`tensorcore.load`: the safetensors
entries and the metadata records of a file (``docs/serialization.md`` specifies them).

Saving numbers the tensors of the object (:mod:`tensorcore._checkpoint_tree` encodes the rest
of it), then decides for each strided tensor whether it gets an entry of its own or is a view
of a shared storage entry. Loading checks every field it reads before it builds anything, so
that a malformed file raises a ``ValueError`` naming it.
"""

from __future__ import annotations

import ctypes
import io
import json
import math
import os
from typing import TYPE_CHECKING, Any

import safetensors

from . import _checkpoint_objects as objects
from . import _checkpoint_tree as tree
from ._pickling import check_view, layout_codec, new_storage, storage_bytes
from ._storage import Storage
from ._tensor import Tensor, contiguous_strides, make_tensor
from .autograd.grad_mode import no_grad
from .devices import device
from .dtypes import by_name
from .layouts import strided
from .ops.frontends import empty
from .plugins import manager

if TYPE_CHECKING:
    from collections.abc import Callable

    from .dtypes import dtype

__all__ = ["pickle_in", "read", "write"]

FORMAT_VERSION = "1"
_FORMAT, _OBJECT, _TENSORS, _STORAGES = (
    "tensorcore.format",
    "tensorcore.object",
    "tensorcore.tensors",
    "tensorcore.storages",
)
# safetensors' dtype codes. complex128 has none: it is stored as float64 pairs (a trailing
# dim of 2, what PyTorch's view_as_real gives), and tensorcore's metadata says so.
_CODES = {
    "bool": "BOOL",
    "uint8": "U8",
    "int8": "I8",
    "int16": "I16",
    "int32": "I32",
    "int64": "I64",
    "float16": "F16",
    "bfloat16": "BF16",
    "float32": "F32",
    "float64": "F64",
    "complex64": "C64",
    "complex128": "F64",
}
_FROM_CODE = {code: by_name[name] for name, code in _CODES.items() if name != "complex128"}


def _file_shape(dt: dtype, shape: tuple[int, ...]) -> list[int]:
    return [*shape, 2] if dt.name == "complex128" else list(shape)


def _is_dense(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    """Whether the elements fill a block of memory exactly once, in some dim order."""
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: -stride[d])
    expected = 1
    for d in reversed(dims):
        if stride[d] != expected:
            return False
        expected *= shape[d]
    return True


def _bytes_of(t: Tensor) -> bytes:
    """The row-major bytes of a strided tensor, or of a 1-D span of a storage."""
    with no_grad():
        c = t.detach().contiguous()
        st = c._storage
        if c._offset or st.nbytes != c.numel() * c._dtype.itemsize:
            c = c.clone()
    return storage_bytes(c._storage)


# ------------------------------------------------------------------ save
class _Saver:
    """Numbers the tensors of the object being saved and decides how each is stored."""

    def __init__(self) -> None:
        self.ids: dict[int, int] = {}
        self.tensors: list[Tensor] = []
        self.names: list[str] = []
        self.records: list[dict[str, Any]] = []

    def tensor_id(self, t: Tensor, path: tuple[Any, ...]) -> int:
        hit = self.ids.get(id(t))
        if hit is not None:
            return hit
        i = self.ids[id(t)] = len(self.tensors)
        self.tensors.append(t)
        self.names.append(tree.path_name(path) if path else "tensor")
        rec: dict[str, Any] = {
            "dtype": t._dtype.name,
            "shape": list(t._shape),
            "requires_grad": t.requires_grad,
        }
        self.records.append(rec)
        if t._layout is not strided:
            to_parts, _ = layout_codec(t._layout.name)
            parts, attrs = to_parts(t)
            for k, v in attrs.items():
                if type(v) not in (str, int, bool, type(None)) and not (
                    type(v) is float and math.isfinite(v)
                ):
                    raise TypeError(
                        f"tensorcore.save(): the codec of layout '{t._layout.name}' gave "
                        f"attribute {k!r} a value of type {type(v).__name__}"
                    )
            rec["layout"] = t._layout.name
            rec["parts"] = {k: self.tensor_id(p, (*path, k)) for k, p in parts.items()}
            rec["attrs"] = dict(attrs)
        return i

    def plan(self) -> tuple[dict[str, tuple[dtype, list[int], bytes]], list[dict[str, Any]]]:
        """The file's entries (name -> dtype, shape, bytes) and the storage records; fills
        in each tensor record's ``key`` or ``storage``."""
        groups: dict[int, list[int]] = {}
        for i, t in enumerate(self.tensors):
            if t._layout is strided and t.numel():
                groups.setdefault(id(t._storage), []).append(i)
        entries: dict[str, tuple[dtype, list[int], bytes]] = {}
        taken = {"__metadata__"}

        def name(want: str) -> str:
            got, n = want, 0
            while got in taken:
                n += 1
                got = f"{want}#{n}"
            taken.add(got)
            return got

        spans = []
        for i, t in enumerate(self.tensors):
            if t._layout is not strided:
                continue
            # Empty tensors address no memory: each is an entry of its own.
            group = groups[id(t._storage)] if t.numel() else []
            if group and (len(group) > 1 or not _is_dense(t._shape, t._stride)):
                if group[0] == i:
                    spans.append(group)
                continue
            rec = self.records[i]
            rec["key"] = key = name(self.names[i])
            rec["device"] = str(t._device)
            if t.numel() and not t.is_contiguous():
                rec["stride"] = list(t._stride)
            entries[key] = (t._dtype, _file_shape(t._dtype, t._shape), _bytes_of(t))
        storages: list[dict[str, Any]] = []
        for group in spans:
            st = self.tensors[group[0]]._storage
            assert st is not None
            lo, hi, align = int(st.nbytes), 0, st.dtype.itemsize
            for i in group:
                t = self.tensors[i]
                isz = t._dtype.itemsize
                last = t._offset + sum(
                    (n - 1) * s for n, s in zip(t._shape, t._stride, strict=True)
                )
                lo, hi, align = (
                    min(lo, t._offset * isz),
                    max(hi, (last + 1) * isz),
                    math.lcm(align, isz),
                )
            lo -= lo % align
            hi = min(st.nbytes, -(-hi // st.dtype.itemsize) * st.dtype.itemsize)
            k = len(storages)
            key = name(f"__storage__.{k}")
            storages.append({"key": key, "dtype": st.dtype.name, "device": str(st.device)})
            n = (hi - lo) // st.dtype.itemsize
            span = make_tensor(st, (n,), (1,), lo // st.dtype.itemsize, st.dtype, st.device)
            entries[key] = (st.dtype, _file_shape(st.dtype, (n,)), _bytes_of(span))
            for i in group:
                t = self.tensors[i]
                self.records[i].update(
                    storage=k, stride=list(t._stride), offset=t._offset - lo // t._dtype.itemsize
                )
        return entries, storages


# ------------------------------------------------------------------ load
class _BadFile(ValueError):
    """A malformed file; :func:`read` adds the file's name to the message."""

    problem = "is malformed"


class _Unsupported(_BadFile):
    """Valid safetensors data that tensorcore cannot represent (a dtype it lacks: U32)."""

    problem = "cannot be loaded"


def _placement(map_location: Any) -> Callable[[str], device | None]:
    """A function from a saved location to a device (None: the saved one), for every
    ``map_location`` but a callable (which :meth:`_Loader.storage` calls per storage)."""
    if map_location is None:
        return lambda loc: None
    if isinstance(map_location, (str, device)):
        target = device(map_location)
        return lambda loc: target
    if isinstance(map_location, dict):
        table = {str(k): device(v) for k, v in map_location.items()}
        return table.get
    raise TypeError(
        "tensorcore.load(): map_location must be None, a device, a string, a dict or a "
        f"callable, got {type(map_location).__name__}"
    )


class _Loader:
    """Builds the tensors a file describes, each once, checking every field it reads."""

    def __init__(self, map_location: Any, name: str) -> None:
        self.entries: dict[str, dict[str, Any]] = {}
        self.name = name
        self.fn = map_location if callable(map_location) else None
        self.place = _placement(None if self.fn else map_location)
        self.records: list[Any] = []
        self.storage_records: list[Any] = []
        self.built: dict[int, Tensor] = {}
        self.storages: dict[int, Storage] = {}
        self.weights_only = True

    def blob(self, key: Any, dt: dtype, shape: list[int] | None) -> Any:
        """The bytes of file entry ``key``, checked against the dtype (and shape) expected."""
        entry = self.entries.get(key) if type(key) is str else None
        if entry is None:
            raise _BadFile(f"its metadata references tensor data {key!r:.80} that it lacks")
        want = _CODES[dt.name]
        if entry["dtype"] != want or (shape is not None and entry["shape"] != shape):
            raise _BadFile(
                f"entry {key!r} is {entry['dtype']} {entry['shape']}, but its metadata "
                f"describes {want} {shape}"
            )
        if shape is None and entry["shape"][1:] != ([2] if dt.name == "complex128" else []):
            raise _BadFile(f"storage entry {key!r} is not 1-D: shape {entry['shape']}")
        return entry["data"]

    def storage(self, data: Any, dt: dtype, loc: str) -> Storage:
        """A storage holding ``data``, placed by ``map_location``."""
        try:
            saved = device(loc)
        except (RuntimeError, TypeError) as exc:
            raise _BadFile(f"invalid device {loc!r:.80}: {exc}") from None
        target = self.place(loc)
        if self.fn is not None:
            cpu = new_storage(manager.device_backend(device("cpu")), data, dt, device("cpu"))
            got = self.fn(cpu, loc)
            if isinstance(got, Storage):
                if got.dtype is not dt or got.nbytes != cpu.nbytes:
                    raise TypeError(
                        "tensorcore.load(): map_location returned a storage of another dtype "
                        "or size than the one it was given"
                    )
                return got
            if got is not None and not isinstance(got, (str, device)):
                raise TypeError(
                    "tensorcore.load(): a map_location callable must return a Storage, a "
                    f"device or None, got {type(got).__name__}"
                )
            target = saved if got is None else device(got)
            if target == cpu.device:
                return cpu
        target = saved if target is None else target
        try:
            iface = manager.device_backend(target)
        except RuntimeError as exc:
            raise RuntimeError(
                f"tensorcore.load(): {self.name} holds tensors saved on '{loc}', which cannot "
                f"be loaded onto '{target}': {exc}. Pass map_location (e.g. "
                "map_location='cpu') to load them elsewhere"
            ) from None
        return new_storage(iface, data, dt, target)

    def tensor(self, i: int) -> Tensor:
        hit = self.built.get(i) if type(i) is int else None
        if hit is not None:
            return hit
        if type(i) is not int or not 0 <= i < len(self.records):
            raise _BadFile(
                f"its object references tensor {i!r:.80}, but it describes "
                f"{len(self.records)} tensors"
            )
        rec = self.records[i]
        t = self.build(rec, i)
        if rec.get("requires_grad", False) is True:
            try:
                t.requires_grad = True  # (the attribute's words, as PyTorch's rebuild)
            except RuntimeError as exc:
                raise _BadFile(f"tensor {i}: {exc}") from None
        self.built[i] = t
        return t

    def build(self, rec: Any, i: int) -> Tensor:
        if type(rec) is not dict:
            raise _BadFile(f"tensor record {i} is not a JSON object")
        name = rec.get("dtype")
        dt = by_name.get(name) if type(name) is str else None
        if dt is None:
            raise _BadFile(f"tensor {i} has an unknown dtype {rec.get('dtype')!r:.80}")
        shape = _ints(rec.get("shape"), f"tensor {i}'s shape")
        if "layout" in rec:
            return self.build_layout(rec, i, shape)
        if "storage" in rec:
            k = rec["storage"]
            st = self.storages.get(k) if type(k) is int else None
            if st is None:
                st = self.span(k)
            stride = _ints(rec.get("stride"), f"tensor {i}'s stride")
            offset = rec.get("offset")
            if type(offset) is not int:
                raise _BadFile(f"tensor {i}'s offset is not an int")
            try:
                check_view(shape, stride, offset, dt, st)
            except ValueError as exc:
                raise _BadFile(f"tensor {i}: {exc}") from None
            return make_tensor(st, shape, stride, offset, dt, st.device)
        data = self.blob(rec.get("key"), dt, _file_shape(dt, shape))
        st = self.storage(data, dt, rec.get("device", "cpu"))
        t = make_tensor(st, shape, contiguous_strides(shape), 0, dt, st.device)
        if "stride" in rec:
            stride = _ints(rec["stride"], f"tensor {i}'s stride")
            if len(stride) != len(shape) or not _is_dense(shape, stride):
                raise _BadFile(f"tensor {i}'s stride {list(stride)} does not fit shape {shape}")
            laid = make_tensor(
                empty((t.numel(),), dt, st.device)._storage, shape, stride, 0, dt, st.device
            )
            with no_grad():
                laid.copy_(t)
            t = laid
        return t

    def span(self, k: Any) -> Storage:
        if type(k) is not int or not 0 <= k < len(self.storage_records):
            raise _BadFile(f"a tensor references storage {k!r:.80}, which it does not describe")
        rec = self.storage_records[k]
        if type(rec) is not dict or type(rec.get("dtype")) is not str:
            raise _BadFile(f"storage record {k} is malformed")
        dt = by_name.get(rec["dtype"])
        if dt is None:
            raise _BadFile(f"storage {k} has an unknown dtype {rec['dtype']!r:.80}")
        st = self.storages[k] = self.storage(
            self.blob(rec.get("key"), dt, None), dt, rec.get("device", "cpu")
        )
        return st

    def build_layout(self, rec: dict[str, Any], i: int, shape: tuple[int, ...]) -> Tensor:
        name, parts, attrs = rec["layout"], rec.get("parts"), rec.get("attrs", {})
        if type(name) is not str or type(parts) is not dict or type(attrs) is not dict:
            raise _BadFile(f"tensor record {i} of a non-strided layout is malformed")
        got = {}
        for k, j in parts.items():
            sub = self.records[j] if type(j) is int and 0 <= j < len(self.records) else None
            if type(sub) is dict and "layout" in sub:
                raise _BadFile(f"tensor {i}'s part {k!r} is not a strided tensor")
            got[k] = self.tensor(j)
        try:
            _, from_parts = layout_codec(name)
        except (RuntimeError, NotImplementedError) as exc:
            raise type(exc)(
                f"tensorcore.load(): {self.name} holds a {name} tensor: {exc}"
            ) from None
        try:
            t = from_parts(got, dict(attrs), shape)
        except (ValueError, RuntimeError, TypeError, IndexError) as exc:
            raise _BadFile(f"tensor {i} ({name}): {exc}") from None
        if not isinstance(t, Tensor) or t._layout.name != name or t._shape != shape:
            raise _BadFile(f"tensor {i} could not be rebuilt as a {name} tensor")
        return t


def _ints(x: Any, what: str) -> tuple[int, ...]:
    if type(x) is not list or any(type(v) is not int for v in x):
        raise _BadFile(f"{what} is not a list of ints: {x!r:.80}")
    if any(v < 0 for v in x):
        raise _BadFile(f"{what} has a negative entry: {x}")
    if math.prod(x) >= 2**63:
        raise _BadFile(f"{what} {x} has more than 2**63 - 1 elements")
    return tuple(x)


def _source(f: Any) -> tuple[bytes, str]:
    if isinstance(f, (str, os.PathLike)):
        try:
            with open(f, "rb") as fh:
                return fh.read(), repr(os.fspath(f))
        except OSError as exc:
            raise type(exc)(exc.errno, f"tensorcore.load(): {exc.strerror}", exc.filename) from None
    read = getattr(f, "read", None)
    if not callable(read):
        raise TypeError(
            f"tensorcore.load(): f must be a path or a binary file object, got {type(f).__name__}"
        )
    data = read()
    name = getattr(f, "name", None)  # open() files have one; BytesIO has none
    label = repr(name) if isinstance(name, str) else f"the {type(f).__name__} given"
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(
            f"tensorcore.load(): reading {label} gave {type(data).__name__}, not bytes: "
            "open the file in binary mode ('rb')"
        )
    return bytes(data), label


def _not_safetensors(data: bytes) -> str:
    if data[:4] == b"PK\x03\x04" or data[:1] == b"\x80":
        return (
            ". It looks like a pickled PyTorch checkpoint (torch.save): tensorcore does not "
            "unpickle checkpoints, because unpickling runs code from the file. Convert it in "
            "PyTorch with safetensors.torch.save_file(state_dict, path) (docs/serialization.md)"
        )
    return ""


def _decode(data: bytes, loader: _Loader) -> Any:
    # safetensors has checked the header; read its __metadata__ (which deserialize() does
    # not return) from the same bytes.
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__", None) or {}
    if _FORMAT not in meta:
        # A plain safetensors file: its tensors, by name in header order, on the CPU (or
        # where map_location says).
        out = {}
        for key in header:
            info = loader.entries[key]
            dt = _FROM_CODE.get(info["dtype"])
            if dt is None:
                raise _Unsupported(
                    f"tensor {key!r} has dtype {info['dtype']}, which tensorcore does not "
                    f"support (supported: {', '.join(sorted(_FROM_CODE))})"
                )
            shape = tuple(info["shape"])
            st = loader.storage(info["data"], dt, "cpu")
            out[key] = make_tensor(st, shape, contiguous_strides(shape), 0, dt, st.device)
        return out
    pickled = meta[_FORMAT] == objects.FORMAT_VERSION
    if meta[_FORMAT] != FORMAT_VERSION and not pickled:
        raise _BadFile(
            f"it was written in tensorcore format {meta[_FORMAT]!r:.20}; this version of "
            f"tensorcore reads formats {FORMAT_VERSION} and {objects.FORMAT_VERSION}"
        )
    parsed: list[Any] = []
    for key in (objects.PICKLE if pickled else _OBJECT, _TENSORS, _STORAGES):
        if key not in meta:
            raise _BadFile(f"its metadata lacks {key!r}")
        if key == objects.PICKLE:
            parsed.append(None)
            continue
        try:
            parsed.append(json.loads(meta[key]))
        except (ValueError, RecursionError) as exc:
            raise _BadFile(f"metadata {key!r} is not valid JSON: {exc}") from None
    root, loader.records, loader.storage_records = parsed
    if type(loader.records) is not list or type(loader.storage_records) is not list:
        raise _BadFile(f"metadata {_TENSORS!r} and {_STORAGES!r} must be JSON lists")
    if pickled:
        # weights_only=False: the caller trusts the file, and unpickling runs its code;
        # otherwise only allowlisted globals are unpickled.
        return objects.load(meta, loader.tensor, _BadFile, loader.weights_only, loader.name)
    try:
        return tree.decode(root, loader.tensor)
    except _BadFile:
        raise
    except ValueError as exc:
        raise _BadFile(str(exc)) from None


def write(obj: Any, f: Any) -> None:
    """:func:`tensorcore.save`."""
    is_path = isinstance(f, (str, os.PathLike))
    if not is_path and not callable(getattr(f, "write", None)):
        raise TypeError(
            f"tensorcore.save(): f must be a path or a binary file object, got {type(f).__name__}"
        )
    if isinstance(f, io.TextIOBase):
        raise TypeError("tensorcore.save(): f is a text file: open it in binary mode ('wb')")
    saver = _Saver()
    try:
        described: dict[str, str] = {
            _FORMAT: FORMAT_VERSION,
            _OBJECT: json.dumps(
                tree.encode(obj, saver.tensor_id), separators=(",", ":"), allow_nan=False
            ),
        }
    except tree.Unencodable as exc:
        # Not tensors in plain containers (a module, an optimizer, any picklable object, as
        # torch.save takes them): the object is pickled around its tensors, and loading it
        # unpickles (allowlisted globals only, unless weights_only=False). A pickling error
        # (a lambda, a lock) propagates.
        saver = _Saver()
        described = {
            _FORMAT: objects.FORMAT_VERSION,
            **objects.dump(obj, saver.tensor_id, exc.what),
        }
    entries, storages = saver.plan()
    metadata = {
        **described,
        _TENSORS: json.dumps(saver.records, separators=(",", ":"), allow_nan=False),
        _STORAGES: json.dumps(storages, separators=(",", ":")),
    }
    specs = {}
    for key, (dt, shape, data) in entries.items():
        # safetensors 0.8 reads the data through a raw pointer: ``entries`` keeps each bytes
        # object alive until serialize() has returned.
        ptr = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0
        code = "float64" if dt.name == "complex128" else dt.name
        specs[key] = safetensors.TensorSpec(
            dtype=code, shape=shape, data_ptr=ptr, data_len=len(data)
        )
    if is_path:
        try:
            safetensors.serialize_file(specs, f, metadata=metadata)
        except safetensors.SafetensorError as exc:  # (an I/O error, reported in its words)
            raise OSError(f"tensorcore.save(): cannot write {os.fspath(f)!r}: {exc}") from None
    else:
        f.write(safetensors.serialize(specs, metadata=metadata))


def read(f: Any, map_location: Any, weights_only: bool | None) -> Any:
    """:func:`tensorcore.load`."""
    if weights_only is not None and type(weights_only) is not bool:
        raise TypeError(
            f"tensorcore.load(): weights_only must be a bool, got {type(weights_only).__name__}"
        )
    loader = _Loader(map_location, "")  # checks map_location before reading anything
    loader.weights_only = weights_only is not False
    data, loader.name = _source(f)
    try:
        raw = safetensors.deserialize(data)
    except safetensors.SafetensorError as exc:
        raise ValueError(
            f"tensorcore.load(): {loader.name} is not a valid safetensors file: {exc}"
            + _not_safetensors(data)
        ) from None
    loader.entries = dict(raw)
    try:
        return _decode(data, loader)
    except _BadFile as exc:
        raise ValueError(f"tensorcore.load(): {loader.name} {exc.problem}: {exc}") from None


def pickle_in(f: Any) -> bytes | None:
    """The pickle of a file holding a whole object (format 2), None for a file of data."""
    data, name = _source(f)
    try:
        safetensors.deserialize(data)
    except safetensors.SafetensorError as exc:
        raise ValueError(
            f"tensorcore.load(): {name} is not a valid safetensors file: {exc}"
            + _not_safetensors(data)
        ) from None
    n = int.from_bytes(data[:8], "little")
    meta = json.loads(data[8 : 8 + n]).get("__metadata__") or {}
    if meta.get(_FORMAT) != objects.FORMAT_VERSION:
        return None
    try:
        return objects.pickled(meta, _BadFile)
    except _BadFile as exc:
        raise ValueError(f"tensorcore.load(): {name} {exc.problem}: {exc}") from None
