"""Autograd semantics: one test per property of the autograd contract.

The gradient *values* of every operator are checked against finite differences in
``test_autograd_gradcheck.py``; this file checks the machinery around them (grad mode, the
graph, hooks, custom Functions, in-place and view semantics, memory), on every device.
"""

from __future__ import annotations

import gc
import re
import threading
import tracemalloc
import types
import weakref
from typing import Any, ClassVar

import numpy as np
import pytest

import tensorcore as tc
from tensorcore.autograd.graph import camel
from tensorcore.ops.schema import OPS
from tensorcore.testing import assert_close, to_numpy
from tensorcore.testing.samples import (
    SAMPLES,
    Sample,
    call_op,
    core_ops,
    inplace_only,
    tensor_inputs,
)

F64 = tc.float64


def rand(*shape: int, device: str = "cpu", dtype: Any = F64, seed: int = 0) -> tc.Tensor:
    """A seeded random leaf that requires grad."""
    g = tc.Generator("cpu").manual_seed(seed)
    return tc.randn(*shape, generator=g, dtype=dtype).to(device).requires_grad_()


def const(values: Any, device: str = "cpu", dtype: Any = F64) -> tc.Tensor:
    return tc.tensor(values, dtype=dtype, device=device)


# ------------------------------------------------------------------ requires_grad and leaves
def test_requires_grad_defaults_to_false(device: str) -> None:
    assert not tc.ones(2, device=device).requires_grad
    assert not tc.tensor([1.0], device=device).requires_grad


@pytest.mark.parametrize("name", [n for n in core_ops() if OPS[n].param("requires_grad") >= 0])
def test_factory_requires_grad_kwarg(device: str, name: str) -> None:
    """Every operator with a ``requires_grad`` argument makes a leaf that requires grad, or
    refuses for a non-floating result."""
    sample = SAMPLES[name](device, F64)[0]
    plain = call_op(name, sample)
    kwargs = {**sample.kwargs, "requires_grad": True}
    if plain.dtype.is_floating_point:
        t = call_op(name, Sample(sample.args, kwargs))
        assert t.requires_grad and t.is_leaf and t.grad_fn is None
    else:
        with pytest.raises(RuntimeError, match=r"(?i)only Tensors of floating point"):
            call_op(name, Sample(sample.args, kwargs))


def test_tensor_and_randn_requires_grad_kwarg(device: str) -> None:
    for t in (
        tc.tensor([1.0, 2.0], device=device, requires_grad=True),
        tc.randn(2, 3, device=device, requires_grad=True),
    ):
        assert t.requires_grad and t.is_leaf


def test_requires_grad_attribute_and_method(device: str) -> None:
    x = tc.ones(2, device=device)
    x.requires_grad = True
    assert x.requires_grad
    y = tc.ones(2, device=device)
    assert y.requires_grad_() is y and y.requires_grad
    y.requires_grad_(False)
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="leaf variables"):
        (x * 2).requires_grad_(False)


@pytest.mark.parametrize("dtype", [tc.int64, tc.int32, tc.uint8, tc.bool])
def test_integer_and_bool_tensors_cannot_require_grad(device: str, dtype: Any) -> None:
    msg = r"(?i)only Tensors of floating point"
    with pytest.raises(RuntimeError, match=msg):
        tc.zeros(2, dtype=dtype, device=device).requires_grad_()
    t = tc.zeros(2, dtype=dtype, device=device)
    with pytest.raises(RuntimeError, match=msg):
        t.requires_grad = True
    with pytest.raises(RuntimeError, match=msg):
        tc.zeros(2, dtype=dtype, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=msg):
        tc.tensor([1, 0], dtype=dtype, device=device, requires_grad=True)
    assert not t.requires_grad


def test_integer_results_do_not_require_grad(device: str) -> None:
    x = rand(2, 3, device=device)
    for r in (x.argmax(), x > 0, x.sort()[1], x.isnan()):
        assert not r.requires_grad and r.grad_fn is None


def test_leaves(device: str) -> None:
    x = rand(3, device=device)
    c = tc.ones(3, device=device)
    assert x.is_leaf and c.is_leaf
    y = x * c
    assert not y.is_leaf and y.requires_grad
    assert (c * c).is_leaf, "a result that does not require grad is a leaf"
    assert not (c * c).requires_grad
    assert y.detach().is_leaf
    with tc.no_grad():
        z = x * 2
    assert z.is_leaf and not z.requires_grad


# ------------------------------------------------------------------ the graph
def test_grad_fn_name_and_next_functions(device: str) -> None:
    a = rand(3, device=device)
    b = rand(3, device=device, seed=1)
    c = const([1.0, 2.0, 3.0], device=device)
    y = a * b
    assert y.grad_fn.name() == "MulBackward0"
    (fa, ia), (fb, ib) = y.grad_fn.next_functions
    assert fa.name() == fb.name() == "AccumulateGrad" and ia == ib == 0
    assert fa.variable is a and fb.variable is b
    z = (y + c).sum()
    assert z.grad_fn.name() == "SumBackward0"
    ((add_fn, _),) = z.grad_fn.next_functions
    assert add_fn.name() == "AddBackward0"
    assert add_fn.next_functions[0][0] is y.grad_fn
    assert add_fn.next_functions[1] == (None, 0), "a constant has no edge"
    # One accumulator per leaf, shared by every use.
    assert (a * 2).grad_fn.next_functions[0][0] is fa
    assert [type(n).__name__ for n in (y.grad_fn, z.grad_fn, fa)] == [
        "MulBackward0", "SumBackward0", "AccumulateGrad"
    ]  # fmt: skip
    w = y.clone()
    w[0] = 5.0
    v = y.clone().addcmul_(a, b)
    assert type(w.grad_fn).__name__ == "CopySlices"
    assert type(v.grad_fn).__name__ == v.grad_fn.name() == "AddcmulBackward0"


def test_multi_output_nodes(device: str) -> None:
    x = rand(2, 4, device=device)
    values, indices = x.sort()
    assert values.grad_fn.name() == "SortBackward0"
    assert not indices.requires_grad
    parts = x.split(2, 1)
    assert all(p.requires_grad for p in parts)


def test_grad_of_several_outputs_of_one_node(device: str) -> None:
    """Two outputs of one node as roots (``Q`` and ``R`` of ``qr``): the node's inputs get
    the sum of both paths, from ``grad`` and from ``backward``."""
    x = rand(3, 3, device=device)
    q, r = tc.linalg.qr(x)
    gq, gr = const(np.ones((3, 3)), device), const(np.full((3, 3), 2.0), device)
    (both,) = tc.autograd.grad([q, r], [x], [gq, gr], retain_graph=True)
    (only_q,) = tc.autograd.grad([q], [x], [gq], retain_graph=True)
    (only_r,) = tc.autograd.grad([r], [x], [gr], retain_graph=True)
    np.testing.assert_allclose(both.cpu().numpy(), (only_q + only_r).cpu().numpy())
    tc.autograd.backward([q, r], [gq, gr])
    np.testing.assert_allclose(x.grad.cpu().numpy(), both.cpu().numpy())


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in core_ops()
        if OPS[n].has_backward and "composite" not in OPS[n].tags and not inplace_only(n)
    ),
)
def test_grad_fn_is_named_after_the_operator(device: str, name: str) -> None:
    """A recorded primitive's node is ``<CamelName>Backward0`` (PyTorch's convention)."""
    sample = SAMPLES[name](device, F64)[0]
    for t in tensor_inputs(sample):
        if t.dtype.is_floating_point or t.dtype.is_complex:
            t.requires_grad_()
    out = call_op(name, sample)
    first = out[0] if isinstance(out, (tuple, list)) else out
    assert first.grad_fn is not None
    # (or the name a declaration gives, PyTorch's ATen one: LinalgVectorNormBackward0, or
    # its name for the overload the arguments select: sum(x, dim) is SumBackward1)
    decl = OPS[name]
    want = decl.node or camel(name) + "Backward0"
    if decl.node_variant is not None:
        params = decl.parsed.params
        args = tuple(
            sample.args[i] if i < len(sample.args) else sample.kwargs.get(p.name, p.default)
            for i, p in enumerate(params)
        )
        want = decl.node_variant(args) or want
    assert first.grad_fn.name() == want
    # as in PyTorch, the node's type carries the name (programs print type(grad_fn).__name__)
    assert type(first.grad_fn).__name__ == want
    assert isinstance(first.grad_fn, tc.autograd.graph.Node)


