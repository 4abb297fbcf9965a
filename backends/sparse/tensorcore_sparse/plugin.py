"""The ``sparse`` backend plugin: the ``sparse_coo``, ``sparse_csr`` and ``sparse_csc``
layouts, their operators and kernels (and PyTorch's ``sparse_bsr``/``sparse_bsc`` layout
objects, without kernels).

Found through the entry point ``sparse = "tensorcore_sparse.plugin"`` in the group
``tensorcore.backends``. It registers no device: sparse tensors live on the device of their
values. The computing kernels are written once against an array namespace
(:mod:`tensorcore_sparse._xp`) and registered for each device type that has one: ``cpu``
(NumPy and SciPy) and ``cuda`` (CuPy and ``cupyx.scipy.sparse``). Those that only take a
tensor apart or convert it (accessors, ``clone``, ``to``) are registered for every device.

Registering needs neither CuPy nor the ``tensorcore-cuda`` package: the ``cuda`` kernels are
plain entries of the registry until a CUDA sparse tensor reaches one, which imports CuPy then.
NumPy and SciPy are imported inside the hooks, never at import time.
"""

from __future__ import annotations

from typing import Any

from tensorcore.plugins import hookimpl

__all__ = ["tensorcore_register_kernels", "tensorcore_register_layouts"]

#: The backend SPI this plugin is written for (``tensorcore.backend``).
TENSORCORE_SPI = "1.3"
#: How the conformance suite (``pytest --tensorcore-layout=sparse_coo``) converts tensors.
TENSORCORE_CONFORMANCE_LAYOUTS = {
    "sparse_coo": ("to_sparse", "to_dense"),
    "sparse_csr": ("to_sparse_csr", "to_dense"),
    "sparse_csc": ("to_sparse_csc", "to_dense"),
}

#: The operators this plugin declares: (signature, tags, doc, variants).
_METHOD = {"function": False}
_FUNCTION = {"method": False}
OPERATORS: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "to_sparse(Tensor self, int? sparse_dim=None, *, Layout? layout=None, "
        "int[]? blocksize=None, int? dense_dim=None) -> Tensor",
        "conversion",
        "The tensor as a sparse tensor of ``layout`` (COO by default; ``sparse_dim`` for COO).",
        _METHOD,
    ),
    (
        "to_sparse_coo(Tensor self) -> Tensor",
        "conversion",
        "The tensor as a sparse COO tensor: ``to_sparse()`` with its defaults.",
        {**_METHOD, "node": "ToSparseBackward0"},
    ),
    (
        "to_sparse_csr(Tensor self, int? dense_dim=None) -> Tensor",
        "conversion",
        "A dense, COO or CSC matrix as a sparse CSR matrix.",
        _METHOD,
    ),
    (
        "to_sparse_csc(Tensor self, int? dense_dim=None) -> Tensor",
        "conversion",
        "A dense, COO or CSR matrix as a sparse CSC matrix.",
        _METHOD,
    ),
    (
        "to_sparse_bsr(Tensor self, int[] blocksize, int? dense_dim=None) -> Tensor",
        "conversion nondifferentiable",
        "PyTorch's blocked CSR conversion: not implemented (raises NotImplementedError).",
        _METHOD,
    ),
    (
        "to_sparse_bsc(Tensor self, int[] blocksize, int? dense_dim=None) -> Tensor",
        "conversion nondifferentiable",
        "PyTorch's blocked CSC conversion: not implemented (raises NotImplementedError).",
        _METHOD,
    ),
    (
        "crow_indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The row pointer of a CSR matrix (an alias).",
        _METHOD,
    ),
    (
        "col_indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The column of each entry of a CSR matrix (an alias).",
        _METHOD,
    ),
    (
        "ccol_indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The column pointer of a CSC matrix (an alias).",
        _METHOD,
    ),
    (
        "row_indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The row of each entry of a CSC matrix (an alias).",
        _METHOD,
    ),
    (
        "_sparse_compressed_tensor_unsafe(Tensor compressed_indices, Tensor plain_indices, "
        "Tensor values, int[] size, *, Layout? layout=None) -> Tensor",
        "conversion",
        "A CSR or CSC matrix, without checking its invariants (differentiable in ``values``).",
        _FUNCTION,
    ),
    (
        "coalesce(Tensor self) -> Tensor",
        "conversion",
        "The sparse tensor with sorted, unique indices (duplicates summed).",
        _METHOD,
    ),
    (
        "sparse_mask(Tensor self, Tensor mask) -> Tensor",
        "indexing",
        "``self`` at the entries of the sparse ``mask`` (its values are ignored).",
        _METHOD,
    ),
    (
        "values(Tensor self) -> Tensor",
        "conversion",
        "The values of a coalesced sparse tensor (an alias).",
        _METHOD,
    ),
    (
        "indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The indices of a coalesced sparse tensor (an alias).",
        _METHOD,
    ),
    (
        "_values(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The values of a sparse tensor, coalesced or not (an alias, without autograd).",
        _METHOD,
    ),
    (
        "_indices(Tensor self) -> Tensor",
        "conversion nondifferentiable",
        "The indices of a sparse tensor, coalesced or not (an alias).",
        _METHOD,
    ),
    (
        "_coalesced_(Tensor(a!) self, bool coalesced) -> Tensor(a!)",
        "inplace nondifferentiable",
        "Sets whether the sparse ``self`` counts as coalesced (the indices are not checked).",
        _METHOD,
    ),
    (
        "sparse_resize_(Tensor(a!) self, int[] size, int sparse_dim, int dense_dim) -> Tensor(a!)",
        "inplace nondifferentiable",
        "Gives the sparse ``self`` the size ``size`` with ``sparse_dim`` sparse and ``dense_dim`` "
        "dense dims (a non-empty one keeps its dims and may only grow).",
        _METHOD,
    ),
    (
        "sparse_resize_and_clear_(Tensor(a!) self, int[] size, int sparse_dim, int dense_dim) "
        "-> Tensor(a!)",
        "inplace nondifferentiable",
        "Removes every entry of the sparse ``self``, then gives it the size ``size`` with "
        "``sparse_dim`` sparse and ``dense_dim`` dense dims.",
        _METHOD,
    ),
    (
        "resize_as_sparse_(Tensor(a!) self, Tensor the_template) -> Tensor(a!)",
        "inplace nondifferentiable",
        "``sparse_resize_`` of the sparse ``self`` to the size and the sparse and dense dims of "
        "the sparse ``the_template`` (what ``resize_as_`` does for two sparse tensors).",
        {},
    ),
    (
        "is_coalesced(Tensor self) -> bool",
        "nondifferentiable",
        "Whether a sparse tensor's indices are sorted and unique.",
        _METHOD,
    ),
    (
        "sparse_dim(Tensor self) -> int",
        "nondifferentiable",
        "The number of sparse dims (0 for a dense tensor).",
        _METHOD,
    ),
    (
        "dense_dim(Tensor self) -> int",
        "nondifferentiable",
        "The number of dense dims (every dim of a dense tensor).",
        _METHOD,
    ),
    (
        "_nnz(Tensor self) -> int",
        "nondifferentiable",
        "The number of specified entries of a sparse tensor.",
        _METHOD,
    ),
    (
        "_sparse_coo_tensor_unsafe(Tensor indices, Tensor values, int[] size, "
        "bool? is_coalesced=None) -> Tensor",
        "conversion",
        "A sparse COO tensor, without checking the indices (differentiable in ``values``).",
        _FUNCTION,
    ),
    (
        "hspmm(Tensor mat1, Tensor mat2) -> Tensor",
        "linalg",
        "``mat1 @ mat2`` (sparse @ dense) as a hybrid COO tensor of the rows that have entries.",
        {**_FUNCTION, "out": True},
    ),
    (
        "_sparse_sampled_addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, "
        "Scalar alpha=1) -> Tensor",
        "linalg",
        "``beta * self + alpha * (mat1 @ mat2)`` at the entries of the CSR ``self`` only "
        "(``tensorcore.sparse.sampled_addmm``).",
        {**_FUNCTION, "node": "SparseSampledAddmmBackward0"},
    ),
    (
        "sspaddmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor",
        "linalg",
        "``beta * self + alpha * (mat1 @ mat2)`` for sparse ``self`` and ``mat1`` and a dense "
        "``mat2``, as an uncoalesced COO matrix: ``self``'s entries, then the rows of the "
        "product where ``mat1`` has entries. As in PyTorch, it has no derivative.",
        {"out": True},
    ),
    (
        "smm(Tensor self, Tensor mat2) -> Tensor",
        "linalg",
        "``self @ mat2`` (sparse @ dense) as a COO matrix of the rows that have entries.",
        _FUNCTION,
    ),
    (
        "_sparse_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        "conversion",
        "Softmax over ``dim`` of a sparse tensor's specified elements.",
        _FUNCTION,
    ),
    (
        "_sparse_log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        "conversion",
        "Log-softmax over ``dim`` of a sparse tensor's specified elements.",
        _FUNCTION,
    ),
]


