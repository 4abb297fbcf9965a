"""``tensorcore.nn.utils.prune``: pruning a module's tensors with masks, as PyTorch's
``torch.nn.utils.prune``.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, adds a buffer
``weight_mask`` (1 keeps an entry, 0 prunes it) and makes ``module.weight`` the plain tensor
``weight_orig * weight_mask``, recomputed by a forward pre-hook (the pruning method itself)
before every call. Pruning the same tensor again combines the masks in a
:class:`PruningContainer`: the new method only sees the entries (or channels) still kept.
:func:`remove` makes the pruning permanent: ``weight`` is a parameter again, holding the
pruned values.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn.utils import prune
>>> lin = tc.nn.Linear(2, 2)
>>> with tc.no_grad():
...     _ = lin.weight.copy_(tc.tensor([[0.1, -2.0], [3.0, -0.2]]))
>>> _ = prune.l1_unstructured(lin, "weight", amount=0.5)
>>> lin.weight
tensor([[ 0., -2.],
        [ 3., -0.]], grad_fn=<MulBackward0>)
>>> sorted(name for name, _ in lin.named_buffers())
['weight_mask']
>>> _ = prune.remove(lin, "weight")
>>> sorted(name for name, _ in lin.named_parameters())
['bias', 'weight']
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

from ..._tensor import Tensor
from ...ops import functions as ops
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


class BasePruningMethod(ABC):
    """The base of pruning methods: a subclass defines ``compute_mask(t, default_mask)`` and
    its ``PRUNING_TYPE`` ('unstructured', 'structured' or 'global')."""

    _tensor_name: str | None = None
    PRUNING_TYPE: str = "unstructured"

    def __call__(self, module: Any, inputs: Any) -> None:
        # The forward pre-hook: the pruned tensor, from the current parameter and mask.
        setattr(module, self._tensor_name, self.apply_mask(module))  # type: ignore[arg-type]

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for ``t`` (the same shape), given the mask already applied."""

    def apply_mask(self, module: Any) -> Tensor:
        """``module``'s tensor ``<name>_orig`` times its mask ``<name>_mask``."""
        if self._tensor_name is None:
            raise RuntimeError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls,
        module: Any,
        name: str,
        *args: Any,
        importance_scores: Tensor | None = None,
        **kwargs: Any,
    ) -> Any:
        """Prune ``module.<name>`` with a new method ``cls(*args, **kwargs)`` (combined with
        the pruning already there), ranking entries by ``importance_scores`` (the tensor
        itself by default)."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif tuple(importance_scores.shape) != tuple(orig.shape):
            raise ValueError(
                f"importance_scores should have the same shape as parameter {name} of {module}"
            )
        fresh = not isinstance(method, PruningContainer)
        if fresh:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ops.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if fresh:
                restored = getattr(module, name + "_orig")
                del module._parameters[name + "_orig"]
                module.register_parameter(name, restored)
            raise
        return method

    def prune(
        self,
        t: Tensor,
        default_mask: Tensor | None = None,
        importance_scores: Tensor | None = None,
    ) -> Tensor:
        """``t`` times the mask this method computes for it (ranked by
        ``importance_scores`` when given)."""
        scores = t if importance_scores is None else importance_scores
        mask = ops.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=mask)

    def remove(self, module: Any) -> None:
        """Make the pruning of ``module`` permanent (see :func:`remove`)."""
        if self._tensor_name is None:
            raise RuntimeError(f"Module {module} has to be pruned before pruning can be removed")
        name = self._tensor_name
        weight = self.apply_mask(module)
        if name in module.__dict__:
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _composite_method(cls: type, module: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """The method to apply: a new ``cls`` alone, or added to the pruning already on
    ``module.<name>`` (whose hook it replaces)."""
    old = None
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            if old is not None:
                raise RuntimeError(
                    f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                    f"{module}. Use a PruningContainer."
                )
            old = hook
            del module._forward_pre_hooks[k]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if isinstance(old, PruningContainer):
        old.add_pruning_method(method)
        return old
    if old is not None:
        container = PruningContainer(old)
        container.add_pruning_method(method)
        return container
    return method


class PruningContainer(BasePruningMethod):
    """The successive pruning methods of one tensor: the last one added computes its mask
    over the entries (or channels) that the earlier masks keep."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: Any) -> None:
        """Append ``method`` (which must prune the same tensor)."""
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Iterator[BasePruningMethod]:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            keep: Any = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    "Pruning methods of PRUNING_TYPE 'structured' need to have the attribute "
                    "`dim` defined."
                )
            dim = method.dim % t.ndim
            others = [d for d in range(t.ndim) if d != dim]
            channels = default_mask.sum(dim=others) != 0
            keep = (slice(None),) * dim + (channels,)
        elif kind == "global":
            keep = (slice(None),) * t.ndim
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[keep], default_mask=new_mask[keep])
        new_mask[keep] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> Any:  # type: ignore[override]
        """Add an all-ones mask to ``module.<name>``."""
        return super().apply(module, name)


def _check_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _n_to_prune(amount: Any, size: int) -> int:
    n = int(amount) if isinstance(amount, numbers.Integral) else round(amount * size)
    if n > size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to prune={size}"
        )
    return n


def _check_structured(t: Tensor, dim: int) -> None:
    if t.ndim <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {tuple(t.shape)} with {t.ndim} dims"
        )
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {tuple(t.shape)}")


