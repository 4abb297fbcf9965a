"""Sample inputs for every declared operator: the data the generic (table-driven) tests run on.

``SAMPLES[name](device, dtype)`` returns a list of :class:`Sample` for operator ``name``, for
every operator the core declares (:func:`core_ops`): small inputs (at most 4x5) that cover
broadcasting, keyword arguments and, where it fits, a non-contiguous (transposed, sliced or
expanded) input. Values are drawn from a :class:`tensorcore.Generator` with a fixed seed and
lie in the operator's safe domain: positive for ``log``/``sqrt``, inside ``(-0.9, 0.9)`` for
``asin``/``acos``, away from zero for denominators, away from the kinks of
``abs``/``relu``/``clamp``/``floor``... and without ties for
``max``/``min``/``sort``/``topk``/``amax``, so that finite differences (``gradcheck``) are
meaningful.

``dtype`` is the dtype of the floating-point data inputs; integer indices stay int64, masks
stay bool, and operators that only take integers or bools (``bitwise_*``, ``logical_*``)
use int64/bool when ``dtype`` is floating. With an integer ``dtype``, a sample is a valid
call only where the operator accepts integers (``mean`` of int64 raises, as in PyTorch).
:func:`call_op` runs a sample through the public function, the ``Tensor`` method or (for
internal operators) the dispatcher.

Only the public API builds the inputs, so a third-party backend can run the same samples.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.testing.samples import SAMPLES, call_op
>>> s = SAMPLES["mul"]("cpu", tc.float64)[0]
>>> call_op("mul", s).shape == tc.broadcast_shapes(s.args[0].shape, s.args[1].shape)
True
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing._helpers import dtype_unsupported

__all__ = [
    "SAMPLES",
    "Sample",
    "call_op",
    "core_ops",
    "inplace_only",
    "split_leaves",
    "tensor_inputs",
]

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


# ------------------------------------------------------------------ pointwise, binary
@_samples("mul")
def _mul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.uniform(3)), desc="transposed + broadcast row"),
        S((m.uniform(2, 1), m.uniform(1, 3)), desc="outer broadcast"),
        S((m.uniform(3), 2.5), desc="python scalar"),
        S((m.uniform(2, 3), m.uniform()), desc="0-dim other"),
    ]


@_samples("add", "sub", "rsub")
def _add(m: _Maker) -> list[Sample]:
    return [*_mul(m), S((m.uniform(2, 3), m.uniform(3)), {"alpha": 2}, desc="alpha")]


@_samples("true_divide")
def _true_divide(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="transposed / broadcast row"),
        S((m.uniform(3), 1.5), desc="python scalar"),
    ]


@_samples("div")
def _div(m: _Maker) -> list[Sample]:
    # Rounded quotients jump where self / other is an integer: keep away from those.
    other = m.positive(2, 3, lo=1.0, hi=1.5)
    self = other * m.off_integer(2, 3)
    return [
        *_true_divide(m),
        S((m.uniform(3), m.away(3)), {"rounding_mode": None}, desc="rounding_mode None"),
        S((self, other), {"rounding_mode": "floor"}, desc="floor"),
        S((self, other), {"rounding_mode": "trunc"}, desc="trunc"),
    ]


@_samples("floor_divide")
def _floor_divide(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-4, hi=4), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, lo=-4, hi=4), m.away(3)), desc="broadcast"),
    ]


@_samples("remainder", "fmod")
def _remainder(m: _Maker) -> list[Sample]:
    # self = other * (k + frac): never near a multiple of other (where the result jumps).
    other = m.away(2, 3, lo=0.5, hi=1.5)
    row = m.away(3, lo=0.5, hi=1.5)
    return [
        S((other * m.off_integer(2, 3), other), desc="same shape"),
        S(((row * m.off_integer(2, 3)).t().contiguous().t(), row), desc="broadcast row"),
        S((m.off_integer(3) * 0.7, 0.7), desc="python scalar"),
    ]


@_samples("pow")
def _pow(m: _Maker) -> list[Sample]:
    return [
        S((m.positive(2, 3), m.uniform(2, 3, lo=m.low(-2), hi=2)), desc="tensor exponent"),
        S(
            (
                m.positive(3, 2, t=True),
                m.uniform(2),
            ),
            desc="transposed base, broadcast",
        ),
        S((m.uniform(2, 3), 2), desc="integer scalar exponent"),
        S((m.positive(3), 0.5), desc="fractional scalar exponent"),
    ]


@_samples("atan2")
def _atan2(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="broadcast"),
    ]


@_samples("maximum", "minimum")
def _maximum(m: _Maker) -> list[Sample]:
    b = m.uniform(2, 3)
    a = b + m.away(2, 3, lo=0.1, hi=0.5)
    row = m.uniform(3)
    return [
        S((a, b), desc="same shape, no ties"),
        S(((row + m.away(2, 3, lo=0.1, hi=0.5)).t().contiguous().t(), row), desc="broadcast"),
    ]


@_samples("eq", "ne", "lt", "le", "gt", "ge")
def _compare(m: _Maker) -> list[Sample]:
    a = m.ints(2, 3, hi=3).to(m.dtype)
    return [
        S((a, m.ints(2, 3, hi=3).to(m.dtype)), desc="same shape"),
        S((a, m.ints(3, hi=3).to(m.dtype)), desc="broadcast"),
        S((a, 1), desc="python scalar"),
    ]


@_samples("logical_and", "logical_or", "logical_xor")
def _logical(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3), m.mask(2, 3)), desc="bool"),
        S((m.ints(2, 3, hi=2).to(m.dtype), m.mask(3)), desc="numbers and bool, broadcast"),
    ]


@_samples("bitwise_and", "bitwise_or", "bitwise_xor")
def _bitwise(m: _Maker) -> list[Sample]:
    d = m.int_dtype()
    return [
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(2, 3, hi=16, dtype=d)), desc="ints"),
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(3, hi=16, dtype=d)), desc="broadcast"),
        S((m.mask(2, 3), m.mask(2, 3)), desc="bool"),
    ]


@_samples("bitwise_left_shift", "bitwise_right_shift")
def _shift(m: _Maker) -> list[Sample]:
    d = m.int_dtype()
    out = [
        S((m.ints(2, 3, hi=16, dtype=d), m.ints(2, 3, hi=3, dtype=d)), desc="ints"),
        S((m.ints(2, 3, hi=16, dtype=d), 1), desc="python scalar"),
    ]
    if m.dtype is dt.bool_:  # (refused: PyTorch shifts integers only)
        out.append(S((m.mask(2, 3), m.mask(2, 3)), desc="bool"))
    return out


# ------------------------------------------------------------------ pointwise, unary
def _unary(make: Callable[[_Maker, tuple[int, ...], bool], tc.Tensor]) -> _Gen:
    def gen(m: _Maker) -> list[Sample]:
        return [
            S((make(m, (2, 3), False),), desc="2-D"),
            S((make(m, (3, 4), True),), desc="transposed"),
            S((make(m, (), False),), desc="0-dim"),
        ]

    return gen


_any = _unary(lambda m, s, t: m.uniform(*s, t=t))
_away = _unary(lambda m, s, t: m.away(*s, t=t))
_pos = _unary(lambda m, s, t: m.positive(*s, t=t))
_small = _unary(lambda m, s, t: m.uniform(*s, lo=-0.9, hi=0.9, t=t))
for _n in (
    "neg",
    "exp",
    "exp2",
    "expm1",
    "sin",
    "cos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "sigmoid",
    "erf",
):
    _RAW[_n] = _any
for _n in ("abs", "sign", "reciprocal", "relu"):
    _RAW[_n] = _away
for _n in ("log", "log2", "log10", "sqrt", "rsqrt"):
    _RAW[_n] = _pos
for _n in ("asin", "acos", "tan"):
    _RAW[_n] = _small
for _n in ("conj", "real"):
    _RAW[_n] = _any
# imag of a real tensor is an error: its samples are complex (of the data dtype's precision).
_RAW["imag"] = _unary(
    lambda m, s, t: (
        m.uniform(*s, t=t).to(m.dtype.to_complex() if m.floating else tc.complex64) * (1 + 0.5j)
    )
)
_RAW["log1p"] = _unary(lambda m, s, t: m.uniform(*s, lo=-0.5, hi=2.0, t=t))
_RAW["square"] = _any
_RAW["view_as_real"] = _RAW["imag"]


@_samples("angle")
def _angle(m: _Maker) -> list[Sample]:
    # Real numbers away from 0 (where a real angle jumps) and complex ones.
    ctype = m.dtype.to_complex() if m.floating else tc.complex64
    return [
        S((m.away(2, 3),), desc="real"),
        S((m.away(3, 4, t=True).to(ctype) * (1 - 0.5j),), desc="complex, transposed"),
        S((m.away().to(ctype) * 1j,), desc="0-dim complex"),
    ]


@_samples("view_as_complex")
def _view_as_complex(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 2),), desc="contiguous"),
        S((m.uniform(3, 2, 2).transpose(0, 1),), desc="permuted leading dims"),
        S((m.uniform(2),), desc="one number"),
    ]


@_samples("complex", "polar")
def _complex(m: _Maker) -> list[Sample]:
    return [
        S((m.positive(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.positive(2, 3, t=True), m.uniform(3)), desc="transposed, broadcast row"),
    ]


@_samples("tanh_backward", "sigmoid_backward")
def _activation_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-0.9, hi=0.9)), desc="same shape"),
        S((m.uniform(3, 4, t=True), m.uniform(4, lo=-0.9, hi=0.9)), desc="broadcast"),
    ]


@_samples("gelu")
def _gelu(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-4.0, hi=4.0),), desc="exact"),
        S((m.uniform(3, 4, t=True, lo=-4.0, hi=4.0),), {"approximate": "tanh"}, desc="tanh"),
    ]


@_samples("gelu_backward")
def _gelu_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-4.0, hi=4.0)), desc="exact"),
        S(
            (m.uniform(3, 4, t=True), m.uniform(4, lo=-4.0, hi=4.0)),
            {"approximate": "tanh"},
            desc="tanh, broadcast",
        ),
    ]


@_samples("threshold_backward")
def _threshold_backward(m: _Maker) -> list[Sample]:
    # ``self`` away from the threshold: the step is not differentiable there.
    return [
        S((m.uniform(2, 3), m.away(2, 3), 0), desc="relu"),
        S((m.uniform(3, 4, t=True), m.away(3, 4), -0.1), desc="negative threshold"),
    ]


@_samples("leaky_relu")
def _leaky_relu(m: _Maker) -> list[Sample]:
    # ``self`` away from the kinks (0 here; +-lambd, the bounds, +-3 below).
    return [S((m.away(2, 3), 0.1)), S((m.away(3, 4, t=True),), desc="default slope")]


@_samples("leaky_relu_backward")
def _leaky_relu_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3), 0.2, False))]


@_samples("hardtanh")
def _hardtanh(m: _Maker) -> list[Sample]:
    # (|x| >= 0.3: the negative ones clamped, the positive ones inside)
    return [S((m.away(2, 3), -0.2, 2.0)), S((m.away(3, 4, t=True),), desc="default bounds")]


@_samples("hardtanh_backward")
def _hardtanh_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3), -0.2, 2.0))]


@_samples("hardsigmoid")
def _hardsigmoid(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3, lo=0.3, hi=2.5),), desc="inside"),
        S((m.away(3, 4, lo=3.5, hi=6.0, t=True),), desc="outside"),
    ]


@_samples("hardsigmoid_backward")
def _hardsigmoid_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=2.0, hi=4.0)))]


@_samples("silu", "mish", "hardswish", "log_sigmoid")
def _smooth_activation(m: _Maker) -> list[Sample]:
    # (hardswish's kinks at -3 and 3: |x| in [0.3, 2.5] and [3.5, 6] stay off them)
    return [
        S((m.away(2, 3, lo=0.3, hi=2.5),), desc="middle"),
        S((m.away(3, 4, lo=3.5, hi=6.0, t=True),), desc="tails"),
    ]


@_samples("softplus")
def _softplus(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="defaults"),
        S((m.away(3, 4, lo=0.3, hi=3.0), 2.0, 3.0), desc="beta 2, threshold 3 (both sides)"),
    ]


@_samples("softplus_backward")
def _softplus_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=3.0), 2.0, 3.0))]


@_samples("elu")
def _elu(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3),), desc="defaults"),
        S((m.away(3, 4, t=True), 0.5, 1.0507, 2.0), desc="selu-like scale, celu-like input_scale"),
    ]


@_samples("elu_backward")
def _elu_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 0.7, 1.5, 0.5, False, m.away(2, 3)), desc="from the input"),
        S((m.uniform(2, 3), 0.7, 1.5, 0.5, True, m.away(2, 3, lo=0.3, hi=0.9)), desc="result"),
    ]


@_samples("silu_backward", "mish_backward", "hardswish_backward", "log_sigmoid_backward")
def _smooth_activation_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=2.5)))]


@_samples("softshrink", "hardshrink")
def _shrink(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3), 0.2), desc="outside"),
        S((m.away(3, 4, t=True), 2.0), desc="inside"),
        S((m.away(4, lo=0.6),), desc="default lambd"),
    ]


@_samples("softshrink_backward", "hardshrink_backward")
def _shrink_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.away(2, 3, lo=0.3, hi=1.0), 0.6))]


@_samples("threshold")
def _threshold(m: _Maker) -> list[Sample]:
    return [S((m.away(2, 3), 0.1, 20.0)), S((m.away(3, 4, t=True), -0.2, -1.0), desc="negative")]


@_samples("_prelu_kernel")
def _prelu_kernel(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3, 4), m.uniform(3, 1, lo=0.1, hi=0.5)), desc="one slope per channel"),
        S((m.away(3, 4, t=True), m.uniform(1, lo=0.1, hi=0.5)), desc="one slope"),
    ]


@_samples("_prelu_kernel_backward")
def _prelu_kernel_backward(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 4), m.away(2, 3, 4), m.uniform(3, 1, lo=0.1, hi=0.5)))]


@_samples("smooth_l1_loss", "huber_loss")
def _pointwise_loss(m: _Maker) -> list[Sample]:
    # (|self - target| in about [0.29, 1.51): inside a parameter of 2, beyond one of 0.1,
    # away from the kinks)
    return [
        S((m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01)), desc="mean, default parameter"),
        S((m.away(3, 4, t=True), m.uniform(3, 4, lo=-0.01, hi=0.01), "sum", 2.0), desc="inside"),
        S((m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "none", 0.1), desc="beyond"),
        S((m.away(), m.uniform(lo=-0.01, hi=0.01), "none", 2.0), desc="0-d"),
    ]


@_samples("smooth_l1_loss_backward", "huber_loss_backward")
def _pointwise_loss_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "mean", 2.0)),
        S((m.uniform(2, 3), m.away(2, 3), m.uniform(2, 3, lo=-0.01, hi=0.01), "none", 0.1)),
    ]


@_samples("binary_cross_entropy")
def _binary_cross_entropy(m: _Maker) -> list[Sample]:
    # (probabilities in [0.1, 0.9]: away from the clamped logs and the gradient's poles)
    return [
        S((m.uniform(2, 3, lo=0.1, hi=0.9), m.uniform(2, 3, lo=0.0, hi=1.0)), desc="mean"),
        S(
            (
                m.uniform(3, 4, lo=0.1, hi=0.9, t=True),
                m.uniform(3, 4, lo=0.0, hi=1.0),
                m.uniform(4, lo=0.5, hi=2.0),
                "sum",
            ),
            desc="weight per column, sum",
        ),
        S((m.uniform(lo=0.1, hi=0.9), m.uniform(lo=0.0, hi=1.0), None, "none"), desc="0-d"),
    ]


@_samples("binary_cross_entropy_backward")
def _binary_cross_entropy_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.uniform(2, 3, lo=0.1, hi=0.9), m.uniform(2, 3, lo=0.0, hi=1.0))),
        S(
            (
                m.uniform(2, 3),
                m.uniform(2, 3, lo=0.1, hi=0.9),
                m.uniform(2, 3, lo=0.0, hi=1.0),
                m.uniform(3, lo=0.5, hi=2.0),
                "none",
            ),
            desc="weight, none",
        ),
    ]


@_samples("binary_cross_entropy_with_logits")
def _binary_cross_entropy_with_logits(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, lo=-3.0, hi=3.0), m.uniform(2, 3, lo=0.0, hi=1.0)), desc="mean"),
        S(
            (
                m.uniform(3, 4, lo=-3.0, hi=3.0, t=True),
                m.uniform(3, 4, lo=0.0, hi=1.0),
                m.uniform(4, lo=0.5, hi=2.0),
                m.uniform(4, lo=0.5, hi=2.0),
                "sum",
            ),
            desc="weight and pos_weight per column, sum",
        ),
        S((m.uniform(), m.uniform(lo=0.0, hi=1.0), None, None, "none"), desc="0-d"),
    ]


@_samples("binary_cross_entropy_with_logits_backward")
def _binary_cross_entropy_with_logits_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(), m.uniform(2, 3, lo=-3.0, hi=3.0), m.uniform(2, 3, lo=0.0, hi=1.0))),
        S(
            (
                m.uniform(2, 3),
                m.uniform(2, 3, lo=-3.0, hi=3.0),
                m.uniform(2, 3, lo=0.0, hi=1.0),
                m.uniform(3, lo=0.5, hi=2.0),
                m.uniform(3, lo=0.5, hi=2.0),
                "none",
            ),
            desc="weight and pos_weight, none",
        ),
    ]


@_samples("floor", "ceil", "trunc")
def _rounding(m: _Maker) -> list[Sample]:
    return [S((m.off_integer(2, 3),)), S((m.off_integer(4, 3).t(),), desc="transposed")]


@_samples("round")
def _round(m: _Maker) -> list[Sample]:
    # Round jumps at k + 0.5: stay within 0.3 of an integer.
    return [
        S((m.off_integer(2, 3, lo=-0.3, hi=0.3),)),
        S((m.off_integer(2, 3, lo=-0.3, hi=0.3) / 10,), {"decimals": 1}, desc="decimals"),
    ]


@_samples("isnan", "isinf", "isfinite")
def _special(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    if m.dtype.is_floating_point:
        special = m.uniform(2, 3)
        special[0, 0], special[0, 1], special[1, 2] = math.nan, math.inf, -math.inf
        return [S((x,), desc="finite"), S((special,), desc="nan and infinities")]
    return [S((x,))]


@_samples("nan_to_num")
def _nan_to_num(m: _Maker) -> list[Sample]:
    out = _special(m)
    if m.dtype.is_floating_point:
        special = out[-1].args[0]
        out.append(S((special, 1.0, 5.0, -5.0), desc="explicit replacements"))
    return out


@_samples("logical_not", "bitwise_not")
def _not(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3),), desc="bool"), S((m.ints(2, 3, hi=16, dtype=m.int_dtype()),))]


@_samples("clamp", "clip")
def _clamp(m: _Maker) -> list[Sample]:
    # Values in (-1.5, -0.8) u (-0.4, 0.4) u (0.8, 1.5): away from the bounds +-0.6.
    x = m.away(2, 3, lo=0.8, hi=1.5)
    x[0] = m.uniform(3, lo=-0.4, hi=0.4)
    lo = m.uniform(3, lo=-0.7, hi=-0.5)
    hi = m.uniform(2, 1, lo=0.5, hi=0.7)
    return [
        S((x, -0.6, 0.6), desc="scalar bounds"),
        S((x, lo, hi), desc="tensor bounds, broadcast"),
        S((x.t().contiguous().t(), None, hi), desc="max only"),
        S((x, lo), desc="min only"),
    ]


@_samples("where")
def _where(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3), m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.mask(2, 1), m.uniform(2, 3, t=True), m.uniform(3)), desc="broadcast"),
        S((m.mask(2, 3), m.uniform(2, 3), 0.5), desc="scalar other"),
    ]


@_samples("lerp")
def _lerp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3), m.uniform(2, 3, lo=0, hi=1)), desc="tensor weight"),
        S((m.uniform(2, 3, t=True), m.uniform(3), 0.3), desc="scalar weight, broadcast"),
    ]


# ------------------------------------------------------------------ pointwise: special functions
for _n in (
    "asinh",
    "erfc",
    "i0",
    "special_i1",
    "special_i0e",
    "special_i1e",
    "special_erfcx",
    "special_bessel_j0",
    "special_bessel_j1",
    "special_airy_ai",
    "sinc",
    "deg2rad",
    "rad2deg",
    "signbit",
):
    _RAW[_n] = _any
_RAW["positive"] = _any
for _n in ("atanh", "erfinv"):
    _RAW[_n] = _small
_RAW["acosh"] = _unary(lambda m, s, t: m.positive(*s, lo=1.2, hi=3.0, t=t))
_RAW["digamma"] = _pos


for _n in (
    "special_bessel_y0",
    "special_bessel_y1",
    "special_modified_bessel_k0",
    "special_modified_bessel_k1",
    "special_scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1",
):
    _RAW[_n] = _pos  # (NaN below 0, infinite at 0)


@_samples("special_zeta")
def _special_zeta(m: _Maker) -> list[Sample]:
    # PyTorch differentiates zeta in ``other`` only: ``self`` is a number or an integer
    # tensor here, so that the generic gradient tests perturb ``other`` alone.
    whole = tc.tensor([[2, 3, 5]], device=m.device)
    return [
        S((2.5, m.positive(2, 3)), desc="python scalar self"),
        S((whole, m.positive(2, 3, t=True)), desc="integer self, transposed other"),
        S((whole, m.positive(3, 1)), desc="broadcast"),
    ]


@_samples("lgamma")
def _lgamma(m: _Maker) -> list[Sample]:
    # Positive, and negative between the poles (where Gamma changes sign; no bool is).
    if m.dtype is dt.bool_:
        return _pos(m)
    return [*_pos(m), S((m.off_integer(2, 3) - 4,), desc="negative, between poles")]


@_samples("polygamma")
def _polygamma(m: _Maker) -> list[Sample]:
    out = [
        S((1, m.positive(2, 3)), desc="trigamma"),
        S((2, m.positive(3, 4, t=True)), desc="n=2, transposed"),
        S((0, m.positive()), desc="n=0 (digamma), 0-dim"),
    ]
    if m.dtype is dt.bool_:  # (no bool is negative)
        return out
    return [*out, S((3, m.off_integer(2, 3) - 4), desc="n=3, negative between poles")]


@_samples("logit")
def _logit(m: _Maker) -> list[Sample]:
    inner = m.uniform(2, 3, lo=0.3, hi=0.7)
    inner[0, 0], inner[1, 2] = 0.05, 0.95  # clamped by eps=0.2: their gradient is 0
    return [
        S((m.uniform(2, 3, lo=0.1, hi=0.9),), desc="no eps"),
        S((m.uniform(3, 4, lo=0.1, hi=0.9, t=True),), {"eps": None}, desc="transposed"),
        S((inner, 0.2), desc="eps clamps"),
    ]


@_samples("frexp")
def _frexp(m: _Maker) -> list[Sample]:
    # Away from the powers of two, where the mantissa jumps.
    def values(*shape: int, t: bool = False) -> tc.Tensor:
        mag = m.away(*shape, lo=0.55, hi=0.95, t=t) * 4 if m.floating else m.ints(*shape, lo=-8)
        return mag

    return [S((values(2, 3),)), S((values(3, 4, t=True),), desc="transposed"), S((values(),))]


@_samples("hypot", "logaddexp", "logaddexp2", "nextafter")
def _hypot(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.away(2, 3, t=True), m.away(3)), desc="transposed + broadcast row"),
        S((m.away(2, 1), m.away(1, 3)), desc="outer broadcast"),
        S((m.away(3), 1.5), desc="python scalar"),
    ]


@_samples("copysign")
def _copysign(m: _Maker) -> list[Sample]:
    # ``other`` away from 0, where its sign flips.
    return [
        S((m.uniform(2, 3), m.away(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.away(3)), desc="transposed + broadcast row"),
        S((m.uniform(3), -2.0), desc="python scalar"),
    ]


@_samples("xlogy")
def _xlogy(m: _Maker) -> list[Sample]:
    # (no zero self: PyTorch's rule gives it no gradient, where x log(y) has log(y))
    return [
        S((m.uniform(2, 3), m.positive(2, 3)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.positive(3)), desc="transposed + broadcast row"),
        S((m.uniform(3), 1.5), desc="python scalar other"),
        S((2.0, m.positive(3)), desc="python scalar self"),
    ]


@_samples("fmax", "fmin")
def _fmax(m: _Maker) -> list[Sample]:
    return _maximum(m)


@_samples("heaviside")
def _heaviside(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    x[0, 0] = 0.0
    return [
        S((x, m.uniform(2, 3)), desc="same shape, a zero"),
        S((m.uniform(2, 3, t=True), m.uniform(3)), desc="transposed + broadcast row"),
        S((x, m.uniform()), desc="0-d values"),  # (PyTorch refuses a Python number)
    ]


@_samples("float_power")
def _float_power(m: _Maker) -> list[Sample]:
    return _pow(m)


@_samples("ldexp")
def _ldexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-2, hi=2)), desc="same shape"),
        S((m.uniform(2, 3, t=True), m.ints(3, lo=-3, hi=4)), desc="integer exponents, broadcast"),
        S((m.uniform(3), 3), desc="python int exponent"),
    ]


# ------------------------------------------------------------------ reductions and scans
@_samples("sum", "mean")
def _sum(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), desc="dim 1 of transposed"),
        S((m.uniform(2, 3, 2), (0, 2)), {"keepdim": True}, desc="two dims, keepdim"),
        S((m.uniform(2, 3), -1), {"dtype": m.dtype}, desc="dtype"),
    ]


@_samples("prod")
def _prod(m: _Maker) -> list[Sample]:
    with_zero = m.away(2, 3, lo=0.5, hi=1.5)
    with_zero[1, 1] = 0.0
    return [
        S((m.away(2, 3, lo=0.5, hi=1.5),), desc="all"),
        S((m.away(4, 3, lo=0.5, hi=1.5, t=True), 1), desc="dim 1 of transposed"),
        S((with_zero, 1, True), desc="with a zero, keepdim"),
        S((with_zero,), desc="with a zero, all"),
    ]


@_samples("amax", "amin")
def _amax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(3, 4, t=True), 1), desc="dim 1 of transposed"),
        S((m.distinct(2, 3, 2), (0, 2), True), desc="two dims, keepdim"),
    ]


@_samples("evenly_distribute_backward")
def _evenly_distribute_backward(m: _Maker) -> list[Sample]:
    # (integer self and value with ties: constants to finite differences, whose steps would
    # break the ties that the operator reads)
    x = m.ints(3, 4, hi=3)
    return [
        S((m.uniform(3), x, x.amax(1), [1], False), desc="dim 1, ties"),
        S((m.uniform(1, 4), x, x.amin(0, keepdim=True), [0], True), desc="dim 0, keepdim"),
        S((m.uniform(), x, x.amax(), [], False), desc="every dim"),
        S((m.uniform(), x, x.amax(), [], False, True), desc="every dim, NaN ties"),
    ]


@_samples("value_selecting_reduction_backward")
def _value_selecting_reduction_backward(m: _Maker) -> list[Sample]:
    i = tc.tensor([2, 0, 3], device=m.device)
    i0 = tc.tensor([[1, 2, 0, 2]], device=m.device)
    return [
        S((m.uniform(3), 1, i, [3, 4], False), desc="dim 1"),
        S((m.uniform(1, 4), 0, i0, [3, 4], True), desc="dim 0, keepdim"),
        S((m.uniform(), 0, tc.tensor(0, device=m.device), [], False), desc="0-d"),
    ]


@_samples("max_all", "min_all")
def _extreme_all(m: _Maker) -> list[Sample]:
    return [S((m.distinct(2, 3),), desc="2-d"), S((m.distinct(4, t=True),), desc="1-d")]


@_samples("max_dim", "min_dim")
def _max_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3), 1), desc="dim 1"),
        S((m.distinct(3, 4, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("max", "min")
def _max(m: _Maker) -> list[Sample]:
    b = m.uniform(2, 3)
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(3, 4, t=True), 1), desc="dim"),
        S((m.distinct(2, 3), 0, True), desc="dim, keepdim"),
        S((b + m.away(2, 3, lo=0.1, hi=0.5), b), desc="elementwise with a tensor"),
    ]


@_samples("argmax", "argmin")
def _argmax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="flattened"),
        S((m.distinct(3, 4, t=True), 1), desc="dim"),
        S((m.distinct(2, 3), 0, True), desc="dim, keepdim"),
    ]


@_samples("var", "std")
def _var(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), desc="dim 1 of transposed"),
        S((m.uniform(2, 3, 2), (0, 2)), {"correction": 0, "keepdim": True}, desc="correction 0"),
    ]


@_samples("vector_norm", "norm")
def _vector_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.away(2, 3),), desc="2-norm, all"),
        S((m.away(4, 3, t=True), 1, 1), desc="1-norm, dim 1 of transposed"),
        S((m.distinct(2, 3), math.inf, (0,), True), desc="inf-norm, keepdim"),
        S((m.away(2, 3), 3, -1), desc="3-norm"),
    ]


@_samples("logsumexp")
def _logsumexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), (0, 1), True), desc="all dims of transposed, keepdim"),
    ]


@_samples("all", "any")
def _all(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3),), desc="all"),
        S((m.mask(2, 3), 1), desc="dim"),
        S((m.ints(2, 3, hi=2).to(m.dtype), (0,), True), desc="numbers, keepdim"),
    ]


@_samples("cumsum")
def _cumsum(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), 0), desc="dim 0 of transposed"),
        S((m.uniform(3), 0), {"dtype": m.dtype}, desc="dtype"),
    ]


@_samples("cumprod")
def _cumprod(m: _Maker) -> list[Sample]:
    with_zero = m.away(2, 4, lo=0.5, hi=1.5)
    with_zero[0, 1] = 0.0
    return [
        S((m.away(2, 3, lo=0.5, hi=1.5), 1), desc="dim 1"),
        S((m.away(4, 3, lo=0.5, hi=1.5, t=True), 0), desc="dim 0 of transposed"),
        S((with_zero, 1), desc="with a zero"),
    ]


@_samples("softmax", "log_softmax")
def _softmax(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), 0), desc="dim 0 of transposed"),
        S((m.uniform(2, 3), -1, m.dtype), desc="dtype"),
    ]


@_samples("_safe_softmax")
def _safe_softmax(m: _Maker) -> list[Sample]:
    # (a row of -inf only, a row with two, a row with none)
    masked = tc.tensor([[1, 1, 1, 1], [0, 1, 0, 1], [0, 0, 0, 0]], dtype=tc.bool, device=m.device)
    return [
        *_softmax(m),
        S((m.uniform(3, 4).masked_fill(masked, float("-inf")), 1), desc="rows of -inf"),
    ]


@_samples("_softmax_backward_data", "_log_softmax_backward_data")
def _softmax_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3, lo=-2.0, hi=0.0), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), m.uniform(4, 3, lo=-2.0, hi=0.0), 0), desc="dim 0"),
    ]


@_samples("nll_loss")
def _nll_loss(m: _Maker) -> list[Sample]:
    t = m.index([0, 2, 1, 2])
    w = m.positive(3, lo=0.5, hi=2.0)
    return [
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), t), desc="mean"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), t, None, "sum"), desc="sum"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0, t=True), t), {"reduction": "none"}, desc="none"),
        S((m.uniform(4, 3, lo=-2.0, hi=0.0), m.index([0, -100, 1, 2]), w), desc="weight, ignored"),
        S(
            (m.uniform(4, 3, lo=-2.0, hi=0.0), m.index([0, 2, 2, 1]), w, "none", 2),
            desc="weight, none, ignore_index=2",
        ),
    ]


@_samples("nll_loss_backward")
def _nll_loss_backward(m: _Maker) -> list[Sample]:
    t = m.index([0, 2, 1, 2])
    return [
        S((m.uniform(), t, 3), desc="mean"),
        S((m.uniform(), t, 3, "sum"), desc="sum"),
        S((m.uniform(4), t, 3, "none"), desc="none"),
        S(
            (m.uniform(), m.index([0, -100, 1, 2]), 3, "mean", m.positive(3, lo=0.5, hi=2.0)),
            desc="weight, ignored",
        ),
    ]


@_samples("convolution")
def _convolution(m: _Maker) -> list[Sample]:
    return [
        S(
            (
                m.uniform(2, 3, 5, 5),
                m.uniform(4, 3, 3, 3),
                m.uniform(4),
                (1,),
                (1,),
                (1,),
                False,
                (0,),
                1,
            ),
            desc="2-D, same padding",
        ),
        S(
            (
                m.uniform(1, 4, 7, 6),
                m.uniform(6, 2, 2, 3),
                None,
                (2, 1),
                (0, 1),
                (2, 1),
                False,
                (0,),
                2,
            ),
            desc="2-D, groups, strides, dilation, no bias",
        ),
        S(
            (
                m.uniform(2, 2, 9),
                m.uniform(3, 2, 3),
                m.uniform(3),
                (2,),
                (1,),
                (1,),
                False,
                (0,),
                1,
            ),
            desc="1-D",
        ),
        S(
            (
                m.uniform(1, 3, 4, 4),
                m.uniform(3, 2, 3, 3),
                m.uniform(2),
                (2,),
                (1,),
                (1,),
                True,
                (1,),
                1,
            ),
            desc="transposed, output_padding",
        ),
    ]


@_samples("convolution_backward_input")
def _convolution_backward_input(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 4, 5, 5), m.uniform(4, 3, 3, 3), (2, 3, 5, 5), (1,), (1,), (1,), 1),
            desc="same padding",
        ),
        S(
            (m.uniform(1, 6, 3, 6), m.uniform(6, 2, 2, 3), (1, 4, 7, 6), (2, 1), (0, 1), (2, 1), 2),
            desc="groups, strides, dilation",
        ),
    ]


@_samples("convolution_backward_weight")
def _convolution_backward_weight(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 4, 5, 5), m.uniform(2, 3, 5, 5), (4, 3, 3, 3), (1,), (1,), (1,), 1),
            desc="same padding",
        ),
        S(
            (m.uniform(1, 6, 3, 6), m.uniform(1, 4, 7, 6), (6, 2, 2, 3), (2, 1), (0, 1), (2, 1), 2),
            desc="groups, strides, dilation",
        ),
    ]


@_samples("_embedding_bag")
def _embedding_bag(m: _Maker) -> list[Sample]:
    idx, offsets = m.index([1, 2, 4, 5, 4, 3, 0, 6]), m.index([0, 3, 3, 5])
    return [
        S((m.uniform(7, 3), idx, offsets), desc="sum, an empty bag"),
        S((m.uniform(7, 3), idx, offsets, False, 1, False, None, False, 4), desc="mean, padding"),
        S((m.distinct(7, 3), idx, offsets, False, 2), desc="max"),
        S(
            (m.uniform(7, 3), idx, m.index([0, 2, 7]), False, 0, False, m.uniform(8), True),
            desc="per_sample_weights, include_last_offset",
        ),
    ]


@_samples("_ctc_loss")
def _ctc_loss(m: _Maker) -> list[Sample]:
    # Log-probabilities far below 0: the operator's gradient is PyTorch's, exp(log_probs)
    # minus the posterior (what the logits of a log_softmax get), where finite differences
    # see minus the posterior; exp(-30) lies below gradcheck's tolerance.
    # The losses only: log_alpha, the forward variables the backward reads, holds -inf for
    # the unreachable states and gets no gradient (as in PyTorch).
    lp = m.uniform(6, 3, 4, lo=-31.0, hi=-29.0)
    padded = m.index([[1, 2, 2], [3, 0, 0], [1, 1, 3]])

    def loss(r: Any) -> Any:
        return r[0]

    return [
        S(
            (lp, padded, [6, 4, 5], [3, 1, 2]),
            desc="padded targets, a repeated label",
            invariant=loss,
        ),
        S(
            (lp, m.index([1, 2, 2, 3, 1, 1]), [6, 0, 3], [3, 0, 2], 0, True),
            desc="concatenated targets, an empty input, zero_infinity",
            invariant=loss,
        ),
        S((lp, padded, [5, 6, 6], [2, 1, 3], 3), desc="blank 3", invariant=loss),
    ]


@_samples("_ctc_loss_backward")
def _ctc_loss_backward(m: _Maker) -> list[Sample]:
    lp = m.uniform(5, 2, 3, lo=-3.0, hi=-0.5)
    tg, il, tl = m.index([[1, 2], [2, 0]]), [5, 3], [2, 1]
    # (the forward in float64: the backward's samples reach the dtypes it refuses)
    nll, alpha = (r.to(lp.dtype) for r in call_op("_ctc_loss", S((lp.double(), tg, il, tl))))
    return [S((m.uniform(2), lp, tg, il, tl, nll, alpha, 0), desc="padded targets")]


@_samples("_embedding_bag_dense_backward")
def _embedding_bag_dense_backward(m: _Maker) -> list[Sample]:
    idx, o2b = m.index([1, 2, 4, 5, 4, 3]), m.index([0, 0, 0, 2, 2, 2])
    sizes = m.index([3, 0, 3])
    return [
        S((m.uniform(3, 2), idx, o2b, sizes, m.index([0]), 7, False, 0, m.uniform(6)), desc="sum"),
        S((m.uniform(3, 2), idx, o2b, sizes, m.index([0]), 7, True, 1, None, 4), desc="mean"),
        S(
            (
                m.uniform(3, 2),
                idx,
                o2b,
                sizes,
                m.index([[2, 1], [-1, -1], [4, 4]]),
                7,
                False,
                2,
                None,
            ),
            desc="max",
        ),
    ]


@_samples("max_pool2d_with_indices")
def _max_pool2d(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 2, 4, 4), (2,)), desc="2x2"),
        S((m.distinct(1, 2, 5, 6), (3,), (2,), (1,), (1,), True), desc="padding, ceil_mode"),
        S((m.distinct(1, 1, 7, 7), (2, 3), (1, 2), (1,), (2,)), desc="dilation"),
    ]


@_samples("max_pool2d_with_indices_backward")
def _max_pool2d_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (
                m.uniform(2, 2, 2, 2),
                m.uniform(2, 2, 4, 4),
                (2,),
                (2,),
                (0,),
                (1,),
                False,
                m.index([[[[0, 3], [9, 15]]] * 2] * 2),
            ),
            desc="2x2",
        ),
    ]


@_samples("avg_pool2d")
def _avg_pool2d(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 2, 4, 4), (2,)), desc="2x2"),
        S((m.uniform(1, 2, 5, 6), (3,), (2,), (1,), True, False), desc="ceil, no pad count"),
        S((m.uniform(1, 1, 5, 5), (3, 2), (1,), (1, 0), False, True, 4), desc="divisor"),
    ]


@_samples("avg_pool2d_backward")
def _avg_pool2d_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 2, 2, 2), m.uniform(2, 2, 4, 4), (2,), (2,), (0,), False, True, None),
            desc="2x2",
        ),
        S(
            (m.uniform(1, 2, 3, 4), m.uniform(1, 2, 5, 6), (3,), (2,), (1,), True, False, None),
            desc="ceil, no pad count",
        ),
    ]


@_samples("linear")
def _linear(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), m.uniform(2, 3), m.uniform(2)), desc="2-D, bias"),
        S((m.uniform(2, 5, 3), m.uniform(4, 3)), desc="3-D input, no bias"),
        S((m.uniform(3), m.uniform(2, 3, t=False), m.uniform(2)), desc="1-D input"),
        S((m.uniform(4, 3, t=True), m.uniform(2, 3)), desc="transposed input"),
    ]


@_samples("linear_backward")
def _linear_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 2), m.uniform(4, 3), m.uniform(2, 3), (1, 1, 1)), desc="all"),
        S(
            (m.uniform(2, 5, 4), m.uniform(2, 5, 3), m.uniform(4, 3), (0, 1, 1)),
            desc="3-D, no input gradient",
        ),
    ]


@_samples("_lstm_layer")
def _lstm_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 8), m.uniform(2, 2), m.uniform(2, 2), m.uniform(8, 2), False)),
        S(
            (m.uniform(4, 1, 12), m.uniform(1, 3), m.uniform(1, 3), m.uniform(12, 3), True),
            desc="reverse",
        ),
        S(
            (m.uniform(4, 3, 8), m.uniform(3, 2), m.uniform(3, 2), m.uniform(8, 2), True),
            {"batch_sizes": [3, 2, 2, 1]},
            desc="packed, reverse",
        ),
        S(
            (m.uniform(3, 2, 8), m.uniform(2, 2), m.uniform(2, 2), m.uniform(8, 2), False),
            {"train": False},
            desc="inference: two steps' workspace",
        ),
        S(
            (m.uniform(3, 2, 12), m.uniform(2, 2), m.uniform(2, 3), m.uniform(12, 2), True),
            {"batch_sizes": [2, 2, 1], "w_hr": m.uniform(2, 3)},
            desc="projected state (proj_size), packed, reverse",
        ),
    ]


@_samples("_lstm_layer_backward")
def _lstm_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz), m.uniform(batch, hsz))
        # (any workspace of its shape is a valid call: activations in [0, 1) and states)
        ws = m.positive(steps, 7 * hsz, batch, lo=0.0, hi=1.0)
        return (*grads, m.uniform(batch, hsz), m.uniform(4 * hsz, hsz), ws, reverse)

    return [
        S(args(3, 2, 2, False)),
        S(args(4, 1, 3, True), desc="reverse"),
        S(args(4, 3, 2, False), {"batch_sizes": [3, 3, 1, 0]}, desc="packed"),
        S(
            (
                m.uniform(3, 2, 2),  # (grad_output and grad_h_n of the projected size, 2)
                m.uniform(2, 2),
                m.uniform(2, 3),
                m.uniform(2, 3),
                m.uniform(12, 2),
                m.positive(3, 21, 2, lo=0.0, hi=1.0),
                False,
            ),
            {"w_hr": m.uniform(2, 3)},
            desc="projected state (proj_size)",
        ),
    ]


@_samples("_gru_layer")
def _gru_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 6), m.uniform(2, 2), m.uniform(6, 2), m.uniform(6), False)),
        S((m.uniform(4, 1, 9), m.uniform(1, 3), m.uniform(9, 3), None, True), desc="reverse"),
        S(
            (m.uniform(3, 3, 6), m.uniform(3, 2), m.uniform(6, 2), m.uniform(6), False),
            {"batch_sizes": [3, 2, 1]},
            desc="packed",
        ),
        S(
            (m.uniform(3, 2, 6), m.uniform(2, 2), m.uniform(6, 2), m.uniform(6), True),
            {"train": False},
            desc="inference: two steps' workspace",
        ),
    ]


@_samples("_gru_layer_backward")
def _gru_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz))
        # (any workspace of its shape is a valid call: gates in [0, 1) and states)
        ws = m.positive(steps, 5 * hsz, batch, lo=0.0, hi=1.0)
        return (*grads, m.uniform(batch, hsz), m.uniform(3 * hsz, hsz), ws, reverse)

    return [
        S(args(3, 2, 2, False)),
        S(args(4, 1, 3, True), desc="reverse"),
        S(args(3, 3, 2, True), {"batch_sizes": [2, 2, 1]}, desc="packed, reverse"),
    ]


@_samples("_rnn_layer")
def _rnn_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 2), m.uniform(2, 2), m.uniform(2, 2), False, False)),
        S((m.uniform(4, 1, 3), m.uniform(1, 3), m.uniform(3, 3), True, True), desc="relu, reverse"),
        S(
            (m.uniform(3, 3, 2), m.uniform(3, 2), m.uniform(2, 2), False, True),
            {"batch_sizes": [3, 2, 1]},
            desc="packed, reverse",
        ),
    ]


@_samples("_rnn_layer_backward")
def _rnn_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, relu: bool, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz))
        return (*grads, m.uniform(steps, batch, hsz), m.uniform(hsz, hsz), relu, reverse)

    return [
        S(args(3, 2, 2, False, False)),
        S(args(4, 1, 3, True, True), desc="relu, reverse"),
        S(args(3, 3, 2, False, False), {"batch_sizes": [3, 2, 2]}, desc="packed"),
    ]


@_samples("dist")
def _dist(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2, t=True), m.uniform(3, 2)), {"p": 1}, desc="p=1"),
        S((m.uniform(4), m.uniform(4)), {"p": 3.5}, desc="p=3.5"),
    ]


@_samples("layer_norm")
def _layer_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), (4,), m.uniform(4), m.uniform(4)), desc="last dim, affine"),
        S((m.uniform(2, 3, 4), (3, 4)), desc="two dims, no affine"),
        S((m.uniform(4, 3, t=True), (3,), m.uniform(3), None, 1e-3), desc="transposed, eps"),
    ]


@_samples("native_layer_norm")
def _native_layer_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), (4,), m.uniform(4), m.uniform(4), 1e-5), desc="last dim, affine"),
        S((m.uniform(2, 3, 4), (3, 4), None, None, 1e-5), desc="two dims, no affine"),
    ]


@_samples("layer_norm_backward")
def _layer_norm_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), m.uniform(3, 4), (4,), m.uniform(4)), desc="affine"),
        S((m.uniform(2, 3, 4), m.uniform(2, 3, 4), (3, 4)), desc="no weight"),
    ]


@_samples("batch_norm", "native_batch_norm")
def _batch_norm(m: _Maker) -> list[Sample]:
    def var(c: int) -> tc.Tensor:
        return m.positive(c, lo=0.5, hi=1.5)

    return [
        S(
            (m.uniform(4, 3), m.uniform(3), m.uniform(3), None, None, True, 0.1, 1e-5),
            desc="training, (N, C)",
        ),
        S(
            (m.uniform(2, 3, 2, 2), None, None, None, None, True, 0.1, 1e-5),
            desc="training, (N, C, H, W), no affine",
        ),
        S(
            (
                m.uniform(2, 3, 4),
                m.uniform(3),
                m.uniform(3),
                m.uniform(3),
                var(3),
                False,
                0.1,
                1e-5,
            ),
            desc="eval",
        ),
    ]


@_samples("native_group_norm")
def _native_group_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4, 3), m.uniform(4), m.uniform(4), 2, 4, 3, 2, 1e-5), desc="affine"),
        S((m.uniform(2, 6, 2, 2), None, None, 2, 6, 4, 3, 1e-3), desc="(N, C, H, W), eps"),
        S((m.uniform(3, 4), m.uniform(4), None, 3, 4, 1, 2, 1e-5), desc="(N, C), weight"),
    ]


@_samples("native_group_norm_backward")
def _native_group_norm_backward(m: _Maker) -> list[Sample]:
    def stats(n: int, g: int) -> tuple[tc.Tensor, tc.Tensor]:
        return m.uniform(n, g), m.positive(n, g, lo=0.5, hi=1.5)

    return [
        S(
            (
                m.uniform(2, 4, 3),
                m.uniform(2, 4, 3),
                *stats(2, 2),
                m.uniform(4),
                2,
                4,
                3,
                2,
                [1, 1, 1],
            ),
            desc="affine",
        ),
        S(
            (
                m.uniform(2, 6, 2, 2),
                m.uniform(2, 6, 2, 2),
                *stats(2, 3),
                None,
                2,
                6,
                4,
                3,
                [1, 0, 0],
            ),
            desc="no weight, input only",
        ),
    ]


@_samples("batch_norm_backward")
def _batch_norm_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(4, 3), m.uniform(4, 3), m.uniform(3), None, None, True, 1e-5),
            desc="training",
        ),
        S(
            (
                m.uniform(2, 3, 4),
                m.uniform(2, 3, 4),
                None,
                m.uniform(3),
                m.positive(3, lo=0.5, hi=1.5),
                False,
                1e-5,
            ),
            desc="eval, no weight",
        ),
    ]


@_samples("_fused_sgd_")
def _fused_sgd(m: _Maker) -> list[Sample]:
    def opts(**kw: Any) -> dict[str, Any]:
        base = {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weight_decay": 0.01,
                "nesterov": False, "maximize": False}  # fmt: skip
        return {**base, **kw}

    p, g, b = [m.uniform(2, 3), m.uniform(4)], [m.uniform(2, 3), m.uniform(4)], None
    b = [m.uniform(2, 3), m.uniform(4)]
    return [
        S((p, g, b, (0, 1)), opts(), desc="momentum, first step of the second"),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], (0,)),
            opts(nesterov=True),
            desc="nesterov",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [], (0,)),
            opts(momentum=0.0, maximize=True),
            desc="plain, maximize",
        ),
    ]


@_samples("_fused_adam_")
def _fused_adam(m: _Maker) -> list[Sample]:
    def opts(**kw: Any) -> dict[str, Any]:
        base = {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0,
                "amsgrad": False, "maximize": False, "decoupled": False}  # fmt: skip
        return {**base, **kw}

    def steps(n: int) -> list[tc.Tensor]:
        return [tc.zeros((), dtype=tc.float32) for _ in range(n)]

    def pos(*shape: int) -> tc.Tensor:
        return m.positive(*shape, lo=0.1, hi=1.0)

    p = [m.uniform(2, 3), m.uniform(4)]
    g = [m.uniform(2, 3), m.uniform(4)]
    return [
        S(
            (p, g, [m.uniform(2, 3), m.uniform(4)], [pos(2, 3), pos(4)], [], steps(2)),
            opts(),
            desc="adam",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], [pos(3)], [pos(3)], steps(1)),
            opts(amsgrad=True, weight_decay=0.1),
            desc="amsgrad, L2",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], [pos(3)], [], steps(1)),
            opts(decoupled=True, weight_decay=0.1, maximize=True),
            desc="adamw, maximize",
        ),
    ]


@_samples("sort", "argsort")
def _sort(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4),), desc="last dim"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, descending"),
        S((m.distinct(5),), {"stable": True}, desc="stable"),
    ]


@_samples("topk")
def _topk(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2), desc="k=2"),
        S((m.distinct(4, 3, t=True), 2, 0, False), desc="smallest along dim 0 of transposed"),
        S((m.distinct(5), 3), {"sorted": True}, desc="1-D"),
    ]


# ------------------------------------------------------------------ linear algebra
@_samples("matmul")
def _matmul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3, 4, t=True)), desc="matrix @ transposed matrix"),
        S((m.uniform(3), m.uniform(3, 2)), desc="vector @ matrix"),
        S((m.uniform(2, 3), m.uniform(3)), desc="matrix @ vector"),
        S((m.uniform(3), m.uniform(3)), desc="vector @ vector"),
        S((m.uniform(2, 2, 3), m.uniform(3, 2)), desc="batched, broadcast"),
    ]


@_samples("mm")
def _mm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3, 4))),
        S((m.uniform(3, 2, t=True), m.uniform(2, 4, t=True)), desc="transposed"),
    ]


@_samples("addmm")
def _addmm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4), m.uniform(2, 3), m.uniform(3, 4, t=True)), desc="bias, transposed mat2"),
        S(
            (m.uniform(2, 4), m.uniform(2, 3), m.uniform(3, 4)),
            {"beta": 0.5, "alpha": 2.0},
            desc="beta and alpha",
        ),
        S((m.uniform(2, 1), m.uniform(2, 3, t=True), m.uniform(3, 4)), desc="column self"),
    ]


@_samples("addmv")
def _addmv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2), m.uniform(2, 3), m.uniform(3))),
        S(
            (m.uniform(1), m.uniform(2, 3, t=True), m.uniform(3)),
            {"beta": 0.5, "alpha": 2.0},
            desc="broadcast self, transposed mat, beta and alpha",
        ),
        S((m.uniform(), m.uniform(3, 2), m.uniform(2)), desc="0-d self"),
    ]


@_samples("addr")
def _addr(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2), m.uniform(3))),
        S(
            (m.uniform(3), m.uniform(2), m.uniform(3)),
            {"beta": 0.5, "alpha": 2.0},
            desc="broadcast self, beta and alpha",
        ),
        S((m.uniform(2, 1), m.uniform(2), m.uniform(4)), desc="column self"),
    ]


@_samples("bmm")
def _bmm(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 2, 3), m.uniform(2, 3, 2)))]


@_samples("mv")
def _mv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2, t=True), m.uniform(2)), desc="transposed"),
    ]


@_samples("dot")
def _dot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4), m.uniform(4))),
        S((m.uniform(2, 3, t=True)[1], m.uniform(3)), desc="strided"),
    ]


@_samples("outer")
def _outer(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3), m.uniform(2)))]


@_samples("einsum")
def _einsum(m: _Maker) -> list[Sample]:
    return [
        S(("ij,jk->ik", [m.uniform(2, 3), m.uniform(3, 2, t=True)]), desc="matmul"),
        S(("ij->", [m.uniform(2, 3)]), desc="full sum"),
        S(("ij->j", [m.uniform(2, 3)]), desc="partial sum"),
        S(("i,j->ij", [m.uniform(2), m.uniform(3)]), desc="outer"),
        S(("bij,bjk->bik", [m.uniform(2, 2, 3), m.uniform(2, 3, 2)]), desc="batched"),
        S(("ij,ij", [m.uniform(2, 3), m.uniform(2, 3)]), desc="implicit output"),
        S(("...ij,...jk->...ik", [m.uniform(2, 2, 3), m.uniform(3, 2)]), desc="ellipsis"),
        S(("...ij,...j", [m.uniform(1, 2, 3), m.uniform(2, 1, 3)]), desc="broadcast ellipsis"),
        S(("b...d,b...d->b...", [m.uniform(2, 3, 2), m.uniform(2, 3, 2)]), desc="mid ellipsis"),
        S(("ii->i", [m.uniform(3, 3)]), desc="diagonal"),
        S(("ii", [m.uniform(3, 3)]), desc="trace"),
        S(("iij,jj->i", [m.uniform(2, 2, 3), m.uniform(3, 3)]), desc="repeated letters"),
        S(("b i d, b j d -> b i j", [m.uniform(1, 2, 3), m.uniform(2, 4, 3)]), desc="spaces"),
    ]


# ------------------------------------------------------------------ decompositions and solvers
# Well-conditioned matrices: ``A + n I`` for inverses and solves, ``B B^H + n I`` (Hermitian
# positive-definite) for ``cholesky``, random symmetric ones (distinct eigenvalues) for
# ``eigh``; random rectangular ones have distinct singular values.
def _eye_like(a: tc.Tensor) -> tc.Tensor:
    return tc.eye(a.shape[-1], dtype=a.dtype, device=a.device)


def _invertible(m: _Maker, *shape: int, t: bool = False) -> tc.Tensor:
    a = m.uniform(*shape, t=t)
    return a + _eye_like(a) * shape[-1]


def _pd(m: _Maker, *shape: int) -> tc.Tensor:
    b = m.uniform(*shape)
    return b.matmul(b.mT) + _eye_like(b) * shape[-1]


def _symmetric(m: _Maker, *shape: int) -> tc.Tensor:
    b = m.uniform(*shape)
    return (b + b.mT) * 0.5


def _abs_vectors(res: Any) -> tuple[Any, ...]:
    """Eigenvalues and the magnitudes of the eigenvectors' entries (sign and phase free)."""
    return res[0], res[1].abs()


