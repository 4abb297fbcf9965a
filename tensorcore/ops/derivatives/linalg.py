"""The products' rules (``matmul``, ``addmm``, ``dot``, ``einsum``...); this module also
enters those of ``tensorcore.linalg``'s decompositions and solvers (``decompositions.py``).
"""

from __future__ import annotations

import string
from typing import Any

from ..._tensor import Tensor
from .. import functions as ops
from ._table import _conj, _d, sum_to
from .decompositions import LINALG_RULES


# ------------------------------------------------------------------ linear algebra
def _matmul(c: Any, g: Tensor) -> tuple[Any, ...]:
    a, b = c.self, c.other
    a2 = a.unsqueeze(0) if a.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.ndim == 1 else b
    g2 = g
    # Unsqueeze the vector dims in this order so that vector @ vector (a 0-dim g) works too.
    if b.ndim == 1:
        g2 = g2.unsqueeze(-1)
    if a.ndim == 1:
        g2 = g2.unsqueeze(-2)
    ga = gb = None
    # Matrix products are the expensive part of a backward pass: skip unneeded ones.
    if c.needs(0):
        ga = sum_to(g2.matmul(_conj(b2).mT), a2._shape).reshape(a._shape)
    if c.needs(1):
        if b2.ndim == 2 and a2.ndim == 2 and not b2.is_contiguous() and b2.mT.is_contiguous():
            # b is a transposed matrix (``x @ w.t()``): compute the gradient in w's own memory
            # order, so it reaches w contiguous instead of needing a transposing copy.
            gb = g2.mT.matmul(_conj(a2)).mT.reshape(b._shape)
        else:
            gb = sum_to(_conj(a2).mT.matmul(g2), b2._shape).reshape(b._shape)
    return ga, gb


_d("matmul", "self other", _matmul)


def _addmm(c: Any, g: Tensor) -> tuple[Any, ...]:
    beta, alpha = c.beta, c.alpha
    gs = gm1 = gm2 = None
    if c.needs(0):
        gs = g if beta == 1 else g * _conj(beta)
    if c.needs(1) or c.needs(2):
        ga = g if alpha == 1 else g * _conj(alpha)
        if c.needs(1):
            gm1 = ga.mm(_conj(c.mat2).t())
        if c.needs(2):
            m2 = c.mat2
            if not m2.is_contiguous() and m2.t().is_contiguous():
                # mat2 is a transposed matrix (``linear``'s weight.t()): its gradient in the
                # weight's own memory order, so it reaches the weight contiguous.
                gm2 = ga.t().mm(_conj(c.mat1)).t()
            else:
                gm2 = _conj(c.mat1).t().mm(ga)
    return gs, gm1, gm2


_d("addmm", "mat1 mat2 beta alpha", _addmm)


def _addmv(c: Any, g: Tensor) -> tuple[Any, ...]:
    gs = gm = gv = None
    if c.needs(0):
        gs = g if c.beta == 1 else g * _conj(c.beta)
    if c.needs(1) or c.needs(2):
        ga = g if c.alpha == 1 else g * _conj(c.alpha)
        if c.needs(1):
            gm = ops.outer(ga, _conj(c.vec))
        if c.needs(2):
            gv = _conj(c.mat).t().mv(ga)
    return gs, gm, gv


_d("addmv", "mat vec beta alpha", _addmv)


def _addr(c: Any, g: Tensor) -> tuple[Any, ...]:
    gs = g1 = g2 = None
    if c.needs(0):
        gs = g if c.beta == 1 else g * _conj(c.beta)
    if c.needs(1) or c.needs(2):
        ga = g if c.alpha == 1 else g * _conj(c.alpha)
        # (the vectors may be of a lower dtype than the result: the products run in g's)
        if c.needs(1):
            g1 = ga.mv(_conj(c.vec2).to(ga.dtype))
        if c.needs(2):
            g2 = ga.t().mv(_conj(c.vec1).to(ga.dtype))
    return gs, g1, g2


