"""The argument checks (``check=``) and rewrites (``convert=``) that operator declarations
name: a check raises PyTorch's error for an argument the operator refuses, before anything is
allocated; a rewrite turns another accepted spelling of the arguments (``einsum``'s sublists,
0-d tensor bounds) into the one the frontend takes. The frontends call them as the
declaration says (``ops/frontends.py``); see "Bad input" in ``docs/concepts.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._tensor import Tensor, cpp_name, torch_name
from ._validate import v_float
from .meta_functions import index_range

__all__ = [
    "check_bernoulli",
    "check_bernoulli_p",
    "check_cdist",
    "check_clamp_bool",
    "check_gelu_approximate",
    "check_histogram",
    "check_index_reduce",
    "check_multinomial",
    "check_normal",
    "check_one_hot",
    "check_polygamma_order",
    "check_pow",
    "check_random_range",
    "check_round_decimals",
    "check_rounding_mode",
    "check_scatter_reduce",
    "check_sub_bool",
    "check_uniform",
    "einsum_sublists",
    "narrow_tensor_start",
    "refuses_16bit_floats",
    "refuses_bool_scan",
    "refuses_category",
    "refuses_complex_on_device",
    "space_bounds",
]


# ---------------------------------------------------------------- argument rewrites (``convert=``)
def einsum_sublists(equation: Any, operands: Any) -> tuple[Any, Any]:
    """``einsum``'s sublist form, ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (each operand
    followed by its subscripts as ints in ``[0, 52)`` or ``...``, then optionally the
    output's), as the equation form ``("ab,bc->ac", (a, b))``; the equation form unchanged."""
    if equation.__class__ is str or not isinstance(equation, Tensor):
        return equation, operands
    args = (equation, *operands)
    pairs = args[: len(args) - len(args) % 2]
    out = args[-1] if len(args) % 2 else None

    def letters(sub: Any) -> str:
        if not isinstance(sub, (list, tuple)):
            raise TypeError(
                f"einsum(): expected a list of subscripts after each operand, got "
                f"{type(sub).__name__}"
            )
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 52:
                s += chr(ord("a") + v) if v < 26 else chr(ord("A") + v - 26)
            else:
                raise RuntimeError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return s

    eq = ",".join(letters(s) for s in pairs[1::2])
    if out is not None:
        eq += "->" + letters(out)
    return eq, tuple(pairs[0::2])


# ---------------------------------------------------------------- argument checks (``check=``)
def check_gelu_approximate(*args: Any) -> None:
    """``gelu``'s and ``gelu_backward``'s ``approximate`` (their last argument): ``'none'`` or
    ``'tanh'`` (PyTorch's error)."""
    if args[-1] not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")


def check_rounding_mode(self: Any, other: Any, rounding_mode: Any = None) -> None:
    """``div``'s ``rounding_mode``: None, ``'trunc'`` or ``'floor'`` (PyTorch's error); a
    rounded quotient is not defined for bool and complex operands (PyTorch's dispatcher
    error)."""
    if rounding_mode is None:
        return
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    d = dt.result_type(self, other)
    if d is dt.bool_ or d.is_complex:
        raise NotImplementedError(f"\"div_{rounding_mode}\" not implemented for '{torch_name(d)}'")


def check_sub_bool(self: Any, other: Any, alpha: Any = 1) -> None:
    """``sub`` refuses a bool operand meeting a number, a bool tensor or a Python bool
    (PyTorch's error): promotion would otherwise subtract silently (``mask - 1``). Two bools
    promote to bool, which ``sub``'s declared dtypes refuse."""
    a = self.__class__ is bool or (isinstance(self, Tensor) and self._dtype is dt.bool_)
    b = other.__class__ is bool or (isinstance(other, Tensor) and other._dtype is dt.bool_)
    if a != b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def check_clamp_bool(self: Any, min: Any = None, max: Any = None) -> None:
    """``clamp`` computes in bool only as ``maximum`` or ``minimum`` do: with one bound, a
    bool tensor (PyTorch's kernels); both bounds, or a Python bool, are refused as PyTorch
    refuses them. A bound of another dtype promotes, and is not this check's."""
    if not (isinstance(self, Tensor) and self._dtype is dt.bool_):
        return
    bounds = [b for b in (min, max) if b is not None]
    if any(not (isinstance(b, bool) or (isinstance(b, Tensor) and b._dtype is dt.bool_))
           for b in bounds):  # fmt: skip
        return  # (it promotes: not a bool computation)
    if len(bounds) != 1 or not isinstance(bounds[0], Tensor):
        raise NotImplementedError("\"clamp\" not implemented for 'Bool'")


