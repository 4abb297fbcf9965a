"""Meta-tests of the operator table: an operator's facts live in its declaration.

Shared code (the dispatcher, the frontends, the autograd machinery) must not ask "is this
`where`?": such a branch means the declaration lacks a field. These tests scan that code for
operator names and check that the declaration fields the frontends read are consistent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tensorcore as tc
from tensorcore import return_types
from tensorcore.dispatch import get_op
from tensorcore.ops import (
    meta_conv,
    meta_ctc,
    meta_fft,
    meta_functions,
    meta_indexing,
    meta_linalg,
    meta_nn,
    meta_norm,
    meta_products,
)
from tensorcore.ops.schema import OPS, OpDecl

ROOT = Path(tc.__file__).parent

# Modules that serve every operator alike. Operator implementations (schema, meta functions,
# derivatives, composites, views) name operators by nature; these must not.
SHARED = [
    "dispatch.py",
    "ops/_api.py",
    "ops/_call.py",
    "ops/frontends.py",
    "ops/_frontend_common.py",
    "ops/frontend_pointwise.py",
    "ops/frontend_reduction.py",
    "ops/frontend_structured.py",
    "autograd/_record.py",
    "autograd/step.py",
    "autograd/engine.py",
    "autograd/function.py",
    "autograd/_accumulate.py",
    "autograd/gradcheck.py",
]


def _mentions_a_name(node: ast.AST) -> bool:
    return any(
        (isinstance(n, ast.Attribute) and n.attr == "name")
        or (isinstance(n, ast.Name) and n.id == "name")
        for n in ast.walk(node)
    )


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e)]
    return []


def _operator_names_in(tree: ast.AST) -> list[tuple[int, str]]:
    """Where code asks which operator it has (``op.name == "where"``, ``name in ("var",
    "std")``) or looks one up by a literal name (``get_op("cat")``, ``FUNCTIONS["full"]``,
    ``_F("zeros")``)."""
    found = []
    for node in ast.walk(tree):
        literals: list[str] = []
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_mentions_a_name(s) for s in sides):
                literals = [s for side in sides for s in _strings(side)]
        elif isinstance(node, ast.Call) and node.args:
            literals = _strings(node.args[0])
        elif isinstance(node, ast.Subscript):
            literals = _strings(node.slice)
        found += [(node.lineno, s) for s in literals if s in OPS]
    return found


@pytest.mark.parametrize("module", SHARED)
def test_shared_code_names_no_operator(module: str) -> None:
    tree = ast.parse((ROOT / module).read_text())
    assert _operator_names_in(tree) == [], (
        f"{module} branches on operator names; give the declaration a field instead"
    )


def test_the_scan_finds_an_operator_name() -> None:
    # The failing case the test above guards against.
    tree = ast.parse(
        'def f(op, g):\n    if op.name == "where":\n        return FUNCTIONS["full"]\n'
        '    return g if op.promote == "index" else _F("zeros")\n'
    )
    assert sorted(_operator_names_in(tree)) == [(2, "where"), (3, "full"), (4, "zeros")]


def test_structured_and_factory_operators_name_their_meta_function() -> None:
    for name, decl in OPS.items():
        wanted = decl.frontend in ("structured", "factory")
        assert (decl.meta_function is not None) == wanted, name
        if wanted:
            fn = decl.meta_function
            assert fn is not None and fn.__module__ in (
                meta_functions.__name__,
                meta_products.__name__,
                meta_indexing.__name__,
                meta_nn.__name__,
                meta_conv.__name__,
                meta_ctc.__name__,
                meta_norm.__name__,
                meta_linalg.__name__,
                meta_fft.__name__,
            ), name


def test_a_declaration_without_its_meta_function_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a meta_function"):
        OpDecl("zz(Tensor self) -> Tensor", frozenset(), "", frontend="structured")
    with pytest.raises(ValueError, match="takes no meta_function"):
        OpDecl(
            "zz(Tensor self) -> Tensor",
            frozenset(),
            "",
            meta_function=meta_functions.meta_clone,
        )


def test_declaration_fields_name_real_parameters() -> None:
    for field in ("masks", "values", "scalars", "promote_args"):
        with pytest.raises(ValueError, match=f"{field} names no parameter"):
            OpDecl("zz(Tensor self) -> Tensor", frozenset(), "", **{field: "nope"})
    with pytest.raises(ValueError, match="method_names names no parameter"):
        OpDecl("zz(Tensor self) -> Tensor", frozenset(), "", method_names="nope:other")
    with pytest.raises(ValueError, match="unknown parameter"):
        OpDecl("zz(Tensor self) -> Tensor", frozenset(), "", none_means="nope=1")
    with pytest.raises(ValueError, match="unknown promotion"):
        OpDecl("zz(Tensor self, str? m=None) -> Tensor", frozenset(), "", promote_when="m:nah")


def test_several_named_results_come_back_as_their_named_tuple() -> None:
    # Read from the return type: ``-> (Tensor values, Tensor indices)``.
    multi = [n for n, d in OPS.items() if d.pos.result_names]
    assert {"sort", "topk", "max_dim", "min_dim"} <= set(multi)
    for name in multi:
        rt = get_op(name).result_type
        assert rt is getattr(return_types, name)
        assert rt._fields == OPS[name].pos.result_names
    x = tc.tensor([[3.0, 1.0, 2.0]])
    assert type(x.sort()) is return_types.sort
    assert type(tc.topk(x, 2)) is return_types.topk


def test_reductions_without_identity_refuse_empty_input() -> None:
    empty = tc.zeros(0, 3)
    for name, decl in OPS.items():
        if decl.frontend != "reduction" or decl.identity or not decl.function:
            continue
        fn = getattr(tc, name)
        with pytest.raises(IndexError, match="non-zero size"):
            fn(empty, 0)
    assert tc.sum(empty, 0).tolist() == [0.0, 0.0, 0.0]  # sum has an identity


def test_none_means_reaches_the_kernel_and_the_rule() -> None:
    x = tc.tensor([1.0, 2.0, 4.0], requires_grad=True)
    v = x.var(correction=None)
    assert v.item() == pytest.approx(x.var(correction=1).item())
    v.backward()
    # d/dx var = 2 (x - mean) / (n - correction)
    assert x.grad is not None
    assert x.grad.tolist() == pytest.approx([(2 * (a - 7 / 3)) / 2 for a in (1.0, 2.0, 4.0)])


def test_a_method_takes_its_parameters_by_pytorchs_method_names() -> None:
    # mamba-minimal: x.split(split_size=[d, d], dim=-1); the function keeps its own name.
    x = tc.arange(6)
    assert [t.tolist() for t in x.split(split_size=[2, 4], dim=-1)] == [[0, 1], [2, 3, 4, 5]]
    assert [t.tolist() for t in tc.split(x, split_size_or_sections=3)] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'split_size_or_sections'"):
        x.split(split_size_or_sections=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'split_size'"):
        tc.split(x, split_size=2)
