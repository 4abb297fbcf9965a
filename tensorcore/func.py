"""``tensorcore.func``: PyTorch's function transforms (``torch.func``), built on autograd.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd`` and
``hessian`` turn a function of tensors into the function computing its derivatives; ``vmap``
maps a function over a dim of its inputs; ``functional_call`` runs a module with parameters
and buffers given as a dict; ``stack_module_state`` stacks the state of several same-shaped
modules for an ensemble under ``vmap``.

They compose (``vmap(grad(f))``, ``jacrev(jacrev(f))``, ``hessian``) and take pytrees
(tuples, lists, dicts of tensors) wherever PyTorch does. Two differences from PyTorch's
implementation, which none of the results depend on:

- ``vmap`` calls the function once per index of the mapped dim and stacks the results
  (PyTorch runs batched kernels once). The values are the same; per-example Python control
  flow and ``.item()`` work where PyTorch would refuse them. ``randomness`` is PyTorch's:
  a random operation inside raises with ``"error"`` (the default), gives every example the
  first example's draws with ``"same"`` (each generator is rewound between examples), and
  draws on with ``"different"`` (per example, so values drawn by one batched kernel in
  PyTorch may come in another order).
- ``jacfwd`` and ``jvp`` compute forward-mode derivatives with reverse-mode autograd (the
  double-vjp identity); the values equal forward mode's.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from ._func_more import functionalize, replace_all_batch_norm_modules_
from ._tensor import Tensor
from .autograd import grad_mode
from .autograd.engine import grad as _autograd_grad
from .autograd.graph import AccumulateGrad
from .ops import functions as ops
from .random import _vmap_randomness

__all__ = [
    "functional_call",
    "functionalize",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]


# ------------------------------------------------------------------ pytrees
def _flatten(tree: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """The leaves of ``tree`` (tuples, lists, dicts, namedtuples nest) and a function that
    rebuilds a tree of the same structure from new leaves."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(t) for t in tree]
        leaves = [leaf for p in parts for leaf in p[0]]

        def build_seq(new: list[Any]) -> Any:
            out, k = [], 0
            for ls, rebuild in parts:
                out.append(rebuild(new[k : k + len(ls)]))
                k += len(ls)
            if isinstance(tree, list):
                return out
            if hasattr(tree, "_fields"):  # a namedtuple
                return type(tree)(*out)
            return tuple(out)

        return leaves, build_seq
    if isinstance(tree, dict):
        keys = list(tree)
        parts = [_flatten(tree[k]) for k in keys]
        leaves = [leaf for p in parts for leaf in p[0]]

        def build_dict(new: list[Any]) -> Any:
            out, k = {}, 0
            for key, (ls, rebuild) in zip(keys, parts, strict=True):
                out[key] = rebuild(new[k : k + len(ls)])
                k += len(ls)
            return type(tree)(out) if type(tree) is not dict else out

        return leaves, build_dict
    return [tree], lambda new: new[0]


def _map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, rebuild = _flatten(tree)
    return rebuild([fn(x) for x in leaves])