# ------------------------------------------------------------------ .grad
#: PyTorch's node names where they depend on the overload a call selects or on the operator
#: a composite stands for (as torch 2.13 prints them for these calls).
_OVERLOAD_NODES: list[tuple[str, Any, str]] = [
    ("sum()", lambda x, y, v: x.sum(), "SumBackward0"),
    ("sum(dim)", lambda x, y, v: x.sum(1), "SumBackward1"),
    ("sum(dims, keepdim)", lambda x, y, v: x.sum((0, 1), keepdim=True), "SumBackward1"),
    ("mean(dim)", lambda x, y, v: x.mean(-1), "MeanBackward1"),
    ("prod(dim)", lambda x, y, v: x.prod(0), "ProdBackward1"),
    ("nansum", lambda x, y, v: x.nansum(), "NansumBackward0"),
    ("max()", lambda x, y, v: x.max(), "MaxBackward1"),
    ("max(dim)", lambda x, y, v: x.max(1).values, "MaxBackward0"),
    ("min(dim)", lambda x, y, v: x.min(0)[0], "MinBackward0"),
    ("median(dim)", lambda x, y, v: x.median(1).values, "MedianBackward1"),
    ("median()", lambda x, y, v: x.median(), "MedianBackward0"),
    ("kthvalue", lambda x, y, v: x.kthvalue(1).values, "KthvalueBackward0"),
    ("1 - x", lambda x, y, v: 1 - x, "RsubBackward1"),
    ("x - 1", lambda x, y, v: x - 1, "SubBackward0"),
    ("x ** 2", lambda x, y, v: x**2, "PowBackward0"),
    ("x ** y", lambda x, y, v: x**y, "PowBackward1"),
    ("2 ** x", lambda x, y, v: 2**x, "PowBackward2"),
    ("div(mode)", lambda x, y, v: tc.div(x, y, rounding_mode="floor"), "DivBackward2"),
    ("clamp(tensor)", lambda x, y, v: x.clamp(min=y), "ClampBackward0"),
    ("clamp(number)", lambda x, y, v: x.clamp(0, 1), "ClampBackward1"),
    ("lerp(tensor)", lambda x, y, v: tc.lerp(x, y, y), "LerpBackward1"),
    ("lerp(number)", lambda x, y, v: tc.lerp(x, y, 0.5), "LerpBackward0"),
    (
        "masked_fill(tensor)",
        lambda x, y, v: x.masked_fill(x > 0, tc.tensor(0.0)),
        "MaskedFillBackward1",
    ),
    ("remainder(tensor)", lambda x, y, v: x.remainder(y), "RemainderBackward1"),
    ("squeeze(dim)", lambda x, y, v: x[None].squeeze(0), "SqueezeBackward1"),
    ("squeeze()", lambda x, y, v: x[None].squeeze(), "SqueezeBackward0"),
    ("x @ v", lambda x, y, v: x @ v, "MvBackward0"),
    ("x @ y.T", lambda x, y, v: x @ y.T, "MmBackward0"),
    ("v @ v", lambda x, y, v: v @ v, "DotBackward0"),
    ("batched @", lambda x, y, v: x[None] @ y.T, "UnsafeViewBackward0"),
    ("t()", lambda x, y, v: x.t(), "TBackward0"),
    ("split", lambda x, y, v: x.split(1)[0], "SplitBackward0"),
    ("split(sizes)", lambda x, y, v: x.split([1, 2])[1], "SplitWithSizesBackward0"),
    ("unbind", lambda x, y, v: x.unbind()[0], "UnbindBackward0"),
    ("reshape (copy)", lambda x, y, v: x.t().reshape(-1), "UnsafeViewBackward0"),
    ("reshape (view)", lambda x, y, v: x.reshape(-1), "ViewBackward0"),
    ("addcmul", lambda x, y, v: x.addcmul(x, y), "AddcmulBackward0"),
    ("square", lambda x, y, v: x.square(), "PowBackward0"),
    ("trace", lambda x, y, v: x[:, :3].trace(), "TraceBackward0"),
    ("outer", lambda x, y, v: tc.outer(v, v), "MulBackward0"),
    ("log1p", lambda x, y, v: x.abs().log1p(), "Log1PBackward0"),
    ("deg2rad", lambda x, y, v: x.deg2rad(), "Deg2RadBackward0"),
    (
        "index_add",
        lambda x, y, v: x.index_add(0, tc.tensor([0], device=x.device), y[:1]),
        "IndexAddBackward0",
    ),
    ("F.threshold", lambda x, y, v: tc.nn.functional.threshold(x, 0.1, 0.0), "ThresholdBackward0"),
    ("F.hardshrink", lambda x, y, v: tc.nn.functional.hardshrink(x), "HardshrinkBackward0"),
    ("F.softshrink", lambda x, y, v: tc.nn.functional.softshrink(x), "SoftshrinkBackward0"),
    (
        "F.pairwise_distance",
        lambda x, y, v: tc.nn.functional.pairwise_distance(x, y),
        "NormBackward1",
    ),
    (
        "F.pixel_shuffle",
        lambda x, y, v: tc.nn.functional.pixel_shuffle(x.reshape(1, 4, 3, 1), 2),
        "PixelShuffleBackward0",
    ),
    (
        "F.unfold",
        lambda x, y, v: tc.nn.functional.unfold(x.reshape(1, 1, 3, 4), 2),
        "Im2ColBackward0",
    ),
    (
        "F.adaptive_avg_pool2d",
        lambda x, y, v: tc.nn.functional.adaptive_avg_pool2d(x[None, None], (3, 2)),
        "AdaptiveAvgPool2DBackward0",
    ),
    (
        "F.adaptive_avg_pool2d(1)",
        lambda x, y, v: tc.nn.functional.adaptive_avg_pool2d(x[None, None], 1),
        "MeanBackward1",
    ),
    (
        "LSTM output",
        lambda x, y, v: tc.nn.LSTM(4, 2).double().to(x.device)(x[:, None])[0],
        "MkldnnRnnLayerBackward0",
    ),
    (
        "GRU output",
        lambda x, y, v: tc.nn.GRU(4, 2).double().to(x.device)(x[:, None])[0],
        "StackBackward0",
    ),
    (
        "LSTMCell h",
        lambda x, y, v: tc.nn.LSTMCell(4, 2).double().to(x.device)(x)[0],
        "MulBackward0",
    ),
    ("GRUCell", lambda x, y, v: tc.nn.GRUCell(4, 2).double().to(x.device)(x), "AddBackward0"),
    (
        "F.adaptive_max_pool2d",
        lambda x, y, v: tc.nn.functional.adaptive_max_pool2d(x[None, None], 2),
        "AdaptiveMaxPool2DBackward0",
    ),
]


#: PyTorch's CUDA build names these after its cuDNN and fused-cell kernels.
_ON_CUDA = {
    "LSTM output": "CudnnRnnBackward0",
    "GRU output": "CudnnRnnBackward0",
    "LSTMCell h": "ThnnFusedLstmCellBackward0",
    "GRUCell": "ThnnFusedGruCellBackward0",
}


@pytest.mark.parametrize(
    ("call", "fn", "want"), _OVERLOAD_NODES, ids=[c[0] for c in _OVERLOAD_NODES]
)
def test_node_names_follow_the_overload_and_the_composite(
    device: str, call: str, fn: Any, want: str
) -> None:
    """Programs print ``grad_fn``: its name is PyTorch's for the overload the arguments select
    (``node_when`` in the declarations) and for the operator a composite stands for."""
    x = tc.rand(3, 4, dtype=tc.float64, device=device).add(0.5).requires_grad_()
    y = tc.rand(3, 4, dtype=tc.float64, device=device).add(0.5).requires_grad_()
    v = tc.rand(4, dtype=tc.float64, device=device).requires_grad_()
    out = fn(x, y, v)
    want = _ON_CUDA.get(call, want) if x.device.type == "cuda" else want
    assert type(out.grad_fn).__name__ == want
    assert out.grad_fn.name() == want


