"""Samples of the neural-network operators: convolutions, pooling, embeddings, recurrent layers,
normalisation, losses and their backward operators. Each generator registers itself with
``_samples``; ``samples.py`` gathers them into :data:`tensorcore.testing.samples.SAMPLES`."""

from __future__ import annotations

from typing import Any

import tensorcore as tc
from tensorcore.testing._sample_base import S, Sample, _Maker, _samples, call_op


@_samples("convolution")
def _convolution(m: _Maker) -> list[Sample]:
    return [
        S(
            (
                m.uniform(2, 3, 5, 5),
                m.uniform(4, 3, 3, 3),
                m.uniform(4),
                (1,),
                (1,),
                (1,),
                False,
                (0,),
                1,
            ),
            desc="2-D, same padding",
        ),
        S(
            (
                m.uniform(1, 4, 7, 6),
                m.uniform(6, 2, 2, 3),
                None,
                (2, 1),
                (0, 1),
                (2, 1),
                False,
                (0,),
                2,
            ),
            desc="2-D, groups, strides, dilation, no bias",
        ),
        S(
            (
                m.uniform(2, 2, 9),
                m.uniform(3, 2, 3),
                m.uniform(3),
                (2,),
                (1,),
                (1,),
                False,
                (0,),
                1,
            ),
            desc="1-D",
        ),
        S(
            (
                m.uniform(1, 3, 4, 4),
                m.uniform(3, 2, 3, 3),
                m.uniform(2),
                (2,),
                (1,),
                (1,),
                True,
                (1,),
                1,
            ),
            desc="transposed, output_padding",
        ),
    ]


@_samples("convolution_backward_input")
def _convolution_backward_input(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 4, 5, 5), m.uniform(4, 3, 3, 3), (2, 3, 5, 5), (1,), (1,), (1,), 1),
            desc="same padding",
        ),
        S(
            (m.uniform(1, 6, 3, 6), m.uniform(6, 2, 2, 3), (1, 4, 7, 6), (2, 1), (0, 1), (2, 1), 2),
            desc="groups, strides, dilation",
        ),
    ]


@_samples("convolution_backward_weight")
def _convolution_backward_weight(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 4, 5, 5), m.uniform(2, 3, 5, 5), (4, 3, 3, 3), (1,), (1,), (1,), 1),
            desc="same padding",
        ),
        S(
            (m.uniform(1, 6, 3, 6), m.uniform(1, 4, 7, 6), (6, 2, 2, 3), (2, 1), (0, 1), (2, 1), 2),
            desc="groups, strides, dilation",
        ),
    ]


@_samples("_embedding_bag")
def _embedding_bag(m: _Maker) -> list[Sample]:
    idx, offsets = m.index([1, 2, 4, 5, 4, 3, 0, 6]), m.index([0, 3, 3, 5])
    return [
        S((m.uniform(7, 3), idx, offsets), desc="sum, an empty bag"),
        S((m.uniform(7, 3), idx, offsets, False, 1, False, None, False, 4), desc="mean, padding"),
        S((m.distinct(7, 3), idx, offsets, False, 2), desc="max"),
        S(
            (m.uniform(7, 3), idx, m.index([0, 2, 7]), False, 0, False, m.uniform(8), True),
            desc="per_sample_weights, include_last_offset",
        ),
    ]


@_samples("_ctc_loss")
def _ctc_loss(m: _Maker) -> list[Sample]:
    # Log-probabilities far below 0: the operator's gradient is PyTorch's, exp(log_probs)
    # minus the posterior (what the logits of a log_softmax get), where finite differences
    # see minus the posterior; exp(-30) lies below gradcheck's tolerance.
    # The losses only: log_alpha, the forward variables the backward reads, holds -inf for
    # the unreachable states and gets no gradient (as in PyTorch).
    lp = m.uniform(6, 3, 4, lo=-31.0, hi=-29.0)
    padded = m.index([[1, 2, 2], [3, 0, 0], [1, 1, 3]])

    def loss(r: Any) -> Any:
        return r[0]

    return [
        S(
            (lp, padded, [6, 4, 5], [3, 1, 2]),
            desc="padded targets, a repeated label",
            invariant=loss,
        ),
        S(
            (lp, m.index([1, 2, 2, 3, 1, 1]), [6, 0, 3], [3, 0, 2], 0, True),
            desc="concatenated targets, an empty input, zero_infinity",
            invariant=loss,
        ),
        S((lp, padded, [5, 6, 6], [2, 1, 3], 3), desc="blank 3", invariant=loss),
    ]


