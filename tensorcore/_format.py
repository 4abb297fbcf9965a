"""Printing tensors: ``repr`` in PyTorch's text and the print options that shape it.

The text matches PyTorch's character for character (widths, fixed or scientific notation,
wrapping at ``linewidth``, summaries with ``...``). Unlike a formatter that converts the whole
tensor first, only the elements that get printed ever reach Python: a summarised tensor is
cut down to its edge elements with views before anything is converted, so ``repr`` costs
O(printed elements) even for a tensor of 2**40 (expanded) elements.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Any

from . import _registry
from . import dtypes as dt
from .layouts import get_codec, strided

if TYPE_CHECKING:
    from ._tensor import Tensor

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]


class _Options:
    """The current print options (one module-level instance, read on every ``repr``)."""

    __slots__ = ("edgeitems", "linewidth", "precision", "sci_mode", "threshold")

    def __init__(self) -> None:
        self.precision = 4
        self.threshold: float = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode: bool | None = None


_OPTS = _Options()

_PROFILES: dict[str, dict[str, Any]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the options that ``repr`` (and ``print``) of a tensor follow.

    The options and profiles are PyTorch's. An argument left out keeps its current value,
    except ``sci_mode``, which every call sets (as PyTorch does).

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point of floating-point elements (default 4).
    threshold : int or float, optional
        A tensor of more elements than this is summarised: only ``edgeitems`` elements at
        each end of each long dim are printed (default 1000; ``math.inf`` never summarises).
    edgeitems : int, optional
        Elements printed at the start and the end of each summarised dim (default 3).
    linewidth : int, optional
        Characters per line: longer rows wrap (default 80).
    profile : {'default', 'short', 'full'}, optional
        Sets all of the above at once: 'short' prints 2 digits and 2 edge items, 'full' never
        summarises. The other arguments, where given, override the profile's values.
    sci_mode : bool or None, optional
        True forces scientific notation, False forbids it, None (the initial value) chooses
        from the printed values. Like PyTorch, a call that leaves it out sets it back to None
        (``set_printoptions(precision=2)`` undoes an earlier ``sci_mode=False``): programs
        print PyTorch's text.

    Raises
    ------
    TypeError, ValueError
        For an option of the wrong type or out of range, or an unknown profile; nothing is
        changed then.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.set_printoptions(precision=2)
    >>> tc.tensor([1.12345, 100.0])
    tensor([  1.12, 100.00])
    >>> tc.set_printoptions(threshold=5)
    >>> tc.arange(10)
    tensor([0, 1, 2,  ..., 7, 8, 9])
    >>> tc.set_printoptions(profile="default")
    >>> tc.tensor([1.12345])
    tensor([1.1235])
    """
    new: dict[str, Any] = {}
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions(): profile must be one of {', '.join(map(repr, _PROFILES))}, "
                f"got {profile!r}"
            )
        new.update(_PROFILES[profile])
    for name, value, lowest in (
        ("precision", precision, 0),
        ("edgeitems", edgeitems, 0),
        ("linewidth", linewidth, 1),
    ):
        if value is not None:
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(
                    f"set_printoptions(): {name} must be an int, got {type(value).__name__}"
                )
            if value < lowest:
                raise ValueError(f"set_printoptions(): {name} must be >= {lowest}, got {value}")
            new[name] = value
    if threshold is not None:
        if not isinstance(threshold, (int, float)) or isinstance(threshold, bool):
            raise TypeError(
                "set_printoptions(): threshold must be an int or a float (math.inf never "
                f"summarises), got {type(threshold).__name__}"
            )
        if not threshold >= 0:
            raise ValueError(f"set_printoptions(): threshold must be >= 0, got {threshold}")
        new["threshold"] = threshold
    if sci_mode is not None and not isinstance(sci_mode, bool):
        raise TypeError(
            f"set_printoptions(): sci_mode must be True, False or None, got {sci_mode!r}"
        )
    new["sci_mode"] = sci_mode
    for name, value in new.items():
        setattr(_OPTS, name, value)


def get_printoptions() -> dict[str, Any]:
    """The current print options, as keyword arguments for :func:`set_printoptions`.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.get_printoptions()
    {'precision': 4, 'threshold': 1000, 'edgeitems': 3, 'linewidth': 80, 'sci_mode': None}
    >>> saved = tc.get_printoptions()
    >>> tc.set_printoptions(sci_mode=True)
    >>> tc.tensor([1.0, 2.5])
    tensor([1.0000e+00, 2.5000e+00])
    >>> tc.set_printoptions(**saved)
    >>> tc.tensor([1.0, 2.5])
    tensor([1.0000, 2.5000])
    """
    return {
        "precision": _OPTS.precision,
        "threshold": _OPTS.threshold,
        "edgeitems": _OPTS.edgeitems,
        "linewidth": _OPTS.linewidth,
        "sci_mode": _OPTS.sci_mode,
    }


