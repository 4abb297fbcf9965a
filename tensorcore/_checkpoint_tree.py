"""The object tree of a :func:`tensorcore.save` file: nested Python state as JSON.

:func:`tensorcore.save` stores tensors as safetensors entries and everything around them (the
dicts, lists, numbers and strings of a model's or an optimizer's state) as one JSON value in
the file's ``__metadata__``. This module turns such state into that JSON and back. It knows
a closed set of kinds (``docs/serialization.md`` lists them), so loading builds only plain
data and never calls code named by the file.

A tensor becomes ``{"tensor": i}`` (an ``nn.Parameter`` ``{"parameter": i}``); what ``i``
means is up to the caller (:mod:`tensorcore.serialization`), which passes ``tensor_id`` when
encoding and ``tensor`` when decoding.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ._tensor import Size, Tensor
from .devices import device
from .dtypes import by_name, dtype
from .nn.parameter import Parameter

__all__ = ["MAX_DEPTH", "Unencodable", "decode", "encode", "path_name"]

#: How deeply containers may nest, on saving and on loading (a hostile file cannot make the
#: loader recurse without bound).
MAX_DEPTH = 100

_SCALARS = (str, int, float, bool, type(None))
_NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
_CONTAINERS: dict[type, str] = {list: "list", tuple: "tuple", dict: "dict", OrderedDict: "odict"}


class Unencodable(TypeError):
    """An object the JSON description cannot hold; ``what`` names its type and place."""

    def __init__(self, message: str, what: str) -> None:
        super().__init__(message)
        self.what = what


def path_name(path: tuple[Any, ...]) -> str:
    """The readable name of the object at ``path``: its keys joined by dots."""
    return ".".join(str(p) for p in path)


def _where(path: tuple[Any, ...]) -> str:
    return "obj" + "".join(f"[{p!r}]" for p in path)


def _float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def encode(obj: Any, tensor_id: Callable[[Tensor, tuple[Any, ...]], int]) -> Any:
    """The JSON value of ``obj``; ``tensor_id(t, path)`` numbers each tensor.

    Raises :class:`Unencodable` (a ``TypeError``) naming the type and the place
    (``obj['state'][0]``) of anything that is not a tensor, a dict, an ``OrderedDict``, a
    list, a tuple, a ``tensorcore.Size``, a str, an int, a float, a complex, a bool, None, a
    ``tensorcore.dtype`` or a ``tensorcore.device``, or of a container that contains itself
    or nests deeper than :data:`MAX_DEPTH`: :func:`tensorcore.save` then pickles the object.
    """
    active: set[int] = set()

    def enc(x: Any, path: tuple[Any, ...]) -> Any:
        kind = type(x)
        if kind is float:
            return _float(x)
        if kind in _SCALARS:
            return x
        if kind is Parameter:  # (loads as a Parameter again, as PyTorch's do)
            return {"parameter": tensor_id(x, path)}
        if isinstance(x, Tensor):
            return {"tensor": tensor_id(x, path)}
        if kind is complex:
            return {"complex": [_float(x.real), _float(x.imag)]}
        if kind is dtype:
            return {"dtype": x.name}
        if kind is device:
            return {"device": str(x)}
        if kind is Size:
            return {"size": list(x)}
        tag = _CONTAINERS.get(kind)
        if tag is None:
            what = f"'{kind.__module__}.{kind.__qualname__}' at {_where(path)}"
            raise Unencodable(
                f"tensorcore.save(): cannot describe an object of type {what} in JSON: "
                "tensorcore describes tensors, dicts, lists, tuples, str, int, float, complex, "
                "bool, None, dtypes and devices",
                what,
            )
        if id(x) in active:
            what = f"a container that contains itself, at {_where(path)}"
            raise Unencodable(f"tensorcore.save(): cannot describe {what} in JSON", what)
        if len(path) >= MAX_DEPTH:
            where = _where(path)
            where = where if len(where) <= 60 else where[:57] + "..."
            what = f"containers nested deeper than {MAX_DEPTH} levels, at {where}"
            raise Unencodable(f"tensorcore.save(): cannot describe {what} in JSON", what)
        active.add(id(x))
        try:
            if tag in ("list", "tuple"):
                return {tag: [enc(v, (*path, i)) for i, v in enumerate(x)]}
            items: list[Any] = []
            for k, v in x.items():
                if type(k) not in _SCALARS:
                    what = f"a dict key of type '{type(k).__qualname__}' in {_where(path)}"
                    raise Unencodable(
                        f"tensorcore.save(): cannot describe {what} in JSON: keys must be "
                        "str, int, float, bool or None",
                        what,
                    )
                items.append([_float(k) if type(k) is float else k, enc(v, (*path, k))])
            attrs = vars(x) if tag == "odict" else None
            if attrs:
                # A state dict's ``_metadata`` (each module's ``_version``, which its
                # ``_load_from_state_dict`` reads), kept as pickling an OrderedDict keeps it.
                named = [[str(a), enc(v, (*path, a))] for a, v in attrs.items()]
                return {"odict_attrs": [items, named]}
            return {tag: items}
        finally:
            active.discard(id(x))

    return enc(obj, ())


def decode(node: Any, tensor: Callable[[int], Tensor]) -> Any:
    """The object a JSON value from :func:`encode` describes; ``tensor(i)`` returns tensor
    ``i``. Raises ``ValueError`` naming the first thing that is not a valid node."""

    def number(x: Any, what: str) -> float:
        if type(x) in (int, float):
            return float(x)
        if type(x) is dict and len(x) == 1 and x.get("float") in _NONFINITE:
            return _NONFINITE[x["float"]]
        raise ValueError(f"{what} is not a number: {x!r:.80}")

    def key(x: Any) -> Any:
        if type(x) is dict:
            return number(x, "a dict key")
        if type(x) not in _SCALARS:
            raise ValueError(f"a dict key is not a str, number, bool or null: {x!r:.80}")
        return x

    parameters: dict[int, Parameter] = {}  # one per record, as the pickled objects'

    def dec(x: Any, depth: int) -> Any:
        if type(x) in _SCALARS:
            return x
        if depth >= MAX_DEPTH:
            raise ValueError(f"the object nests deeper than {MAX_DEPTH} containers")
        if type(x) is list:
            raise ValueError(f"a bare JSON list is not an object node: {x!r:.80}")
        if type(x) is not dict or len(x) != 1:
            raise ValueError(f"an object node must have exactly one kind: {x!r:.80}")
        ((kind, value),) = x.items()
        if kind in ("tensor", "parameter"):
            if type(value) is not int:
                raise ValueError(f"a {kind} reference is not an int: {value!r:.80}")
            t = tensor(value)
            if kind == "tensor":
                return t
            if value not in parameters:
                parameters[value] = Parameter(t, requires_grad=t.requires_grad)
            return parameters[value]
        if kind == "float":
            return number(x, "a float node")
        if kind == "complex":
            if type(value) is not list or len(value) != 2:
                raise ValueError(f"a complex node is not [real, imag]: {value!r:.80}")
            return complex(number(value[0], "a real part"), number(value[1], "an imag part"))
        if kind == "dtype":
            if type(value) is not str or value not in by_name:
                raise ValueError(f"unknown dtype {value!r:.80}")
            return by_name[value]
        if kind == "device":
            if type(value) is not str:
                raise ValueError(f"a device node is not a string: {value!r:.80}")
            try:
                return device(value)
            except (RuntimeError, TypeError) as exc:
                raise ValueError(str(exc)) from None
        if kind in ("list", "tuple", "size"):
            if type(value) is not list:
                raise ValueError(f"a {kind} node does not hold a JSON list: {value!r:.80}")
            items = [dec(v, depth + 1) for v in value]
            if kind == "size":
                if any(type(v) is not int or v < 0 for v in items):
                    raise ValueError(
                        f"a size node holds more than non-negative ints: {items!r:.80}"
                    )
                return Size(items)
            return items if kind == "list" else tuple(items)
        if kind in ("dict", "odict"):
            if type(value) is not list or any(type(p) is not list or len(p) != 2 for p in value):
                raise ValueError(f"a {kind} node does not hold [key, value] pairs: {value!r:.80}")
            pairs = [(key(k), dec(v, depth + 1)) for k, v in value]
            return dict(pairs) if kind == "dict" else OrderedDict(pairs)
        if kind == "odict_attrs":
            if type(value) is not list or len(value) != 2:
                raise ValueError(f"an odict_attrs node is not [pairs, attributes]: {value!r:.80}")
            out = dec({"odict": value[0]}, depth)
            attrs = dec({"dict": value[1]}, depth)
            if any(type(a) is not str for a in attrs):
                raise ValueError(f"an attribute name is not a string: {value[1]!r:.80}")
            out.__dict__.update(attrs)
            return out
        raise ValueError(f"unknown object kind {kind!r:.80}")

    return dec(node, 0)