@_samples("_ctc_loss_backward")
def _ctc_loss_backward(m: _Maker) -> list[Sample]:
    lp = m.uniform(5, 2, 3, lo=-3.0, hi=-0.5)
    tg, il, tl = m.index([[1, 2], [2, 0]]), [5, 3], [2, 1]
    # (the forward in float64: the backward's samples reach the dtypes it refuses)
    nll, alpha = (r.to(lp.dtype) for r in call_op("_ctc_loss", S((lp.double(), tg, il, tl))))
    return [S((m.uniform(2), lp, tg, il, tl, nll, alpha, 0), desc="padded targets")]


@_samples("_embedding_bag_dense_backward")
def _embedding_bag_dense_backward(m: _Maker) -> list[Sample]:
    idx, o2b = m.index([1, 2, 4, 5, 4, 3]), m.index([0, 0, 0, 2, 2, 2])
    sizes = m.index([3, 0, 3])
    return [
        S((m.uniform(3, 2), idx, o2b, sizes, m.index([0]), 7, False, 0, m.uniform(6)), desc="sum"),
        S((m.uniform(3, 2), idx, o2b, sizes, m.index([0]), 7, True, 1, None, 4), desc="mean"),
        S(
            (
                m.uniform(3, 2),
                idx,
                o2b,
                sizes,
                m.index([[2, 1], [-1, -1], [4, 4]]),
                7,
                False,
                2,
                None,
            ),
            desc="max",
        ),
    ]


@_samples("max_pool2d_with_indices")
def _max_pool2d(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 2, 4, 4), (2,)), desc="2x2"),
        S((m.distinct(1, 2, 5, 6), (3,), (2,), (1,), (1,), True), desc="padding, ceil_mode"),
        S((m.distinct(1, 1, 7, 7), (2, 3), (1, 2), (1,), (2,)), desc="dilation"),
    ]


@_samples("max_pool2d_with_indices_backward")
def _max_pool2d_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (
                m.uniform(2, 2, 2, 2),
                m.uniform(2, 2, 4, 4),
                (2,),
                (2,),
                (0,),
                (1,),
                False,
                m.index([[[[0, 3], [9, 15]]] * 2] * 2),
            ),
            desc="2x2",
        ),
    ]


@_samples("avg_pool2d")
def _avg_pool2d(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 2, 4, 4), (2,)), desc="2x2"),
        S((m.uniform(1, 2, 5, 6), (3,), (2,), (1,), True, False), desc="ceil, no pad count"),
        S((m.uniform(1, 1, 5, 5), (3, 2), (1,), (1, 0), False, True, 4), desc="divisor"),
    ]


@_samples("avg_pool2d_backward")
def _avg_pool2d_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(2, 2, 2, 2), m.uniform(2, 2, 4, 4), (2,), (2,), (0,), False, True, None),
            desc="2x2",
        ),
        S(
            (m.uniform(1, 2, 3, 4), m.uniform(1, 2, 5, 6), (3,), (2,), (1,), True, False, None),
            desc="ceil, no pad count",
        ),
    ]


@_samples("linear")
def _linear(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 3), m.uniform(2, 3), m.uniform(2)), desc="2-D, bias"),
        S((m.uniform(2, 5, 3), m.uniform(4, 3)), desc="3-D input, no bias"),
        S((m.uniform(3), m.uniform(2, 3, t=False), m.uniform(2)), desc="1-D input"),
        S((m.uniform(4, 3, t=True), m.uniform(2, 3)), desc="transposed input"),
    ]


