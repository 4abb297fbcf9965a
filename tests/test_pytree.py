"""``tc.utils._pytree`` as PyTorch 2.13's ``torch.utils._pytree``: node types, ``None`` as a
leaf, dict key order, the TreeSpec repr, mismatches in ``tree_map``, registration."""

from __future__ import annotations

import warnings
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.utils import _pytree as pytree

Point = namedtuple("Point", "x y")


def test_flatten_and_unflatten_every_builtin_node(device: str) -> None:
    t = tc.ones(2, device=device)
    tree = {
        "b": [1, (2, None)],
        "a": OrderedDict(x=t),
        "n": Point(4, 5),
        "d": defaultdict(list, {"k": 6}),
        "q": deque([7, 8], maxlen=3),
        "s": tc.Size([9, 10]),
    }
    leaves, spec = pytree.tree_flatten(tree)
    assert leaves[:3] == [1, 2, None] and leaves[3] is t and leaves[4:] == [4, 5, 6, 7, 8, 9, 10]
    assert spec.num_leaves == 11 and spec.num_children == 6
    back = pytree.tree_unflatten(leaves, spec)
    assert list(back) == ["b", "a", "n", "d", "q", "s"]  # key order kept
    assert type(back["a"]) is OrderedDict and back["a"]["x"] is t
    assert type(back["n"]) is Point and back["n"] == Point(4, 5)
    assert type(back["d"]) is defaultdict and back["d"].default_factory is list
    assert type(back["q"]) is deque and back["q"].maxlen == 3
    assert type(back["s"]) is tc.Size and back["s"] == (9, 10)
    assert back["b"] == [1, (2, None)]


def test_none_and_other_objects_are_leaves() -> None:
    assert pytree.tree_leaves([None, 1, "s", {1, 2}]) == [None, 1, "s", {1, 2}]
    assert pytree.tree_flatten(None) == ([None], pytree.LeafSpec())
    assert pytree.tree_is_leaf(None) and not pytree.tree_is_leaf(())
    assert pytree.tree_leaves({}) == [] and pytree.tree_leaves([[], ()]) == []


def test_the_treespec_repr_is_pytorchs() -> None:
    spec = pytree.tree_structure({"b": [1, (2, 3)], "a": OrderedDict(x=3), "n": Point(4, 5)})
    assert repr(spec) == (
        "TreeSpec(dict, ['b', 'a', 'n'], [TreeSpec(list, None, [*,\n"
        "    TreeSpec(tuple, None, [*,\n"
        "      *])]),\n"
        "  TreeSpec(OrderedDict, ['x'], [*]),\n"
        f"  TreeSpec(namedtuple, {Point}, [*,\n"
        "    *])])"
    )
    assert repr(pytree.tree_structure(1)) == "*"
    assert repr(pytree.tree_structure([])) == "TreeSpec(list, None, [])"
    assert spec.num_nodes == 11 and spec.type is dict and spec.context == ["b", "a", "n"]
    assert spec.child(0).type is list and len(spec.children()) == 3


def test_specs_compare_by_structure() -> None:
    s = pytree.tree_structure
    assert s([1, 2]) == s([3, 4]) and s((1,)) != s([1])
    assert s({"a": 1, "b": 2}) != s({"b": 1, "a": 2})  # key order is structure
    assert s(1) == pytree.LeafSpec() and isinstance(s(1), pytree.TreeSpec)