def _abs_singular(res: Any) -> tuple[Any, ...]:
    """Magnitudes of the first ``k`` singular vectors (the others of ``full_matrices`` are any
    completion), and the singular values."""
    u, s, vh = res
    k = s.shape[-1]
    return u.narrow(-1, 0, k).abs(), s, vh.narrow(-2, 0, k).abs()


@_samples("linalg_inv", "inverse")
def _linalg_inv(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3),)),
        S((_invertible(m, 2, 3, 3),), desc="batch"),
        S((_invertible(m, 3, 3, t=True),), desc="transposed"),
    ]


@_samples("linalg_det", "det")
def _linalg_det(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 3),)), S((m.uniform(2, 3, 3),), desc="batch")]


@_samples("linalg_slogdet", "slogdet")
def _linalg_slogdet(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 3),)), S((_invertible(m, 2, 3, 3, t=False),), desc="batch")]


@_samples("logdet")
def _logdet(m: _Maker) -> list[Sample]:
    return [S((_pd(m, 3, 3),)), S((_pd(m, 2, 2, 2),), desc="batch")]


@_samples("linalg_solve")
def _linalg_solve(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), m.uniform(3, 2))),
        S((_invertible(m, 2, 3, 3), m.uniform(3)), desc="vector"),
        S((_invertible(m, 3, 3), m.uniform(2, 3, 2)), desc="broadcast batch"),
        S((_invertible(m, 2, 3, 3), m.uniform(2, 3)), desc="batch of vectors"),
        S((_invertible(m, 3, 3, t=True), m.uniform(2, 3)), {"left": False}, desc="right"),
    ]