@hookimpl
def tensorcore_register_layouts(register: Any) -> None:
    """Register the ``sparse_coo`` layout; its kernels win over ``strided`` ones in mixed
    calls (``dense + sparse`` runs the sparse kernel). Its codec makes sparse tensors
    picklable, deep-copyable and savable."""
    from tensorcore.serialization import register_layout_codec

    from . import codec

    register.layout("sparse_coo", priority=1)
    register_layout_codec("sparse_coo", codec.to_parts, codec.from_parts)
    for name in ("sparse_csr", "sparse_csc"):
        register.layout(name, priority=1)
        register_layout_codec(name, codec.compressed_to_parts, codec.compressed_from_parts(name))
    # PyTorch's blocked layouts: the objects only (conversions to them raise, saying so).
    for name in ("sparse_bsr", "sparse_bsc"):
        register.layout(name, priority=1)


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    """Declare the sparse operators; register the kernels, the derivative rules and the
    ``tensorcore.sparse_coo_tensor``, ``tensorcore.sparse`` and
    ``tensorcore.sparse_embedding`` attributes."""
    from . import compressed, construct, construct_compressed, derivatives, embedding, namespace
    from .kernels import compressed as compressed_kernels
    from .kernels import linalg, pointwise, reductions, shape

    for signature, tags, doc, variants in OPERATORS:
        register.op(signature, tags, doc, **variants)
    modules = (construct, construct_compressed, compressed, compressed_kernels)
    for module in (*modules, pointwise, linalg, reductions, shape):
        for op, device, layout, fn, direct in module.KERNELS:
            register.kernel(op, device, layout, fn, direct=direct)
    for op, layout, saves, rule in derivatives.RULES:
        register.derivative(op, "*", layout, saves, rule)
    register.attribute("sparse_coo_tensor", construct.sparse_coo_tensor)
    for name in ("sparse_csr_tensor", "sparse_csc_tensor", "sparse_compressed_tensor"):
        register.attribute(name, getattr(construct_compressed, name))
    register.attribute("sparse", namespace)
    register.attribute("sparse_embedding", embedding.sparse_embedding)