@_samples("linear_backward")
def _linear_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(4, 2), m.uniform(4, 3), m.uniform(2, 3), (1, 1, 1)), desc="all"),
        S(
            (m.uniform(2, 5, 4), m.uniform(2, 5, 3), m.uniform(4, 3), (0, 1, 1)),
            desc="3-D, no input gradient",
        ),
    ]


@_samples("_lstm_layer")
def _lstm_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 8), m.uniform(2, 2), m.uniform(2, 2), m.uniform(8, 2), False)),
        S(
            (m.uniform(4, 1, 12), m.uniform(1, 3), m.uniform(1, 3), m.uniform(12, 3), True),
            desc="reverse",
        ),
        S(
            (m.uniform(4, 3, 8), m.uniform(3, 2), m.uniform(3, 2), m.uniform(8, 2), True),
            {"batch_sizes": [3, 2, 2, 1]},
            desc="packed, reverse",
        ),
        S(
            (m.uniform(3, 2, 8), m.uniform(2, 2), m.uniform(2, 2), m.uniform(8, 2), False),
            {"train": False},
            desc="inference: two steps' workspace",
        ),
        S(
            (m.uniform(3, 2, 12), m.uniform(2, 2), m.uniform(2, 3), m.uniform(12, 2), True),
            {"batch_sizes": [2, 2, 1], "w_hr": m.uniform(2, 3)},
            desc="projected state (proj_size), packed, reverse",
        ),
    ]


@_samples("_lstm_layer_backward")
def _lstm_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz), m.uniform(batch, hsz))
        # (any workspace of its shape is a valid call: activations in [0, 1) and states)
        ws = m.positive(steps, 7 * hsz, batch, lo=0.0, hi=1.0)
        return (*grads, m.uniform(batch, hsz), m.uniform(4 * hsz, hsz), ws, reverse)

    return [
        S(args(3, 2, 2, False)),
        S(args(4, 1, 3, True), desc="reverse"),
        S(args(4, 3, 2, False), {"batch_sizes": [3, 3, 1, 0]}, desc="packed"),
        S(
            (
                m.uniform(3, 2, 2),  # (grad_output and grad_h_n of the projected size, 2)
                m.uniform(2, 2),
                m.uniform(2, 3),
                m.uniform(2, 3),
                m.uniform(12, 2),
                m.positive(3, 21, 2, lo=0.0, hi=1.0),
                False,
            ),
            {"w_hr": m.uniform(2, 3)},
            desc="projected state (proj_size)",
        ),
    ]


@_samples("_gru_layer")
def _gru_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 6), m.uniform(2, 2), m.uniform(6, 2), m.uniform(6), False)),
        S((m.uniform(4, 1, 9), m.uniform(1, 3), m.uniform(9, 3), None, True), desc="reverse"),
        S(
            (m.uniform(3, 3, 6), m.uniform(3, 2), m.uniform(6, 2), m.uniform(6), False),
            {"batch_sizes": [3, 2, 1]},
            desc="packed",
        ),
        S(
            (m.uniform(3, 2, 6), m.uniform(2, 2), m.uniform(6, 2), m.uniform(6), True),
            {"train": False},
            desc="inference: two steps' workspace",
        ),
    ]


@_samples("_gru_layer_backward")
def _gru_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz))
        # (any workspace of its shape is a valid call: gates in [0, 1) and states)
        ws = m.positive(steps, 5 * hsz, batch, lo=0.0, hi=1.0)
        return (*grads, m.uniform(batch, hsz), m.uniform(3 * hsz, hsz), ws, reverse)

    return [
        S(args(3, 2, 2, False)),
        S(args(4, 1, 3, True), desc="reverse"),
        S(args(3, 3, 2, True), {"batch_sizes": [2, 2, 1]}, desc="packed, reverse"),
    ]