@_samples("linalg_solve_triangular")
def _linalg_solve_triangular(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), m.uniform(3, 2), True)),
        S((_invertible(m, 2, 3, 3), m.uniform(3, 2), False), desc="lower, broadcast batch"),
        S(
            (_invertible(m, 3, 3, t=True), m.uniform(2, 2, 3), False),
            {"left": False, "unitriangular": True},
            desc="right, unit diagonal",
        ),
        S(
            (_invertible(m, 2, 1, 3, 3), m.uniform(3, 1, 3), True),
            {"left": False},
            desc="upper, right, one row, batches broadcast both ways",
        ),
        S(
            (_invertible(m, 3, 3, t=True), m.uniform(3, 1), True),
            {"unitriangular": True},
            desc="upper, unit diagonal, one column",
        ),
    ]


@_samples("cholesky_solve")
def _cholesky_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3)), triangular=(1,)),
        S(
            (m.uniform(2, 3, 1), _invertible(m, 3, 3)),
            {"upper": True},
            desc="batch, upper",
            triangular=(1,),
        ),
    ]


@_samples("cholesky_inverse")
def _cholesky_inverse(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3),), triangular=(0,)),
        S((_invertible(m, 2, 2, 2),), {"upper": True}, desc="batch, upper", triangular=(0,)),
    ]


