"""Encoded ``Summary`` messages, one builder per kind of data the writer logs (the plugin
that shows each kind is named in its metadata, as TensorBoard's own summary ops name it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ... import dtypes
from ..._tensor import Tensor
from . import _convert, _proto


def scalar(tag: str, value: Any, new_style: bool = False, double_precision: bool = False) -> bytes:
    array = _convert.make_np(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            "Tensor should contain one element (0 dimensions). "
            f"Was given size: {array.size} and {array.ndim} dimensions."
        )
    x = float(array)
    if not new_style:
        return _proto.summary(_proto.summary_value(tag, simple_value=x))
    if double_precision:
        tensor = _proto.tensor(
            _proto.DT_DOUBLE, None, _proto.packed_doubles(_proto.DOUBLE_VAL, [x])
        )
    else:
        tensor = _proto.tensor(_proto.DT_FLOAT, None, _proto.packed_floats(_proto.FLOAT_VAL, [x]))
    metadata = _proto.plugin_metadata("scalars")
    return _proto.summary(_proto.summary_value(tag, tensor=tensor, metadata=metadata))


def histogram(tag: str, values: Any, bins: Any, max_bins: int | None = None) -> bytes:
    fields = _convert.histogram(_convert.make_np(values).astype(float), bins, max_bins)
    return _proto.summary(_proto.summary_value(tag, histo=_proto.histogram(**fields)))


def histogram_raw(
    tag: str,
    min: float,
    max: float,
    num: float,
    sum: float,
    sum_squares: float,
    bucket_limits: Any,
    bucket_counts: Any,
) -> bytes:
    limits = _convert.as_array(bucket_limits).reshape(-1).astype(float).tolist()
    counts = _convert.as_array(bucket_counts).reshape(-1).astype(float).tolist()
    histo = _proto.histogram(
        float(min), float(max), float(num), float(sum), float(sum_squares), limits, counts
    )
    return _proto.summary(_proto.summary_value(tag, histo=histo))


def image(tag: str, img: Any, dataformats: str) -> bytes:
    hwc = _convert.to_uint8(_convert.to_hwc(_convert.make_np(img), dataformats))
    h, w, c = hwc.shape
    encoded = _proto.image(h, w, c, _convert.encode_png(hwc))
    return _proto.summary(_proto.summary_value(tag, image=encoded))


def text(tag: str, text: str) -> bytes:
    # The text plugin reads a string tensor of shape [1]; its metadata content is an encoded
    # TextPluginData(version=0), which is empty.
    tensor = _proto.tensor(
        _proto.DT_STRING, [1], _proto.bytes_field(_proto.STRING_VAL, text.encode("utf-8"))
    )
    value = _proto.summary_value(
        tag + "/text_summary", tensor=tensor, metadata=_proto.plugin_metadata("text")
    )
    return _proto.summary(value)


def audio(tag: str, sound: Any, sample_rate: int) -> bytes:
    array = _convert.make_np(sound).squeeze()
    if abs(array).max() > 1:
        print("warning: audio amplitude out of range, auto clipped.")
        array = array.clip(-1, 1)
    if array.ndim != 1:
        raise AssertionError("input tensor should be 1 dimensional.")
    encoded = _proto.audio(sample_rate, 1, array.shape[-1], _convert.encode_wav(array, sample_rate))
    return _proto.summary(_proto.summary_value(tag, audio=encoded))


# NumPy dtype -> (TensorProto dtype, how its values are stored)
def _ints(field: int) -> Any:
    return lambda a: _proto.packed_varints(field, a.reshape(-1).tolist())


def _bits16(a: np.ndarray) -> bytes:
    # half_val holds each value's 16 bits in an int32
    return _proto.packed_varints(_proto.HALF_VAL, a.reshape(-1).view(np.uint16).tolist())


_TENSOR_KINDS: dict[str, tuple[int, Any]] = {
    "float16": (_proto.DT_HALF, _bits16),
    "float32": (
        _proto.DT_FLOAT,
        lambda a: _proto.packed_floats(_proto.FLOAT_VAL, a.reshape(-1).tolist()),
    ),
    "float64": (
        _proto.DT_DOUBLE,
        lambda a: _proto.packed_doubles(_proto.DOUBLE_VAL, a.reshape(-1).tolist()),
    ),
    "int8": (_proto.DT_INT8, _ints(_proto.INT_VAL)),
    "uint8": (_proto.DT_UINT8, _ints(_proto.INT_VAL)),
    "int16": (_proto.DT_INT16, _ints(_proto.INT_VAL)),
    "uint16": (_proto.DT_UINT16, _ints(_proto.INT_VAL)),
    "int32": (_proto.DT_INT32, _ints(_proto.INT_VAL)),
    "uint32": (_proto.DT_UINT32, _ints(_proto.UINT32_VAL)),
    "int64": (_proto.DT_INT64, _ints(_proto.INT64_VAL)),
    "uint64": (_proto.DT_UINT64, _ints(_proto.UINT64_VAL)),
    "bool": (_proto.DT_BOOL, _ints(_proto.BOOL_VAL)),
    "complex64": (
        _proto.DT_COMPLEX64,
        lambda a: _proto.packed_floats(
            _proto.SCOMPLEX_VAL, a.reshape(-1).view(np.float32).tolist()
        ),
    ),
    "complex128": (
        _proto.DT_COMPLEX128,
        lambda a: _proto.packed_doubles(
            _proto.DCOMPLEX_VAL, a.reshape(-1).view(np.float64).tolist()
        ),
    ),
}


def tensor(tag: str, value: Any) -> bytes:
    is_bfloat16 = isinstance(value, Tensor) and value.dtype == dtypes.bfloat16
    array = np.ascontiguousarray(_convert.make_np(value))
    if array.nbytes >= 1 << 31:
        raise ValueError("tensor is bigger than protocol buffer's hard limit of 2GB in size")
    if is_bfloat16:
        # make_np widened it to float32; bfloat16's bits are float32's upper half
        bits = (array.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        payload = _proto.packed_varints(_proto.HALF_VAL, bits.reshape(-1).tolist())
        encoded = _proto.tensor(_proto.DT_BFLOAT16, array.shape, payload)
    elif array.dtype.name in _TENSOR_KINDS:
        dtype, encode = _TENSOR_KINDS[array.dtype.name]
        encoded = _proto.tensor(dtype, array.shape, encode(array))
    else:
        raise ValueError(
            f"{tag} has unsupported tensor dtype {getattr(value, 'dtype', array.dtype)}"
        )
    metadata = _proto.plugin_metadata("tensor")
    return _proto.summary(_proto.summary_value(tag, tensor=encoded, metadata=metadata))


def pr_curve_raw(tag: str, curves: np.ndarray, num_thresholds: int) -> bytes:
    """``curves``: the 6 x num_thresholds rows tp, fp, tn, fn, precision, recall."""
    content = _proto.int_field(2, num_thresholds)  # PrCurvePluginData(version=0, num_thresholds)
    payload = _proto.packed_floats(_proto.FLOAT_VAL, curves.reshape(-1).tolist())
    encoded = _proto.tensor(_proto.DT_FLOAT, curves.shape, payload)
    metadata = _proto.plugin_metadata("pr_curves", content)
    return _proto.summary(_proto.summary_value(tag, tensor=encoded, metadata=metadata))


def pr_curve_data(
    labels: np.ndarray, predictions: np.ndarray, num_thresholds: int, weights: Any
) -> np.ndarray:
    """TensorBoard's PR-curve table: predictions are put in ``num_thresholds`` equal buckets
    of [0, 1]; at each threshold, the (weighted) positives and negatives predicted at or above
    it are the true and false positives."""
    w = 1.0 if weights is None else weights
    buckets = np.floor(predictions * (num_thresholds - 1)).astype(np.int32)
    positive = labels.astype(np.float64)
    rng = (0, num_thresholds - 1)
    tp_b, _ = np.histogram(buckets, bins=num_thresholds, range=rng, weights=positive * w)
    fp_b, _ = np.histogram(buckets, bins=num_thresholds, range=rng, weights=(1.0 - positive) * w)
    tp = np.cumsum(tp_b[::-1])[::-1]
    fp = np.cumsum(fp_b[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall))


def custom_scalars(layout: Mapping[str, Mapping[str, Sequence[Any]]]) -> bytes:
    """The custom-scalars plugin's ``Layout``: categories (2) of charts (2), each a title (1)
    and a multiline (2: tags) or margin (3: series of value, lower, upper tags) content."""
    categories = []
    for category, charts in layout.items():
        encoded_charts = []
        for title, (kind, tags) in charts.items():
            if kind == "Margin":
                if len(tags) != 3:
                    raise AssertionError("len(tags) != 3")
                series = b"".join(_proto.string_field(i + 1, t) for i, t in enumerate(tags))
                content = _proto.bytes_field(3, _proto.bytes_field(1, series))
            else:
                content = _proto.bytes_field(2, b"".join(_proto.string_field(1, t) for t in tags))
            encoded_charts.append(_proto.bytes_field(2, _proto.string_field(1, title) + content))
        categories.append(
            _proto.bytes_field(2, _proto.string_field(1, category) + b"".join(encoded_charts))
        )
    tensor = _proto.tensor(
        _proto.DT_STRING, [], _proto.bytes_field(_proto.STRING_VAL, b"".join(categories))
    )
    value = _proto.summary_value(
        "custom_scalars__config__", tensor=tensor, metadata=_proto.plugin_metadata("custom_scalars")
    )
    return _proto.summary(value)


# --------------------------------------------------------------------------- hparams
_HPARAMS_TYPES = {"string": 1, "bool": 2, "float64": 3}  # hparams.DataType


def _hparams_summary(tag: str, field: int, message: bytes) -> bytes:
    # HParamsPluginData(version=0, <experiment 2 | session_start_info 3 | session_end_info 4>)
    metadata = _proto.plugin_metadata("hparams", _proto.bytes_field(field, message))
    return _proto.summary(_proto.summary_value(tag, metadata=metadata))


def hparams(
    hparam_dict: dict[str, Any],
    metric_dict: dict[str, Any],
    hparam_domain_discrete: dict[str, list[Any]] | None = None,
) -> tuple[bytes, bytes, bytes]:
    """The hparams plugin's three summaries: the experiment (the hyperparameters' names,
    types and discrete domains, and the metrics' tags), the session start (the values) and
    the session end (status success)."""
    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(v, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in v)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )
    infos: list[bytes] = []
    values: list[bytes] = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        x: Any = v
        encode: Callable[[Any], bytes]
        # As PyTorch's writer: a bool is an int, so it is logged as the number 0 or 1.
        if isinstance(v, (int, float)):
            kind, encode = "float64", _proto.value_number
        elif isinstance(v, str):
            kind, encode = "string", _proto.value_string
        elif isinstance(v, Tensor):
            kind, encode = "float64", _proto.value_number
            x = float(_convert.make_np(v).reshape(-1)[0])
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        info = _proto.string_field(1, k) + _proto.int_field(4, _HPARAMS_TYPES[kind])
        if k in domains and not isinstance(hparam_dict[k], Tensor):
            info += _proto.bytes_field(5, _proto.list_value(encode(d) for d in domains[k]))
        infos.append(_proto.bytes_field(4, info))
        entry = _proto.string_field(1, k) + _proto.bytes_field(2, encode(x))
        values.append(_proto.bytes_field(1, entry))  # SessionStartInfo.hparams (a map)
    metrics = [
        # MetricInfo.name (1) = MetricName(tag=k)
        _proto.bytes_field(5, _proto.bytes_field(1, _proto.string_field(2, k)))
        for k in metric_dict
    ]
    return (
        _hparams_summary("_hparams_/experiment", 2, b"".join(infos + metrics)),
        _hparams_summary("_hparams_/session_start_info", 3, b"".join(values)),
        _hparams_summary("_hparams_/session_end_info", 4, _proto.int_field(1, 1)),
    )
