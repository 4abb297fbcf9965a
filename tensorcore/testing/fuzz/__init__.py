"""Bad-input fuzzing driven by the operator table: every operator's function, method, in-place
and ``out=`` variants, and the hand-written public functions, called with one argument
replaced by a bad value of the kinds users meet (wrong types, ``None``, wrong dtypes,
mismatched shapes, out-of-range dims, empty and 0-d tensors, non-contiguous views, NaN/inf,
huge sizes).

Each call is checked for what a user must be able to rely on:

- it raises a standard exception (``TypeError``, ``ValueError``, ``RuntimeError``,
  ``IndexError``, ``NotImplementedError``) -- never ``AttributeError``, ``KeyError``,
  ``StopIteration``, ``OverflowError`` or a ``MemoryError``;
- the message names the function or operator that was called;
- no error or warning of the array library underneath (NumPy, SciPy, CuPy) leaks through;
- a failed call changes none of its inputs (values, shape, strides, version counter);
- a call whose argument is certainly invalid (a string where a dim goes, ``None`` for a
  required tensor, a negative size...) raises instead of returning.

A bad value is either *certainly invalid* for its parameter (the call must raise) or an
*edge* value that may be valid (an empty tensor, a complex tensor, NaN): then the call may
return, but if it raises, the error must pass the checks above.

The harness needs only the public API and :mod:`tensorcore.testing.samples`, so a
third-party backend can run it on its own device (``cases(device)``).

Examples
--------
>>> from tensorcore.testing.fuzz import cases, run, summarize
>>> results = [run(c) for c in cases("cpu", only={"select"})]
>>> summary = summarize(results)
>>> summary["calls"] > 10, summary["odd"], summary["silent"]
(True, 0, 0)
"""

from __future__ import annotations

from ._operators import cases
from ._public import Target, public_cases, public_targets, target_cases
from ._run import STANDARD, Case, Result, names_callee, run, summarize

__all__ = [
    "STANDARD",
    "Case",
    "Result",
    "Target",
    "cases",
    "names_callee",
    "public_cases",
    "public_targets",
    "run",
    "summarize",
    "target_cases",
]