@_samples("triangular_solve")
def _triangular_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3))),
        S(
            (m.uniform(3, 2), _invertible(m, 2, 3, 3)),
            {"upper": False, "transpose": True, "unitriangular": True},
            desc="batch, lower, transposed, unit diagonal",
        ),
    ]


@_samples("linalg_cholesky")
def _linalg_cholesky(m: _Maker) -> list[Sample]:
    return [
        S((_pd(m, 3, 3),), hermitian=(0,)),
        S((_pd(m, 2, 3, 3),), {"upper": True}, desc="batch, upper", hermitian=(0,)),
    ]


@_samples("_linalg_eigh")
def _linalg_eigh_internal(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3), "L", True), hermitian=(0,), invariant=_abs_vectors),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,), invariant=_abs_vectors),
    ]


@_samples("linalg_eigh")
def _linalg_eigh(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3),), hermitian=(0,), invariant=_abs_vectors),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,), invariant=_abs_vectors),
    ]


@_samples("linalg_eigvalsh")
def _linalg_eigvalsh(m: _Maker) -> list[Sample]:
    return [
        S((_symmetric(m, 3, 3),), hermitian=(0,)),
        S((_symmetric(m, 2, 3, 3), "U"), desc="batch, U", hermitian=(0,)),
    ]


