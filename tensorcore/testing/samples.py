"""Sample inputs for every declared operator: the data the generic (table-driven) tests run on.

``SAMPLES[name](device, dtype)`` returns a list of :class:`Sample` for operator ``name``, for
every operator the core declares (:func:`core_ops`): small inputs (at most 4x5) that cover
broadcasting, keyword arguments and, where it fits, a non-contiguous (transposed, sliced or
expanded) input. Values are drawn from a :class:`tensorcore.Generator` with a fixed seed and
lie in the operator's safe domain: positive for ``log``/``sqrt``, inside ``(-0.9, 0.9)`` for
``asin``/``acos``, away from zero for denominators, away from the kinks of
``abs``/``relu``/``clamp``/``floor``... and without ties for
``max``/``min``/``sort``/``topk``/``amax``, so that finite differences (``gradcheck``) are
meaningful.

``dtype`` is the dtype of the floating-point data inputs; integer indices stay int64, masks
stay bool, and operators that only take integers or bools (``bitwise_*``, ``logical_*``)
use int64/bool when ``dtype`` is floating. With an integer ``dtype``, a sample is a valid
call only where the operator accepts integers (``mean`` of int64 raises, as in PyTorch).
:func:`call_op` runs a sample through the public function, the ``Tensor`` method or (for
internal operators) the dispatcher.

Only the public API builds the inputs, so a third-party backend can run the same samples.

Examples
--------
>>> import tensorcore as tc
>>> from tensorcore.testing.samples import SAMPLES, call_op
>>> s = SAMPLES["mul"]("cpu", tc.float64)[0]
>>> call_op("mul", s).shape == tc.broadcast_shapes(s.args[0].shape, s.args[1].shape)
True
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.testing import (  # noqa: F401 - each registers its generators
    _samples_idioms,
    _samples_linalg,
    _samples_nn,
    _samples_pointwise,
    _samples_reductions,
    _samples_shape,
)
from tensorcore.testing._helpers import dtype_unsupported
from tensorcore.testing._sample_base import (
    _RAW,
    SEED,
    S,
    Sample,
    _Gen,
    _Maker,
    _samples,
    call_op,
)
from tensorcore.testing._samples_more import more_samples

__all__ = [
    "SAMPLES",
    "SEED",
    "Sample",
    "call_op",
    "core_ops",
    "inplace_only",
    "split_leaves",
    "tensor_inputs",
]

for _n, _fn in more_samples(S).items():
    _samples(_n)(_fn)


def _bind(fn: _Gen) -> Callable[[Any, dt.dtype], list[Sample]]:
    def make(device: Any, dtype: dt.dtype) -> list[Sample]:
        if dtype_unsupported(device, dtype) is not None:
            return []
        return fn(_Maker(device, dtype))

    make.__doc__ = (
        "Samples for one operator: ``make(device, dtype) -> list[Sample]`` (none for a dtype "
        "the device lacks)."
    )
    return make


#: Operator name -> ``callable(device, dtype) -> list[Sample]``, for every operator the core
#: declares (see :func:`core_ops`).
SAMPLES: dict[str, Callable[[Any, dt.dtype], list[Sample]]] = {
    name: _bind(fn) for name, fn in sorted(_RAW.items())
}


@functools.cache
def core_ops() -> tuple[str, ...]:
    """The operators declared by the core's table, ``tensorcore/ops/schema/``, in order.

    That table, ``tensorcore.ops.schema.OPS``, holds the core's operators only. The operators
    plugins declare (``register.op``, e.g. the sparse backend's ``to_sparse``) join the
    runtime table, :func:`tensorcore.dispatch.ops`, which also holds the core's: these
    samples cover the core's operators, and a plugin's are the plugin's to test.

    Examples
    --------
    >>> from tensorcore.testing.samples import core_ops
    >>> "add" in core_ops() and "to_sparse" not in core_ops()
    True
    """
    from tensorcore.ops.schema import OPS

    return tuple(OPS)


def inplace_only(name: str) -> bool:
    """True for operators that exist only as in-place methods (``copy_``, ``fill_``...).

    Examples
    --------
    >>> from tensorcore.testing.samples import inplace_only
    >>> inplace_only("copy_"), inplace_only("add")
    (True, False)
    """
    return "inplace" in tc.dispatch.get_op(name).decl.tags


class _Slot:
    """Where :func:`split_leaves` took leaf ``k`` out of a sample."""

    def __init__(self, k: int) -> None:
        self.k = k


def split_leaves(
    sample: Sample,
    select: Callable[[tc.Tensor], bool],
    make_leaf: Callable[[tc.Tensor], tc.Tensor],
) -> tuple[Callable[[list[Any]], Sample], list[tc.Tensor]]:
    """The tensors of ``sample`` (positional, keyword, and inside lists) that ``select``
    picks (but the positional ones at ``sample.constant``), each made a leaf by
    ``make_leaf``, and ``rebuild(xs)``: the sample's call with
    ``xs`` in their places (what gradient checks perturb).

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing.samples import Sample, split_leaves
    >>> s = Sample((tc.ones(2), [tc.zeros(1)], 3))
    >>> rebuild, leaves = split_leaves(
    ...     s, lambda t: t.dtype.is_floating_point, lambda t: t.detach().requires_grad_()
    ... )
    >>> [x.requires_grad for x in leaves]
    [True, True]
    >>> rebuild([tc.full((2,), 5.0), tc.full((1,), 6.0)]).args[1][0].tolist()
    [6.0]
    """
    leaves: list[tc.Tensor] = []

    def cut(a: Any) -> Any:
        if isinstance(a, tc.Tensor) and select(a):
            leaves.append(make_leaf(a))
            return _Slot(len(leaves) - 1)
        if isinstance(a, list):
            return [cut(x) for x in a]
        return a

    args = tuple(a if k in sample.constant else cut(a) for k, a in enumerate(sample.args))
    kwargs = {k: cut(v) for k, v in sample.kwargs.items()}

    def rebuild(xs: list[Any]) -> Sample:
        def put(a: Any) -> Any:
            if isinstance(a, _Slot):
                return xs[a.k]
            if isinstance(a, list):
                return [put(x) for x in a]
            return a

        return Sample(tuple(put(a) for a in args), {k: put(v) for k, v in kwargs.items()})

    return rebuild, leaves


def tensor_inputs(sample: Sample) -> list[tc.Tensor]:
    """Every tensor in ``sample`` (positional, keyword, and inside lists), in order.

    Examples
    --------
    >>> import tensorcore as tc
    >>> from tensorcore.testing.samples import Sample, tensor_inputs
    >>> len(tensor_inputs(Sample(([tc.ones(1), tc.ones(2)], 0), {"x": tc.ones(3)})))
    3
    """
    out: list[tc.Tensor] = []
    for a in (*sample.args, *sample.kwargs.values()):
        if isinstance(a, tc.Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, tc.Tensor))
    return out
