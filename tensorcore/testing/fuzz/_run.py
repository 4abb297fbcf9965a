"""Running one fuzz case and judging what it did: the checks of the package docstring."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import tensorcore as tc
import tensorcore.backend as backend
from tensorcore.ops._validate import tagged

#: The exception types a bad argument may raise (``OSError`` for a file that cannot be read
#: or written, as Python's own ``open`` raises).
STANDARD = (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError, OSError)

# Text that only the array libraries underneath write.
_LEAK_TEXT = re.compile(
    r"ufunc|dtype\('|casting rule|<class 'numpy|numpy\.|scipy\.|cupy\.|ml_dtypes|"
    r"\bnp\.(?!ndarray)|array\(|did not contain a loop"
)
_LEAK_MODULES = ("numpy", "scipy", "cupy", "ml_dtypes")
_INDEXING = re.compile(r"\bind(?:ex|ices|exing|exed)\b", re.IGNORECASE)


@dataclass
class Case:
    """One call: ``fn(*args, **kwargs)``, whose errors must name ``name``."""

    target: str
    name: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    mutation: str
    must_raise: bool

    def __repr__(self) -> str:
        return f"{self.target} with {self.mutation}"


@dataclass
class Result:
    """What one :class:`Case` did."""

    case: Case
    exc: BaseException | None
    warned: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def raised(self) -> bool:
        return self.exc is not None

    @property
    def odd(self) -> bool:
        """Raised something other than a standard exception."""
        return self.exc is not None and not isinstance(self.exc, STANDARD)

    @property
    def leaked(self) -> bool:
        """An error or warning of the array library underneath reached the caller."""
        if self.warned:
            return True
        e = self.exc
        if e is None:
            return False
        return type(e).__module__.split(".")[0] in _LEAK_MODULES or bool(_LEAK_TEXT.search(str(e)))

    @property
    def named(self) -> bool:
        """The error message names the function that was called (indexing errors speak of
        indices, or name the operator the indexing ran)."""
        if self.exc is None:
            return True
        msg = str(self.exc)
        if self.case.name in ("__getitem__", "__setitem__"):
            return bool(_INDEXING.search(msg)) or any(
                names_callee(msg, n) for n in (self.case.name, "index_put", "copy_", "fill_")
            )
        # (or PyTorch's tag of the operator the called one is built on: inverse's errors
        # are linalg.inv's, "linalg.inv: ...")
        return names_callee(msg, self.case.name) or tagged(msg)

    @property
    def silent(self) -> bool:
        """Returned although the argument is certainly invalid."""
        return self.exc is None and self.case.must_raise

    @property
    def ok(self) -> bool:
        return not (self.odd or self.leaked or not self.named or self.changed or self.silent)

    def describe(self) -> str:
        what = "returned" if self.exc is None else f"{type(self.exc).__name__}: {self.exc}"
        problems = [
            p
            for p, bad in (
                ("odd exception", self.odd),
                ("leaked", self.leaked),
                ("operator not named", not self.named),
                (f"changed {self.changed}", bool(self.changed)),
                ("returned silently", self.silent),
            )
            if bad
        ]
        warned = f" warnings={self.warned}" if self.warned else ""
        return f"{self.case!r}: {', '.join(problems)} -- {what[:300]}{warned}"


def names_callee(message: str, name: str) -> bool:
    """Whether ``message`` names ``name`` as a callee: ``name(``, ``'name'``, ``"name"``,
    ``(in name)``, ``name[`` or ``name `` opening the message as its subject (``where expected
    ...``); its in-place form ``name_`` counts for ``name`` and back.

    Examples
    --------
    >>> from tensorcore.testing.fuzz import names_callee
    >>> names_callee("t(): expects a 2-D tensor", "t"), names_callee("can't do it", "t")
    (True, False)
    >>> names_callee("output shape mismatch (in add_)", "add")
    True
    """
    base = re.escape(name if name.endswith("__") else name.rstrip("_"))
    pattern = (
        rf"(?<!\w){base}_?(?:\(|'|\"|\)|\[|:)|'{base}_?'|(?<!\w){base}\.__(?:init|new)__\("
        rf"|^{base}_? (?=[a-z])"
    )
    return re.search(pattern, message) is not None


# ------------------------------------------------------------------ snapshots
def _tensors(obj: Any, path: str) -> Iterator[tuple[str, tc.Tensor]]:
    if isinstance(obj, tc.Tensor):
        yield path, obj
    elif isinstance(obj, (list, tuple)):
        for i, x in enumerate(obj):
            yield from _tensors(x, f"{path}[{i}]")


def _values(t: tc.Tensor) -> Any:
    if t.layout is not tc.strided or not backend.interface(t.device).holds_data:
        return None  # (a device without data: its metadata and version are what can change)
    flat = t.detach().reshape(-1).tolist()
    return tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in flat)


def _snapshot(case: Case) -> dict[str, Any]:
    found = list(_tensors(list(case.args), "args"))
    found += [(f"{k}=", t) for k, v in case.kwargs.items() for _, t in _tensors(v, k)]
    return {
        path: (t.shape, t.stride() if t.layout is tc.strided else None, t.dtype, t._version)
        + (_values(t),)
        for path, t in found
    }


# ------------------------------------------------------------------ running
def run(case: Case) -> Result:
    """Call ``case`` once and record what happened."""
    before = _snapshot(case)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            case.fn(*case.args, **case.kwargs)
            exc: BaseException | None = None
        except (Exception, MemoryError) as e:  # noqa: BLE001 - classifying is the point
            exc = e
    # The array library warns with RuntimeWarning (overflow, invalid value) or ComplexWarning;
    # tensorcore's own warnings (PyTorch's: ``cross`` without ``dim``, ``meshgrid`` without
    # ``indexing``) are UserWarnings and no leak.
    leaks = [w for w in caught if w.category is not UserWarning]
    res = Result(case, exc, [f"{w.category.__name__}: {w.message}" for w in leaks])
    if exc is not None:
        after = _snapshot(case)
        res.changed = [p for p, v in before.items() if after.get(p) != v]
    return res


def summarize(results: list[Result]) -> dict[str, int]:
    """Counts over ``results``: calls, raised, standard, named, odd, leaked, changed, silent."""
    raised = [r for r in results if r.raised]
    return {
        "calls": len(results),
        "raised": len(raised),
        "standard": sum(not r.odd for r in raised),
        "named": sum(r.named for r in raised),
        "odd": sum(r.odd for r in results),
        "leaked": sum(r.leaked for r in results),
        "changed": sum(bool(r.changed) for r in results),
        "silent": sum(r.silent for r in results),
        "returned": sum(not r.raised for r in results),
    }
