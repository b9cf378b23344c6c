"""The ablation switches of TransformerConfig: each changes only what it names, checked against
PyTorch's references where one exists, and the paper's choices stay the default."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from tests.test_parity import ATOL, D, F, H, copy_attention, copy_ffn_and_norms
from transformer import hooks, masks
from transformer.attention import MultiHeadAttention
from transformer.config import TransformerConfig
from transformer.layers import EncoderLayer
from transformer.model import Transformer

TINY = dict(vocab_size=20, d_model=16, n_heads=4, d_ff=32, n_layers=2, dropout=0.0, max_len=32)


def test_defaults_are_the_papers_choices():
    cfg = TransformerConfig()
    assert (cfg.scale_scores, cfg.key_size, cfg.positions, cfg.residual, cfg.norm) == (
        True, None, "sinusoidal", True, "post",
    )  # fmt: skip
    assert cfg.d_qk == cfg.d_k == 64


def test_a_paper_model_saves_the_same_weights_as_before_the_switches():
    names = set(Transformer(TransformerConfig(**TINY)).state_dict())
    assert not [n for n in names if "final_norm" in n or "learned" in n]


def test_pre_layernorm_layer_matches_torch_norm_first():
    torch.manual_seed(0)
    switches = TransformerConfig(**TINY, norm="pre")
    ours = EncoderLayer(D, H, F, 0.0, "relu", switches).eval()
    ref = nn.TransformerEncoderLayer(D, H, F, dropout=0.0, batch_first=True, norm_first=True).eval()
    copy_attention(ours.self_attn, ref.self_attn)
    copy_ffn_and_norms(ours, ref, ["norm1", "norm2"])
    x = torch.randn(2, 6, D)
    ids = torch.tensor([[7] * 6, [7] * 3 + [0] * 3])
    keep = ids != 0
    expected = ref(x, src_key_padding_mask=ids == 0)
    torch.testing.assert_close(ours(x, masks.padding_mask(ids, 0))[keep], expected[keep], atol=ATOL, rtol=0)


def test_no_residual_and_no_norm_leave_the_sublayer_alone():
    torch.manual_seed(0)
    x = torch.randn(1, 5, D)
    allowed = masks.padding_mask(torch.full((1, 5), 7), 0)
    plain = EncoderLayer(D, H, F, 0.0, "relu", TransformerConfig(**TINY, residual=False, norm="none")).eval()
    attn = plain.self_attn(x, x, allowed)
    torch.testing.assert_close(plain(x, allowed), plain.ffn(attn))


@pytest.mark.parametrize("traced", [False, True])
def test_unscaled_attention_is_softmax_of_raw_dot_products(traced):
    torch.manual_seed(0)
    scaled, unscaled = MultiHeadAttention(D, H).eval(), MultiHeadAttention(D, H, scale=False).eval()
    unscaled.load_state_dict(scaled.state_dict())
    hooks.name_hook_points(unscaled)
    x = torch.randn(1, 5, D)
    q, k, v = (unscaled.split_heads(w(x)) for w in (unscaled.w_q, unscaled.w_k, unscaled.w_v))
    z = (q @ k.transpose(-2, -1)).softmax(-1) @ v  # no 1/√d_k
    expected = unscaled.w_o(unscaled.merge_heads(z))
    if traced:
        with hooks.record():
            out = unscaled(x, x, None)
    else:
        out = unscaled(x, x, None)
    torch.testing.assert_close(out, expected, atol=ATOL, rtol=0)
    assert not torch.allclose(out, scaled(x, x, None), atol=1e-3)  # the scaling mattered


def test_narrow_keys_change_only_query_and_key_widths():
    mha = MultiHeadAttention(D, H, d_qk=2)
    assert mha.w_q.weight.shape == mha.w_k.weight.shape == (H * 2, D)
    assert mha.w_v.weight.shape == mha.w_o.weight.shape == (D, D)
    hooks.name_hook_points(mha)
    x = torch.randn(1, 5, D)
    with hooks.record() as rec:
        out = mha(x, x, None)
    assert rec["hook_q"].shape == (1, H, 5, 2) and rec["hook_z"].shape == (1, H, 5, D // H)
    torch.testing.assert_close(rec["hook_scores"], rec["hook_qk"] / math.sqrt(2))
    torch.testing.assert_close(mha(x, x, None), out, atol=ATOL, rtol=0)  # fused path agrees


def test_positions_switch_learned_and_none():
    torch.manual_seed(0)
    learned = Transformer(TransformerConfig(**TINY, positions="learned"))
    assert "src_pos_enc.learned" in learned.state_dict()
    assert 0.05 < float(learned.src_pos_enc.learned.detach().std()) < 0.2  # drawn at reset, not Xavier'd
    none = Transformer(TransformerConfig(**TINY, positions="none")).eval()
    # Without positions the encoder cannot tell the order of its input: permuting the tokens
    # permutes its output rows, nothing else.
    src = torch.tensor([[5, 6, 7, 8]])
    perm = torch.tensor([2, 0, 3, 1])
    torch.testing.assert_close(none.encode(src)[:, perm], none.encode(src[:, perm]), atol=ATOL, rtol=0)
    paper = Transformer(TransformerConfig(**TINY)).eval()
    assert not torch.allclose(paper.encode(src)[:, perm], paper.encode(src[:, perm]), atol=1e-3)


def test_pre_layernorm_stack_ends_in_a_layernorm():
    model = Transformer(TransformerConfig(**TINY, norm="pre")).eval()
    out = model.encode(torch.tensor([[5, 6, 7]]))
    assert model.encoder.final_norm is not None and model.decoder.final_norm is not None
    mean = out.mean(-1)
    torch.testing.assert_close(mean, torch.zeros_like(mean), atol=1e-5, rtol=0)  # LayerNorm's output


@pytest.mark.parametrize(
    "bad", [{"norm": "middle"}, {"positions": "rotary"}, {"key_size": 0}, {"residual": "yes"}]
)
def test_bad_switch_values_are_refused(bad):
    with pytest.raises(ValueError):
        TransformerConfig(**{**TINY, **bad})
