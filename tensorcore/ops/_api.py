"""Derive the Python API from the operator table: ``tc.<op>`` functions, ``Tensor`` methods,
in-place ``op_`` methods and ``out=`` arguments. Done once at import; no build step.

Each function is compiled from its signature (as ``dataclasses`` does), so it has a real
Python signature -- ``help(tc.add)`` shows it -- and binds its arguments at C speed.
"""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import os
import sys
import zlib
from typing import Any

from .. import dispatch
from .._tensor import Tensor
from . import functions
from ._call import call, call_inplace
from ._lanes import lane
from ._signature import MISSING, Param
from ._validate import check_source, namespace, v_ints
from .frontends import bind
from .schema import ALIASES, INPLACE_FUNCTIONS, OPS, OpDecl

__all__ = ["FUNCTIONS", "build", "norm_size", "tensor_options"]

FUNCTIONS: dict[str, Any] = {}

#: Keyword aliases of parameters, NumPy's names that PyTorch accepts as well.
_NUMPY_ALIASES = {"dim": "axis", "keepdim": "keepdims"}
#: Keywords that set a parameter through a conversion: PyTorch's older ``unbiased=`` of
#: ``var``/``std``/``var_mean``/``std_mean`` is their ``correction`` (True: 1, False: 0).
_CONVERTED_ALIASES = {"correction": ("unbiased", "1 if unbiased else 0")}
#: ``int...`` parameters that may also be given by keyword (``zeros(size=(2, 3))``).
_KEYWORD_VARARGS = frozenset({"size", "shape", "dims", "repeats"})


class _Unset:
    """The default of a keyword alias that was not given."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()


def norm_size(fn: str, arg: str, size: tuple[Any, ...]) -> tuple[int, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` both give ``(2, 3)``; anything but ints raises a
    ``TypeError`` naming ``fn`` and ``arg`` (see :func:`~tensorcore.ops._validate.v_ints`)."""
    if len(size) == 1 and size[0].__class__ is not int:
        one = size[0]
        if isinstance(one, (tuple, list)):  # f((2, 3)), f([2, 3]), f(other.shape)
            for x in one:
                if x.__class__ is not int:
                    return v_ints(fn, arg, one)
            return one if one.__class__ is tuple else tuple(one)
        return v_ints(fn, arg, one)
    for x in size:
        if x.__class__ is not int:
            return v_ints(fn, arg, size)
    return size


def norm_list(fn: str, arg: str, items: tuple[Any, ...]) -> tuple[Any, ...]:
    """``f(eq, a, b)`` and ``f(eq, [a, b])`` both give ``(a, b)``."""
    if len(items) == 1 and isinstance(items[0], (list, tuple)):
        return tuple(items[0])
    return items


def _param_src(p: Param, pyname: str) -> str:
    if p.vararg:
        return f"*{pyname}"
    if p.default is MISSING:
        return pyname
    return f"{pyname}={p.default!r}"


def _last_required(params: tuple[Param, ...], i: int) -> bool:
    """Whether no positional parameter without a default follows parameter ``i`` (so that
    it can take a default itself)."""
    return all(q.kw_only or q.vararg or q.default is not MISSING for q in params[i + 1 :])


def _legacy_src(fname: str, alias: str) -> str:
    """Source that reads PyTorch's older positional form: ``f(x, True)`` gives ``alias``
    (dim stays None), ``f(x, dim, alias[, keepdim])`` gives it after dim."""
    bad = f'raise TypeError("{fname}() received an invalid combination of arguments")'
    return (
        f"if _legacy or dim.__class__ is bool:\n"
        f"    if {alias} is not _UNSET or len(_legacy) > (0 if dim.__class__ is bool else 2):\n"
        f"        {bad}\n"
        f"    if dim.__class__ is bool:\n"
        f"        dim, {alias} = None, dim\n"
        f"    else:\n"
        f"        {alias} = _legacy[0]\n"
        f"        if len(_legacy) == 2:\n"
        f"            keepdim = _legacy[1]"
    )


