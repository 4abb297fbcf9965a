"""The kernel modules, one per family of operators (pointwise, reductions, linear algebra,
shapes, indexing, ...). Each has ``build(xp, ...) -> {operator name: kernel}`` for an array
module ``xp``; :func:`tensorcore_xp.build` joins them.
"""
