"""The ``sparse_coo`` layout's codec: how pickle, ``copy.deepcopy`` and ``tensorcore.save``
take a sparse tensor apart and build it back (``tensorcore.serialization.register_layout_codec``).

A sparse COO tensor is its ``indices`` and ``values`` tensors (strided, so the core
serialises them like any other) and whether it is coalesced. Rebuilding checks everything,
since ``tensorcore.load`` hands over whatever a file says: the indices are in range for the
shape, and a tensor said to be coalesced has sorted, unique indices.
"""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore import Tensor

from ._compressed import COMPRESSED, crecord
from ._coo import keys_of, np_of, ns_of, record
from .construct import sparse_coo_tensor

__all__ = ["compressed_from_parts", "compressed_to_parts", "from_parts", "to_parts"]


def to_parts(t: Tensor) -> tuple[dict[str, Tensor], dict[str, Any]]:
    """The indices and values of ``t`` (shared, not copied) and its coalesced flag."""
    rec = record(t)
    return {"indices": rec.indices, "values": rec.values}, {"coalesced": rec.coalesced}


def from_parts(parts: dict[str, Tensor], attrs: dict[str, Any], shape: tuple[int, ...]) -> Tensor:
    """A sparse tensor of ``shape`` over ``parts["indices"]`` and ``parts["values"]``."""
    if set(parts) != {"indices", "values"}:
        raise ValueError(
            f"a sparse_coo tensor needs parts 'indices' and 'values', got {sorted(parts)}"
        )
    coalesced = attrs.get("coalesced")
    if set(attrs) != {"coalesced"} or not isinstance(coalesced, bool):
        raise ValueError(
            f"a sparse_coo tensor needs one bool attribute 'coalesced', got {attrs!r:.80}"
        )
    indices, values = parts["indices"], parts["values"]
    if indices.dtype is not tc.int64:
        raise ValueError(f"sparse_coo indices must be int64, got {indices.dtype.name}")
    out = sparse_coo_tensor(indices, values, shape, check_invariants=True, is_coalesced=coalesced)
    rec = record(out)
    idx = np_of(rec.indices)
    if coalesced and idx.shape[1] > 1:
        (keys,) = keys_of(ns_of(out), idx, sizes=shape[: idx.shape[0]])
        if not bool((keys[1:] > keys[:-1]).all()):
            raise ValueError(
                "a sparse_coo tensor said to be coalesced has unsorted or repeated indices"
            )
    return out


# ------------------------------------------------------------------ CSR, CSC
def compressed_to_parts(t: Tensor) -> tuple[dict[str, Tensor], dict[str, Any]]:
    """The compressed and plain indices and the values of a CSR or CSC tensor (shared), by
    PyTorch's names (``crow_indices``, ``col_indices``, ``values`` for CSR)."""
    _, cname, pname = COMPRESSED[t._layout.name]
    rec = crecord(t)
    return {cname: rec.compressed, pname: rec.plain, "values": rec.values}, {}


def compressed_from_parts(name: str) -> Any:
    """The ``from_parts`` of layout ``name``: checks every invariant (``check_invariants``)."""
    _, cname, pname = COMPRESSED[name]

    def from_parts(
        parts: dict[str, Tensor], attrs: dict[str, Any], shape: tuple[int, ...]
    ) -> Tensor:
        if set(parts) != {cname, pname, "values"} or attrs:
            raise ValueError(
                f"a {name} tensor needs parts {cname!r}, {pname!r} and 'values' and no "
                f"attributes, got {sorted(parts)} and {sorted(attrs)}"
            )
        build = getattr(tc, f"{name}_tensor")
        try:
            return build(parts[cname], parts[pname], parts["values"], shape, check_invariants=True)
        except RuntimeError as exc:
            raise ValueError(f"an invalid {name} tensor: {exc}") from None

    return from_parts
