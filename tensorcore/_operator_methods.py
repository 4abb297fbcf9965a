"""``OperatorMethods``: the base class of ``Tensor`` that carries the types of the methods the
operator table derives.

At run time it is empty: ``ops/_api.py`` sets the methods (``Tensor.add``, ``Tensor.add_``...)
on ``Tensor`` itself, compiled from the declarations. For the type checker,
``_operator_methods.pyi`` -- generated from the same declarations by ``tools/gen_stubs.py`` --
declares each of them with its typed signature, so ``t.sum(0)`` type-checks as a ``Tensor``.
"""

from __future__ import annotations

__all__ = ["OperatorMethods"]


class OperatorMethods:
    """Empty at run time (no slots, so ``Tensor`` keeps its own ``__slots__``)."""

    __slots__ = ()