@_samples("_rnn_layer")
def _rnn_layer(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 2, 2), m.uniform(2, 2), m.uniform(2, 2), False, False)),
        S((m.uniform(4, 1, 3), m.uniform(1, 3), m.uniform(3, 3), True, True), desc="relu, reverse"),
        S(
            (m.uniform(3, 3, 2), m.uniform(3, 2), m.uniform(2, 2), False, True),
            {"batch_sizes": [3, 2, 1]},
            desc="packed, reverse",
        ),
    ]


@_samples("_rnn_layer_backward")
def _rnn_layer_backward(m: _Maker) -> list[Sample]:
    def args(steps: int, batch: int, hsz: int, relu: bool, reverse: bool) -> tuple[Any, ...]:
        grads = (m.uniform(steps, batch, hsz), m.uniform(batch, hsz))
        return (*grads, m.uniform(steps, batch, hsz), m.uniform(hsz, hsz), relu, reverse)

    return [
        S(args(3, 2, 2, False, False)),
        S(args(4, 1, 3, True, True), desc="relu, reverse"),
        S(args(3, 3, 2, False, False), {"batch_sizes": [3, 2, 2]}, desc="packed"),
    ]


@_samples("dist")
def _dist(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 3), m.uniform(3))),
        S((m.uniform(3, 2, t=True), m.uniform(3, 2)), {"p": 1}, desc="p=1"),
        S((m.uniform(4), m.uniform(4)), {"p": 3.5}, desc="p=3.5"),
    ]


@_samples("layer_norm")
def _layer_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), (4,), m.uniform(4), m.uniform(4)), desc="last dim, affine"),
        S((m.uniform(2, 3, 4), (3, 4)), desc="two dims, no affine"),
        S((m.uniform(4, 3, t=True), (3,), m.uniform(3), None, 1e-3), desc="transposed, eps"),
    ]


@_samples("native_layer_norm")
def _native_layer_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), (4,), m.uniform(4), m.uniform(4), 1e-5), desc="last dim, affine"),
        S((m.uniform(2, 3, 4), (3, 4), None, None, 1e-5), desc="two dims, no affine"),
    ]


@_samples("layer_norm_backward")
def _layer_norm_backward(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(3, 4), m.uniform(3, 4), (4,), m.uniform(4)), desc="affine"),
        S((m.uniform(2, 3, 4), m.uniform(2, 3, 4), (3, 4)), desc="no weight"),
    ]


@_samples("batch_norm", "native_batch_norm")
def _batch_norm(m: _Maker) -> list[Sample]:
    def var(c: int) -> tc.Tensor:
        return m.positive(c, lo=0.5, hi=1.5)

    return [
        S(
            (m.uniform(4, 3), m.uniform(3), m.uniform(3), None, None, True, 0.1, 1e-5),
            desc="training, (N, C)",
        ),
        S(
            (m.uniform(2, 3, 2, 2), None, None, None, None, True, 0.1, 1e-5),
            desc="training, (N, C, H, W), no affine",
        ),
        S(
            (
                m.uniform(2, 3, 4),
                m.uniform(3),
                m.uniform(3),
                m.uniform(3),
                var(3),
                False,
                0.1,
                1e-5,
            ),
            desc="eval",
        ),
    ]


@_samples("native_group_norm")
def _native_group_norm(m: _Maker) -> list[Sample]:
    return [
        S((m.uniform(2, 4, 3), m.uniform(4), m.uniform(4), 2, 4, 3, 2, 1e-5), desc="affine"),
        S((m.uniform(2, 6, 2, 2), None, None, 2, 6, 4, 3, 1e-3), desc="(N, C, H, W), eps"),
        S((m.uniform(3, 4), m.uniform(4), None, 3, 4, 1, 2, 1e-5), desc="(N, C), weight"),
    ]


