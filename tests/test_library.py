"""``tensorcore.library`` (PyTorch's ``torch.library``) and ``tensorcore.ops.<namespace>``:
operators defined in Python, their dispatch by device type, their autograd formulas, fake
kernels and checks. The expected schemas and messages are PyTorch 2.13's."""

from __future__ import annotations

import gc
import itertools
import re
from collections.abc import Sequence

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import Tensor
from tensorcore._opcheck import DEFAULT_TEST_UTILS
from tensorcore.plugins import manager

_names = itertools.count()


def _name(stem: str) -> str:
    """A fresh operator name (the registry is global: each test defines its own)."""
    return f"tctest::{stem}{next(_names)}"


def _has_meta() -> bool:
    return "meta" in manager.device_interfaces()


def _numpy_sin(qual: str, **kw):
    @tc.library.custom_op(qual, mutates_args=(), **kw)
    def op(x: Tensor, scale: float = 1.0) -> Tensor:
        return tc.from_numpy(np.sin(x.cpu().numpy()) * scale).to(x.device)

    return op


def _register_sin_grad(op) -> None:
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(x)
        ctx.scale = scale

    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * ctx.scale, None

    op.register_autograd(backward, setup_context=setup_context)


def test_a_custom_op_runs_its_kernel_and_differentiates_with_its_formula(device: str) -> None:
    op = _numpy_sin(_name("sin"))
    _register_sin_grad(op)
    x0 = np.array([0.1, -0.7, 2.0], dtype=np.float64)
    x = tc.tensor(x0, device=device, requires_grad=True)
    y = op(x, 2.0)
    np.testing.assert_allclose(y.detach().cpu().numpy(), 2 * np.sin(x0))
    assert type(y.grad_fn).__name__.startswith("GeneratedBackwardFor_tctest_sin")
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), 2 * np.cos(x0))
    # the same call through tensorcore.ops, and by keyword
    ns, name = op._name.split("::")
    z = getattr(getattr(tc.ops, ns), name).default(x.detach(), scale=3.0)
    np.testing.assert_allclose(z.cpu().numpy(), 3 * np.sin(x0))
    assert tc.autograd.gradcheck(lambda t: op(t, 0.5), (x.detach().requires_grad_(),))


def test_without_a_formula_the_backward_names_register_autograd() -> None:
    op = _numpy_sin(_name("nograd"))
    x = tc.ones(2, requires_grad=True)
    y = op(x)
    assert y.requires_grad  # (as PyTorch: the error comes when backward reaches it)
    with pytest.raises(RuntimeError, match=r"no autograd formula was registered\. Please use "
                       "register_autograd"):  # fmt: skip
        y.sum().backward()
    with tc.no_grad():
        assert not op(x).requires_grad


@pytest.mark.parametrize(
    ("sig", "mutates", "expected"),
    [
        ("x: Tensor, scale: float = 1.0) -> Tensor", (), "(Tensor x, float scale=1.0) -> Tensor"),
        ("x: Tensor, y: Tensor) -> tuple[Tensor, Tensor]", {"x", "y"},
         "(Tensor(a0!) x, Tensor(a1!) y) -> (Tensor, Tensor)"),
        ("x: Tensor, *, k: int = 3) -> Tensor", "unknown",
         "(Tensor(a0!) x, *, SymInt k=3) -> Tensor"),
        ("x: Tensor, ys: list[Tensor], n: int, opt: Optional[Tensor] = None) -> "
         "tuple[Tensor, Tensor]", (), "(Tensor x, Tensor[] ys, SymInt n, Tensor? opt=None) -> "
         "(Tensor, Tensor)"),
        ("x: Tensor, s: Sequence[int], f: Optional[float] = None, b: bool = True, "
         "st: str = 'a') -> None", (),
         '(Tensor x, SymInt[] s, float? f=None, bool b=True, str st="a") -> ()'),
        ("x: Tensor) -> int", (), "(Tensor x) -> SymInt"),
        ("x: Tensor, v: Union[int, float, bool]) -> list[Tensor]", (),
         "(Tensor x, Scalar v) -> Tensor[]"),
    ],
)  # fmt: skip
def test_infer_schema_writes_pytorchs_schemas(sig: str, mutates, expected: str) -> None:
    ns: dict = {}
    exec(
        "from typing import Optional, Sequence, Union\nfrom tensorcore import Tensor\n"
        f"def f({sig}: ...",
        ns,
    )
    assert tc.library.infer_schema(ns["f"], mutates_args=mutates) == expected


