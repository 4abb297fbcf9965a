"""What a derivative rule reads from its context, checked against what it saves.

A rule reads saved values as attributes of its context (``c.self``, ``c.dim``, ``c.result1``).
One that reads a value it does not save would fail only when that path of the rule first ran;
one that saves a value it never reads keeps memory alive for nothing. :func:`check_rule` finds
the reads in the rule's bytecode -- in the rule itself, in the functions and lambdas defined
inside it, and in the module-level helpers it hands the context to (a function whose first
parameter is also called ``c``) -- and raises ``ValueError`` on either mismatch. It runs when a
rule is first used and when a plugin registers one; ``tests/test_autograd_semantics.py`` runs
it over the whole derivative table, so a wrong core rule fails CI.
"""

from __future__ import annotations

import contextlib
import dis
import itertools
import types
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["check_rule", "context_reads"]

# What a context offers besides the saved values (``autograd.step.Ctx``).
_CTX_API = frozenset({"needs", "_node"})
_LOADS = frozenset({"LOAD_FAST", "LOAD_DEREF", "LOAD_CLOSURE"})


class _Reads:
    """The names read from the context, and whether the context was also handed to code the
    scan cannot follow (``getattr(c, name)``, a rule stored in a variable): then a saved
    value may be read where the scan does not see it."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.complete = True
        self.seen: set[Any] = set()


def _scan(code: types.CodeType, ctx: str, globs: dict[str, Any], out: _Reads) -> None:
    if code in out.seen:
        return
    out.seen.add(code)
    instructions = list(dis.get_instructions(code))
    followed = False  # a module-level helper taking the context was scanned
    escapes = False  # the context went somewhere other than an attribute read
    for prev, ins in itertools.pairwise(instructions):
        if prev.opname in _LOADS and prev.argval == ctx:
            if ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                out.names.add(ins.argval)
            else:
                escapes = True
    for ins in instructions:
        if ins.opname in ("LOAD_GLOBAL", "LOAD_DEREF"):
            helper = globs.get(ins.argval)
            if isinstance(helper, types.FunctionType) and helper.__code__.co_varnames[:1] == (ctx,):
                followed = True
                _scan(helper.__code__, ctx, helper.__globals__, out)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            # A nested function or lambda: it sees ``c`` as a free variable (or, a helper
            # defined inside the rule, as its own first parameter).
            _scan(const, ctx, globs, out)
    if escapes and not followed and ctx not in code.co_cellvars:
        out.complete = False


def context_reads(fn: Callable[..., Any]) -> tuple[set[str], bool] | None:
    """The attribute names ``fn`` reads from its first parameter (its context), and whether
    that list is complete; None when it cannot be told (not a Python function)."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType) or not code.co_varnames:
        return None
    out = _Reads()
    # Helpers are looked up among the module's globals and the rule's closure (a rule made
    # by a factory function refers to its helpers as free variables).
    env = dict(getattr(fn, "__globals__", {}))
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=True):
        with contextlib.suppress(ValueError):  # (an empty cell)
            env[name] = cell.cell_contents
    _scan(code, code.co_varnames[0], env, out)
    return out.names - _CTX_API, out.complete


def check_rule(
    op: str, params: Iterable[str], saves: Iterable[str], fn: Callable[..., Any]
) -> None:
    """Raise ``ValueError`` when the rule ``fn`` of operator ``op`` reads a value it does not
    save, saves a name that is neither a parameter of ``op`` nor ``result<N>``, or saves one
    it never reads."""
    saved = {spec.partition(":")[0] for spec in saves}
    names = set(params)
    bad = sorted(s for s in saved if s not in names and not _is_result(s))
    if bad:
        raise ValueError(f"derivative of {op} saves {bad}, which {op}'s signature does not have")
    found = context_reads(fn)
    if found is None:
        return
    reads, complete = found
    unsaved = sorted(r for r in reads if r not in saved and (r in names or _is_result(r)))
    if unsaved:
        raise ValueError(
            f"derivative of {op} reads {unsaved} without saving it: add it to the rule's saves"
        )
    unknown = sorted(r for r in reads if r not in saved and r not in names and not _is_result(r))
    if unknown:
        raise ValueError(f"derivative of {op} reads {unknown}, which is not a saved value")
    unread = sorted(saved - reads)
    if unread and complete:
        raise ValueError(f"derivative of {op} saves {unread} but never reads it")


def _is_result(name: str) -> bool:
    return name == "result" or (name.startswith("result") and name[6:].isdigit())
