"""Kernels of the sparse layout, by kind: pointwise, linear algebra, reductions and shape."""
