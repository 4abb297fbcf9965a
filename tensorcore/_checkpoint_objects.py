"""Whole Python objects in a tensorcore file (``tc.save(model, path)``): the object is
pickled, its tensors are not. ``docs/serialization.md`` ("Saving whole objects") describes it.

Saving pickles the object with a pickler whose ``persistent_id`` takes every ``Tensor`` and
``nn.Parameter`` out of the pickle: each becomes a tensor record and safetensors entries,
numbered by :class:`tensorcore._checkpoint._Saver` exactly as the tensors of a state dict
are, so that storages shared between views, and a tensor reached twice, are written once and
shared again on loading. The pickle (base64) goes into the header's ``__metadata__`` with
format version ``"2"``, which a reader of format 1 refuses by its version.

Loading such a file unpickles, which runs code chosen by whoever wrote the file: it happens
only with ``weights_only=False``; by default :func:`refusal` says so, as PyTorch's
``torch.load`` does.
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
from collections.abc import Callable
from typing import Any

from ._tensor import Tensor
from .nn.parameter import Parameter

__all__ = ["FORMAT_VERSION", "PICKLE", "PICKLED_BECAUSE", "dump", "load", "refusal"]

#: The format version of a file that holds a pickle (a file of format 1 holds JSON only).
FORMAT_VERSION = "2"
PICKLE = "tensorcore.pickle"
#: What made the object need pickling (its type and place), for the refusal's message.
PICKLED_BECAUSE = "tensorcore.pickled"


class _Pickler(pickle.Pickler):
    def __init__(self, f: Any, tensor_id: Callable[[Tensor, tuple[Any, ...]], int]) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self._tensor_id = tensor_id

    def persistent_id(self, obj: Any) -> Any:
        # Exact classes only: any other Tensor subclass (a lazy module's placeholder) pickles
        # itself, through its own __reduce_ex__.
        cls = obj.__class__
        if cls is Tensor or cls is Parameter:
            i = self._tensor_id(obj, ("object",))
            return ("parameter" if cls is Parameter else "tensor", i)
        return None


def dump(
    obj: Any, tensor_id: Callable[[Tensor, tuple[Any, ...]], int], because: str
) -> dict[str, str]:
    """The metadata entries holding ``obj`` pickled, its tensors numbered by ``tensor_id``;
    ``because`` names what JSON could not describe (``"'__main__.Net' at obj['model']"``).

    Raises whatever pickling ``obj`` raises (``TypeError``, ``pickle.PicklingError``,
    ``AttributeError`` for a lambda or a local class), as ``torch.save`` does.
    """
    buf = io.BytesIO()
    _Pickler(buf, tensor_id).dump(obj)
    return {
        PICKLE: base64.b64encode(buf.getvalue()).decode("ascii"),
        PICKLED_BECAUSE: because,
    }


class _Unpickler(pickle.Unpickler):
    def __init__(self, f: Any, tensor: Callable[[int], Tensor]) -> None:
        super().__init__(f)
        self._tensor = tensor
        self._parameters: dict[int, Parameter] = {}

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is not tuple or len(pid) != 2 or pid[0] not in ("tensor", "parameter"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r:.80} in the pickle")
        kind, i = pid
        t = self._tensor(i)
        if kind == "tensor":
            return t
        p = self._parameters.get(i)
        if p is None:  # one Parameter per record: parameters shared between modules stay so
            p = self._parameters[i] = Parameter(t, requires_grad=t.requires_grad)
        return p


def load(meta: dict[str, str], tensor: Callable[[int], Tensor], bad: type[Exception]) -> Any:
    """The object pickled in ``meta``, its tensors built by ``tensor(i)``; ``bad`` is the
    error for a malformed file."""
    try:
        raw = base64.b64decode(meta[PICKLE], validate=True)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise bad(f"its metadata {PICKLE!r} is not base64: {exc}") from None
    return _Unpickler(io.BytesIO(raw), tensor).load()


def refusal(name: str, meta: dict[str, str]) -> pickle.UnpicklingError:
    """PyTorch's kind of error for ``weights_only=True`` meeting pickled objects."""
    what = str(meta.get(PICKLED_BECAUSE, "an object"))[:200]
    return pickle.UnpicklingError(
        f"Weights only load failed. {name} holds pickled Python objects (tensorcore.save "
        f"pickles what is not tensors in dicts, lists and numbers: here {what}), and "
        "unpickling runs code chosen by whoever wrote the file. Re-running "
        "`tensorcore.load` with `weights_only` set to `False` will likely succeed, but it can "
        "result in arbitrary code execution. Do it only if you got the file from a trusted "
        "source. To share weights, save a state_dict() instead: it loads with "
        "weights_only=True."
    )
