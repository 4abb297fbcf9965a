"""Pytrees: nested containers of leaves, flattened to a list of leaves and a :class:`TreeSpec`
that rebuilds them, as PyTorch's ``torch.utils._pytree``.

The nodes are ``tuple``, ``list``, ``dict`` (in key order), namedtuples, ``OrderedDict``,
``defaultdict``, ``deque``, :class:`tensorcore.Size`, and any class given to
:func:`register_pytree_node`; everything else is a leaf, ``None`` included (as in PyTorch
2.13).

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.utils._pytree import tree_flatten, tree_map, tree_unflatten
>>> leaves, spec = tree_flatten({"w": tc.ones(2), "stats": [1, 2.5]})
>>> leaves
[tensor([1., 1.]), 1, 2.5]
>>> spec
TreeSpec(dict, ['w', 'stats'], [*,
  TreeSpec(list, None, [*,
    *])])
>>> tree_unflatten([0, 1, 2], spec)
{'w': 0, 'stats': [1, 2]}
>>> tree_map(lambda x: x * 2, {"a": (1, 2), "b": [3]})
{'a': (2, 4), 'b': [6]}
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from .._tensor import Size

__all__ = [
    "LeafSpec",
    "PyTree",
    "TreeSpec",
    "is_namedtuple",
    "is_namedtuple_class",
    "is_namedtuple_instance",
    "register_pytree_node",
    "tree_all",
    "tree_all_only",
    "tree_any",
    "tree_any_only",
    "tree_flatten",
    "tree_is_leaf",
    "tree_iter",
    "tree_leaves",
    "tree_map",
    "tree_map_",
    "tree_map_only",
    "tree_map_only_",
    "tree_structure",
    "tree_unflatten",
]

PyTree = Any
Context = Any
FlattenFn = Callable[[PyTree], tuple[list[Any], Context]]
UnflattenFn = Callable[[Iterable[Any], Context], PyTree]
IsLeaf = Callable[[PyTree], bool] | None


class NodeDef(NamedTuple):
    type: Any
    flatten_fn: FlattenFn
    unflatten_fn: UnflattenFn


#: The node types, by type (namedtuples all under ``collections.namedtuple``).
SUPPORTED_NODES: dict[Any, NodeDef] = {}


def is_namedtuple_class(cls: Any) -> bool:
    """Whether ``cls`` is a namedtuple class (a tuple subclass with ``_fields``).

    Examples
    --------
    >>> from collections import namedtuple
    >>> from tensorcore.utils._pytree import is_namedtuple_class
    >>> is_namedtuple_class(namedtuple("P", "x y")), is_namedtuple_class(tuple)
    (True, False)
    """
    return (
        isinstance(cls, type)
        and issubclass(cls, tuple)
        and isinstance(getattr(cls, "_fields", None), tuple)
        and all(type(f) is str for f in cls._fields)  # type: ignore[attr-defined]
        and callable(getattr(cls, "_make", None))
        and callable(getattr(cls, "_asdict", None))
    )


def is_namedtuple_instance(obj: Any) -> bool:
    """Whether ``obj`` is an instance of a namedtuple class."""
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj: Any) -> bool:
    """Whether ``obj`` is a namedtuple class or an instance of one."""
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def _node_type(tree: Any) -> Any:
    cls = type(tree)
    return namedtuple if is_namedtuple_class(cls) else cls


def register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    *,
    serialized_type_name: str | None = None,
    to_dumpable_context: Callable[[Context], Any] | None = None,
    from_dumpable_context: Callable[[Any], Context] | None = None,
    flatten_with_keys_fn: Callable[..., Any] | None = None,
) -> None:
    """Make ``cls`` a pytree node.

    ``flatten_fn(obj)`` returns ``(children, context)``; ``unflatten_fn(children, context)``
    builds an object back. The keyword arguments are PyTorch's (for its treespec
    serialization and key paths, which tensorcore does not have); they are accepted and
    ignored. Registering a class twice raises ``ValueError``.

    Examples
    --------
    >>> from tensorcore.utils._pytree import register_pytree_node, tree_leaves
    >>> class Point:
    ...     def __init__(self, x, y):
    ...         self.x, self.y = x, y
    >>> register_pytree_node(Point, lambda p: ([p.x, p.y], None), lambda xs, _: Point(*xs))
    >>> tree_leaves([Point(1, 2), 3])
    [1, 2, 3]
    """
    if not isinstance(cls, type) and cls is not namedtuple:
        raise TypeError(f"register_pytree_node(): expected a class, got {cls!r}")
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    if not callable(flatten_fn) or not callable(unflatten_fn):
        raise TypeError("register_pytree_node(): flatten_fn and unflatten_fn must be callable")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def _register_pytree_node(
    cls: type[Any],
    flatten_fn: FlattenFn,
    unflatten_fn: UnflattenFn,
    to_str_fn: Any = None,
    maybe_from_str_fn: Any = None,
    **kwargs: Any,
) -> None:
    """PyTorch's deprecated spelling of :func:`register_pytree_node` (warns ``FutureWarning``)."""
    warnings.warn(
        "`tensorcore.utils._pytree._register_pytree_node` is deprecated. Please use "
        "`tensorcore.utils._pytree.register_pytree_node` instead.",
        FutureWarning,
        stacklevel=2,
    )
    register_pytree_node(cls, flatten_fn, unflatten_fn, **kwargs)


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], Any]:
    return list(d.values()), list(d.keys())


