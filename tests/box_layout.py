"""A minimal third-party layout for the tests, written against the documented contract only
(``docs/writing-a-backend.md``, "The minimum a layout provides"): a ``box`` tensor's native
object holds one dense strided tensor.

It registers the layout, the two conversions (``to_box``, ``unbox``) with their derivatives,
a kernel for the core's ``to_dense`` (which tensorcore-sparse's layouts have too),
``clone`` and ``to_device``, a few ``direct=True`` kernels with the generic rules run on the
unboxed gradient, and its own ``contiguous`` -- a composite's override, with a derivative, so
that autograd runs it too. ``calls`` counts the kernels that ran.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import tensorcore as tc
from tensorcore.backend import generic_rule, hookimpl, make_tensor, native

TENSORCORE_SPI = "1.3"
TENSORCORE_CONFORMANCE_LAYOUTS = {"box": ("to_box", "unbox")}

calls: Counter[str] = Counter()


class BoxRecord:
    """The native object of a box tensor: the dense tensor it holds, and a version."""

    __slots__ = ("dense", "version")

    def __init__(self, dense: tc.Tensor) -> None:
        self.dense = dense
        self.version = 0


def box(dense: tc.Tensor) -> tc.Tensor:
    dense = dense.detach()
    rec = BoxRecord(dense)
    return make_tensor(None, tuple(dense.shape), (), 0, dense.dtype, dense.device, native=rec,
                       lay=tc.box)  # fmt: skip


def dense_of(x: Any) -> Any:
    return native(x).dense if isinstance(x, tc.Tensor) and x.layout == tc.box else x


def unbox_any(g: Any) -> Any:
    return g.unbox() if isinstance(g, tc.Tensor) and g.layout == tc.box else g


def finish(result: tc.Tensor, out: tc.Tensor | None) -> tc.Tensor:
    if out is None:
        return box(result)
    if out.layout == tc.box:
        native(out).dense = result.to(out.dtype)  # the core adds 1 to the record's version
        return out
    if out.numel() == 0 and tuple(out.shape) != tuple(result.shape):
        out.data = result.to(out.dtype)  # an empty dense out= is resized: rebind its data
        return out
    out.copy_(result)
    return out


def add(self: Any, other: Any, alpha: Any = 1, out: Any = None) -> tc.Tensor:
    calls["add"] += 1
    return finish(tc.add(dense_of(self), dense_of(other), alpha=alpha), out)


def mul(self: Any, other: Any, out: Any = None) -> tc.Tensor:
    calls["mul"] += 1
    return finish(tc.mul(dense_of(self), dense_of(other)), out)


def clone(self: tc.Tensor, memory_format: Any = None) -> tc.Tensor:
    calls["clone"] += 1
    return box(native(self).dense.clone())


def to_device(self: tc.Tensor, device: Any, non_blocking: bool = False) -> tc.Tensor:
    return box(native(self).dense.to(device, non_blocking=non_blocking))


def contiguous(self: tc.Tensor, memory_format: Any = None) -> tc.Tensor:
    calls["contiguous"] += 1
    return box(native(self).dense.contiguous())


def dense_rule(op: str) -> tuple[tuple[str, ...], Any]:
    """The generic rule of ``op``, run on the unboxed gradient (gradients come back dense)."""
    saves, fn = generic_rule(op)

    def rule(ctx: Any, grad: Any) -> tuple[Any, ...]:
        return tuple(unbox_any(g) for g in fn(ctx, unbox_any(grad)))

    return saves, rule


def d_contiguous(ctx: Any, grad: Any) -> tuple[Any, ...]:
    calls["d_contiguous"] += 1
    return (unbox_any(grad),)


def d_to_dense(ctx: Any, grad: Any) -> tuple[Any, ...]:
    spec = ctx.self  # "self:spec": what a rule may read of an input it does not keep
    assert spec.layout is tc.box and spec.shape == grad.shape and spec.dtype == grad.dtype
    calls["d_to_dense"] += 1
    return (grad.to_box(),)


@hookimpl
def tensorcore_register_layouts(register: Any) -> None:
    register.layout("box", priority=2)


@hookimpl
def tensorcore_register_kernels(register: Any) -> None:
    register.op("to_box(Tensor self) -> Tensor", "conversion", "A box holding a copy.")
    register.op("unbox(Tensor self) -> Tensor", "conversion", "The dense tensor of a box.")
    register.kernel("to_box", "*", "strided", lambda self: box(self.clone()))
    register.kernel("unbox", "*", "box", lambda self: native(self).dense.clone())
    register.derivative("to_box", "*", "strided", "", lambda ctx, g: (unbox_any(g),))
    register.derivative("unbox", "*", "box", "", lambda ctx, g: (g.to_box(),))
    # to_dense is the core's operator: a layout registers its kernel, never declares it
    register.kernel("to_dense", "*", "box", lambda self, dtype=None: native(self).dense.to(
        dtype or self.dtype, copy=True))  # fmt: skip
    register.derivative("to_dense", "*", "box", "self:spec", d_to_dense)
    register.kernel("clone", "*", "box", clone, direct=True)
    register.derivative("clone", "*", "box", *dense_rule("clone"))
    register.kernel("to_device", "*", "box", to_device)
    register.derivative("to_device", "*", "box", *dense_rule("to_device"))
    register.kernel("contiguous", "*", "box", contiguous)
    register.derivative("contiguous", "*", "box", "", d_contiguous)
    for name, fn in (("add", add), ("mul", mul)):
        register.kernel(name, "*", "box", fn, direct=True)
        register.derivative(name, "*", "box", *dense_rule(name))
