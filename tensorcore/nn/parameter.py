"""``nn.Parameter``: a tensor that a :class:`~tensorcore.nn.Module` registers as a parameter;
``UninitializedParameter``/``UninitializedBuffer``: placeholders of the lazy modules."""

from __future__ import annotations

from typing import Any

from .._pickling import reduce_tensor
from .._tensor import Tensor, make_tensor
from .._tensor_methods import detach
from ..ops import functions as ops
from ..overrides import _disabled_torch_function_impl

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "is_lazy"]


class Parameter(Tensor):
    """A tensor that is a module parameter: assigned as an attribute of a
    :class:`~tensorcore.nn.Module`, it is registered in ``parameters()``.

    ``Parameter(data)`` shares ``data``'s storage (no copy) and requires grad unless
    ``requires_grad=False``. Operators on a parameter return plain tensors, as in PyTorch.

    Examples
    --------
    >>> import tensorcore as tc
    >>> p = tc.nn.Parameter(tc.zeros(2))
    >>> p
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
    >>> isinstance(p, tc.Tensor), type(p * 2).__name__
    (True, 'Tensor')
    """

    __slots__ = ()
    # (operators on a parameter give plain tensors: it takes over no call, as PyTorch's)
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = ops.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(
                f"Parameter(): data must be a Tensor, not {type(data).__name__}; "
                "wrap values with tensorcore.tensor(...) first"
            )
        src = detach(data)
        p = object.__new__(cls)  # not Tensor.__new__, the legacy constructor
        for slot in ("_storage", "_shape", "_stride", "_offset", "_dtype", "_device"):
            setattr(p, slot, getattr(src, slot))
        p._layout = src._layout
        p._native = src._native
        p._requires_grad = False
        p._grad_fn = None
        p._grad = None
        p._base = None
        p._ag = None
        p._view_meta = None
        p._version_counter = src._version_counter  # Parameter(x) shares x's, as detach does
        if requires_grad:
            p.requires_grad_()
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # __new__ built the parameter.
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        fn, args = reduce_tensor(self)[:2]
        return (_rebuild_parameter, (fn, args, self.requires_grad))


class Buffer(Tensor):
    """A tensor that is a module buffer: assigned as an attribute of a
    :class:`~tensorcore.nn.Module`, it is registered as a buffer (``persistent=False`` keeps
    it out of ``state_dict()``), as ``register_buffer`` does. It shares ``data``'s storage
    and keeps its ``requires_grad``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.Module()
    >>> m.scale = tc.nn.Buffer(tc.ones(2))
    >>> m.tmp = tc.nn.Buffer(tc.zeros(1), persistent=False)
    >>> [n for n, _ in m.named_buffers()], list(m.state_dict())
    (['scale', 'tmp'], ['scale'])
    """

    __slots__ = ("persistent",)
    persistent: bool
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = ops.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, not {type(data).__name__}")
        b = object.__new__(cls)
        src = detach(data)
        for slot in ("_storage", "_shape", "_stride", "_offset", "_dtype", "_device"):
            setattr(b, slot, getattr(src, slot))
        b._layout, b._native = src._layout, src._native
        b._requires_grad, b._grad_fn, b._grad, b._base, b._ag = False, None, None, None, None
        b._view_meta = None
        b._version_counter = src._version_counter
        b.persistent = persistent
        if data.requires_grad:
            b.requires_grad_()
        return b

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass


def _rebuild_parameter(fn: Any, args: tuple[Any, ...], requires_grad: bool) -> Parameter:
    return Parameter(fn(*args), requires_grad)


_UNINITIALIZED = (
    "Can't access the shape of an uninitialized parameter or buffer. This error usually "
    "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
    "initialized one. Call `forward` to initialize the parameters before accessing their "
    "attributes."
)


# Tensor's own storage of the ``_shape`` slot, which the placeholders' guard shadows.
_SHAPE_SLOT: Any = Tensor.__dict__["_shape"]


def _in_use(cls: type) -> str:
    return (
        "Attempted to use an uninitialized parameter. This error happens when you are using "
        "a `LazyModule` or explicitly manipulating `tensorcore.nn.parameter."
        f"{cls.__name__}` objects. When using LazyModules Call `forward` with a dummy batch "
        "to initialize the parameters before calling tensorcore functions"
    )