def check_round_decimals(self: Any, decimals: int = 0) -> None:
    """``round`` to ``decimals`` places scales by a power of ten, which PyTorch's kernels do
    in floating point only: integral and bool tensors are refused (without ``decimals``
    they are returned unchanged)."""
    if (
        decimals != 0
        and isinstance(self, Tensor)
        and not (self._dtype.is_floating_point or self._dtype.is_complex)
    ):
        raise NotImplementedError(
            f"\"round_{self._device.type}\" not implemented for '{torch_name(self._dtype)}' "
            f"(decimals={decimals})"
        )


def refuses_16bit_floats(
    kernel: str, *, device_suffix: bool = True, error: str = "", first: bool = False
) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``NotImplementedError`` where the operands
    would compute in float16 or bfloat16, for the operators whose PyTorch kernels have no
    such loops (``"zeta_cpu" not implemented for 'Half'``; ``"cdist"`` without the device
    when not ``device_suffix``), which the dtype categories of a declaration cannot say; or
    the ``RuntimeError`` of wording ``error`` where PyTorch checks the dtype itself. The
    dtype is the promoted one of the tensors and numbers among the arguments (the first
    tensor's when ``first``)."""

    def check(*args: Any) -> None:
        if first:
            d = next(a for a in args if isinstance(a, Tensor))._dtype
        else:
            d = dt.result_type(*(a for a in args if isinstance(a, (Tensor, int, float, complex))))
        if d is dt.float16 or d is dt.bfloat16:
            if error:
                raise RuntimeError(error.format(dtype=torch_name(d)))
            where = next(a._device.type for a in args if isinstance(a, Tensor))
            name = f"{kernel}_{where}" if device_suffix else kernel
            raise NotImplementedError(f"\"{name}\" not implemented for '{torch_name(d)}'")

    check.refuses_16bit_floats = True  # type: ignore[attr-defined]  # (read by the dtype tests)
    return check


def refuses_category(kinds: str, error: str, param: int = 0) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``RuntimeError`` of wording ``error`` where the
    tensor at position ``param`` has a dtype of the categories ``kinds`` (letters of
    ``'bifc'``), for a refusal PyTorch's operator makes itself, apart from the dtype it
    computes in (``mvlgamma`` of bools, ``normal``'s complex ``std``)."""
    cats = frozenset("bifc".index(k) for k in kinds)

    def check(*args: Any) -> None:
        a = args[param] if param < len(args) else None
        if isinstance(a, Tensor) and a._dtype._category in cats:
            raise RuntimeError(error)

    return check


#: PyTorch's names of the device types, as its messages print them (``DeviceType``).
_DEVICE_TYPE_NAMES = {"cpu": "CPU", "cuda": "CUDA", "meta": "Meta"}


def refuses_complex_on_device(name: str) -> Callable[..., None]:
    """An operator's ``check``: PyTorch's ``RuntimeError`` for a complex ``self``, worded with
    the tensor's device type as PyTorch words it for its CPU kernel (``nansum on CPU does not
    support complex inputs``); the refusal comes before the dtype the call computes in, so an
    explicit ``dtype=`` does not lift it."""

    def check(self: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self, Tensor) and self._dtype.is_complex:
            t = self._device.type
            where = _DEVICE_TYPE_NAMES.get(t, t.upper())
            raise RuntimeError(f"{name} on {where} does not support complex inputs")

    return check


def refuses_bool_scan(kernel: str) -> Callable[..., None]:
    """``cumsum``/``cumprod``'s ``check``: PyTorch's scan kernels have no bool loop, so a
    ``dtype=bool`` is refused (``"cumsum_out_cpu" not implemented for 'Bool'``)."""

    def check(self: Tensor, dim: int, dtype: dt.dtype | None = None) -> None:
        if dtype is dt.bool_:
            where = self._device.type
            raise NotImplementedError(f"\"{kernel}_out_{where}\" not implemented for 'Bool'")

    return check


def check_normal(mean: Any, std: Any, *rest: Any) -> None:
    """``normal``'s ``check``: ``std`` is real and not negative, a number or every element of
    a tensor (read only where the device holds data: a meta tensor has none to check)."""
    if isinstance(std, Tensor):
        if std._dtype.is_complex:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if (
            std.numel()
            and _registry.interface(std._device).holds_data
            and not bool((std >= 0).all())
        ):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif isinstance(std, (int, float)) and not std >= 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def check_multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, generator: Any = None
) -> None:
    """``multinomial``'s ``check``, PyTorch's: a 1-D or 2-D tensor of weights, at least one
    sample, no more than the categories without ``replacement`` (the weights' values are the
    kernel's to check, where it reads them)."""
    if self.ndim not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim, got {self.ndim}-dim input")
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (got {num_samples})")
    if not replacement and num_samples > self._shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )


