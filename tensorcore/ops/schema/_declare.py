"""The declaration type, the table it fills and the helpers the category modules declare with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._signature import Signature, _default, camel, parse_signature

__all__ = [
    "ALIASES",
    "DTYPE_CATEGORIES",
    "FRONTEND_KINDS",
    "INPLACE_FUNCTIONS",
    "OPS",
    "PROMOTIONS",
    "TAGS",
    "OpDecl",
]

#: The closed set of tags.
TAGS = frozenset(
    {
        "pointwise",  # elementwise with broadcasting and type promotion
        "reduction",  # reduces or scans over dims
        "view",  # result shares the input's storage
        "factory",  # makes a tensor from no tensor input
        "composite",  # written with other operators in ops/composite.py
        "inplace",  # mutates its first argument
        "nondifferentiable",  # no derivative rule (integer/bool results, random, ...)
        # recorded in the graph (results require grad), but its derivative raises PyTorch's
        # "not implemented" error at backward, as PyTorch's does (``ldl_factor``)
        "backward_not_implemented",
        "linalg",
        "shape",
        "indexing",
        "conversion",
        "random",
        "nn",  # neural-network layers: convolution, pooling
        "optim",  # fused optimizer steps (mutate their tensor-list arguments)
        "spectral",  # discrete Fourier transforms (the primitives of tensorcore.fft)
    }
)
#: How the core prepares a call before the kernel runs; see ``ops/frontends.py`` (and ``ops/frontend_<kind>.py``).
#: ``pointwise``/``reduction``/``structured``: the core allocates the output and the kernel
#: is called as ``kernel(out, *args)``; ``direct``: ``kernel(*args)`` returns the result.
FRONTEND_KINDS = frozenset({"pointwise", "reduction", "structured", "factory", "unstructured"})
#: The dtype categories an operator may support (``dtypes=``): bool, integer, floating, complex.
DTYPE_CATEGORIES = "bifc"
#: Result-dtype policies of pointwise operators (``promote=``) and reductions.
#: ``float_only`` refuses integral inputs; ``float_only_real`` also gives complex inputs a real
#: result (``var``, ``std``, ``vector_norm``).
#: ``double`` computes in float64 (complex128 for complex input) whatever the inputs' precision,
#: and writes only into tensors of that dtype (``float_power``).
PROMOTIONS = frozenset(
    {
        "same",
        "float",
        "double",
        "bool",
        "int",
        "real",
        "sum",
        "index",
        "float_only",
        "float_only_real",
    }
)


@dataclass(frozen=True)
class OpDecl:
    """One operator. ``inplace``/``out`` say whether the ``op_`` and ``out=`` variants exist.

    ``dtypes`` lists the dtype categories (letters of :data:`DTYPE_CATEGORIES`) the operator
    computes in, as PyTorch supports them: the frontends refuse any other with PyTorch's
    ``NotImplementedError`` (``"floor" not implemented for 'ComplexFloat'``) before a kernel
    runs. The dtype checked is the promoted compute dtype of a pointwise operator, else the
    ``dtype`` argument when one is given, else the first tensor argument's dtype.
    """

    signature: str
    tags: frozenset[str]
    doc: str
    frontend: str = "unstructured"
    promote: str = "same"
    method: bool = True
    function: bool = True
    inplace: bool = False
    out: bool = False
    #: Tensor parameters that also take a Python scalar (every one of a pointwise operator).
    scalars: str = ""
    dtypes: str = DTYPE_CATEGORIES
    #: What the user can do instead, added to the error for a dtype outside ``dtypes``.
    dtype_hint: str = ""
    #: PyTorch's own message (a ``RuntimeError``; ``{dtype}`` is the refused dtype's name,
    #: ``{kind}`` its kind: bool, integer, floating or complex) for
    #: a dtype outside ``dtypes``, where PyTorch's operator checks the dtype itself instead of
    #: leaving it to the dispatcher's ``NotImplementedError`` (``cdist``).
    dtype_error: str = ""
    #: The tensor parameters whose dtypes decide a pointwise operator's compute dtype (all of
    #: them when empty; ``where``'s condition and ``lerp``'s weight take no part).
    promote_args: str = ""
    #: Parameters whose numbers are stored in (or compared with) the operator's dtype: a
    #: Python number that overflows that dtype is refused, as PyTorch's checked conversion of
    #: a ``Scalar`` does (``int8.fill_(300)``, ``int64.masked_fill_(m, nan)``,
    #: ``clamp(half, max=1e6)``; an infinity fits every floating dtype).
    values: str = ""
    #: A number in a ``values`` tensor position of a pointwise operator that overflows a
    #: floating compute dtype of at least this many bytes rounds to inf instead of being
    #: refused; 0: refused in every dtype. ``where``: 2, every floating dtype (PyTorch checks
    #: an integer there, not a float); ``pow``: 4, PyTorch checks its exponent against the
    #: 16-bit floats only (``pow(float32, 1e39)`` is 0 or inf, ``pow(float16, 1e6)`` raises).
    values_round_floats: int = 0
    #: PyTorch's own error for a pointwise operator's tensor outside promotion
    #: (``promote_args``) or ``out=`` of another dtype than the compute dtype, where the
    #: operator words it itself (``heaviside``); the default names the parameter.
    mixed_dtypes_error: str = ""
    #: How an ``out=`` tensor's dtype must match the result's: ``""``, any dtype the result
    #: casts to; ``"same"``, the result's own where ``self`` is the only tensor argument
    #: (PyTorch's one-input operators that keep their input's dtype, ``abs``, ``floor``,
    #: ``clamp`` with number bounds: "Found dtype Double but expected Float"); ``"exact"``,
    #: the result's own (its matrix products: "Expected out tensor to have dtype float...");
    #: ``"several"``, the results' own where the call makes several (``max(x, dim)``'s values
    #: and indices) and any castable one where it makes one (``max(x)``).
    out_dtype: str = ""
    #: Python scalars meeting 16-bit float tensors keep float32 precision (PyTorch's
    #: ``opmath`` scalars of ``mul``, ``div``, ``floor_divide`` and ``lerp``), instead of
    #: being rounded to the compute dtype first (``tensorcore/_scalars.py``).
    opmath_scalars: bool = False
    #: The meta function of a ``structured`` or ``factory`` operator
    #: (``ops/meta_functions.py``): checks the arguments, normalises them and gives the
    #: outputs' shapes and dtypes.
    meta_function: Callable[..., Any] | None = None
    #: Tensor parameters of a pointwise operator that must be bool and take no part in
    #: promotion (``where``'s ``condition``); like PyTorch's, they take no Python scalar.
    masks: str = ""
    #: Tensor parameters of a pointwise operator that take no Python scalar, where PyTorch's
    #: do not (both of ``heaviside``'s); the others do.
    tensors_only: str = ""
    #: ``"param:policy"``: the result-dtype policy when ``param`` is given (not None), e.g.
    #: ``div``'s ``"rounding_mode:same"`` (a rounded quotient keeps the promoted dtype).
    promote_when: str = ""
    #: Whether a reduction has an identity (``sum``'s 0): without one (``amax``, ``argmax``)
    #: reducing a dim of size 0, or an empty tensor, is an error.
    identity: bool = True
    #: ``"param=value"`` pairs: the value the kernel and the derivative rule receive where
    #: the caller passed None (``var``'s ``"correction=1"``).
    none_means: str = ""
    #: An argument check the signature's types cannot say (``div``'s rounding mode, the
    #: order ``n >= 0`` of ``polygamma``, a dtype PyTorch's kernel lacks within a declared
    #: category): called with the arguments in signature order by the frontend (first for a
    #: pointwise operator, after the dtype check for the others), so every backend and layout
    #: gets it.
    check: Callable[..., None] | None = None
    #: How the operator runs inside ``tc.autocast`` (PyTorch's autocast op lists): "lower"
    #: casts floating inputs to the region's lower-precision dtype (matmuls, convolutions,
    #: ``linear``), "fp32" casts 16-bit floating inputs to float32 (decompositions, FFTs,
    #: ``prod``, ``nll_loss``), "promote" casts them to their widest floating dtype (``cat``),
    #: "" leaves them as they are.
    autocast: str = ""
    #: A rewrite of the function's arguments (in signature order; it returns them) before
    #: they are checked, for a call form the signature cannot say: einsum's sublist form
    #: ``einsum(a, [0, 1], b, [1, 2])`` becomes ``einsum("ab,bc", a, b)``.
    convert: Callable[..., tuple[Any, ...]] | None = None
    #: The name of the operator's autograd node where PyTorch's is not the operator's own
    #: (``vector_norm``'s is ``LinalgVectorNormBackward0``, after ATen's ``linalg_vector_norm``).
    node: str = ""
    #: PyTorch's other node names for the operator's overloads, as space-separated
    #: ``"param:Name"`` (when ``param`` is given, not None: ``sum``'s ``"dim:SumBackward1"``)
    #: or ``"param=kind:Name"`` (when ``param`` is a ``tensor``, a Python ``number`` or a
    #: ``list``/tuple: ``pow``'s ``"other=tensor:PowBackward1"``); the first that holds
    #: names the node, else :attr:`node_name`. A callable ``(args) -> str | None`` decides
    #: where such a rule cannot say it (``matmul``: the arguments' ranks).
    node_when: str | Callable[[tuple[Any, ...]], str | None] = ""
    #: The operator that a call of the function giving only its first argument runs:
    #: PyTorch's one-argument overload (``where(condition)`` is ``nonzero_numpy``, the tuple
    #: of index tensors). The other parameters without a default must then all be omitted.
    alone: str = ""
    #: The name of a ``Tensor`` method that answers a method call whose arguments fail their
    #: checks with a ``TypeError``: PyTorch's other overload of the method (``x.view(dtype)``
    #: is ``Tensor._view_dtype``). It returns ``NotImplemented`` for a call that is not its
    #: form either, and the ``TypeError`` stands. A name, not a function: the method lives
    #: above the operator table. Costs nothing on the calls that pass their checks.
    overload: str = ""
    #: ``"param:name"`` pairs: a parameter that PyTorch's ``Tensor`` method calls by another
    #: name than its function does (``torch.split(x, split_size_or_sections=2)`` but
    #: ``x.split(split_size=2)``), so that keyword calls of either form work as in PyTorch.
    method_names: str = ""
    #: What an in-place call does where ``self`` has elements that share memory (a dim of
    #: stride 0, as ``expand`` makes): ``""`` refuses it with PyTorch's "unsupported
    #: operation" error (the result would depend on the order of the writes); ``"allow"``
    #: writes, for an operator that writes one value everywhere it writes (``fill_``,
    #: ``zero_``); ``"deprecated"`` writes with PyTorch's deprecation warning
    #: (``masked_fill_``, ``index_fill_``, ``index_put_``).
    internal_overlap: str = ""
    parsed: Signature = field(init=False, repr=False, compare=False)
    #: Facts derived from the signature once (positions are -1 where the parameter is absent).
    pos: _Positions = field(init=False, repr=False, compare=False)

    @property
    def out_sets_dtype(self) -> bool:
        """Whether an ``out=`` tensor sets the dtype the operator computes in when the call
        gives no ``dtype``: the ``"sum"`` promotion policy's operators (sum, prod, cumsum,
        cumprod, nansum), as PyTorch's, so that any ``out`` dtype is valid for them."""
        return self.promote == "sum" and self.pos.dtype >= 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "parsed", parse_signature(self.signature))
        bad = self.tags - TAGS
        if bad:
            raise ValueError(f"{self.name}: unknown tags {sorted(bad)}")
        if self.frontend not in FRONTEND_KINDS:
            raise ValueError(f"{self.name}: unknown frontend {self.frontend!r}")
        if self.autocast not in ("", "lower", "fp32", "promote"):
            raise ValueError(f"{self.name}: unknown autocast policy {self.autocast!r}")
        if self.internal_overlap not in ("", "allow", "deprecated"):
            raise ValueError(f"{self.name}: unknown internal_overlap {self.internal_overlap!r}")
        if self.promote not in PROMOTIONS:
            raise ValueError(f"{self.name}: unknown promotion {self.promote!r}")
        if not self.dtypes or set(self.dtypes) - set(DTYPE_CATEGORIES):
            raise ValueError(f"{self.name}: dtypes must be letters of 'bifc', not {self.dtypes!r}")
        for field_name in ("scalars", "values", "promote_args", "masks", "tensors_only"):
            for p in getattr(self, field_name).split():
                if self.param(p) < 0:
                    raise ValueError(f"{self.name}: {field_name} names no parameter {p!r}")
        for p in self.method_renames:
            if self.param(p) < 0:
                raise ValueError(f"{self.name}: method_names names no parameter {p!r}")
        needs_meta = self.frontend in ("structured", "factory")
        if needs_meta != (self.meta_function is not None):
            raise ValueError(
                f"{self.name}: a {self.frontend} operator "
                + ("needs a meta_function" if needs_meta else "takes no meta_function")
            )
        object.__setattr__(self, "pos", _Positions(self))
        self.node_variant  # noqa: B018 (checks node_when's entries at declaration)

    @property
    def name(self) -> str:
        return self.parsed.name

    @property
    def method_renames(self) -> dict[str, str]:
        """:attr:`method_names` as a dict: parameter -> its name in the method."""
        return dict(pair.split(":", 1) for pair in self.method_names.split())

    @property
    def differentiable(self) -> bool:
        return "nondifferentiable" not in self.tags

    @property
    def has_backward(self) -> bool:
        """Whether a backward pass through the operator computes gradients: differentiable,
        and not one whose derivative PyTorch leaves unimplemented."""
        return self.differentiable and "backward_not_implemented" not in self.tags

    @property
    def node_name(self) -> str:
        """The name of the operator's autograd node (``MulBackward0``)."""
        return self.node or camel(self.name) + "Backward0"

    @property
    def scalar_params(self) -> frozenset[str]:
        """Names of the tensor parameters that also take a Python scalar."""
        if "pointwise" in self.tags:
            refused = set(self.masks.split()) | set(self.tensors_only.split())
            names = (self.parsed.params[i].name for i in self.parsed.tensor_positions)
            return frozenset(n for n in names if n not in refused)
        return frozenset(self.scalars.split())

    @property
    def node_rules(self) -> tuple[tuple[int, str, str], ...]:
        """:attr:`node_when`'s entries as ``(position, kind, name)``, in order (empty for a
        callable ``node_when``); ``kind`` is ``""`` (given), ``tensor``, ``number`` or
        ``list``."""
        when = self.node_when
        if not when or callable(when):
            return ()
        rules = []
        for item in when.split():
            cond, _, name = item.rpartition(":")
            param, _, kind = cond.partition("=")
            pos = self.param(param)
            if pos < 0 or not name or kind not in _NODE_KINDS:
                raise ValueError(f"{self.name}: bad node_when entry {item!r}")
            rules.append((pos, kind, name))
        return tuple(rules)

    @property
    def node_variant(self) -> Callable[[tuple[Any, ...]], str | None] | None:
        """``(args) -> name``: the node's name for a call's arguments (in signature order)
        where PyTorch names an overload's node apart (:attr:`node_when`); None when the name
        is always :attr:`node_name`."""
        when = self.node_when
        if not when or callable(when):
            return when or None
        rules = [(pos, _NODE_KINDS[kind], name) for pos, kind, name in self.node_rules]

        def variant(args: tuple[Any, ...]) -> str | None:
            for pos, test, name in rules:
                if pos < len(args) and test(args[pos]):
                    return name
            return None

        return variant

    def param(self, name: str) -> int:
        """Position of parameter ``name``; -1 when absent."""
        for i, p in enumerate(self.parsed.params):
            if p.name == name:
                return i
        return -1


