"""Top-level functions PyTorch programs call that compute (not operators of the table):
the random draws of ``randint_like``, ``poisson``, ``binomial`` and the Dirichlet sampler,
the old norms (``nuclear_norm``, ``frobenius_norm``), ``constant_pad_nd``,
``empty_permuted``, ``nonzero_static``, ``histogramdd``, ``embedding_renorm_``, the
control-flow operators ``cond`` and ``while_loop``, and ``feature_dropout``.
``tensorcore/__init__.py`` exports its ``__all__``.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

from . import dtypes as dt
from ._tensor import Tensor, torch_name
from ._torch_extras import public
from .layouts import strided
from .ops import functions as ops
from .ops._validate import checked

__all__: list[str] = []  # filled by _public below

_public = public(__all__)


@_public
def randint_like(
    input: Tensor, *args: Any, dtype: Any = None, device: Any = None, **kw: Any
) -> Tensor:
    """Random integers in ``[low, high)`` (``low`` 0 when only ``high`` is given) in the
    shape of ``input``, of its dtype and device unless given.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.randint_like(tc.zeros(3), 5)
    >>> x.dtype, ((x >= 0) & (x < 5)).all().item()
    (tensorcore.float32, True)
    """
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint_like(): expected (input, high) or (input, low, high)")
    requires_grad = kw.pop("requires_grad", False)
    kw.pop("memory_format", None)
    # (a non-strided ``input``'s layout, as the other ``*_like`` factories take it)
    layout = kw.pop("layout", None) or (None if input.layout is strided else input.layout)
    kw.pop("pin_memory", None)
    out = ops.randint(
        low,
        high,
        tuple(input.shape),
        dtype=input.dtype if dtype is None else dtype,
        device=input.device if device is None else device,
        layout=layout,
        **kw,
    )
    return out.requires_grad_() if requires_grad else out


@_public
def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Draws from Poisson distributions of rates ``input`` (same shape and dtype).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.poisson(tc.zeros(3))
    tensor([0., 0., 0.])
    """
    from .distributions._samplers import poisson as draw

    return draw(input, generator).to(input.dtype)


@_public
def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """Draws from binomial distributions of ``count`` trials of probability ``prob``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.binomial(tc.full((2,), 4.0), tc.ones(2))
    tensor([4., 4.])
    """
    from .distributions._samplers import binomial as draw

    return draw(count, prob, generator).to(count.dtype)


@_public
def _sample_dirichlet(input: Tensor, generator: Any = None) -> Tensor:
    """Draws from Dirichlet distributions of concentrations ``input`` (its last dim the
    categories), PyTorch's private sampler that programs call directly (no gradient: a
    differentiable draw is ``tc.distributions.Dirichlet(c).rsample()``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc._sample_dirichlet(tc.ones(2, 3))
    >>> x.shape, ((x.sum(-1) - 1).abs() < 1e-6).all().item()
    (tensorcore.Size([2, 3]), True)
    """
    from .distributions._samplers import sample_dirichlet

    return sample_dirichlet(input, generator)


@_public
def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """PyTorch's ``_dirichlet_grad``: the derivative of Dirichlet draws ``x`` in their
    concentrations ``alpha`` (``total``: the concentrations' sum), through each coordinate's
    Beta marginal, divided by ``1 - x``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> g = tc._dirichlet_grad(tc.tensor([0.3, 0.7]), tc.tensor([1.0, 2.0]), tc.tensor([3.0, 3.0]))
    >>> [f"{v:.4f}" for v in g.tolist()]
    ['0.4123', '0.4161']
    """
    from .distributions._samplers import dirichlet_grad

    return dirichlet_grad(x, alpha, total)


