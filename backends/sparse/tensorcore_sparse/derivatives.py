"""Derivative rules for sparse operands (``register.derivative`` overrides per operator for
the ``sparse_coo`` layout), and the rules of the operators this plugin declares.

The gradient contract (as ``torch.sparse.mm`` documents it):

- the gradient with respect to a **sparse** input is a sparse COO tensor **masked to the
  input's sparsity pattern**: it has the input's (coalesced) indices and is zero elsewhere,
  even where the dense derivative is not;
- the gradient with respect to a **dense** input is dense.

Most rules reuse the generic rule of the derivative table and then fit each gradient to its
input (:func:`fit`); elementwise rules run the generic rule on the values; products, sums and
softmax sample the gradient at the input's entries only, so no rule densifies a sparse
input. Rules that compute on the native arrays (products, sums, softmax; NumPy or CuPy,
through :mod:`tensorcore_sparse._xp`) give first-order gradients (their results are not
differentiable again).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tensorcore import Tensor
from tensorcore.backend import generic_rule, ops, sum_to, wrap_dim

from ._compressed import COMPRESSED, crecord, from_coo, is_compressed, make_compressed, to_coo
from ._coo import (
    coalesce,
    gather,
    is_sparse,
    make_sparse,
    mask,
    np_of,
    ns_of,
    record,
    sparse_dim,
    to_dense_tensor,
)
from .kernels.linalg import pairs
from .kernels.reductions import softmax_backward_values
from .kernels.shape import in_range, selected_entries, wrapped_picks

__all__ = ["RULES", "fit"]


def _coo_of(x: Any) -> Any:
    """A compressed tensor's COO form; anything else as it is."""
    return to_coo(x) if is_compressed(x) else x


def compressed_mask(g: Any, x: Tensor) -> Tensor:
    """``g`` (dense, COO or compressed) at the entries of the compressed ``x``, in ``x``'s
    layout and pattern."""
    return from_coo(mask(_coo_of(g), to_coo(x)), x._layout.name)