def check_bernoulli(self: Tensor, p: float | None = None, generator: Any = None) -> None:
    """``bernoulli``'s ``check``: the probabilities ``self`` holds must be floating (a
    ``p`` draws into any real dtype)."""
    if p is None and self._dtype._category < dt.FLOATING:
        raise NotImplementedError(
            f'"bernoulli_tensor_{self._device.type}_p_" not implemented for '
            f"'{torch_name(self._dtype)}'"
        )


def check_uniform(self: Tensor, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> None:
    """``uniform_``'s ``check``, PyTorch's: each bound lies within the finite range of the
    (real) dtype drawn in (so no infinity or NaN), ``from <= to``, and ``to - from`` is
    finite in that dtype.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.empty(2, dtype=tc.float16).uniform_(0.0, 7e4)
    Traceback (most recent call last):
    ...
    RuntimeError: uniform_(): to is out of bounds for c10::Half
    """
    real = self._dtype.to_real()
    top = dt._FLOAT_MAX.get(real)
    if top is None:
        return  # (the declared dtypes refuse the others)
    for name, v in (("from", from_), ("to", to)):
        if not -top <= v <= top:
            raise RuntimeError(f"{name} is out of bounds for {cpp_name(real)}")
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={from_:g} > to={to:g}"
        )
    if to - from_ > top:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{torch_name(real)}>::max(), but "
            f"found to={to:g} and from={from_:g} which result in to-from to exceed the limit"
        )


def check_bernoulli_p(self: Tensor, p: Any = 0.5, generator: Any = None) -> Any:
    """``bernoulli_``'s ``check``: ``p`` is a probability, or a floating tensor of them that
    broadcasts to ``self`` (PyTorch's two overloads), each in [0, 1]."""
    if isinstance(p, Tensor):
        if p._dtype._category < dt.FLOATING:
            raise NotImplementedError(
                f'"bernoulli_tensor_{self._device.type}_p_" not implemented for '
                f"'{torch_name(p._dtype)}'"
            )
        p.expand(self._shape)  # (PyTorch's error for a p of another shape)
        # (the values only where the device holds data: a meta tensor's have none to check)
        # (two reductions: a NaN makes both fail, as PyTorch refuses it)
        if (
            p.numel()
            and _registry.interface(p._device).holds_data
            and not (p.amin().item() >= 0 and p.amax().item() <= 1)
        ):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        p = v_float("bernoulli_", "p", p)  # (a NumPy number passes; anything else raises)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def check_one_hot(self: Tensor, num_classes: int = -1) -> None:
    """``one_hot``'s ``check``, PyTorch's: int64 indices, at least one of them to infer
    ``num_classes`` from (-1), and each in ``[0, num_classes)`` (the values only where the
    device holds data: a meta tensor's have none to check).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.functional.one_hot(tc.tensor([0, 3]), 3)
    Traceback (most recent call last):
    ...
    RuntimeError: one_hot(): Class values must be smaller than num_classes.
    """
    if self._dtype is not dt.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if not self.numel():
        if num_classes == -1:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return
    if not _registry.interface(self._device).holds_data:
        return
    lo, hi = index_range(self)
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes != -1 and hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")