@_samples("native_group_norm_backward")
def _native_group_norm_backward(m: _Maker) -> list[Sample]:
    def stats(n: int, g: int) -> tuple[tc.Tensor, tc.Tensor]:
        return m.uniform(n, g), m.positive(n, g, lo=0.5, hi=1.5)

    return [
        S(
            (
                m.uniform(2, 4, 3),
                m.uniform(2, 4, 3),
                *stats(2, 2),
                m.uniform(4),
                2,
                4,
                3,
                2,
                [1, 1, 1],
            ),
            desc="affine",
        ),
        S(
            (
                m.uniform(2, 6, 2, 2),
                m.uniform(2, 6, 2, 2),
                *stats(2, 3),
                None,
                2,
                6,
                4,
                3,
                [1, 0, 0],
            ),
            desc="no weight, input only",
        ),
    ]


@_samples("batch_norm_backward")
def _batch_norm_backward(m: _Maker) -> list[Sample]:
    return [
        S(
            (m.uniform(4, 3), m.uniform(4, 3), m.uniform(3), None, None, True, 1e-5),
            desc="training",
        ),
        S(
            (
                m.uniform(2, 3, 4),
                m.uniform(2, 3, 4),
                None,
                m.uniform(3),
                m.positive(3, lo=0.5, hi=1.5),
                False,
                1e-5,
            ),
            desc="eval, no weight",
        ),
    ]


@_samples("_fused_sgd_")
def _fused_sgd(m: _Maker) -> list[Sample]:
    def opts(**kw: Any) -> dict[str, Any]:
        base = {"lr": 0.1, "momentum": 0.9, "dampening": 0.0, "weight_decay": 0.01,
                "nesterov": False, "maximize": False}  # fmt: skip
        return {**base, **kw}

    p, g, b = [m.uniform(2, 3), m.uniform(4)], [m.uniform(2, 3), m.uniform(4)], None
    b = [m.uniform(2, 3), m.uniform(4)]
    return [
        S((p, g, b, (0, 1)), opts(), desc="momentum, first step of the second"),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], (0,)),
            opts(nesterov=True),
            desc="nesterov",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [], (0,)),
            opts(momentum=0.0, maximize=True),
            desc="plain, maximize",
        ),
    ]


@_samples("_fused_adam_")
def _fused_adam(m: _Maker) -> list[Sample]:
    def opts(**kw: Any) -> dict[str, Any]:
        base = {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0,
                "amsgrad": False, "maximize": False, "decoupled": False}  # fmt: skip
        return {**base, **kw}

    def steps(n: int) -> list[tc.Tensor]:
        return [tc.zeros((), dtype=tc.float32) for _ in range(n)]

    def pos(*shape: int) -> tc.Tensor:
        return m.positive(*shape, lo=0.1, hi=1.0)

    p = [m.uniform(2, 3), m.uniform(4)]
    g = [m.uniform(2, 3), m.uniform(4)]
    return [
        S(
            (p, g, [m.uniform(2, 3), m.uniform(4)], [pos(2, 3), pos(4)], [], steps(2)),
            opts(),
            desc="adam",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], [pos(3)], [pos(3)], steps(1)),
            opts(amsgrad=True, weight_decay=0.1),
            desc="amsgrad, L2",
        ),
        S(
            ([m.uniform(3)], [m.uniform(3)], [m.uniform(3)], [pos(3)], [], steps(1)),
            opts(decoupled=True, weight_decay=0.1, maximize=True),
            desc="adamw, maximize",
        ),
    ]


@_samples("sort", "argsort")
def _sort(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4),), desc="last dim"),
        S((m.distinct(4, 3, t=True), 0, True), desc="dim 0 of transposed, descending"),
        S((m.distinct(5),), {"stable": True}, desc="stable"),
    ]


@_samples("topk")
def _topk(m: _Maker) -> list[Sample]:
    return [
        S((m.distinct(2, 4), 2), desc="k=2"),
        S((m.distinct(4, 3, t=True), 2, 0, False), desc="smallest along dim 0 of transposed"),
        S((m.distinct(5), 3), {"sorted": True}, desc="1-D"),
    ]
