"""tensorcore-cpu: the dense CPU backend of tensorcore, on NumPy."""
