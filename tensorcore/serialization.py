"""Saving and loading tensors and nested state: :func:`save` and :func:`load`.

Files are in the `safetensors <https://github.com/huggingface/safetensors>`_ format, written
and read through the ``safetensors`` package's framework-agnostic byte API (so the core stays
free of NumPy). A file is a header (JSON) and raw tensor data; tensorcore adds a description
of the saved object (dicts, lists, numbers, strings around the tensors) to the header's
``__metadata__``. Loading such a file parses JSON and copies bytes: it never runs code from
the file. Any other object (a whole module, an optimizer: ``torch.save(model, path)``) is
pickled around its tensors, which stay safetensors entries; loading it unpickles: with
``weights_only=True`` (the default) only allowlisted globals, as PyTorch's weights-only
unpickler (:func:`add_safe_globals` extends the list), with ``weights_only=False`` anything.
``docs/serialization.md`` describes the format.

A flat ``dict[str, Tensor]`` becomes a plain safetensors file that other readers (PyTorch's
``safetensors.torch.load_file``, NumPy's ``safetensors.numpy.load_file``) read with the same
names, dtypes and values; a plain safetensors file written by them loads as a
``dict[str, Tensor]``.

:func:`register_layout_codec` lets the plugin that owns a layout take part, in pickle and
``copy.deepcopy`` as well.
"""

from __future__ import annotations

import os
import pickle
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any

from ._pickling import register_layout_codec

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "get_unsafe_globals_in_checkpoint",
    "load",
    "register_layout_codec",
    "safe_globals",
    "save",
]


