"""Pictures of what the library does: strides, storage sharing and the autograd graph.

- :func:`strides`: logical tensors beside the storage they read, each element linked to its
  storage cell; several views of one storage drawn over it (sharing, gaps, repeated reads).
- :func:`graph`: the autograd graph behind a result, with saved tensors, leaves, hooks and
  the version-counter state of every saved tensor.

Each picture prints as plain text, shows as SVG in Jupyter, and saves to a file (``.svg``,
``.html``; the stride picture's page is interactive). ``python -m tensorcore.viz`` makes them
from the command line.

Examples
--------
>>> import tensorcore as tc
>>> x = tc.arange(4.0).reshape(2, 2)
>>> print(tc.viz.strides(x.t()))
storage: 4 elements of float32
t: size (2, 2)  stride (1, 2)  offset 0  [non-contiguous]
  [[0, 2],
   [1, 3]]
reads of each storage cell (. = none):
  cell 0 1 2 3
  t    1 1 1 1
"""

from __future__ import annotations

from ._graph import GraphPicture, graph
from ._strides import MAX_CELLS, StridePicture, View, strides

__all__ = ["MAX_CELLS", "GraphPicture", "StridePicture", "View", "graph", "strides"]