class _Unstructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction, or a count) of the entries, those of lowest score."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: Any) -> None:
        _check_amount_init(amount)
        self.amount = amount

    def _scores(self, t: Tensor) -> Tensor:
        raise NotImplementedError

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        n = _n_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if n:
            chosen = self._scores(t).reshape(-1).topk(n, largest=False).indices
            mask.view(-1)[chosen] = 0
        return mask


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` (a fraction, or a count) of the entries, chosen at random."""

    def _scores(self, t: Tensor) -> Tensor:
        # (the largest of the draws, as PyTorch takes them: the same entries for one seed)
        return -ops.rand_like(t)

    @classmethod
    def apply(cls, module: Any, name: str, amount: Any) -> Any:  # type: ignore[override]
        """Prune ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Unstructured):
    """Prunes ``amount`` (a fraction, or a count) of the entries, those of smallest
    absolute value."""

    def _scores(self, t: Tensor) -> Tensor:
        return t.abs()

    @classmethod
    def apply(  # type: ignore[override]
        cls, module: Any, name: str, amount: Any, importance_scores: Tensor | None = None
    ) -> Any:
        """Prune ``module.<name>`` by magnitude."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _channel_mask(t: Tensor, dim: int, keep: Tensor) -> Tensor:
    mask = ops.zeros_like(t)
    mask[(slice(None),) * dim + (keep,)] = 1
    return mask


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction, or a count) of the channels along ``dim``, chosen at
    random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, dim: int = -1) -> None:
        _check_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        n = _n_to_prune(self.amount, size)
        if n == 0:
            return default_mask
        prob = ops.rand(size)
        threshold = prob.kthvalue(n).values
        mask = _channel_mask(t, self.dim % t.ndim, (prob > threshold).to(t.device))
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, amount: Any, dim: int = -1) -> Any:  # type: ignore[override]
        """Prune channels of ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction, or a count) of the channels along ``dim``, those of
    smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: Any, n: Any, dim: int = -1) -> None:
        _check_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        n_prune = _n_to_prune(self.amount, size)
        if n_prune == 0:
            return default_mask
        dim = self.dim % t.ndim
        others = [d for d in range(t.ndim) if d != dim]
        norm = ops.norm(t, self.n, others)
        kept = norm.topk(size - n_prune, largest=True).indices
        mask = _channel_mask(t, dim, kept)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(  # type: ignore[override]
        cls,
        module: Any,
        name: str,
        amount: Any,
        n: Any,
        dim: int,
        importance_scores: Tensor | None = None,
    ) -> Any:
        """Prune channels of ``module.<name>`` by norm."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes the entries where a given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if tuple(default_mask.shape) != tuple(self.mask.shape):
            raise RuntimeError(
                f"mask of shape {tuple(self.mask.shape)} does not match the tensor of shape "
                f"{tuple(default_mask.shape)}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, mask: Tensor) -> Any:  # type: ignore[override]
        """Prune ``module.<name>`` with ``mask``."""
        return super().apply(module, name, mask=mask)


# ------------------------------------------------------------------ functions
def identity(module: Any, name: str) -> Any:
    """Add an all-ones mask to ``module.<name>``; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Any, name: str, amount: Any) -> Any:
    """Prune ``amount`` of the entries of ``module.<name>`` at random; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Any, name: str, amount: Any, importance_scores: Tensor | None = None
) -> Any:
    """Prune ``amount`` (a fraction, or a count) of the entries of ``module.<name>`` of
    smallest absolute value (of ``importance_scores`` when given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Any, name: str, amount: Any, dim: int) -> Any:
    """Prune ``amount`` of the channels along ``dim`` of ``module.<name>`` at random."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Any,
    name: str,
    amount: Any,
    n: Any,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Any:
    """Prune ``amount`` of the channels along ``dim`` of ``module.<name>`` of smallest
    ``n``-norm; returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(
    parameters: Iterable[tuple[Any, str]],
    pruning_method: type,
    importance_scores: dict[tuple[Any, str], Tensor] | None = None,
    **kwargs: Any,
) -> None:
    """Prune the tensors ``(module, name)`` of ``parameters`` together, ranked as one vector
    by an unstructured ``pruning_method`` (``L1Unstructured``, ``RandomUnstructured``) with
    ``kwargs`` (``amount=``)."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    scores = {} if importance_scores is None else importance_scores
    if not isinstance(scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant = parameters_to_vector([scores.get((m, n), getattr(m, n)) for (m, n) in parameters])
    default = parameters_to_vector(
        [
            getattr(m, n + "_mask") if hasattr(m, n + "_mask") else ops.ones_like(getattr(m, n))
            for (m, n) in parameters
        ]
    )
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final = container.compute_mask(relevant, default)
    start = 0
    for m, n in parameters:
        p = getattr(m, n)
        custom_from_mask(m, n, mask=final[start : start + p.numel()].view_as(p))
        start += p.numel()


def custom_from_mask(module: Any, name: str, mask: Tensor) -> Any:
    """Prune the entries of ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Any, name: str) -> Any:
    """Make the pruning of ``module.<name>`` permanent: ``<name>`` becomes a parameter again
    holding the pruned values; ``<name>_orig``, ``<name>_mask`` and the hook go. Returns
    ``module``."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Any) -> bool:
    """Whether ``module`` or one of its submodules has a pruned tensor."""
    return any(
        isinstance(hook, BasePruningMethod)
        for m in module.modules()
        for hook in m._forward_pre_hooks.values()
    )