def _render(
    decl: OpDecl, kind: str, has_lane: bool = False, name: str | None = None
) -> tuple[str, str]:
    """Source of one variant: kind is 'function', 'method', 'inplace' or 'inplace_function'
    (``torch.exp_(x)``); a variant whose lane exists (``has_lane``) tries it first
    (``_op.lane``, ``_op.lane_inplace``). ``name`` is an alias's name (the operator's by
    default)."""
    params = decl.parsed.params
    names: list[str] = []
    parts: list[str] = []
    pre: list[str] = []
    kw_started = False
    fname = _variant_name(name or decl.name, kind)
    aliases: list[str] = []
    alone = kind == "function" and decl.alone
    renames = decl.method_renames
    spread = kind != "function" and int_list_varargs(decl)
    for i, p in enumerate(params):
        pyname = p.name
        if i == 0 and p.name == "self" and kind in ("function", "inplace_function"):
            pyname = "input"
        elif kind in ("method", "inplace") and p.name in renames:
            # PyTorch's method name of the parameter: x.split(split_size=2)
            pyname = renames[p.name]
        if p.kw_only and not kw_started and not any(q.vararg for q in params[:i]):
            if p.name in _CONVERTED_ALIASES and i and params[i - 1].name == "dim":
                # PyTorch's older overloads var(input, unbiased) and var(input, dim, unbiased,
                # keepdim): the alias and keepdim given by position, after dim (or for it).
                parts.append("*_legacy")
                pre.insert(0, _legacy_src(fname, _CONVERTED_ALIASES[p.name][0]))
            else:
                parts.append("*")
            kw_started = True
        if p.vararg and p.name in _KEYWORD_VARARGS:
            # PyTorch also takes the sizes as a keyword: randn(size=(2, 3)), flip(dims=[0]).
            parts.append(f"*_{pyname}")
            aliases.append(f"{pyname}=_UNSET")
            pre.append(
                f"if {pyname} is _UNSET:\n    {pyname} = _{pyname}\nelif _{pyname}:\n"
                f"    raise TypeError(\"{fname}() got multiple values for argument '{pyname}'\")"
                f"\nelse:\n    {pyname} = ({pyname},)"
            )
        elif spread and i == 1:
            # PyTorch's parser takes a method's only argument, an int list, spread out too:
            # x.flip(0, 1) is x.flip((0, 1)); one argument passes as it is (x.squeeze(0)).
            parts.append(f"*_{pyname}")
            aliases.append(f"{pyname}=_UNSET")
            missing = (
                f"raise TypeError(\"{fname}() missing 1 required positional argument: '{p.name}'\")"
                if p.default is MISSING
                else f"{pyname} = {p.default!r}"
            )
            pre.append(
                f"if {pyname} is _UNSET:\n    if len(_{pyname}) == 1:\n"
                f"        {pyname} = _{pyname}[0]\n    elif _{pyname}:\n"
                f"        {pyname} = _{pyname}\n    else:\n        {missing}\nelif _{pyname}:\n"
                f"    raise TypeError(\"{fname}() got multiple values for argument '{pyname}'\")"
            )
        elif alone and i > 0 and p.default is MISSING:
            # May be omitted together with the others: the one-argument overload.
            parts.append(f"{pyname}=_UNSET")
        elif p.name in _NUMPY_ALIASES and p.default is MISSING and _last_required(params, i):
            # A required dim that the alias may give instead: cumsum(x, axis=0).
            parts.append(f"{pyname}=_UNSET")
        else:
            parts.append(_param_src(p, pyname))
        if p.name in _NUMPY_ALIASES and (p.default is not MISSING or _last_required(params, i)):
            # NumPy's spellings, which PyTorch accepts too: sum(axis=0, keepdims=True).
            alias = _NUMPY_ALIASES[p.name]
            aliases.append(f"{alias}=_UNSET")
            pre.append(f"if {alias} is not _UNSET:\n    {pyname} = {alias}")
            if p.default is MISSING:
                pre.append(
                    f'elif {pyname} is _UNSET:\n    raise TypeError("{fname}() missing 1 '
                    f"required positional argument: '{p.name}'\")"
                )
        if p.name in _CONVERTED_ALIASES:
            alias, value = _CONVERTED_ALIASES[p.name]
            aliases.append(f"{alias}=_UNSET")
            pre.append(
                f"if {alias} is not _UNSET:\n    if {pyname} is not None:\n        raise "
                f'TypeError("{fname}(): use either {alias}= or {p.name}=, not both")\n'
                f"    {pyname} = {value}"
            )
        if p.vararg:
            norm = "_norm_list" if p.type.startswith("Tensor") else "_norm_size"
            pre.append(f"{pyname} = {norm}({fname!r}, {p.name!r}, {pyname})")
        check = check_source(fname, pyname, p)
        if check is not None:
            pre.append(check)
        if p.name == "requires_grad":
            pre.append("_rg = requires_grad")
        names.append(pyname)
    if kind == "function" and decl.convert is not None:
        # (before any check: the declaration's rewrite of a call form the signature cannot say)
        pre.insert(0, f"{', '.join(names)}, = _op.decl.convert({', '.join(names)})")
    if alone:
        rest = [n for q, n in zip(params[1:], names[1:], strict=True) if q.default is MISSING]
        pre.insert(
            0,
            f"if {' and '.join(f'{n} is _UNSET' for n in rest)}:\n"
            f"    return _call(_op_{decl.alone}, ({names[0]},), None)",
        )
        pre[1:1] = [
            f'if {n} is _UNSET:\n    raise TypeError("{fname}() missing 1 required '
            f"argument: '{n}'\")"
            for n in rest
        ]
    added = tensor_options(decl) if kind == "function" else ()
    options = bool(added)
    # A factory without tensor inputs dispatches on its ``layout=`` (``zeros(2, 3,
    # layout=tc.sparse_coo)`` runs the kernel a plugin registers for that layout): the
    # layout's kernel, or None for strided, is ``_lk``. One that declares ``layout`` itself
    # (``zeros_like``: None is its input's) gets it as an argument.
    by_layout = options and not any(p.is_tensor or p.is_tensor_list for p in params)
    if options:
        # PyTorch's TensorOptions keywords, which every function making a tensor takes.
        aliases += [f"{n}={'None' if n == 'layout' else 'False'}" for n in added]
        given = "layout" if "layout" in added else "None"
        check = f"_v_options({fname!r}, {given}, pin_memory{', _op,' if by_layout else ''})"
        if by_layout:
            pre.append(f"_lk = None\nif layout is not None or pin_memory:\n    _lk = {check}")
        else:
            test = "layout is not None or pin_memory" if "layout" in added else "pin_memory"
            pre.append(f"if {test}:\n    {check}")
    has_out = decl.out and kind == "function"
    if (has_out or aliases) and not kw_started and not spread and not any(q.vararg for q in params):
        parts.append("*")
    if has_out:
        parts.append("out=None")
    parts.extend(aliases)
    argtuple = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
    inplace = kind in ("inplace", "inplace_function") or "inplace" in decl.tags
    if inplace:
        body = f"return _call_inplace(_op, {argtuple})"
        if has_lane and kind != "method":
            # (the lane returns None for a call it does not take)
            first = f"_r = _op.lane_inplace({', '.join(names)})\nif _r is not None:\n    return _r"
            body = f"{first}\n{body}"
    elif has_lane and "requires_grad" in (p.name for p in params):
        # A factory: its lane (no out=, layout or pinning asked for), else the call path;
        # then requires_grad, as for any call.
        call = f"_r = _call(_op, {argtuple}, {'out' if has_out else 'None'})"
        if by_layout:
            call = f"{call} if _lk is None else _lk({argtuple}, device)"
        if options:
            call += "\nif pin_memory:\n    _r = _r.pin_memory()"
        lane = f"_r = _op.lane({', '.join(names)})"
        conditions = (["out is None"] if has_out else []) + (
            [f"{'layout is None and ' if 'layout' in added else ''}not pin_memory"]
            if options
            else []
        )
        if conditions:
            lane = f"_r = None\nif {' and '.join(conditions)}:\n    {lane}"
        call = call.replace("\n", "\n    ")
        body = f"{lane}\nif _r is None:\n    {call}\nif _rg:\n    _factory_rg(_r)\nreturn _r"
    else:
        body = f"_r = _call(_op, {argtuple}, {'out' if has_out else 'None'})"
        if by_layout:
            body = f"{body} if _lk is None else _lk({argtuple}, device)"
        if options:
            body += "\nif pin_memory:\n    _r = _r.pin_memory()"
        if "requires_grad" in (p.name for p in params):
            body += "\nif _rg:\n    _factory_rg(_r)"
        elif has_lane and not options:
            # (the lane returns None for a call it does not take)
            first = f"_r = _op.lane({', '.join(names)})\nif _r is not None:\n    return _r"
            if has_out:
                first = "if out is None:\n    " + first.replace("\n", "\n    ")
            body = f"{first}\n{body}"
        body += "\nreturn _r"
    if kind == "method" and decl.overload and pre:
        # PyTorch's other overload answers a call that fails the checks (x.view(dtype)),
        # and one with keywords of its own (x.view(dtype=tc.int32)).
        pairs = zip(params[1:], names[1:], strict=True)
        raw = ", ".join(("*" if q.vararg else "") + n for q, n in pairs)
        checks = "\n".join(pre).replace("\n", "\n    ")
        given = ", ".join(
            ("*_" if q.vararg and q.name in _KEYWORD_VARARGS else "*" if q.vararg else "") + n
            for q, n in zip(params[1:], names[1:], strict=True)
        )
        parts.append("**_okw")
        pre = [
            f"if _okw:\n    _r = getattr({names[0]}, _op.decl.overload)({given}, **_okw)\n"
            "    if _r is NotImplemented:\n"
            f'        raise TypeError(f"{fname}() got an unexpected keyword argument '
            "'{next(iter(_okw))}'\")\n    return _r",
            f"try:\n    {checks}\nexcept TypeError:\n"
            f"    _r = getattr({names[0]}, _op.decl.overload)({raw})\n"
            "    if _r is NotImplemented:\n        raise\n    return _r",
        ]
    src = f"def {fname}({', '.join(parts)}):\n"
    for line in [*pre, body]:
        src += "".join(f"    {part}\n" for part in line.split("\n"))
    return fname, src


