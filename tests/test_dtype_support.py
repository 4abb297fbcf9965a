"""The dtypes each operator computes in (``OpDecl.dtypes``): PyTorch's, and refused on every
path (function, method, in-place, ``out=``) with PyTorch's ``NotImplementedError`` before a
kernel runs."""

from __future__ import annotations

import re
from typing import Any

import pytest

import tensorcore as tc
from tensorcore import dtypes as dt
from tensorcore.ops.schema import OPS
from tensorcore.testing.samples import SAMPLES, call_op, core_ops, tensor_inputs

# What PyTorch 2.13 (CPU) computes in, by dtype category (bool, int, float, complex), for the
# operators that do not take every dtype: measured by running each operator's samples in
# every dtype there. Every operator not listed takes all four.
PYTORCH = {
    "sub": "ifc", "floor_divide": "if", "remainder": "if", "fmod": "if", "pow": "ifc",
    "atan2": "bif", "maximum": "bif", "minimum": "bif", "lt": "bif", "le": "bif", "gt": "bif",
    "ge": "bif", "neg": "ifc", "abs": "ifc", "sign": "bif", "relu": "if", "tanh_backward": "fc",
    "sigmoid_backward": "fc", "threshold_backward": "if", "floor": "if", "ceil": "if",
    "trunc": "if", "round": "if", "clamp": "bif", "lerp": "fc", "amax": "bif", "amin": "bif",
    "max_dim": "bif", "min_dim": "bif", "argmax": "if", "argmin": "if", "softmax": "f",
    "log_softmax": "f", "_safe_softmax": "f", "_softmax_backward_data": "f",
    "_log_softmax_backward_data": "f",
    "nll_loss": "f", "sort": "bif", "argsort": "bif", "topk": "if", "matmul": "ifc", "mm": "ifc",
    "evenly_distribute_backward": "f",  # (tensorcore's: the backward of amax/amin)
    # (the kernels behind median/nanmedian/kthvalue/mode along a dim, and max(dim)'s
    # backward: PyTorch's median.dim, nanmedian.dim, kthvalue, mode and
    # value_selecting_reduction_backward)
    "median_dim": "if", "nanmedian_dim": "if", "kthvalue_dim": "if", "mode_dim": "bif",
    "value_selecting_reduction_backward": "f",
    "max_all": "bif", "min_all": "bif",
    "addmm": "ifc", "addmv": "ifc", "bmm": "ifc", "mv": "ifc", "dot": "ifc", "arange": "if",
    "linspace": "ifc",
    "uniform_": "fc", "normal_": "fc", "_standard_gamma": "f", "random_": "bif", "randperm": "if",
    "erf": "bif",
    "convolution": "if", "convolution_backward_input": "f", "convolution_backward_weight": "f",
    "max_pool2d_with_indices": "if", "max_pool2d_with_indices_backward": "f",
    "avg_pool2d": "if", "avg_pool2d_backward": "if", "_fused_sgd_": "f", "_fused_adam_": "f",
    "multinomial": "f", "bernoulli": "bif", "bernoulli_": "bif", "layer_norm": "f",
    "layer_norm_backward": "f", "native_layer_norm": "f",
    "batch_norm": "f", "native_batch_norm": "f",
    "batch_norm_backward": "f", "native_group_norm": "f", "native_group_norm_backward": "f",
    "linear": "ifc", "linear_backward": "ifc",
    "_lstm_layer": "f", "_lstm_layer_backward": "f", "_gru_layer": "f", "_gru_layer_backward": "f",
    "_rnn_layer": "f", "_rnn_layer_backward": "f",
    "searchsorted": "if", "bucketize": "if", "cummax": "bif", "cummin": "bif",
    "logcumsumexp": "fc", "isin": "if", "unique": "bif", "unique_consecutive": "bif",
    "histc": "f", "histogram": "f", "kthvalue": "if", "mode": "bif", "median": "if",
    "nanmedian": "if", "quantile": "f",
    "nanquantile": "f", "nanmean": "f", "var_mean": "fc", "std_mean": "fc",
    "aminmax": "bif", "logspace": "ifc", "tril_indices": "i", "triu_indices": "i",
    "_fft_c2c": "c", "_fft_r2c": "f", "_fft_c2r": "c",
    "erfc": "bif", "erfinv": "bif", "lgamma": "bif", "digamma": "bif", "polygamma": "bif",
    "i0": "bif", "special_i1": "bif", "deg2rad": "bif", "rad2deg": "bif", "logit": "bif",
    "signbit": "bif", "frexp": "f", "positive": "ifc", "hypot": "f", "logaddexp": "fc",
    "logaddexp2": "f", "nextafter": "f", "copysign": "bif", "xlogy": "bif", "fmax": "bif",
    "fmin": "bif", "heaviside": "bif", "clamp_min": "bif", "clamp_max": "bif", "addcmul": "ifc",
    "addcdiv": "fc", "baddbmm": "ifc", "addbmm": "ifc", "cdist": "f", "bincount": "i",
    "pdist": "f", "cov": "ifc", "corrcoef": "ifc", "exponential_": "f", "cauchy_": "f",
    "geometric_": "if", "log_normal_": "f", "hann_window": "f", "hamming_window": "f",
    "blackman_window": "f", "bartlett_window": "f", "kaiser_window": "f", "stft": "fc",
    "istft": "c", "trapezoid": "ifc", "trapz": "ifc", "cumulative_trapezoid": "ifc",
    "chain_matmul": "ifc", "segment_reduce": "f", "bitwise_left_shift": "i",
    "bitwise_right_shift": "i", "gelu": "f", "gelu_backward": "f",
    "frac": "f", "gcd": "i", "lcm": "i", "isneginf": "bif", "isposinf": "bif", "msort": "bif",
    "vdot": "ifc", "inner": "ifc", "special_i0e": "bif", "special_i1e": "bif",
    "special_erfcx": "bif", "special_bessel_j0": "bif", "special_bessel_j1": "bif",
    "special_bessel_y0": "bif", "special_bessel_y1": "bif", "special_modified_bessel_k0": "bif",
    "special_modified_bessel_k1": "bif", "special_scaled_modified_bessel_k0": "bif",
    "special_scaled_modified_bessel_k1": "bif", "special_airy_ai": "bif", "special_zeta": "bif",
    "leaky_relu": "f", "leaky_relu_backward": "f", "hardtanh": "if", "hardtanh_backward": "f",
    "hardsigmoid": "f", "hardsigmoid_backward": "f", "softshrink": "f", "silu": "fc",
    "silu_backward": "fc", "mish": "f", "mish_backward": "f", "hardswish": "f",
    "hardswish_backward": "f", "softplus": "f", "softplus_backward": "f",
    "softshrink_backward": "f", "hardshrink": "f", "hardshrink_backward": "f", "threshold": "if",
    "_prelu_kernel": "f", "_prelu_kernel_backward": "f", "elu": "f", "elu_backward": "f",
    "_embedding_bag": "f", "_embedding_bag_dense_backward": "f",
    "_ctc_loss": "f", "_ctc_loss_backward": "f",
    "smooth_l1_loss": "f", "smooth_l1_loss_backward": "f", "huber_loss": "f",
    "huber_loss_backward": "f", "log_sigmoid": "f", "log_sigmoid_backward": "f",
    "binary_cross_entropy": "f",
    "binary_cross_entropy_backward": "f", "binary_cross_entropy_with_logits": "f",
    "binary_cross_entropy_with_logits_backward": "f",
}  # fmt: skip
# clamp computes in bool only with one bound, a bool tensor (PyTorch's maximum/minimum
# kernels); its declared check refuses the other bool calls with PyTorch's
# NotImplementedError, so a bool call may be refused although bool is declared.
PARTIAL = {"clamp": "b", "clamp_min": "b", "clamp_max": "b"}
# bernoulli draws into bool and integer tensors with a ``p``; without one the tensor holds
# the probabilities, which must be floating (PyTorch's NotImplementedError).
PARTIAL["bernoulli"] = "bi"
# The special functions PyTorch computes in float32 and float64 only (no Half or BFloat16
# loops): their declared check refuses the 16-bit floats with PyTorch's NotImplementedError.
PARTIAL |= {n: "f" for n, decl in OPS.items() if getattr(decl.check, "refuses_16bit_floats", False)}
# view_as_real, view_as_complex, complex, polar and nansum (complex) take some dtypes only
# too, but PyTorch refuses the others with a RuntimeError of its own wording (as these
# operators' bodies do), not the NotImplementedError of a declared restriction.

