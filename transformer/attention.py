"""Scaled dot-product attention and multi-head attention (paper §3.2.1-§3.2.2, Figure 2).

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V,   MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O + b^O
    head_i = Attention(Q W_i^Q + b_i^Q, K W_i^K + b_i^K, V W_i^V + b_i^V)     (the biases: DEVIATION below)

Shapes: B batch, H heads, T_q query positions, T_k key positions, D = d_model, K = d_k = D / H.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from transformer import hooks
from transformer.hooks import HookPoint


def scaled_dot_product_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Plain, unhooked attention for any leading shape: (..., T_q, K) -> (output, weights).

    `allowed` broadcasts to (..., T_q, T_k); blocked scores become -inf so they get weight 0.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., T_q, T_k)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = scores.softmax(dim=-1)  # (..., T_q, T_k)
    return weights @ v, weights  # (..., T_q, K), (..., T_q, T_k)


class MultiHeadAttention(nn.Module):
    """h parallel attention heads with their own projections, concatenated and mixed by W^O."""

    def __init__(self, d_model: int, n_heads: int, d_qk: int | None = None, scale: bool = True) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.d_k = d_model // n_heads  # d_v, the width of each head's values and output
        # Ablations only (Table 3 row B; footnote 4): narrower queries and keys, or no 1/√d_k.
        self.d_qk = d_qk or self.d_k
        self.scale = scale
        # DEVIATION: every projection adds a bias (the paper writes X W alone), as nn.MultiheadAttention and
        # Marian do. One (D, D) matrix per role holds the h per-head (D, K) projections side by side.
        self.w_q = nn.Linear(d_model, n_heads * self.d_qk)
        self.w_k = nn.Linear(d_model, n_heads * self.d_qk)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.hook_q = HookPoint()  # (B, H, T_q, K)
        self.hook_k = HookPoint()  # (B, H, T_k, K)
        self.hook_v = HookPoint()  # (B, H, T_k, K)
        self.hook_qk = HookPoint()  # (B, H, T_q, T_k) raw Q Kᵀ
        self.hook_scores = HookPoint()  # (B, H, T_q, T_k) Q Kᵀ / √d_k
        self.hook_mask = HookPoint()  # (B, 1, T_q, T_k) bool, True = may attend
        self.hook_masked_scores = HookPoint()  # (B, H, T_q, T_k) -inf where blocked
        self.hook_pattern = HookPoint()  # (B, H, T_q, T_k) softmax weights
        self.hook_z = HookPoint()  # (B, H, T_q, K) weights · V, one output per head
        self.hook_concat = HookPoint()  # (B, T_q, D) heads side by side
        self.hook_out = HookPoint()  # (B, T_q, D) after W^O

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        b, t, width = x.shape
        return x.view(b, t, self.n_heads, width // self.n_heads).transpose(1, 2)  # (B, H, T, K)

    def merge_heads(self, z: torch.Tensor) -> torch.Tensor:
        b, _, t, _ = z.shape
        return z.transpose(1, 2).reshape(b, t, self.n_heads * self.d_k)  # (B, T, D)

    def forward(self, x_q: torch.Tensor, x_kv: torch.Tensor, allowed: torch.Tensor | None) -> torch.Tensor:
        """x_q: (B, T_q, D) queries come from here; x_kv: (B, T_k, D) keys and values from here.

        allowed: bool, broadcastable to (B, 1, T_q, T_k). Returns (B, T_q, D).
        """
        q = self.hook_q(self.split_heads(self.w_q(x_q)))  # (B, H, T_q, K)
        k = self.hook_k(self.split_heads(self.w_k(x_kv)))  # (B, H, T_k, K)
        v = self.hook_v(self.split_heads(self.w_v(x_kv)))  # (B, H, T_k, K)
        if hooks.active():
            z = self._explicit(q, k, v, allowed)
        else:
            # Nothing is watching: the fused kernel computes the same softmax(QKᵀ/√d_k)V faster.
            scale = None if self.scale else 1.0  # None: the kernel's own 1/√d_k
            z = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed, scale=scale)  # (B, H, T_q, K)
        concat = self.hook_concat(self.merge_heads(z))  # (B, T_q, D)
        return self.hook_out(self.w_o(concat))  # (B, T_q, D)

    def _explicit(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor | None
    ) -> torch.Tensor:
        """The same attention one named step at a time, so each step can be recorded or edited."""
        qk = self.hook_qk(q @ k.transpose(-2, -1))  # (B, H, T_q, T_k)
        scores = self.hook_scores(qk / math.sqrt(self.d_qk) if self.scale else qk)  # (B, H, T_q, T_k)
        if allowed is None:
            allowed = torch.ones(1, 1, 1, 1, dtype=torch.bool, device=q.device)
        b, _, t_q, t_k = scores.shape
        allowed = self.hook_mask(allowed.expand(b, 1, t_q, t_k))  # (B, 1, T_q, T_k)
        masked = self.hook_masked_scores(torch.where(allowed, scores, float("-inf")))
        pattern = self.hook_pattern(masked.softmax(dim=-1))  # (B, H, T_q, T_k)
        return self.hook_z(pattern @ v)  # (B, H, T_q, K)
