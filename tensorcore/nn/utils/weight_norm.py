"""The older, hook-based ``weight_norm`` and ``spectral_norm`` (``tensorcore.nn.utils``), as
PyTorch's ``torch.nn.utils.weight_norm`` / ``spectral_norm``: the parameter is replaced by
``<name>_g``/``<name>_v`` (``<name>_orig`` and the buffers ``<name>_u``/``<name>_v``) and a
forward pre-hook recomputes ``module.<name>`` before each call. New code should use
:mod:`tensorcore.nn.utils.parametrizations`."""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from ..parameter import Parameter
from .parametrizations import _weight_norm, norm_except_dim

__all__ = ["remove_spectral_norm", "remove_weight_norm", "spectral_norm", "weight_norm"]


def _uninitialized(weight: Any) -> bool:
    return type(weight).__name__ == "UninitializedParameter"


class WeightNorm:
    """The forward pre-hook of :func:`weight_norm`."""

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Replace ``module.<name>`` by ``<name>_g * <name>_v / ||<name>_v||`` (parameters
    ``<name>_g`` and ``<name>_v``), recomputed before each forward. Deprecated in PyTorch in
    favour of :func:`tensorcore.nn.utils.parametrizations.weight_norm` (a ``FutureWarning``,
    as there).

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = tc.nn.utils.weight_norm(tc.nn.Linear(3, 2))
    >>> sorted(m.state_dict()), m.weight_g.shape
    (['bias', 'weight_g', 'weight_v'], tensorcore.Size([2, 1]))
    """
    warnings.warn(
        "`torch.nn.utils.weight_norm` is deprecated in favor of "
        "`torch.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two weight_norm hooks on the same parameter {name}"
            )
    fn = WeightNorm(name, -1 if dim is None else dim)
    weight = getattr(module, name)
    if _uninitialized(weight):
        raise ValueError(
            "The module passed to `WeightNorm` can't have uninitialized parameters. Make sure "
            "to run the dummy forward before applying weight normalization"
        )
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, fn.compute_weight(module))
    module.register_forward_pre_hook(fn)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``module.<name>`` becomes a parameter again.

    Examples
    --------
    >>> import warnings
    >>> import tensorcore as tc
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = tc.nn.utils.weight_norm(tc.nn.Linear(3, 2))
    >>> sorted(tc.nn.utils.remove_weight_norm(m).state_dict())
    ['bias', 'weight']
    """
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm`."""

    def __init__(self, name: str, n_power_iterations: int, dim: int, eps: float) -> None:
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.name, self.dim, self.eps = name, dim, eps
        self.n_power_iterations = n_power_iterations

    def reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool) -> Tensor:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(weight_mat.t() @ u, dim=0, eps=self.eps))
                    u.copy_(F.normalize(weight_mat @ v, dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = (u * (weight_mat @ v)).sum()
        return weight / sigma

    def remove(self, module: Module) -> None:
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module, module.training))


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide ``module.<name>`` by its spectral norm before each forward (power iteration
    on the buffers ``<name>_u``/``<name>_v``; the parameter becomes ``<name>_orig``). ``dim``
    defaults to 1 for transposed convolutions and 0 otherwise.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.utils.spectral_norm(tc.nn.Linear(20, 40))
    >>> m.weight_u.shape, sorted(m.state_dict())
    (tensorcore.Size([40]), ['bias', 'weight_orig', 'weight_u', 'weight_v'])
    """
    if dim is None:
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    for hook in module._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            raise RuntimeError(
                f"Cannot register two spectral_norm hooks on the same parameter {name}"
            )
    fn = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = module._parameters[name]
    if weight is None:
        raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
    if _uninitialized(weight):
        raise ValueError(
            "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
            "sure to run the dummy forward before applying spectral normalization"
        )
    with no_grad():
        weight_mat = fn.reshape_weight_to_matrix(weight)
        h, w = weight_mat.shape
        u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
        v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
    delattr(module, fn.name)
    module.register_parameter(fn.name + "_orig", weight)
    setattr(module, fn.name, weight.data)
    module.register_buffer(fn.name + "_u", u)
    module.register_buffer(fn.name + "_v", v)
    module.register_forward_pre_hook(fn)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`spectral_norm`: ``module.<name>`` becomes a parameter again.

    Examples
    --------
    >>> import tensorcore as tc
    >>> m = tc.nn.utils.spectral_norm(tc.nn.Linear(3, 2))
    >>> sorted(tc.nn.utils.remove_spectral_norm(m).state_dict())
    ['bias', 'weight']
    """
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
