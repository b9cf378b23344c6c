"""Footnote 4 of §3.2.1, measured: why the scores are divided by √d_k.

If the components of q and k are independent with mean 0 and variance 1, then q·k = Σ q_i k_i has
mean 0 and variance d_k. Large dot products push the softmax towards one-hot weights, where its
gradient is tiny; dividing by √d_k brings the variance back to 1 whatever d_k is.

    scores = q Kᵀ          (unscaled)     scores = q Kᵀ / √d_k     (scaled)
    J = diag(p) - p pᵀ     the softmax's Jacobian; ‖J‖ shrinks to 0 as p becomes one-hot

Shapes: N queries, M keys, K = d_k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class SoftmaxStats:
    """Means over N random queries of one kind of score (unscaled or scaled)."""

    variance: float  # of the scores q·k (or q·k / √d_k)
    entropy: float  # of each softmax row, in nats (log M = uniform)
    max_weight: float  # largest weight of each row (1 = all on one key)
    gradient: float  # Frobenius norm of each row's Jacobian diag(p) - p pᵀ
    weights: list[float]  # the first query's softmax row, to draw


def entropy(p: torch.Tensor) -> torch.Tensor:
    """Entropy in nats of each softmax row: (..., M) -> (...)."""
    return -(p * p.clamp_min(1e-30).log()).sum(-1)


def softmax_gradient(p: torch.Tensor) -> torch.Tensor:
    """Frobenius norm of each row's Jacobian diag(p) - p pᵀ: (..., M) -> (...). It goes to 0 as the
    row becomes one-hot."""
    sq = p.pow(2).sum(-1)
    # ‖diag(p) - p pᵀ‖²_F = Σ p_i² - 2 Σ p_i³ + (Σ p_i²)²
    return (sq - 2 * p.pow(3).sum(-1) + sq.pow(2)).clamp_min(0).sqrt()


def _stats(scores: torch.Tensor) -> SoftmaxStats:
    p = scores.softmax(-1)  # (N, M)
    return SoftmaxStats(
        variance=float(scores.var()),
        entropy=float(entropy(p).mean()),
        max_weight=float(p.max(-1).values.mean()),
        gradient=float(softmax_gradient(p).mean()),
        weights=[float(w) for w in p[0]],
    )


def dot_products(d_k: int, n_keys: int = 10, n_queries: int = 500, seed: int = 0) -> dict[str, SoftmaxStats]:
    """{'unscaled': ..., 'scaled': ...} for N random unit-variance queries, each with M keys of its own."""
    if not 1 <= d_k <= 4096 or n_keys < 2 or n_queries < 2:
        raise ValueError("need 1 ≤ d_k ≤ 4096, at least 2 keys and 2 queries")
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n_queries, 1, d_k, generator=g)  # (N, 1, K)
    k = torch.randn(n_queries, n_keys, d_k, generator=g)  # (N, M, K)
    scores = (q * k).sum(-1).double()  # (N, M), variance ≈ d_k
    return {"unscaled": _stats(scores), "scaled": _stats(scores / math.sqrt(d_k))}
