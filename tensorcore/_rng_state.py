"""A generator's stream position as a byte tensor: ``Generator.get_state``/``set_state`` and
``tc.get_rng_state``/``tc.set_rng_state``, PyTorch's way to save and replay random draws.

The bytes are a pickle of the seed and the backend's stream object (for the CPU backend, its
Mersenne Twister). Reading them back unpickles only classes of NumPy, CuPy and the
tensorcore packages, so a tensor from elsewhere cannot run code.
"""

from __future__ import annotations

import copy
import io
import pickle
from typing import Any

from . import dtypes as dt
from . import random as _random
from ._tensor import Tensor
from ._tensor_methods import legacy_type_name
from .ops.factories import tensor
from .random import Generator, default_generator_of

__all__ = ["get_rng_state", "install", "set_rng_state"]

_MAGIC = "tensorcore-rng-state-1"
_ALLOWED = ("numpy", "cupy", "tensorcore", "tensorcore_")


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "builtins" and name in ("tuple", "list", "dict", "int", "float"):
            return super().find_class(module, name)
        if module.split(".")[0].startswith(_ALLOWED):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a generator's state")


def get_state(self: Generator) -> Tensor:
    """The generator's stream position as a 1-D uint8 CPU tensor, for :meth:`set_state`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> g = tc.Generator().manual_seed(3)
    >>> state = g.get_state()
    >>> a = tc.rand(2, generator=g)
    >>> bool((tc.rand(2, generator=g.set_state(state)) == a).all())
    True
    """
    data = pickle.dumps((_MAGIC, self._seed, self.state), protocol=4)
    return tensor(list(data), dtype=dt.uint8, device="cpu")


def set_state(self: Generator, new_state: Any) -> Generator:
    """Rewind the generator to a position :meth:`get_state` returned; returns self.

    Examples
    --------
    >>> import tensorcore as tc
    >>> g = tc.Generator()
    >>> g.set_state(tc.zeros(3))
    Traceback (most recent call last):
        ...
    TypeError: expected a tensorcore.ByteTensor, but got tensorcore.FloatTensor
    """
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a tensorcore.ByteTensor, but got {type(new_state).__name__}")
    if new_state.dtype is not dt.uint8:
        raise TypeError(f"expected a tensorcore.ByteTensor, but got {legacy_type_name(new_state)}")
    try:
        magic, seed, state = _Unpickler(io.BytesIO(bytes(new_state.reshape(-1).tolist()))).load()
        if magic != _MAGIC:
            raise ValueError(magic)
    except Exception as exc:  # (any bad byte string means "not a state")
        raise RuntimeError(
            f"set_state(): expected a generator state of tensorcore (from get_state()), but "
            f"the {new_state.numel()} bytes given are not one"
        ) from exc
    self._seed, self.state = seed, copy.deepcopy(state)
    return self


def get_rng_state() -> Tensor:
    """The default CPU generator's state (:meth:`Generator.get_state`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> state = tc.get_rng_state()
    >>> a = tc.randn(3)
    >>> tc.set_rng_state(state)
    >>> bool((tc.randn(3) == a).all())
    True
    """
    return get_state(default_generator_of("cpu"))


def set_rng_state(new_state: Tensor) -> None:
    """Rewind the default CPU generator to ``new_state`` (from :func:`get_rng_state`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_rng_state(tc.get_rng_state())
    """
    if not isinstance(new_state, Tensor) or new_state.dtype is not dt.uint8:
        raise TypeError("RNG state must be a tensorcore.ByteTensor")
    set_state(default_generator_of("cpu"), new_state)


def install() -> None:
    """Give :class:`Generator` its ``get_state`` and ``set_state`` methods, and
    ``tensorcore.random`` the module-level functions (``torch.random.get_rng_state``)."""
    Generator.get_state = get_state  # type: ignore[attr-defined]
    Generator.set_state = set_state  # type: ignore[attr-defined]
    _random.get_rng_state = get_rng_state  # type: ignore[attr-defined]
    _random.set_rng_state = set_rng_state  # type: ignore[attr-defined]
