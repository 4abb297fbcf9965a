"""``parameters_to_vector`` and ``vector_to_parameters``, as PyTorch's.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.nn import utils
>>> lin = tc.nn.Linear(2, 1)
>>> utils.parameters_to_vector(lin.parameters()).shape
tensorcore.Size([3])
"""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...devices import device as Device
from ...ops import functions as ops

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, first: Device | None) -> Device:
    """The device of the first parameter; raise if ``param`` lives elsewhere."""
    if first is None:
        return param.device
    if param.device != first:
        raise TypeError(
            "Found two parameters on different devices, this is currently not supported."
        )
    return first


def _typename(obj: object) -> str:
    """``torch.typename`` for a non-tensor: the object's (or else its class's) qualified
    name, with the module unless it is ``builtins``."""
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Flatten the parameters and concatenate them into one vector.

    The result is a copy connected to the autograd graph (gradients flow back to the
    parameters).

    Parameters
    ----------
    parameters : iterable of Tensor
        The parameters of a model, all on one device.

    Returns
    -------
    Tensor
        A 1-D tensor with ``sum(p.numel())`` elements.

    Raises
    ------
    TypeError
        If the parameters are on different devices.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nn.utils.parameters_to_vector([tc.ones(2, 2), tc.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    first: Device | None = None
    flat = []
    for param in parameters:
        first = _check_param_device(param, first)
        flat.append(param.reshape(-1))
    return ops.cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Point the parameters' data at consecutive slices of ``vec``.

    As in PyTorch, each parameter's ``.data`` becomes a view of ``vec`` (the parameter
    objects keep their identity; later writes to ``vec`` show in them). Elements of ``vec``
    past the parameters' total size are ignored; too few raise ``view_as``'s error.

    Parameters
    ----------
    vec : Tensor
        A 1-D tensor holding the parameters' values one after the other.
    parameters : iterable of Tensor
        The parameters of a model, all on one device.

    Raises
    ------
    TypeError
        If ``vec`` is not a Tensor, or the parameters are on different devices.
    RuntimeError
        If ``vec`` has too few elements.

    Examples
    --------
    >>> import tensorcore as tc
    >>> a, b = tc.nn.Parameter(tc.zeros(2)), tc.nn.Parameter(tc.zeros(1))
    >>> tc.nn.utils.vector_to_parameters(tc.tensor([1.0, 2.0, 3.0]), [a, b])
    >>> a.tolist(), b.tolist()
    ([1.0, 2.0], [3.0])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    first: Device | None = None
    pointer = 0
    for param in parameters:
        first = _check_param_device(param, first)
        n = param.numel()
        param.data = vec[pointer : pointer + n].view_as(param).data
        pointer += n
