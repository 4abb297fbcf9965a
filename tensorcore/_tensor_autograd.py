"""The autograd attributes of :class:`Tensor`: ``requires_grad``, ``grad``, ``grad_fn``,
``is_leaf``, ``data``, ``detach``, ``backward``, ``retain_grad`` and the tensor hooks.
Attached by ``_tensor_methods.install``."""

from __future__ import annotations

from typing import Any

from ._storage import VersionCounter
from ._tensor import KEEP_MESSAGE, Tensor, cpp_name, make_tensor, torch_name
from .autograd import grad_mode as _grad_mode
from .autograd.graph import current_grad_fn
from .autograd.graph import requires_grad as _public_rg
from .ops._validate import checked, warn_caller


# ------------------------------------------------------------------ autograd attributes
def _get_requires_grad(self: Tensor) -> bool:
    """Whether gradients are computed for this tensor (a dual tensor's tangent alone does
    not make it require grad, as in PyTorch); a view requires grad where its base does."""
    return _public_rg(self)


def _set_requires_grad(self: Tensor, value: bool) -> None:
    if value and not (self._dtype.is_floating_point or self._dtype.is_complex):
        # (the attribute's words; requires_grad_() says "floating point dtype")
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    requires_grad_(self, value)


requires_grad = property(_get_requires_grad, _set_requires_grad)


@checked("requires_grad_(Tensor self, bool requires_grad=True) -> Tensor")
def requires_grad_(self: Tensor, requires_grad: bool = True) -> Tensor:
    """Set ``requires_grad`` in place; returns self.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.ones(2).requires_grad_().requires_grad
    True
    """
    if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if requires_grad and is_inference(self) and not _grad_mode.is_inference_mode_enabled():
        exc = RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
        setattr(exc, KEEP_MESSAGE, True)  # (PyTorch's words, without the method's name)
        raise exc
    if not requires_grad and self._grad_fn is not None:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach()."
        )
    ag = self._ag
    if ag is not None and ag.fw_grad is not None:
        # A dual tensor stays in the autograd step's reach, whatever its public flag.
        ag.fw_only = not requires_grad
        return self
    self._requires_grad = bool(requires_grad)
    return self


def _is_leaf(self: Tensor) -> bool:
    """True for tensors not produced by a recorded operation."""
    return self._grad_fn is None


def _grad_fn(self: Tensor) -> Any:
    """The graph node that produced this tensor, or None for leaves. A view whose base (or
    another view of its base) was modified in place since gets a new one from the base's
    history, as in PyTorch (``AsStridedBackward0``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> b = tc.ones(3, requires_grad=True) * 1
    >>> v = b[0]
    >>> v.grad_fn.name()
    'SelectBackward0'
    >>> _ = b.mul_(10)
    >>> v.grad_fn.name()
    'AsStridedBackward0'
    """
    return current_grad_fn(self)


is_leaf = property(_is_leaf)
grad_fn = property(_grad_fn)


def is_inference(self: Tensor) -> bool:
    """Whether ``self`` is an inference tensor: one made inside ``inference_mode``, or a
    view of one (a view of an ordinary tensor taken inside is ordinary), as in PyTorch.
    A tensor without a storage (a sparse one) is never one here.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2)
    >>> with tc.inference_mode():
    ...     y = x * 2
    ...     v = x[:1]
    >>> y.is_inference(), y[:1].is_inference(), v.is_inference(), (y + 1).is_inference()
    (True, True, False, False)
    """
    st = self._storage
    return st is not None and st.inference


def detach(self: Tensor) -> Tensor:
    """A view of the same storage that does not require grad and has no history. It shares
    ``self``'s version counter: an in-place write through it is still seen by autograd
    where ``self`` was saved for backward (unlike a write through :attr:`data`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> x.detach().requires_grad
    False
    """
    vc = self._version_counter
    if vc is None and is_inference(self) and not _grad_mode.is_inference_mode_enabled():
        vc = VersionCounter()  # (PyTorch's detach of one may be written to, as .data)
    return _alias(self, vc)


