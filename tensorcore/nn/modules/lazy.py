"""Lazy modules: layers whose input size is inferred on the first forward, as PyTorch's
``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d`` and
``LazyBatchNorm1d/2d/3d``.

A lazy layer starts with :class:`~tensorcore.nn.UninitializedParameter` placeholders; a
forward pre-hook reads the input's size, materializes them, runs ``reset_parameters`` and
turns the module into its plain class (``LazyLinear`` becomes ``Linear``), as in PyTorch.
Loading a state dict into a lazy module materializes its placeholders from the saved shapes.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)

__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
    "LazyModuleMixin",
]


class LazyModuleMixin:
    """The lazy behaviour, mixed in before a layer class: ``initialize_parameters(*input)``
    (written by each lazy layer) runs from a forward pre-hook on the first call, then the
    module becomes ``cls_to_become``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyLinear(4)
    >>> m.has_uninitialized_params(), m
    (True, LazyLinear(in_features=0, out_features=4, bias=True))
    >>> m(tc.ones(2, 3)).shape, m
    (tensorcore.Size([2, 4]), Linear(in_features=3, out_features=4, bias=True))
    """

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        module._initialize_hook = module.register_forward_pre_hook(
            _infer_parameters, with_kwargs=True
        )

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer is still a placeholder."""
        module: Any = self
        members = itertools.chain(module._parameters.values(), module._buffers.values())
        return any(is_lazy(t) for t in members)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialize the placeholders from the first input (each lazy layer writes it)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def _save_to_state_dict(
        self, destination: dict[str, Any], prefix: str, keep_vars: bool
    ) -> None:
        module: Any = self
        for name, p in module._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
        for name, b in module._buffers.items():
            if b is not None and name not in module._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()

    def _load_from_state_dict(self, state_dict: Mapping[str, Any], prefix: str, *args: Any) -> None:
        module: Any = self
        for name, t in itertools.chain(module._parameters.items(), module._buffers.items()):
            key = prefix + name
            if t is not None and is_lazy(t) and key in state_dict:
                value = state_dict[key]
                if isinstance(value, Tensor) and not is_lazy(value):
                    with no_grad():
                        t.materialize(value._shape)
        super()._load_from_state_dict(state_dict, prefix, *args)  # type: ignore[misc]