RESTRICTED = sorted(n for n in core_ops() if OPS[n].dtypes != "bifc")


def test_declared_dtypes_are_pytorchs() -> None:
    declared = {n: OPS[n].dtypes for n in core_ops() if OPS[n].dtypes != "bifc"}
    assert declared == PYTORCH


def _subject(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dt.dtype | None:
    """The dtype the frontends check, as ``OpDecl.dtypes`` documents it."""
    decl = OPS[name]
    if decl.frontend == "pointwise":
        params = decl.parsed.params
        keep = set(decl.promote_args.split()) or {
            params[i].name for i in decl.parsed.tensor_positions
        }
        ops = [a for p, a in zip(params, args, strict=False) if p.name in keep and a is not None]
        compute = tc.result_type(*ops)
        if decl.promote == "float" and compute._category < 2:
            compute = tc.get_default_dtype()
        return compute
    if kwargs.get("dtype") is not None:
        return kwargs["dtype"]  # type: ignore[no-any-return]
    if "pointwise" in decl.tags and len(decl.parsed.tensor_positions) > 1:  # (gcd)
        return tc.result_type(*(a for a in args if isinstance(a, tc.Tensor)))
    found = tensor_inputs(type("S", (), {"args": args, "kwargs": kwargs})())  # type: ignore[arg-type]
    return found[0].dtype if found else kwargs.get("dtype")


@pytest.mark.parametrize("name", RESTRICTED)
def test_undeclared_dtypes_are_refused(device: str, name: str) -> None:
    decl = OPS[name]
    refused = 0
    for d in dt.all_dtypes:
        try:
            samples = SAMPLES[name](device, d)
        except Exception:  # noqa: BLE001 - a sample generator without this dtype
            continue
        for s in samples:
            subject = _subject(name, s.args, s.kwargs)
            if subject is None:
                continue
            try:
                call_op(name, s)
            except NotImplementedError as exc:
                if "bifc"[subject._category] in PARTIAL.get(name, ""):
                    continue
                assert "bifc"[subject._category] not in decl.dtypes, (s, exc)
                assert not decl.dtype_error, f"{name} declares its own error, a RuntimeError"
                assert f'"{name}" not implemented for' in str(exc)
                refused += 1
                continue
            except RuntimeError as exc:
                prefix = re.split(r"\{(?:dtype|kind)\}", decl.dtype_error)[0]
                if decl.dtype_error and prefix in str(exc):
                    if "bifc"[subject._category] in PARTIAL.get(name, ""):
                        continue
                    assert "bifc"[subject._category] not in decl.dtypes, (s, exc)
                    refused += 1
                continue
            except (TypeError, ValueError, IndexError):
                continue  # a sample that is no valid call in this dtype for other reasons
            assert "bifc"[subject._category] in decl.dtypes, (
                f"{name} computed in {subject.name}, which it does not declare: {s}"
            )
    if not refused and decl.param("dtype") >= 0:
        # Samples that keep their dtype (factories): ask for each undeclared one instead.
        s = SAMPLES[name](device, tc.float32)[0]
        for d in dt.all_dtypes:
            if "bifc"[d._category] not in decl.dtypes:
                with pytest.raises(NotImplementedError, match=f'"{name}" not implemented for'):
                    call_op(name, type(s)(s.args, {**s.kwargs, "dtype": d}))
                refused += 1
    assert refused, f"no sample of {name} reached an undeclared dtype"


def test_refused_before_the_inplace_write(device: str) -> None:
    x = tc.tensor([1.5, -2.5], dtype=tc.complex64, device=device)
    before = x.tolist(), x._version
    with pytest.raises(NotImplementedError, match="\"floor\" not implemented for 'ComplexFloat'"):
        x.floor_()
    assert (x.tolist(), x._version) == before
    out = tc.zeros(0, dtype=tc.complex64, device=device)
    with pytest.raises(NotImplementedError):
        tc.floor(x, out=out)
    assert out.shape == (0,)


def test_refusal_carries_pytorchs_hint(device: str) -> None:
    with pytest.raises(NotImplementedError, match="signbit is not implemented for complex"):
        tc.signbit(tc.zeros(2, dtype=tc.complex64, device=device))
    # Where PyTorch's operator raises its own RuntimeError, the declaration gives its wording.
    with pytest.raises(RuntimeError, match="use the `~` or `logical_not\\(\\)` operator") as info:
        -tc.tensor([True, False], device=device)
    assert info.type is RuntimeError
