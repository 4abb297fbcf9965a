"""Views: the core's own strided arithmetic (``ops/views.py``)."""

from __future__ import annotations

from .. import arg_checks as AC
from ._declare import _op

# ---------------------------------------------------------------- views (core arithmetic)
_V = "view"
_op(
    "view(Tensor(a) self, int... size) -> Tensor(a)",
    _V,
    "A view with another shape; ``x.view(dtype)`` views the bytes as another dtype.",
    function=False,
    overload="_view_dtype",
)
_op(
    "as_strided(Tensor(a) self, int[] size, int[] stride, int? storage_offset=None) -> Tensor(a)",
    _V,
    "A view with the given sizes, strides and storage offset.",
)
_op(
    "expand(Tensor(a) self, int... size) -> Tensor(a)",
    _V,
    "A view broadcast to ``size`` (-1 keeps a dim); new entries have stride 0.",
    function=False,
)
_op("transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", _V, "Swaps two dims.")
_op("permute(Tensor(a) self, int... dims) -> Tensor(a)", _V, "Reorders the dims.")
_op(
    "squeeze(Tensor(a) self, int[]? dim=None) -> Tensor(a)",
    _V,
    "Removes dims of size 1.",
    # (PyTorch's ``squeeze(x, (0, 1))`` is ``SqueezeBackward2``; here an int dim arrives as a
    # one-element tuple, so both name the common ``squeeze(x, 0)``'s node)
    node_when="dim:SqueezeBackward1",
)
_op("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", _V, "Inserts a dim of size 1.")
_op(
    "narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)",
    _V,
    "The slice ``start:start+length`` along ``dim`` (``start`` may be a 0-d integer tensor).",
    node="SliceBackward0",
    convert=AC.narrow_tensor_start,
)
_op(
    "select(Tensor(a) self, int dim, int index) -> Tensor(a)",
    _V,
    "The slice at ``index`` along ``dim``, with that dim removed.",
)
_op(
    "slice(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)",
    _V,
    "The slice ``start:end:step`` along ``dim``.",
    method=False,
    function=False,
)
_op(
    "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
    _V,
    "A view of a diagonal; it becomes the last dim.",
)
_op(
    "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
    _V,
    "All windows of ``size`` along a dim, with ``step``; windows become the last dim.",
)
# ``x.real`` / ``x.imag`` are properties on tensors (tensorcore/_tensor_methods.py).
# (recorded as PyTorch records them: ``select(view_as_real(x), -1, 0)``, a composite whose
# untracked calls run the one-view kernel)
_op(
    "real(Tensor(a) self) -> Tensor(a)",
    "view composite",
    "The real part of a complex tensor as a view of dtype ``float`` (the tensor itself when it "
    "is real); writing to it writes the real parts.",
    method=False,
)
_op(
    "imag(Tensor(a) self) -> Tensor(a)",
    "view composite",
    "The imaginary part of a complex tensor as a view; an error for real tensors.",
    method=False,
)
_op(
    "view_as_real(Tensor(a) self) -> Tensor(a)",
    _V,
    "A complex tensor as a real view with a last dim of 2 (real and imaginary parts).",
    method=False,
)
_op(
    "view_as_complex(Tensor(a) self) -> Tensor(a)",
    _V,
    "A real tensor whose last dim (of size 2, stride 1) holds real and imaginary parts as a "
    "complex view without that dim.",
    method=False,
    autocast="fp32",
)
_op(
    "alias(Tensor(a) self) -> Tensor(a)",
    _V,
    "A view of the whole tensor.",
    method=False,
    function=False,
)