def _infer_parameters(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    module.initialize_parameters(*args, **(kwargs or {}))
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module.__dict__["_initialize_hook"]
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


def _factory(device: Any, dtype: Any) -> dict[str, Any]:
    return {"device": device, "dtype": dtype}


class LazyLinear(LazyModuleMixin, Linear):
    """A :class:`~tensorcore.nn.Linear` whose ``in_features`` is the last dim of its first
    input.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyLinear(2)
    >>> type(m.weight).__name__
    'UninitializedParameter'
    >>> _ = m(tc.ones(5, 7))
    >>> type(m).__name__, m.weight.shape
    ('Linear', tensorcore.Size([2, 7]))
    """

    cls_to_become = Linear
    weight: Any
    bias: Any

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        kw = _factory(device, dtype)
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(**kw)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**kw)

    def reset_parameters(self) -> None:
        """The plain layer's initialisation, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """``in_features`` from ``input.shape[-1]``."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    in_channels: int
    out_channels: int
    groups: int
    transposed: bool
    kernel_size: tuple[int, ...]
    weight: Any
    bias: Any
    _nd: int

    def _setup(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        kw = _factory(device, dtype)
        module: Any = self
        module.weight = UninitializedParameter(**kw)
        self.out_channels = out_channels
        if bias:
            module.bias = UninitializedParameter(**kw)
        # (the plain class's __init__ ran instead of LazyModuleMixin's, which registers this)
        module._initialize_hook = module.register_forward_pre_hook(
            _infer_parameters, with_kwargs=True
        )

    def reset_parameters(self) -> None:
        """The plain layer's initialisation, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def _get_in_channels(self, input: Tensor) -> int:
        batched = self._nd + 2
        if input.ndim not in (batched - 1, batched):
            raise RuntimeError(
                f"Expected {batched - 1}D (unbatched) or {batched}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        return int(input.shape[1] if input.ndim == batched else input.shape[0])

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """``in_channels`` from the input's channel dim."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
            with no_grad():
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(plain: Any, nd: int) -> type:
    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        plain.__init__(
            self, 0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
            device=device, dtype=dtype,
        )  # fmt: skip
        self._setup(out_channels, bias, device, dtype)

    return _lazy_class(plain, nd, __init__, "m.in_channels", "2")


def _lazy_conv_transpose(plain: Any, nd: int) -> type:
    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        plain.__init__(
            self, 0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation,
            padding_mode, device=device, dtype=dtype,
        )  # fmt: skip
        self._setup(out_channels, bias, device, dtype)

    return _lazy_class(plain, nd, __init__, "tuple(m.weight.shape)[:2]", "(2, 4)")


def _lazy_class(plain: Any, nd: int, init: Any, shown: str, value: str) -> type:
    """The lazy class of convolution ``plain`` with constructor ``init``; its docstring's
    example prints ``shown`` (``value``) after a first input of 2 channels."""
    name = f"Lazy{plain.__name__}"
    doc = f"""A :class:`~tensorcore.nn.{plain.__name__}` whose ``in_channels`` is the channel
    dim of its first input.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.{name}(4, 3)
    >>> _ = m(tc.ones(1, 2{", 5" * nd}))
    >>> type(m).__name__, {shown}
    ('{plain.__name__}', {value})
    """
    return type(
        name,
        (_LazyConvXdMixin, plain),
        {
            "__init__": init,
            "__doc__": doc,
            "__module__": __name__,
            "cls_to_become": plain,
        },
    )


LazyConv1d: Any = _lazy_conv(Conv1d, 1)
LazyConv2d: Any = _lazy_conv(Conv2d, 2)
LazyConv3d: Any = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d: Any = _lazy_conv_transpose(ConvTranspose1d, 1)
LazyConvTranspose2d: Any = _lazy_conv_transpose(ConvTranspose2d, 2)
LazyConvTranspose3d: Any = _lazy_conv_transpose(ConvTranspose3d, 3)


class _LazyNormBase(LazyModuleMixin):
    num_features: int
    affine: bool
    track_running_stats: bool
    weight: Any
    bias: Any
    running_mean: Any
    running_var: Any

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        kw = _factory(device, dtype)
        super().__init__(0, eps, momentum, False, False, device, dtype)
        module: Any = self
        self.affine, self.track_running_stats = affine, track_running_stats
        module.use_bias = affine
        if affine:
            self.weight = UninitializedParameter(**kw)
            self.bias = UninitializedParameter(**kw)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(**kw)
            self.running_var = UninitializedBuffer(**kw)
            module.num_batches_tracked = ops.zeros((), dtype=dt.int64, device=device)

    def reset_parameters(self) -> None:
        """The plain layer's initialisation, once the shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()  # type: ignore[misc]

    #: The number of dims of an unbatched input (instance norms take one: (C, L)).
    _unbatched_ndim = -1

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        """``num_features`` from ``input.shape[1]`` (``shape[0]`` of an unbatched input)."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[0 if input.ndim == self._unbatched_ndim else 1]
            with no_grad():
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A :class:`~tensorcore.nn.BatchNorm1d` whose ``num_features`` is ``input.shape[1]``
    of its first input.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyBatchNorm1d()
    >>> _ = m(tc.randn(4, 3))
    >>> m
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A :class:`~tensorcore.nn.BatchNorm2d` whose ``num_features`` is ``input.shape[1]``
    of its first input.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyBatchNorm2d()
    >>> m(tc.randn(2, 3, 4, 4)).shape, m.running_mean.shape
    (tensorcore.Size([2, 3, 4, 4]), tensorcore.Size([3]))
    """

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A :class:`~tensorcore.nn.BatchNorm3d` whose ``num_features`` is ``input.shape[1]``
    of its first input.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyBatchNorm3d(affine=False)
    >>> _ = m(tc.randn(2, 3, 2, 2, 2))
    >>> type(m).__name__, m.num_features
    ('BatchNorm3d', 3)
    """

    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    """A :class:`~tensorcore.nn.InstanceNorm1d` whose ``num_features`` comes from its first
    input (PyTorch's lazy defaults: ``affine=True``, ``track_running_stats=True``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.LazyInstanceNorm1d()
    >>> m(tc.randn(2, 3, 5)).shape, m.weight.shape
    (tensorcore.Size([2, 3, 5]), tensorcore.Size([3]))
    """

    cls_to_become = InstanceNorm1d
    _unbatched_ndim = 2


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    """A :class:`~tensorcore.nn.InstanceNorm2d` whose ``num_features`` comes from its first
    input."""

    cls_to_become = InstanceNorm2d
    _unbatched_ndim = 3


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    """A :class:`~tensorcore.nn.InstanceNorm3d` whose ``num_features`` comes from its first
    input."""

    cls_to_become = InstanceNorm3d
    _unbatched_ndim = 4
