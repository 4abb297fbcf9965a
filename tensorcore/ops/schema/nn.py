"""Neural-network layers (convolution, pooling, normalisation, ...) and the fused optimizer steps."""

from __future__ import annotations

from .. import arg_checks as AC
from .. import meta_conv as MC
from .. import meta_ctc as MCtc
from .. import meta_functions as M
from .. import meta_nn as MN
from .. import meta_norm as MNorm
from ._declare import _op

_R = "reduction"

# ------------------------------------------------------------------ neural-network layers
_NN = "nn"
_GEOMETRY = "int[] stride, int[] padding, int[] dilation, int groups"
_op(
    "convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
    _NN,
    "N-d convolution (or, ``transposed=True``, transposed convolution) of ``input`` "
    "(N, C, *spatial) with ``weight`` (C_out, C / groups, *kernel) -- transposed: "
    "(C, C_out / groups, *kernel) -- plus ``bias`` (C_out,). ``nn.functional.conv1d``/"
    "``conv2d``/``conv3d``/``conv_transpose*`` call it.",
    frontend="structured",
    meta_function=MC.meta_convolution,
    method=False,
    dtypes="if",
    autocast="lower",
)
_op(
    f"convolution_backward_input(Tensor grad_output, Tensor weight, int[] input_size, "
    f"{_GEOMETRY}) -> Tensor",
    _NN,
    "The gradient of a (non-transposed) ``convolution`` with respect to its input of size "
    "``input_size``: the transposed convolution of ``grad_output`` with ``weight``.",
    frontend="structured",
    meta_function=MC.meta_convolution_backward_input,
    method=False,
    dtypes="f",
)
_op(
    f"convolution_backward_weight(Tensor grad_output, Tensor input, int[] weight_size, "
    f"{_GEOMETRY}) -> Tensor",
    _NN,
    "The gradient of a (non-transposed) ``convolution`` with respect to its weight of size "
    "``weight_size``: ``grad_output`` correlated with the input's windows.",
    frontend="structured",
    meta_function=MC.meta_convolution_backward_weight,
    method=False,
    dtypes="f",
)
_op(
    "max_pool2d_with_indices(Tensor self, int[] kernel_size, int[] stride=[], "
    "int[] padding=0, int[] dilation=1, bool ceil_mode=False) -> (Tensor values, "
    "Tensor indices)",
    _NN,
    "2-D max pooling of ``self`` (N, C, H, W); ``indices`` are flat positions in each "
    "(H, W) plane. ``stride`` defaults to ``kernel_size``.",
    frontend="structured",
    meta_function=MC.meta_max_pool2d_with_indices,
    method=False,
    dtypes="if",
    node="MaxPool2DWithIndicesBackward0",
)
_op(
    "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[] kernel_size, "
    "int[] stride, int[] padding, int[] dilation, bool ceil_mode, Tensor indices) -> Tensor",
    _NN,
    "The gradient of ``max_pool2d_with_indices`` of ``self``: ``grad_output`` added at "
    "``indices`` (``self``'s values are not read: it is there, as in PyTorch, so that a "
    "double backward reaches it, with zeros).",
    frontend="structured",
    meta_function=MC.meta_max_pool2d_with_indices_backward,
    method=False,
    dtypes="f",
)
_op(
    "avg_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=0, "
    "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    _NN,
    "2-D average pooling of ``self`` (N, C, H, W). ``stride`` defaults to ``kernel_size``.",
    frontend="structured",
    meta_function=MC.meta_avg_pool2d,
    method=False,
    dtypes="if",
    node="AvgPool2DBackward0",
)
_op(
    "avg_pool2d_backward(Tensor grad_output, Tensor self, int[] kernel_size, int[] stride, "
    "int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    _NN,
    "The gradient of ``avg_pool2d`` of ``self``: each output's gradient shared over its "
    "window (``self``'s values are not read, as for ``max_pool2d_with_indices_backward``).",
    frontend="structured",
    meta_function=MC.meta_avg_pool2d_backward,
    method=False,
    dtypes="if",
)
# PReLU and its gradients, PyTorch's private operators (``nn.functional.prelu`` reshapes
# ``weight`` to broadcast along dim 1 first). The backward operator takes ``self``, with a
# zero that flows as its derivative there, so that a double backward reaches the input.
_op(
    "_prelu_kernel(Tensor self, Tensor weight) -> Tensor",
    _NN,
    "``self`` where ``self > 0``, else ``weight * self`` (``weight`` broadcast to ``self``).",
    frontend="structured",
    meta_function=MC.meta_prelu_kernel,
    method=False,
    function=False,
    dtypes="f",
    autocast="lower",
)
_op(
    "_prelu_kernel_backward(Tensor grad_output, Tensor self, Tensor weight) -> (Tensor, Tensor)",
    _NN,
    "The gradients of ``_prelu_kernel`` in ``self`` and in ``weight``, both of ``self``'s "
    "shape (the weight's is summed from it).",
    frontend="structured",
    meta_function=MC.meta_prelu_kernel_backward,
    method=False,
    function=False,
    dtypes="f",
)
# The smooth L1 and Huber losses and their gradients (PyTorch's operators): one pass each way
# over input and target, where the composite recorded seven nodes (sub, abs, clamp, mul, sub,
# div, mean). nn.functional calls them for an input and a target of one shape and dtype
# (the composite still does the broadcasting and promoting calls).
for _name, _param, _what in [
    (
        "smooth_l1_loss",
        "beta",
        "``0.5 d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``",
    ),
    (
        "huber_loss",
        "delta",
        "``0.5 d**2`` where ``|d| <= delta``, else ``delta (|d| - 0.5 delta)``",
    ),
]:
    _op(
        f'{_name}(Tensor self, Tensor target, str reduction="mean", float {_param}=1.0) -> Tensor',
        _NN,
        f"{_what} (``d = self - target``), reduced by ``reduction``.",
        frontend="structured",
        meta_function=getattr(MN, f"meta_{_name}"),
        method=False,
        function=False,
        dtypes="f",
        autocast="fp32",
    )
    _op(
        f"{_name}_backward(Tensor grad_output, Tensor self, Tensor target, str reduction, "
        f"float {_param}) -> Tensor",
        _NN,
        f"The gradient of ``{_name}`` in ``self`` (minus that in ``target``).",
        frontend="structured",
        meta_function=getattr(MN, f"meta_{_name}_backward"),
        method=False,
        function=False,
        dtypes="f",
    )