def check_bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> None:
    """``bincount``'s ``check``, PyTorch's: 1-D non-negative values (read only where the
    device holds data), ``minlength >= 0``, weights of ``self``'s length.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.bincount(tc.tensor([1, -1]))
    Traceback (most recent call last):
    ...
    RuntimeError: bincount only supports 1-d non-negative integral inputs.
    """
    if self.ndim != 1:  # (the declaration refuses non-integral dtypes)
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None and (weights.ndim != 1 or weights._shape[0] != self._shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    holds_data = _registry.interface(self._device).holds_data
    if self.numel() and holds_data and index_range(self)[0] < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")


def check_scatter_reduce(
    self: Tensor, dim: int, index: Any, src: Any, reduce: str, include_self: bool = True
) -> None:
    """``scatter_reduce``'s ``check`` (``index_reduce`` runs it): PyTorch's reductions have
    no bool ``'mean'`` and no complex ``'amax'``/``'amin'``."""
    d = self._dtype
    if (reduce == "mean" and d is dt.bool_) or (reduce in ("amax", "amin") and d.is_complex):
        raise NotImplementedError(
            f'"scatter_gather_tensor_{self._device.type}_reduce_{reduce}" not implemented '
            f"for '{torch_name(d)}'"
        )


def _half_refused(kernel: str, t: Tensor) -> None:
    if t._dtype is dt.float16 or t._dtype is dt.bfloat16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{torch_name(t._dtype)}'")


def check_cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> None:
    """``cdist``'s ``check``: PyTorch's direct kernel has no 16-bit float loops; its matrix
    product path (``p=2`` with ``use_mm_for_euclid_dist``, or more than 25 rows by default)
    takes them."""
    rows = max(x1._shape[-2] if x1.ndim > 1 else 1, x2._shape[-2] if x2.ndim > 1 else 1)
    mm = p == 2 and (
        compute_mode == "use_mm_for_euclid_dist" or (compute_mode is None and rows > 25)
    )
    if not mm:
        _half_refused("cdist", x1)


def check_histogram(
    self: Tensor, bins: Any = 100, range: Any = None, weight: Any = None, density: bool = False
) -> None:
    """``histogram``'s ``check``: PyTorch finds the default range of 16-bit floats with a
    kernel that has no such loops (given edges or a ``range`` pass)."""
    if range is None and not isinstance(bins, Tensor):
        _half_refused("histogramdd", self)


# (their 16-bit refusals depend on the arguments: read by the dtype tests)
check_cdist.refuses_16bit_floats = True  # type: ignore[attr-defined]
check_histogram.refuses_16bit_floats = True  # type: ignore[attr-defined]


def check_index_reduce(
    self: Tensor, dim: int, index: Any, source: Any, reduce: str, include_self: bool = True
) -> None:
    """``index_reduce``'s ``check``: PyTorch's kernel without ``self``'s values has no bool
    or complex loops."""
    if not include_self and (self._dtype is dt.bool_ or self._dtype.is_complex):
        raise NotImplementedError(
            '"index_reduce_func_exclude_input_init" not implemented for '
            f"'{torch_name(self._dtype)}'"
        )


def check_pow(self: Any, exponent: Any) -> None:
    """``pow``'s ``check``: a negative Python integer exponent of integers is refused before
    it is converted (an unsigned dtype would wrap it), as PyTorch's."""
    if (
        exponent.__class__ is int
        and exponent < 0
        and isinstance(self, Tensor)
        and self._dtype._category == dt.INTEGRAL
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def check_random_range(self: Any, low: Any = None, high: Any = None, generator: Any = None) -> None:
    """``random_``'s ``check`` (PyTorch's errors): ``from < to``, both in the dtype's range
    (bool ``[0, 1]``, an integer dtype's limits, ``int64``'s for floating dtypes); checked
    before any backend runs, so that one without data (meta) refuses what the others do.
    ``random_()`` without bounds draws in a range the kernel derives from the dtype."""
    if not isinstance(self, Tensor) or low is None:
        return
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    if self._dtype is dt.bool_:
        lo, hi = 0, 1
    elif self._dtype._category == dt.INTEGRAL:
        lo, hi = dt.int_range(self._dtype)
    else:
        lo, hi = -(2**63), 2**63 - 1
    if low < lo or high - 1 > hi:
        raise RuntimeError(
            f"random_ expects 'from' and 'to' - 1 to be in the range of the dtype "
            f"[{lo}, {hi}], but got from={low} and to={high}"
        )


def check_polygamma_order(n: int, self: Any) -> None:
    """``polygamma``'s order: ``n >= 0`` (PyTorch's error)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


def space_bounds(name: str) -> Callable[..., tuple[Any, ...]]:
    """The argument rewrite of ``linspace``'s and ``logspace``'s tensor overloads: ``start``
    and ``end`` may be 0-d tensors (their values are the bounds); PyTorch refuses tensors of
    other ranks."""

    def convert(start: Any, end: Any, *rest: Any) -> tuple[Any, ...]:
        if isinstance(start, Tensor) or isinstance(end, Tensor):
            ranks = [x.ndim if isinstance(x, Tensor) else 0 for x in (start, end)]
            if ranks != [0, 0]:
                raise RuntimeError(
                    f"{name} only supports 0-dimensional start and end tensors, but got start "
                    f"with {ranks[0]} dimension(s) and end with {ranks[1]} dimension(s)."
                )
            start, end = (x.item() if isinstance(x, Tensor) else x for x in (start, end))
        return (start, end, *rest)

    return convert


def narrow_tensor_start(self: Any, dim: Any, start: Any, length: Any) -> tuple[Any, ...]:
    """``narrow``'s tensor overload: ``start`` may be a 0-d integer tensor."""
    if isinstance(start, Tensor):
        if start.ndim != 0 or start._dtype._category != dt.INTEGRAL:
            raise RuntimeError("narrow(): start must be an 0-dim integral Tensor.")
        start = start.item()
    return self, dim, start, length
