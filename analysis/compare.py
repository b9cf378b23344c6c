"""Comparing attention and predictions: two sentences, or one model before and after a head is
switched off (paper §6: the head inspector's difference map and ablation).

Two sentences are compared on the pieces they share, matched in order (longest matching blocks),
so "it was too tired." and "it was too wide." line up on everything but the last word. An ablation
is measured by the log-probability of the same target under teacher forcing, before and after.

Shapes: T positions, M matched pieces, V vocabulary.
"""

from __future__ import annotations

import difflib

import torch

from transformer import hooks
from transformer.trace import attn_hook


def align_pieces(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Positions (i in a, j in b) holding the same piece, in order (longest matching blocks)."""
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(block.a + k, block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]


def aligned_difference(pattern_a: torch.Tensor, pattern_b: torch.Tensor,
                       pairs: list[tuple[int, int]]) -> torch.Tensor:
    """A − B on the matched tokens only: (M, M) for M pairs, rows = queries, columns = keys.

    pattern_a: (T_a, T_a), pattern_b: (T_b, T_b) self-attention weights of one head.
    """
    ia = torch.tensor([i for i, _ in pairs], dtype=torch.long)
    ib = torch.tensor([j for _, j in pairs], dtype=torch.long)
    return pattern_a[ia][:, ia].double() - pattern_b[ib][:, ib].double()  # (M, M)


def top_k_union(before: torch.Tensor, after: torch.Tensor, k: int = 8) -> list[int]:
    """Ids among the k most probable in `before` or in `after` ((V,) each), by the larger probability."""
    ids = set(before.topk(k).indices.tolist()) | set(after.topk(k).indices.tolist())
    return sorted(ids, key=lambda i: -max(float(before[i]), float(after[i])))


def sequence_log_prob(probs: torch.Tensor, target_ids: list[int]) -> float:
    """log P(target) under teacher forcing: probs (T, V) row t predicts target_ids[t]."""
    if probs.size(0) != len(target_ids):
        raise ValueError(f"{probs.size(0)} positions but {len(target_ids)} targets")
    rows = torch.arange(len(target_ids))
    return float(probs.double()[rows, torch.tensor(target_ids)].clamp_min(1e-300).log().sum())


def unmatched(pieces: list[str], matched: list[int]) -> list[str]:
    """The pieces whose positions are not in `matched` (what a difference map has to leave out)."""
    taken = set(matched)
    return [piece for i, piece in enumerate(pieces) if i not in taken]


def head_ablation(heads: tuple) -> dict[str, hooks.Edit]:
    """Hook edits that zero the chosen heads' outputs (hook_z) before concatenation and W^O."""
    by_name: dict[str, list[int]] = {}
    for stack, kind, layer, head in heads:
        by_name.setdefault(attn_hook(stack, kind, layer, "z"), []).append(head)

    def zero(heads_to_zero: list[int]):
        def edit(z: torch.Tensor) -> torch.Tensor:  # z: (B, H, T, K)
            z = z.clone()
            z[:, heads_to_zero] = 0.0
            return z

        return edit

    return {name: zero(hs) for name, hs in by_name.items()}