# Binary cross-entropy of probabilities and its gradient in them (PyTorch's operators): one
# pass each way where the composite recorded eleven nodes and checked the ranges with six
# more operators; the kernel checks them (only the data can tell).
_op(
    'binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, str reduction="mean") '
    "-> Tensor",
    _NN,
    "``-weight * (target * log(self) + (1 - target) * log(1 - self))``, each log at least -100, "
    "reduced by ``reduction``; ``self`` and ``target`` must lie in [0, 1].",
    frontend="structured",
    meta_function=MN.meta_binary_cross_entropy,
    method=False,
    function=False,
    dtypes="f",
    autocast="fp32",
)
_op(
    "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, "
    'Tensor? weight=None, str reduction="mean") -> Tensor',
    _NN,
    "The gradient of ``binary_cross_entropy`` in ``self``: ``grad_output * weight * (self - "
    "target) / max(self * (1 - self), 1e-12)`` (over the element count for 'mean').",
    frontend="structured",
    meta_function=MN.meta_binary_cross_entropy_backward,
    method=False,
    function=False,
    dtypes="f",
)
# ... and of logits (PyTorch's operator; its gradient is an operator here too).
_op(
    "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
    'Tensor? pos_weight=None, str reduction="mean") -> Tensor',
    _NN,
    "``weight * ((1 - target) * self + (1 + (pos_weight - 1) * target) * softplus(-self))``: "
    "the binary cross-entropy of ``sigmoid(self)``, computed stably, its positive term "
    "weighed by ``pos_weight``, reduced by ``reduction``.",
    frontend="structured",
    meta_function=MN.meta_binary_cross_entropy_with_logits,
    method=False,
    function=False,
    dtypes="f",
    autocast="fp32",
)
_op(
    "binary_cross_entropy_with_logits_backward(Tensor grad_output, Tensor self, Tensor target, "
    'Tensor? weight=None, Tensor? pos_weight=None, str reduction="mean") -> Tensor',
    _NN,
    "The gradient of ``binary_cross_entropy_with_logits`` in ``self``: ``grad_output * weight "
    "* ((1 + (pos_weight - 1) * target) * sigmoid(self) - pos_weight * target)`` (over the "
    "element count for 'mean').",
    frontend="structured",
    meta_function=MN.meta_binary_cross_entropy_with_logits_backward,
    method=False,
    function=False,
    dtypes="f",
)
_op(
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    _NN,
    "``input @ weight.T + bias`` for an input of shape (*, in_features), a weight of shape "
    "(out_features, in_features) and a bias of shape (out_features,).",
    frontend="structured",
    meta_function=MN.meta_linear,
    method=False,
    dtypes="ifc",
    autocast="lower",
)
_op(
    "linear_backward(Tensor grad_output, Tensor input, Tensor weight, int[] output_mask) -> "
    "(Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``linear`` with respect to its input, weight and bias, each computed "
    "only where ``output_mask`` (three 0/1 flags) asks for it, and None where it does not "
    "(PyTorch's undefined tensor).",
    frontend="structured",
    meta_function=MN.meta_linear_backward,
    method=False,
    dtypes="ifc",
)
_op(
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05, bool cudnn_enable=True) -> Tensor",
    _NN,
    "Normalise over the last ``len(normalized_shape)`` dims (biased variance), then scale by "
    "``weight`` and shift by ``bias``. ``cudnn_enable`` (PyTorch's switch of a CUDA library) "
    "changes nothing.",
    frontend="structured",
    meta_function=MNorm.meta_layer_norm,
    method=False,
    dtypes="f",
    node="NativeLayerNormBackward0",
)
_op(
    "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
    "float eps) -> (Tensor, Tensor, Tensor)",
    _NN,
    "``layer_norm``'s result with the statistics it normalised by: the mean and the inverse "
    "standard deviation of each row, shaped as the input with the normalised dims 1 (in "
    "float32 for a 16-bit input), which its backward reads instead of recomputing them.",
    frontend="structured",
    meta_function=MNorm.meta_native_layer_norm,
    method=False,
    dtypes="f",
    node="NativeLayerNormBackward0",
)
_op(
    "layer_norm_backward(Tensor grad_output, Tensor input, int[] normalized_shape, "
    "Tensor? weight=None, float eps=1e-05, Tensor? mean=None, Tensor? rstd=None) -> "
    "(Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``layer_norm`` with respect to its input, weight and bias, from the "
    "forward's row statistics ``mean`` and ``rstd`` (``native_layer_norm``'s) or, where they "
    "are None, the statistics recomputed from ``input``.",
    frontend="structured",
    meta_function=MNorm.meta_layer_norm_backward,
    method=False,
    dtypes="f",
)
_op(
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps, "
    "bool cudnn_enabled=True) -> Tensor",
    _NN,
    "Normalise each channel (dim 1) by the batch's statistics (``training``; the running ones "
    "are then updated in place with ``momentum``, the variance unbiased) or by "
    "``running_mean``/``running_var``, then scale and shift per channel. ``cudnn_enabled`` "
    "(PyTorch's switch of a CUDA library) changes nothing.",
    frontend="structured",
    meta_function=MNorm.meta_batch_norm,
    method=False,
    dtypes="f",
    node="NativeBatchNormBackward0",
)
_op(
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
    "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    _NN,
    "``batch_norm``'s result with the batch statistics it normalised by (``training``): each "
    "channel's mean and inverse standard deviation (C,) (in float32 for a 16-bit input), which "
    "its backward reads instead of recomputing them; empty (0,) when not training.",
    frontend="structured",
    meta_function=MNorm.meta_native_batch_norm,
    method=False,
    dtypes="f",
    node="NativeBatchNormBackward0",
    out=True,
    out_dtype="exact",
)
_op(
    "batch_norm_backward(Tensor grad_output, Tensor input, Tensor? weight, "
    "Tensor? running_mean, Tensor? running_var, bool training, float eps, "
    "Tensor? save_mean=None, Tensor? save_invstd=None) -> (Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``batch_norm`` with respect to its input, weight and bias; when "
    "``training``, from the forward's batch statistics ``save_mean`` and ``save_invstd`` "
    "(``native_batch_norm``'s) or, where they are None, the statistics recomputed from "
    "``input``.",
    frontend="structured",
    meta_function=MNorm.meta_batch_norm_backward,
    method=False,
    dtypes="f",
)
_op(
    "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, "
    "int group, float eps) -> (Tensor, Tensor, Tensor)",
    _NN,
    "Group normalisation of ``input`` (N, C, *) with ``HxW`` positions per channel: each "
    "sample's ``C / group`` channels of a group are normalised together (biased variance), "
    "then scaled by ``weight`` and shifted by ``bias`` per channel; also returns each "
    "(sample, group)'s mean and inverse standard deviation (N, group) (in float32 for a "
    "16-bit input), which its backward reads. ``nn.functional.group_norm`` calls it.",
    frontend="structured",
    meta_function=MNorm.meta_native_group_norm,
    method=False,
    dtypes="f",
    node="NativeGroupNormBackward0",
)
_op(
    "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, "
    "Tensor? weight, int N, int C, int HxW, int group, int[] output_mask) -> "
    "(Tensor, Tensor, Tensor)",
    _NN,
    "The gradients of ``native_group_norm`` with respect to its input, weight and bias from "
    "the forward's statistics ``mean`` and ``rstd`` (N, group), each computed only where "
    "``output_mask`` (three 0/1 flags) asks for it, and None where it does not.",
    frontend="structured",
    meta_function=MNorm.meta_native_group_norm_backward,
    method=False,
    dtypes="f",
)
# A whole LSTM layer direction's recurrence (``nn.LSTM`` runs it for each layer and direction
# where the backend has it): one call instead of a dozen operators per time step.
_op(
    "_lstm_layer(Tensor proj, Tensor h0, Tensor c0, Tensor w_hh, bool reverse, "
    "int[]? batch_sizes=None, bool train=True, Tensor? w_hr=None) -> "
    "(Tensor, Tensor, Tensor, Tensor)",
    _NN + " nondifferentiable",
    "An LSTM layer direction over the sequence from the input's gate projection ``proj`` (L, N, "
    "4H: ``x W_ih^T + b_ih + b_hh``, gates in the order input, forget, cell, output), the "
    "initial states ``h0``, ``c0`` (N, H) and the recurrent weight ``w_hh`` (4H, H), walking "
    "the steps backwards where ``reverse``: the output (L, N, H), the final states ``h_n``, "
    "``c_n``, and the "
    "``workspace`` (L, 7H, N) that ``_lstm_layer_backward`` reads (each step's activated gates "
    "in the order input, forget, output, cell, its cell state, the state's tanh and the output, "
    "feature-major). ``batch_sizes`` (L,), non-increasing, runs packed sequences (sorted longest "
    "first): at step ``t`` only the first ``batch_sizes[t]`` sequences step, the others carry "
    "their states (which the output holds at their steps) and the backward passes their "
    "gradients through; ``h_n``, ``c_n`` are each sequence's states at its end. Without "
    "``train`` (no backward to come) the workspace is only two steps' scratch (``min(L, 2)``). "
    "With ``w_hr`` (P, H) the layer projects its state (``proj_size``): ``h_t = (o_t * "
    "tanh(c_t)) W_hr^T`` (N, P), which ``w_hh`` (4H, P) reads, ``h0``, the output and "
    "``h_n`` of size P; the workspace keeps the state before its projection.",
    frontend="structured",
    meta_function=MN.meta_lstm_layer,
    method=False,
    dtypes="f",
)
_op(
    "_lstm_layer_backward(Tensor grad_output, Tensor grad_h_n, Tensor grad_c_n, Tensor c0, "
    "Tensor w_hh, Tensor workspace, bool reverse, int[]? batch_sizes=None, Tensor? w_hr=None) "
    "-> (Tensor, Tensor, Tensor, Tensor)",
    _NN + " nondifferentiable",
    "The gradients of ``_lstm_layer`` with respect to ``proj`` and the initial states, from "
    "the gradients of its output and final states and its ``workspace``; with ``w_hr`` also "
    "the gradient of every step's projected state (L, N, P: what ``w_hr``'s gradient is made "
    "of), else an empty (0,) tensor.",
    frontend="structured",
    meta_function=MN.meta_lstm_layer_backward,
    method=False,
    dtypes="f",
)
# A whole GRU layer direction's recurrence, as ``_lstm_layer`` (``nn.GRU`` runs it where the
# backend has it).
_op(
    "_gru_layer(Tensor proj, Tensor h0, Tensor w_hh, Tensor? b_hh, bool reverse, "
    "int[]? batch_sizes=None, bool train=True) -> "
    "(Tensor, Tensor, Tensor)",
    _NN + " nondifferentiable",
    "A GRU layer direction over the sequence from the input's gate projection ``proj`` (L, N, "
    "3H: ``x W_ih^T + b_ih``, gates in the order reset, update, new), the initial state ``h0`` "
    "(N, H), the recurrent weight ``w_hh`` (3H, H) and bias ``b_hh`` (3H,), walking the steps "
    "backwards where ``reverse``: the output (L, N, H), the final state ``h_n``, and the "
    "``workspace`` (L, 5H, N) that ``_gru_layer_backward`` reads (each step's reset and update "
    "gates, the state's projection of the new gate, the new gate and the output, "
    "feature-major); ``batch_sizes`` runs packed sequences and ``train`` sizes the workspace "
    "as ``_lstm_layer``'s.",
    frontend="structured",
    meta_function=MN.meta_gru_layer,
    method=False,
    dtypes="f",
)
_op(
    "_gru_layer_backward(Tensor grad_output, Tensor grad_h_n, Tensor h0, Tensor w_hh, "
    "Tensor workspace, bool reverse, int[]? batch_sizes=None) -> (Tensor, Tensor, Tensor)",
    _NN + " nondifferentiable",
    "The gradients of ``_gru_layer`` with respect to ``proj``, to the state's projection "
    "``h W_hh^T + b_hh`` of every step (L, N, 3H: what the recurrent weight's and bias's "
    "gradients are made of) and to ``h0``, from the gradients of its output and final state "
    "and its ``workspace``.",
    frontend="structured",
    meta_function=MN.meta_gru_layer_backward,
    method=False,
    dtypes="f",
)
# A whole Elman RNN layer direction's recurrence, as ``_lstm_layer`` (``nn.RNN`` runs it where
# the backend has it).
_op(
    "_rnn_layer(Tensor proj, Tensor h0, Tensor w_hh, bool relu, bool reverse, "
    "int[]? batch_sizes=None) -> (Tensor, Tensor)",
    _NN + " nondifferentiable",
    "An Elman RNN layer direction over the sequence from the input's projection ``proj`` (L, "
    "N, H: ``x W_ih^T + b_ih + b_hh``), the initial state ``h0`` (N, H) and the recurrent "
    "weight ``w_hh`` (H, H): ``h_t = tanh(proj_t + h_{t-1} W_hh^T)`` (``relu`` instead of "
    "tanh where ``relu``), walking the steps backwards where ``reverse``: the output (L, N, H) "
    "and the final state ``h_n``; ``batch_sizes`` runs packed sequences as ``_lstm_layer``'s.",
    frontend="structured",
    meta_function=MN.meta_rnn_layer,
    method=False,
    dtypes="f",
)
_op(
    "_rnn_layer_backward(Tensor grad_output, Tensor grad_h_n, Tensor output, Tensor w_hh, "
    "bool relu, bool reverse, int[]? batch_sizes=None) -> (Tensor, Tensor)",
    _NN + " nondifferentiable",
    "The gradients of ``_rnn_layer`` with respect to ``proj`` (each step's pre-activation: "
    "what the weights' and biases' gradients are made of) and ``h0``, from the gradients of "
    "its output and final state and its ``output`` (the nonlinearity's derivative is read "
    "off it).",
    frontend="structured",
    meta_function=MN.meta_rnn_layer_backward,
    method=False,
    dtypes="f",
)
# PyTorch's bag-of-embeddings operators: ``nn.functional.embedding_bag`` (``sparse=False``)
# calls them, reducing each bag without building a node per looked-up row.
_op(
    "_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
    "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
    "Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) "
    "-> (Tensor, Tensor, Tensor, Tensor)",
    _NN,
    "The rows of ``weight`` (V, D) at ``indices`` (n,), reduced per bag (``mode`` 0: sum, "
    "1: mean, 2: max); bag ``k`` starts at ``offsets[k]`` and runs to the next bag's start "
    "(with ``include_last_offset`` the last offset ends the last bag instead of starting "
    "one). ``per_sample_weights`` (sum only) scales each row; indices equal to "
    "``padding_idx`` (-1: none) are left out, of a mean's count too; an empty bag gives "
    "zeros. Also returns ``offset2bag`` (n,), each index's bag (-1 where in none), "
    "``bag_size`` (B,), the rows each bag reduced, and, for max, ``max_indices`` (B, D), "
    "the index of the row each maximum came from (-1 for a bag without rows; (0,) for the "
    "other modes), which ``_embedding_bag_dense_backward`` reads.",
    frontend="structured",
    meta_function=MN.meta_embedding_bag,
    method=False,
    function=False,
    dtypes="f",
    node="EmbeddingBagBackward0",
)
_op(
    "_embedding_bag_dense_backward(Tensor grad, Tensor indices, Tensor offset2bag, "
    "Tensor bag_size, Tensor maximum_indices, int num_weights, bool scale_grad_by_freq, "
    "int mode, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor",
    _NN,
    "The gradient of ``_embedding_bag`` in its ``weight`` (``num_weights``, D), from "
    "``grad`` (B, D) and the forward's ``offset2bag``, ``bag_size`` and ``maximum_indices``: "
    "each bag's gradient (over its size for mean, times the row's weight for "
    "``per_sample_weights``) added to the rows it reduced (for max, to the row each "
    "maximum came from), divided by each index's count in ``indices`` with "
    "``scale_grad_by_freq``.",
    frontend="structured",
    meta_function=MN.meta_embedding_bag_dense_backward,
    method=False,
    function=False,
    dtypes="f",
)
# PyTorch's CTC loss operators: ``nn.functional.ctc_loss`` calls them (one node, a kernel that
# loops over time only) and reduces their per-sample losses.
_op(
    "_ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, "
    "int blank=0, bool zero_infinity=False) -> (Tensor, Tensor)",
    _NN,
    "The CTC loss of each sample of ``log_probs`` (T, N, C) against ``targets`` (N, S) padded "
    "or 1-D (the targets one after the other): minus the log of the total probability of "
    "the alignments of the sample's first ``target_lengths[n]`` labels with its first "
    "``input_lengths[n]`` steps, ``blank`` the blank class. Also returns ``log_alpha`` (N, "
    "T, 2 S + 1), the forward variables over the targets with blanks around their labels "
    "(-inf where unreachable), which ``_ctc_loss_backward`` reads. ``zero_infinity`` "
    "only zeroes the gradient of an infinite loss (``nn.functional.ctc_loss`` zeroes the "
    "loss).",
    frontend="structured",
    meta_function=MCtc.meta_ctc_loss,
    method=False,
    function=False,
    dtypes="f",
    check=AC.refuses_16bit_floats("ctc_loss", first=True),
)
_op(
    "_ctc_loss_backward(Tensor grad, Tensor log_probs, Tensor targets, int[] input_lengths, "
    "int[] target_lengths, Tensor neg_log_likelihood, Tensor log_alpha, int blank, "
    "bool zero_infinity=False) -> Tensor",
    _NN + " backward_not_implemented",
    "The gradient of ``_ctc_loss`` in ``log_probs`` from ``grad`` (N,), as PyTorch's: "
    "``(exp(log_probs) - posterior) * grad`` over each sample's steps, 0 after them (the "
    "posterior of each class at each step, from ``log_alpha`` and the backward variables; "
    "what the logits of a ``log_softmax`` get). With ``zero_infinity`` a sample of "
    "infinite loss gets 0. Not differentiable again (as PyTorch's).",
    frontend="structured",
    meta_function=MCtc.meta_ctc_loss_backward,
    method=False,
    function=False,
    dtypes="f",
    check=AC.refuses_16bit_floats("ctc_loss_backward"),
    node="NotImplemented",
)
# Fused optimizer steps: one call updates every parameter of a group (PyTorch's
# _fused_sgd_/_fused_adam_), for backends that can do it without an operator per formula step.
_FUSED = "optim nondifferentiable"
_op(
    "_fused_sgd_(Tensor[] params, Tensor[] grads, Tensor[] momentum_buffers, int[] first_step, "
    "*, float lr, float momentum, float dampening, float weight_decay, bool nesterov, "
    "bool maximize) -> ()",
    _FUSED,
    "One SGD step of ``params`` in place (``optim.SGD``'s rule); ``momentum_buffers`` (empty "
    "without momentum) are updated, or set to the gradient where ``first_step`` is 1.",
    method=False,
    dtypes="f",
)
_op(
    "_fused_adam_(Tensor[] params, Tensor[] grads, Tensor[] exp_avgs, Tensor[] exp_avg_sqs, "
    "Tensor[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float beta2, "
    "float eps, float weight_decay, bool amsgrad, bool maximize, bool decoupled) -> ()",
    _FUSED,
    "One Adam step of ``params`` in place (``optim.Adam``'s rule; ``decoupled``: AdamW's "
    "weight decay), updating the moments and the step counts.",
    method=False,
    dtypes="f",
)
_op(
    "sort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "Sorts along ``dim``; returns values and indices.",
    frontend="structured",
    meta_function=M.meta_sort,
    out=True,
    dtypes="bif",
    dtype_error="Sort does not support {kind} dtypes",
)
_op(
    "argsort(Tensor self, int dim=-1, bool descending=False, *, bool? stable=False) -> Tensor",
    _R + " nondifferentiable",
    "Indices that sort ``self`` along ``dim``.",
    frontend="structured",
    meta_function=M.meta_argsort,
    promote="index",
    dtypes="bif",
    dtype_error="Sort does not support {kind} dtypes",
    out=True,
    out_dtype="exact",
)
_op(
    "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> "
    "(Tensor values, Tensor indices)",
    _R,
    "The ``k`` largest (or smallest) along ``dim``.",
    frontend="structured",
    meta_function=M.meta_topk,
    out=True,
    dtypes="if",
    dtype_error="topk does not support {kind} dtypes",
)