def _is_tensor(v: Any) -> bool:
    # (what a tensor parameter holds when it is neither None nor a Python number or
    # sequence; the operator table sits below the tensor model and does not import it)
    return v is not None and not isinstance(v, (bool, int, float, complex, list, tuple, str))


#: The tests of :attr:`OpDecl.node_when`'s ``param=kind`` entries ("" is "given").
_NODE_KINDS: dict[str, Callable[[Any], bool]] = {
    "": lambda v: v is not None,
    "tensor": _is_tensor,
    "number": lambda v: isinstance(v, (bool, int, float, complex)),
    "list": lambda v: isinstance(v, (list, tuple)),
}


class _Positions:
    """Where the parameters the frontends look for sit in an operator's signature, and the
    facts derived from its parameter types and return type (computed once per declaration)."""

    __slots__ = (
        "alpha",
        "device",
        "dim",
        "dtype",
        "flat_when_dim_none",
        "keepdim",
        "masks",
        "none_means",
        "promote",
        "promote_when",
        "result_names",
        "values",
    )

    def __init__(self, d: OpDecl) -> None:
        tensors = d.parsed.tensor_positions
        self.alpha = d.param("alpha")
        self.device = d.param("device")
        self.dim = d.param("dim")
        self.dtype = d.param("dtype")
        self.keepdim = d.param("keepdim")
        #: A reduction over one optional dim (``int? dim``, ``argmax``) reduces the flattened
        #: tensor when it is None, and its kernel receives None; ``int[]? dim`` None means
        #: every dim, and the kernel receives them all.
        self.flat_when_dim_none = self.dim >= 0 and d.parsed.params[self.dim].type == "int?"
        self.values = tuple(d.param(n) for n in d.values.split())
        self.masks = tuple(d.param(n) for n in d.masks.split())
        #: The tensor parameters whose dtypes decide the compute dtype (all, by default).
        self.promote: tuple[int, ...] = (
            tuple(d.param(n) for n in d.promote_args.split()) if d.promote_args else tensors
        )
        param, _, policy = d.promote_when.partition(":")
        self.promote_when = (d.param(param), policy) if param else (-1, "")
        if param and policy not in PROMOTIONS:
            raise ValueError(f"{d.name}: unknown promotion {policy!r} in promote_when")
        self.none_means = tuple(
            (d.param(k), _default(v))
            for k, _, v in (pair.partition("=") for pair in d.none_means.split())
        )
        if any(i < 0 for i, _ in self.none_means):
            raise ValueError(f"{d.name}: none_means names an unknown parameter")
        self.result_names = d.parsed.result_names


