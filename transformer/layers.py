"""Encoder and decoder layers (paper §3.1, §3.3, Figure 1).

Every sub-layer is wrapped post-norm, as in the paper: LayerNorm(x + Dropout(Sublayer(x))).
(The "Why these choices?" ablations may drop the residual, move the norm before the sub-layer,
x + Dropout(Sublayer(LayerNorm(x))), or drop it: `TransformerConfig.residual` and `.norm`.)

    FFN(x) = max(0, x W_1 + b_1) W_2 + b_2      (Marian's checkpoints: SiLU(x W_1 + b_1) W_2 + b_2)

Shapes: B batch, S source positions, T target positions, D = d_model, F = d_ff.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from transformer.attention import MultiHeadAttention
from transformer.config import TransformerConfig
from transformer.hooks import HookPoint

PAPER = TransformerConfig(vocab_size=4, d_model=2, n_heads=1)  # only its ablation switches are read


def sublayer_connection(x, sublayer, norm, dropout, hook_resid, hook_norm, config: TransformerConfig):
    """The paper's LayerNorm(x + Dropout(Sublayer(x))), or an ablation's wrapper (config.norm/residual)."""
    keep = x if config.residual else 0.0
    if config.norm == "pre":
        return hook_resid(keep + dropout(sublayer(hook_norm(norm(x)))))
    y = hook_resid(keep + dropout(sublayer(x)))  # (B, T, D)
    return hook_norm(norm(y)) if config.norm == "post" else y


class FeedForward(nn.Module):
    """Position-wise two-layer network with a ReLU (or, for Marian's checkpoints, a SiLU) between."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu") -> None:
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        # DEVIATION: "silu" (x·σ(x), Marian's "swish") only for imported checkpoints; the paper's is ReLU.
        self.activation = {"relu": torch.relu, "silu": F.silu}[activation]
        self.hook_hidden = HookPoint()  # (B, T, F) after the activation
        self.hook_out = HookPoint()  # (B, T, D)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.hook_hidden(self.activation(self.w_1(x)))  # (B, T, F)
        return self.hook_out(self.w_2(hidden))  # (B, T, D)


class EncoderLayer(nn.Module):
    """Self-attention, then the feed-forward network; each in a residual + LayerNorm wrapper."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float, activation: str = "relu",
        switches: TransformerConfig = PAPER,
    ):  # fmt: skip
        super().__init__()
        self.switches = switches  # the ablation switches (residual, norm, scaling, key size)
        self.self_attn = MultiHeadAttention(d_model, n_heads, switches.key_size, switches.scale_scores)
        self.ffn = FeedForward(d_model, d_ff, activation)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.hook_resid_attn = HookPoint()  # (B, S, D) x + attention, before norm1
        self.hook_norm1 = HookPoint()  # (B, S, D)
        self.hook_resid_ffn = HookPoint()  # (B, S, D) x + FFN, before norm2
        self.hook_norm2 = HookPoint()  # (B, S, D) the layer's output

    def forward(self, x: torch.Tensor, src_allowed: torch.Tensor) -> torch.Tensor:
        wrap, drop = self.switches, self.dropout
        attend = lambda h: self.self_attn(h, h, src_allowed)  # (B, S, D)
        x = sublayer_connection(x, attend, self.norm1, drop, self.hook_resid_attn, self.hook_norm1, wrap)
        return sublayer_connection(x, self.ffn, self.norm2, drop, self.hook_resid_ffn, self.hook_norm2, wrap)


class DecoderLayer(nn.Module):
    """Masked self-attention, encoder-decoder (cross) attention, then the feed-forward network."""

    def __init__(
        self, d_model: int, n_heads: int, d_ff: int, dropout: float, activation: str = "relu",
        switches: TransformerConfig = PAPER,
    ):  # fmt: skip
        super().__init__()
        self.switches = switches
        self.self_attn = MultiHeadAttention(d_model, n_heads, switches.key_size, switches.scale_scores)
        self.cross_attn = MultiHeadAttention(d_model, n_heads, switches.key_size, switches.scale_scores)
        self.ffn = FeedForward(d_model, d_ff, activation)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.hook_resid_self = HookPoint()  # (B, T, D) x + masked self-attention
        self.hook_norm1 = HookPoint()
        self.hook_resid_cross = HookPoint()  # (B, T, D) x + cross-attention
        self.hook_norm2 = HookPoint()
        self.hook_resid_ffn = HookPoint()  # (B, T, D) x + FFN
        self.hook_norm3 = HookPoint()  # (B, T, D) the layer's output

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        tgt_allowed: torch.Tensor,
        src_allowed: torch.Tensor,
    ) -> torch.Tensor:
        """x: (B, T, D) target side; memory: (B, S, D) encoder output. Returns (B, T, D)."""
        wrap, drop = self.switches, self.dropout
        attend = lambda h: self.self_attn(h, h, tgt_allowed)  # (B, T, D)
        x = sublayer_connection(x, attend, self.norm1, drop, self.hook_resid_self, self.hook_norm1, wrap)
        # Queries from the decoder, keys and values from the encoder output (§3.2.3).
        cross = lambda h: self.cross_attn(h, memory, src_allowed)  # (B, T, D)
        x = sublayer_connection(x, cross, self.norm2, drop, self.hook_resid_cross, self.hook_norm2, wrap)
        return sublayer_connection(x, self.ffn, self.norm3, drop, self.hook_resid_ffn, self.hook_norm3, wrap)
