"""The operator functions as a typed namespace: ``ops.where(c, a, b)``.

``ops/_api.py`` puts every ``tensorcore.<op>`` function it compiles here (plugins' operators
too), so code inside tensorcore and in backends calls operators as attributes of this module
(``from tensorcore.ops import functions as ops``) -- a module attribute lookup, as fast as the
dict lookup by name it replaces, and visible to the type checker through ``functions.pyi``,
which ``tools/gen_stubs.py`` generates from the operator table: a misspelt operator is a type
error instead of a ``KeyError`` the first time that line runs.
"""