OPS: dict[str, OpDecl] = {}


@dataclass(frozen=True)
class Alias:
    """Another name of a declared operator (NumPy's ``absolute`` for ``abs``): its function,
    method and in-place method are the target's, compiled under the alias's name, for the
    variants the target has and ``kinds`` (letters ``f``, ``m``, ``i``) allows."""

    name: str
    target: str
    kinds: str = "fmi"

    def has(self, kind: str) -> bool:
        decl = OPS[self.target]
        return kind[0] in self.kinds and bool(
            {"function": decl.function, "method": decl.method, "inplace": decl.inplace}[kind]
        )


#: The aliases, by name (``schema/aliases.py``).
ALIASES: dict[str, Alias] = {}
#: Operators whose in-place variant PyTorch also has as a function, ``torch.exp_(x)``
#: (declared operators or aliases).
INPLACE_FUNCTIONS: set[str] = set()


def _op(signature: str, tags: str, doc: str, **kw: Any) -> None:
    decl = OpDecl(signature, frozenset(tags.split()), doc, **kw)
    if decl.name in OPS:
        raise ValueError(f"operator {decl.name} declared twice")
    OPS[decl.name] = decl


def _alias(name: str, target: str, kinds: str = "fmi") -> None:
    if name in OPS or name in ALIASES:
        raise ValueError(f"alias {name} clashes with an operator or alias")
    if target not in OPS:
        raise ValueError(f"alias {name}: no operator {target}")
    ALIASES[name] = Alias(name, target, kinds)


