"""Our attention and layers against PyTorch's reference modules, with copied weights."""

from __future__ import annotations

import torch
from torch import nn

from transformer import hooks, masks
from transformer.attention import MultiHeadAttention
from transformer.layers import DecoderLayer, EncoderLayer

D, H, F = 16, 4, 32
ATOL = 1e-5


def copy_attention(ours: MultiHeadAttention, ref: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        ref.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        ref.out_proj.weight.copy_(ours.w_o.weight)
        ref.out_proj.bias.copy_(ours.w_o.bias)


def copy_ffn_and_norms(ours, ref, norms) -> None:
    with torch.no_grad():
        ref.linear1.weight.copy_(ours.ffn.w_1.weight)
        ref.linear1.bias.copy_(ours.ffn.w_1.bias)
        ref.linear2.weight.copy_(ours.ffn.w_2.weight)
        ref.linear2.bias.copy_(ours.ffn.w_2.bias)
        for name in norms:
            getattr(ref, name).load_state_dict(getattr(ours, name).state_dict())


def test_multi_head_attention_matches_torch_per_head():
    torch.manual_seed(0)
    ours = MultiHeadAttention(D, H).eval()
    hooks.name_hook_points(ours)  # a lone module: names are its own attribute names
    ref = nn.MultiheadAttention(D, H, batch_first=True).eval()
    copy_attention(ours, ref)
    x_q, x_kv = torch.randn(2, 5, D), torch.randn(2, 7, D)
    ids = torch.tensor([[5] * 7, [5] * 4 + [0] * 3])
    allowed = masks.padding_mask(ids, 0)  # (B, 1, 1, S)
    # PyTorch's key_padding_mask marks what is *blocked*: the opposite of ours.
    ref_out, ref_w = ref(x_q, x_kv, x_kv, key_padding_mask=~allowed[:, 0, 0], average_attn_weights=False)
    with hooks.record() as rec:
        traced = ours(x_q, x_kv, allowed)
    fast = ours(x_q, x_kv, allowed)
    torch.testing.assert_close(traced, ref_out, atol=ATOL, rtol=0)
    torch.testing.assert_close(fast, ref_out, atol=ATOL, rtol=0)
    torch.testing.assert_close(rec["hook_pattern"], ref_w, atol=ATOL, rtol=0)


def test_encoder_layer_matches_torch():
    torch.manual_seed(0)
    ours = EncoderLayer(D, H, F, dropout=0.0).eval()
    ref = nn.TransformerEncoderLayer(
        D, H, F, dropout=0.0, activation="relu", batch_first=True, norm_first=False
    ).eval()
    copy_attention(ours.self_attn, ref.self_attn)
    copy_ffn_and_norms(ours, ref, ["norm1", "norm2"])
    x = torch.randn(2, 6, D)
    ids = torch.tensor([[7] * 6, [7] * 3 + [0] * 3])
    expected = ref(x, src_key_padding_mask=(ids == 0))
    actual = ours(x, masks.padding_mask(ids, 0))
    # Rows at padded positions are garbage in both (and PyTorch's fast path may zero them).
    keep = ids != 0
    torch.testing.assert_close(actual[keep], expected[keep], atol=ATOL, rtol=0)


def test_decoder_layer_matches_torch():
    torch.manual_seed(0)
    ours = DecoderLayer(D, H, F, dropout=0.0).eval()
    ref = nn.TransformerDecoderLayer(
        D, H, F, dropout=0.0, activation="relu", batch_first=True, norm_first=False
    ).eval()
    copy_attention(ours.self_attn, ref.self_attn)
    copy_attention(ours.cross_attn, ref.multihead_attn)
    copy_ffn_and_norms(ours, ref, ["norm1", "norm2", "norm3"])
    y, memory = torch.randn(2, 5, D), torch.randn(2, 6, D)
    src = torch.tensor([[7] * 6, [7] * 4 + [0] * 2])
    tgt = torch.full((2, 5), 9)
    causal_blocked = ~masks.causal_mask(5)[0, 0]  # PyTorch: True = blocked
    expected = ref(y, memory, tgt_mask=causal_blocked, memory_key_padding_mask=(src == 0))
    actual = ours(y, memory, masks.target_mask(tgt, 0), masks.padding_mask(src, 0))
    torch.testing.assert_close(actual, expected, atol=ATOL, rtol=0)