@_public
def nuclear_norm(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Deprecated: :func:`tensorcore.linalg.matrix_norm` with ``ord="nuc"``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nuclear_norm(tc.eye(2))
    tensor(2.)
    """
    from . import linalg

    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


@_public
def frobenius_norm(input: Tensor, dim: Any = (-2, -1), keepdim: bool = False) -> Tensor:
    """Deprecated: :func:`tensorcore.linalg.vector_norm` of order 2 over ``dim``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.frobenius_norm(tc.ones(2, 2), (0, 1))
    tensor(2.)
    """
    from . import linalg

    return linalg.vector_norm(input, 2, dim, keepdim)


@_public
def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Removed in PyTorch 1.9: raises, pointing to :func:`tensorcore.linalg.matrix_rank`."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed "
        "in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


@_public
@checked("constant_pad_nd(Tensor input, int[] pad, Scalar value=0) -> Tensor")
def constant_pad_nd(input: Tensor, pad: Any, value: Any = 0) -> Tensor:
    """``nn.functional.pad(input, pad, "constant", value)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.constant_pad_nd(tc.ones(2), [1, 1], 5.0)
    tensor([5., 1., 1., 5.])
    """
    from .ops._padding import pad as pad_fn

    # (the unchecked function: F.pad's value is a float, constant_pad_nd's any Scalar,
    # a complex one for complex tensors)
    unchecked: Any = pad_fn.__wrapped__  # type: ignore[attr-defined]
    return unchecked(input, pad, "constant", value)


@_public
def empty_permuted(
    size: Any,
    physical_layout: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    size, order = tuple(size), tuple(physical_layout)
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; "
            f"got {len(size)} and {len(order)}"
        )
    base = ops.empty(tuple(size[d] for d in order), dtype=dtype, device=device)
    out = base.permute(tuple(order.index(d) for d in builtins.range(len(size))))
    return out.requires_grad_() if requires_grad else out


@_public
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """:func:`nonzero` of exactly ``size`` rows: cut, or padded with ``fill_value``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.nonzero_static(tc.tensor([0, 1]), size=3).tolist()
    [[1], [-1], [-1]]
    """
    found = ops.nonzero(input)
    if found.shape[0] >= size:
        return found[:size]
    pad = ops.full(
        (size - found.shape[0], input.ndim), fill_value, dtype=dt.int64, device=input.device
    )
    return ops.cat([found, pad])


@_public
def histogramdd(
    input: Tensor,
    bins: Any = 10,
    *,
    range: Any = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """The histogram of the points in the rows of ``input`` (``(..., D)``) over a grid of
    ``D``-dimensional bins: ``bins`` is a count for every dim, one count per dim, or one
    tensor of edges per dim; ``range`` (``[lo0, hi0, lo1, hi1, ...]``) bounds the equal-width
    bins (by default the data's extent, widened by 1/2 where it is a point). Each bin holds
    its left edge, the last also its right one; points outside are left out. ``weight``
    weighs the points; ``density`` divides by the total and the bins' volumes.

    Examples
    --------
    >>> import tensorcore as tc
    >>> x = tc.tensor([[0.0, 0.0], [1.0, 1.0], [0.5, 0.2], [2.0, 0.0]])
    >>> tc.histogramdd(x, bins=[2, 3]).hist
    tensor([[2., 0., 0.],
            [1., 0., 1.]])
    """
    from . import return_types

    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"torch.histogramdd: input tensor and bins tensors should have the same dtype, "
            f"but got input {torch_name(input.dtype)}"
        )
    d = input.shape[-1]
    points = input.reshape(-1, d)
    if isinstance(bins, int):
        bins = [bins] * d
    if len(bins) != d:
        raise RuntimeError(
            f"torch.histogramdd: expected {d} sequences of bin edges for each of the {d} input "
            f"dimensions, but got {len(bins)} bin sequences instead."
        )
    edges: list[Tensor] = []
    for k, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b.to(input.dtype))
            continue
        col = points[:, k]
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
        elif col.numel():
            lo, hi = float(col.min()), float(col.max())
        else:
            lo, hi = 0.0, 1.0
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges.append(ops.linspace(lo, hi, int(b) + 1, dtype=input.dtype, device=input.device))
    sizes = [e.numel() - 1 for e in edges]
    flat = ops.zeros(points.shape[0], dtype=dt.int64, device=input.device)
    inside = ops.ones(points.shape[0], dtype=dt.bool_, device=input.device)
    for k, e in enumerate(edges):
        col = points[:, k]
        idx = ops.bucketize(col, e, right=True) - 1
        idx = ops.where(col == e[-1], sizes[k] - 1, idx)
        inside = inside & (col >= e[0]) & (col <= e[-1])
        flat = flat * sizes[k] + idx.clamp(0, max(sizes[k] - 1, 0))
    w = ops.ones(points.shape[0], dtype=input.dtype, device=input.device)
    if weight is not None:
        w = weight.reshape(-1).to(input.dtype)
    total = math.prod(sizes)
    hist = ops.zeros(total, dtype=input.dtype, device=input.device)
    hist = hist.index_add(0, flat[inside], w[inside]).reshape(sizes)
    if density:
        volume = ops.ones((), dtype=input.dtype, device=input.device)
        for k, e in enumerate(edges):
            shape = [1] * d
            shape[k] = sizes[k]
            volume = volume * (e[1:] - e[:-1]).reshape(shape)
        hist = hist / (hist.sum() * volume)
    return return_types.histogramdd(hist, tuple(edges))


@_public
def embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescales, in place and without history, each row of ``weight`` named in ``indices``
    whose ``norm_type``-norm exceeds ``max_norm`` to norm ``max_norm`` (by
    ``max_norm / (norm + 1e-7)``), as ``embedding(..., max_norm=)`` does.

    Examples
    --------
    >>> import tensorcore as tc
    >>> w = tc.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> tc.embedding_renorm_(w, tc.tensor([0, 1]), 1.0, 2.0)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    from .autograd.grad_mode import no_grad

    with no_grad():
        rows = ops.unique(indices.reshape(-1))
        picked = weight[rows]
        norms = ops.vector_norm(picked, norm_type, (-1,), True)
        scale = ops.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = picked * scale.to(weight.dtype)
    return weight


@_public
def cond(
    pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: Any = ()
) -> Any:
    """``true_fn(*operands)`` if ``pred`` (a bool or a one-element tensor) else
    ``false_fn(*operands)``, run eagerly.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.cond(tc.tensor(True), lambda a: a + 1, lambda a: a - 1, (tc.ones(1),))
    tensor([2.])
    """
    return true_fn(*operands) if bool(pred) else false_fn(*operands)


@_public
def while_loop(
    cond_fn: Callable[..., Any], body_fn: Callable[..., Any], carried_inputs: Any
) -> Any:
    """Runs ``carried = body_fn(*carried)`` while ``cond_fn(*carried)``, eagerly; returns the
    final tuple.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.while_loop(lambda i: i < 3, lambda i: (i + 1,), (tc.tensor(0),))
    (tensor(3),)
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        out = body_fn(*carried)
        carried = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    return carried


def _feature_dropout(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0.0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    keep = ops.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    if p < 1.0:
        keep = keep / (1.0 - p)
    return input.mul_(keep) if inplace else input * keep


@_public
def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels (dim 1) with probability ``p`` when ``train``."""
    return _feature_dropout(input, p, train, False)


@_public
def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place :func:`feature_dropout`."""
    return _feature_dropout(input, p, train, True)
