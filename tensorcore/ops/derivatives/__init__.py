"""THE derivative table: one rule per differentiable operator.

A rule names what it saves (parameter names from the operator's signature, or ``result``;
``name:spec`` saves only the tensor's shape, strides, offset, dtype and device, for rules
that never read its values -- views, ``sum``, ``cat``... -- so that modifying the input in
place later does not invalidate the graph; ``name:if=other`` saves it only when the tensor
input ``other`` wants a gradient, as PyTorch saves ``self`` of ``mul`` only for ``other``'s
gradient, and None otherwise) and maps the output gradient ``g`` to one
gradient per tensor input (in signature order, tensor lists flattened without their ``None``
entries; ``None`` for inputs without a gradient). Rules are written with
tensorcore operators, so they run on every device and layout and are themselves
differentiable (higher-order gradients). The engine then sums each gradient to its input's
shape (undoing broadcasting) and casts it to the input's dtype.

Contract (as PyTorch's derivatives.yaml): for a real input x and output y, a rule returns
``dL/dx`` given ``g = dL/dy``; for complex inputs it returns the conjugate Wirtinger form
PyTorch uses (``g * conj(dy/dx)``). A Python scalar may stand in any tensor position of a
pointwise operator (``2.0 ** x``, ``tc.where(c, 0.0, x)``): a rule returns None for it and
applies operators only to tensors (``_scalar_tensor`` makes one of a scalar).

The table is one dict, filled by one module per operator family, each importing
``_table``'s ``_d`` (which refuses a second rule for an operator):

- ``_table``: :class:`Derivative`, :data:`DERIVATIVES`, ``sum_to`` and the shared helpers;
- ``pointwise`` (arithmetic, math and special functions), ``activations``;
- ``reductions`` (with scans and softmaxes), ``losses``;
- ``linalg`` (products; the decompositions' rules are written in ``decompositions``);
- ``spectral``, ``shape`` (shapes, views, copies), ``indexing``;
- ``nn`` (convolutions, pools, ``embedding_bag``), ``normalization`` (with ``linear``).
"""

from __future__ import annotations

import importlib

from ._table import DERIVATIVES, Derivative, sum_to
from ._table import _unreduce as _unreduce  # (tests compare it with the plain expand)

__all__ = ["DERIVATIVES", "Derivative", "sum_to"]

#: The family modules, which add their rules to :data:`DERIVATIVES` when imported.
FAMILY_MODULES = (
    "pointwise",
    "activations",
    "reductions",
    "losses",
    "linalg",
    "spectral",
    "shape",
    "indexing",
    "nn",
    "normalization",
)
for _module in FAMILY_MODULES:
    importlib.import_module(f"{__name__}.{_module}")