def int_list_varargs(decl: OpDecl) -> bool:
    """Whether the method's only parameter besides ``self`` is an int list, which PyTorch's
    argument parser also takes spread out (``x.flip(0, 1)``, ``x.squeeze(0, 2)``)."""
    params = decl.parsed.params
    return (
        len(params) == 2
        and params[0].name == "self"
        and params[1].type in ("int[]", "int[]?")
        and not params[1].vararg
        and not params[1].kw_only
    )


def _variant_name(name: str, kind: str) -> str:
    """``exp_`` for the in-place variants of ``exp``; an in-place-only operator (``fill_``)
    carries its underscore already."""
    return name + ("_" if kind.startswith("inplace") and not name.endswith("_") else "")


def tensor_options(decl: OpDecl) -> tuple[str, ...]:
    """The keywords of PyTorch's ``layout=`` and ``pin_memory=`` that ``decl``'s function
    takes beyond its declaration: every function making a new tensor (it has ``dtype`` and
    ``device`` parameters) takes both, and one that declares ``layout`` (``zeros_like``,
    whose default is its input's layout) gets ``pin_memory`` alone."""
    names = {p.name for p in decl.parsed.params}
    if not {"dtype", "device"} <= names:
        return ()
    return tuple(n for n in ("layout", "pin_memory") if n not in names)


