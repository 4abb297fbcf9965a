"""tensorcore-sparse: PyTorch's sparse layouts for tensorcore: ``sparse_coo`` and the
compressed ``sparse_csr`` and ``sparse_csc`` (``tensorcore_sparse._compressed``).

A sparse COO tensor is a pair of tensors -- ``indices`` (int64, ``sparse_dim x nnz``) and
``values`` (``nnz x dense dims``) -- plus a size, kept in the tensor's native record
(:class:`tensorcore_sparse._coo.SparseRecord`). The plugin (``tensorcore_sparse.plugin``)
registers the layout, its kernels for the ``cpu`` device (NumPy and SciPy) and the ``cuda``
device (CuPy and ``cupyx.scipy.sparse``, written once with the CPU ones), derivative rules
that keep gradients sparse, and ``tensorcore.sparse_coo_tensor`` / ``tensorcore.sparse``.
See ``docs/sparse.md``.
"""

__version__ = "0.1.0"
