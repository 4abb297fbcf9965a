"""Normalisation layers: ``BatchNorm1d/2d/3d``, ``LayerNorm``, ``GroupNorm``."""

from __future__ import annotations

from typing import Any

from ... import dtypes as dt
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops import functions as ops
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import _factory
from .module import Module

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "CrossMapLRN2d",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LayerNorm",
    "LocalResponseNorm",
    "RMSNorm",
]


class _NormBase(Module):
    """What batch and instance normalisation share (PyTorch's ``_NormBase``): the affine
    parameters, the running statistics and their reset, the input check, the state-dict
    version."""

    _dims: tuple[int, ...] = ()
    _version = 2  # (state dicts' metadata; version 2 added num_batches_tracked, as PyTorch's)

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.use_bias = affine and bias
        kw = _factory(device, dtype)
        if affine:
            self.weight = Parameter(ops.ones(num_features, **kw))
            if bias:
                self.bias = Parameter(ops.zeros(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", ops.zeros(num_features, **kw))
            self.register_buffer("running_var", ops.ones(num_features, **kw))
            self.register_buffer(
                "num_batches_tracked", ops.zeros((), dtype=dt.int64, device=kw["device"])
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Running mean 0, variance 1, no batches seen."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Running statistics reset; weight 1, bias 0."""
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                self.weight.fill_(1)
                if self.bias is not None:
                    self.bias.zero_()

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.use_bias}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict: Any, prefix: str, local_metadata: dict[str, Any], *args: Any
    ) -> None:
        # Version 2 added num_batches_tracked: an older checkpoint (or one without metadata)
        # loads without it, keeping the module's count (0 if it has none), as in PyTorch; a
        # version-2 one missing it reports the key missing.
        key = prefix + "num_batches_tracked"
        version = local_metadata.get("version")
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict = dict(state_dict)
            nbt = self.num_batches_tracked
            keep = nbt is not None and nbt.device.type != "meta"
            state_dict[key] = nbt if keep else ops.zeros((), dtype=dt.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)


class _BatchNorm(_NormBase):
    """Batch normalisation: the base of ``BatchNorm1d/2d/3d`` and ``SyncBatchNorm`` (not of
    the instance norms, as in PyTorch: ``isinstance(m, _BatchNorm)`` finds batch norms only)."""

    def forward(self, input: Tensor) -> Tensor:
        """Batch statistics in training mode (updating the running ones), running statistics
        in eval mode (or always the batch's without ``track_running_stats``)."""
        self._check_input_dim(input)
        running_mean, running_var, use_batch, momentum = self._statistics()
        return F.batch_norm(
            input, running_mean, running_var, self.weight, self.bias, use_batch, momentum,
            self.eps,
        )  # fmt: skip

    def _statistics(self) -> tuple[Tensor | None, Tensor | None, bool, float]:
        """One forward's choice of statistics (shared with SyncBatchNorm): the running
        mean and variance to read or update (None for none), whether the batch's are used,
        and the momentum; counts the batch in ``num_batches_tracked`` when training."""
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        running_mean = self.running_mean if keep else None
        running_var = self.running_var if keep else None
        return running_mean, running_var, use_batch, momentum


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> bn = tc.nn.BatchNorm1d(3)
    >>> bn
    BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> [n for n, _ in bn.named_buffers()]
    ['running_mean', 'running_var', 'num_batches_tracked']
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) inputs, per channel."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) inputs, per channel."""

    _dims = (5,)


class LayerNorm(Module):
    """Normalisation over the last dims (``normalized_shape``), with an elementwise affine
    transform.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LayerNorm(4)(tc.arange(8.0).reshape(2, 4)).sum().abs().item() < 1e-5
    True
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (
            (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        )
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        kw = _factory(device, dtype)
        if elementwise_affine:
            self.weight = Parameter(ops.ones(shape, **kw))
            if bias:
                self.bias = Parameter(ops.zeros(shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.layer_norm`."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """Root-mean-square normalisation over the last dims (``normalized_shape``), with an
    elementwise scale (LLaMA-style models' norm layer).

    Examples
    --------
    >>> import tensorcore as tc
    >>> norm = tc.nn.RMSNorm(2)
    >>> norm
    RMSNorm((2,), eps=None, elementwise_affine=True)
    >>> norm(tc.tensor([[3.0, 4.0]]))
    tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(
        self,
        normalized_shape: Any,
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (
            (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        )
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ops.ones(shape, **_factory(device, dtype)))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """Ones."""
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.rms_norm`."""
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    """Normalisation over groups of channels."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        kw = _factory(device, dtype)
        if affine:
            self.weight = Parameter(ops.ones(num_channels, **kw))
            if bias:
                self.bias = Parameter(ops.zeros(num_channels, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.group_norm`."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _InstanceNorm(_NormBase):
    """Instance normalisation: PyTorch's defaults are ``affine=False`` and
    ``track_running_stats=False``."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.instance_norm`."""
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")
        if input.ndim == self._dims[0]:  # unbatched
            return self.forward(input.unsqueeze(0)).squeeze(0)
        use_stats = self.training or not self.track_running_stats
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_stats,
            0.1 if self.momentum is None else self.momentum,
            self.eps,
        )


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) (or unbatched (C, L)) inputs."""

    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) (or unbatched (C, H, W)) inputs.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.InstanceNorm2d(3)
    InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) (or unbatched) inputs."""

    _dims = (4, 5)


class LocalResponseNorm(Module):
    """Normalization across neighbouring channels (AlexNet).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        """See :func:`tensorcore.nn.functional.local_response_norm`."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """PyTorch's legacy cross-channel normalisation of 4-D inputs:
    ``x / (k + alpha / size * s) ** beta``, with ``s`` the running sum of squares over the
    channel window of its legacy kernel (which, unlike :class:`LocalResponseNorm`'s centred
    mean, keeps the first channel in every window from ``(size + 1) // 2`` on).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.CrossMapLRN2d(3)(tc.ones(1, 4, 2, 2)).shape
    tensorcore.Size([1, 4, 2, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        """The normalised input."""
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D instead.")
        channels = input.shape[1]
        sq = input * input
        pre_pad = int((self.size - 1) / 2 + 1)
        scale = sq[:, : min(pre_pad, channels)].sum(1)
        scales = [scale]
        for c in range(1, channels):
            if c < channels - pre_pad + 1:
                scale = scale + sq[:, c + pre_pad - 1]
            if c > pre_pad:
                scale = scale - sq[:, c - pre_pad]
            scales.append(scale)
        total = ops.stack(scales, 1) * (self.alpha / self.size) + self.k
        return input * total ** (-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