def test_a_bad_node_when_entry_is_refused_at_declaration() -> None:
    from tensorcore.ops.schema._declare import OpDecl

    with pytest.raises(ValueError, match="node_when"):
        OpDecl("f(Tensor self, int? dim=None) -> Tensor", frozenset(), "", node_when="nope:X")
    with pytest.raises(ValueError, match="node_when"):
        OpDecl("f(Tensor self, int? dim=None) -> Tensor", frozenset(), "", node_when="dim=odd:X")


def test_grad_accumulates_and_can_be_reset(device: str) -> None:
    x = rand(3, device=device)
    assert x.grad is None
    (x * 2).sum().backward()
    assert_close(x.grad, [2.0, 2.0, 2.0])
    (x * 3).sum().backward()
    assert_close(x.grad, [5.0, 5.0, 5.0])
    x.grad = None
    assert x.grad is None
    (x * x).sum().backward()
    assert_close(x.grad, 2 * x.detach())
    x.grad = tc.zeros(3, dtype=F64, device=device)
    (x * 4).sum().backward()
    assert_close(x.grad, [4.0, 4.0, 4.0])
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = tc.zeros(2, dtype=F64, device=device)


def test_grad_of_a_non_leaf_is_none_without_retain_grad(device: str) -> None:
    x = rand(3, device=device)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="that is not a leaf Tensor is being accessed"):
        assert y.grad is None  # (PyTorch warns that it will never be filled)
    assert not y.retains_grad


def test_grads_of_distinct_leaves_do_not_alias(device: str) -> None:
    a, b = rand(3, device=device), rand(3, device=device, seed=1)
    (a + b).sum().backward()
    assert a.grad.untyped_storage() is not b.grad.untyped_storage()
    a.grad.add_(1)
    assert_close(b.grad, [1.0, 1.0, 1.0])


