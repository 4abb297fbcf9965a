"""tensorcore-cuda: the CUDA backend of tensorcore, on CuPy."""
