"""``tensorcore.autograd.profiler``: PyTorch's older profiler API (``torch.autograd.profiler``),
on top of :mod:`tensorcore.profiler`: :class:`profile` records from entry to exit (no
schedule), and :class:`record_function` labels a block, as in ``torch.profiler``.

Examples
--------
>>> import tensorcore as tc
>>> with tc.autograd.profiler.profile(record_shapes=True) as prof:
...     with tc.autograd.profiler.record_function("loss"):
...         _ = (tc.ones(3) * 2).sum()
>>> sorted(e.key for e in prof.key_averages())
['loss', 'tensorcore::full', 'tensorcore::mul', 'tensorcore::ones', 'tensorcore::sum']
"""

from __future__ import annotations

import os
from typing import Any

from .. import profiler as _profiler
from ..profiler import EventList, FunctionEvent, FunctionEventAvg, record_function

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]


class profile:
    """PyTorch's ``torch.autograd.profiler.profile``: profiles the block it wraps (when
    ``enabled``); after it, :attr:`function_events`, :meth:`key_averages`, :meth:`table`,
    :meth:`export_chrome_trace` and :attr:`self_cpu_time_total` give the results. The
    device options (``use_cuda``, ``use_device``, ``use_kineto``...) are accepted; tensorcore
    records CPU time only."""

    def __init__(
        self,
        enabled: bool = True,
        *,
        use_cuda: bool = False,
        use_device: str | None = None,
        record_shapes: bool = False,
        with_flops: bool = False,
        profile_memory: bool = False,
        with_stack: bool = False,
        with_modules: bool = False,
        use_kineto: bool = False,
        use_cpu: bool = True,
        experimental_config: Any = None,
        acc_events: bool = False,
        custom_trace_id_callback: Any = None,
    ) -> None:
        self.enabled = enabled
        self._prof = _profiler.profile(
            record_shapes=record_shapes, profile_memory=profile_memory, with_stack=with_stack
        )
        self.function_events: EventList | None = None

    def __enter__(self) -> profile:
        if self.enabled:
            self._prof.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.enabled:
            self._prof.stop()
            self.function_events = self._prof.events()

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """The events grouped by name (and input shapes), as in PyTorch."""
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        """The events' table (not grouped), as in PyTorch."""
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace."""
        self._events().export_chrome_trace(path)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The CPU time of every event, each counted once, in microseconds."""
        return self._events().self_cpu_time_total

    def __str__(self) -> str:
        return self.table()
