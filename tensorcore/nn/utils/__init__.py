"""``tensorcore.nn.utils``: gradient clipping, conversion between parameters and one
vector, parametrizations (``parametrize``, ``parametrizations``), the older hook-based
``weight_norm``/``spectral_norm``, conv/linear + batch-norm fusion, ``skip_init`` and weight
memory-format conversion, as ``torch.nn.utils``.

Examples
--------
>>> import tensorcore as tc
>>> w = tc.nn.Parameter(tc.zeros(2))
>>> w.grad = tc.tensor([0.3, -4.0])
>>> tc.nn.utils.clip_grad_value_([w], 1.0)
>>> w.grad
tensor([ 0.3000, -1.0000])
"""

import sys

from . import fusion, init, memory_format, parametrizations, parametrize, prune, rnn, stateless
from . import weight_norm as _weight_norm_module
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .weight_norm import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "clip_grads_with_norm_",
    "convert_conv2d_weight_memory_format",
    "convert_conv3d_weight_memory_format",
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
    "fusion",
    "get_total_norm",
    "init",
    "memory_format",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "prune",
    "remove_spectral_norm",
    "remove_weight_norm",
    "rnn",
    "skip_init",
    "spectral_norm",
    "stateless",
    "vector_to_parameters",
    "weight_norm",
]

# ``from torch.nn.utils.spectral_norm import SpectralNorm``: PyTorch's module path of the
# hook-based spectral norm, defined beside weight_norm here (the attribute stays the function).
sys.modules[f"{__name__}.spectral_norm"] = _weight_norm_module