@_samples("linalg_qr")
def _linalg_qr(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="tall"),
        S((m.uniform(2, 4),), desc="wide"),
        S((m.uniform(2, 3, 3), "complete"), desc="batch, complete"),
        S((m.uniform(3, 2, t=True),), desc="transposed"),
    ]


@_samples("_linalg_svd")
def _linalg_svd_internal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), False, True), desc="tall", invariant=_abs_singular),
        S((m.uniform(2, 4),), desc="wide", invariant=_abs_singular),
        S((m.uniform(2, 3, 3), True), desc="batch, full", invariant=_abs_singular),
    ]


@_samples("linalg_svd")
def _linalg_svd(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="full", invariant=_abs_singular),
        S((m.uniform(2, 2, 4), False), desc="batch, reduced", invariant=_abs_singular),
    ]


def _abs_svd(res: Any) -> tuple[Any, ...]:
    """:func:`_abs_singular` for ``svd``'s ``(U, S, V)``: V's first ``k`` columns."""
    u, s, v = res
    k = s.shape[-1]
    return u.narrow(-1, 0, k).abs(), s, v.narrow(-1, 0, k).abs()


def _values(res: Any) -> tuple[Any, ...]:
    """The singular values alone (``compute_uv=False`` zero-fills U and V)."""
    return (res[1],)


@_samples("svd")
def _svd(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="reduced", invariant=_abs_svd),
        S((m.uniform(2, 2, 4), False), desc="batch, full", invariant=_abs_svd),
        S((m.uniform(3, 2),), {"compute_uv": False}, desc="values only", invariant=_values),
    ]


def _sorted_eig(res: Any) -> tuple[Any, ...]:
    """Eigenvalues in a fixed order (by real part, then imaginary) and their eigenvectors
    with the first component real and positive: what is unique of an eigendecomposition
    (LAPACK's order and phases may change under a perturbation)."""
    values, vectors = res
    idx = (values.real + values.imag * 1e-3).argsort(-1)
    values = values.gather(-1, idx)
    if vectors.numel() == 0:
        return (values,)
    vectors = vectors.gather(-1, idx.unsqueeze(-2).expand(vectors.shape))
    first = vectors.narrow(-2, 0, 1)
    return values, vectors / (first / first.abs())


def _sorted_values(res: Any) -> Any:
    return _sorted_eig((res, res.new_empty(0)))[0]


@_samples("_linalg_eig")
def _linalg_eig_internal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3), True), invariant=_sorted_eig),
        S((m.uniform(2, 3, 3),), desc="batch", invariant=_sorted_eig),
    ]


@_samples("linalg_eig")
def _linalg_eig(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),), invariant=_sorted_eig),
        S((m.uniform(2, 4, 4, t=False),), desc="batch", invariant=_sorted_eig),
        S((m.uniform(3, 3, t=True),), desc="transposed", invariant=_sorted_eig),
    ]


@_samples("linalg_eigvals")
def _linalg_eigvals(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),), invariant=_sorted_values),
        S((m.uniform(2, 3, 3),), desc="batch", invariant=_sorted_values),
    ]


@_samples("linalg_lu_factor_ex", "linalg_lu_factor")
def _linalg_lu_factor(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 4),), desc="batch, wide"),
        S((m.uniform(4, 2, t=True),), desc="tall, transposed"),
        S((m.uniform(3, 3),), {"pivot": False}, desc="no pivoting"),
    ]


def _lu_factors(res: Any) -> tuple[Any, ...]:
    """``L`` and ``U`` of ``linalg.lu`` (``P`` is a constant, without a gradient)."""
    return res[1], res[2]


@_samples("linalg_lu")
def _linalg_lu(m: _Maker) -> list[Sample]:
    return [S(s.args, s.kwargs, s.desc, invariant=_lu_factors) for s in _linalg_lu_factor(m)]


@_samples("lu")
def _lu(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 4), True, True), desc="batch, wide, infos"),
    ]


def _pivots(m: _Maker, *values: Any) -> tc.Tensor:
    return tc.tensor(list(values), dtype=tc.int32, device=m.device)


@_samples("lu_unpack")
def _lu_unpack(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3), _pivots(m, 2, 3, 3))),
        S((m.uniform(2, 3, 4), _pivots(m, [3, 2, 3], [1, 3, 3])), desc="batch, wide"),
        S((m.uniform(4, 2), _pivots(m, 4, 2)), desc="tall"),
        S((m.uniform(3, 3), _pivots(m, 3, 2, 3), False), desc="pivots only"),
        S((m.uniform(3, 3), _pivots(m, 3, 2, 3)), {"unpack_pivots": False}, desc="data only"),
    ]


@_samples("linalg_ldl_factor_ex")
def _linalg_ldl_factor_ex(m: _Maker) -> list[Sample]:
    indefinite = _symmetric(m, 4, 4) - _eye_like(m.uniform(4, 4)) * 0.5
    return [
        S((_symmetric(m, 3, 3),)),
        S((_symmetric(m, 2, 3, 3),), {"hermitian": True}, desc="batch"),
        S((indefinite,), {"check_errors": True}, desc="indefinite"),
    ]


@_samples("linalg_ldl_solve")
def _linalg_ldl_solve(m: _Maker) -> list[Sample]:
    # Factors as LAPACK packs them: 1x1 blocks, and a 2x2 block after an interchange.
    ld = m.uniform(3, 3).tril() + _eye_like(m.uniform(3, 3)) * 3
    batch = m.uniform(2, 3, 3).tril() + _eye_like(m.uniform(3, 3)) * 3
    return [
        S((ld, _pivots(m, 1, 2, 3), m.uniform(3, 2))),
        S((ld, _pivots(m, 1, -3, -3), m.uniform(2, 3, 1)), desc="2x2 block, broadcast B"),
        S(
            (batch, _pivots(m, [2, 2, 3], [-2, -2, 3]), m.uniform(3, 4)),
            {"hermitian": True},
            desc="batch",
        ),
    ]


@_samples("linalg_lu_solve")
def _linalg_lu_solve(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), _pivots(m, 2, 3, 3), m.uniform(3, 2))),
        S(
            (_invertible(m, 2, 3, 3), _pivots(m, [3, 2, 3], [1, 3, 3]), m.uniform(3, 2)),
            {"adjoint": True},
            desc="batch, adjoint",
        ),
        S(
            (_invertible(m, 3, 3), _pivots(m, 2, 2, 3), m.uniform(2, 2, 3)),
            {"left": False},
            desc="right, broadcast batch",
        ),
        S(
            (_invertible(m, 3, 3, t=True), _pivots(m, 3, 3, 3), m.uniform(2, 3)),
            {"left": False, "adjoint": True},
            desc="right, adjoint, transposed",
        ),
    ]


@_samples("lu_solve")
def _lu_solve(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), _invertible(m, 3, 3), _pivots(m, 2, 3, 3))),
        S((m.uniform(2, 3, 1), _invertible(m, 2, 3, 3), _pivots(m, [3, 2, 3], [1, 3, 3]))),
    ]


@_samples("linalg_matrix_exp", "matrix_exp")
def _linalg_matrix_exp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(2, 3, 3, lo=-4.0, hi=4.0),), desc="batch, scaled"),
        S((m.uniform(4, 4, t=True),), desc="transposed"),
        S((m.uniform(2, 2, lo=-0.01, hi=0.01),), desc="small norm"),
    ]


@_samples("linalg_svdvals")
def _linalg_svdvals(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(2, 4, 3, t=False),), desc="batch")]


@_samples("linalg_lstsq")
def _linalg_lstsq(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), m.uniform(4, 2)), {"driver": "gelsd"}, desc="tall"),
        S((m.uniform(2, 3, 4), m.uniform(2, 3, 2)), desc="wide, batch"),
        S((m.uniform(4, 2, t=True), m.uniform(4)), {"driver": "gels"}, desc="vector"),
    ]


@_samples("linalg_pinv")
def _linalg_pinv(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3),), desc="tall"),
        S((m.uniform(2, 2, 4),), {"rtol": 1e-3}, desc="batch, wide"),
        S((_pd(m, 3, 3),), {"hermitian": True}, desc="hermitian", hermitian=(0,)),
    ]


@_samples("pinverse")
def _pinverse(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(4, 3), 1e-3), desc="rcond")]


@_samples("linalg_matrix_norm")
def _linalg_matrix_norm(m: _Maker) -> list[Sample]:
    a = m.away(3, 4)
    return [
        *(S((a, o), desc=str(o)) for o in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)),
        S((m.away(3, 2, 4), 1, (0, 2)), {"keepdim": True}, desc="dims, keepdim"),
        S((m.away(2, 3, 3), "nuc", (-1, -2)), desc="batch, swapped dims"),
    ]


@_samples("linalg_matrix_power", "matrix_power")
def _linalg_matrix_power(m: _Maker) -> list[Sample]:
    return [
        S((_invertible(m, 3, 3), 3)),
        S((_invertible(m, 2, 3, 3), -2), desc="negative"),
        S((m.uniform(3, 3), 0), desc="zero"),
        S((m.uniform(3, 3, t=True), 1), desc="one, transposed"),
    ]


@_samples("linalg_matrix_rank")
def _linalg_matrix_rank(m: _Maker) -> list[Sample]:
    a = m.uniform(2, 3)
    singular = tc.cat([a, a.sum(0, keepdim=True)])
    return [
        S((m.uniform(3, 4),)),
        S((singular,), desc="rank 2"),
        S((_symmetric(m, 2, 3, 3),), {"hermitian": True, "atol": 0.1}, desc="hermitian"),
    ]


@_samples("linalg_cross", "cross")
def _linalg_cross(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(1, 3)), {"dim": -1}, desc="broadcast"),
        S((m.uniform(3, 2), m.uniform(3, 2)), {"dim": 0}, desc="dim 0"),
    ]


@_samples("linalg_diagonal")
def _linalg_diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 4),)),
        S((m.uniform(3, 4),), {"offset": 1, "dim1": 1, "dim2": 0}, desc="offset, dims"),
    ]


@_samples("linalg_multi_dot")
def _linalg_multi_dot(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3, 4), m.uniform(4, 2)],), desc="row vector first"),
        S(([m.uniform(2, 3), m.uniform(3, 4, t=True)],), desc="two"),
        S(([m.uniform(2, 3), m.uniform(3, 4), m.uniform(4, 1), m.uniform(1)],), desc="four"),
    ]


@_samples("linalg_vecdot")
def _linalg_vecdot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2), m.uniform(3, 2, t=False)), {"dim": 0}, desc="dim 0"),
    ]


@_samples("tensordot")
def _tensordot(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 4), m.uniform(3, 4, 2))),
        S((m.uniform(2, 3), m.uniform(3, 4, t=True), 1), desc="dims=1"),
        S((m.uniform(2, 3, 4), m.uniform(4, 2, 2)), {"dims": ([0, 2], [1, 0])}, desc="lists"),
    ]


@_samples("isclose")
def _isclose(m: _Maker) -> list[Sample]:
    a = m.uniform(2, 3)
    return [
        S((a, a.clone())),
        S((m.uniform(2, 3, t=True), m.uniform(3)), {"rtol": 0.5, "atol": 0.1}, desc="broadcast"),
        S((m.uniform(3), m.uniform(3)), {"equal_nan": True}, desc="equal_nan"),
    ]


@_samples("trace")
def _trace(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 4),)), S((m.uniform(3, 3, t=True),), desc="transposed")]


@_samples("kron")
def _kron(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2))),
        S((m.uniform(2, 2), m.uniform(2, 3, t=True)), desc="transposed"),
        S((m.uniform(2), m.uniform(3, 2)), desc="1-D and 2-D"),
    ]


# ------------------------------------------------------------------ discrete Fourier transforms
def _spectrum(m: _Maker, *shape: int, t: bool = False) -> tc.Tensor:
    """Complex data of the data dtype's precision (integral data stays integral, for the
    dtype checks); ``t=True`` gives a transposed 2-D tensor."""
    re = m.uniform(*shape, t=t)
    if not m.floating:
        return re
    c = re.dtype.to_complex()
    return re.to(c) + m.uniform(*shape, t=t).to(c) * 1j