# ------------------------------------------------------------------ backward and grad
def test_backward_requires_a_gradient_for_non_scalars(device: str) -> None:
    x = rand(3, device=device)
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        (x * 2).backward()
    (x * 2).backward(const([1.0, 2.0, 3.0], device=device))
    assert_close(x.grad, [2.0, 4.0, 6.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(const([1.0, 2.0], device=device))


def test_backward_retain_graph(device: str) -> None:
    x = rand(3, device=device)
    loss = (x.exp() * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        loss.backward()
    x.grad = None
    loss = (x.exp() * x).sum()
    loss.backward(retain_graph=True)
    first = x.grad.clone()
    loss.backward()
    assert_close(x.grad, 2 * first)


def test_backward_create_graph(device: str) -> None:
    x = rand(3, device=device)
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and g.grad_fn is not None
    assert_close(g, 3 * x.detach() ** 2)
    x.grad = None
    g.sum().backward()
    assert_close(x.grad, 6 * x.detach())


def test_backward_inputs(device: str) -> None:
    x, y = rand(3, device=device), rand(1, device=device, seed=1)
    (x * y).sum().backward(inputs=[y])
    assert x.grad is None
    assert_close(y.grad, x.detach().sum().reshape(1))
    tc.autograd.backward((x * y).sum(), inputs=x)
    assert_close(x.grad, y.detach().expand(3))
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * y).sum().backward(inputs=[])


def test_autograd_backward_function(device: str) -> None:
    x = rand(3, device=device)
    tc.autograd.backward([(x * 2).sum(), x * 3], [None, const([1.0, 0.0, 2.0], device=device)])
    assert_close(x.grad, [5.0, 2.0, 8.0])
    tc.autograd.backward(x * 1, grad_tensors=const([1.0, 1.0, 1.0], device=device))
    assert_close(x.grad, [6.0, 3.0, 9.0])


def test_autograd_grad(device: str) -> None:
    x, y = rand(3, device=device), rand(3, device=device, seed=1)
    z = x * y
    gx, gy = tc.autograd.grad(z, [x, y], grad_outputs=const([1.0, 2.0, 3.0], device=device))
    w = const([1.0, 2.0, 3.0], device=device)
    assert_close(gx, y.detach() * w)
    assert_close(gy, x.detach() * w)
    assert x.grad is None and y.grad is None, "autograd.grad does not touch .grad"
    with pytest.raises(RuntimeError, match="retain_graph"):
        tc.autograd.grad(z, [x], grad_outputs=w)
    loss = (x * x).sum()
    (g1,) = tc.autograd.grad(loss, x, retain_graph=True)
    (g2,) = tc.autograd.grad(loss, x)
    assert_close(g1, g2)
    assert not g1.requires_grad


def test_autograd_grad_takes_any_iterable(device: str) -> None:
    # PyTorch turns outputs, inputs and grad_outputs into tuples: dict.values() and
    # generators work (MAML loops write grad(loss, fast.values())); no inputs is refused.
    x = rand(3, device=device)
    params = {"x": x}
    loss = (x * x).sum()
    (g,) = tc.autograd.grad(loss, params.values(), retain_graph=True)
    assert_close(g, 2 * x.detach())
    (g,) = tc.autograd.grad(
        (o for o in [loss]), iter([x]), grad_outputs=iter([const(2.0, device=device)]),
        retain_graph=True,
    )  # fmt: skip
    assert_close(g, 4 * x.detach())
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty"):
        tc.autograd.grad(loss, [], retain_graph=True)
    with pytest.raises(TypeError, match="inputs"):
        tc.autograd.grad(loss, 3)
    loss.backward(inputs=params.values())
    assert_close(x.grad, 2 * x.detach())


def test_autograd_grad_several_outputs(device: str) -> None:
    x = rand(3, device=device)
    (g,) = tc.autograd.grad([(x * 2).sum(), (x * x).sum()], [x])
    assert_close(g, 2 + 2 * x.detach())


def test_autograd_grad_several_outputs_of_one_node(device: str) -> None:
    # Roots that are outputs of one node: its inputs are reached once, not once per root.
    a = rand(3, 3, device=device)
    gq, gr = rand(3, 3, device=device, seed=1), rand(3, 3, device=device, seed=2)
    q, r = tc.linalg.qr(a)
    (both,) = tc.autograd.grad([q, r], [a], [gq, gr])
    (from_q,) = tc.autograd.grad(tc.linalg.qr(a)[0], [a], gq)
    (from_r,) = tc.autograd.grad(tc.linalg.qr(a)[1], [a], gr)
    assert_close(both, from_q + from_r)
    q, r = tc.linalg.qr(a)
    tc.autograd.backward([q, r], [gq, gr])
    assert_close(a.grad, from_q + from_r)


def test_autograd_grad_allow_unused(device: str) -> None:
    x, unused = rand(3, device=device), rand(2, device=device, seed=1)
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        tc.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = tc.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert_close(gx, [2.0, 2.0, 2.0])
    assert gu is None
    gx, gu = tc.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert_close(gu, [0.0, 0.0])


def test_autograd_grad_of_a_tensor_that_does_not_require_grad(device: str) -> None:
    x = rand(3, device=device)
    with pytest.raises(RuntimeError, match="does not require grad"):
        tc.autograd.grad((x * 2).sum(), [tc.ones(3, device=device)])
    with pytest.raises(RuntimeError, match="does not require grad"):
        tc.ones(1, device=device).sum().backward()


# ------------------------------------------------------------------ higher order
def test_grad_of_grad(device: str) -> None:
    x = const([0.5, -1.5, 2.0], device=device).requires_grad_()
    (g,) = tc.autograd.grad((x**3).sum(), x, create_graph=True)
    (gg,) = tc.autograd.grad(g.sum(), x, create_graph=True)
    (ggg,) = tc.autograd.grad(gg.sum(), x)
    assert_close(g, 3 * x.detach() ** 2)
    assert_close(gg, 6 * x.detach())
    assert_close(ggg, [6.0, 6.0, 6.0])


def test_hessian_vector_product(device: str) -> None:
    """f(x) = sum(sin(x_i) * x_i^2) + x0 * x1 * x2; Hv against the analytic Hessian."""
    xs = [0.3, -0.7, 1.1]
    x = const(xs, device=device).requires_grad_()
    v = const([1.0, -2.0, 0.5], device=device)
    f = (x.sin() * x * x).sum() + x[0] * x[1] * x[2]
    (g,) = tc.autograd.grad(f, x, create_graph=True)
    (hv,) = tc.autograd.grad(g, x, grad_outputs=v)
    import math

    def d2(t: float) -> float:  # second derivative of sin(t) * t^2
        return 2 * math.sin(t) + 4 * t * math.cos(t) - t * t * math.sin(t)

    h = [[d2(xs[0]), xs[2], xs[1]], [xs[2], d2(xs[1]), xs[0]], [xs[1], xs[0], d2(xs[2])]]
    vs = [1.0, -2.0, 0.5]
    expected = [sum(h[i][j] * vs[j] for j in range(3)) for i in range(3)]
    assert_close(hv, expected, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ grad mode
def test_no_grad_enable_grad_context_managers(device: str) -> None:
    x = rand(2, device=device)
    assert tc.is_grad_enabled()
    with tc.no_grad():
        assert not tc.is_grad_enabled()
        assert not (x * 2).requires_grad
        with tc.enable_grad():
            assert tc.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not tc.is_grad_enabled()
    assert tc.is_grad_enabled()


def test_grad_mode_restored_after_an_exception() -> None:
    with pytest.raises(ValueError), tc.no_grad():
        raise ValueError
    assert tc.is_grad_enabled()


def test_grad_modes_as_decorators(device: str) -> None:
    x = rand(2, device=device)

    @tc.no_grad()
    def f(t: tc.Tensor) -> tc.Tensor:
        """Doc."""
        assert not tc.is_grad_enabled()
        return t * 2

    @tc.enable_grad()
    def g(t: tc.Tensor) -> tc.Tensor:
        return t * 2

    @tc.set_grad_enabled(False)
    def h(t: tc.Tensor) -> tc.Tensor:
        return t * 2

    @tc.inference_mode()
    def k(t: tc.Tensor) -> tc.Tensor:
        return t * 2

    assert tc.is_grad_enabled(), "decorating must not change the grad mode"
    assert f.__name__ == "f" and f.__doc__ == "Doc."
    assert not f(x).requires_grad
    assert not h(x).requires_grad
    assert not k(x).requires_grad
    with tc.no_grad():
        assert g(x).requires_grad
    assert tc.is_grad_enabled()


def test_set_grad_enabled_as_a_function_and_context_manager(device: str) -> None:
    x = rand(2, device=device)
    try:
        tc.set_grad_enabled(False)
        assert not tc.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        tc.set_grad_enabled(True)
    with tc.set_grad_enabled(False):
        assert not (x * 2).requires_grad
        with tc.set_grad_enabled(True):
            assert (x * 2).requires_grad
    assert tc.is_grad_enabled()


def test_inference_mode(device: str) -> None:
    x = rand(2, device=device)
    with tc.inference_mode():
        assert not tc.is_grad_enabled()
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    with tc.inference_mode(False):
        assert tc.is_grad_enabled()
        assert (x * 2).requires_grad
    # PyTorch's InferenceMode(False) sets grad mode on, even inside no_grad.
    with tc.no_grad(), tc.inference_mode(False):
        assert tc.is_grad_enabled() and not tc.is_inference_mode_enabled()
    with tc.inference_mode():
        assert tc.is_inference_mode_enabled()
        with tc.inference_mode(False):
            assert tc.is_grad_enabled() and not tc.is_inference_mode_enabled()
        assert not tc.is_grad_enabled() and tc.is_inference_mode_enabled()
    assert tc.is_grad_enabled() and not tc.is_inference_mode_enabled()


def test_is_inference(device: str) -> None:
    """PyTorch's inference tensors: made inside ``inference_mode`` (``no_grad`` inside it
    too), or views of those; views of ordinary tensors and in-place writes stay ordinary."""
    x = rand(3, device=device)
    with tc.inference_mode():
        made = [tc.ones(3, device=device), x + 1, x.clone(), rand(2, device=device)]
        with tc.no_grad():
            made.append(tc.zeros(2, device=device))
        kept = [x.view(3), x.detach(), x[1:]]
        x.add_(1)
        with tc.inference_mode(False):
            kept.append(tc.ones(2, device=device))
    assert all(t.is_inference() for t in made)
    assert not any(t.is_inference() for t in kept) and not x.is_inference()
    a = made[0]
    assert a.view(3).is_inference() and a[1:].is_inference() and a.detach().is_inference()
    assert not (a + 1).is_inference() and not a.clone().is_inference()
    with tc.no_grad():
        assert not tc.ones(2, device=device).is_inference()

    @tc.inference_mode()
    def f(t: tc.Tensor) -> tc.Tensor:
        return t * 2

    assert f(x).is_inference() and not (x * 2).is_inference()
    # (a block left by an exception closes too: later tensors are ordinary)
    with pytest.raises(ValueError), tc.inference_mode():
        raise ValueError
    assert not tc.ones(1, device=device).is_inference()


def test_anomaly_mode_raises_at_the_node_that_returns_nan(device: str) -> None:
    x = tc.zeros(2, device=device, requires_grad=True)
    assert not tc.is_anomaly_enabled() and tc.is_anomaly_check_nan_enabled()
    (x / x).sum().backward()  # NaN gradients pass unnoticed outside anomaly mode
    assert np.isnan(to_numpy(x.grad)).all()
    with tc.autograd.set_detect_anomaly(True):
        assert tc.is_anomaly_enabled()
        nan = r"^Function 'DivBackward0' returned nan values in its 1th output\.$"
        with pytest.raises(RuntimeError, match=nan):
            (x / x).sum().backward()
        (x * 2).sum().backward()  # no NaN: runs as usual
    assert not tc.is_anomaly_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = tc.autograd.detect_anomaly(check_nan=False)
    with mode:
        assert tc.is_anomaly_enabled() and not tc.is_anomaly_check_nan_enabled()
        (x / x).sum().backward()
    assert not tc.is_anomaly_enabled() and tc.is_anomaly_check_nan_enabled()
    tc.autograd.set_detect_anomaly(True)  # as a plain call
    try:
        assert tc.is_anomaly_enabled()
    finally:
        tc.autograd.set_detect_anomaly(False)


def test_grad_mode_is_thread_local() -> None:
    x = rand(2)
    seen: list[Any] = []

    def worker() -> None:
        seen.append(tc.is_grad_enabled())
        seen.append((x * 2).requires_grad)

    with tc.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not tc.is_grad_enabled()
    assert seen == [True, True]

    entered, checked = threading.Event(), threading.Event()
    inner: list[Any] = []

    def disabler() -> None:
        with tc.no_grad():
            entered.set()
            checked.wait(10)
            inner.append(tc.is_grad_enabled())

    t = threading.Thread(target=disabler)
    t.start()
    assert entered.wait(10)
    try:
        assert tc.is_grad_enabled(), "another thread's no_grad leaked into this one"
        assert (x * 2).requires_grad
    finally:
        checked.set()
        t.join()
    assert inner == [False]


# ------------------------------------------------------------------ detach, retain_grad, hooks
def test_detach_shares_storage(device: str) -> None:
    x = rand(3, device=device)
    d = x.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert d.untyped_storage() is x.untyped_storage()
    with tc.no_grad():
        x[0] = 5.0
    assert d[0].item() == 5.0
    d[1] = 7.0
    assert x[1].item() == 7.0


def test_detach_shares_the_version_counter(device: str) -> None:
    x = rand(3, device=device)
    y = x.exp()
    y.detach().zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


class _FailsInBackward(tc.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        return x.clone()

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
        raise RuntimeError("Some error in backward")


def test_errors_raised_while_the_graph_runs_keep_their_message(device: str) -> None:
    # As in PyTorch: the backward pass's errors come from a node, a hook or a Function, and
    # backward()/grad() prefix them with no name of their own.
    x = rand(3, device=device)
    for run in (lambda y: y.sum().backward(), lambda y: tc.autograd.grad(y.sum(), x)):
        with pytest.raises(RuntimeError, match=r"^Some error in backward$"):
            run(_FailsInBackward.apply(x))
        y = x.exp()
        y.mul_(2)
        with pytest.raises(RuntimeError, match=r"^one of the variables needed"):
            run(y)
    y = x * 2
    y.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second"):
        y.sum().backward()
    # an argument's error still names the call
    with pytest.raises(RuntimeError, match=r"^grad\(\): One of the differentiated Tensors"):
        tc.autograd.grad((x * 2).sum(), rand(2, device=device).detach())
    # an unused input is named by its index, as PyTorch does
    unused = rand(2, device=device, seed=1)
    with pytest.raises(RuntimeError, match=r"Tensor at index 1 appears to not have been used"):
        tc.autograd.grad((x * 2).sum(), [x, unused])


def test_detach_in_place(device: str) -> None:
    x = rand(3, device=device)
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    (x * y).sum().backward()
    assert_close(x.grad, 2 * x.detach())


def test_retain_grad(device: str) -> None:
    x = rand(3, device=device)
    y = x * 3
    y.retain_grad()
    assert y.retains_grad and not x.retains_grad
    (y * y).sum().backward(retain_graph=True)
    assert_close(y.grad, 2 * y.detach())
    assert_close(x.grad, 18 * x.detach())
    (y * y).sum().backward()
    assert_close(y.grad, 4 * y.detach(), msg=lambda m: f"retained gradients accumulate: {m}")
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        tc.ones(1, device=device).retain_grad()


def test_register_hook_on_a_leaf(device: str) -> None:
    x = rand(3, device=device)
    seen: list[tc.Tensor] = []
    h1 = x.register_hook(lambda g: seen.append(g.clone()))
    h2 = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert_close(seen[0], [2.0, 2.0, 2.0])
    assert_close(x.grad, [20.0, 20.0, 20.0])
    h2.remove()
    h1.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert_close(x.grad, [2.0, 2.0, 2.0])
    assert len(seen) == 1
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tc.ones(1, device=device).register_hook(lambda g: g)


def test_register_hook_on_a_non_leaf(device: str) -> None:
    x = rand(3, device=device)
    y = x * 2
    handle = y.register_hook(lambda g: g * const([1.0, 0.0, -1.0], device=device))
    (y * 3).sum().backward()
    assert_close(x.grad, [6.0, 0.0, -6.0])
    handle.remove()
    x.grad = None
    y = x * 2
    y.register_hook(lambda g: None)  # returning None keeps the gradient
    (y * 3).sum().backward()
    assert_close(x.grad, [6.0, 6.0, 6.0])


def test_node_hooks_and_pre_hooks(device: str) -> None:
    x = rand(3, device=device)
    y = x * 2
    seen: list[Any] = []
    order: list[str] = []
    post = y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, *gi[1:]))  # replaces grad_inputs
    y.register_hook(lambda g: order.append("tensor") or g + 1)  # tensor hooks run first
    pre = y.grad_fn.register_prehook(lambda go: order.append("node") or (go[0] * 3,))
    (y * 1).sum().backward()
    assert order == ["tensor", "node"]
    ((gi, go),) = seen
    assert isinstance(gi, tuple) and isinstance(go, tuple)
    assert_close(go[0], [6.0, 6.0, 6.0])  # (1 + 1) * 3
    assert_close(gi[0], [12.0, 12.0, 12.0])
    assert_close(x.grad, [120.0, 120.0, 120.0])
    post.remove()
    pre.remove()
    pre.remove()  # a second remove does nothing
    x.grad = None
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (*gi, gi[0]))
    with pytest.raises(RuntimeError, match="hook of MulBackward0 returned an incorrect number"):
        y.sum().backward()


# ------------------------------------------------------------------ custom Functions
class MulConst(tc.autograd.Function):
    """``a * b * k`` with save_for_backward and needs_input_grad."""

    seen_needs: ClassVar[tuple[bool, ...]] = ()

    @staticmethod
    def forward(ctx: Any, a: tc.Tensor, b: tc.Tensor, k: float) -> tc.Tensor:
        MulConst.seen_needs = ctx.needs_input_grad
        ctx.save_for_backward(a, b)
        ctx.k = k
        assert not tc.is_grad_enabled(), "forward runs without recording"
        return a * b * k

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> Any:
        a, b = ctx.saved_tensors
        ga = g * b * ctx.k if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.k if ctx.needs_input_grad[1] else None
        return ga, gb, None


def test_function_save_for_backward_and_needs_input_grad(device: str) -> None:
    a, b = rand(3, device=device), rand(3, device=device, seed=1).detach()
    MulConst.seen_needs = ()  # set by this call's forward, not left over from another device
    out = MulConst.apply(a, b, 2.0)
    assert MulConst.seen_needs == (True, False, False)
    assert out.requires_grad and out.grad_fn.name() == "MulConstBackward"
    assert type(out.grad_fn).__name__ == "MulConstBackward"
    assert out.grad_fn.next_functions[0][0].variable is a
    out.sum().backward()
    assert_close(a.grad, 2 * b)
    b.requires_grad_()
    assert tc.autograd.gradcheck(lambda p, q: MulConst.apply(p, q, 3.0), (a, b))
    assert MulConst.seen_needs == (True, True, False)


def test_function_without_grad_records_nothing(device: str) -> None:
    a = rand(3, device=device)
    assert not MulConst.apply(a.detach(), a.detach(), 2.0).requires_grad
    with tc.no_grad():
        assert not MulConst.apply(a, a, 2.0).requires_grad


def test_function_saved_tensor_modified_in_place(device: str) -> None:
    a = rand(3, device=device)
    b = a * 1
    out = MulConst.apply(b, b, 1.0)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


class AddOneInPlace(tc.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> tc.Tensor:
        return g


def test_function_mark_dirty(device: str) -> None:
    a = rand(3, device=device)
    b = a * 2
    before = b._version
    out = AddOneInPlace.apply(b)
    assert out is b, "an in-place Function returns its (modified) input"
    assert b._version > before
    assert b.grad_fn.name() == "AddOneInPlaceBackward"
    assert_close(b, 2 * a.detach() + 1)
    (b * b).sum().backward()
    assert_close(a.grad, 4 * (2 * a.detach() + 1))


class SortWithIndex(tc.autograd.Function):
    """``x.sort()`` with non-differentiable indices; backward appends the indices' gradient
    to the list passed to ``apply`` (state per call: a test runs once per device)."""

    @staticmethod
    def forward(ctx: Any, x: tc.Tensor, received: list[Any]) -> tuple[tc.Tensor, tc.Tensor]:
        values, indices = x.sort()
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.received = received
        return values, indices

    @staticmethod
    def backward(ctx: Any, g_values: tc.Tensor, g_indices: tc.Tensor) -> Any:
        ctx.received.append(g_indices)
        (indices,) = ctx.saved_tensors
        return tc.zeros_like(g_values).scatter(0, indices, g_values), None


def test_function_mark_non_differentiable(device: str) -> None:
    x = const([3.0, 1.0, 2.0], device=device).requires_grad_()
    received: list[Any] = []
    values, indices = SortWithIndex.apply(x, received)
    assert values.requires_grad and not indices.requires_grad
    (values * const([1.0, 2.0, 3.0], device=device)).sum().backward()
    assert_close(x.grad, [3.0, 1.0, 2.0])
    # PyTorch's contract: backward still gets a gradient for it, a zero tensor.
    (g_idx,) = received
    assert g_idx is not None and g_idx.shape == indices.shape
    assert not bool(g_idx.bool().any())


class WrongMul(tc.autograd.Function):
    """``a * b`` whose gradient for ``b`` is wrong, most of all at element 2."""

    @staticmethod
    def forward(ctx: Any, a: tc.Tensor, b: tc.Tensor) -> tc.Tensor:
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> Any:
        a, b = ctx.saved_tensors
        scale = tc.tensor([1.0, 1.01, 1.5, 1.0], dtype=g.dtype, device=g.device)
        return g * b, g * a * scale


class AddBias(tc.autograd.Function):
    """``x + bias`` whose backward returns the full gradient for both, as Megatron's fused
    bias-GeLU does: the engine sums the bias's down to its shape."""

    @staticmethod
    def forward(ctx: Any, x: tc.Tensor, bias: tc.Tensor) -> tc.Tensor:
        return x + bias

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> Any:
        return g, g


@pytest.mark.parametrize("bias_shape", [(3,), (1, 3), (2, 1), ()])
def test_function_gradient_of_a_broadcast_shape_is_summed_to_the_input(
    device: str, bias_shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(0)
    x = tc.tensor(rng.normal(size=(2, 3)), device=device, requires_grad=True)
    b = tc.tensor(rng.normal(size=bias_shape), device=device, requires_grad=True)
    g = rng.normal(size=(2, 3))
    AddBias.apply(x, b).backward(tc.tensor(g, device=device))
    # the inverse of broadcasting, in NumPy: sum the leading dims, then those of size 1
    lead = g.ndim - len(bias_shape)
    want = g.sum(tuple(range(lead)))
    want = want.sum(tuple(i for i, s in enumerate(bias_shape) if s == 1), keepdims=True)
    assert b.grad is not None and b.grad.shape == bias_shape
    assert_close(b.grad, want.reshape(bias_shape), rtol=1e-12, atol=1e-12)
    assert_close(x.grad, g, rtol=0, atol=0)


def test_function_gradient_of_an_incompatible_shape_is_refused(device: str) -> None:
    class Bad(AddBias):
        @staticmethod
        def backward(ctx: Any, g: tc.Tensor) -> Any:
            return g, g.sum()  # (3,) does not broadcast to (): PyTorch refuses it too

    x = tc.ones(2, 3, device=device, requires_grad=True)
    b = tc.ones(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 1 - got \[\] but expected "
                       r"shape compatible with \[3\]"):  # fmt: skip
        Bad.apply(x, b).sum().backward()


def test_rule_gradient_of_an_incompatible_shape_is_named(device: str) -> None:
    # A derivative rule (the core's or a plugin's) that returns a gradient of the wrong shape
    # is reported with the node's name, as PyTorch's engine does, instead of being summed into
    # a wrong gradient; a gradient of the broadcast shape is summed down as before.
    x = tc.ones(3, device=device, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    ent = node.ctx
    node.ctx = types.SimpleNamespace(
        ctx_cls=ent.ctx_cls, rule=types.SimpleNamespace(fn=lambda c, g: (g[:2],))
    )
    msg = r"Function ExpBackward0 returned an invalid gradient at index 0 - got \[2\] but expected "
    with pytest.raises(RuntimeError, match=msg + r"shape compatible with \[3\]"):
        y.backward(tc.ones(3, device=device))
    x2 = tc.ones(3, device=device, requires_grad=True)
    y2 = x2.exp()
    y2.grad_fn.ctx = types.SimpleNamespace(
        ctx_cls=ent.ctx_cls, rule=types.SimpleNamespace(fn=lambda c, g: (g.expand(2, 3),))
    )
    y2.backward(tc.ones(3, device=device))
    assert x2.grad.tolist() == [2.0, 2.0, 2.0]


def test_gradcheck_reports_the_worst_mismatch(device: str) -> None:
    a = const([0.5, -1.0, 4.0, 0.25], device=device).requires_grad_()
    b = const([1.0, 2.0, 3.0, 4.0], device=device).requires_grad_()
    with pytest.raises(tc.autograd.GradcheckError) as info:
        tc.autograd.gradcheck(WrongMul.apply, (a, b))
    msg = str(info.value)
    assert "output 0" in msg and "input 1" in msg
    assert "output element 2" in msg and "input element (2,)" in msg
    m = re.search(r"numerical ([-\d.e]+), analytical ([-\d.e]+)", msg)
    assert m is not None, msg
    assert float(m.group(1)) == pytest.approx(4.0, rel=1e-6)
    assert float(m.group(2)) == pytest.approx(6.0, rel=1e-12)
    assert tc.autograd.gradcheck(WrongMul.apply, (a, b), raise_exception=False) is False
    assert tc.autograd.gradcheck(WrongMul.apply, (a, b.detach()))


class NanGrad(tc.autograd.Function):
    """``2 * x`` whose backward gives NaN (a 0 / 0 in a rule)."""

    @staticmethod
    def forward(ctx: Any, x: tc.Tensor) -> tc.Tensor:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: tc.Tensor) -> Any:
        return g * float("nan")


def test_gradcheck_fails_a_nan_gradient(device: str) -> None:
    # (as PyTorch's allclose: a NaN is no match, where |a - n| > tol alone was never true)
    x = const([0.5, -1.0], device=device).requires_grad_()
    with pytest.raises(tc.autograd.GradcheckError, match=r"numerical 2\.0\d*, analytical nan"):
        tc.autograd.gradcheck(NanGrad.apply, (x,))
    with pytest.raises(tc.autograd.GradcheckError):
        tc.autograd.gradgradcheck(lambda v: NanGrad.apply(v) * v, (x,))


# ------------------------------------------------------------------ in-place semantics
def test_inplace_on_a_leaf_that_requires_grad(device: str) -> None:
    x = rand(3, device=device)
    msg = re.escape("a leaf Variable that requires grad is being used in an in-place operation.")
    with pytest.raises(RuntimeError, match=msg):
        x.mul_(2)
    with pytest.raises(RuntimeError, match=msg):
        x.copy_(tc.ones(3, dtype=F64, device=device))
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0].mul_(2)
    with tc.no_grad():
        x.mul_(2)  # what optimizers do
    assert x.is_leaf and x.requires_grad


def test_saved_tensor_modified_in_place_raises_at_backward(device: str) -> None:
    x = rand(3, device=device)
    y = x * 1
    z = y.sin()  # saves y
    y.add_(1)  # allowed here ...
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()  # ... but fails here
    # A result saved by its own node is checked too.
    w = x.exp()
    w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


def test_inplace_on_a_tensor_only_used_for_its_shape(device: str) -> None:
    """View and reduction rules keep only the input's shape: modifying it later is fine."""
    x = rand(3, 4, device=device)
    y = x * 1
    row = y[0].exp()
    total = y.sum()
    y.add_(1)
    (row.sum() + total).backward()
    expected = tc.ones(3, 4, dtype=F64, device=device)
    expected[0] += x.detach()[0].exp()
    assert_close(x.grad, expected)


def _mutate(t: tc.Tensor) -> None:
    t.add_(1)


def test_detect_mutation_raises_at_the_mutating_line(device: str) -> None:
    x = rand(3, device=device)
    with tc.autograd.detect_mutation():
        y = x * 1
        z = y.sin()
        with pytest.raises(RuntimeError, match="detect_mutation") as info:
            _mutate(y)
        assert "SinBackward0" in str(info.value)
        assert any(f.name == "_mutate" for f in info.traceback), "raised at the mutation"
        e = x.exp()  # saves its own output
        with pytest.raises(RuntimeError, match="ExpBackward0"):
            e.mul_(2)
        w = x * 1
        w.add_(1)  # nothing saved w: no error
    del z
    y = x * 1
    z = y.sin()
    _mutate(y)  # without the mode, the mutation itself passes
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_a_non_leaf(device: str) -> None:
    x = rand(2, 3, device=device)
    y = x.sin()
    y.sin_()  # needs the old value of y: saved before it is overwritten
    y.mul_(2)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    xd = x.detach()
    assert_close(x.grad, 2 * xd.sin().cos() * xd.cos())


def test_inplace_through_views_matches_the_analytic_gradient() -> None:
    a = tc.randn(3, 4, dtype=tc.float64, requires_grad=True)
    b = a.clone()
    b[1] = 0
    b[:, 0].mul_(3)
    assert b.grad_fn.name() == "CopySlices"
    mask = [[3.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 1.0, 1.0, 1.0]]
    assert_close(b, a.detach() * const(mask))
    b.sum().backward()
    assert_close(a.grad, mask)


def test_inplace_through_views_with_an_upstream_gradient(device: str) -> None:
    a = rand(3, 4, device=device)
    b = a.clone()
    b[1] = 0
    b[:, 0].mul_(3)
    mask = const([[3.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 1.0, 1.0, 1.0]], device)
    w = rand(3, 4, device=device, seed=5).detach()
    (b * w).sum().backward()
    assert_close(a.grad, w * mask)


def test_inplace_on_transposed_selected_and_sliced_views(device: str) -> None:
    a = rand(3, 4, device=device)
    s = rand(2, device=device, seed=1)
    b = a * 1
    b.t()[0].mul_(2)  # column 0, through transpose + select
    b.select(0, 2).mul_(-1)  # row 2
    b.narrow(1, 1, 2)[0].mul_(s)  # b[0, 1:3] *= s
    b[:, 3:4].add_(s.sum())  # slice; the added value's gradient is the slice's size
    mask = tc.ones(3, 4, dtype=F64, device=device)
    mask[:, 0] *= 2
    mask[2] *= -1
    mask[0, 1:3] *= s.detach()
    w = rand(3, 4, device=device, seed=2).detach()
    (b * w).sum().backward()
    assert_close(a.grad, w * mask)
    gs = w[0, 1:3] * (a.detach()[0, 1:3]) + w[:, 3].sum()
    assert_close(s.grad, gs)


def test_gradients_of_views_flow_to_the_base(device: str) -> None:
    a = rand(3, 4, device=device)
    b = a * 1
    v = b[1:, ::2]  # slices with a step
    t = b.t()
    e = b[0].expand(2, 4)
    w1, w2, w3 = (rand(*x.shape, device=device, seed=i).detach() for i, x in enumerate((v, t, e)))
    ((v * w1).sum() + (t * w2).sum() + (e * w3).sum()).backward()
    expected = w2.t().clone()
    expected[1:, ::2] += w1
    expected[0] += w3.sum(0)
    assert_close(a.grad, expected)


def test_view_modified_in_place_backward_from_the_view(device: str) -> None:
    a = rand(3, 4, device=device)
    b = a * 1
    v = b[0]
    v.mul_(2)
    assert v.grad_fn is not None and b.grad_fn.name() == "CopySlices"
    v.sum().backward()
    expected = tc.zeros(3, 4, dtype=F64, device=device)
    expected[0] = 2
    assert_close(a.grad, expected)


@pytest.mark.parametrize("op", ["mul_", "neg_", "sigmoid_", "leaky_relu_"])
def test_double_backward_through_an_inplace_op_on_a_view(device: str, op: str) -> None:
    # WGAN-GP with InstanceNorm + LeakyReLU(inplace=True): the in-place operator runs on a
    # view (instance_norm reshapes), and the penalty's gradient differentiates the backward
    # of CopySlices. Its result (for a rule that reads it) comes back through CopySlices.
    if device == "meta":
        pytest.skip("device 'meta' holds no data to compare")
    k = rand(3, 2, device=device, seed=4)

    def f(x: tc.Tensor, k: tc.Tensor) -> tc.Tensor:
        h = x * 2
        v = h.t().t()[:, 1:]
        if op == "mul_":
            v.mul_(3)
        elif op == "leaky_relu_":
            tc.nn.functional.leaky_relu(v, 0.2, inplace=True)
        else:
            getattr(v, op)()
        return (h @ k).pow(2)

    x = rand(2, 3, device=device, seed=3)
    assert tc.autograd.gradgradcheck(f, (x, k))
    # the penalty's gradient with respect to a weight after the in-place operator
    (g,) = tc.autograd.grad(f(x, k).sum(), x, create_graph=True)
    (gk,) = tc.autograd.grad(g.pow(2).sum(), k)

    def penalty(kk: tc.Tensor) -> tc.Tensor:
        xx = x.detach().requires_grad_()
        (gg,) = tc.autograd.grad(f(xx, kk).sum(), xx, create_graph=True)
        return gg.pow(2).sum()

    assert tc.autograd.gradcheck(penalty, (k,))
    assert_close(gk, tc.autograd.functional.jacobian(penalty, k.detach()))


def test_as_strided_with_overlap(device: str) -> None:
    c = rand(4, device=device)
    w = c.as_strided((3, 2), (1, 1))  # rows [c0, c1], [c1, c2], [c2, c3]
    up = const([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=device)
    (w * up).sum().backward()
    assert_close(c.grad, [1.0, 2.0 + 3.0, 4.0 + 5.0, 6.0])
    # And an in-place write through a (non-overlapping) as_strided view of a non-leaf.
    c.grad = None
    b = c * 1
    b.as_strided((2,), (2,), 1).mul_(10)  # elements 1 and 3
    (b * const([1.0, 2.0, 3.0, 4.0], device=device)).sum().backward()
    assert_close(c.grad, [1.0, 20.0, 3.0, 40.0])


@pytest.mark.parametrize(
    ("shape", "view"),
    [
        ((3, 4, 5), lambda b: b.permute(2, 0, 1)),
        ((3, 4), lambda b: b.T),
        ((2, 1, 3), lambda b: b.unsqueeze(0).transpose(0, 3)),  # (size-1 dims anywhere)
        ((4, 6), lambda b: b[:, ::2]),  # (not a permutation: the general scatter)
        ((4, 6), lambda b: b[1:].T),  # (an offset: the general scatter)
    ],
)
def test_as_strided_gradient_of_a_view_made_before_requires_grad(
    device: str, shape: tuple[int, ...], view: Any
) -> None:
    # The view gets AsStridedBackward0; a permutation of its whole base (the common case, a
    # transpose) takes one copy, the rest the general scatter: both as the view's own rule.
    base = tc.randn(*shape, dtype=F64, generator=tc.Generator().manual_seed(0)).to(device)
    v = view(base)
    base.requires_grad_()
    assert type(v.grad_fn).__name__ == "AsStridedBackward0"
    w = tc.randn(*v.shape, dtype=F64, generator=tc.Generator().manual_seed(1)).to(device)
    w.requires_grad_()

    def grad_of_base(w: tc.Tensor) -> tc.Tensor:
        return tc.autograd.grad((v * w).sum(), base, create_graph=True)[0]

    fresh = base.detach().requires_grad_()  # (its view: the view's own rule)
    (want,) = tc.autograd.grad((view(fresh) * w).sum(), fresh)
    assert_close(grad_of_base(w), want, rtol=0, atol=0)
    # (differentiable as it is: a double backward through the node)
    assert tc.autograd.gradcheck(grad_of_base, (w,))


def test_inplace_copy_into_a_tensor_without_grad(device: str) -> None:
    x = rand(3, device=device)
    z = tc.zeros(2, 3, dtype=F64, device=device)
    z[1] = x  # copy_ into a view of a tensor that did not require grad
    assert z.requires_grad and not z.is_leaf
    z.add_(x)
    (z * const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)).sum().backward()
    assert_close(x.grad, [9.0, 12.0, 15.0])


def test_copy_casts_and_broadcasts_the_gradient(device: str) -> None:
    src = rand(3, device=device, dtype=tc.float32)
    base = rand(2, 3, device=device, seed=1)
    b = base * 1
    b.copy_(src)
    (b * const([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)).sum().backward()
    assert src.grad.dtype == tc.float32 and src.grad.shape == src.shape
    assert_close(src.grad, tc.tensor([5.0, 7.0, 9.0], device=device))
    assert_close(base.grad, tc.zeros(2, 3, dtype=F64, device=device))


@pytest.mark.parametrize(
    "name", [n for n in core_ops() if OPS[n].differentiable and inplace_only(n)]
)
def test_gradcheck_inplace_only_operators(device: str, name: str) -> None:
    """copy_, fill_, zero_...: gradcheck ``op_`` applied to a non-leaf copy of ``self``."""
    for sample in SAMPLES[name](device, F64):
        fn, leaves = _inplace_only_fn(name, sample)
        assert tc.autograd.gradcheck(fn, leaves), sample


def _inplace_only_fn(name: str, sample: Sample) -> tuple[Any, list[tc.Tensor]]:
    """``(x, *tensor_args) -> (x * 1).name(*args)`` and its leaves, from a sample."""
    self, *rest = sample.args
    rest = [r.detach().requires_grad_() if isinstance(r, tc.Tensor) else r for r in rest]
    leaves = [self.detach().requires_grad_()] + [r for r in rest if isinstance(r, tc.Tensor)]

    def fn(x: tc.Tensor, *others: tc.Tensor) -> tc.Tensor:
        it = iter(others)
        args = [next(it) if isinstance(r, tc.Tensor) else r for r in rest]
        y = x * 1
        return getattr(y, name)(*args, **sample.kwargs)  # type: ignore[no-any-return]

    return fn, leaves


# ------------------------------------------------------------------ shapes and dtypes of gradients
@pytest.mark.parametrize(
    ("sa", "sb"),
    [((3, 1), (1, 4)), ((4,), (2, 3, 4)), ((), (2, 3)), ((2, 1, 3), (5, 1)), ((1,), (1,))],
)
def test_broadcasting_is_undone(device: str, sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    import numpy as np

    a, b = rand(*sa, device=device), rand(*sb, device=device, seed=1)
    out = a * b + a
    out.sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
    na, nb = to_numpy(a), to_numpy(b)
    shape = np.broadcast_shapes(na.shape, nb.shape)
    assert_close(a.grad, _sum_to(np.broadcast_to(nb + 1, shape), na.shape))
    assert_close(b.grad, _sum_to(np.broadcast_to(na, shape), nb.shape))


def _sum_to(x: Any, shape: tuple[int, ...]) -> Any:
    """NumPy oracle: sum a broadcast array back down to ``shape``."""
    lead = x.ndim - len(shape)
    x = x.sum(axis=tuple(range(lead)))
    keep = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return x.sum(axis=keep, keepdims=True) if keep else x


def test_gradient_dtype_is_the_input_dtype(device: str) -> None:
    a = rand(3, device=device, dtype=tc.float32)
    b = rand(3, device=device, dtype=tc.float64, seed=1)
    out = a * b
    assert out.dtype == tc.float64
    out.sum().backward()
    assert a.grad.dtype == tc.float32 and b.grad.dtype == tc.float64
    assert_close(a.grad, b.detach().to(tc.float32))


def test_to_dtype_gradient_casts_back(device: str) -> None:
    x = rand(3, device=device, dtype=tc.float32)
    y = x.to(tc.float64)
    assert y.dtype == tc.float64 and y.grad_fn is not None
    (y * 2).sum().backward()
    assert x.grad.dtype == tc.float32
    assert_close(x.grad, tc.full((3,), 2.0, device=device))
    assert x.to(tc.float32) is x


def test_a_tensor_used_several_times_sums_gradients(device: str) -> None:
    x = const([2.0, -1.0], device=device).requires_grad_()
    y = x * x * x + x * 4 + x.exp() * x
    y.sum().backward()
    xd = x.detach()
    assert_close(x.grad, 3 * xd * xd + 4 + xd.exp() * (xd + 1))


# ------------------------------------------------------------------ scale and memory
def test_long_chain_has_no_recursion_limit() -> None:
    x = tc.tensor([1.0], dtype=F64, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y.neg()
    y.backward()
    assert x.grad.tolist() == [1.0]
    del y  # freeing a 100,000-node graph must not recurse either


def test_saves_only_what_the_wanted_gradients_read() -> None:
    # mul keeps self only for other's gradient and other only for self's (PyTorch does the
    # same): h * 2, h * c and c * h, with c not requiring grad, keep nothing of h alive.
    x = rand(3)
    c = rand(3, seed=1).detach()
    for make, factor in ((lambda h: h * 2, 2.0), (lambda h: h * c, c), (lambda h: c * h, c)):
        h = x.exp()
        out = make(h)
        ref_h = weakref.ref(h)
        del h
        assert ref_h() is None
        out.sum().backward()
        assert_close(x.grad, (x.detach().exp() * factor).detach())
        x.grad = None
    w = rand(3, seed=2)
    y = x.exp() * w  # both want gradients: both saved
    assert y.grad_fn.saved["self"] is not None and y.grad_fn.saved["other"] is not None


def test_graph_is_freed_after_backward() -> None:
    gc.collect()
    gc.disable()  # the weakrefs must die by reference counting alone: no cycles
    try:
        x = rand(3)
        h = x.exp()
        out = (h * h).sum()
        ref_h = weakref.ref(h)
        ref_node = weakref.ref(h.grad_fn)
        ref_out_node = weakref.ref(out.grad_fn)
        del h
        assert ref_h() is not None, "saved for backward by MulBackward0"
        out.backward()
        assert ref_h() is None, "backward frees the saved tensors"
        del out
        assert ref_node() is None and ref_out_node() is None
        # With retain_graph the saved tensors live on, until the graph goes.
        h = x.exp()
        out = (h * h).sum()
        ref_h = weakref.ref(h)
        del h
        out.backward(retain_graph=True)
        assert ref_h() is not None
        del out
        assert ref_h() is None
    finally:
        gc.enable()


def test_memory_is_flat_over_training_steps() -> None:
    g = tc.Generator().manual_seed(0)
    xb = tc.randn(8, 4, generator=g)
    yb = tc.randn(8, generator=g)
    w = tc.zeros(4, requires_grad=True)

    def step() -> None:
        loss = ((xb.matmul(w) - yb) ** 2).mean()
        loss.backward()
        with tc.no_grad():
            w.sub_(0.01 * w.grad)
        w.grad = None

    def window() -> tuple[int, int]:
        """(current, peak) traced memory over 100 steps. A full collection first empties
        CPython's free lists (tuples, floats...), which otherwise fill up slowly over a few
        hundred steps and would read as growth; it must find no garbage: the steps make no
        reference cycles."""
        assert gc.collect() == 0, "a training step left reference cycles behind"
        tracemalloc.reset_peak()
        current = tracemalloc.get_traced_memory()[0]
        for _ in range(100):
            step()
        return current, tracemalloc.get_traced_memory()[1]

    for _ in range(100):
        step()
    gc.collect()
    tracemalloc.start()
    try:
        current_early, peak_early = window()  # steps 100-200
        for _ in range(700):
            step()
        current_late, peak_late = window()  # steps 900-1000
    finally:
        tracemalloc.stop()
    assert current_late - current_early < 8 * 1024, (current_early, current_late)
    assert peak_late - peak_early < 8 * 1024, (peak_early, peak_late)


def test_complex_gradients_follow_pytorch(device: str) -> None:
    # A real loss of a complex leaf: the gradient is dL/dx + i dL/dy (PyTorch's convention).
    z = tc.tensor([1 + 2j, 3 - 1j], device=device, requires_grad=True)
    (z * z.conj()).real.sum().backward()  # |z|^2: gradient 2z
    assert z.grad.tolist() == [2 + 4j, 6 - 2j]
    assert z.grad.dtype is tc.complex64
    # A real leaf through complex intermediates gets a real gradient (the real part).
    x = tc.tensor([1.0, 2.0], device=device, requires_grad=True)
    (x * tc.tensor([1j, 2 + 1j], device=device)).abs().sum().backward()
    assert x.grad.dtype is tc.float32
    assert_close(x.grad, np.array([1.0, np.sqrt(5.0)], np.float32))


def test_norms_record_pytorchs_linalg_vector_norm_node(device: str) -> None:
    # (PyTorch names the node after ATen's linalg_vector_norm, whichever function is called)
    x = tc.randn(3, device=device, requires_grad=True)
    for y in (tc.linalg.vector_norm(x), tc.norm(x), x.norm(), tc.linalg.norm(x)):
        assert type(y.grad_fn).__name__ == "LinalgVectorNormBackward0"


@pytest.mark.parametrize(
    "index",
    [
        (slice(None, None, 1),),
        (slice(0, 4),),
        (slice(-4, None),),
        (slice(None, 100),),
        (slice(None), slice(0, 3)),
        (slice(1, None),),  # (not the whole dim: the general rule)
        (slice(None), slice(None, None, 2)),
    ],
)
def test_a_slice_gradient_with_and_without_the_whole_dim(device: str, index: Any) -> None:
    # a step-1 slice as long as its dim hands the gradient on; every slice's gradient is
    # the output gradient placed in zeros, first and second order
    x = tc.randn(4, 3, dtype=tc.float64, device=device, requires_grad=True)
    g = tc.randn(*x[index].shape, dtype=tc.float64, device=device)
    (got,) = tc.autograd.grad(x[index], x, g)
    want = tc.zeros(4, 3, dtype=tc.float64, device=device)
    want[index] = g
    np.testing.assert_array_equal(got.cpu().numpy(), want.cpu().numpy())
    assert tc.autograd.gradcheck(lambda t: t[index] * t[index], (x,))
    assert tc.autograd.gradgradcheck(lambda t: t[index] * t[index], (x,))
