"""What the sample generators share: :class:`Sample` (one call of an operator), ``_Maker``
(seeded tensors on one device and dtype) and ``_samples``, the decorator that registers a
generator for operator names in ``_RAW``. The generators live in the ``_samples_*.py``
modules; ``samples.py`` makes the public table."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tensorcore as tc
from tensorcore import dtypes as dt

__all__ = ["SEED", "S", "Sample", "call_op"]

#: The seed every sample generator starts from.
SEED = 20240611


@dataclass
class Sample:
    """One call of an operator: positional ``args`` and keyword ``kwargs``.

    ``desc`` is a short human-readable label (used in test ids and failure messages).
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    desc: str = ""
    #: Positions in ``args`` of matrices the operator reads as Hermitian, from one triangle
    #: (``cholesky``, ``eigh``): tests that perturb an input (finite differences) pass
    #: ``(x + x.mH) / 2`` there, so that the perturbation stays Hermitian.
    hermitian: tuple[int, ...] = ()
    #: Maps the result to the quantities that are unique (eigenvectors and singular vectors
    #: are unique only up to their signs or phases): what tests compare and differentiate.
    invariant: Callable[[Any], Any] | None = None
    #: Positions in ``args`` of triangular factors whose derivative PyTorch takes in the
    #: whole matrix although the operator reads one triangle (``cholesky_solve``): tests
    #: that perturb an input pass its lower triangle there (the upper one when the call's
    #: ``upper`` is true), as PyTorch's gradcheck wrapper for triangular inputs does.
    triangular: tuple[int, ...] = ()
    #: Positions in ``args`` of floating tensors the operator does not differentiate and
    #: PyTorch refuses to see requiring grad (``fake_quantize``'s ``scale``): tests that
    #: make the floating inputs leaves leave these as they are (:func:`split_leaves`).
    constant: tuple[int, ...] = ()

    def perturbed(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """``args`` (this sample's, perturbed by a test) kept within the inputs the operator
        is defined on: Hermitian matrices at :attr:`hermitian`, triangles at
        :attr:`triangular`."""
        if self.hermitian:
            args = tuple(
                (a + a.mT.conj()) * 0.5 if k in self.hermitian else a for k, a in enumerate(args)
            )
        if self.triangular:
            up = bool(self.kwargs.get("upper", False))
            args = tuple(
                (a.triu() if up else a.tril()) if k in self.triangular else a
                for k, a in enumerate(args)
            )
        return args

    def __repr__(self) -> str:
        def show(a: Any) -> str:
            if isinstance(a, tc.Tensor):
                nc = "" if a.is_contiguous() else ", non-contiguous"
                return f"Tensor{list(a.shape)}({a.dtype.name}{nc})"
            if isinstance(a, (list, tuple)):
                inner = ", ".join(show(x) for x in a)
                return f"[{inner}]" if isinstance(a, list) else f"({inner})"
            return repr(a)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        label = f" {self.desc!r}" if self.desc else ""
        return f"Sample{label}({', '.join(parts)})"


class _Maker:
    """Seeded tensors on one device and dtype."""

    def __init__(self, device: Any, dtype: dt.dtype) -> None:
        self.device = tc.device(device)
        self.dtype = dtype
        self.gen = tc.Generator("cpu").manual_seed(SEED)

    def generator(self, seed: int) -> tc.Generator:
        """A new generator of the samples' device, seeded with ``seed``."""
        return tc.Generator(self.device).manual_seed(seed)

    def factory_kwargs(self, seed: int, **kwargs: Any) -> dict[str, Any]:
        """``device=`` and, on the CPU, a seeded ``generator=`` for a random factory.

        A generator belongs to one device, so a factory given one of another device raises
        (PyTorch's rule), and the fuzz replaces ``device`` with None (the default device):
        off the CPU the factory draws from the device's default generator instead.
        """
        if self.device.type == "cpu":
            kwargs["generator"] = self.generator(seed)
        return {**kwargs, "device": self.device}

    def _place(self, t: tc.Tensor, dtype: dt.dtype | None = None) -> tc.Tensor:
        t = t.to(self.dtype if dtype is None else dtype)
        return t.to(self.device)

    def _uniform(self, shape: tuple[int, ...], lo: float, hi: float) -> tc.Tensor:
        u = tc.rand(*shape, generator=self.gen, dtype=tc.float64)
        return u * (hi - lo) + lo

    def uniform(self, *shape: int, lo: float = -1.0, hi: float = 1.0, t: bool = False) -> tc.Tensor:
        """Uniform values in ``[lo, hi)``; ``t=True`` gives a transposed (non-contiguous)
        tensor of the same (2-D) shape."""
        if t:
            return self._place(self._uniform(shape[::-1], lo, hi)).t()
        return self._place(self._uniform(shape, lo, hi))

    def away(self, *shape: int, lo: float = 0.3, hi: float = 1.5, t: bool = False) -> tc.Tensor:
        """Values with ``lo <= |x| < hi`` and random signs (away from zero)."""
        if not self.floating:
            lo, hi = 1.0, 4.0  # integral data: nonzero after truncation
        mag = self._uniform(shape[::-1] if t else shape, lo, hi)
        sign = (tc.rand(*mag.shape, generator=self.gen, dtype=tc.float64) < 0.5).to(tc.float64)
        x = self._place(mag * (sign * 2 - 1))
        return x.t() if t else x

    def positive(self, *shape: int, lo: float = 0.5, hi: float = 2.0, t: bool = False) -> tc.Tensor:
        """Values in ``[lo, hi)`` (for log, sqrt, pow bases...)."""
        return self.uniform(*shape, lo=lo, hi=hi, t=t)

    def distinct(self, *shape: int, t: bool = False) -> tc.Tensor:
        """Values at least 0.2 apart (no ties for max/min/sort/topk)."""
        n = math.prod(shape)
        perm = tc.randperm(n, generator=self.gen).to(tc.float64)
        noise = tc.rand(n, generator=self.gen, dtype=tc.float64) * 0.3
        vals = ((perm + noise) * 0.5 - n * 0.25).reshape(*(shape[::-1] if t else shape))
        x = self._place(vals)
        return x.t() if t else x

    def off_integer(self, *shape: int, lo: float = 0.2, hi: float = 0.8) -> tc.Tensor:
        """An integer plus a fraction in ``[lo, hi)`` (away from floor/ceil/round jumps)."""
        k = tc.randint(-3, 3, shape, generator=self.gen).to(tc.float64)
        return self._place(k + self._uniform(shape, lo, hi))

    def ints(self, *shape: int, lo: int = 0, hi: int = 8, dtype: dt.dtype = dt.int64) -> tc.Tensor:
        """Integers in ``[lo, hi)``."""
        return self._place(tc.randint(lo, hi, shape, generator=self.gen), dtype)

    def index(self, values: Any) -> tc.Tensor:
        """An int64 index tensor with the given values."""
        return tc.tensor(values, dtype=tc.int64, device=self.device)

    def mask(self, *shape: int) -> tc.Tensor:
        """A bool tensor with both values present."""
        m = tc.rand(*shape, generator=self.gen) < 0.5
        flat = m.reshape(-1)
        flat[0], flat[-1] = True, False
        return m.to(self.device)

    @property
    def floating(self) -> bool:
        """Whether the data dtype is floating point (or complex)."""
        return self.dtype.is_floating_point or self.dtype.is_complex

    def low(self, lo: float) -> float:
        """``lo`` for floating data, else 0 (integers have no negative powers, no fractions)."""
        return lo if self.floating else 0.0

    def int_dtype(self) -> dt.dtype:
        """``dtype`` when it is integral, else int64."""
        d = self.dtype
        if d.is_floating_point or d.is_complex or d is dt.bool_:
            return dt.int64
        return d


S = Sample
_Gen = Callable[[_Maker], list[Sample]]
_RAW: dict[str, _Gen] = {}


def _samples(*names: str) -> Callable[[_Gen], _Gen]:
    def deco(fn: _Gen) -> _Gen:
        for n in names:
            if n in _RAW:
                raise ValueError(f"samples for {n} defined twice")
            _RAW[n] = fn
        return fn

    return deco


def _full_args(name: str, sample: Sample) -> tuple[Any, ...]:
    """Arguments in signature order with defaults filled (how the dispatcher takes them)."""
    from tensorcore.ops._signature import MISSING
    from tensorcore.ops.schema import OPS

    params = OPS[name].parsed.params
    args = list(sample.args)
    kwargs = dict(sample.kwargs)
    for p in params[len(args) :]:
        if p.name in kwargs:
            args.append(kwargs.pop(p.name))
        elif p.default is not MISSING:
            args.append(p.default)
        else:
            raise TypeError(f"{name}(): missing required argument '{p.name}'")
    if kwargs:
        raise TypeError(f"{name}(): unexpected keyword arguments {sorted(kwargs)}")
    return tuple(args)


def call_op(name: str, sample: Sample) -> Any:
    """Run operator ``name`` on ``sample``.

    Uses ``tensorcore.<name>`` when the operator has a function, else the ``Tensor`` method,
    else (internal operators such as ``max_dim``, ``index``, ``slice``, ``to_dtype``) the
    dispatcher directly, with defaults filled in from the signature.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing.samples import Sample, call_op
    >>> call_op("slice", Sample((tc.arange(6), 0, 1, None, 2))).tolist()
    [1, 3, 5]
    """
    from tensorcore.ops.schema import OPS

    decl = OPS[name]
    if decl.function:
        return getattr(tc, name)(*sample.args, **sample.kwargs)
    if decl.method:
        self, *rest = sample.args
        return getattr(self, name)(*rest, **sample.kwargs)
    from tensorcore.dispatch import get_op
    from tensorcore.ops._call import call

    return call(get_op(name), _full_args(name, sample))