def save(
    obj: Any,
    f: str | os.PathLike[str] | Any,
    pickle_module: Any = pickle,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
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
    file then unpickles it: by default only globals that PyTorch's weights-only rules allow
    (a set, ``bytes``, ``Counter``... load; a class of yours needs
    :func:`add_safe_globals`), or anything with ``load(f, weights_only=False)``. An object
    that cannot be pickled (a lambda, a lock) raises pickle's error, and nothing is written.

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

    A whole module is pickled; loading it needs its classes allowlisted, or
    ``weights_only=False``:

    >>> buf = io.BytesIO()
    >>> tc.save(tc.nn.Linear(2, 1), buf)
    >>> _ = buf.seek(0)
    >>> tc.load(buf, weights_only=False)
    Linear(in_features=2, out_features=1, bias=True)

    PyTorch's other arguments are accepted, as its scripts pass them
    (``_use_new_zipfile_serialization=False`` above all), and change nothing: the file is
    always this format, whose pickled part Python's ``pickle`` writes at its own protocol.
    """
    del pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record
    # The implementation (json, ctypes, safetensors, the weights-only unpickler) is imported
    # on first use, so that ``import tensorcore`` does not pay for it (nor imports tc.nn).
    from ._checkpoint import write

    write(obj, f)


def load(
    f: str | os.PathLike[str] | Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved with :func:`save`, or any safetensors file, from ``f``.

    ``f`` is a path or a binary file object. With ``weights_only=True`` (the default, as in
    PyTorch), loading a file of data (a state dict, a checkpoint of tensors, numbers and
    strings) only parses JSON and copies tensor data. A file holding a pickled object
    (``save(model, f)``, or data with a set, bytes or a custom class in it) is unpickled
    with PyTorch's weights-only rules: only allowlisted globals (tensorcore's dtypes,
    devices and ``Size``, ``OrderedDict``, ``Counter``, ``set``, ``complex``, ..., and what
    :func:`add_safe_globals` or :class:`safe_globals` added); any other global raises
    ``pickle.UnpicklingError`` naming it. Load such a file with ``weights_only=False``
    **only if you trust its source**: unpickling runs code chosen by whoever wrote it. A
    safetensors file that tensorcore did not write (PyTorch's
    ``safetensors.torch.save_file``, NumPy's ``safetensors.numpy.save_file``) loads as a
    ``dict[str, Tensor]`` on the CPU.

    ``map_location`` places the tensors, as in PyTorch: None keeps the device each was
    saved from; a device or string (``"cpu"``, ``"cuda:1"``) puts them all there; a dict
    maps saved locations to devices (``{"cuda:1": "cuda:0"}``; others stay); a callable is
    called as ``fn(storage, location)`` with each storage loaded on the CPU and the saved
    location (``"cuda:1"``), and returns a storage, a device (an extension of PyTorch's
    contract) or None for the saved location.

    ``weights_only`` False allows unpickling (files of pickled objects); True or None
    (PyTorch's default, which means True) allows data only. As in PyTorch, naming a
    ``pickle_module`` makes the default False and refuses True (the file is still read by
    Python's ``pickle``); ``pickle_load_args`` (``encoding``, for Python 2 pickles, which
    tensorcore files never hold) only warn unless ``weights_only=False``; ``mmap`` needs a
    path, and reads it as without.

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

    if pickle_module is not None:
        if weights_only:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified"
            )
        weights_only = False
    for key in pickle_load_args:
        if key != "encoding":
            raise TypeError(f"load() got an unexpected keyword argument {key!r}")
    if pickle_load_args and weights_only is not False:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise ValueError("f must be a file path in order to use the mmap argument")
    return read(f, map_location, weights_only)


SafeGlobal = Callable[..., Any] | tuple[Callable[..., Any], str]


def add_safe_globals(safe_globals: list[SafeGlobal]) -> None:
    """Allow the given classes and functions in ``load(f, weights_only=True)``.

    As PyTorch's ``torch.serialization.add_safe_globals``: each item is a class or function,
    named in the pickle by ``{__module__}.{__qualname__}``, or a tuple ``(obj, "module.name")``
    for an object pickled under another name. An allowlisted class may be instantiated and
    have its state set while loading, and an allowlisted function may be called: allow only
    what you trust to run with arguments chosen by the file's author. Globals of the modules
    ``sys``, ``os``, ``posix`` and ``nt`` are refused even when allowlisted.

    Examples
    --------
    >>> import io
    >>> import pickle
    >>> import tensorcore as tc
    >>> from fractions import Fraction
    >>> buf = io.BytesIO()
    >>> tc.save({"lr": Fraction(1, 3), "w": tc.ones(2)}, buf)
    >>> _ = buf.seek(0)
    >>> try:
    ...     tc.load(buf)
    ... except pickle.UnpicklingError as e:
    ...     print(str(e).split("WeightsUnpickler error: ")[1][:71])
    Unsupported global: GLOBAL fractions.Fraction was not an allowed global

    >>> tc.serialization.add_safe_globals([Fraction])
    >>> _ = buf.seek(0)
    >>> tc.load(buf)
    {'lr': Fraction(1, 3), 'w': tensor([1., 1.])}
    >>> tc.serialization.clear_safe_globals()
    """
    from . import _weights_only

    _weights_only.add(safe_globals)


def get_safe_globals() -> list[SafeGlobal]:
    """The globals that :func:`add_safe_globals` (or an open :class:`safe_globals`) allowed,
    in the order added; tensorcore's own defaults are not listed, as in PyTorch.

    Examples
    --------
    >>> import collections
    >>> import tensorcore as tc
    >>> with tc.serialization.safe_globals([collections.deque]):
    ...     tc.serialization.get_safe_globals()
    [<class 'collections.deque'>]
    >>> tc.serialization.get_safe_globals()
    []
    """
    from . import _weights_only

    return list(_weights_only.user_globals)


def clear_safe_globals() -> None:
    """Forget every global that :func:`add_safe_globals` allowed.

    Examples
    --------
    >>> import collections
    >>> import tensorcore as tc
    >>> tc.serialization.add_safe_globals([collections.deque])
    >>> tc.serialization.clear_safe_globals()
    >>> tc.serialization.get_safe_globals()
    []
    """
    from . import _weights_only

    _weights_only.clear()


class safe_globals:
    """A context manager that allows the given globals in ``load(f, weights_only=True)``
    inside its block: :func:`add_safe_globals` on entry, and on exit the same globals are
    taken off the list again (as in PyTorch, also if they were there before).

    Examples
    --------
    >>> import io
    >>> import tensorcore as tc
    >>> from fractions import Fraction
    >>> buf = io.BytesIO()
    >>> tc.save([Fraction(1, 2)], buf)
    >>> with tc.serialization.safe_globals([Fraction]):
    ...     _ = buf.seek(0)
    ...     tc.load(buf)
    [Fraction(1, 2)]
    """

    def __init__(self, safe_globals: list[SafeGlobal]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        from . import _weights_only

        _weights_only.add(self.safe_globals)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        from . import _weights_only

        _weights_only.remove(self.safe_globals)


def get_unsafe_globals_in_checkpoint(f: str | os.PathLike[str] | Any) -> list[str]:
    """The globals that a file saved by :func:`save` names and that ``weights_only=True``
    does not allow, as ``"module.qualname"`` strings, found without unpickling it (as
    PyTorch's, this reads the pickle's instructions: globals that only a running pickle would
    push are not found). A file of data has none.

    Examples
    --------
    >>> import io
    >>> import tensorcore as tc
    >>> buf = io.BytesIO()
    >>> tc.save(tc.nn.Linear(2, 1), buf)
    >>> _ = buf.seek(0)
    >>> tc.serialization.get_unsafe_globals_in_checkpoint(buf)
    ['tensorcore.nn.modules.linear.Linear']
    """
    from . import _weights_only
    from ._checkpoint import pickle_in

    data = pickle_in(f)
    if data is None:
        return []
    allowed = _weights_only.allowed()
    return [g for g in _weights_only.globals_in(data) if g not in allowed]