def _get_data(self: Tensor) -> Tensor:
    """The tensor's values without its history: a tensor over the same storage that does not
    require grad (writes through it are not recorded). Assigning ``t.data = other`` makes
    ``t`` view ``other``'s storage, shape, strides, dtype and device, keeping ``t``'s identity
    (its ``requires_grad``, ``.grad``, hooks and version counter), as ``Module.to`` does with
    parameters.

    Unlike :meth:`detach`, ``t.data`` has a version counter of its own, as in PyTorch (each
    access makes a new one, at 0): an in-place write through it (or through its views) is
    hidden from autograd, so a backward that saved ``t`` does not raise, and a write through
    ``t`` does not move ``t.data._version``. That is what optimizers rely on to update
    parameters in place; prefer ``t.detach()`` under ``no_grad`` where autograd must see it.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.ones(2, requires_grad=True)
    >>> w.data.mul_(3)
    tensor([3., 3.])
    >>> w._version, w.data._version
    (0, 0)
    >>> w.data = tc.zeros(3, dtype=tc.float64)
    >>> w
    tensor([0., 0., 0.], dtype=tensorcore.float64, requires_grad=True)
    """
    return _alias(self, VersionCounter())


def _alias(self: Tensor, counter: VersionCounter | None) -> Tensor:
    """A tensor over ``self``'s storage and geometry, without history, counting its versions
    on ``counter`` (None: the storage's)."""
    t = make_tensor(
        self._storage,
        self._shape,
        self._stride,
        self._offset,
        self._dtype,
        self._device,
        self._native,
        self._layout,
    )
    t._version_counter = counter
    return t


def _set_part(part: Any) -> Any:
    # ``z.imag = v`` copies v into the view, as PyTorch's setter; ``kf.imag *= -1`` (an
    # in-place product on the view, then this assignment of the same view) conjugates kf.
    def setter(self: Tensor, value: Any) -> None:
        view = part(self)
        if isinstance(value, Tensor):
            view.copy_(value)
        else:
            view.fill_(value)

    return setter


def _set_data(self: Tensor, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"Tensor.data must be assigned a Tensor, not {type(value).__name__}")
    if _public_rg(self) and not (value._dtype.is_floating_point or value._dtype.is_complex):
        raise RuntimeError(
            f"data set to a tensor of dtype {value._dtype.name}, but this tensor requires "
            "grad: only Tensors of floating point and complex dtype can require gradients"
        )
    version = self._version
    self._storage = value._storage
    self._shape = value._shape
    self._stride = value._stride
    self._offset = value._offset
    self._dtype = value._dtype
    self._device = value._device
    self._layout = value._layout
    self._native = value._native
    if self._version_counter is None:
        # ``self`` keeps its own count (PyTorch's set_data): its old storage's counter,
        # which it no longer views, carried on; ``value``'s writes are not ``self``'s.
        self._version_counter = VersionCounter(version)


data = property(_get_data, _set_data)


def detach_(self: Tensor) -> Tensor:
    """Detach in place: drop the history and stop requiring grad. A view cannot be (its
    history is its base's), as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> y = tc.ones(2, requires_grad=True) * 2
    >>> y.detach_().requires_grad
    False
    >>> y[:1].detach_()
    Traceback (most recent call last):
      ...
    RuntimeError: Can't detach views in-place. Use detach() instead. ...
    """
    if self._base is not None:
        raise RuntimeError(
            "Can't detach views in-place. Use detach() instead. If you are using "
            "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
            "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
            "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
            "function in torch/optim/optimizer.py as the solution."
        )
    self._grad_fn = None
    self._requires_grad = False
    if self._ag is not None:  # (and drop a tangent: a detached tensor has none)
        self._ag.fw_grad = None
        self._ag.fw_only = False
    return self