@_samples("_fft_c2c")
def _fft_c2c(m: _Maker) -> list[Sample]:
    return [
        S((_spectrum(m, 2, 3), [1], 0, True), desc="forward, last dim"),
        S((_spectrum(m, 4, 3, t=True), [0, 1], 1, False), desc="inverse 1/sqrt(n), transposed"),
        S((_spectrum(m, 2, 3, 2), [2, 0], 2, True), desc="forward 1/n, two dims"),
    ]


@_samples("_fft_r2c")
def _fft_r2c(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), [1], 0, True), desc="one-sided, even length"),
        S((m.uniform(4, 3, t=True), [1, 0], 1, True), desc="one-sided, odd length, transposed"),
        S((m.uniform(2, 3), [0, 1], 2, False), desc="two-sided, 1/n"),
    ]


@_samples("_fft_c2r")
def _fft_c2r(m: _Maker) -> list[Sample]:
    return [
        S((_spectrum(m, 2, 3), [1], 2, 4), desc="even length, 1/n"),
        S((_spectrum(m, 3, 3, t=True), [0, 1], 0, 5), desc="odd length, two dims, transposed"),
        S((_spectrum(m, 2, 2), [1], 1, 2), desc="length 2, 1/sqrt(n)"),
    ]


# ------------------------------------------------------------------ shapes and indexing
@_samples("stack")
def _stack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(2, 3), m.uniform(2, 3)],), desc="dim 0"),
        S(([m.uniform(2, 3), m.uniform(2, 3, t=True), m.uniform(2, 3)], 1), desc="dim 1"),
    ]


@_samples("cat")
def _cat(m: _Maker) -> list[Sample]:
    return [*_stack(m), S(([m.uniform(1, 3), m.uniform(2, 3)], -2), desc="different sizes")]


@_samples("flip")
def _flip(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), (0,))), S((m.uniform(4, 3, t=True), (0, 1)), desc="transposed")]


@_samples("roll")
def _roll(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (1,), (1,))),
        S((m.uniform(4, 3, t=True), (1, -2), (0, 1)), desc="two dims, transposed"),
        S((m.uniform(2, 3), (2,)), desc="flattened"),
    ]


@_samples("repeat", "tile")
def _repeat(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (2, 1))),
        S((m.uniform(3, 2, t=True), (1, 2, 1)), desc="new leading dim, transposed"),
    ]


@_samples("tril", "triu")
def _tril(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(4, 3, t=True), 1), desc="diagonal 1, transposed"),
        S((m.uniform(2, 3, 3), -1), desc="batched, diagonal -1"),
    ]


@_samples("gather")
def _gather(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1, m.index([[0, 0, 2], [1, 2, 1]])), desc="repeated indices"),
        S(
            (m.uniform(4, 3, t=True), 0, m.index([[2, 0, 3], [1, 1, 0]])),
            desc="dim 0 of transposed",
        ),
    ]


@_samples("scatter")
def _scatter(m: _Maker) -> list[Sample]:
    # Unique target positions: with duplicates, which src value wins is unspecified.
    return [
        S((m.uniform(2, 3), 1, m.index([[2, 0], [1, 2]]), m.uniform(2, 2)), desc="tensor src"),
        S(
            (m.uniform(4, 3, t=True), 0, m.index([[1, 0, 3], [2, 3, 1]]), m.uniform(2, 3)),
            desc="dim 0 of transposed",
        ),
        S((m.uniform(2, 3), 1, m.index([[1], [0]]), 0.5), desc="scalar src"),
    ]


@_samples("scatter_add")
def _scatter_add(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 1, m.index([[2, 2, 0], [1, 0, 1]]), m.uniform(2, 3)), desc="dups"),
        S((m.uniform(3, 2, t=True), 0, m.index([[1, 1], [1, 0]]), m.uniform(2, 2)), desc="dim 0"),
    ]


@_samples("scatter_reduce")
def _scatter_reduce(m: _Maker) -> list[Sample]:
    # Targets with several values (no ties for amax/amin), targets with none.
    ix = m.index([[2, 2, 0], [1, 0, 1]])
    return [
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "sum"), desc="sum"),
        S((m.away(2, 3), 1, ix, m.away(2, 3), "prod"), {"include_self": False}, desc="prod"),
        S((m.uniform(3, 2, t=True), 0, m.index([[1, 1], [1, 0]]), m.uniform(2, 2), "mean"),
          desc="mean, dim 0 of transposed"),
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "amax"), desc="amax"),
        S((m.uniform(2, 3), 1, ix, m.uniform(2, 3), "amin"), {"include_self": False},
          desc="amin without self"),
    ]  # fmt: skip


@_samples("index_reduce")
def _index_reduce(m: _Maker) -> list[Sample]:
    # Rows 0 and 2 receive two slices, row 1 one, row 3 none; distinct values (no ties).
    ix = m.index([2, 0, 2, 1, 0])
    return [
        S((m.away(4, 3), 0, ix, m.away(5, 3), "prod"), desc="prod"),
        S((m.uniform(4, 3), 0, ix, m.uniform(5, 3), "mean"), {"include_self": False},
          desc="mean without self"),
        S((m.distinct(3, 4, t=True), 1, ix, m.distinct(3, 5), "amax"), desc="amax, transposed"),
        S((m.distinct(4, 3), 0, ix, m.distinct(5, 3), "amin"), {"include_self": False},
          desc="amin without self"),
    ]  # fmt: skip


@_samples("segment_reduce")
def _segment_reduce(m: _Maker) -> list[Sample]:
    # Distinct values for max and min (no ties); their empty segments take ``initial``.
    return [
        S((m.uniform(6, 3), "sum"), {"lengths": m.index([2, 0, 3, 1])}, desc="sum, empty segment"),
        S((m.uniform(6), "mean"), {"lengths": m.index([3, 0, 3]), "initial": 0.5},
          desc="mean, initial"),
        S((m.distinct(2, 5), "max"), {"offsets": m.index([[0, 2, 5], [1, 1, 4]]), "axis": 1,
          "initial": -9.0}, desc="max by offsets along axis 1"),
        S((m.distinct(2, 4, 3), "min"), {"lengths": m.index([[1, 3], [4, 0]]), "axis": -2,
          "initial": 9.0}, desc="min, batched lengths"),
        S((m.away(5), "prod"), {"lengths": m.index([2, 3]), "initial": 2.0}, desc="prod"),
    ]  # fmt: skip


@_samples("index_select")
def _index_select(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0, 2])), desc="repeated"),
        S((m.uniform(4, 3, t=True), 1, m.index([2, 1])), desc="dim 1 of transposed"),
    ]


@_samples("masked_fill")
def _masked_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.mask(2, 3), m.uniform()), desc="0-dim tensor value"),
        S((m.uniform(3, 2, t=True), m.mask(2), 0.25), desc="broadcast mask, scalar value"),
    ]


@_samples("index")
def _index(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), [m.index([2, 0, 2])]), desc="repeated rows"),
        S((m.uniform(4, 3, t=True), [None, m.index([2, 0])]), desc="columns of transposed"),
        S((m.uniform(2, 3), [m.index([0, 1]), m.index([2, 0])]), desc="points"),
        S((m.uniform(2, 3), [m.mask(2, 3)]), desc="bool mask"),
    ]


@_samples("index_put")
def _index_put(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), [m.index([2, 0])], m.uniform(2, 2)), desc="rows"),
        S(
            (m.uniform(4, 3, t=True), [m.index([0, 3]), m.index([1, 2])], m.uniform(2)),
            desc="points of transposed",
        ),
        S(
            (m.uniform(3, 2), [m.index([1, 1, 0])], m.uniform(2), True),
            desc="accumulate, repeated, broadcast values",
        ),
    ]


@_samples("nonzero")
def _nonzero(m: _Maker) -> list[Sample]:
    return [
        S((m.mask(2, 3).to(m.dtype),)),
        S((m.mask(4),), desc="bool"),
        S((m.mask(3, 2).to(m.dtype),), {"as_tuple": True}, desc="as_tuple"),
    ]


@_samples("nonzero_numpy")
def _nonzero_numpy(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3).to(m.dtype),)), S((m.mask(4)[0],), desc="0-d")]


@_samples("argwhere")
def _argwhere(m: _Maker) -> list[Sample]:
    return [S((m.mask(2, 3).to(m.dtype),)), S((m.mask(4),), desc="bool")]


# ------------------------------------------------------------------ search, sets, scans, statistics
@_samples("searchsorted")
def _searchsorted(m: _Maker) -> list[Sample]:
    seq = m.distinct(2, 5).sort().values
    return [
        S((seq[0], m.uniform(3, 2, lo=-3, hi=3)), desc="1-D sequence"),
        S((seq, m.uniform(2, 4, lo=-3, hi=3)), {"right": True}, desc="rows, right"),
        S((seq[0], 0.5), {"out_int32": True}, desc="number, int32"),
        S(
            (seq[0].flip(0), m.uniform(3, lo=-3, hi=3)),
            {"side": "left", "sorter": m.index([4, 3, 2, 1, 0])},
            desc="sorter",
        ),
    ]


@_samples("bucketize")
def _bucketize(m: _Maker) -> list[Sample]:
    edges = m.distinct(5).sort().values
    return [
        S((m.uniform(2, 3, lo=-3, hi=3), edges)),
        S((m.uniform(4, lo=-3, hi=3), edges), {"right": True, "out_int32": True}, desc="right"),
    ]


@_samples("cummax", "cummin")
def _cummax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 1), desc="dim 1"),
        S((m.distinct(4, 3, t=True), 0), desc="dim 0 of transposed"),
    ]


@_samples("logcumsumexp")
def _logcumsumexp(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), 1), desc="dim 1"),
        S((m.uniform(4, 3, t=True), -2), desc="dim 0 of transposed"),
    ]


@_samples("meshgrid")
def _meshgrid(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3), m.uniform(2)), {"indexing": "ij"}),
        S((m.uniform(3), m.uniform(2), m.uniform()), {"indexing": "xy"}, desc="xy, 0-d"),
    ]


@_samples("broadcast_tensors")
def _broadcast_tensors(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), m.uniform(2)), desc="(3, 1) and (2,)")]


@_samples("moveaxis")
def _moveaxis(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 4), 0, -1)), S((m.uniform(2, 3, 4), (0, 1), (2, 0)), desc="lists")]


@_samples("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(),), desc="0-d"),
        S((m.uniform(3), m.uniform(2, 3, t=True)), desc="1-d and transposed 2-d"),
    ]


@_samples("hstack", "vstack", "row_stack")
def _hstack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3)],), desc="1-D"),
        S(([m.uniform(3, 2), m.uniform(3, 2, t=True)],), desc="2-D, transposed"),
    ]


@_samples("dstack")
def _dstack(m: _Maker) -> list[Sample]:
    return [
        S(([m.uniform(3), m.uniform(3)],), desc="1-D"),
        S(([m.uniform(2, 3), m.uniform(2, 3)],)),
    ]


@_samples("column_stack")
def _column_stack(m: _Maker) -> list[Sample]:
    return [S(([m.uniform(3), m.uniform(3, 2), m.uniform(3, 1, t=True)],))]


@_samples("tensor_split")
def _tensor_split(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(7, 2), 3), desc="sections"),
        S((m.uniform(2, 6), [1, -2, 9], 1), desc="indices"),
        S((m.uniform(5), m.index(2)), desc="sections as a tensor"),
    ]


@_samples("hsplit")
def _hsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 4), 2)), S((m.uniform(6), [1, 4]), desc="1-D, indices")]


@_samples("vsplit")
def _vsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(4, 2), 2)), S((m.uniform(3, 2, t=True), [1]), desc="indices")]


@_samples("dsplit")
def _dsplit(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 1, 4), 2)), S((m.uniform(1, 2, 3), [2]), desc="indices")]


@_samples("flipud", "fliplr")
def _flipud(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 2),)), S((m.uniform(2, 3, t=True),), desc="transposed")]


@_samples("rot90")
def _rot90(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),)),
        S((m.uniform(2, 3, 2), -1, [2, 0]), desc="k=-1, dims (2, 0)"),
        S((m.uniform(3, 2, t=True), 2), desc="k=2, transposed"),
    ]


@_samples("take_along_dim")
def _take_along_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), m.index([[0], [3], [1]]), 1), desc="dim 1, broadcast"),
        S((m.uniform(2, 3, t=True), m.index([[1, 0, 1]]), 0), desc="transposed"),
        S((m.uniform(2, 3), m.index([5, 0])), desc="flattened"),
    ]


@_samples("diff")
def _diff(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 5),)),
        S((m.uniform(4, 3, t=True), 2, 0), desc="n=2 along dim 0 of transposed"),
        S(
            (m.uniform(2, 3),),
            {"dim": 1, "prepend": m.uniform(2, 1), "append": m.uniform(2, 2)},
            desc="prepend and append",
        ),
    ]


@_samples("trapezoid", "trapz", "cumulative_trapezoid")
def _trapezoid(m: _Maker) -> list[Sample]:
    # (x in the samples' dtype where it is floating: the spacing must not widen the result)
    xs = m.uniform(5).cumsum(0) if m.floating else m.ints(5).cumsum(0)
    return [
        S((m.uniform(2, 5),), desc="unit spacing"),
        S((m.uniform(4, 3, t=True),), {"dx": 0.5, "dim": 0}, desc="dx along dim 0 of transposed"),
        S((m.uniform(3, 5), xs), desc="1-D x"),
        S((m.uniform(2, 4), m.uniform(2, 4)), {"dim": 1}, desc="x of y's shape"),
    ]


@_samples("gradient")
def _gradient(m: _Maker) -> list[Sample]:
    out = [
        S((m.uniform(3, 4),), desc="every dim"),
        S((m.uniform(4, 3, t=True),), {"spacing": 2.0, "dim": 1, "edge_order": 2}, desc="dim 1"),
        S((m.uniform(3, 4),), {"spacing": (0.5, 2.0), "dim": (1, 0)}, desc="a number per dim"),
    ]
    if m.floating:  # (coordinates in the samples' dtype: the spacing must not widen the result)
        xs = [m.away(3).cumsum(0), m.away(4).cumsum(0)]
        out.append(S((m.uniform(3, 4),), {"spacing": xs, "edge_order": 2}, desc="coordinates"))
    return out


