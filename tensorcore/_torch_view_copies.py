"""The ``*_copy`` forms of the views (``torch.view_copy``, ``torch.transpose_copy``...): the
view's values in new memory, with PyTorch's ``out=``. ``tensorcore/__init__.py`` exports its
``__all__``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._tensor import Tensor
from ._torch_extras import public
from .autograd import grad_mode
from .ops import functions as ops
from .ops._out import write_out

__all__: list[str] = []  # filled by _public below

_public = public(__all__)


def _views_copy() -> None:
    for view in (
        "view",
        "permute",
        "transpose",
        "t",
        "expand",
        "squeeze",
        "unsqueeze",
        "select",
        "diagonal",
        "unfold",
        "as_strided",
        "detach",
        "alias",
        "unbind",
        "split",
        "split_with_sizes",
        "view_as_real",
        "view_as_complex",
        "slice",
        "values",
        "indices",
    ):
        fn = _public(_copy_of(view))
        globals()[fn.__name__] = fn


def _copy_of(view: str) -> Callable[..., Any]:
    name = f"{view}_copy"

    def fn(input: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            # PyTorch's generated ``*_copy.out``: the copy, then written into ``out`` (of the
            # result's dtype, resized like any out=); not recorded by autograd, and the
            # list-returning views (unbind, split) fill a list of as many tensors and return
            # None.
            with grad_mode.no_grad():
                result = fn(input, *args, **kwargs)
            if not isinstance(result, list):
                return write_out(name, result, out, exact="exact")
            if not isinstance(out, (list, tuple)) or len(out) != len(result):
                got = len(out) if isinstance(out, (list, tuple)) else type(out).__name__
                raise RuntimeError(
                    f"{name}(): expected an out= argument of size {len(result)}, got size {got}"
                )
            write_out(name, tuple(result), tuple(out), exact="exact")
            return None
        if view == "slice":
            dim, start, end, step = (list(args) + [0, None, None, 1][len(args) :])[:4]
            out = input[(slice(None),) * (dim % max(input.ndim, 1)) + (slice(start, end, step),)]
        elif view == "alias":  # (an alias is the whole tensor, as it is)
            out = input
        elif view in ("view_as_real", "view_as_complex"):
            out = getattr(ops, view)(input, *args, **kwargs)
        else:
            out = getattr(input, view)(*args, **kwargs)
        if isinstance(out, (tuple, list)):
            return [o.clone(memory_format=_contiguous()) for o in out]
        return out.clone(memory_format=_contiguous())

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"A copy of ``input.{view}(...)`` (the view's values, in new memory); ``out=`` takes "
        "a tensor of the result's dtype"
        + (
            " (a list of as many, for a list)."
            if view in ("unbind", "split", "split_with_sizes")
            else "."
        )
    )
    return fn


def _contiguous() -> Any:
    from .layouts import contiguous_format

    return contiguous_format


_views_copy()
