"""Token embeddings and sinusoidal positional encoding (paper §3.4 and §3.5).

    Embedding(x) = E[x] · √d_model          (E shared with the output projection, §3.4)
    PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
    PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))

(Marian's checkpoints hold the same numbers in another order: the D/2 sines first, then the D/2
cosines, `pe_layout="half_split"`.)

Shapes: B batch, T positions, D = d_model, V vocabulary.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from transformer.hooks import HookPoint


def sinusoidal_encoding(max_len: int, d_model: int, layout: str = "interleaved") -> torch.Tensor:
    """The PE table, (max_len, D), wavelengths 2π..10000·2π: sin on even dimensions, cos on odd ones
    ("interleaved", the paper's); or the sines in the first half, the cosines in the second ("half_split")."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]  # (T, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (D/2,)
    angle = pos / torch.pow(10000.0, two_i / d_model)  # (T, D/2)
    if layout == "half_split":
        # DEVIATION: Marian's layout (see TransformerConfig.pe_layout).
        return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1).float()  # (T, D)
    if layout != "interleaved":
        raise ValueError(f"unknown positional-encoding layout {layout!r}")
    pe = torch.empty(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle)
    return pe.float()


class Embeddings(nn.Module):
    """Look up token vectors and scale them by √d_model."""

    def __init__(self, vocab_size: int, d_model: int) -> None:
        super().__init__()
        self.d_model = d_model
        self.lut = nn.Embedding(vocab_size, d_model)
        self.hook_tokens = HookPoint()  # (B, T) token ids
        self.hook_embed = HookPoint()  # (B, T, D) raw rows of E
        self.hook_scaled = HookPoint()  # (B, T, D) rows × √d_model

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        ids = self.hook_tokens(ids)
        embed = self.hook_embed(self.lut(ids))  # (B, T, D)
        return self.hook_scaled(embed * math.sqrt(self.d_model))  # (B, T, D)


# Learned positions start as small as this (the sinusoids' own size is about 0.7 per dimension).
LEARNED_INIT_STD = 0.1


class PositionalEncoding(nn.Module):
    """Add the fixed sinusoidal position signal, then dropout (§5.4: on the sums).

    Ablations (`TransformerConfig.positions`): "learned" adds a trained (max_len, D) table instead
    (Table 3 row E); "none" adds zeros, so the model sees a bag of tokens (§3.5's reason for PE).
    """

    def __init__(
        self, d_model: int, max_len: int, dropout: float, layout: str = "interleaved",
        kind: str = "sinusoidal",
    ) -> None:  # fmt: skip
        super().__init__()
        self.kind = kind
        table = sinusoidal_encoding(max_len, d_model, layout)
        if kind == "learned":
            self.learned = nn.Parameter(torch.zeros(max_len, d_model))  # (max_len, D), saved with the weights
            self.reset_parameters()
        elif kind == "none":
            table = torch.zeros_like(table)
        # Not learned and not saved: rebuilt from the formula, so weights files stay small.
        self.register_buffer("pe", table, persistent=False)
        self.dropout = nn.Dropout(dropout)
        self.hook_pe = HookPoint(copy=True)  # (1, T, D), a slice of the buffer: recorded as a copy
        self.hook_sum = HookPoint()  # (B, T, D) embeddings + PE, before dropout

    def reset_parameters(self) -> None:
        if self.kind == "learned":
            nn.init.normal_(self.learned, std=LEARNED_INIT_STD)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = x.size(1)
        if t > self.pe.size(0):
            raise ValueError(f"sequence of {t} positions exceeds max_len={self.pe.size(0)}")
        table = self.learned if self.kind == "learned" else self.pe
        pe = self.hook_pe(table[None, :t])  # (1, T, D)
        return self.dropout(self.hook_sum(x + pe))  # (B, T, D)
