"""Attention through several heads and layers (Abnar & Zuidema, 2020, "attention rollout").

A layer's heads are averaged, the residual connection added as an identity,
Â = 0.5·A + 0.5·I (rows renormalised), and the layers multiplied: R_l = Â_l · R_{l−1}. Row i of
R_l says how much each input position reaches position i after l+1 layers; rows still sum to 1.

Shapes: L layers, H heads, T positions (self-attention: queries and keys are the same tokens).
"""

from __future__ import annotations

import torch


def mean_over_heads(patterns: torch.Tensor) -> torch.Tensor:
    """(..., H, T_q, T_k) -> (..., T_q, T_k): every head weighted equally; rows still sum to 1."""
    return patterns.mean(dim=-3)


def rollout(layer_patterns: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """Attention rollout through the layers of one self-attention stack.

    Args:
        layer_patterns: (L, H, T, T) softmax weights of every layer.
        residual: weight of the identity standing for the residual connection (0.5 as in Abnar &
            Zuidema); 0 multiplies the raw head means.
    Returns:
        (L, T, T): entry l is the rollout up to and including layer l; every row sums to 1.
    """
    if layer_patterns.dim() != 4 or layer_patterns.size(-1) != layer_patterns.size(-2):
        raise ValueError(f"rollout needs (L, H, T, T) self-attention, got {tuple(layer_patterns.shape)}")
    a = mean_over_heads(layer_patterns.double())  # (L, T, T)
    eye = torch.eye(a.size(-1), dtype=a.dtype)
    a = residual * eye + (1.0 - residual) * a
    a = a / a.sum(-1, keepdim=True)  # renormalise: rows sum to 1 even if a head's row did not
    out = []
    current = eye
    for layer in a:  # (T, T)
        current = layer @ current  # (T, T)
        out.append(current)
    return torch.stack(out)  # (L, T, T)