def _unary(
    name: str,
    doc: str,
    promote: str = "same",
    tags: str = "",
    inplace: bool = True,
    dtypes: str = DTYPE_CATEGORIES,
    dtype_hint: str = "",
    dtype_error: str = "",
    out_dtype: str = "",
) -> None:
    _op(
        f"{name}(Tensor self) -> Tensor",
        "pointwise " + tags,
        doc,
        frontend="pointwise",
        promote=promote,
        inplace=inplace,
        out=True,
        dtypes=dtypes,
        dtype_hint=dtype_hint,
        dtype_error=dtype_error,
        out_dtype=out_dtype,
    )


def _binary(
    name: str,
    doc: str,
    promote: str = "same",
    tags: str = "",
    extra: str = "",
    dtypes: str = DTYPE_CATEGORIES,
    dtype_hint: str = "",
    dtype_error: str = "",
    opmath_scalars: bool = False,
    values: str = "",
    values_round_floats: int = 0,
    promote_when: str = "",
    inplace: bool = True,
    other: str = "other",
    promote_args: str = "",
    check: Callable[..., None] | None = None,
    tensors_only: str = "",
    node_when: str = "",
    mixed_dtypes_error: str = "",
) -> None:
    _op(
        f"{name}(Tensor self, Tensor {other}{extra}) -> Tensor",
        "pointwise " + tags,
        doc,
        frontend="pointwise",
        opmath_scalars=opmath_scalars,
        values=values,
        values_round_floats=values_round_floats,
        promote_when=promote_when,
        promote=promote,
        promote_args=promote_args,
        tensors_only=tensors_only,
        node_when=node_when,
        mixed_dtypes_error=mixed_dtypes_error,
        check=check,
        dtypes=dtypes,
        dtype_hint=dtype_hint,
        dtype_error=dtype_error,
        # Comparisons have in-place forms too (``x.lt_(y)`` stores 0/1 in x's dtype).
        inplace=inplace,
        out=True,
    )