_d("addr", "vec1 vec2 beta alpha", _addr)
_d(
    "mm",
    "self:if=mat2 mat2:if=self",
    lambda c, g: (
        g.mm(_conj(c.mat2).t()) if c.needs(0) else None,
        _conj(c.self).t().mm(g) if c.needs(1) else None,
    ),
)
_d(
    "bmm",
    "self mat2",
    lambda c, g: (
        g.bmm(_conj(c.mat2).mT) if c.needs(0) else None,
        _conj(c.self).mT.bmm(g) if c.needs(1) else None,
    ),
)
_d(
    "mv",
    "self vec",
    lambda c, g: (
        ops.outer(g, _conj(c.vec)) if c.needs(0) else None,
        _conj(c.self).t().mv(g) if c.needs(1) else None,
    ),
)
_d("dot", "self tensor", lambda c, g: (g * _conj(c.tensor), g * _conj(c.self)))
_d(
    "outer",
    "self vec2",
    lambda c, g: (g.mv(_conj(c.vec2)), _conj(c.self).unsqueeze(0).mm(g).squeeze(0)),
)


def _einsum(c: Any, g: Tensor) -> tuple[Any, ...]:
    operands = c.operands
    terms, rhs, free = _einsum_explicit(c.equation, operands)
    grads = []
    for i, term in enumerate(terms):
        others = [t for j, t in enumerate(terms) if j != i]
        # This term's letters, each once, less those summed in this operand alone: the
        # letters the other factors and the output give back.
        kept = "".join(
            ch for ch in dict.fromkeys(term) if ch in rhs or any(ch in o for o in others)
        )
        sub = ",".join([rhs, *others]) + "->" + kept
        gi = ops.einsum(sub, [g] + [_conj(o) for j, o in enumerate(operands) if j != i])
        grads.append(_einsum_expand(gi, kept, term, operands[i], free))
    return tuple(grads)


def _einsum_explicit(equation: str, operands: list[Tensor]) -> tuple[list[str], str, str]:
    """The equation's terms and output with ``...`` spelt out in letters of its own (aligned
    to the right, as broadcasting is) and the implicit output made explicit, and the letters
    left unused."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    free = "".join(ch for ch in string.ascii_letters if ch not in eq)
    widths = [
        o.ndim - len(t.replace("...", "")) if "..." in t else 0
        for t, o in zip(terms, operands, strict=True)
    ]
    ell, free = free[: max(widths, default=0)], free[max(widths, default=0) :]
    if not arrow:
        once = lhs.replace("...", "").replace(",", "")
        rhs = "..." + "".join(sorted(ch for ch in set(once) if once.count(ch) == 1))
    terms = [t.replace("...", ell[len(ell) - w :]) for t, w in zip(terms, widths, strict=True)]
    return terms, rhs.replace("...", ell), free


def _einsum_expand(gi: Tensor, kept: str, term: str, like: Tensor, free: str) -> Tensor:
    """The gradient of an operand written ``term`` from ``gi`` over the letters ``kept``:
    letters summed in the operand alone broadcast back, a repeated letter (a diagonal) put
    back with identity matrices, broadcast dims summed."""
    letters = "".join(dict.fromkeys(term))
    for k, ch in enumerate(letters):
        if ch not in kept:
            gi = gi.unsqueeze(k)
    gi = gi.expand(tuple(-1 if ch in kept else like._shape[term.index(ch)] for ch in letters))
    if len(letters) != len(term):
        spelt, eyes = "", []
        for k, ch in enumerate(term):
            if ch in term[:k]:  # a repeat: a letter of its own, tied to the first by an eye
                spelt, free = spelt + free[0], free[1:]
                eyes.append((ch + spelt[-1], like._shape[k]))
            else:
                spelt += ch
        gi = ops.einsum(
            ",".join([letters, *(e for e, _ in eyes)]) + "->" + spelt,
            [gi, *(ops.eye(n, dtype=gi.dtype, device=gi.device) for _, n in eyes)],
        )
    return sum_to(gi, like._shape)


_d("einsum", "equation operands", _einsum)
# The decompositions and solvers of ``tensorcore.linalg`` (``decompositions.py``).
for _name, _saves, _fn in LINALG_RULES:
    _d(_name, _saves, _fn)
