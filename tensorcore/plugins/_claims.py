"""Who provides a name that several plugins claim: an entry-point name, a device type or a
layout.

Plugins load in the order of their entry-point names, so "the first one wins" would let any
distribution take ``cpu`` by naming its entry point ``aaa``. Instead the rightful provider is
decided from what the plugins are, whatever their order:

1. a name that one of tensorcore's own distributions provides (``cpu`` by ``tensorcore-cpu``,
   ``sparse_coo`` by ``tensorcore-sparse``, ...) belongs to that distribution;
2. otherwise a device type or layout belongs to the plugin whose entry point has its name
   (the ``toy`` plugin provides the ``toy`` device);
3. otherwise no claimant is more rightful than another, and every claimant is refused: the
   user uninstalls one, or picks one with ``TENSORCORE_BACKENDS``.

Only the claimants that load decide: with ``tensorcore-cpu`` blocked or not installed, another
backend may provide ``cpu``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .manager import PluginInfo

__all__ = ["describe", "losers", "origin", "rightful"]


def origin(p: PluginInfo) -> str:
    """Where a plugin comes from: ``tensorcore-cpu 0.1.0``, or ``registered at runtime``."""
    if p.distribution is None:
        return "registered at runtime"
    return f"{p.distribution} {p.version}" if p.version else p.distribution


def describe(p: PluginInfo) -> str:
    """``plugin 'cpu' (tensorcore-cpu 0.1.0)``: a plugin and where it comes from."""
    return f"plugin '{p.name}' ({origin(p)})"


def rightful(
    name: str, claimants: Sequence[PluginInfo], providers: Mapping[str, str], by_name: bool
) -> PluginInfo | None:
    """The claimant that ``name`` belongs to, or None when none is more rightful than the
    others. ``providers`` maps names to the tensorcore distribution that provides them;
    ``by_name`` applies rule 2 (device types and layouts, not entry-point names)."""
    official = providers.get(name)
    hits = [p for p in claimants if official is not None and p.distribution == official]
    if len(hits) != 1 and by_name:
        hits = [p for p in claimants if p.name == name]
    return hits[0] if len(hits) == 1 else None


def losers(
    what: str, claims: Mapping[str, Sequence[PluginInfo]], providers: Mapping[str, str]
) -> dict[str, str]:
    """The plugins that lose a claim, each with the error that names the other claimants.

    ``what`` is ``"device type"`` or ``"layout"``; ``claims`` maps each name to the plugins
    registering it, in load order.
    """
    lost: dict[str, str] = {}
    for name, claimants in claims.items():
        if len(claimants) < 2:
            continue
        owner = rightful(name, claimants, providers, by_name=True)
        for p in claimants:
            if p is owner or p.name in lost:
                continue
            if owner is not None:
                lost[p.name] = (
                    f"{what} '{name}' belongs to {describe(owner)}; {describe(p)} cannot "
                    "register it too"
                )
            else:
                others = " and ".join(describe(q) for q in claimants if q is not p)
                lost[p.name] = (
                    f"{what} '{name}' is registered by both {describe(p)} and {others}, and "
                    "none of them is its known provider: uninstall all but one, or choose one "
                    "with TENSORCORE_BACKENDS"
                )
    return lost
