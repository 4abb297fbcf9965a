"""Gaps found by running sequence, graph and reinforcement-learning programs written for
PyTorch with ``import tensorcore as torch`` (the twenty-second sweep): each test pins
PyTorch 2.13's behaviour that such a program meets (its warnings, errors and the
transformer encoder's inference path)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorcore as tc
from tensorcore import nn
from tensorcore.nn.utils.rnn import pack_sequence, pad_sequence

F = tc.nn.functional


def test_rnn_dropout_with_one_layer_warns() -> None:
    # char-RNN code passes dropout= to a one-layer LSTM, where it does nothing.
    with pytest.warns(
        UserWarning,
        match=r"non-zero dropout expects num_layers greater than 1, "
        r"but got dropout=0.2 and num_layers=1",
    ):
        nn.LSTM(4, 6, dropout=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.GRU(4, 6, num_layers=2, dropout=0.2)
        nn.RNN(4, 6)


def test_rnn_input_of_another_dtype_is_a_value_error() -> None:
    gru = nn.GRU(4, 6)
    with pytest.raises(
        ValueError,
        match=r"RNN input dtype \(\S+float64\) does not match weight "
        r"dtype \(\S+float32\)\. Convert input: input.to\(\S+float32\), or "
        r"convert model: model.to\(\S+float64\)",
    ):
        gru(tc.ones(2, 3, 4, dtype=tc.float64))
    with pytest.raises(ValueError, match="RNN input dtype"):
        nn.LSTM(4, 6)(tc.ones(2, 3, 4, dtype=tc.int64))


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.GRUCell, nn.LSTMCell])
def test_rnn_cells_check_sizes_as_pytorch(cls: type) -> None:
    cell = cls(4, 6)

    def state(*shape: int) -> object:
        return (tc.zeros(*shape), tc.zeros(*shape)) if cls is nn.LSTMCell else tc.zeros(*shape)

    with pytest.raises(
        RuntimeError, match=r"^input has inconsistent input_size: got 5 expected 4$"
    ):
        cell(tc.ones(2, 5))
    with pytest.raises(
        RuntimeError, match=r"^input has inconsistent input_size: got 5 expected 4$"
    ):
        cell(tc.ones(5))
    with pytest.raises(
        RuntimeError, match=r"^Input batch size 2 doesn't match hidden0 batch size 3$"
    ):
        cell(tc.ones(2, 4), state(3, 6))
    with pytest.raises(
        RuntimeError, match=r"^hidden0 has inconsistent hidden_size: got 7, expected 6$"
    ):
        cell(tc.ones(2, 4), state(2, 7))
    if cls is nn.LSTMCell:
        with pytest.raises(RuntimeError, match=r"doesn't match hidden1 batch size 3$"):
            cell(tc.ones(2, 4), (tc.zeros(2, 6), tc.zeros(3, 6)))


def test_pad_sequence_takes_any_iterable() -> None:
    # A tensor is its rows; a generator its items (PyTorch makes a tuple of either).
    assert pad_sequence(tc.ones(2, 3)).shape == (3, 2)
    got = pad_sequence((t for t in [tc.tensor([1.0, 2.0]), tc.tensor([3.0])]), batch_first=True)
    assert got.tolist() == [[1.0, 2.0], [3.0, 0.0]]
    assert pack_sequence(t for t in [tc.ones(2), tc.ones(1)]).batch_sizes.tolist() == [2, 1]
    with pytest.raises(
        RuntimeError, match=r"Expected iterable for input sequences, but got arg of type"
    ):
        pad_sequence(3)  # type: ignore[arg-type]


def test_encoder_layer_records_its_activation() -> None:
    assert nn.TransformerEncoderLayer(8, 2, 16).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, 16, activation="gelu").activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=F.gelu).activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=nn.ReLU()).activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, 16, activation=tc.tanh).activation_relu_or_gelu == 0


def test_transformer_encoder_nested_tensor_flags() -> None:
    fast = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    enc = nn.TransformerEncoder(fast, 2)
    assert (enc.enable_nested_tensor, enc.use_nested_tensor, enc.mask_check) == (True, True, True)
    reasons = [
        (
            nn.TransformerEncoderLayer(8, 2, 16),
            "encoder_layer.self_attn.batch_first was not True"
            "(use batch_first for better inference performance)",
        ),
        (
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
            "encoder_layer.norm_first was True",
        ),
        (
            nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=tc.tanh),
            "encoder_layer.activation_relu_or_gelu was not True",
        ),
        (
            nn.TransformerEncoderLayer(9, 3, 16, batch_first=True),
            "encoder_layer.self_attn.num_heads is odd",
        ),
    ]
    for layer, why in reasons:
        msg = f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why}"
        with pytest.warns(UserWarning) as rec:
            enc = nn.TransformerEncoder(layer, 1)
        assert [str(w.message) for w in rec] == [msg]
        assert (enc.enable_nested_tensor, enc.use_nested_tensor) == (True, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc = nn.TransformerEncoder(reasons[0][0], 1, enable_nested_tensor=False, mask_check=False)
    assert (enc.use_nested_tensor, enc.mask_check) == (False, False)


@pytest.mark.filterwarnings("ignore:Support for mismatched:UserWarning")
def test_transformer_encoder_inference_zeroes_padded_positions(device: str) -> None:
    # PyTorch's encoder runs nested tensors in inference (eval, no gradient wanted) when a
    # padding mask pads each sequence at its end and no mask is given: the padded positions
    # come back 0, then go through the final norm (its bias, here 0.5).
    tc.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True, device=device)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8, device=device)).eval()
    with tc.no_grad():
        enc.norm.bias.fill_(0.5)
    x = tc.randn(2, 4, 8, device=device)
    kpm = tc.tensor([[False, False, True, True], [False] * 4], device=device)
    with tc.no_grad():
        fast = enc(x, src_key_padding_mask=kpm)
    slow = enc(x, src_key_padding_mask=kpm)  # (gradients wanted: the padded path)
    assert np.allclose(fast.cpu().numpy()[0, 2:], 0.5)
    assert np.abs(slow.detach().cpu().numpy()[0, 2:] - 0.5).max() > 0.1
    np.testing.assert_allclose(
        fast.cpu().numpy()[:, :2], slow.detach().cpu().numpy()[:, :2], atol=1e-5
    )
    np.testing.assert_allclose(fast.cpu().numpy()[1], slow.detach().cpu().numpy()[1], atol=1e-5)
    with tc.no_grad():
        # padding at the start (not "left aligned"), a float padding mask, a mask as well,
        # the fast path switched off: no zeros
        left = enc(x, src_key_padding_mask=kpm.flip(1))
        as_float = enc(
            x, src_key_padding_mask=tc.zeros(2, 4, device=device).masked_fill(kpm, float("-inf"))
        )
        causal = nn.Transformer.generate_square_subsequent_mask(4, device=device)
        with_mask = enc(x, mask=causal, src_key_padding_mask=kpm)
        tc.backends.mha.set_fastpath_enabled(False)
        try:
            off = enc(x, src_key_padding_mask=kpm)
        finally:
            tc.backends.mha.set_fastpath_enabled(True)
    assert np.abs(left.cpu().numpy()[0, :2] - 0.5).max() > 0.1
    assert np.allclose(as_float.cpu().numpy()[0, 2:], 0.5)
    assert np.abs(with_mask.cpu().numpy()[0, 2:] - 0.5).max() > 0.1
    assert np.abs(off.cpu().numpy()[0, 2:] - 0.5).max() > 0.1
    assert tc.backends.mha.get_fastpath_enabled()


def test_mismatched_mask_dtypes_warn_and_int_masks_are_refused_by_name() -> None:
    mha = nn.MultiheadAttention(8, 2)
    q = tc.randn(3, 2, 8)
    causal = nn.Transformer.generate_square_subsequent_mask(3)
    pad = tc.tensor([[False, False, True], [False] * 3])
    with pytest.warns(
        UserWarning,
        match=r"^Support for mismatched key_padding_mask and attn_mask "
        "is deprecated. Use same type for both instead.$",
    ):
        mha(q, q, q, key_padding_mask=pad, attn_mask=causal)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mha(q, q, q, key_padding_mask=pad, attn_mask=causal.isinf())
        mha(q, q, q, key_padding_mask=pad)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False)
    with pytest.warns(UserWarning, match=r"^Support for mismatched src_key_padding_mask and mask"):
        enc(q, mask=causal, src_key_padding_mask=pad)
    with pytest.warns(
        UserWarning, match=r"^Support for mismatched src_key_padding_mask and src_mask"
    ):
        enc.layers[0](q, src_mask=causal, src_key_padding_mask=pad)
    long_pad = tc.zeros(2, 3, dtype=tc.int64)
    with pytest.raises(
        AssertionError, match=r"^only bool and floating types of key_padding_mask are supported$"
    ):
        mha(q, q, q, key_padding_mask=long_pad)
    with pytest.raises(
        AssertionError, match=r"^only bool and floating types of attn_mask are supported$"
    ):
        mha(q, q, q, attn_mask=tc.zeros(3, 3, dtype=tc.uint8))


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
def test_transformer_checks_src_and_tgt() -> None:
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match=r"^the batch number of src and tgt must be equal$"):
        model(tc.randn(3, 2, 8), tc.randn(4, 3, 8))
    with pytest.raises(
        RuntimeError, match=r"^the feature number of src and tgt must be equal to d_model$"
    ):
        model(tc.randn(3, 2, 6), tc.randn(4, 2, 6))
    first = nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
    with pytest.raises(RuntimeError, match=r"^the batch number of src and tgt must be equal$"):
        first(tc.randn(2, 3, 8), tc.randn(3, 3, 8))
    assert first(tc.randn(2, 3, 8), tc.randn(2, 5, 8)).shape == (2, 5, 8)


def test_sdpa_refuses_a_mask_of_another_dtype() -> None:
    q = tc.randn(1, 2, 3, 4)
    for d, name in ((tc.int64, "long int"), (tc.uint8, "unsigned char"), (tc.float64, "double")):
        with pytest.raises(
            RuntimeError,
            match=rf"Expected attn_mask dtype to be bool or float or to "
            rf"match query dtype, but got attn_mask\.dtype: {name} and  query\.dtype: "
            r"float instead\.",
        ):
            F.scaled_dot_product_attention(q, q, q, attn_mask=tc.ones(3, 3, dtype=d))
    assert (
        F.scaled_dot_product_attention(q, q, q, attn_mask=tc.ones(3, 3, dtype=tc.bool)).shape
        == q.shape
    )
    assert F.scaled_dot_product_attention(q, q, q, attn_mask=tc.zeros(3, 3)).shape == q.shape


def test_parameters_in_saved_containers_load_as_parameters(tmp_path) -> None:
    # DQN/SAC code saves dict(model.named_parameters()) or a list of parameters; PyTorch
    # loads them back as Parameters (requires_grad kept), one object per saved Parameter.
    p = nn.Parameter(tc.ones(2))
    frozen = nn.Parameter(tc.zeros(1), requires_grad=False)
    path = tmp_path / "params.pt"
    tc.save({"a": p, "b": [p, frozen], "data": p.data, "t": tc.ones(1, requires_grad=True)}, path)
    got = tc.load(path)
    assert type(got["a"]) is nn.Parameter and got["a"].requires_grad
    assert got["b"][0] is got["a"]
    assert type(got["b"][1]) is nn.Parameter and not got["b"][1].requires_grad
    assert type(got["data"]) is tc.Tensor and type(got["t"]) is tc.Tensor
    assert got["t"].requires_grad
    assert got["a"].tolist() == [1.0, 1.0]
    tc.save(nn.Parameter(tc.ones(3)), path)
    assert type(tc.load(path)) is nn.Parameter


def test_distribution_sample_n_warns_that_it_is_deprecated() -> None:
    d = tc.distributions.Normal(tc.zeros(2), 1.0)
    with pytest.warns(
        FutureWarning,
        match=r"^`sample_n\(n\)` will be deprecated\. Use `sample\(\(n,\)\)` instead\.$",
    ):
        assert d.sample_n(3).shape == (3, 2)
