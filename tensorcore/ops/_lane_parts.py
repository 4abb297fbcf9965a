"""Fragments of lane source shared by every kind of lane (``ops/_lanes.py``): the test that
a tensor requires grad, what refuses a call, the error naming around a kernel call, and the
kernel's run that records the call where an input requires grad."""

from __future__ import annotations


def _rg(t: str) -> str:
    """The lane's test that tensor ``t`` requires grad: its flag, or, for a view, its base's
    (a view made before its base joined the graph takes the flag on here,
    ``_tensor.adopt_base_grad``, as ``call`` does)."""
    return (
        f"({t}._requires_grad or "
        f"((b_ := {t}._base) is not None and b_._requires_grad and _adopt({t})))"
    )


# What refuses a call: out of place, an autocast region (it may cast the arguments); in place,
# a tensor that requires grad or has history or a mutation check on (the autograd step and
# the debug check see it), a result dtype other than self's (bool comparisons in place
# convert), a self whose elements overlap (``call_inplace`` refuses it).
_REFUSE = "_call._autocast is not None"
_REFUSE_INPLACE = (
    "_call._autocast is not None or "  # (a TorchFunctionMode entered: ``_call.set_intercepted``)
    + _rg("t")
    + " or t._grad_fn is not None or {res}"
    "((mc := _call._mutation_check) is not None and mc.on) or 0 in t._stride"
)


def _guarded(body: str, indent: int, cleanup: str = "") -> str:
    """Lane source: ``body`` in a ``try`` whose except clauses name an error raised inside the
    operator as ``call`` names it (and a ``finally`` running ``cleanup``), ``indent`` deep."""
    pad = " " * indent
    lines = [f"{pad}try:", *(f"{pad}    {line}" for line in body.split("\n"))]
    lines += [
        f"{pad}except _STANDARD as exc:",
        f"{pad}    _name_error(exc, name)",
        f"{pad}    raise",
        f"{pad}except _TRANSLATED as exc:",
        f"{pad}    raise _translate_error(exc, name) from exc",
    ]
    if cleanup:
        lines += [f"{pad}finally:", *(f"{pad}    {line}" for line in cleanup.split("\n"))]
    return "\n" + "\n".join(lines)


# The kernel's run out of place, recording the call where an input requires grad and grad
# mode is on, as the autograd step does: the kernel with recording off, then the node (from
# the entry the step made at the operator's first recorded call on this key; none yet, or an
# operator the step does not record, such as a composite, leaves the call to the call path).
def _run(body: str) -> str:
    """The source above around the kernel call ``body``."""
    return (
        """
        rec = None
        if ({rg}) and (_gm.enabled or _dual.on):
            if _dual.on:
                return None  # (a dual level is open: the step computes tangents)
            ent = autograd.get((dev.type, t._layout.name))
            if ent is None:
                return None
            rec = ent.record
            if rec is None:{composite}
                return None{single}
            _gm.enabled = False"""
        + _guarded(body, 8, cleanup="if rec is not None:\n    _gm.enabled = True")
        + """
        if rec is not None:
            a = (x{args},)
            node = rec(a, (o,), a)
            if o._dtype._category >= _FLOATING:
                o._requires_grad = True
                o._grad_fn = node
        return o"""
    )


_CHECKED = "if check is not None:\n    check(x{args})\n"