def test_infer_schema_refuses_what_pytorch_refuses() -> None:
    def no_ann(x): ...

    def bad_type(x: Tensor, k: dict) -> Tensor: ...

    def bad_default(x: Tensor, s: Sequence[int] = (1, 2)) -> Tensor: ...

    def no_return(x: Tensor): ...

    def fine(x: Tensor) -> Tensor: ...

    with pytest.raises(ValueError, match="Parameter x must have a type annotation"):
        tc.library.infer_schema(no_ann, mutates_args=())
    with pytest.raises(ValueError, match="Parameter k has unsupported type"):
        tc.library.infer_schema(bad_type, mutates_args=())
    with pytest.raises(ValueError, match="unsupported default value type <class 'tuple'>"):
        tc.library.infer_schema(bad_default, mutates_args=())
    with pytest.raises(ValueError, match="No return type annotation"):
        tc.library.infer_schema(no_return, mutates_args=())
    with pytest.raises(ValueError, match=r"\{'zz'\} in mutates_args were not found"):
        tc.library.infer_schema(fine, mutates_args=("zz",))
    with pytest.raises(ValueError, match="namespace"):
        tc.library.custom_op("nonamespace", mutates_args=())


def test_calls_are_checked_against_the_schema_with_pytorchs_messages() -> None:
    qual = _name("g")

    @tc.library.custom_op(qual, mutates_args=())
    def g(x: Tensor, n: int) -> Tensor:
        return x * n

    decl = f"Declaration: {qual}(Tensor x, SymInt n) -> Tensor"
    assert g(tc.ones(1), True).tolist() == [1.0]  # (a bool is an int, as in PyTorch)
    assert g(tc.ones(1), n=2).tolist() == [2.0]
    with pytest.raises(RuntimeError, match=r"Expected a value of type 'int' for argument 'n' "
                       r"but instead found type 'float'"):  # fmt: skip
        g(tc.ones(1), 2.0)
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'x'"):
        g(1.0, 2)
    with pytest.raises(RuntimeError, match=re.escape(f"is missing value for argument 'n'. {decl}")):
        g(tc.ones(1))
    with pytest.raises(RuntimeError, match="expected at most 2 argument"):
        g(tc.ones(1), 2, 3)


def test_a_result_may_not_alias_an_input() -> None:
    @tc.library.custom_op(_name("alias"), mutates_args=())
    def same(x: Tensor) -> Tensor:
        return x[:1]

    with pytest.raises(RuntimeError, match="must not also be an input"):
        same(tc.ones(2))


def test_mutated_arguments_move_their_version_and_opcheck_finds_undeclared_writes() -> None:
    @tc.library.custom_op(_name("fill"), mutates_args={"x"})
    def fill(x: Tensor, v: float) -> None:
        x.numpy()[...] = v  # (a write the autograd engine cannot see)

    x = tc.zeros(3)
    before = x._version
    assert fill(x, 2.0) is None
    assert x.tolist() == [2.0] * 3 and x._version > before

    @tc.library.custom_op(_name("sneaky"), mutates_args=())
    def sneaky(x: Tensor) -> Tensor:
        x.add_(1)
        return x.clone()

    res = tc.library.opcheck(sneaky, (tc.ones(2),), raise_exception=False)
    assert isinstance(res["test_schema"], RuntimeError)
    assert "not mark as mutated" in str(res["test_schema"])
    with pytest.raises(tc.library.OpCheckError, match="test_schema failed"):
        tc.library.opcheck(sneaky, (tc.ones(2),), test_utils="test_schema")


@pytest.mark.skipif(not _has_meta(), reason="the meta backend (tensorcore-meta) is not installed")
def test_fake_kernels_serve_the_meta_device_and_opcheck_passes() -> None:
    op = _numpy_sin(_name("fake"))
    _register_sin_grad(op)
    m = tc.empty(4, 5, device="meta")
    with pytest.raises(NotImplementedError, match="register_fake"):
        op(m)

    @op.register_fake
    def _(x, scale=1.0):
        return tc.empty_like(x)

    out = op(m)
    assert out.device.type == "meta" and out.shape == (4, 5)
    x = tc.randn(3, dtype=tc.float64, requires_grad=True)
    assert tc.library.opcheck(op, (x, 2.0)) == dict.fromkeys(DEFAULT_TEST_UTILS, "SUCCESS")