@checked(
    "backward(Tensor self, Tensor? gradient=None, bool? retain_graph=None, "
    "bool create_graph=False, Any inputs=None) -> None"
)
def backward(
    self: Tensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate the gradient of this tensor into the ``.grad`` of the graph's leaves.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([1.0, 2.0], requires_grad=True)
    >>> (x * x).sum().backward(); x.grad
    tensor([2., 4.])
    """
    from .autograd.engine import backward as _backward

    _backward(self, gradient, retain_graph, create_graph, inputs)


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


def _get_grad(self: Tensor) -> Tensor | None:
    """The accumulated gradient (leaves, and non-leaves after :meth:`retain_grad`); reading
    it on a non-leaf that does not retain its gradient warns, as PyTorch does."""
    g = self._grad
    if (
        g is None
        and self._grad_fn is not None
        and not (self._ag is not None and self._ag.retains_grad)
    ):
        warn_caller(_NON_LEAF_GRAD)
    return g


def _set_grad(self: Tensor, value: Tensor | None) -> None:
    if value is not None:
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got {type(value).__name__}"
            )
        if value._shape != self._shape:
            raise RuntimeError(
                f"assigned grad has data of a different size: {list(value._shape)} vs "
                f"{list(self._shape)}"
            )
        if value._device != self._device:
            raise RuntimeError("assigned grad has data located on a different device")
        if value._dtype is not self._dtype:
            # (the optimizers and the accumulation in backward assume the parameter's dtype)
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{cpp_name(value._dtype)}' to a "
                f"tensor with grad_dtype '{torch_name(self._dtype)}'. The gradient must match "
                "the tensor's grad_dtype (defaults to the tensor's dtype)."
            )
    self._grad = value


grad = property(_get_grad, _set_grad)


def retain_grad(self: Tensor) -> None:
    """Keep the gradient of this non-leaf tensor in ``.grad`` during backward: the gradient
    after the tensor's hooks have run, whenever they were registered (PyTorch >= 2.0).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> y = x * 2
    >>> y.retain_grad()
    >>> _ = y.register_hook(lambda g: g * 10)
    >>> y.sum().backward(); y.grad
    tensor([10., 10.])
    """
    from .autograd.graph import RetainGrad, add_tensor_hook, autograd_meta

    if not _public_rg(self):
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self._grad_fn is None:
        return
    m = autograd_meta(self)
    if m.retains_grad:
        return
    m.retains_grad = True
    add_tensor_hook(self, RetainGrad(self))


def _retains_grad(self: Tensor) -> bool:
    """Whether :meth:`retain_grad` was called on this non-leaf tensor."""
    return bool(self._ag is not None and self._ag.retains_grad)


retains_grad = property(_retains_grad)


class _RemovableHandle:
    def __init__(self, hooks: list[Any], fn: Any) -> None:
        self._hooks, self._fn = hooks, fn

    def remove(self) -> None:
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


@checked("register_hook(Tensor self, Callable hook) -> Any")
def register_hook(self: Tensor, hook: Any) -> _RemovableHandle:
    """Call ``hook(grad)`` when this tensor's gradient is computed; a non-None return
    replaces the gradient. Returns a handle with ``remove()``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> x.sum().backward(); x.grad
    tensor([10., 10.])
    """
    from .autograd.graph import add_tensor_hook, autograd_meta

    if not _public_rg(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if current_grad_fn(self) is None:  # (a view whose base joined the graph gets its node)
        hooks = autograd_meta(self).hooks
        hooks.append(hook)
    else:
        hooks = add_tensor_hook(self, hook)
    return _RemovableHandle(hooks, hook)


@checked("register_post_accumulate_grad_hook(Tensor self, Callable hook) -> Any")
def register_post_accumulate_grad_hook(self: Tensor, hook: Any) -> _RemovableHandle:
    """Call ``hook(tensor)`` after a gradient has been accumulated into this leaf's
    ``.grad`` during backward (its return value is ignored). Returns a handle with
    ``remove()``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.ones(2, requires_grad=True)
    >>> seen = []
    >>> h = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    >>> (w * 3).sum().backward(); seen
    [[3.0, 3.0]]
    """
    from .autograd.graph import autograd_meta

    if not _public_rg(self):
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = autograd_meta(self).post_accumulate_hooks
    hooks.append(hook)
    return _RemovableHandle(hooks, hook)