def _namedtuple_unflatten(values: Iterable[Any], context: Any) -> Any:
    return context(*values)


def _defaultdict_flatten(d: defaultdict[Any, Any]) -> tuple[list[Any], Any]:
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values: Iterable[Any], context: Any) -> Any:
    factory, keys = context
    return defaultdict(factory, zip(keys, values, strict=True))


_cls: Any
for _cls, _flat, _unflat in (
    (tuple, lambda t: (list(t), None), lambda v, c: tuple(v)),
    (list, lambda t: (list(t), None), lambda v, c: list(v)),
    (dict, _dict_flatten, lambda v, c: dict(zip(c, v, strict=True))),
    (namedtuple, lambda t: (list(t), type(t)), _namedtuple_unflatten),
    (OrderedDict, _dict_flatten, lambda v, c: OrderedDict(zip(c, v, strict=True))),
    (defaultdict, _defaultdict_flatten, _defaultdict_unflatten),
    (deque, lambda d: (list(d), d.maxlen), lambda v, c: deque(v, maxlen=c)),
    (Size, lambda s: (list(s), None), lambda v, c: Size(list(v))),
):
    register_pytree_node(_cls, _flat, _unflat)
del _cls, _flat, _unflat

_DICTS = (dict, OrderedDict, defaultdict)
_BUILTIN = (tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque)


def tree_is_leaf(tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or it is no node type.

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_is_leaf
    >>> tree_is_leaf(1), tree_is_leaf(None), tree_is_leaf([1, 2])
    (True, True, False)
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) not in SUPPORTED_NODES