@_samples("renorm")
def _renorm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 2, 0, 0.5), desc="rows"),
        S((m.uniform(4, 3, t=True), 1, 1, 0.8), desc="columns of transposed, p=1"),
        S((m.uniform(2, 3, 2), 3.0, -1, 100.0), desc="nothing to scale"),
    ]


@_samples("put")
def _put(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.index([4, -1, 0]), m.uniform(3)), desc="negative index"),
        S(
            (m.uniform(3, 2, t=True), m.index([[1, 1], [5, 0]]), m.uniform(2, 2)),
            {"accumulate": True},
            desc="accumulate repeated",
        ),
    ]


@_samples("take")
def _take(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.index([[4, -1], [0, 4]])), desc="negative and repeated"),
        S((m.uniform(3, 2, t=True), m.index([5, 0, 1])), desc="transposed self"),
    ]


@_samples("chain_matmul")
def _chain_matmul(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(3, 4), m.uniform(4, 2))), S((m.uniform(3, 3),))]


@_samples("repeat_interleave")
def _repeat_interleave(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), 2), desc="flattened"),
        S((m.uniform(3, 2, t=True), m.index([1, 0, 2]), 0), desc="counts along dim 0"),
        S((m.uniform(2, 3), m.index([2, 1, 1]), 1), {"output_size": 4}, desc="output_size"),
        S((m.index([2, 0, 1]),), desc="indices"),
    ]


@_samples("block_diag")
def _block_diag(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(), m.uniform(2), m.uniform(3, 2, t=True)))]


@_samples("cartesian_prod")
def _cartesian_prod(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3), m.uniform(2))), S((m.uniform(2), m.uniform(2), m.uniform(1)))]


@_samples("combinations")
def _combinations(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4),)),
        S((m.uniform(3), 3), {"with_replacement": True}, desc="with replacement"),
    ]


@_samples("tril_indices", "triu_indices")
def _tril_indices(m: _Maker) -> list[Sample]:
    kw = {"dtype": m.int_dtype(), "device": m.device}
    # (the third leaves the dtype at its default; every sample names the device under test)
    return [
        S((3, 4), kw),
        S((4, 3, -1), kw, desc="offset -1"),
        S((3, 3, 1), {"device": m.device}, desc="default dtype"),
    ]


@_samples("logspace")
def _logspace(m: _Maker) -> list[Sample]:
    return [S((0.0, 2.0, 5), _fk(m)), S((1, -1, 3, 2.0), _fk(m), desc="base 2")]


@_samples("hann_window", "blackman_window", "bartlett_window")
def _window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False), _fk(m), desc="symmetric"), S((1,), _fk(m), desc="1")]


@_samples("hamming_window")
def _hamming_window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False, 0.5, 0.4), _fk(m), desc="symmetric, alpha, beta")]


@_samples("kaiser_window")
def _kaiser_window(m: _Maker) -> list[Sample]:
    return [S((8,), _fk(m)), S((5, False, 5.0), _fk(m), desc="symmetric, beta 5")]


@_samples("stft")
def _stft(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(20), 8), {"window": m.positive(8), "return_complex": True}),
        S((m.uniform(2, 16), 8), {"hop_length": 3, "win_length": 6, "window": m.positive(6),
          "normalized": True, "return_complex": True}, desc="batched, short window"),
        S((m.uniform(2, 12, t=True), 4), {"window": m.positive(4), "center": False,
          "onesided": False, "return_complex": True}, desc="not centred, two-sided"),
        S((m.uniform(10), 4), {"window": m.positive(4), "pad_mode": "constant",
          "return_complex": True}, desc="zero padding"),
        S((m.uniform(2, 14), 8), {"hop_length": 3, "win_length": 5, "window": m.positive(5),
          "center": False, "align_to_window": True, "return_complex": True},
          desc="windows aligned to the hops"),
    ]  # fmt: skip


@_samples("istft")
def _istft(m: _Maker) -> list[Sample]:
    window = tc.linspace(0.5, 1.5, 8, dtype=tc.float64, device=m.device)
    return [
        S((_spectrum(m, 5, 6), 8), {"window": window}),
        S((_spectrum(m, 2, 5, 6), 8), {"window": window, "hop_length": 3, "normalized": True,
          "length": 17}, desc="batched, length"),
        S((_spectrum(m, 8, 4), 8), {"window": window, "center": False, "onesided": False,
          "return_complex": True}, desc="two-sided, complex"),
    ]  # fmt: skip


@_samples("count_nonzero")
def _count_nonzero(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=3).to(m.dtype)
    return [S((x,)), S((x, 1), desc="dim 1"), S((x.t(), (0, 1)), desc="dims, transposed")]


@_samples("isin")
def _isin(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=6).to(m.dtype)
    return [
        S((x, m.ints(3, hi=6).to(m.dtype))),
        S((x.t(), m.ints(2, 2, hi=6).to(m.dtype)), {"invert": True}, desc="invert"),
        S((x, 3), desc="a number"),
    ]


@_samples("unique", "unique_consecutive")
def _unique(m: _Maker) -> list[Sample]:
    x = m.ints(3, 4, hi=3).to(m.dtype)
    return [
        S((x,)),
        S((x.t(),), {"return_inverse": True, "return_counts": True}, desc="inverse, counts"),
        S((x,), {"dim": 1, "return_inverse": True, "return_counts": True}, desc="dim 1"),
    ]


@_samples("histc")
def _histc(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), desc="default range"),
        S((m.uniform(3, 4, t=True), 4, -0.5, 0.5), desc="4 bins of [-0.5, 0.5]"),
    ]


@_samples("histogram")
def _histogram(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), desc="default bins and range"),
        S((m.uniform(3, 4, t=True), 4), {"range": (-0.5, 0.5), "density": True}, desc="range"),
    ]


@_samples("kthvalue")
def _kthvalue(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2), desc="k=2"),
        S((m.distinct(4, 3, t=True), 3, 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("mode")
def _mode(m: _Maker) -> list[Sample]:
    # Distinct values (a tie would move under gradcheck's perturbations): the smallest wins.
    return [
        S((m.distinct(2, 4),)),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("median", "nanmedian")
def _median(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 5),), desc="all"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
        S((m.distinct(3, 4), -1), desc="dim -1"),
    ]


@_samples("median_dim", "nanmedian_dim", "mode_dim")
def _order_statistic_dim(m: _Maker) -> list[Sample]:
    # (the kernels behind the composites ``median``, ``nanmedian``, ``mode`` along a dim)
    return [
        S((m.distinct(2, 5), 1), desc="dim 1"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("kthvalue_dim")
def _kthvalue_dim(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2, 1), desc="k=2"),
        S((m.distinct(4, 3, t=True), 3, 0, True), desc="dim 0 of transposed, keepdim"),
    ]


@_samples("quantile", "nanquantile")
def _quantile(m: _Maker) -> list[Sample]:
    x = m.distinct(3, 4)
    q = tc.tensor([0.25, 0.5, 0.9], dtype=m.dtype, device=m.device)
    return [
        S((x, 0.3), desc="all"),
        S((x, q, 1, True), desc="q tensor, dim 1, keepdim"),
        S((m.distinct(4, 3, t=True), 0.6, 0), {"interpolation": "midpoint"}, desc="midpoint"),
        S((x, q, -1), {"interpolation": "lower"}, desc="lower"),
    ]


@_samples("nanmean", "nansum")
def _nanmean(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1, True), desc="dim 1 of transposed, keepdim"),
    ]


@_samples("var_mean", "std_mean")
def _var_mean(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), desc="all"),
        S((m.uniform(4, 3, t=True), 1), {"correction": 0, "keepdim": True}, desc="dim 1"),
    ]


@_samples("aminmax")
def _aminmax(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 3),), desc="all"),
        S((m.distinct(4, 3, t=True),), {"dim": 0, "keepdim": True}, desc="dim 0, keepdim"),
    ]


# ------------------------------------------------------------------ views
@_samples("view")
def _view(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 3, 2)), S((m.uniform(2, 3), (-1,)), desc="flatten")]


@_samples("reshape")
def _reshape(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (3, 2))),
        S((m.uniform(3, 2, t=True), (-1,)), desc="transposed (copies)"),
    ]


@_samples("as_strided")
def _as_strided(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), (3, 2), (1, 3)), desc="transpose"),
        S((m.uniform(6), (3, 2), (1, 1)), desc="overlapping windows"),
        S((m.uniform(2, 3), (2,), (2,), 1), desc="offset"),
    ]


@_samples("expand")
def _expand(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), 3, 2)), S((m.uniform(3), (2, -1)), desc="new dim")]


@_samples("transpose", "swapaxes")
def _transpose(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 1)), S((m.uniform(2, 3, 2), -1, 0), desc="3-D")]


@_samples("permute")
def _permute(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 2), (2, 0, 1))), S((m.uniform(4, 3, t=True), 1, 0), desc="T")]


@_samples("squeeze")
def _squeeze(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 1, 3),)), S((m.uniform(1, 3, 1), (0,)), desc="one dim")]


@_samples("unsqueeze")
def _unsqueeze(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1)), S((m.uniform(4, 3, t=True), -1), desc="transposed")]


@_samples("narrow")
def _narrow(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 4), 1, 1, 2)), S((m.uniform(4, 3, t=True), 0, 1, 2), desc="T")]


@_samples("select")
def _select(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1, 2)), S((m.uniform(4, 3, t=True), 0, -1), desc="T")]


@_samples("slice")
def _slice(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4), 1, 1, 4, 2), desc="step 2"),
        S((m.uniform(4, 3, t=True), 0, None, 2), desc="transposed"),
    ]


@_samples("diagonal")
def _diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 3),)),
        S((m.uniform(3, 4, t=True), 1), desc="offset 1, transposed"),
        S((m.uniform(2, 3, 3), -1, 1, 2), desc="batched"),
    ]


@_samples("unfold")
def _unfold(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(5), 0, 2, 1), desc="overlapping windows"),
        S((m.uniform(2, 4), 1, 2, 2), desc="disjoint windows"),
    ]


@_samples("alias", "clone", "contiguous")
def _alias(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True),), desc="transposed")]


@_samples("view_as", "reshape_as")
def _view_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(3, 2))), S((m.uniform(3, 1), m.uniform(1, 3)))]


@_samples("expand_as")
def _expand_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), m.uniform(3, 2))), S((m.uniform(3), m.uniform(2, 3)), desc="new")]


@_samples("broadcast_to")
def _broadcast_to(m: _Maker) -> list[Sample]:
    return [S((m.uniform(3, 1), (3, 2))), S((m.uniform(3), (2, 3)), desc="new dim")]


@_samples("t")
def _t(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3),), desc="1-D")]


@_samples("movedim")
def _movedim(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3, 2), (0,), (2,))), S((m.uniform(2, 3, 2), (0, 1), (2, 0)))]


@_samples("flatten")
def _flatten(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3, 2),)),
        S((m.uniform(2, 3, 2), 1), desc="from dim 1"),
        S((m.uniform(4, 3, t=True),), desc="transposed (copies)"),
    ]


@_samples("unflatten")
def _unflatten(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 6), 1, (2, 3))), S((m.uniform(6), 0, (-1, 2)), desc="inferred")]


@_samples("split")
def _split(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(5, 2), 2), desc="equal pieces"),
        S((m.uniform(3, 4, t=True), (1, 3), 1), desc="sections of transposed"),
    ]


@_samples("chunk")
def _chunk(m: _Maker) -> list[Sample]:
    return [S((m.uniform(5, 2), 2)), S((m.uniform(3, 4, t=True), 2, 1), desc="dim 1")]


@_samples("unbind")
def _unbind(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True), 1), desc="dim 1")]


# ------------------------------------------------------------------ conversions and in-place
@_samples("to_dtype")
def _to_dtype(m: _Maker) -> list[Sample]:
    x = m.uniform(2, 3)
    out = [S((x, m.dtype), desc="same dtype")]
    if m.dtype is not dt.float64:
        out.append(S((m.uniform(2, 3), tc.float64), desc="to float64"))
    return out


@_samples("to_dense")
def _to_dense(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(4, 3, t=True), tc.float64), desc="to float64")]


@_samples("type_as")
def _type_as(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.uniform(1)))]


@_samples("to_device")
def _to_device(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), m.device)), S((m.uniform(3, 2, t=True), m.device, False))]


@_samples("copy_")
def _copy(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3)), desc="same shape"),
        S((m.uniform(2, 3), m.uniform(3)), desc="broadcast src"),
        S((m.uniform(2, 3, t=True), m.uniform(2, 3)), desc="into transposed"),
    ]


@_samples("fill_")
def _fill(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 1.5)), S((m.uniform(3, 2, t=True), 0), desc="transposed")]


@_samples("zero_")
def _zero(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), desc="transposed")]


@_samples("fill_diagonal_")
def _fill_diagonal(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 1.5), desc="wide"),
        S((m.uniform(7, 3, t=True), 0.5), {"wrap": True}, desc="tall, transposed, wrap"),
        S((m.uniform(3, 3), 2), desc="square"),
    ]


@_samples("item")
def _item(m: _Maker) -> list[Sample]:
    return [S((m.uniform(),)), S((m.uniform(1, 1),), desc="one element")]


@_samples("tolist")
def _tolist(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(),), desc="0-dim")]


@_samples("uniform_", "normal_")
def _fill_random(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),), {"generator": m.generator(SEED)}),
        S((m.uniform(3), -2.0, 2.0), {"generator": m.generator(SEED)}),
    ]


@_samples("_standard_gamma")
def _standard_gamma(m: _Maker) -> list[Sample]:
    alpha = m.uniform(3, 4, lo=0.2, hi=5.0)
    return [S((alpha,), {"generator": m.generator(SEED)}, desc="concentrations")]


@_samples("random_")
def _random(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 5), {"generator": m.generator(SEED)})]


# ------------------------------------------------------------------ factories
def _fk(m: _Maker, **kw: Any) -> dict[str, Any]:
    return {"dtype": m.dtype, "device": m.device, **kw}


@_samples("empty", "zeros", "ones")
def _empty(m: _Maker) -> list[Sample]:
    return [S((2, 3), _fk(m)), S(((3,),), _fk(m), desc="size tuple")]


