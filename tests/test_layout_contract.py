"""The backend-author contract for layouts and non-cpu devices, as a third party meets it
(``docs/writing-a-backend.md``): a layout tensor has no strides, so a composite such as
``contiguous`` copies it through the layout's ``clone``; a layout's kernel for a composite,
given a derivative, runs under autograd too; the conformance suite's samples and bad-input
cases are made on the device under test. ``box_layout.py`` is the layout."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import tensorcore as tc
from tensorcore.dispatch import ops
from tensorcore.testing import fuzz, layout_unsupported
from tensorcore.testing.samples import SAMPLES

REGISTER = """
    import sys
    sys.path.insert(0, {tests!r})
    import tensorcore as tc
    import box_layout
    from box_layout import calls
    tc.backends.register(box_layout, name="box")
"""


def _code(body: str) -> str:
    tests = str(Path(__file__).resolve().parent)
    return textwrap.dedent(REGISTER.format(tests=tests)) + textwrap.dedent(body)


def test_a_layout_tensor_is_not_contiguous_and_the_composite_copies_it_with_clone(
    run_py: Any,
) -> None:
    code = """
        x = tc.arange(6.0).reshape(2, 3).to_box()
        # no strides: PyTorch's answer for a sparse tensor, whatever the memory format
        assert not x.is_contiguous()
        assert not x.is_contiguous(memory_format=tc.channels_last)
        # the core's composite (not the layout's kernel) reaches the layout's clone
        y = tc.ops.composite.COMPOSITES["contiguous"](x)
        assert y.layout is tc.box and calls["clone"] == 1, calls
        assert y.unbox().tolist() == x.unbox().tolist()
        print("OK")
        """
    assert run_py(_code(code)).stdout.strip() == "OK"


def test_a_layouts_kernel_for_a_composite_runs_under_autograd_with_its_derivative(
    run_py: Any,
) -> None:
    code = """
        leaf = tc.arange(6.0).reshape(2, 3).requires_grad_()
        b = leaf.to_box()
        c = b.contiguous()  # the layout's kernel, not the composite's definition
        assert calls["contiguous"] == 1 and calls["clone"] == 0, calls
        assert type(c.grad_fn).__name__ == "ContiguousBackward0", c.grad_fn
        (c.unbox() * 2).sum().backward()
        assert calls["d_contiguous"] == 1, calls  # and its derivative
        assert leaf.grad.tolist() == [[2.0] * 3] * 2
        # without a derivative for the key, a composite still differentiates through its
        # definition (a fused strided kernel keeps its gradients)
        w = tc.ones(2, 3, requires_grad=True)
        assert type(w.t().contiguous().grad_fn).__name__ != "ContiguousBackward0"
        x64 = tc.rand(2, 3, dtype=tc.float64).requires_grad_()
        assert tc.autograd.gradcheck(lambda t: t.to_box().contiguous().unbox(), [x64])
        print("OK")
        """
    assert run_py(_code(code)).stdout.strip() == "OK"


def test_to_dense_is_the_cores_and_each_layout_registers_its_kernel(run_py: Any) -> None:
    # Two layouts that each declared ``to_dense`` excluded each other (the second to load
    # failed): it is the core's operator, and box's kernel sits beside the sparse layouts'.
    code = """
        assert "to_dense" in tc.ops.schema.OPS and "sparse" in [p.name for p in tc.backends.list()
                                                                 if p.status == "loaded"]
        leaf = tc.arange(4.0).reshape(2, 2).requires_grad_()
        d = leaf.to_box().to_dense()
        assert d.layout is tc.strided and d.tolist() == [[0.0, 1.0], [2.0, 3.0]]
        (d * tc.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        assert leaf.grad.tolist() == [[1.0, 2.0], [3.0, 4.0]], leaf.grad
        assert calls["d_to_dense"] == 1, calls  # box's rule, reading a "self:spec"
        s = tc.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
        assert s.to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]]
        x = tc.ones(2)
        a = x.to_dense()  # a strided tensor: an alias, or a copy in another dtype
        assert a is not x and a.data_ptr() == x.data_ptr()
        assert x.to_dense(tc.float64).dtype is tc.float64
        try:
            tc.exp(leaf.to_box())
        except NotImplementedError as exc:  # what to do, for a layout that converts
            assert "box layout has no 'exp': convert the tensor with .to_dense()" in str(exc), exc
        else:
            raise AssertionError("exp ran on a box")
        from tensorcore.plugins import hookimpl

        class Declares:
            @hookimpl
            def tensorcore_register_kernels(self, register):
                register.op("to_dense(Tensor self) -> Tensor", "conversion", "Again.")

        class Named:
            @hookimpl
            def tensorcore_register_layouts(self, register):
                register.layout("diag")

        for plugin, words in ((Declares(), "which tensorcore's own table already declares: "
                               "register kernels for it"),
                              (Named(), "the core defines tensorcore.diag (a function); "
                               "choose another name")):
            try:
                tc.backends.register(plugin, name=type(plugin).__name__.lower())
            except RuntimeError as exc:
                assert words in str(exc), exc
            else:
                raise AssertionError(plugin)
        print("OK")
        """
    assert run_py(_code(code)).stdout.strip() == "OK"


def test_factory_samples_name_the_device_under_test() -> None:
    # A sample that makes its result with no tensor input and no device= tests the
    # default device (cpu), whatever device the conformance suite runs on.
    missing = []
    for name, make in SAMPLES.items():
        op = ops().get(name)
        if op is None or "device" not in [p.name for p in op.decl.parsed.params]:
            continue
        for i, s in enumerate(make("meta", tc.float32)):
            tensors = [a for a in (*s.args, *s.kwargs.values()) if isinstance(a, tc.Tensor)]
            if not tensors and "device" not in s.kwargs:
                missing.append(f"{name}[{i}]")
    assert not missing, missing


def test_bad_out_cases_are_made_on_the_device_under_test() -> None:
    seen = 0
    for case in fuzz.cases("meta", only={"sort", "frexp", "topk"}):
        out = case.kwargs.get("out")
        for o in out if isinstance(out, tuple) else (out,):
            if isinstance(o, tc.Tensor):
                assert o.device.type == "meta", (case, o.device)
                seen += 1
    assert seen > 10


def test_sparse_tests_skip_a_device_without_sparse_kernels() -> None:
    # (what the ``sparse`` marker of tests/conftest.py asks: a third party's device runs
    # tensorcore's suite, whose sparse tests it cannot run)
    assert layout_unsupported("cpu", "sparse_coo") is None
    why = layout_unsupported("meta", "sparse_coo")
    assert why is not None and "device 'meta' has no sparse_coo kernels" in why