def _doc(decl: OpDecl, kind: str, name: str | None = None) -> str:
    extra = ""
    if kind.startswith("inplace"):
        extra = f"In-place version of :func:`{decl.name}`: writes the result into ``self``.\n\n"
    if name is not None and name != decl.name:
        extra = f"Alias of :func:`{decl.name}`.\n\n{extra}"
    return (
        f"{decl.doc}\n\n{extra}Declared in ``tensorcore/ops/schema/`` as "
        f"``{decl.signature}`` (tags: {', '.join(sorted(decl.tags))})."
    )


#: The namespaces the operators' variants were compiled in: their ``_call`` and
#: ``_call_inplace`` entries are the call path, which :mod:`tensorcore.ops._intercept`
#: swaps for wrappers while a profiler runs (and back), so that no call pays for a check.
NAMESPACES: list[dict[str, Any]] = []


def _compile(decl: OpDecl, kind: str, op: dispatch.Op) -> Any:
    fname, src = _render(decl, kind, _has_lane(op, kind))
    ns: dict[str, Any] = {
        "_op": op,
        "_call": call,
        "_call_inplace": call_inplace,
        "_norm_size": norm_size,
        "_norm_list": norm_list,
        "_UNSET": _UNSET,
        **namespace(),
    }
    if decl.alone:
        ns[f"_op_{decl.alone}"] = dispatch.get_op(decl.alone)
    exec(compile(src, f"<tensorcore op {decl.name}>", "exec"), ns)
    NAMESPACES.append(ns)
    return _finish(ns[fname], decl, kind)


def build() -> None:
    """Compile every declared operator's variants and attach the methods to ``Tensor``.

    All sources are compiled in one go (one ``compile`` call is much cheaper than hundreds),
    which keeps ``import tensorcore`` fast.
    """
    table = dispatch.ops()
    chunks: list[str] = []
    ns: dict[str, Any] = {
        "_call": call,
        "_call_inplace": call_inplace,
        "_norm_size": norm_size,
        "_norm_list": norm_list,
        "_UNSET": _UNSET,
        **namespace(),
    }
    variants: list[tuple[OpDecl, str, str, str]] = []
    for name, decl in OPS.items():
        op = _prepare(decl)
        ns[f"_op_{name}"] = op
    for decl, kind, name in _variants():
        op = ns[f"_op_{decl.name}"]
        fname, src = _render(decl, kind, _has_lane(op, kind), name)
        uid = f"_{kind}_{name}"
        src = (
            src.replace(f"def {fname}(", f"def {uid}(", 1)
            .replace("(_op,", f"(_op_{decl.name},")
            .replace(", _op,)", f", _op_{decl.name})")
            .replace("_op.lane", f"_op_{decl.name}.lane")
            .replace("_op.decl", f"_op_{decl.name}.decl")
        )
        chunks.append(src)
        variants.append((decl, kind, uid, name))
    exec(_compiled("\n".join(chunks)), ns)
    NAMESPACES.append(ns)
    for decl, kind, uid, name in variants:
        _install(decl, kind, _finish(ns[uid], decl, kind, name), name)
    assert len(table) >= len(OPS)