@_samples("rand", "randn")
def _rand(m: _Maker) -> list[Sample]:
    return [S((2, 3), m.factory_kwargs(SEED, dtype=m.dtype))]


@_samples("full")
def _full(m: _Maker) -> list[Sample]:
    return [S(((2, 3), 1.5), _fk(m)), S(((0,), 7), _fk(m), desc="empty")]


@_samples("arange")
def _arange(m: _Maker) -> list[Sample]:
    return [S((5,), _fk(m)), S((1, 7, 2), _fk(m), desc="start, end, step")]


@_samples("linspace")
def _linspace(m: _Maker) -> list[Sample]:
    return [S((0.0, 1.0, 5), _fk(m))]


@_samples("eye")
def _eye(m: _Maker) -> list[Sample]:
    return [S((3,), _fk(m)), S((2, 4), _fk(m), desc="rectangular")]


@_samples("bernoulli")
def _bernoulli(m: _Maker) -> list[Sample]:
    p = m.uniform(3, 4, lo=0.0, hi=1.0)
    return [
        S((p,), {"generator": m.generator(1)}, desc="probabilities"),
        S((p, 0.3), {"generator": m.generator(2)}, desc="one probability p"),
    ]


@_samples("bernoulli_")
def _bernoulli_inplace(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 0.3), {"generator": m.generator(2)}, desc="p=0.3"),
        S((m.uniform(5),), {"generator": m.generator(3)}, desc="default p"),
    ]


@_samples("exponential_", "cauchy_", "log_normal_")
def _continuous_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4),), {"generator": m.generator(2)}, desc="defaults"),
        S((m.uniform(3, 2, t=True), 0.5), {"generator": m.generator(3)},
          desc="transposed"),
    ]  # fmt: skip


@_samples("geometric_")
def _geometric_inplace(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), 0.3), {"generator": m.generator(2)}),
        S((m.uniform(3, 2, t=True), 0.9), {"generator": m.generator(3)},
          desc="transposed"),
    ]  # fmt: skip


@_samples("multinomial")
def _multinomial(m: _Maker) -> list[Sample]:
    w = m.positive(5, lo=0.1, hi=1.0) if m.floating else m.positive(5).to(tc.float32)
    return [
        S((w, 3), {"generator": m.generator(1)}, desc="without replacement"),
        S(
            (w.expand(2, 5), 7, True),
            {"generator": m.generator(2)},
            desc="2-D, with replacement",
        ),
    ]


@_samples("randperm")
def _randperm(m: _Maker) -> list[Sample]:
    return [S((5,), m.factory_kwargs(SEED))]


@_samples("randint")
def _randint(m: _Maker) -> list[Sample]:
    return [
        S((0, 5, (2, 3)), m.factory_kwargs(SEED)),
        S((5, (4,)), m.factory_kwargs(SEED + 1), desc="high only"),
    ]


@_samples("normal")
def _normal(m: _Maker) -> list[Sample]:
    return [
        S((0.0, 1.0, (2, 3)), m.factory_kwargs(SEED, dtype=m.dtype)),
        S(
            (m.uniform(2, 3), m.positive(3)),
            {"generator": m.generator(SEED)},
            desc="tensor mean and std",
        ),
    ]


@_samples("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like")
def _like(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), {"dtype": m.dtype})]


@_samples("full_like")
def _full_like(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 2.5)), S((m.uniform(3, 2, t=True), 1), {"dtype": m.dtype})]


# ------------------------------------------------------------------ the public table
# ------------------------------------------------------------------ idioms of PyTorch programs
@_samples("clamp_min", "clamp_max")
def _clamp_one(m: _Maker) -> list[Sample]:
    x = m.away(2, 3, lo=0.3, hi=1.5)
    return [
        S((x, 0.1), desc="scalar bound"),
        S((x.t().contiguous().t(), m.uniform(3, lo=-0.2, hi=0.2)), desc="tensor bound, broadcast"),
    ]


@_samples("addcmul", "addcdiv")
def _addcmul(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(2, 3), m.away(2, 3))),
        S((m.uniform(3), m.uniform(2, 3, t=True), m.away(2, 1)), {"value": 0.5}, desc="broadcast"),
    ]


@_samples("swapdims")
def _swapdims(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3), 0, 1)), S((m.uniform(2, 3, 2), -1, 0), desc="3-D")]


@_samples("ravel")
def _ravel(m: _Maker) -> list[Sample]:
    return [S((m.uniform(2, 3),)), S((m.uniform(3, 2, t=True),), desc="transposed: a copy")]


@_samples("baddbmm", "addbmm")
def _baddbmm(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 3), m.uniform(2, 2, 4), m.uniform(2, 4, 3)),
            {"beta": 0.5, "alpha": 2},
            desc="broadcast self",
        ),
        S((m.uniform(2, 3), m.uniform(1, 2, 4), m.uniform(1, 4, 3)), {"beta": 0}, desc="beta 0"),
    ]


@_samples("cdist")
def _cdist(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), m.uniform(4, 2))),
        S((m.uniform(2, 3, 2), m.uniform(2, 2, 2)), {"p": 1.0}, desc="batched, p=1"),
        S((m.uniform(3, 2), m.uniform(2, 2)), {"p": 3.0}, desc="p=3"),
        S(
            (m.uniform(3, 2), m.uniform(4, 2)),
            {"compute_mode": "use_mm_for_euclid_dist"},
            desc="matrix product",
        ),
    ]


@_samples("pdist")
def _pdist(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(4, 3),)),
        S((m.distinct(3, 2, t=True),), {"p": 1.0}, desc="p=1, transposed"),
        S((m.distinct(3, 2),), {"p": 3.0}, desc="p=3"),
    ]


@_samples("cosine_similarity")
def _cosine_similarity(m: _Maker) -> list[Sample]:
    return [
        S((m.away(3, 4), m.away(3, 4))),
        S((m.away(2, 3), m.away(1, 3)), {"dim": -1}, desc="broadcast, dim -1"),
        S((m.away(4, 2, t=True), m.away(4, 2)), {"dim": 0}, desc="dim 0 of transposed"),
    ]


@_samples("cov")
def _cov(m: _Maker) -> list[Sample]:
    fw = m.ints(5, lo=1, hi=4)
    aw = tc.tensor([0.5, 1.5, 1.0, 2.0, 0.25], dtype=tc.float64, device=m.device)
    return [
        S((m.uniform(3, 5),)),
        S((m.uniform(5),), {"correction": 0}, desc="one variable"),
        S((m.uniform(2, 5, t=True),), {"fweights": fw}, desc="fweights, transposed"),
        S((m.uniform(2, 5),), {"fweights": fw, "aweights": aw}, desc="both weights"),
        S((m.uniform(2, 5),), {"aweights": aw, "correction": 0}, desc="aweights"),
    ]


@_samples("corrcoef")
def _corrcoef(m: _Maker) -> list[Sample]:
    return [S((m.distinct(3, 5),)), S((m.distinct(4, 2, t=True),), desc="transposed")]


@_samples("masked_select")
def _masked_select(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.mask(2, 3))),
        S((m.uniform(3, 2, t=True), m.mask(2)), desc="broadcast mask"),
    ]


@_samples("index_add")
def _index_add(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0, 2]), m.uniform(3, 2)), desc="repeated"),
        S((m.uniform(2, 4), 1, m.index([3, 1]), m.uniform(2, 2)), {"alpha": 2}, desc="alpha"),
    ]


@_samples("index_copy")
def _index_copy(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0]), m.uniform(2, 2))),
        S((m.uniform(2, 4, t=True), 1, m.index([3, 1]), m.uniform(2, 2)), desc="dim 1"),
    ]


@_samples("index_fill")
def _index_fill(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2), 0, m.index([2, 0]), 0.5), desc="scalar"),
        S((m.uniform(2, 4, t=True), 1, m.index([3, 1, 3]), m.uniform()), desc="0-d tensor"),
    ]


@_samples("bincount")
def _bincount(m: _Maker) -> list[Sample]:
    x = m.ints(6, hi=5, dtype=m.int_dtype())
    return [
        # (a bool data dtype gives a bool input, which bincount refuses)
        S((m.ints(5, hi=4).to(dt.bool_ if m.dtype is dt.bool_ else x.dtype),), desc="short"),
        S((x, m.uniform(6)), desc="weights"),
        S((x,), {"minlength": 8}, desc="minlength"),
    ]


@_samples("one_hot")
def _one_hot(m: _Maker) -> list[Sample]:
    # (int64 indices whatever the dtype under test: one_hot takes no other)
    return [
        S((m.ints(6, hi=5),), desc="inferred classes"),
        S((m.ints(2, 3, hi=4), 6), desc="2-D"),
        S((m.index(2), 3), desc="0-d"),
        S((m.index([]), 4), desc="empty"),
    ]


# (Every element clamped, where the straight-through gradient, 0 there and the incoming one
# within the range, is also the derivative, so that gradcheck can compare them;
# tests/test_program_sweep25.py checks the values and gradients within the range.)
@_samples("fake_quantize_per_tensor_affine")
def _fake_quantize_per_tensor(m: _Maker) -> list[Sample]:
    return [S((m.away(2, 3, lo=1.0, hi=2.0), 0.1, 0, -8, 7), desc="clamped")]


@_samples("fake_quantize_per_channel_affine")
def _fake_quantize_per_channel(m: _Maker) -> list[Sample]:
    # (clamped to quant_max == zero_point: 0, whatever the scale, which takes no gradient)
    scale = tc.tensor([0.1, 0.1, 0.05], device=m.device)
    zero_point = tc.zeros(3, dtype=tc.int32, device=m.device)
    return [S((m.positive(2, 3, lo=1.0), scale, zero_point, 1, -8, 0), desc="clamped")]


@_samples("diag")
def _diag(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3),)),
        S((m.uniform(3), -1), desc="1-D, below"),
        S((m.uniform(3, 4, t=True), 1), desc="2-D, above"),
    ]


@_samples("diag_embed")
def _diag_embed(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3),)),
        S((m.uniform(2, 3), 1, 0, 2), desc="offset, dims"),
        S((m.uniform(3), -2), desc="below"),
    ]


from tensorcore.testing._samples_more import more_samples  # noqa: E402

for _n, _fn in more_samples(S).items():
    _samples(_n)(_fn)


def _bind(fn: _Gen) -> Callable[[Any, dt.dtype], list[Sample]]:
    def make(device: Any, dtype: dt.dtype) -> list[Sample]:
        if dtype_unsupported(device, dtype) is not None:
            return []
        return fn(_Maker(device, dtype))

    make.__doc__ = (
        "Samples for one operator: ``make(device, dtype) -> list[Sample]`` (none for a dtype "
        "the device lacks)."
    )
    return make


#: Operator name -> ``callable(device, dtype) -> list[Sample]``, for every operator the core
#: declares (see :func:`core_ops`).
SAMPLES: dict[str, Callable[[Any, dt.dtype], list[Sample]]] = {
    name: _bind(fn) for name, fn in sorted(_RAW.items())
}


@functools.cache
def core_ops() -> tuple[str, ...]:
    """The operators declared by the core's table, ``tensorcore/ops/schema/``, in order.

    That table, ``tensorcore.ops.schema.OPS``, holds the core's operators only. The operators
    plugins declare (``register.op``, e.g. the sparse backend's ``to_sparse``) join the
    runtime table, :func:`tensorcore.dispatch.ops`, which also holds the core's: these
    samples cover the core's operators, and a plugin's are the plugin's to test.

    Examples
    --------
    >>> from tensorcore.testing.samples import core_ops
    >>> "add" in core_ops() and "to_sparse" not in core_ops()
    True
    """
    from tensorcore.ops.schema import OPS

    return tuple(OPS)


def inplace_only(name: str) -> bool:
    """True for operators that exist only as in-place methods (``copy_``, ``fill_``...).

    Examples
    --------
    >>> from tensorcore.testing.samples import inplace_only
    >>> inplace_only("copy_"), inplace_only("add")
    (True, False)
    """
    return "inplace" in tc.dispatch.get_op(name).decl.tags


class _Slot:
    """Where :func:`split_leaves` took leaf ``k`` out of a sample."""

    def __init__(self, k: int) -> None:
        self.k = k


def split_leaves(
    sample: Sample,
    select: Callable[[tc.Tensor], bool],
    make_leaf: Callable[[tc.Tensor], tc.Tensor],
) -> tuple[Callable[[list[Any]], Sample], list[tc.Tensor]]:
    """The tensors of ``sample`` (positional, keyword, and inside lists) that ``select``
    picks, each made a leaf by ``make_leaf``, and ``rebuild(xs)``: the sample's call with
    ``xs`` in their places (what gradient checks perturb).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing.samples import Sample, split_leaves
    >>> s = Sample((tc.ones(2), [tc.zeros(1)], 3))
    >>> rebuild, leaves = split_leaves(
    ...     s, lambda t: t.dtype.is_floating_point, lambda t: t.detach().requires_grad_()
    ... )
    >>> [x.requires_grad for x in leaves]
    [True, True]
    >>> rebuild([tc.full((2,), 5.0), tc.full((1,), 6.0)]).args[1][0].tolist()
    [6.0]
    """
    leaves: list[tc.Tensor] = []

    def cut(a: Any) -> Any:
        if isinstance(a, tc.Tensor) and select(a):
            leaves.append(make_leaf(a))
            return _Slot(len(leaves) - 1)
        if isinstance(a, list):
            return [cut(x) for x in a]
        return a

    args = tuple(cut(a) for a in sample.args)
    kwargs = {k: cut(v) for k, v in sample.kwargs.items()}

    def rebuild(xs: list[Any]) -> Sample:
        def put(a: Any) -> Any:
            if isinstance(a, _Slot):
                return xs[a.k]
            if isinstance(a, list):
                return [put(x) for x in a]
            return a

        return Sample(tuple(put(a) for a in args), {k: put(v) for k, v in kwargs.items()})

    return rebuild, leaves


def tensor_inputs(sample: Sample) -> list[tc.Tensor]:
    """Every tensor in ``sample`` (positional, keyword, and inside lists), in order.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing.samples import Sample, tensor_inputs
    >>> len(tensor_inputs(Sample(([tc.ones(1), tc.ones(2)], 0), {"x": tc.ones(3)})))
    3
    """
    out: list[tc.Tensor] = []
    for a in (*sample.args, *sample.kwargs.values()):
        if isinstance(a, tc.Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, tc.Tensor))
    return out


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
