"""Random number generation: ``Generator`` objects and ``manual_seed``.

A generator holds a seed and, per device type, the backend's own state (created lazily by the
backend, e.g. a NumPy ``Generator``), so streams are reproducible on every backend.
"""

from __future__ import annotations

import contextlib
import copy
import operator
import random as _pyrandom
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from .devices import device as _device

__all__ = [
    "Generator",
    "default_generator",
    "default_generator_of",
    "fork_rng",
    "initial_seed",
    "manual_seed",
    "seed",
]


class Generator:
    """A source of random numbers for one device type.

    Examples
    --------
    >>> import tensorcore as tc
    >>> g = tc.Generator().manual_seed(0)
    >>> a = tc.rand(3, generator=g)
    >>> b = tc.rand(3, generator=g.manual_seed(0))
    >>> (a == b).all().item()
    True
    """

    def __init__(self, device: Any = "cpu") -> None:
        try:
            self.device = _device(device)
        except (TypeError, RuntimeError) as exc:
            raise type(exc)(f"Generator(): {exc}") from None
        self._seed = 67280421310721
        self.state: Any = None  # the backend's generator, made on first use

    def manual_seed(self, seed: int) -> Generator:
        """Reset the stream to start from ``seed``; returns self."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
                raise TypeError(
                    f"manual_seed(): argument 'seed' must be int, not {type(seed).__name__}"
                )
            try:
                seed = operator.index(seed)
            except TypeError as exc:
                raise TypeError(f"manual_seed(): argument 'seed': {exc}") from None
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self.state = None
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source; returns the new seed."""
        s = _pyrandom.SystemRandom().getrandbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed the stream started from."""
        return self._seed


_defaults: dict[str, Generator] = {}


def default_generator_of(device_type: str = "cpu") -> Generator:
    """The default generator of a device type (the one random operators use when they are
    given none; :data:`default_generator` is the CPU's).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.random.default_generator_of("cpu") is tc.default_generator
    True
    """
    g = _defaults.get(device_type)
    if g is None:
        g = _defaults[device_type] = Generator(device_type)
    return g


#: The CPU's default generator, as PyTorch's ``torch.default_generator``: seeding it seeds
#: what ``tc.rand`` and the other random operators draw on the CPU.
default_generator: Generator = default_generator_of("cpu")


def manual_seed(seed: int) -> Generator:
    """Seed the default generators of every device type; returns the CPU one.

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(1); a = tc.randn(2)
    >>> _ = tc.manual_seed(1); bool((a == tc.randn(2)).all())
    True
    """
    for g in _defaults.values():
        g.manual_seed(seed)
    return default_generator_of("cpu").manual_seed(seed)


def seed() -> int:
    """Seed every default generator non-deterministically; returns the seed."""
    s = default_generator_of("cpu").seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The initial seed of the default CPU generator."""
    return default_generator_of("cpu").initial_seed()


#: A saved stream position: per device type, the default generator's seed and a copy of its
#: backend state (None before the first draw).
RngStates = list[tuple[str, int, Any]]


_LOCKS = (type(threading.Lock()), type(threading.RLock()))


def _copy_state(state: Any) -> Any:
    """A deep copy of a backend's generator state. Locks in it (CuPy's bit generators hold
    one, which cannot be copied) are replaced by fresh ones; everything else is copied."""
    try:
        return copy.deepcopy(state)
    except TypeError:
        pass
    memo: dict[int, Any] = {}
    seen: set[int] = set()
    todo = [state]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or obj is None or isinstance(obj, (int, float, str, bytes)):
            continue
        seen.add(id(obj))
        if isinstance(obj, _LOCKS):
            memo[id(obj)] = threading.RLock() if "RLock" in type(obj).__name__ else threading.Lock()
            continue
        if hasattr(obj, "__array_interface__") or hasattr(obj, "__cuda_array_interface__"):
            continue  # (arrays copy themselves)
        if isinstance(obj, dict):
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        else:
            todo.extend(getattr(obj, "__dict__", {}).values())
            try:
                reduced = obj.__reduce_ex__(4)
            except (TypeError, ValueError, AttributeError):  # (deepcopy below says)
                continue
            if isinstance(reduced, tuple):
                todo.extend(reduced[1:3])
    return copy.deepcopy(state, memo)


def _get_states(device_types: Iterable[str]) -> RngStates:
    """Copies of the default generators' streams, for :func:`_set_states` to rewind to."""
    out = []
    for dt in dict.fromkeys(device_types):
        g = default_generator_of(dt)
        out.append((dt, g._seed, _copy_state(g.state)))
    return out


def _set_states(states: RngStates) -> None:
    """Rewind the default generators to what :func:`_get_states` saved (the saved copies
    stay untouched, so one snapshot may be restored more than once)."""
    for dt, seed_, state in states:
        g = default_generator_of(dt)
        g._seed, g.state = seed_, _copy_state(state)


# ------------------------------------------------------------------ vmap's randomness
# ``tc.func.vmap`` calls its function once per example. Its ``randomness`` argument says what
# a random draw inside may do: "error" refuses it, "same" gives every example the draws of the
# first (each generator is rewound, before each later example, to where it stood at its first
# draw in this vmap call), "different" lets the draws go on. Nested vmaps stack one level each.
# Every random kernel asks ``backend.generator_for`` for its generator, which calls
# :func:`_note_draw` while a level is active (one truthiness test otherwise).

_VMAP_RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


class _VmapRandomness:
    """One vmap call's ``randomness`` and, for ``"same"``, each generator's seed and state at
    its first draw in the call (keyed by ``id``; the generator is kept alive with them)."""

    __slots__ = ("mode", "saved")

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.saved: dict[int, tuple[Generator, int, Any]] = {}

    def rewind(self) -> None:
        """Put every generator drawn from so far back where it stood at its first draw."""
        for g, seed_, state in self.saved.values():
            g._seed, g.state = seed_, _copy_state(state)


class _VmapLevels(threading.local):
    def __init__(self) -> None:
        self.levels: list[_VmapRandomness] = []


#: The active vmap levels of this thread, outermost first.
_vmap_levels = _VmapLevels()


@contextlib.contextmanager
def _vmap_randomness(mode: str) -> Iterator[_VmapRandomness]:
    """Make the draws of the block follow vmap's ``randomness=mode`` (see above)."""
    level = _VmapRandomness(mode)
    _vmap_levels.levels.append(level)
    try:
        yield level
    finally:
        _vmap_levels.levels.pop()


def _note_draw(g: Generator) -> None:
    """Called before a random kernel draws from ``g`` inside a vmap: PyTorch's error in an
    ``"error"`` level; a ``"same"`` level saves ``g``'s position at its first draw."""
    for level in _vmap_levels.levels:
        if level.mode == "error":
            raise RuntimeError(_VMAP_RANDOM_ERROR)
        if level.mode == "same" and id(g) not in level.saved:
            level.saved[id(g)] = (g, g._seed, _copy_state(g.state))


@contextlib.contextmanager
def fork_rng(
    devices: Iterable[Any] = (),
    enabled: bool = True,
    device_type: str = "cuda",
) -> Iterator[None]:
    """Restore the default generators' streams on exit: draws inside the block do not move
    the streams outside it (the CPU one, and ``device_type``'s when ``devices`` is non-empty).

    Examples
    --------
    >>> import tensorcore as tc
    >>> _ = tc.manual_seed(0)
    >>> with tc.random.fork_rng():
    ...     a = tc.rand(2)
    >>> bool((a == tc.rand(2)).all())
    True
    """
    if not enabled:
        yield
        return
    types = ["cpu"] + ([device_type] if list(devices) else [])
    saved = _get_states(types)
    try:
        yield
    finally:
        _set_states(saved)