def _variants() -> list[tuple[OpDecl, str, str]]:
    """Every (declaration, kind, name) the API compiles: each operator's function, method
    and in-place method, the same for each alias under its name, and the in-place functions
    (``torch.exp_``)."""
    out: list[tuple[OpDecl, str, str]] = []
    for name, decl in OPS.items():
        for kind, wanted in (
            ("function", decl.function),
            ("method", decl.method),
            ("inplace", decl.inplace),
        ):
            if wanted:
                out.append((decl, kind, name))
    for name, alias in ALIASES.items():
        for kind in ("function", "method", "inplace"):
            if alias.has(kind):
                out.append((OPS[alias.target], kind, name))
    for name in sorted(INPLACE_FUNCTIONS):
        decl = OPS[ALIASES[name].target if name in ALIASES else name]
        if not (decl.inplace or "inplace" in decl.tags):
            raise ValueError(f"in-place function {name}_: {decl.name} has no in-place variant")
        out.append((decl, "inplace_function", name))
    return out


def _compiled(src: str) -> Any:
    """The code object of the operators' source, from a cache beside this module's bytecode
    when an earlier import compiled the same source with this Python (compiling it costs
    tens of milliseconds of every ``import tensorcore``; loading it, one or two)."""
    tag = sys.implementation.cache_tag
    key = f"{zlib.crc32(src.encode()):08x}{len(src):x}"
    path = None
    if tag is not None:
        pyc = importlib.util.cache_from_source(__file__)
        path = os.path.join(os.path.dirname(pyc), f"_api.ops-{key}.{tag}.marshal")
        try:
            with open(path, "rb") as fh:
                return marshal.load(fh)
        except (OSError, EOFError, ValueError, TypeError):
            pass  # no cache yet (or a damaged one): compile
    code = compile(src, "<tensorcore operators>", "exec")
    if path is not None and not sys.dont_write_bytecode:
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(tmp, "wb") as fh:
                marshal.dump(code, fh)
            os.replace(tmp, path)  # atomic: a concurrent import reads all or nothing
        except OSError:
            with contextlib.suppress(OSError):
                os.remove(tmp)
    return code


def _prepare(decl: OpDecl) -> dispatch.Op:
    table = dispatch.ops()
    op = table.get(decl.name)
    if op is None:
        op = table[decl.name] = dispatch.Op(decl)
    bind(op)
    op.lane = lane(op)
    op.lane_inplace = lane(op, inplace=True) if decl.inplace else None
    return op


def _has_lane(op: dispatch.Op, kind: str) -> bool:
    if kind == "inplace_function" and "inplace" in op.decl.tags:
        return False  # (``torch.fill_``: the in-place-only operator's call path)
    return (op.lane_inplace if kind.startswith("inplace") else op.lane) is not None


def _finish(fn: Any, decl: OpDecl, kind: str, name: str | None = None) -> Any:
    fname = _variant_name(name or decl.name, kind)
    fn.__name__ = fname
    fn.__doc__ = _doc(decl, kind, name)
    fn.__module__ = "tensorcore"
    function = kind in ("function", "inplace_function")
    fn.__qualname__ = fname if function else f"Tensor.{fname}"
    return fn


def _install(decl: OpDecl, kind: str, fn: Any, name: str | None = None) -> None:
    fname = _variant_name(name or decl.name, kind)
    if kind in ("function", "inplace_function"):
        FUNCTIONS[fname] = fn
        setattr(functions, fname, fn)
    else:
        setattr(Tensor, fname, fn)


def build_one(decl: OpDecl) -> None:
    """Compile one operator's variants (used for operators that plugins declare)."""
    op = _prepare(decl)
    for kind, wanted in (
        ("function", decl.function),
        ("method", decl.method),
        ("inplace", decl.inplace),
    ):
        if wanted:
            _install(decl, kind, _compile(decl, kind, op))