class TreeSpec:
    """The structure of a pytree: its root's node type and context, and a spec per child.

    ``num_leaves``, ``num_nodes`` and ``num_children`` count what it describes;
    :meth:`unflatten` builds a tree of this structure from leaves. Specs compare equal when
    they describe the same structure.
    """

    __slots__ = ("_children", "_context", "num_children", "num_leaves", "num_nodes", "type")

    def __init__(self, type: Any, context: Context, children_specs: list[TreeSpec]) -> None:
        self.type = type
        self._context = context
        self._children = list(children_specs)
        self.num_children: int = len(self._children)
        self.num_leaves: int = sum(c.num_leaves for c in self._children)
        self.num_nodes: int = 1 + sum(c.num_nodes for c in self._children)

    @property
    def context(self) -> Context:
        return self._context

    @property
    def children_specs(self) -> list[TreeSpec]:
        return self._children

    def children(self) -> list[TreeSpec]:
        return list(self._children)

    def child(self, index: int) -> TreeSpec:
        return self._children[index]

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def __repr__(self, indent: int = 0) -> str:
        # PyTorch's layout: the first child on the opening line, each further one on a line
        # of its own, indented two spaces per level.
        name = getattr(self.type, "__name__", str(self.type))
        inner = ""
        if self._children:
            indent += 2
            parts = [c.__repr__(indent) for c in self._children]
            inner = parts[0] + "".join(",\n" + " " * indent + p for p in parts[1:])
        return f"TreeSpec({name}, {self._context}, [{inner}])"

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (
            str(self.type) == str(other.type)
            and self._context == other._context
            and self._children == other._children
        )

    __hash__ = None  # type: ignore[assignment]

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """A tree of this structure holding ``leaves`` (as many as ``num_leaves``)."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec "
                f"refers to a pytree that holds {self.num_leaves} items ({self!r})."
            )
        return self._build(iter(leaves))

    def _build(self, leaves: Iterator[Any]) -> PyTree:
        if self.is_leaf():
            return next(leaves)
        children = [c._build(leaves) for c in self._children]
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self._context)

    def flatten_up_to(self, tree: PyTree) -> list[PyTree]:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have at least this
        structure); raises ``ValueError`` naming the first mismatch."""
        out: list[PyTree] = []
        self._up_to(tree, out)
        return out

    def _up_to(self, node: PyTree, out: list[PyTree]) -> None:
        if self.is_leaf():
            out.append(node)
            return
        got = _node_type(node)
        if self.type not in _BUILTIN:
            if got != self.type:
                raise ValueError(f"Type mismatch; expected {self.type!r}, but got {got!r}.")
            children, context = SUPPORTED_NODES[got].flatten_fn(node)
            if len(children) != self.num_children:
                raise ValueError(
                    f"Node arity mismatch; expected {self.num_children}, but got {len(children)}."
                )
            if context != self._context:
                raise ValueError(f"Node context mismatch for custom node type {self.type!r}.")
        else:
            dicts = self.type in _DICTS and got in _DICTS
            if not dicts and got != self.type:
                raise ValueError(f"Node type mismatch; expected {self.type!r}, but got {got!r}.")
            if len(node) != self.num_children:
                raise ValueError(
                    f"Node arity mismatch; expected {self.num_children}, but got {len(node)}."
                )
            if dicts:
                keys = self._context if self.type is not defaultdict else self._context[1]
                if set(node) != set(keys):
                    missing, extra = set(keys) - set(node), set(node) - set(keys)
                    msg = f"; missing key(s): {missing}" if missing else ""
                    msg += f"; extra key(s): {extra}" if extra else ""
                    raise ValueError(f"Node keys mismatch{msg}.")
                children = [node[k] for k in keys]
            else:
                children, context = SUPPORTED_NODES[got].flatten_fn(node)
                if got is not deque and context != self._context:
                    raise ValueError(
                        f"Node context mismatch for node type {self.type!r}; expected "
                        f"{self._context!r}, but got {context!r}."
                    )
        for spec, child in zip(self._children, children, strict=True):
            spec._up_to(child, out)


class LeafSpec(TreeSpec):
    """The spec of a leaf (``*`` in a spec's repr)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(None, None, [])
        self.num_nodes = 1
        self.num_leaves = 1

    def __repr__(self, indent: int = 0) -> str:
        return "*"


_LEAF = LeafSpec()


def _flatten(tree: PyTree, leaves: list[Any], is_leaf: IsLeaf) -> TreeSpec:
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF
    node = SUPPORTED_NODES[_node_type(tree)]
    children, context = node.flatten_fn(tree)
    return TreeSpec(node.type, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree: PyTree, is_leaf: IsLeaf = None) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` (depth first, dicts in key order) and its :class:`TreeSpec`.

    ``is_leaf(subtree)`` returning True stops the flattening there.

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_flatten
    >>> tree_flatten([1, (2, None)])
    ([1, 2, None], TreeSpec(list, None, [*,
      TreeSpec(tuple, None, [*,
        *])]))
    """
    leaves: list[Any] = []
    spec = _flatten(tree, leaves, is_leaf)
    return leaves, spec


