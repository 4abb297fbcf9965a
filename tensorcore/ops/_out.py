"""PyTorch's rules for an ``out=`` tensor, shared by every operator that takes one.

The structured frontends check ``out`` against the result's shape and dtype before their kernel
writes into it (:func:`check_out_spec`, :func:`resize_out`); an operator written with other
operators (a composite, or a function of ``tc.linalg``) computes its result as without
``out=`` and :func:`write_out` writes it into ``out`` under the same rules:

- the dtype: the result's dtype must cast safely to ``out``'s (``exact``: be ``out``'s);
- the shape: an ``out`` of another shape is resized, with PyTorch's deprecation warning
  when it has elements (an empty one silently); one that an input reads is refused instead,
  and so is any that shares memory with an input, for an operator that is not pointwise;
- ``out`` may not have elements sharing memory (an expanded tensor), nor require grad, and no
  input may require grad while grad mode records (checked by the call path, ``ops/_call.py``);
- several outputs take a tuple (or list) of as many tensors; all are checked before any is
  written, so a refused call changes none.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import _registry
from .. import dtypes as dt
from .._memory_format import is_non_overlapping_and_dense
from .._tensor import Tensor, cpp_name, torch_name
from ..autograd import grad_mode as _grad_mode

__all__ = ["cast_error", "check_out_spec", "reads_out", "resize_out", "warn_resized", "write_out"]


def check_out_spec(
    name: str, out: Tensor, shape: tuple[int, ...], dtype: dt.dtype, exact: bool = False
) -> None:
    """Raise unless ``out`` can take a result of ``shape`` and ``dtype`` (``exact``: of
    ``out``'s own dtype); changes nothing. An ``out`` of another shape will be resized:
    silently when it is empty, with PyTorch's deprecation warning when it has elements."""
    if exact and out._dtype is not dtype:
        raise RuntimeError(
            f"{_prefix(name)}Expected out tensor to have dtype {cpp_name(dtype)}, but got "
            f"{cpp_name(out._dtype)} instead"
        )
    if not dt.can_cast(dtype, out._dtype):
        raise cast_error(name, dtype, out._dtype)
    if out._shape != shape and out.numel() != 0:
        warn_resized(out._shape, shape)


def cast_error(name: str, dtype: dt.dtype, to: dt.dtype) -> RuntimeError:
    """PyTorch's error for a result of ``dtype`` that may not be written into a tensor of
    dtype ``to`` (an ``out=``, or ``self`` of an in-place call: ``name`` is then ``op_``)."""
    return RuntimeError(
        f"result type {torch_name(dtype)} can't be cast to the desired output type "
        f"{torch_name(to)}" + (f" (in {name})" if name else "")
    )


def _prefix(name: str) -> str:
    """``"name(): "`` that opens an error message, nothing for an unnamed caller."""
    return f"{name}(): " if name else ""


def warn_resized(had: tuple[int, ...], shape: tuple[int, ...]) -> None:
    """PyTorch's deprecation warning for an ``out=`` tensor with elements that is resized to
    the result's shape (an empty one is resized silently)."""
    warnings.warn(
        f"An output with one or more elements was resized since it had shape {list(had)}, "
        f"which does not match the required output shape {list(shape)}. This behavior is "
        "deprecated, and in a future PyTorch release outputs will not be resized unless they "
        "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, "
        "to zero elements with t.resize_(0).",
        UserWarning,
        stacklevel=4,
    )


def resize_out(out: Tensor, shape: tuple[int, ...], dev: Any) -> Tensor:
    """``out`` given ``shape`` (fresh storage) when it has another: an empty ``out=`` tensor
    takes the result's shape, as PyTorch resizes it."""
    if out._shape != shape:
        fresh = _registry.interface(dev).empty(shape, out._dtype, dev)
        out._storage, out._shape, out._stride = fresh._storage, fresh._shape, fresh._stride
        out._offset, out._native = fresh._offset, fresh._native
    return out


def reads_out(out: Tensor, inputs: tuple[Any, ...]) -> bool:
    """Whether a tensor among ``inputs`` (or in a list there) shares ``out``'s storage."""
    st = out._storage
    for a in inputs:
        if isinstance(a, Tensor):
            if a._storage is st:
                return True
        elif isinstance(a, (list, tuple)) and any(
            isinstance(x, Tensor) and x._storage is st for x in a
        ):
            return True
    return False


def overlaps(out: Tensor, inputs: tuple[Any, ...]) -> bool:
    """Whether ``out`` and a dense tensor among ``inputs`` (or in a list there) share memory,
    as PyTorch's ``assert_no_overlap`` sees it: elements of one storage in overlapping
    ranges (a strided pair is too hard to tell and passes, as in PyTorch)."""
    if not _dense(out):
        return False
    lo, hi = out._offset, out._offset + out.numel()
    for a in inputs:
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if (
                isinstance(t, Tensor)
                and t._storage is out._storage
                and _dense(t)
                and t._offset < hi
                and lo < t._offset + t.numel()
            ):
                return True
    return False


def _dense(t: Tensor) -> bool:
    return t.numel() > 0 and is_non_overlapping_and_dense(t._shape, t._stride)


def overlap_error(name: str) -> RuntimeError:
    """PyTorch's error for an ``out`` that an input reads and that the call would resize."""
    return RuntimeError(
        f"{_prefix(name)}unsupported operation: some elements of the input tensor and the "
        "written-to tensor refer to a single memory location. Please clone() the tensor "
        "before performing the operation."
    )


def write_out(
    name: str,
    result: Any,
    out: Any,
    inputs: tuple[Any, ...] = (),
    exact: str = "",
    no_overlap: bool = False,
) -> Any:
    """Write ``result`` (a tensor, or a tuple of them) into ``out`` (a tensor, or a tuple or
    list of as many) under PyTorch's rules for ``out=`` (see the module's docstring), and
    return what the call returns: ``out``, or a tuple of the same type as ``result`` holding
    the ``out`` tensors. ``exact`` is the operator's declared ``out_dtype``: ``"exact"``
    wants each output's own dtype, ``"same"`` too in other words (PyTorch's one-input
    pointwise operators), ``"several"`` only where there are several outputs (values and
    indices), ``""`` any dtype the result casts to safely. ``no_overlap``: an ``out`` that
    shares memory with an input is refused (PyTorch's operators other than the pointwise
    ones), else only one that would be resized.

    Examples
    --------
    >>> import tensorcore as tc
    >>> o = tc.empty(0)
    >>> tc.stack([tc.ones(2), tc.zeros(2)], out=o)
    tensor([[1., 1.],
            [0., 0.]])
    >>> o.shape
    tensorcore.Size([2, 2])
    """
    many = isinstance(result, tuple)
    results = tuple(result) if many else (result,)
    if many:
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        if len(out) != len(results):
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(out)}")
        outs = tuple(out)
    elif isinstance(out, (tuple, list)):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    else:
        outs = (out,)
    if _grad_mode.is_grad_enabled() and any(r._requires_grad for r in results):
        # (the call path refuses this before an operator runs; a function of tc.linalg
        # learns it from its result)
        raise RuntimeError(
            f"{_prefix(name)}functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    for o, r in zip(outs, results, strict=True):
        if not isinstance(o, Tensor):
            raise TypeError(f"argument 'out' must be Tensor, not {type(o).__name__}")
        if (o._shape != r._shape and reads_out(o, inputs)) or (no_overlap and overlaps(o, inputs)):
            raise overlap_error(name)
        if exact == "same" and o._dtype is not r._dtype:
            raise RuntimeError(
                f"Found dtype {torch_name(o._dtype)} but expected {torch_name(r._dtype)}"
            )
        whole = exact == "exact" or (exact == "several" and many)
        check_out_spec(name, o, o._shape, r._dtype, exact=whole)  # (the shape: below)
    with _grad_mode.no_grad():
        for o, r in zip(outs, results, strict=True):
            if o._shape != r._shape and o.numel() != 0:
                warn_resized(o._shape, r._shape)
            resize_out(o, r._shape, o._device)
            if o is not r:
                o.copy_(r)
    if not many:
        return outs[0]
    return outs if type(result) is tuple else type(result)(*outs)