class UninitializedTensorMixin:
    """What the placeholders share: ``materialize`` turns one into a tensor of a given shape
    (in place: same object, now of class ``cls_to_become``); until then ``shape`` raises, and
    so does any operator given one (``p + 1``, ``F.linear(x, p)``: PyTorch's ``ValueError``).

    Operators reach a tensor's sizes through its ``_shape`` slot, so the placeholder's class
    shadows that slot with a property that raises: the check costs the call path nothing,
    where a test of each argument's class would cost every call.
    """

    __slots__ = ()
    cls_to_become: type = Tensor
    # (the placeholders' own check raises for operators: they take over no call)
    __torch_function__ = _disabled_torch_function_impl

    @property
    def _shape(self) -> Any:
        raise ValueError(_in_use(type(self)))

    @_shape.setter
    def _shape(self, value: Any) -> None:
        _SHAPE_SLOT.__set__(self, value)

    @property
    def data(self) -> Tensor:
        """The placeholder's empty tensor (PyTorch's ``tensor([])``)."""
        return self._materialized_view()

    @data.setter
    def data(self, value: Tensor) -> None:
        if isinstance(value, UninitializedTensorMixin):
            value = value._materialized_view()  # (another placeholder: its dtype and device)
        Tensor.data.fset(self, value)

    def to(self, *args: Any, **kwargs: Any) -> Any:
        """A placeholder of the dtype and device ``Tensor.to`` would give (``Module.to``,
        ``.double()``, ``.cuda()`` on a lazy module before its first forward)."""
        t: Any = self
        v = self._materialized_view().to(*args, **kwargs)
        if v._dtype is t._dtype and v._device == t._device:
            return self
        cls: Any = type(self)
        return cls(t._requires_grad, device=v._device, dtype=v._dtype)

    def size(self, dim: Any = None) -> Any:
        """The placeholder's sizes (those of an empty tensor), as PyTorch allows."""
        return Tensor.size(self._materialized_view(), dim)

    def _materialized_view(self) -> Tensor:
        t: Any = self
        return make_tensor(t._storage, _SHAPE_SLOT.__get__(self), t._stride, t._offset,
                           t._dtype, t._device)  # fmt: skip

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Become an uninitialised tensor of ``shape`` (on ``device``/of ``dtype``, by default
        the ones the placeholder was made with), of class ``cls_to_become``."""
        t: Any = self
        if device is None:
            device = t._device
        if dtype is None:
            dtype = t._dtype
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        data = ops.empty(shape, device=device, dtype=dtype)
        t.__class__ = self.cls_to_become  # (first: the placeholder's sizes cannot be read)
        t.data = data

    @property
    def shape(self) -> Any:
        """Raises: the placeholder has no shape until it is materialized."""
        raise RuntimeError(_UNINITIALIZED)

    def numel(self) -> int:
        """Raises PyTorch's ``ValueError``: the placeholder has no elements to count yet."""
        raise ValueError(_in_use(type(self)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (type(self), (self._requires_grad,))  # type: ignore[attr-defined]

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        t: Any = self
        if id(self) not in memo:
            cls: Any = type(self)
            memo[id(self)] = cls(t._requires_grad, device=t._device, dtype=t._dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter of unknown shape, which a lazy module materializes on its first forward
    (it then becomes a :class:`Parameter`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> p = tc.nn.UninitializedParameter()
    >>> p
    <UninitializedParameter>
    >>> p.materialize((2, 3))
    >>> type(p).__name__, p.shape, p.requires_grad
    ('Parameter', tensorcore.Size([2, 3]), True)
    """

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(
        cls, requires_grad: bool = True, device: Any = None, dtype: Any = None
    ) -> UninitializedParameter:
        p = Parameter.__new__(cls, ops.empty(0, device=device, dtype=dtype), requires_grad)
        assert isinstance(p, UninitializedParameter)
        return p

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer of unknown shape, which a lazy module materializes on its first forward (it
    then becomes a :class:`~tensorcore.Tensor`).

    Examples
    --------
    >>> import tensorcore as tc
    >>> b = tc.nn.UninitializedBuffer()
    >>> b.materialize(4)
    >>> type(b).__name__, b.shape
    ('Tensor', tensorcore.Size([4]))
    """

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(
        cls, requires_grad: bool = False, device: Any = None, dtype: Any = None
    ) -> UninitializedBuffer:
        t = Tensor._make_subclass(cls, ops.empty(0, device=device, dtype=dtype), requires_grad)  # type: ignore[attr-defined]
        assert isinstance(t, UninitializedBuffer)
        return t

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None) -> None:
        pass


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is a placeholder not yet materialized.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.nn.parameter import is_lazy
    >>> is_lazy(tc.nn.UninitializedParameter()), is_lazy(tc.nn.Parameter(tc.ones(1)))
    (True, False)
    """
    return isinstance(param, UninitializedTensorMixin)
