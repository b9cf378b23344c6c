"""The config options for checkpoints trained elsewhere (Marian): each default is the paper's choice,
and each option changes exactly what it says."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F

from transformer import Transformer, TransformerConfig
from transformer.decoding import beam_search, greedy_decode
from transformer.embeddings import sinusoidal_encoding
from transformer.masks import target_mask


def test_defaults_are_the_papers():
    cfg = TransformerConfig()
    assert (cfg.activation, cfg.pe_layout, cfg.logits_bias, cfg.decoder_start_id) == (
        "relu", "interleaved", False, None,
    )  # fmt: skip
    assert cfg.start_id == cfg.bos_id
    model = Transformer(dataclasses.replace(cfg, n_layers=1, vocab_size=40, d_model=16, n_heads=2, d_ff=8))
    assert model.generator.bias is None
    assert "generator.bias" not in model.state_dict()  # nothing new in weight files


def test_half_split_holds_the_same_numbers_in_another_order():
    inter = sinusoidal_encoding(50, 16)
    half = sinusoidal_encoding(50, 16, "half_split")
    assert torch.equal(half[:, :8], inter[:, 0::2])  # the sines
    assert torch.equal(half[:, 8:], inter[:, 1::2])  # the cosines of the same angles
    assert not torch.equal(half, inter)
    with pytest.raises(ValueError, match="layout"):
        sinusoidal_encoding(4, 4, "spiral")


@pytest.mark.parametrize(
    "changes, match",
    [
        (dict(activation="gelu"), "activation"),
        (dict(pe_layout="learned"), "pe_layout"),
        (dict(logits_bias=1), "logits_bias"),
        (dict(bos_id=None), "decoder_start_id"),
        (dict(decoder_start_id=999), "decoder_start_id"),
        (dict(bos_id=0), "distinct"),
    ],
)
def test_bad_options_are_refused(tiny_config, changes, match):
    with pytest.raises(ValueError, match=match):
        dataclasses.replace(tiny_config, **changes)


def test_silu_and_logits_bias_change_the_output_as_written(tiny_config, batch):
    src, tgt = batch
    torch.manual_seed(0)
    relu = Transformer(tiny_config).eval()
    marian = Transformer(dataclasses.replace(tiny_config, activation="silu", logits_bias=True)).eval()
    marian.load_state_dict({**relu.state_dict(), "generator.bias": torch.arange(50.0) / 10})
    ffn = relu.encoder.layers[0].ffn
    x = torch.randn(3, 16)
    assert torch.allclose(marian.encoder.layers[0].ffn(x), ffn.w_2(F.silu(ffn.w_1(x))))
    assert torch.allclose(ffn(x), ffn.w_2(torch.relu(ffn.w_1(x))))
    with torch.no_grad():
        h = marian.decoder(
            marian.tgt_pos_enc(marian.tgt_embed(tgt)),
            marian.encode(src),
            target_mask(tgt, 0),
            marian.src_allowed(src),
        )
        assert torch.allclose(marian(src, tgt), h @ marian.src_embed.lut.weight.t() + torch.arange(50.0) / 10)


def test_decoder_may_start_from_the_padding_token(tiny_config):
    cfg = dataclasses.replace(tiny_config, bos_id=None, decoder_start_id=tiny_config.pad_id)
    torch.manual_seed(0)
    model = Transformer(cfg).eval()
    # The start token is never masked as padding, even though it is the padding id.
    tgt = torch.tensor([[cfg.pad_id, 7, 9, cfg.pad_id]])
    allowed = target_mask(tgt, cfg.pad_id)[0, 0]
    assert allowed[:, 0].all() and not allowed[:, 3].any() and allowed[1, 1]
    src = torch.tensor([5, 6, 7, cfg.eos_id])
    with torch.no_grad():
        logits = model(src[None], torch.tensor([[cfg.pad_id, 7]]))
    assert torch.isfinite(logits).all()
    for hyp in (greedy_decode(model, src, max_len=6), beam_search(model, src, 3, max_len=6)[0]):
        assert cfg.pad_id not in hyp.ids  # the start token (here padding) is never emitted


def test_the_shift_property_is_checked_in_the_models_own_layout():
    from analysis.inputs import check_shift

    half = sinusoidal_encoding(40, 16, "half_split")
    assert check_shift(half, 3, "half_split").max_error < 1e-6
    assert check_shift(half, 3).max_error > 0.1  # the interleaved M_k does not fit this table
    assert check_shift(sinusoidal_encoding(40, 16), 3).max_error < 1e-6