def test_tree_map_over_several_trees() -> None:
    assert pytree.tree_map(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    # a deeper tree in ``rests`` gives its subtrees whole
    assert pytree.tree_map(lambda x, y: (x, y), [1, 2], [[5], 6]) == [(1, [5]), (2, 6)]
    # dicts match by key, whatever the order and dict type
    got = pytree.tree_map(lambda x, y: x - y, {"a": 1, "b": 2}, OrderedDict(b=1, a=1))
    assert got == {"a": 0, "b": 1}


@pytest.mark.parametrize(
    ("tree", "other", "message"),
    [
        ([1, 2], [1], "Node arity mismatch; expected 2, but got 1."),
        ([1, 2], (1, 2), "Node type mismatch; expected <class 'list'>, but got <class 'tuple'>."),
        ({"a": 1}, {"b": 1}, "Node keys mismatch; missing key(s): {'a'}; extra key(s): {'b'}."),
    ],
)
def test_tree_map_names_a_mismatch(tree: Any, other: Any, message: str) -> None:
    with pytest.raises(ValueError) as info:
        pytree.tree_map(lambda x, y: x, tree, other)
    assert str(info.value) == message


def test_tree_unflatten_checks_its_arguments() -> None:
    spec = pytree.tree_structure([1, 2, 3])
    with pytest.raises(ValueError, match="`leaves` has length 2 but the spec refers to a pytree"):
        pytree.tree_unflatten([1, 2], spec)
    with pytest.raises(TypeError, match="Expected `treespec` to be instance of TreeSpec"):
        pytree.tree_unflatten([1, 2], [1, 2])  # type: ignore[arg-type]


def test_tree_map_only_and_predicates(device: str) -> None:
    tree = {"x": tc.ones(2, 3, device=device), "n": 4, "f": 2.0}
    assert pytree.tree_map_only(tc.Tensor, lambda t: t.shape, tree) == {
        "x": tc.Size([2, 3]),
        "n": 4,
        "f": 2.0,
    }
    assert pytree.tree_map_only((int, float), lambda v: v * 10, [1, "a", 2.0]) == [10, "a", 20.0]
    assert pytree.tree_map_only(int | float, lambda v: -v, [1, 2.0]) == [-1, -2.0]
    assert pytree.tree_map_only(lambda v: v == "a", str.upper, ["a", "b"]) == ["A", "b"]
    assert pytree.tree_all(lambda v: v > 0, [1, (2,)]) and not pytree.tree_any(bool, [0, ()])
    assert pytree.tree_any_only(str, str.isupper, [1, "A"])
    assert pytree.tree_all_only(int, lambda v: v > 0, [1, "a", -1.0])
    seen: list[Any] = []
    tree2 = [1, [2]]
    assert pytree.tree_map_(seen.append, tree2) is tree2 and seen == [1, 2]
    w = tc.zeros(2, device=device)
    pytree.tree_map_only_(tc.Tensor, lambda t: t.add_(1), {"w": w, "k": 1})
    assert w.tolist() == [1.0, 1.0]


def test_is_leaf_stops_the_flattening() -> None:
    tree = {"a": [1, 2], "b": (3, [4])}
    assert pytree.tree_leaves(tree, is_leaf=lambda x: isinstance(x, list)) == [[1, 2], 3, [4]]
    doubled = pytree.tree_map(lambda x: x * 2, tree, is_leaf=lambda x: isinstance(x, list))
    assert doubled == {"a": [1, 2, 1, 2], "b": (6, [4, 4])}


class Box:
    def __init__(self, value: Any, label: str) -> None:
        self.value, self.label = value, label


def test_registering_a_class() -> None:
    pytree.register_pytree_node(
        Box, lambda b: ([b.value], b.label), lambda xs, label: Box(next(iter(xs)), label)
    )
    try:
        leaves, spec = pytree.tree_flatten([Box((1, 2), "L"), 3])
        assert leaves == [1, 2, 3]
        assert repr(spec.child(0)) == "TreeSpec(Box, L, [TreeSpec(tuple, None, [*,\n    *])])"
        back = pytree.tree_map(lambda x: x + 1, [Box((1, 2), "L"), 3])
        assert type(back[0]) is Box and back[0].value == (2, 3) and back[0].label == "L"
        with pytest.raises(ValueError, match="is already registered as pytree node"):
            pytree.register_pytree_node(Box, lambda b: ([], None), lambda xs, c: Box(0, ""))
        with pytest.raises(ValueError, match="Node context mismatch for custom node type"):
            pytree.tree_map(lambda x, y: x, Box(1, "L"), Box(1, "M"))
    finally:
        del pytree.SUPPORTED_NODES[Box]


def test_the_old_private_spelling_registers_with_a_future_warning() -> None:
    class Pair2:
        def __init__(self, a: Any, b: Any) -> None:
            self.a, self.b = a, b

    with pytest.warns(FutureWarning, match="_register_pytree_node` is deprecated"):
        pytree._register_pytree_node(Pair2, lambda p: ([p.a, p.b], None), lambda xs, _: Pair2(*xs))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert pytree.tree_leaves(Pair2(1, [2])) == [1, 2]
    finally:
        del pytree.SUPPORTED_NODES[Pair2]


def test_namedtuple_helpers() -> None:
    assert pytree.is_namedtuple(Point) and pytree.is_namedtuple(Point(1, 2))
    assert pytree.is_namedtuple_instance(Point(1, 2)) and not pytree.is_namedtuple_instance((1,))
    assert pytree.is_namedtuple_class(Point) and not pytree.is_namedtuple_class(tuple)
