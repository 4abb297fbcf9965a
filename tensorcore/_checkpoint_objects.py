"""Whole Python objects in a tensorcore file (``tc.save(model, path)``): the object is
pickled, its tensors are not. ``docs/serialization.md`` ("Saving whole objects") describes it.

Saving pickles the object with a pickler whose ``persistent_id`` takes every ``Tensor`` and
``nn.Parameter`` out of the pickle: each becomes a tensor record and safetensors entries,
numbered by :class:`tensorcore._checkpoint._Saver` exactly as the tensors of a state dict
are, so that storages shared between views, and a tensor reached twice, are written once and
shared again on loading. The pickle (base64) goes into the header's ``__metadata__`` with
format version ``"2"``, which a reader of format 1 refuses by its version.

Loading such a file unpickles, which runs code chosen by whoever wrote the file. With
``weights_only=False`` it is pickle's own unpickler; by default it is
:class:`tensorcore._weights_only.Unpickler`, which allows only allowlisted globals (as
PyTorch's ``torch.load`` with ``weights_only=True``), and :func:`refusal` wraps its error in
PyTorch's advice.
"""

from __future__ import annotations

import base64
import binascii
import io
import pickle
from collections.abc import Callable
from typing import Any

from . import _weights_only
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


class _Tensors:
    """The ``persistent_load`` of both unpicklers: the file's tensors by number."""

    def __init__(self, tensor: Callable[[int], Tensor]) -> None:
        self._tensor = tensor
        self._parameters: dict[int, Parameter] = {}

    def __call__(self, pid: Any) -> Any:
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


class _Unpickler(pickle.Unpickler):
    def __init__(self, f: Any, persistent_load: Callable[[Any], Any]) -> None:
        super().__init__(f)
        self.persistent_load = persistent_load  # type: ignore[method-assign]


def pickled(meta: dict[str, str], bad: type[Exception]) -> bytes:
    """The pickle in ``meta``; ``bad`` is the error for a malformed file."""
    try:
        return base64.b64decode(meta[PICKLE], validate=True)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise bad(f"its metadata {PICKLE!r} is not base64: {exc}") from None


def load(
    meta: dict[str, str],
    tensor: Callable[[int], Tensor],
    bad: type[Exception],
    weights_only: bool,
    name: str,
) -> Any:
    """The object pickled in ``meta``, its tensors built by ``tensor(i)``; ``bad`` is the
    error for a malformed file. ``weights_only`` unpickles allowlisted globals only, and
    raises :func:`refusal`'s error for anything else."""
    raw = pickled(meta, bad)
    tensors = _Tensors(tensor)
    if not weights_only:
        return _Unpickler(io.BytesIO(raw), tensors).load()
    try:
        return _weights_only.Unpickler(io.BytesIO(raw), tensors).load()
    except pickle.UnpicklingError as exc:
        raise refusal(name, meta, str(exc)) from None


def refusal(name: str, meta: dict[str, str], error: str) -> pickle.UnpicklingError:
    """PyTorch's error, and advice, for ``weights_only=True`` meeting a global that is not
    allowlisted (``error`` is the unpickler's own message)."""
    what = str(meta.get(PICKLED_BECAUSE, "an object"))[:200]
    return pickle.UnpicklingError(
        f"Weights only load failed. {name} holds pickled Python objects (tensorcore.save "
        f"pickles what is not tensors in dicts, lists and numbers: here {what}). This file "
        "can still be loaded, to do so you have two options, do those steps only if you "
        "trust the source of the checkpoint.\n\t(1) Re-running `tensorcore.load` with "
        "`weights_only` set to `False` will likely succeed, but it can result in arbitrary "
        "code execution. Do it only if you got the file from a trusted source.\n\t(2) "
        "Alternatively, to load with `weights_only=True` please check the recommended steps "
        "in the following error message.\n\tWeightsUnpickler error: " + error
    )