class _Ellipsis:
    """Marks the elements a summary leaves out, in the nested lists of printed values."""

    __slots__ = ()


_SKIPPED = _Ellipsis()


class _Formatter:
    """Fixed-width text for the elements of one real tensor (PyTorch's rules).

    Floating values print as integers with a trailing ``.`` when all the finite non-zero ones
    are integral, in scientific notation when their magnitudes span more than 10**3 or leave
    [1e-4, 1e8] (or as ``sci_mode`` says), in fixed notation otherwise; every element is
    right-aligned to the widest finite non-zero one.
    """

    __slots__ = ("floating", "int_mode", "precision", "sci_mode", "width")

    def __init__(self, values: list[Any], floating: bool) -> None:
        self.floating = floating
        self.precision = p = _OPTS.precision
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(str(v)) for v in values), default=1)
            return
        finite = [v for v in values if v and math.isfinite(v)]
        if not finite:
            return
        self.int_mode = all(v.is_integer() for v in finite)
        if _OPTS.sci_mode is None:
            high = max(abs(v) for v in finite)
            low = min(abs(v) for v in finite)
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        else:
            self.sci_mode = _OPTS.sci_mode
        if self.sci_mode:
            self.width = max(len(f"{v:.{p}e}") for v in finite)
        elif self.int_mode:
            self.width = max(len(f"{v:.0f}.") for v in finite)
        else:
            self.width = max(len(f"{v:.{p}f}") for v in finite)

    def __call__(self, v: Any) -> str:
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = f"{v:.{self.precision}e}"
        elif self.int_mode:
            text = f"{v:.0f}." if math.isfinite(v) else f"{v:.0f}"
        else:
            text = f"{v:.{self.precision}f}"
        return text.rjust(self.width)


def _complex_formatter(values: list[complex]) -> tuple[Any, int]:
    real = _Formatter([v.real for v in values], True)
    imag = _Formatter([v.imag for v in values], True)

    def fmt(v: complex) -> str:
        im = (imag(v.imag) + "j").lstrip()
        return real(v.real) + (im if im[0] in "+-" else "+" + im)

    return fmt, real.width + 2 + imag.width + 1


def _to_list(x: Tensor) -> Any:
    if x._device.type != "cpu":
        x = x.cpu()
    return x.tolist()


def _edges(x: Tensor, first: int, edge: int) -> Any:
    """Nested lists of the elements of ``x`` that a summary prints, ``_SKIPPED`` between the
    two ends of each dim longer than ``2 * edge``; dims before ``first`` are already cut.

    Each long dim is cut into its two ends as views, so only the printed elements reach
    ``tolist`` (2**k calls for k long dims).
    """
    shape = x._shape
    for dim in range(first, len(shape)):
        if shape[dim] > 2 * edge:
            break
    else:
        return _to_list(x)
    lead = (slice(None),) * dim
    head = _edges(x[lead + (slice(None, edge),)], dim + 1, edge)
    tail = _edges(x[lead + (slice(shape[dim] - edge, None),)], dim + 1, edge)
    return _splice(head, tail, dim)


def _splice(head: list[Any], tail: list[Any], depth: int) -> list[Any]:
    if depth == 0:
        return [*head, _SKIPPED, *tail]
    return [_splice(h, t, depth - 1) for h, t in zip(head, tail, strict=True)]


def _leaves(data: Any, ndim: int) -> list[Any]:
    if ndim == 0:
        return [data]
    if ndim == 1:
        return [v for v in data if v is not _SKIPPED]
    return [v for row in data if row is not _SKIPPED for v in _leaves(row, ndim - 1)]


