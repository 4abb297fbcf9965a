"""Saving and loading tensors and nested state: :func:`save` and :func:`load`.

Files are in the `safetensors <https://github.com/huggingface/safetensors>`_ format, written
and read through the ``safetensors`` package's framework-agnostic byte API (so the core stays
free of NumPy). A file is a header (JSON) and raw tensor data; tensorcore adds a description
of the saved object (dicts, lists, numbers, strings around the tensors) to the header's
``__metadata__``. Loading such a file parses JSON and copies bytes: it never runs code from
the file. Any other object (a whole module, an optimizer: ``torch.save(model, path)``) is
pickled around its tensors, which stay safetensors entries; loading it unpickles, so it needs
``weights_only=False``, as in PyTorch. ``docs/serialization.md`` describes the format.

A flat ``dict[str, Tensor]`` becomes a plain safetensors file that other readers (PyTorch's
``safetensors.torch.load_file``, NumPy's ``safetensors.numpy.load_file``) read with the same
names, dtypes and values; a plain safetensors file written by them loads as a
``dict[str, Tensor]``.

:func:`register_layout_codec` lets the plugin that owns a layout take part, in pickle and
``copy.deepcopy`` as well.
"""

from __future__ import annotations

import os
from typing import Any

from ._pickling import register_layout_codec

__all__ = ["load", "register_layout_codec", "save"]


def save(obj: Any, f: str | os.PathLike[str] | Any) -> None:
    """Save ``obj`` to ``f`` in the safetensors format: a tensor, dicts, lists and tuples of
    tensors, numbers and strings (a state dict, a checkpoint) as data only; any other
    picklable object (a whole module, an optimizer) pickled around its tensors.

    ``f`` is a path or a binary file object. Tensors keep their dtype, shape,
    ``requires_grad`` (as leaves) and device; tensors viewing one storage are loaded as
    views of one storage, and a tensor that appears twice is loaded as one tensor. A flat
    ``dict[str, Tensor]`` gives a plain safetensors file that PyTorch's
    ``safetensors.torch.load_file`` reads with the same names. ``.grad`` is not saved, as in
    PyTorch. See ``docs/serialization.md`` for the format.

    An object that is not tensors, dict, ``OrderedDict``, list, tuple, ``tensorcore.Size``,
    str, int, float, complex, bool, None, dtypes and devices is pickled (its tensors and
    parameters are still stored as safetensors entries, with their sharing); loading the
    file then needs ``load(f, weights_only=False)``. An object that cannot be pickled (a
    lambda, a lock) raises pickle's error, and nothing is written.

    Examples
    --------
    >>> import io
    >>> import tensorcore as tc
    >>> buf = io.BytesIO()
    >>> state = {"weight": tc.ones(2, 2), "step": 3, "betas": (0.9, 0.999)}
    >>> tc.save(state, buf)
    >>> _ = buf.seek(0)
    >>> tc.load(buf)
    {'weight': tensor([[1., 1.],
            [1., 1.]]), 'step': 3, 'betas': (0.9, 0.999)}

    A whole module is pickled; loading it needs ``weights_only=False``:

    >>> buf = io.BytesIO()
    >>> tc.save(tc.nn.Linear(2, 1), buf)
    >>> _ = buf.seek(0)
    >>> tc.load(buf, weights_only=False)
    Linear(in_features=2, out_features=1, bias=True)
    """
    # The implementation (json, ctypes, safetensors) is imported on first use, so that
    # ``import tensorcore`` does not pay for it.
    from ._checkpoint import write

    write(obj, f)


def load(
    f: str | os.PathLike[str] | Any, map_location: Any = None, *, weights_only: bool = True
) -> Any:
    """Load an object saved with :func:`save`, or any safetensors file, from ``f``.

    ``f`` is a path or a binary file object. With ``weights_only=True`` (the default, as in
    PyTorch), loading only parses JSON and copies tensor data: it never runs code from the
    file, so files from untrusted sources are safe to load. A file holding a pickled object
    (``save(model, f)``) is then refused with ``pickle.UnpicklingError``; load it with
    ``weights_only=False`` **only if you trust its source**: unpickling runs code chosen by
    whoever wrote the file. A safetensors file that tensorcore did not write (PyTorch's
    ``safetensors.torch.save_file``, NumPy's ``safetensors.numpy.save_file``) loads as a
    ``dict[str, Tensor]`` on the CPU.

    ``map_location`` places the tensors, as in PyTorch: None keeps the device each was
    saved from; a device or string (``"cpu"``, ``"cuda:1"``) puts them all there; a dict
    maps saved locations to devices (``{"cuda:1": "cuda:0"}``; others stay); a callable is
    called as ``fn(storage, location)`` with each storage loaded on the CPU and the saved
    location (``"cuda:1"``), and returns a storage, a device (an extension of PyTorch's
    contract) or None for the saved location.

    ``weights_only`` False allows unpickling (files of pickled objects); True or None
    (PyTorch's default, which means True) allows data only.

    Raises ``ValueError`` naming the file and the problem for a corrupt, truncated or
    malformed file, and ``RuntimeError`` for tensors on a device (or of a layout) that no
    installed backend provides.

    Examples
    --------
    >>> import io
    >>> import tensorcore as tc
    >>> buf = io.BytesIO()
    >>> x = tc.arange(6.0).reshape(2, 3)
    >>> tc.save({"x": x, "row": x[1]}, buf)
    >>> _ = buf.seek(0)
    >>> state = tc.load(buf, map_location="cpu")
    >>> state["row"]
    tensor([3., 4., 5.])
    >>> state["row"].untyped_storage() is state["x"].untyped_storage()
    True
    """
    from ._checkpoint import read

    return read(f, map_location, weights_only)