def _dense_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A gradient for a dense input of ``shape``: dense, summed over broadcast dims (sparse
    gradients are reduced while still sparse)."""
    g = _coo_of(g)
    if tuple(g.shape) == tuple(shape):
        return to_dense_tensor(g) if is_sparse(g) else g
    if not is_sparse(g):
        return sum_to(g, tuple(shape))
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    r = g.sum(dims) if dims else g
    if is_sparse(r):
        r = to_dense_tensor(r)
    return r.reshape(tuple(shape))


def fit(grad: Any, x: Any) -> Any:
    """Fit a gradient to its input: masked sparse for a sparse input, dense for a dense one."""
    if grad is None or not isinstance(x, Tensor):
        return grad
    if is_compressed(x):
        return compressed_mask(grad, x)
    if is_sparse(x):
        return mask(_coo_of(grad), x)
    return _dense_to(grad, tuple(x.shape))


def _fitted(op: str, names: tuple[str, ...]) -> tuple[str, Any]:
    """The generic rule of ``op``, with each gradient fitted to its input."""
    generic_saves, generic_fn = generic_rule(op)
    # Fitting reads every named input whole, whatever the generic rule saves of it
    # (``self:spec``, ``self:if=other``): those specs give way to plain saves.
    kept = [s for s in generic_saves if s.partition(":")[0] not in names]
    saves = " ".join(dict.fromkeys((*kept, *names)))

    def rule(c: Any, g: Any) -> tuple[Any, ...]:
        grads = generic_fn(c, g)
        return tuple(fit(gr, getattr(c, n)) for gr, n in zip(grads, names, strict=False))

    return saves, rule


def _valuewise(op: str) -> tuple[str, Any]:
    """An elementwise rule run on the values: ``y = f(x)`` keeps ``x.coalesce()``'s entries,
    so the gradient is the dense rule applied to the values at those entries."""
    _, generic_fn = generic_rule(op)

    def rule(c: Any, g: Any) -> tuple[Any, ...]:
        ns = ns_of(c.self)
        xc = coalesce(c.self)
        rec = record(xc)
        vals = gather(ns, g, np_of(rec.indices), xc.shape[: sparse_dim(xc)])
        gv = ns.wrap(ns.xp.ascontiguousarray(vals))
        saved = SimpleNamespace(
            self=rec.values,
            result=record(c.result).values,
            other=getattr(c, "other", None),
            # (the values are the one input that wants a gradient: pow's exponent is a number)
            needs=lambda i: i == 0,
        )
        (vg, *_) = generic_fn(saved, gv)
        return (make_sparse(ns, rec.indices, vg, xc.shape, True),)

    saves = "self result other" if op == "pow" else "self result"
    return saves, rule


# ------------------------------------------------------------------ products
def _sampled(g: Any, a: Tensor, b: Tensor) -> tuple[Any, Any]:
    """Gradients of ``a @ b`` (2-D, at least one sparse, real dtypes) given the output
    gradient ``g``: a sparse operand's gradient is computed at its own entries only (a
    sampled product), never as a dense matrix."""
    ns = ns_of(a)
    xp = ns.xp
    if is_sparse(a) and is_sparse(b):
        # Every term a[i,k] * b[k,j] of the product: dL/da[i,k] += g[i,j] * b[k,j], ...
        ac, bc = coalesce(a), coalesce(b)
        ra, rb = record(ac), record(bc)
        ia, ib = np_of(ra.indices), np_of(rb.indices)
        va, vb = np_of(ra.values), np_of(rb.values)
        pa, pb = pairs(ns, ia[1], ib[0])
        gv = gather(ns, g, xp.stack([ia[0][pa], ib[1][pb]]), (a.shape[0], b.shape[1]))
        outa = xp.zeros(va.shape, dtype=xp.result_type(gv.dtype, vb.dtype))
        outb = xp.zeros(vb.shape, dtype=xp.result_type(gv.dtype, va.dtype))
        ns.add_at(outa, pa, gv * vb[pb])
        ns.add_at(outb, pb, gv * va[pa])
        return (
            make_sparse(ns, ra.indices, outa, a.shape, True),
            make_sparse(ns, rb.indices, outb, b.shape, True),
        )
    gt = to_dense_tensor(g) if is_sparse(g) else g
    gd = np_of(gt)
    if is_sparse(a):  # sparse @ dense: dL/da = (g @ b.T) at a's entries, dL/db = a.T @ g
        rec = record(coalesce(a))
        rows, cols = np_of(rec.indices)
        vals = xp.einsum("ij,ij->i", gd[rows], np_of(b)[cols])
        return make_sparse(ns, rec.indices, vals, a.shape, True), a.t().mm(gt)
    # dense @ sparse: dL/da = g @ b.T, dL/db = (a.T @ g) at b's entries
    rec = record(coalesce(b))
    rows, cols = np_of(rec.indices)
    vals = xp.einsum("ij,ij->i", np_of(a).T[rows], gd.T[cols])
    return gt.mm(b.t()), make_sparse(ns, rec.indices, vals, b.shape, True)


def _index_select(c: Any, g: Any) -> tuple[Any, ...]:
    """The gradient of ``index_select`` for a sparse ``self``, at its own entries: each
    entry gathers the output gradient at every position that selected it."""
    x = c.self
    ns = ns_of(x)
    xp = ns.xp
    rec = record(coalesce(x))
    idx = np_of(rec.indices)
    sd = idx.shape[0]
    d = wrap_dim(c.dim, x.ndim)
    pick = wrapped_picks(x, d, c.index)
    picked = list(x.shape)
    picked[d] = int(pick.shape[0])
    if d < sd:
        entry, position = selected_entries(ns, pick, idx[d])
        where = idx[:, entry]
        where[d] = position
        gv = gather(ns, g, where, tuple(picked[:sd]))
        vals = xp.zeros((idx.shape[1], *gv.shape[1:]), dtype=gv.dtype)
        ns.add_at(vals, entry, gv)
        return make_sparse(ns, rec.indices, vals, x.shape, True), None, None
    gv = ns.wrap(xp.ascontiguousarray(gather(ns, g, idx, tuple(picked[:sd]))))
    vals = rec.values.new_zeros(rec.values.shape, dtype=gv.dtype)
    vals.index_add_(d - sd + 1, ns.wrap(pick), gv)
    return make_sparse(None, rec.indices, vals, x.shape, True), None, None


def _at_entries(x: Tensor, entry: Any, where: Any, g: Any, sizes: tuple[int, ...]) -> Tensor:
    """A gradient for the sparse ``x`` at its own (coalesced) entries: the output gradient
    ``g`` at the index columns ``where`` (of ``g``'s sparse ``sizes``) for the entries
    ``entry`` of ``x.coalesce()``, zero at the others. ``g`` with no sparse dims (a dense
    result of ``select``) is the same block for each of those entries."""
    ns = ns_of(x)
    xp = ns.xp
    rec = record(coalesce(x))
    if sizes:
        gv = gather(ns, g, where, sizes)
    else:
        gd = np_of(to_dense_tensor(g) if is_sparse(g) else g)
        gv = xp.broadcast_to(gd, (int(entry.shape[0]), *gd.shape))
    vals = xp.zeros((rec.values.shape[0], *gv.shape[1:]), dtype=gv.dtype)
    vals[entry] = gv
    return make_sparse(ns, rec.indices, vals, x.shape, True)


def _dense_part(x: Tensor, g: Any, region: Any) -> Tensor:
    """A gradient for the sparse ``x`` from an operator that kept its entries and took
    ``region`` (a tuple of slices and ints applied after the entry axis) of its values."""
    ns = ns_of(x)
    xp = ns.xp
    rec = record(coalesce(x))
    idx = np_of(rec.indices)
    gv = gather(ns, g, idx, tuple(x.shape[: idx.shape[0]]))
    vals = xp.zeros(tuple(rec.values.shape), dtype=gv.dtype)
    vals[(slice(None),) + tuple(region)] = gv
    return make_sparse(ns, rec.indices, vals, x.shape, True)


def _select(c: Any, g: Any) -> tuple[Any, ...]:
    """The gradient of ``select`` for a sparse ``self``: the output gradient at the entries
    that had the selected coordinate (or in the selected part of every entry's values)."""
    x = c.self
    d = wrap_dim(c.dim, x.ndim)
    i = c.index % x.shape[d]
    sd = sparse_dim(x)
    if d >= sd:
        return _dense_part(x, g, [slice(None)] * (d - sd) + [i]), None, None
    xp = ns_of(x).xp
    idx = np_of(record(coalesce(x)).indices)
    entry = xp.flatnonzero(idx[d] == i)
    keep = [r for r in range(sd) if r != d]
    where = idx[keep][:, entry]
    return _at_entries(x, entry, where, g, tuple(x.shape[r] for r in keep)), None, None


def _narrow_copy(c: Any, g: Any) -> tuple[Any, ...]:
    x = c.self
    d, s = in_range(x, c.dim, c.start, c.length)
    sd = sparse_dim(x)
    if d >= sd:
        region = [slice(None)] * (d - sd) + [slice(s, s + c.length)]
        return _dense_part(x, g, region), None, None, None
    xp = ns_of(x).xp
    idx = np_of(record(coalesce(x)).indices)
    entry = xp.flatnonzero((idx[d] >= s) & (idx[d] < s + c.length))
    where = idx[:, entry]
    where[d] -= s
    sizes = list(x.shape[:sd])
    sizes[d] = c.length
    return _at_entries(x, entry, where, g, tuple(sizes)), None, None, None


def _unsqueeze(c: Any, g: Any) -> tuple[Any, ...]:
    x = c.self
    d = wrap_dim(c.dim, x.ndim + 1)
    sd = sparse_dim(x)
    if d > sd:
        return _dense_part(x, g.squeeze(d) if not is_sparse(g) else _coo_squeeze(g, d), []), None
    xp = ns_of(x).xp
    idx = np_of(record(coalesce(x)).indices)
    where = xp.concatenate([idx[:d], xp.zeros((1, idx.shape[1]), dtype=idx.dtype), idx[d:]])
    sizes = (*x.shape[:d], 1, *x.shape[d:sd])
    return _at_entries(x, xp.arange(idx.shape[1]), where, g, sizes), None


def _coo_squeeze(g: Tensor, d: int) -> Tensor:
    """The sparse ``g`` without its dense dim ``d`` of size 1 (a view of the values)."""
    rec = record(g)
    sd = sparse_dim(g)
    shape = (*g.shape[:d], *g.shape[d + 1 :])
    return make_sparse(None, rec.indices, rec.values.squeeze(d - sd + 1), shape, rec.coalesced)


def _cat(c: Any, g: Any) -> tuple[Any, ...]:
    """Each input's part of the output gradient (``narrow_copy``), fitted to the input."""
    out, start = [], 0
    tensors = c.tensors
    d = wrap_dim(c.dim, tensors[0].ndim)
    for t in tensors:
        n = t.shape[d]
        out.append(fit(ops.narrow_copy(g, d, start, n), t))
        start += n
    return tuple(out)


def _mm(c: Any, g: Any) -> tuple[Any, ...]:
    return _sampled(g, c.self, c.mat2)


def _addmm(c: Any, g: Any) -> tuple[Any, ...]:
    """``beta * self + alpha * (mat1 @ mat2)`` with a sparse factor: ``beta * g`` for
    ``self`` (the engine sums it to a broadcast ``self``'s shape, as for the core's rule) and
    the product's gradients, scaled by ``alpha``."""
    gs = (g * c.beta if c.beta != 1 else g) if c.needs(0) else None
    g1, g2 = _sampled(g * c.alpha if c.alpha != 1 else g, c.mat1, c.mat2)
    return gs, g1, g2


def _matmul(c: Any, g: Any) -> tuple[Any, ...]:
    a, b = c.self, c.other
    if a.ndim == 2 and b.ndim == 2:
        return _sampled(g, a, b)
    if b.ndim == 1:  # matrix @ vector
        ga, gb = _sampled(g.unsqueeze(1), a, b.unsqueeze(1))
        return ga, gb.reshape(b.shape)
    ga, gb = _sampled(g.unsqueeze(0), a.unsqueeze(0), b)
    return ga.reshape(a.shape), gb


def _mv(c: Any, g: Any) -> tuple[Any, ...]:
    ga, gb = _sampled(g.unsqueeze(1), c.self, c.vec.unsqueeze(1))
    return ga, gb.reshape(c.vec.shape)


def _hspmm(c: Any, g: Any) -> tuple[Any, ...]:
    """The rule of ``mm``: the result holds ``mat1 @ mat2`` at every row that has entries,
    and the other rows are zero in both (``smm`` too)."""
    return _sampled(g, c.mat1, c.mat2)


def _smm(c: Any, g: Any) -> tuple[Any, ...]:
    return _sampled(g, c.self, c.mat2)


def _sspaddmm(c: Any, g: Any) -> tuple[Any, ...]:
    """None, as PyTorch's (``not_implemented`` in its derivatives.yaml): the result joins
    the graph, and a backward pass through it raises."""
    raise RuntimeError("derivative for aten::sspaddmm is not implemented")


def _bmm(c: Any, g: Any) -> tuple[Any, ...]:
    """A batch of sparse @ dense products: the sparse operand's gradient at its entries,
    ``sum_j g[b, i, j] * mat2[b, k, j]``; the dense one's ``self[b].T @ g[b]``."""
    a, d = c.self, c.mat2
    ns = ns_of(a)
    xp = ns.xp
    rec = record(coalesce(a))
    idx, vals = np_of(rec.indices), np_of(rec.values)
    gd = np_of(to_dense_tensor(g) if is_sparse(g) else g)
    dd = np_of(d)
    ga = xp.einsum("ej,ej->e", gd[idx[0], idx[1]], dd[idx[0], idx[2]])
    b, _, m = a.shape
    gm = xp.zeros((b * m, gd.shape[2]), dtype=xp.result_type(vals.dtype, gd.dtype))
    ns.add_at(gm, idx[0] * m + idx[2], vals[:, None] * gd[idx[0], idx[1]])
    return make_sparse(ns, rec.indices, ga, a.shape, True), ns.wrap(gm.reshape(dd.shape))


def _sampled_addmm(c: Any, g: Any) -> tuple[Any, ...]:
    """The gradient is the output gradient at ``self``'s entries (``G``): ``beta * G`` for
    ``self``, ``alpha * G @ mat2.T`` and ``alpha * mat1.T @ G`` for the dense factors, products
    with a sparse ``G`` (the dense product is never formed)."""
    x = c.self
    gm = mask(_coo_of(g), to_coo(x))
    gs = compressed_mask(g, x) * c.beta if c.needs(0) else None
    g1 = ops.mm(gm, c.mat2.t()) * c.alpha if c.needs(1) else None
    g2 = ops.mm(c.mat1.t(), gm) * c.alpha if c.needs(2) else None
    return gs, g1, g2


# ------------------------------------------------------------------ reductions
def _sum(c: Any, g: Any) -> tuple[Any, ...]:
    x = c.self
    ns = ns_of(x)
    xp = ns.xp
    xc = coalesce(x)
    rec = record(xc)
    idx = np_of(rec.indices)
    sd = sparse_dim(x)
    dims = tuple(range(x.ndim)) if c.dim is None else tuple(c.dim)
    keep = [d for d in range(sd) if d not in dims]
    full_shape = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
    if not is_sparse(g):
        gk = np_of(g).reshape(full_shape)
        vals = xp.broadcast_to(gk, x.shape)[tuple(idx)]
    else:
        gidx = idx if c.keepdim else idx[keep]
        if c.keepdim:
            gidx = gidx.copy()
            gidx[[d for d in range(sd) if d in dims]] = 0
        vals = gather(ns, g, gidx, tuple(g.shape[: sparse_dim(g)]))
        vals = vals.reshape((vals.shape[0],) + full_shape[sd:])
        vals = xp.broadcast_to(vals, (vals.shape[0],) + tuple(x.shape[sd:]))
    return (make_sparse(ns, rec.indices, xp.ascontiguousarray(vals), x.shape, True),)


def _norm(c: Any, g: Any) -> tuple[Any, ...]:
    """The gradient of the ``p``-norm of the coalesced values (over every dim: ``dim`` and
    ``keepdim`` only shape the result), at the entries: ``sign(v) |v|^(p-1) / norm^(p-1)``,
    the maxima sharing it equally for ``p = inf``, zero for ``p = 0`` (real dtypes)."""
    x = c.self
    ns = ns_of(x)
    xp = ns.xp
    rec = record(coalesce(x))
    v = np_of(rec.values)
    p = 2.0 if c.p == "fro" else float(c.p)
    r = float(c.result.reshape(()).item())
    gs = float((to_dense_tensor(g) if is_sparse(g) else g).reshape(()).item())
    if p == 0 or r == 0:
        gv = xp.zeros_like(v)
    elif p in (float("inf"), float("-inf")):
        hit = xp.abs(v) == r
        gv = xp.sign(v) * hit * (gs / max(int(hit.sum()), 1))
    else:
        gv = xp.sign(v) * (xp.abs(v) / r) ** (p - 1) * gs
    return (make_sparse(ns, rec.indices, xp.ascontiguousarray(gv), x.shape, True),)


def _softmax(log: bool) -> Any:
    def rule(c: Any, g: Any) -> tuple[Any, ...]:
        y = c.result
        ns = ns_of(y)
        rec = record(y)
        gv = gather(ns, g, np_of(rec.indices), y.shape[: sparse_dim(y)])
        d = wrap_dim(c.dim, y.ndim)
        vals = softmax_backward_values(y, gv, d, log)
        return (make_sparse(ns, rec.indices, vals, y.shape, True),)

    return rule


# ------------------------------------------------------------------ the plugin's operators
def _values(c: Any, g: Any) -> tuple[Any, ...]:
    x = c.self
    gv = to_dense_tensor(g) if is_sparse(g) else g
    return (make_sparse(None, record(x).indices, gv, x.shape, True),)


def _from_values(c: Any, g: Any) -> tuple[Any, ...]:
    ns = ns_of(c.indices)
    idx = np_of(c.indices)
    sizes = tuple(c.size)[: idx.shape[0]]
    return (None, ns.wrap(ns.xp.ascontiguousarray(gather(ns, g, idx, sizes))))


def _sparse_mask(c: Any, g: Any) -> tuple[Any, ...]:
    # (an uncoalesced mask reads ``self`` once per index column: its repeats count)
    m = mask(g, c.mask) if record(c.mask).coalesced else g.sparse_mask(c.mask)
    return (fit(m, c.self), None)


def _identity(c: Any, g: Any) -> tuple[Any, ...]:
    return (fit(g, c.self),)


_ELEMENTWISE = [
    "abs",
    "erf",
    "conj",
    "sign",
    "sqrt",
    "sin",
    "tan",
    "asin",
    "atan",
    "asinh",
    "atanh",
    "erfinv",
    "deg2rad",
    "rad2deg",
    "sinh",
    "tanh",
    "expm1",
    "log1p",
    "relu",
    "floor",
    "ceil",
    "trunc",
    "round",
    "nan_to_num",
    "pow",
]


# ------------------------------------------------------------------ compressed layouts
def _via_coo(saves: str, fn: Any, inputs: tuple[str, ...]) -> tuple[str, Any]:
    """A COO rule run for compressed operands: on the COO forms of the saved tensors and of
    the gradient, each input's gradient converted back to its input's layout (a compressed
    input's, which the COO rules mask to its pattern, to that layout)."""
    names = [s.partition(":")[0] for s in saves.split()]

    def rule(c: Any, g: Any) -> tuple[Any, ...]:
        saved = SimpleNamespace(needs=c.needs)
        for n in names:
            setattr(saved, n, _coo_of(getattr(c, n)))
        grads = fn(saved, _coo_of(g))
        out = []
        for gr, n in zip(grads, inputs, strict=False):
            x = getattr(c, n, None)
            if gr is not None and isinstance(x, Tensor) and is_compressed(x):
                gr = from_coo(gr, x._layout.name) if is_sparse(gr) else compressed_mask(gr, x)
            out.append(gr)
        return (*out, *grads[len(out) :])

    return saves, rule


def _compressed_values(c: Any, g: Any) -> tuple[Any, ...]:
    x = c.self
    rec = crecord(x)
    gv = to_dense_tensor(g) if is_sparse(g) else g
    return (make_compressed(None, rec.compressed, rec.plain, gv, tuple(x.shape), x._layout.name),)


def _from_compressed_values(c: Any, g: Any) -> tuple[Any, ...]:
    name = "sparse_csr" if c.layout is None else c.layout.name
    # (the values do not matter: only the pattern is read)
    pattern = make_compressed(
        None, c.compressed_indices, c.plain_indices, c.plain_indices, tuple(c.size), name
    )
    return (None, None, crecord(compressed_mask(g, pattern)).values)


_VIA_COO: list[tuple[str, str, Any, tuple[str, ...]]] = [
    *((op, *_valuewise(op), ("self",)) for op in _ELEMENTWISE),
    *(
        (op, *_fitted(op, names), names)
        for op, names in [
            ("add", ("self", "other")),
            ("sub", ("self", "other")),
            ("mul", ("self", "other")),
            ("neg", ("self",)),
            ("clone", ("self",)),
            ("to_dtype", ("self",)),
            ("to_device", ("self",)),
            ("transpose", ("self",)),
        ]
    ),
    ("mm", "self mat2", _mm, ("self", "mat2")),
    ("matmul", "self other", _matmul, ("self", "other")),
    ("mv", "self vec", _mv, ("self", "vec")),
    ("sum", "self dim keepdim", _sum, ("self",)),
    ("select", "self dim index", _select, ("self",)),
    ("sparse_mask", "self mask", _sparse_mask, ("self", "mask")),
]

#: (operator, layout, saves, rule) for ``register.derivative(op, "*", layout, saves, rule)``.
RULES: list[tuple[str, str, str, Any]] = [
    *(
        (op, layout, *_via_coo(saves, fn, inputs))
        for layout in COMPRESSED
        for op, saves, fn, inputs in _VIA_COO
    ),
    *((op, layout, "self", _compressed_values) for layout in COMPRESSED for op in ("values",)),
    # (registered for CSC too, whose kernel refuses it, as PyTorch does)
    *(
        ("_sparse_sampled_addmm", layout, "self mat1 mat2 beta alpha", _sampled_addmm)
        for layout in COMPRESSED
    ),
    ("to_sparse_csr", "*", "self", _identity),
    ("to_sparse_csc", "*", "self", _identity),
    (
        "_sparse_compressed_tensor_unsafe",
        "*",
        "compressed_indices plain_indices size layout",
        _from_compressed_values,
    ),
    *((op, "sparse_coo", *_valuewise(op)) for op in _ELEMENTWISE),
    *(
        (op, "sparse_coo", *_fitted(op, names))
        for op, names in [
            ("add", ("self", "other")),
            ("sub", ("self", "other")),
            ("mul", ("self", "other")),
            ("div", ("self", "other")),
            ("neg", ("self",)),
            ("clone", ("self",)),
            ("to_dtype", ("self",)),
            ("to_device", ("self",)),
            ("transpose", ("self",)),
            ("permute", ("self",)),
        ]
    ),
    ("index_select", "sparse_coo", "self dim index", _index_select),
    ("select", "sparse_coo", "self dim index", _select),
    ("narrow_copy", "sparse_coo", "self dim start length", _narrow_copy),
    ("unsqueeze", "sparse_coo", "self dim", _unsqueeze),
    ("cat", "sparse_coo", "tensors dim", _cat),
    ("mm", "sparse_coo", "self mat2", _mm),
    ("addmm", "sparse_coo", "mat1 mat2 beta alpha", _addmm),
    ("matmul", "sparse_coo", "self other", _matmul),
    ("mv", "sparse_coo", "self vec", _mv),
    ("bmm", "sparse_coo", "self mat2", _bmm),
    ("hspmm", "*", "mat1 mat2", _hspmm),
    ("smm", "*", "self mat2", _smm),
    ("sspaddmm", "*", "", _sspaddmm),
    ("sum", "sparse_coo", "self dim keepdim", _sum),
    ("norm", "sparse_coo", "self p result", _norm),
    ("_sparse_softmax", "*", "dim result", _softmax(False)),
    ("_sparse_log_softmax", "*", "dim result", _softmax(True)),
    ("to_dense", "*", "self", _identity),
    ("to_sparse", "*", "self", _identity),
    ("to_sparse_coo", "*", "self", _identity),
    ("coalesce", "*", "self", _identity),
    ("values", "*", "self", _values),
    ("sparse_mask", "*", "self mask", _sparse_mask),
    ("_sparse_coo_tensor_unsafe", "*", "indices size", _from_values),
]
