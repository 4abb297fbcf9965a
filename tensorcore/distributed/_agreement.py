"""The agreement check: before each collective the ranks compare what they are about to run.

Each rank describes its call (collective, shape, dtype, and the op or root: ``all_reduce:
(3,) float32 SUM``); the process group compares the descriptions (:meth:`ProcessGroup.agree`,
for MPI one small all-reduce of a fingerprint) and, when they differ, gathers them, and every
rank raises a ``RuntimeError`` naming each rank's call. ``TENSORCORE_DISTRIBUTED_CHECK=0`` at
``init_process_group`` turns the check off (``_World.check``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._group import _World

if TYPE_CHECKING:
    from .._tensor import Tensor
    from ._backend import ProcessGroup

__all__ = ["agree", "describe", "disagreement"]


def shape_dtype(t: Tensor) -> str:
    """``(2, 3) float32``: how error messages and descriptions show a tensor."""
    return f"{tuple(t.shape)} {str(t.dtype).replace('tensorcore.', '')}"


#: (collective, shape, dtype, extra) -> the description the ranks compare: built once, so a
#: repeated collective costs a dict lookup here.
_DESCRIPTIONS: dict[tuple[Any, ...], str] = {}


def describe(what: str, t: Tensor, extra: Any = "") -> str:
    """The description of the call ``what`` on ``t`` (plus ``extra``: the op, the root)."""
    key = (what, t._shape, t._dtype, extra)
    text = _DESCRIPTIONS.get(key)
    if text is None:
        text = f"{what}: {shape_dtype(t)}" + (f" {extra}" if extra != "" else "")
        if len(_DESCRIPTIONS) < 4096:
            _DESCRIPTIONS[key] = text
    return text


def disagreement(pg: ProcessGroup, what: str, found: list[str]) -> RuntimeError:
    """The error every rank raises when the ranks' descriptions (``found``, in group-rank
    order) differ: it names each rank's call by its global rank."""
    ranks = _World.ranks.get(pg, list(range(pg.size())))
    listing = "; ".join(f"rank {r}: {d}" for r, d in zip(ranks, found, strict=True))
    return RuntimeError(
        f"{what}(): the ranks disagree on the collective or its tensors' shapes and dtypes "
        f"({listing}); every rank must call the same collective with tensors of the same "
        "shape and dtype"
    )


def agree(pg: ProcessGroup, what: str, t: Tensor, extra: Any = "") -> None:
    """Check that every rank runs ``what`` on a tensor of ``t``'s shape and dtype (and the
    same ``extra``); skipped when ``TENSORCORE_DISTRIBUTED_CHECK=0``."""
    if not _World.check:
        return
    found = pg.agree(describe(what, t, extra), what)
    if found is not None:
        raise disagreement(pg, what, found)
