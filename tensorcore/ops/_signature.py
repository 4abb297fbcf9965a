"""Parsing of PyTorch-style operator signatures, e.g.
``"add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"``."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["MISSING", "Param", "Signature", "camel", "parse_signature"]


def camel(name: str) -> str:
    """``log_softmax`` -> ``LogSoftmax``: how PyTorch names an operator's autograd node
    (``LogSoftmaxBackward0``); a letter after a digit is capitalised too, as PyTorch's code
    generator does (``log1p`` -> ``Log1P``, ``_fft_r2c`` -> ``FftR2C``)."""
    return "".join(p.title() for p in name.strip("_").split("_"))


class _Missing:
    def __repr__(self) -> str:
        return "<required>"


MISSING: Any = _Missing()

_ONE_TENSOR = re.compile(r"Tensor(\(\w+!?\))?")
_SIG_RE = re.compile(r"(?P<name>[\w.]+)\((?P<params>.*)\)\s*->\s*(?P<returns>.+)")


@dataclass(frozen=True)
class Param:
    """One parameter: ``type`` is PyTorch's spelling (``Tensor``, ``int[]?``, ``Scalar``...)."""

    name: str
    type: str
    default: Any
    kw_only: bool
    vararg: bool  # "int... size": accepts f(2, 3) and f((2, 3))

    @property
    def is_tensor(self) -> bool:
        return self.type in ("Tensor", "Tensor?", "Tensor(a)", "Tensor(a!)")

    @property
    def is_tensor_list(self) -> bool:
        return self.type.startswith("Tensor") and self.type.endswith("[]")


@dataclass(frozen=True)
class Signature:
    name: str
    params: tuple[Param, ...]
    returns: str

    @property
    def tensor_positions(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.params) if p.is_tensor)

    @property
    def tensor_list_positions(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.params) if p.is_tensor_list)

    @property
    def one_tensor(self) -> bool:
        """Whether the operator returns one tensor: ``-> Tensor``, or a view's
        ``-> Tensor(a)`` (the alias annotation says what it shares, not how many)."""
        return _ONE_TENSOR.fullmatch(self.returns) is not None

    @property
    def result_names(self) -> tuple[str, ...]:
        """The names of several results, ``("values", "indices")`` for
        ``-> (Tensor values, Tensor indices)``; ``()`` for one result or unnamed ones."""
        r = self.returns
        if not (r.startswith("(") and r.endswith(")")):
            return ()
        names = tuple(part.split()[-1] for part in _split_top(r[1:-1]))
        return names if all(len(part.split()) == 2 for part in _split_top(r[1:-1])) else ()


def _split_top(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


_LITERALS: dict[str, Any] = {"None": None, "True": True, "False": False, "[]": ()}


def _default(text: str) -> Any:
    if text in _LITERALS:
        return _LITERALS[text]
    try:
        return int(text)
    except ValueError:
        pass
    value = ast.literal_eval(text)
    return tuple(value) if isinstance(value, list) else value


def parse_signature(sig: str) -> Signature:
    """Parse a signature string; raises ``ValueError`` naming the bad part."""
    m = _SIG_RE.fullmatch(sig.strip())
    if m is None:
        raise ValueError(f"malformed operator signature: {sig!r}")
    params: list[Param] = []
    kw_only = False
    for part in _split_top(m.group("params")):
        if part == "*":
            kw_only = True
            continue
        decl, _, default = part.partition("=")
        try:
            typ, name = decl.rsplit(None, 1)
        except ValueError:
            raise ValueError(f"malformed parameter {part!r} in signature {sig!r}") from None
        vararg = typ.endswith("...")
        if vararg:
            typ = typ[:-3] + "[]"
        params.append(
            Param(name, typ, _default(default.strip()) if default else MISSING, kw_only, vararg)
        )
    return Signature(m.group("name"), tuple(params), m.group("returns").strip())