# ------------------------------------------------------------------ functional_call
def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors
    of ``parameter_and_buffer_dicts`` (a dict from names as ``named_parameters`` gives them, or
    a sequence of such dicts), then put the module's own back.

    Names the dict lacks keep the module's tensors (``strict=True`` makes that an error, as
    are unexpected names). With ``tie_weights`` a tensor that the module shares under several
    names is replaced under all of them when one is given. ``args`` that is not a tuple is
    the single positional argument.

    Examples
    --------
    >>> import tensorcore as tc
    >>> lin = tc.nn.Linear(2, 1)
    >>> params = {"weight": tc.ones(1, 2), "bias": tc.zeros(1)}
    >>> tc.func.functional_call(lin, params, (tc.tensor([[1.0, 2.0]]),))
    tensor([[3.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    else:
        given = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in given:
                    raise ValueError(
                        f"{k} appeared in multiple dictionaries; behavior of functional call "
                        "is ambiguous"
                    )
                given[k] = v
    # Every (owner, attribute kind, local name) of each tensor, duplicates included.
    slots: dict[str, tuple[Any, str, str, Any]] = {}
    for prefix, mod in module.named_modules(remove_duplicate=False):
        for kind in ("_parameters", "_buffers"):
            for local, t in mod.__dict__[kind].items():
                full = f"{prefix}.{local}" if prefix else local
                slots[full] = (mod, kind, local, t)
    unexpected = [k for k in given if k not in slots]
    if strict:
        missing = [k for k in slots if k not in given]
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected))
            if missing:
                parts.append("Missing key(s): " + ", ".join(repr(k) for k in missing))
            raise RuntimeError(
                "Error(s) in reparametrizing for "
                + type(module).__name__
                + ":\n\t"
                + ".\n\t".join(parts)
                + "."
            )
    elif unexpected:
        raise RuntimeError("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
    if tie_weights:
        by_id = {id(slots[k][3]): v for k, v in given.items() if slots[k][3] is not None}
        for k, (_, _, _, t) in slots.items():
            if k not in given and t is not None and id(t) in by_id:
                given[k] = by_id[id(t)]
    saved = []
    try:
        for k, v in given.items():
            mod, kind, local, old = slots[k]
            saved.append((mod, kind, local, old))
            mod.__dict__[kind][local] = v
        if args is None:
            args = ()
        elif not isinstance(args, tuple):
            args = (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for mod, kind, local, old in reversed(saved):
            mod.__dict__[kind][local] = old


def stack_module_state(models: Iterable[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and the buffers of ``models`` (same structure) stacked along a new
    first dim, for :func:`vmap` over :func:`functional_call`: two dicts keyed by name.

    Stacked parameters are new leaves that require grad when the originals all do.

    Examples
    --------
    >>> import tensorcore as tc
    >>> params, buffers = tc.func.stack_module_state([tc.nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape, params["weight"].requires_grad
    (tensorcore.Size([4, 2, 3]), True)
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stack(ts: list[Tensor]) -> Tensor:
        out = ops.stack([t.detach() for t in ts])
        return out.requires_grad_() if all(t.requires_grad for t in ts) else out

    named = [dict(m.named_parameters()) for m in models]
    params = {k: stack([n[k] for n in named]) for k in named[0]}
    namedb = [dict(m.named_buffers()) for m in models]
    buffers = {k: stack([n[k] for n in namedb]) for k in namedb[0]}
    return params, buffers


# ------------------------------------------------------------------ vmap
def _check_dims(dims: Any, args: tuple[Any, ...], what: str) -> list[Any]:
    if isinstance(dims, int) or dims is None:
        return [dims] * len(args)
    if not isinstance(dims, (tuple, list)) or len(dims) != len(args):
        raise ValueError(
            f"vmap(f, {what}={dims!r}, ...)(<inputs>): {what} is not compatible with the "
            f"structure of `inputs`. {what} has structure {dims!r} but inputs has "
            f"{len(args)} elements."
        )
    return list(dims)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """Map ``func`` over a dim of its inputs: ``vmap(f)(x)[i]`` is ``f(x[i])``.

    ``in_dims`` gives the mapped dim of each positional argument (an int for all, or one
    entry per argument, each an int, None for an argument passed whole, or a pytree of those
    matching the argument); ``out_dims`` where the mapped dim goes in each output. ``func``
    returns a tensor or a pytree of tensors. The mapped dims of all inputs must have one size.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.vmap(tc.dot)(tc.ones(3, 2), tc.arange(6.0).reshape(3, 2))
    tensor([1., 5., 9.])
    >>> tc.func.vmap(lambda x, y: x * y, in_dims=(0, None))(tc.ones(2, 2), tc.tensor(3.0))
    tensor([[3., 3.],
            [3., 3.]])
    """
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        dims = _check_dims(in_dims, args, "in_dims")
        # One (leaf, dim) per tensor leaf of each argument.
        flat_args, rebuild_args = _flatten(list(args))
        flat_dims: list[Any] = []
        for a, d in zip(args, dims, strict=True):
            leaves, _ = _flatten(a)
            if isinstance(d, (tuple, list, dict)):
                dl, _ = _flatten(d)
                if len(dl) != len(leaves):
                    raise ValueError(
                        f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): in_dims is not "
                        "compatible with the structure of `inputs`."
                    )
                flat_dims.extend(dl)
            else:
                flat_dims.extend([d] * len(leaves))
        size = None
        for x, d in zip(flat_args, flat_dims, strict=True):
            if d is None:
                continue
            if not isinstance(d, int):
                raise ValueError(
                    f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): in_dims must be an int, None "
                    f"or a pytree of those, got {d!r}"
                )
            if not isinstance(x, Tensor):
                raise ValueError(
                    f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for an input "
                    f"but the input is of type {type(x)}. We cannot vmap over non-Tensor "
                    "arguments, please use None as the respective in_dim"
                )
            if not -x.ndim <= d < max(x.ndim, 1) or x.ndim == 0:
                raise ValueError(
                    f"vmap(f, in_dims={in_dims!r}, ...)(<inputs>): Got in_dim={d} for some input, "
                    f"but that input is a Tensor of dimensionality {x.ndim} so expected in_dim "
                    f"to satisfy -{x.ndim} <= in_dim < {x.ndim}."
                )
            n = x.shape[d]
            if size is None:
                size = n
            elif n != size:
                raise ValueError(
                    "vmap: Expected all tensors to have the same size in the mapped dimension, "
                    f"got sizes {size} and {n} for the mapped dimension"
                )
        if size is None:
            raise ValueError(
                "vmap(f, in_dims=..., ...)(<inputs>): at least one input must be a Tensor "
                "mapped over a dim (an in_dim that is not None)"
            )
        results = []
        with _vmap_randomness(randomness) as level:
            for i in range(size):
                sliced = [
                    x if d is None else x.select(d, i)
                    for x, d in zip(flat_args, flat_dims, strict=True)
                ]
                if i and randomness == "same":
                    level.rewind()
                results.append(func(*rebuild_args(sliced), **kwargs))
        if size == 0:
            raise ValueError("vmap: the mapped dim has size 0; there is no output to stack")
        outs, rebuild_out = _flatten(results[0])
        for o in outs:
            if not isinstance(o, Tensor):
                fname = getattr(func, "__name__", "f")
                raise ValueError(
                    f"vmap({fname}, ...): `{fname}` must only return Tensors"
                    f", got type {type(o)}. Did you mean to set "
                    "out_dims= to None for output?"
                )
        odims: list[Any]
        if isinstance(out_dims, (tuple, list)):
            odims, _ = _flatten(out_dims)
            if len(odims) != len(outs):
                odims = [out_dims[0]] * len(outs) if len(out_dims) == 1 else odims
            if len(odims) != len(outs):
                raise ValueError(
                    f"vmap(f, ..., out_dims={out_dims!r})(<inputs>): out_dims is not compatible "
                    "with the structure of `outputs`."
                )
        else:
            odims = [out_dims] * len(outs)
        flat_results = [_flatten(r)[0] for r in results]
        stacked = []
        for k, d in enumerate(odims):
            column = [r[k] for r in flat_results]
            if d is None:
                stacked.append(column[0])
            else:
                stacked.append(ops.stack(column, d))
        return rebuild_out(stacked)

    return wrapped


# ------------------------------------------------------------------ autograd transforms
def _nested(t: Any) -> bool:
    return isinstance(t, Tensor) and t.requires_grad


class _Depth(threading.local):
    """How many autograd transforms are running their function on this thread."""

    n = 0


_depth = _Depth()
# The depth of the transform that made each fresh leaf for its inputs, by the leaf's id
# while it lives (keyed by id: a tensor's == is elementwise, unfit for a weak dict).
_FRESH: dict[int, tuple[weakref.ref[Tensor], int]] = {}


def _forget(key: int) -> Callable[[Any], object]:
    return lambda _: _FRESH.pop(key, None)


@contextlib.contextmanager
def _running(level: int) -> Any:
    """The transform of depth ``level`` runs its function (a transform it calls is deeper)."""
    before, _depth.n = _depth.n, level
    try:
        yield
    finally:
        _depth.n = before


def _keeps_graph(outer_on: bool, primals: Any, results: Any, level: int) -> bool:
    """Whether the results of the transform of depth ``level`` stay on its caller's autograd
    graph (PyTorch's outer level records them): grad mode was on at the call, and a primal
    requires grad or the results depend on a tensor that requires grad other than the fresh
    leaves of this transform and of those it called: a module's parameters or an outer
    transform's input, closed over (``jacrev(model)(x)`` in a loss, ``grad`` inside
    ``grad``)."""
    if not outer_on:
        return False
    if any(_nested(t) for a in primals for t in _flatten(a)[0]):
        return True
    seen: set[int] = set()
    stack = [t.grad_fn for t in _flatten(results)[0] if isinstance(t, Tensor) and t.grad_fn]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaf = node.variable
            if leaf is not None and _FRESH.get(id(leaf), (None, 0))[1] < level:
                return True
            continue
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return False


def _prepare(x: Any, level: int) -> Any:
    """A differentiable stand-in for each tensor leaf of ``x``: an alias when ``x`` is already
    tracked (an outer transform differentiates through this one), else a fresh leaf of the
    transform of depth ``level``."""

    def one(t: Any) -> Any:
        if not isinstance(t, Tensor):
            return t
        if not (t.dtype.is_floating_point or t.dtype.is_complex):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if t.requires_grad:
            return t.view_as(t)
        leaf = t.detach().requires_grad_()
        _FRESH[id(leaf)] = (weakref.ref(leaf, _forget(id(leaf))), level)
        return leaf

    return _map(one, x)


def _grads(
    outputs: list[Tensor], inputs: list[Tensor], cotangents: list[Any], create: bool
) -> list[Tensor]:
    live = [(o, c) for o, c in zip(outputs, cotangents, strict=True) if o.requires_grad]
    if not live:
        return [ops.zeros_like(x) for x in inputs]
    res = _autograd_grad(
        [o for o, _ in live],
        inputs,
        [c for _, c in live],
        retain_graph=True,
        create_graph=create,
        allow_unused=True,
    )
    return [ops.zeros_like(x) if g is None else g for g, x in zip(res, inputs, strict=True)]


def _split_aux(out: Any, has_aux: bool, who: str) -> tuple[Any, Any]:
    """``(output, aux)`` of a function's result (aux None without ``has_aux``)."""
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{who}: output of function f should be a tuple: (output, aux) if has_aux is True"
        )
    return out[0], out[1]


def _tensor_outputs(out: Any, who: str) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """``_flatten(out)``, refusing any output that is not a tensor."""
    flat, rebuild = _flatten(out)
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{who}: Expected f to be a function that has Tensor outputs, got {type(o)}"
            )
    return flat, rebuild


def _argnums(argnums: Any, n: int, fn: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise RuntimeError(f"{fn}: argnums must be non-empty")
    out = []
    for a in nums:
        if not isinstance(a, int):
            raise RuntimeError(f"{fn}: argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -n <= a < n:
            raise RuntimeError(f"Got argnums={a}, but only {n} positional inputs")
        out.append(a % n)
    return tuple(out)


def _detach_tree(x: Any, keep: bool) -> Any:
    return x if keep else _map(lambda t: t.detach() if isinstance(t, Tensor) else t, x)


def grad_and_value(
    func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """Like :func:`grad`, but the function returns ``(gradient, value)`` (with ``has_aux``,
    ``(gradient, (value, aux))``).

    Examples
    --------
    >>> import tensorcore as tc
    >>> g, v = tc.func.grad_and_value(lambda x: (x ** 2).sum())(tc.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """

    def wrapped(*call_args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(call_args), "grad_and_value")
        outer_on, level = grad_mode.is_grad_enabled(), _depth.n + 1
        args = list(call_args)
        for a in nums:
            args[a] = _prepare(args[a], level)
        with grad_mode.enable_grad():
            with _running(level):
                result = func(*args, **kwargs)
            out, aux = _split_aux(result, has_aux, "grad_and_value(f)(*args)")
            if not isinstance(out, Tensor):
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(out)}"
                )
            if out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {out.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            leaves = [t for a in nums for t in _flatten(args[a])[0] if isinstance(t, Tensor)]
            keep = _keeps_graph(outer_on, call_args, (out, aux), level)
            gs = iter(_grads([out], leaves, [None], keep))
        per_arg = [
            _map(lambda t: next(gs) if isinstance(t, Tensor) else None, args[a]) for a in nums
        ]
        g = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        value = _detach_tree(out, keep)
        if has_aux:
            return g, (value, _detach_tree(aux, keep))
        return g, value

    return wrapped


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The function computing the gradient of ``func`` (which returns a scalar tensor) with
    respect to the positional arguments ``argnums`` (an int, or a tuple for a tuple of
    gradients); each argument may be a pytree of tensors. With ``has_aux``, ``func`` returns
    ``(output, aux)`` and the result is ``(gradient, aux)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.grad(lambda x: (x ** 3).sum())(tc.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    >>> tc.func.grad(tc.func.grad(lambda x: x ** 3))(tc.tensor(2.0))
    tensor(12.)
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapped


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian
    products with respect to each primal (a tuple, one per primal). With ``has_aux``,
    ``(output, vjp_fn, aux)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> out, vjp_fn = tc.func.vjp(lambda x: x ** 2, tc.tensor([1.0, 3.0]))
    >>> vjp_fn(tc.ones(2))
    (tensor([2., 6.]),)
    """
    value, vjp_fn, aux, _ = _vjp(func, primals, has_aux)
    if has_aux:
        return value, vjp_fn, aux
    return value, vjp_fn


def _vjp(func: Callable[..., Any], primals: Any, has_aux: bool) -> tuple[Any, Any, Any, bool]:
    """:func:`vjp`'s ``(output, vjp_fn, aux)`` and whether they stay on the caller's graph."""
    outer_on, level = grad_mode.is_grad_enabled(), _depth.n + 1
    prepared = [_prepare(p, level) for p in primals]
    with grad_mode.enable_grad(), _running(level):
        out, aux = _split_aux(func(*prepared), has_aux, "vjp(f, *primals)")
    flat_out, _ = _tensor_outputs(out, "vjp(f, *primals)")
    leaves = [t for p in prepared for t in _flatten(p)[0] if isinstance(t, Tensor)]
    keep = _keeps_graph(outer_on, primals, (out, aux), level)

    def vjp_fn(
        cotangents: Any, *, retain_graph: bool = True, create_graph: bool | None = None
    ) -> Any:
        flat_c, _ = _flatten(cotangents)
        if len(flat_c) != len(flat_out):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                "of outputs to the function."
            )
        create = keep or bool(create_graph) or any(_nested(c) for c in flat_c)
        with grad_mode.enable_grad():
            gs = iter(_grads(flat_out, leaves, flat_c, create))
        return tuple(
            _map(lambda t: next(gs) if isinstance(t, Tensor) else None, p) for p in prepared
        )

    return _detach_tree(out, keep), vjp_fn, _detach_tree(aux, keep), keep


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> Any:
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product in the direction
    ``tangents`` (a tuple like ``primals``). With ``has_aux``, ``(output, jvp_out, aux)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.jvp(lambda x: x ** 2, (tc.tensor([1.0, 3.0]),), (tc.ones(2),))
    (tensor([1., 9.]), tensor([2., 6.]))
    """
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to be tuples. E.g. it "
            "should be valid to call f(*primals)."
        )
    if len(primals) != len(tangents):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same "
            f"python structure. For example, if primals is a tuple of 3 tensors, tangents also "
            f"must be. Got primals with structure {len(primals)} and tangents with structure "
            f"{len(tangents)}"
        )
    out, vjp_fn, aux, keep = _vjp(func, primals, has_aux)
    jv = _linearized(out, vjp_fn, keep)(
        [t for tg in tangents for t in _flatten(tg)[0] if isinstance(t, Tensor)]
    )
    if has_aux:
        return out, jv, aux
    return out, jv


def _linearized(out: Any, vjp_fn: Any, keep: bool) -> Callable[[list[Any]], Any]:
    """The function mapping the flat tangents of the primals to ``J @ tangents`` (shaped as
    ``out``), from the reverse pass ``vjp_fn`` of the recorded call."""
    flat_out, rebuild = _flatten(out)
    # J v through two reverse passes: u -> J^T u is linear in u, and the gradient of
    # <J^T u, v> with respect to u is J v. Any u would do: ones, since a rule may take the
    # log of its gradient (logcumsumexp's), whose derivative at zero is lost; zeros where a
    # rule refuses ones (svd's checks that the gradient ignores the vectors' phases).
    for fill in (1, 0):
        us = [ops.full_like(o, fill).requires_grad_() for o in flat_out]
        try:
            with grad_mode.enable_grad():
                back = vjp_fn(rebuild(us), create_graph=True)
            break
        except RuntimeError:
            if fill == 0:
                raise
    flat_back = [t for b in back for t in _flatten(b)[0] if isinstance(t, Tensor)]

    def apply(flat_t: list[Any]) -> Any:
        with grad_mode.enable_grad():
            gs = _grads(flat_back, us, flat_t, keep)
        return rebuild(gs if keep else [g.detach() for g in gs])

    return apply


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product of
    ``func`` at ``primals`` (the linear approximation), for as many tangents as wanted from
    the one call of ``func``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> out, jvp_fn = tc.func.linearize(lambda x: x.sin(), tc.zeros(3))
    >>> jvp_fn(tc.ones(3))
    tensor([1., 1., 1.])
    """
    out, vjp_fn, _, keep = _vjp(func, primals, False)
    apply = _linearized(out, vjp_fn, keep)
    flat_p = [t for p in primals for t in _flatten(p)[0] if isinstance(t, Tensor)]

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise RuntimeError(
                f"Expected the tangents (of {len(tangents)} arguments) to have the same "
                f"argspec as the primals (of {len(primals)} arguments)"
            )
        flat_t = [t for tg in tangents for t in _flatten(tg)[0] if isinstance(t, Tensor)]
        for k, (t, p) in enumerate(zip(flat_t, flat_p, strict=True)):
            for what, a, b in (("shape", t.shape, p.shape), ("dtype", t.dtype, p.dtype)):
                if a != b:
                    raise RuntimeError(
                        f"tangent:{k} with {what} {a} in flattened pytree doesn't match the "
                        f"{what} {b} of the corresponding primal."
                    )
        return apply(flat_t)

    return out, jvp_fn


def _check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def _jac(
    func: Callable[..., Any], argnums: Any, has_aux: bool, name: str, randomness: str = ""
) -> Callable[..., Any]:
    # (jacfwd's randomness: PyTorch runs its function under vmap, so "error" refuses draws;
    # it is called once here, so "same" and "different" draw once, as a vmapped "same" does)
    def guard() -> contextlib.AbstractContextManager[Any]:
        return _vmap_randomness("error") if randomness == "error" else contextlib.nullcontext()

    def wrapped(*args: Any) -> Any:
        nums = _argnums(argnums, len(args), name)
        outer_on, level = grad_mode.is_grad_enabled(), _depth.n + 1
        args_l = list(args)
        for a in nums:
            args_l[a] = _prepare(args_l[a], level)
        with grad_mode.enable_grad():
            with guard(), _running(level):
                result = func(*args_l)
            out, aux = _split_aux(result, has_aux, f"{name}(f, ...)(*args)")
            flat_out, rebuild_out = _tensor_outputs(out, f"{name}(f, ...)(*args)")
            per_arg = [[t for t in _flatten(args_l[a])[0]] for a in nums]
            leaves = [t for ts in per_arg for t in ts if isinstance(t, Tensor)]
            keep = _keeps_graph(outer_on, args, result, level)
            # rows[k][j]: d out_k / d leaf_j, shape out_k.shape + leaf_j.shape
            rows = []
            for o in flat_out:
                n = o.numel()
                cols: list[list[Tensor]] = [[] for _ in leaves]
                for e in range(n):
                    onehot = ops.zeros(n, dtype=o.dtype, device=o.device)
                    onehot[e] = 1
                    gs = _grads([o], leaves, [onehot.reshape(o.shape)], keep)
                    for j, g in enumerate(gs):
                        cols[j].append(g)
                row = []
                for j, leaf in enumerate(leaves):
                    if n:
                        jac = ops.stack(cols[j]).reshape(*o.shape, *leaf.shape)
                    else:
                        jac = ops.zeros(*o.shape, *leaf.shape, dtype=o.dtype, device=o.device)
                    row.append(jac if keep else jac.detach())
                rows.append(row)
        # Structure: output pytree of (argnums structure of input pytrees).
        results = []
        for row in rows:
            it = iter(row)

            def take(t: Any, it: Any = it) -> Any:
                return next(it) if isinstance(t, Tensor) else None

            per = [_map(take, args_l[a]) for a in nums]
            results.append(per[0] if isinstance(argnums, int) else tuple(per))
        jac_tree = rebuild_out(results)
        if has_aux:
            return jac_tree, _detach_tree(aux, keep)
        return jac_tree

    return wrapped


def jacrev(
    func: Callable[..., Any],
    argnums: Any = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable[..., Any]:
    """The function computing the Jacobian of ``func`` with respect to the arguments
    ``argnums``, one reverse pass per output element: for an output of shape ``O`` and an
    input of shape ``I`` a tensor of shape ``O + I`` (pytrees of those for pytree outputs and
    inputs, a tuple over ``argnums`` when it is a tuple).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.jacrev(lambda x: x ** 2)(tc.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    return _jac(func, argnums, has_aux, "jacrev")


def jacfwd(
    func: Callable[..., Any],
    argnums: Any = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Callable[..., Any]:
    """The Jacobian of ``func``, as :func:`jacrev` lays it out (PyTorch computes it in forward
    mode; the values are the same).

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.jacfwd(lambda x: x.sin())(tc.tensor([0.0]))
    tensor([[1.]])
    """
    _check_randomness(randomness)
    return _jac(func, argnums, has_aux, "jacfwd", randomness)


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """The function computing the Hessian of ``func`` (a scalar function) with respect to
    ``argnums``: ``jacfwd(jacrev(func, argnums), argnums)``.

    Examples
    --------
    >>> import tensorcore as tc
    >>> tc.func.hessian(lambda x: (x ** 3).sum())(tc.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
