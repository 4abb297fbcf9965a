"""Smaller operators PyTorch programs call, written with other operators
(``ops/composite_more.py``): ``sgn``, ``frac``, ``gcd``/``lcm``, ``isneginf``/``isposinf``/
``isreal``, ``mvlgamma``, ``take``, ``msort``, ``vdot``, ``inner``, ``diagflat``,
``narrow_copy``, ``masked_scatter``, the ``*_scatter`` operators (the functional forms of
writing into a view) and ``one_hot``."""

from __future__ import annotations

from .. import arg_checks as AC
from ._declare import _op

_P = "pointwise composite"
_op(
    "sgn(Tensor self) -> Tensor",
    _P,
    "The sign of real elements (:func:`sign`); ``self / |self|`` for complex ones (0 at 0).",
    inplace=True,
    out=True,
    out_dtype="same",
)
_op(
    "frac(Tensor self) -> Tensor",
    _P,
    "The fractional part, ``self - trunc(self)`` (with the sign of ``self``).",
    inplace=True,
    dtypes="f",
    out=True,
    out_dtype="same",
)
for _n, _what in (("gcd", "greatest common divisor"), ("lcm", "least common multiple")):
    _op(
        f"{_n}(Tensor self, Tensor other) -> Tensor",
        _P + " nondifferentiable",
        f"The elementwise {_what} of the integers ``|self|`` and ``|other|`` (broadcast); "
        f"0 where both are 0{'' if _n == 'gcd' else ' or either is'}.",
        inplace=True,
        dtypes="i",
        tensors_only="self other",
        out=True,
    )
for _n, _sign in (("isneginf", "negative"), ("isposinf", "positive")):
    _op(
        f"{_n}(Tensor self) -> Tensor",
        _P + " nondifferentiable",
        f"True where an element is {_sign} infinity (never for integers); complex tensors "
        "are refused.",
        dtypes="bif",
        dtype_error=f"{_n} does not support complex inputs.",
        out=True,
    )
_op(
    "isreal(Tensor self) -> Tensor",
    _P + " nondifferentiable",
    "True where an element's imaginary part is 0 (every element of a real tensor).",
)
_op(
    "mvlgamma(Tensor self, int p) -> Tensor",
    _P,
    "The log of the multivariate gamma function of dimension ``p``: "
    "``p (p - 1) / 4 log(pi) + sum_j lgamma(self - j / 2)`` for ``j < p``.",
    inplace=True,
    check=AC.refuses_category("b", "The input tensor may not be a boolean tensor."),
    out=True,
)
_op(
    "msort(Tensor self) -> Tensor",
    "reduction composite",
    "``self`` sorted along its first dim (the values of ``sort(self, dim=0)``).",
    dtypes="bif",
    dtype_error="Sort does not support {kind} dtypes",
    out=True,
    out_dtype="exact",
)
_op(
    "vdot(Tensor self, Tensor other) -> Tensor",
    "linalg composite",
    "The dot product of two 1-D tensors, the first conjugated.",
    dtypes="ifc",
    out=True,
    out_dtype="exact",
)
_op(
    "inner(Tensor self, Tensor other) -> Tensor",
    "linalg composite",
    "The sum of products over the last dims of ``self`` and ``other`` (a product with a "
    "number for a 0-d operand): of shape ``self.shape[:-1] + other.shape[:-1]``.",
    dtypes="ifc",
    out=True,
    out_dtype="exact",
)
_op(
    "diagflat(Tensor self, int offset=0) -> Tensor",
    "shape composite",
    "A 2-D tensor with the elements of ``self`` (flattened) on its diagonal ``offset``.",
)
_op(
    "narrow_copy(Tensor self, int dim, int start, int length) -> Tensor",
    "shape composite",
    "A copy of ``self.narrow(dim, start, length)``.",
    out=True,
    out_dtype="exact",
)
_op(
    "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
    "indexing composite",
    "Copy of ``self`` (broadcast with the bool ``mask``) with the first elements of "
    "``source`` (row-major) written where ``mask`` is true, in order.",
    inplace=True,
)
_op(
    "select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with ``src`` written into ``self.select(dim, index)``.",
)
_op(
    "slice_scatter(Tensor self, Tensor src, int dim=0, int? start=None, int? end=None, "
    "int step=1) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with ``src`` written into the slice ``start:end:step`` along ``dim``.",
    out=True,
    out_dtype="exact",
)
_op(
    "diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
    "indexing composite",
    "Copy of ``self`` with ``src`` written into ``self.diagonal(offset, dim1, dim2)``.",
)
_op(
    "as_strided_scatter(Tensor self, Tensor src, int[] size, int[] stride, "
    "int? storage_offset=None) -> Tensor",
    "indexing composite",
    "Copy of ``self`` (contiguous) with ``src`` written into its "
    "``as_strided(size, stride, storage_offset)`` view.",
)
_op(
    "one_hot(Tensor self, int num_classes=-1) -> Tensor",
    "nn nondifferentiable composite",
    "int64 one-hot encoding of the int64 class indices ``self``: a new last dim of size "
    "``num_classes`` (the largest index + 1 for -1), 1 at each index, 0 elsewhere "
    "(``nn.functional.one_hot``). A backend's kernel makes the result in one pass; the "
    "composite compares with ``arange(num_classes)``.",
    check=AC.check_one_hot,
    method=False,
    function=False,
)
_op(
    'mse_loss(Tensor self, Tensor target, str reduction="mean") -> Tensor',
    "nn composite",
    "The squared error ``(self - target) ** 2`` (broadcast), reduced by ``reduction`` "
    "(``nn.functional.mse_loss`` checks the arguments and calls it): one graph node, "
    "PyTorch's ``MseLossBackward0``, whose inputs are ``self`` and ``target``.",
    method=False,
    function=False,
)
_op(
    "fake_quantize_per_tensor_affine(Tensor self, Any scale, Any zero_point, int quant_min, "
    "int quant_max) -> Tensor",
    "nn composite",
    "Quantize to ``clamp(round(self / scale) + zero_point, quant_min, quant_max)`` and back, "
    "``(q - zero_point) * scale``, in one step (quantization-aware training). ``scale`` (a "
    "float32 number) and ``zero_point`` (an int) may be one-element tensors. The gradient "
    "passes where ``q`` was within the range, 0 elsewhere (the straight-through estimator).",
    method=False,
)
_op(
    "fake_quantize_per_channel_affine(Tensor self, Tensor scale, Tensor zero_point, int axis, "
    "int quant_min, int quant_max) -> Tensor",
    "nn composite",
    ":func:`fake_quantize_per_tensor_affine` with a ``scale`` (float32) and ``zero_point`` "
    "(int32, or floating: added before rounding) per index of dim ``axis``.",
    method=False,
)
