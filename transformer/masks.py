"""Attention masks (paper §3.2.3). One convention everywhere: `allowed[..., q, k]` is True when
query position q may attend to key position k. Blocked scores become -inf before the softmax.

Shapes: B batch, T sequence length; masks broadcast against scores of shape (B, H, T_q, T_k).
"""

from __future__ import annotations

import torch


def padding_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Keys that are real tokens, not padding. ids: (B, T) -> allowed: (B, 1, 1, T)."""
    return (ids != pad_id)[:, None, None, :]


def causal_mask(size: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Position i may attend to positions <= i (no peeking ahead). -> allowed: (1, 1, T, T)."""
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()[None, None]


def target_mask(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Decoder self-attention: causal and not padding. ids: (B, T) -> allowed: (B, 1, T, T).

    Position 0 is the start token and never padding, even where it is the padding id itself (Marian's
    decoder starts from <pad>): every query may attend to it.
    """
    real = padding_mask(ids, pad_id).clone()  # (B, 1, 1, T)
    real[..., 0] = True
    return real & causal_mask(ids.size(1), ids.device)