def tree_unflatten(leaves: Iterable[Any], treespec: TreeSpec) -> PyTree:
    """The tree of structure ``treespec`` holding ``leaves``: the inverse of
    :func:`tree_flatten`.

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_structure, tree_unflatten
    >>> tree_unflatten([3, 4], tree_structure({"a": 0, "b": [0]}))
    {'a': 3, 'b': [4]}
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(
            f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of "
            f"TreeSpec but got item of type {type(treespec)}."
        )
    return treespec.unflatten(leaves)


def tree_iter(tree: PyTree, is_leaf: IsLeaf = None) -> Iterator[Any]:
    """Iterate over the leaves of ``tree``, in :func:`tree_flatten`'s order."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_node_type(tree)].flatten_fn(tree)
    for child in children:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree: PyTree, is_leaf: IsLeaf = None) -> list[Any]:
    """The leaves of ``tree``, in :func:`tree_flatten`'s order.

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_leaves
    >>> tree_leaves({"b": [1, 2], "a": 3})
    [1, 2, 3]
    """
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: IsLeaf = None) -> TreeSpec:
    """The :class:`TreeSpec` of ``tree``.

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_structure
    >>> tree_structure((1, 2))
    TreeSpec(tuple, None, [*,
      *])
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """A tree of ``tree``'s structure whose leaves are ``func(leaf, *other_leaves)``; each of
    ``rests`` must have ``tree``'s structure (or be deeper: its subtrees at ``tree``'s
    leaves are passed whole).

    Examples
    --------
    >>> from tensorcore.utils._pytree import tree_map
    >>> tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])
    [11, (22, 33)]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(map(func, *flat))


def tree_map_(
    func: Callable[..., Any], tree: PyTree, *rests: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """Call ``func`` on the leaves (for its side effects, e.g. in-place updates) and return
    ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    flat = [leaves] + [spec.flatten_up_to(r) for r in rests]
    for args in zip(*flat, strict=True):
        func(*args)
    return tree


def _only(type_or_types_or_pred: Any, func: Callable[[Any], Any]) -> Callable[[Any], Any]:
    if isinstance(type_or_types_or_pred, (type, tuple)) or (
        type(type_or_types_or_pred).__name__ == "UnionType"
    ):

        def pred(x: Any) -> bool:
            return isinstance(x, type_or_types_or_pred)

    elif callable(type_or_types_or_pred):
        pred = type_or_types_or_pred
    else:
        raise TypeError("Argument must be a type, a tuple of types, or a callable.")

    def wrapped(x: Any) -> Any:
        return func(x) if pred(x) else x

    return wrapped


def tree_map_only(
    type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """:func:`tree_map` applied only to the leaves of the given type(s) (or for which the
    predicate is true); the other leaves are kept.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.utils._pytree import tree_map_only
    >>> tree_map_only(tc.Tensor, lambda t: t.shape, {"x": tc.ones(2, 3), "n": 4})
    {'x': tensorcore.Size([2, 3]), 'n': 4}
    """
    return tree_map(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_map_only_(
    type_or_types_or_pred: Any, /, func: Callable[[Any], Any], tree: PyTree, is_leaf: IsLeaf = None
) -> PyTree:
    """:func:`tree_map_` applied only to the leaves of the given type(s)."""
    return tree_map_(_only(type_or_types_or_pred, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for every leaf."""
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None) -> bool:
    """Whether ``pred`` holds for some leaf."""
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(
    type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None
) -> bool:
    """Whether ``pred`` holds for every leaf of the given type(s)."""
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(
    type_or_types: Any, /, pred: Callable[[Any], bool], tree: PyTree, is_leaf: IsLeaf = None
) -> bool:
    """Whether ``pred`` holds for some leaf of the given type(s)."""
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))
