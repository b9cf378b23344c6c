"""The encoder-decoder Transformer of "Attention Is All You Need" (paper §3, Figure 1).

Source and target share one vocabulary, so one matrix E serves as source embedding, target
embedding and (transposed) pre-softmax projection (§3.4).

Shapes: B batch, S source positions, T target positions, D = d_model, V vocabulary.
"""

from __future__ import annotations

import torch
from torch import nn

from transformer import hooks, masks
from transformer.config import TransformerConfig
from transformer.embeddings import Embeddings, PositionalEncoding
from transformer.hooks import HookPoint
from transformer.layers import DecoderLayer, EncoderLayer

# Not specified by the paper, our choice: see Transformer.reset_parameters.
RESIDUAL_INIT_GAIN = 0.5
RESIDUAL_BRANCH = ("w_v", "w_o", "w_1", "w_2")


class Encoder(nn.Module):
    """A stack of N identical encoder layers (no final LayerNorm: each layer already ends in one)."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(config.d_model, config.n_heads, config.d_ff, config.dropout, config.activation,
                         switches=config)
            for _ in range(config.n_layers)
        )
        # Ablation only: a pre-LayerNorm stack normalises its output once at the end.
        self.final_norm = nn.LayerNorm(config.d_model) if config.norm == "pre" else None

    def forward(self, x: torch.Tensor, src_allowed: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, src_allowed)  # (B, S, D)
        return x if self.final_norm is None else self.final_norm(x)


class Decoder(nn.Module):
    """A stack of N identical decoder layers."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.layers = nn.ModuleList(
            DecoderLayer(config.d_model, config.n_heads, config.d_ff, config.dropout, config.activation,
                         switches=config)
            for _ in range(config.n_layers)
        )
        # Ablation only: a pre-LayerNorm stack normalises its output once at the end.
        self.final_norm = nn.LayerNorm(config.d_model) if config.norm == "pre" else None

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        tgt_allowed: torch.Tensor,
        src_allowed: torch.Tensor,
    ) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, memory, tgt_allowed, src_allowed)  # (B, T, D)
        return x if self.final_norm is None else self.final_norm(x)


class Generator(nn.Module):
    """Pre-softmax linear projection onto the vocabulary, its weight tied to the embeddings."""

    def __init__(self, embedding_weight: nn.Parameter, bias: bool = False) -> None:
        super().__init__()
        self.weight = embedding_weight  # (V, D), the very same Parameter as the embeddings
        # DEVIATION: a per-word output bias only for Marian's checkpoints (final_logits_bias).
        self.bias = nn.Parameter(torch.zeros(embedding_weight.size(0))) if bias else None  # (V,)
        self.hook_logits = HookPoint()  # (B, T, V)
        self.hook_probs = HookPoint()  # (B, T, V)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits = x @ self.weight.t()  # (B, T, V)
        if self.bias is not None:
            logits = logits + self.bias
        logits = self.hook_logits(logits)
        if hooks.active():
            self.hook_probs(logits.softmax(dim=-1))  # only computed when someone is looking
        return logits


class Transformer(nn.Module):
    """Encoder-decoder with shared embeddings; `forward` returns next-token logits."""

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config
        self.src_embed = Embeddings(config.vocab_size, config.d_model)
        self.tgt_embed = Embeddings(config.vocab_size, config.d_model)
        self.tgt_embed.lut.weight = self.src_embed.lut.weight  # one matrix, three uses (§3.4)
        pe_args = (config.d_model, config.max_len, config.dropout, config.pe_layout, config.positions)
        self.src_pos_enc = PositionalEncoding(*pe_args)
        self.tgt_pos_enc = PositionalEncoding(*pe_args)
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)
        self.generator = Generator(self.src_embed.lut.weight, config.logits_bias)
        self.reset_parameters()
        self.hook_names = hooks.name_hook_points(self)

    def reset_parameters(self, residual_gain: float = RESIDUAL_INIT_GAIN) -> None:
        """Draw fresh initial weights from the global RNG."""
        # The paper leaves initialisation open. Xavier for projections; embeddings with std
        # d_model^-0.5 so that after the ×√d_model scaling they have unit size, like the PE.
        # Projections writing into a residual branch (W^V, W^O, W_1, W_2) start `residual_gain` times
        # smaller: with gain 1, near-uniform attention in six post-LN layers gives encoder outputs a mean
        # cosine of ~0.95 before training (0.26 with 0.5), and the decoder learns to ignore the source.
        for name, p in self.named_parameters():
            if p.dim() > 1 and "lut" not in name and "pos_enc" not in name:
                residual = name.rsplit(".", 2)[-2] in RESIDUAL_BRANCH
                nn.init.xavier_uniform_(p, gain=residual_gain if residual else 1.0)
        nn.init.normal_(self.src_embed.lut.weight, mean=0.0, std=self.config.d_model**-0.5)
        for pos_enc in (self.src_pos_enc, self.tgt_pos_enc):
            pos_enc.reset_parameters()

    @property
    def device(self) -> torch.device:
        return self.src_embed.lut.weight.device

    def src_allowed(self, src: torch.Tensor) -> torch.Tensor:
        return masks.padding_mask(src, self.config.pad_id)  # (B, 1, 1, S)

    def encode(self, src: torch.Tensor, src_allowed: torch.Tensor | None = None) -> torch.Tensor:
        """src: (B, S) ids -> memory: (B, S, D)."""
        if src_allowed is None:
            src_allowed = self.src_allowed(src)
        x = self.src_pos_enc(self.src_embed(src))  # (B, S, D)
        return self.encoder(x, src_allowed)

    def decode(
        self, tgt: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor, last_only: bool = False
    ) -> torch.Tensor:
        """tgt: (B, T) ids (starting with config.start_id), memory: (B, S, D) -> logits (B, T, V).

        `last_only`: project only the last position onto the vocabulary -> (B, 1, V). A decoding
        step needs no more, and the (B, T, V) projection is a large share of a step on a CPU.
        """
        tgt_allowed = masks.target_mask(tgt, self.config.pad_id)  # (B, 1, T, T)
        y = self.tgt_pos_enc(self.tgt_embed(tgt))  # (B, T, D)
        h = self.decoder(y, memory, tgt_allowed, src_allowed)  # (B, T, D)
        return self.generator(h[:, -1:] if last_only else h)

    def forward(self, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
        """src: (B, S), tgt: (B, T) -> logits (B, T, V) for the token after each target position."""
        src_allowed = self.src_allowed(src)
        return self.decode(tgt, self.encode(src, src_allowed), src_allowed)