def test_device_types_limit_a_kernel_and_register_kernel_adds_one() -> None:
    @tc.library.custom_op(_name("dev"), mutates_args=(), device_types="cpu")
    def twice(x: Tensor) -> Tensor:
        return x * 2

    assert twice(tc.ones(2)).tolist() == [2.0, 2.0]
    refused = "from the 'cpu' backend: it has kernels for no device type; register one with"
    with twice.set_kernel_enabled("cpu", False), pytest.raises(NotImplementedError, match=refused):
        twice(tc.ones(1))
    assert twice(tc.ones(1)).tolist() == [2.0]
    if _has_meta():
        with pytest.raises(NotImplementedError, match="Meta tensors"):
            twice(tc.empty(2, device="meta"))
        twice.register_kernel("meta", lambda x: tc.empty(3, device="meta"))
        assert twice(tc.empty(2, device="meta")).shape == (3,)


def test_tensor_list_arguments_get_their_gradients() -> None:
    @tc.library.custom_op(_name("wsum"), mutates_args=())
    def wsum(xs: list[Tensor], w: float) -> Tensor:
        return tc.from_numpy(sum(x.numpy() for x in xs) * w)

    def backward(ctx, g):
        return [g * ctx.w] * ctx.n, None

    def setup_context(ctx, inputs, output):
        ctx.n, ctx.w = len(inputs[0]), inputs[1]

    wsum.register_autograd(backward, setup_context=setup_context)
    a, b = tc.ones(2, requires_grad=True), tc.ones(2, requires_grad=True)
    wsum([a, b], 3.0).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0] and b.grad.tolist() == [3.0, 3.0]


def test_a_library_defines_operators_for_as_long_as_it_lives() -> None:
    ns = _name("lib").replace("::", "_")
    lib = tc.library.Library(ns, "DEF")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
        tc.library.Library(ns, "DEF")
    assert lib.define("foo(Tensor x, int n=2) -> Tensor") == "foo"
    lib.define("foo.scaled(Tensor x, float s) -> Tensor")
    lib.impl("foo", lambda x, n=2: x * n, "CPU")
    # differentiable through what it calls: no formula needed
    lib.impl("foo.scaled", lambda x, s: x.sin() * s, "CompositeImplicitAutograd")
    packet = getattr(tc.ops, ns).foo
    assert packet(tc.ones(2)).tolist() == [2.0, 2.0]
    assert packet.default(tc.ones(2), 3).tolist() == [3.0, 3.0]
    assert sorted(packet.overloads()) == ["default", "scaled"]
    x = tc.zeros(2, requires_grad=True)
    packet.scaled(x, 5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    assert str(packet.default._schema) == f"{ns}::foo(Tensor x, int n=2) -> Tensor"
    with pytest.raises(RuntimeError, match="same name and overload name"):
        lib.define("foo(Tensor x) -> Tensor")
    del lib, packet
    gc.collect()
    with pytest.raises(AttributeError, match="has no attribute 'foo'"):
        _ = getattr(tc.ops, ns).foo
    tc.library.Library(ns, "DEF")._destroy()  # (the namespace is free again)


def test_module_level_registration_by_name() -> None:
    qual = _name("mod")
    tc.library.define(qual, "(Tensor x) -> Tensor")

    @tc.library.impl(qual, "cpu")
    def _(x):
        return x + 1

    tc.library.register_autograd(qual, lambda ctx, g: g * 10)
    ns, name = qual.split("::")
    x = tc.zeros(2, requires_grad=True)
    getattr(getattr(tc.ops, ns), name)(x).sum().backward()
    assert x.grad.tolist() == [10.0, 10.0]
    with pytest.warns(DeprecationWarning, match="renamed to torch.library.register_fake"):
        tc.library.impl_abstract(qual)(lambda x: tc.empty_like(x))


def test_aten_namespace_holds_the_built_in_operators() -> None:
    a, b = tc.tensor([1.0, -2.0]), tc.tensor([3.0, 4.0])
    assert tc.ops.aten.add.Tensor(a, b).tolist() == [4.0, 2.0]
    assert tc.ops.aten.relu.default(a).tolist() == [1.0, 0.0]
    assert tc.ops.aten.mul(a, 2).tolist() == [2.0, -4.0]
    assert repr(tc.ops.aten.add.Tensor) == "aten.add.Tensor"
    with pytest.raises(AttributeError, match="has no attribute 'no_such_op'"):
        _ = tc.ops.aten.no_such_op
    with pytest.raises(OSError, match="cannot load a compiled PyTorch extension"):
        tc.ops.load_library("libfoo.so")


def test_numpy_reads_a_tensor_that_requires_grad_under_no_grad() -> None:
    x = tc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()
    with tc.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]
