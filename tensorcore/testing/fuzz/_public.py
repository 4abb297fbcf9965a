"""The cases of the hand-written public API (``tc.nn.functional``, ``tc.fft``, factories,
saving and loading, ``autograd``...): each target with one argument made bad."""

from __future__ import annotations

import io as _io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import tensorcore as tc

from ._bads import Bad, _Ctx, _device_bads, bads_for
from ._run import Case


# ------------------------------------------------------------------ the rest of the public API
@dataclass
class Target:
    """A hand-written public function or method: its valid call (built fresh by ``make`` on
    a device) and the declared types of the parameters to fuzz, as in the operator table."""

    label: str
    callee: str
    fn: Callable[..., Any]
    make: Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]
    types: dict[str, str]


def _x(dev: Any) -> tc.Tensor:
    return tc.arange(6.0, device=dev).reshape(2, 3)


def _leaf(dev: Any) -> tc.Tensor:
    return tc.ones(2, 3, device=dev, requires_grad=True)


def _loss(dev: Any) -> tc.Tensor:
    return (_leaf(dev) * 2).sum()


def public_targets() -> list[Target]:
    """The hand-written public functions and methods the harness calls with bad arguments,
    each with a valid call to start from (the operator table's calls are :func:`cases`)."""
    F = tc.nn.functional
    T: Any = tc.Tensor
    x = _x

    def logp(d: Any) -> tc.Tensor:
        return tc.log_softmax(tc.ones(2, 3, device=d), 1)

    def labels(d: Any) -> tc.Tensor:
        return tc.tensor([0, 2], device=d)

    return [
        Target("tc.tensor", "tensor", tc.tensor, lambda d: (([1.0, 2.0],), {"device": d}),
               {"data": "Any", "dtype": "ScalarType?", "device": "Device?",
                "requires_grad": "bool?"}),
        Target("tc.as_tensor", "as_tensor", tc.as_tensor, lambda d: (([1.0, 2.0],), {"device": d}),
               {"dtype": "ScalarType?", "device": "Device?"}),
        Target("tc.broadcast_shapes", "broadcast_shapes", tc.broadcast_shapes,
               lambda d: (((2, 1), (1, 3)), {}), {"shapes": "int[]"}),
        Target("tc.promote_types", "promote_types", tc.promote_types,
               lambda d: ((tc.int8, tc.uint8), {}), {"type1": "ScalarType", "type2": "ScalarType"}),
        Target("tc.can_cast", "can_cast", tc.can_cast, lambda d: ((tc.int8, tc.float32), {}),
               {"from_": "ScalarType", "to": "ScalarType"}),
        Target("tc.result_type", "result_type", tc.result_type, lambda d: ((x(d), 1.5), {}),
               {"tensor1": "Tensor", "tensor2": "Tensor"}),
        Target("tc.set_default_dtype", "set_default_dtype", tc.set_default_dtype,
               lambda d: ((tc.float32,), {}), {"d": "ScalarType"}),
        Target("tc.set_default_device", "set_default_device", tc.set_default_device,
               lambda d: ((None,), {}), {"device": "Device?"}),
        Target("tc.device", "device", tc.device, lambda d: (("cpu",), {}),
               {"type": "DeviceName", "index": "int?"}),
        Target("tc.manual_seed", "manual_seed", tc.manual_seed, lambda d: ((0,), {}),
               {"seed": "int"}),
        Target("tc.Generator", "Generator", tc.Generator, lambda d: ((d,), {}),
               {"device": "DeviceName"}),
        Target("tc.explain", "explain", tc.explain, lambda d: (("add", x(d), x(d)), {}),
               {"op_name": "str"}),
        Target("tc.set_grad_enabled", "set_grad_enabled", tc.set_grad_enabled,
               lambda d: ((True,), {}), {"mode": "bool"}),
        Target("tc.inference_mode", "inference_mode", tc.inference_mode,
               lambda d: ((True,), {}), {"mode": "bool"}),
        Target("tc.autograd.gradcheck", "gradcheck", tc.autograd.gradcheck,
               lambda d: ((lambda t: t * 2, (_leaf(d).double(),)), {}), {"func": "Callable"}),
        Target("tc.autograd.grad", "grad", tc.autograd.grad,
               lambda d: _grad_call(d), {"outputs": "Tensor", "inputs": "Tensor"}),
        Target("tc.autograd.backward", "backward", tc.autograd.backward,
               lambda d: ((_loss(d),), {}), {"tensors": "Tensor", "grad_tensors": "Tensor?"}),
        Target("F.linear", "linear", F.linear,
               lambda d: ((x(d), tc.ones(4, 3, device=d), tc.zeros(4, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "bias": "Tensor?"}),
        Target("F.mse_loss", "mse_loss", F.mse_loss, lambda d: ((x(d), x(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.nll_loss", "nll_loss", F.nll_loss, lambda d: ((logp(d), labels(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.cross_entropy", "cross_entropy", F.cross_entropy,
               lambda d: ((tc.ones(2, 3, device=d), labels(d)), {}),
               {"input": "Tensor", "target": "Tensor", "reduction": "str"}),
        Target("F.embedding", "embedding", F.embedding,
               lambda d: ((labels(d), tc.ones(4, 3, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "sparse": "bool"}),
        Target("F.conv2d", "conv2d", F.conv2d,
               lambda d: ((tc.ones(1, 2, 5, 5, device=d), tc.ones(3, 2, 3, 3, device=d)), {}),
               {"input": "Tensor", "weight": "Tensor", "bias": "Tensor?", "stride": "int[]",
                "dilation": "int[]", "groups": "int"}),
        Target("F.max_pool2d", "max_pool2d", F.max_pool2d,
               lambda d: ((tc.ones(1, 2, 4, 4, device=d), 2), {}),
               {"input": "Tensor", "kernel_size": "int[]", "stride": "int[]?",
                "padding": "int[]", "ceil_mode": "bool"}),
        Target("F.avg_pool2d", "avg_pool2d", F.avg_pool2d,
               lambda d: ((tc.ones(1, 2, 4, 4, device=d), 2), {}),
               {"input": "Tensor", "kernel_size": "int[]", "padding": "int[]",
                "divisor_override": "int?"}),
        Target("F.layer_norm", "layer_norm", F.layer_norm, lambda d: ((x(d), (3,)), {}),
               {"input": "Tensor", "normalized_shape": "int[]", "weight": "Tensor?",
                "bias": "Tensor?", "eps": "float"}),
        Target("F.batch_norm", "batch_norm", F.batch_norm,
               lambda d: ((x(d).t(), tc.zeros(2, device=d), tc.ones(2, device=d)),
                          {"training": True}),
               {"input": "Tensor", "running_mean": "Tensor?", "running_var": "Tensor?",
                "weight": "Tensor?", "momentum": "float?"}),
        Target("F.pad", "pad", F.pad, lambda d: ((x(d), (1, 1)), {}),
               {"input": "Tensor", "pad": "int[]", "mode": "str", "value": "float?"}),
        Target("F.one_hot", "one_hot", F.one_hot, lambda d: ((labels(d), 3), {}),
               {"tensor": "Tensor", "num_classes": "int"}),
        Target("F.dropout", "dropout", F.dropout, lambda d: ((x(d), 0.5), {}),
               {"input": "Tensor", "p": "float", "training": "bool"}),
        Target("F.interpolate", "interpolate", F.interpolate,
               lambda d: ((tc.ones(1, 1, 2, 2, device=d),), {"scale_factor": 2}),
               {"input": "Tensor", "mode": "str", "align_corners": "bool?"}),
        Target("F.grid_sample", "grid_sample", F.grid_sample,
               lambda d: ((tc.ones(1, 1, 2, 2, device=d), tc.zeros(1, 2, 2, 2, device=d)),
                          {"align_corners": False}),
               {"input": "Tensor", "grid": "Tensor", "mode": "str", "padding_mode": "str",
                "align_corners": "bool?"}),
        Target("F.affine_grid", "affine_grid", F.affine_grid,
               lambda d: ((tc.zeros(1, 2, 3, device=d), (1, 1, 2, 2)), {"align_corners": False}),
               {"theta": "Tensor", "size": "int[]", "align_corners": "bool?"}),
        Target("F.binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits",
               F.binary_cross_entropy_with_logits, lambda d: ((x(d), x(d) * 0), {}),
               {"input": "Tensor", "target": "Tensor", "weight": "Tensor?",
                "reduction": "str", "pos_weight": "Tensor?"}),
        Target("F.softmax", "softmax", F.softmax, lambda d: ((x(d), 1), {}),
               {"input": "Tensor", "dim": "int?", "dtype": "ScalarType?"}),
        Target("tc.linalg.vector_norm", "vector_norm", tc.linalg.vector_norm,
               lambda d: ((x(d),), {}), {"x": "Tensor", "ord": "float", "dim": "int[]?"}),
        Target("Tensor.to", "to", T.to, lambda d: ((x(d), tc.float64), {}),
               {"dtype": "ScalarType?", "device": "Device?", "non_blocking": "bool",
                "copy": "bool"}),
        Target("Tensor.copy_", "copy_", T.copy_, lambda d: ((x(d), x(d)), {}),
               {"src": "Tensor", "non_blocking": "bool"}),
        Target("Tensor.size", "size", T.size, lambda d: ((x(d), 0), {}), {"dim": "int?"}),
        Target("Tensor.stride", "stride", T.stride, lambda d: ((x(d), 0), {}), {"dim": "int?"}),
        Target("Tensor.requires_grad_", "requires_grad_", T.requires_grad_,
               lambda d: ((x(d),), {}), {"requires_grad": "bool"}),
        Target("Tensor.backward", "backward", T.backward, lambda d: ((_loss(d),), {}),
               {"gradient": "Tensor?", "retain_graph": "bool?", "create_graph": "bool"}),
        Target("Tensor.register_hook", "register_hook", T.register_hook,
               lambda d: ((_leaf(d), lambda g: g), {}), {"hook": "Callable"}),
        Target("Tensor.__getitem__", "__getitem__", T.__getitem__, lambda d: ((x(d), 0), {}),
               {"idx": "Index"}),
        Target("Tensor.__setitem__", "__setitem__", T.__setitem__,
               lambda d: ((x(d), 0, 1.0), {}), {"idx": "Index", "value": "Value"}),
        Target("Tensor.item", "item", T.item, lambda d: ((tc.ones(1, device=d),), {}), {}),
        Target("tc.save", "save", tc.save, lambda d: (({"w": x(d)}, _io.BytesIO()), {}),
               {"obj": "Object", "f": "OutFile"}),
        Target("tc.load", "load", tc.load, lambda d: ((_saved(d),), {}),
               {"f": "File", "map_location": "Any", "weights_only": "bool?"}),
        Target("Tensor.numpy", "numpy", T.numpy, lambda d: ((x(d),), {}), {"force": "bool"}),
    ] + _fft_targets()  # fmt: skip


def _fft_targets() -> list[Target]:
    """Every function of ``tensorcore.fft``: the transforms with their ``n``/``s``, ``dim``
    and ``norm``, the frequency factories and the shifts."""
    one = {"input": "Tensor", "n": "int?", "dim": "int", "norm": "str?", "out": "Tensor?"}
    many = {"input": "Tensor", "s": "int[]?", "dim": "int[]?", "norm": "str?", "out": "Tensor?"}
    freq = {
        "n": "int",
        "d": "float",
        "out": "Tensor?",
        "dtype": "ScalarType?",
        "device": "Device?",
        "requires_grad": "bool?",
    }
    shift = {"input": "Tensor", "dim": "int[]?"}
    two = {**many, "dim": "int[]"}
    groups = [
        (("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"), one),
        (("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"), many),
        (("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"), two),
        (("fftfreq", "rfftfreq"), freq),
        (("fftshift", "ifftshift"), shift),
    ]
    types = {name: t for names, t in groups for name in names}

    def make(name: str) -> Callable[[Any], tuple[tuple[Any, ...], dict[str, Any]]]:
        if name.endswith("freq"):
            return lambda d: ((4,), {"device": d})
        return lambda d: ((_x(d),), {})

    return [
        Target(f"tc.fft.{name}", name, getattr(tc.fft, name), make(name), t)
        for name, t in types.items()
    ]


def _saved(d: Any) -> Any:
    buf = _io.BytesIO()
    tc.save({"w": _x(d), "step": 1}, buf)
    buf.seek(0)
    return buf


def _file_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, True),
        ("an int", lambda c, r: 1, True),
        ("a missing path", lambda c, r: "/nonexistent/dir/x.safetensors", True),
        ("a text stream", lambda c, r: _io.StringIO(), True),
        ("garbage bytes", lambda c, r: _io.BytesIO(b"\xff" * 40), True),
        ("an empty file", lambda c, r: _io.BytesIO(), True),
    ]


def _grad_call(d: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    a = _leaf(d)
    return ((a * 2).sum(), a), {}


def _index_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, False),  # a new axis
        ("a string", lambda c, r: "a", True),
        ("a float", lambda c, r: 1.5, True),
        ("an object()", lambda c, r: object(), True),
        ("an out-of-range int", lambda c, r: 5, True),
        ("too many indices", lambda c, r: (0, 0, 0), True),
        ("two ellipses", lambda c, r: (..., ...), True),
        ("a float tensor", lambda c, r: c.t([0.0]), True),
        ("an out-of-range tensor", lambda c, r: c.t([5]), True),
        ("a bool mask of the wrong shape", lambda c, r: c.t([True, False, True]), True),
        ("a list with a string", lambda c, r: [0, "a"], True),
        ("slice with a float step", lambda c, r: slice(0, 2, 0.5), True),
        ("slice with step 0", lambda c, r: slice(0, 2, 0), True),
        ("tensor(False)", lambda c, r: c.t(False), False),
        ("an empty list", lambda c, r: [], False),
    ]


def _value_bads() -> list[Bad]:
    return [
        ("None", lambda c, r: None, True),
        ("a string", lambda c, r: "a", True),
        ("an object()", lambda c, r: object(), True),
        ("a list with a string", lambda c, r: [1.0, "a"], True),
        ("a tensor of the wrong shape", lambda c, r: tc.ones(7, device=c.device), True),
        ("1j", lambda c, r: 1j, True),
        ("nan", lambda c, r: math.nan, False),
        ("a complex tensor", lambda c, r: tc.ones(3, dtype=tc.complex64, device=c.device), False),
    ]


def _callable_bads() -> list[Bad]:
    return [("None", lambda c, r: None, True), ("a string", lambda c, r: "f", True)]


def _bads(type_: str, name: str, callee: str) -> list[Bad]:
    if type_ == "Index":
        return _index_bads()
    if type_ == "Value":
        return _value_bads()
    if type_ == "Callable":
        return _callable_bads()
    if type_ == "File":
        return _file_bads()
    if type_ == "OutFile":  # (any binary stream takes what is written)
        return [b for b in _file_bads() if b[0] not in ("garbage bytes", "an empty file")]
    if type_ == "DeviceName":  # a device is a value: its type is checked where it is used
        return [(w, f, c and w != "'nosuchdevice'") for w, f, c in _device_bads(False)]
    if type_ == "Any":
        return [("an object()", lambda c, r: object(), True)]
    if type_ == "Object":  # (anything picklable is saved, as by PyTorch's torch.save)
        return [("an object()", lambda c, r: object(), False)]
    if type_ == "Tensor|Scalar":
        return bads_for("Tensor", name, callee, True)
    return bads_for(type_, name, callee, False)


def public_cases(device: Any = "cpu", only: set[str] | None = None) -> Iterator[Case]:
    """Fuzzing cases for the hand-written public functions and methods (``only`` restricts
    them by label)."""
    return target_cases(public_targets(), device, only)


def target_cases(
    targets: list[Target], device: Any = "cpu", only: set[str] | None = None
) -> Iterator[Case]:
    """Fuzzing cases for any :class:`Target` list: a plugin's own functions and operators,
    which the core's samples do not cover (``only`` restricts them by label)."""
    import inspect

    ctx = _Ctx(device)
    for t in targets:
        if only is not None and t.label not in only:
            continue
        args, kwargs = t.make(ctx.device)
        try:
            params = list(inspect.signature(t.fn).parameters)
        except (TypeError, ValueError):
            params = []
        yield Case(t.label, t.callee, t.fn, args, {**kwargs, "nonsense_kw": 1},
                   "an unknown keyword", not any(p in ("kwargs",) for p in params))  # fmt: skip
        for pname, ptype in t.types.items():
            pos = params.index(pname) if pname in params else -1
            for what, make, certain in _bads(ptype, pname, t.callee):
                args, kwargs = t.make(ctx.device)
                ref = args[pos] if 0 <= pos < len(args) else kwargs.get(pname)
                bad = make(ctx, ref)
                if 0 <= pos < len(args):
                    args = args[:pos] + (bad,) + args[pos + 1 :]
                elif pname in params:
                    kwargs = {**kwargs, pname: bad}
                else:
                    continue
                yield Case(t.label, t.callee, t.fn, args, kwargs, f"{pname}={what}", certain)