def _render(data: Any, ndim: int, indent: int, fmt: Any, element_width: int) -> str:
    if ndim == 0:
        return fmt(data)
    if ndim == 1:
        # The ellipsis of a row is padded like an element: "2,  ..., 1997".
        items = [" ..." if v is _SKIPPED else fmt(v) for v in data]
        per_line = max(1, (_OPTS.linewidth - indent) // element_width)
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [
        "..." if row is _SKIPPED else _render(row, ndim - 1, indent + 1, fmt, element_width)
        for row in data
    ]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _body(x: Tensor, indent: int) -> str:
    """The bracketed elements of a non-empty strided tensor."""
    ndim = len(x._shape)
    edge = _OPTS.edgeitems
    summarize = x.numel() > _OPTS.threshold
    if ndim and summarize and not edge:
        return "[...]"
    data = _edges(x, 0, edge) if ndim and summarize else _to_list(x)
    values = _leaves(data, ndim)
    if x._dtype.is_complex:
        fmt, width = _complex_formatter(values)
    else:
        fmt = _Formatter(values, x._dtype.is_floating_point)
        width = fmt.width + 2
    return _render(data, ndim, indent, fmt, width)


def _with_suffixes(text: str, suffixes: list[str], indent: int, force_newline: bool = False) -> str:
    # A suffix that would pass the line width goes on a line of its own. PyTorch counts the
    # last line two characters longer than it is; the same count gives the same text.
    # ``force_newline`` puts the first suffix on a line of its own whatever its length.
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or last + len(suffix) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
            force_newline = False
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def _format_parts(t: Tensor, parts: dict[str, Tensor]) -> str:
    """PyTorch's text for a tensor of a layout without strides: its parts (what the layout's
    serialisation codec takes it apart into, in that order: ``indices`` and ``values`` for
    sparse COO, ``crow_indices``, ``col_indices`` and ``values`` for CSR) as
    ``name=tensor(...)``, then its size, number of stored elements (where the layout has an
    ``_nnz`` kernel), dtype (when not a default one) and layout."""
    indent = len("tensor(")
    suffixes = []
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    suffixes.append(f"size={tuple(t._shape)}")
    with contextlib.suppress(AttributeError, NotImplementedError):
        suffixes.append(f"nnz={t._nnz()}")
    d, default = t._dtype, dt.get_default_dtype()
    default_complex = dt.complex128 if default is dt.float64 else dt.complex64
    if d not in (default, default_complex, dt.int64, dt.bool_):
        suffixes.append(f"dtype={d}")
    texts = []
    for name, part in parts.items():
        prefix = f"{name}=tensor("
        part = part.detach()
        if part.numel():
            body = _body(part, indent + len(prefix))
        else:
            body = f"[], size={tuple(part._shape)}"
        texts.append(prefix + body + ")")
    text = "tensor(" + (",\n" + " " * indent).join(texts)
    suffixes.append(f"layout={t._layout}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(t)}>")
    elif t._requires_grad and not (t._ag is not None and t._ag.fw_only):
        suffixes.append("requires_grad=True")
    _tangent(t, suffixes)
    # A sparse COO tensor's first suffix always starts a line (PyTorch's force_newline for
    # ``is_sparse``); a compressed layout's follow its values as the line width allows.
    return _with_suffixes(text, suffixes, indent, force_newline=t.is_sparse)


def format_tensor(t: Tensor) -> str:
    """PyTorch's text for a tensor, e.g. ``tensor([1., 2.], dtype=tensorcore.float64)``.

    Follows the options of :func:`set_printoptions`; converts only the printed elements.
    """
    if t._layout is not strided:
        codec = get_codec(t._layout.name)
        if codec is not None and _registry.interface(t._device).holds_data:
            return _format_parts(t, codec[0](t)[0])
        return (
            f"tensor(layout={t._layout}, size={list(t._shape)}, dtype={t._dtype}, "
            f"device='{t._device}')"
        )
    prefix = "tensor("
    suffixes = []
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    d = t._dtype
    default = dt.get_default_dtype()
    if not _registry.interface(t._device).holds_data:
        # PyTorch's text for a meta tensor: no elements to show, so its size and any
        # non-default dtype.
        suffixes.append(f"size={tuple(t._shape)}")
        if d is not default:
            suffixes.append(f"dtype={d}")
        body = "..."
    elif t.numel() == 0:
        if len(t._shape) != 1:
            suffixes.append(f"size={tuple(t._shape)}")
        # No element shows whether the dtype is integral: name every non-default one.
        if d is not default:
            suffixes.append(f"dtype={d}")
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(t._shape)}")
        default_complex = dt.complex128 if default is dt.float64 else dt.complex64
        if d not in (default, default_complex, dt.int64, dt.bool_):
            suffixes.append(f"dtype={d}")
        body = _body(t.detach(), len(prefix))
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(t)}>")
    elif t._requires_grad and not (t._ag is not None and t._ag.fw_only):
        suffixes.append("requires_grad=True")
    _tangent(t, suffixes)
    return _with_suffixes(prefix + body, suffixes, len(prefix))


def _grad_fn_name(t: Tensor) -> str:
    """The name of ``t.grad_fn`` (read through the property: a view's may be regenerated),
    or PyTorch's ``Invalid`` where reading it raises (an output of ``unbind`` whose base was
    modified in place)."""
    try:
        return t.grad_fn.name()
    except RuntimeError:
        return "Invalid"


def _tangent(t: Tensor, suffixes: list[str]) -> None:
    """A dual tensor's tangent, as PyTorch prints it: last, ``tangent=`` and its repr (its
    number for a 0-d tensor)."""
    ag = t._ag
    tan = ag.fw_grad if ag is not None else None
    if tan is not None:
        suffixes.append(f"tangent={tan.item() if not tan._shape else repr(tan)}")
