"""Turning the model into translations: greedy decoding and beam search (paper §6.1).

The paper used beam size 4 and length penalty α = 0.6, with a maximum output length of input
length + 50, stopping early when possible. The length penalty is the one of Wu et al. (2016):
    lp(Y) = ((5 + |Y|) / 6) ** α,  score(Y) = log P(Y | X) / lp(Y)

Shapes: S source positions, T target positions so far, D = d_model, V vocabulary, W beam width.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from transformer.model import Transformer


@dataclass(frozen=True)
class Hypothesis:
    """One finished (or cut-off) translation: target ids without BOS/EOS, and its scores."""

    ids: list[int]
    log_prob: float  # sum of log-probabilities, EOS included when it was produced
    score: float  # log_prob divided by the length penalty
    finished: bool  # True when the model produced EOS


def length_penalty(length: int, alpha: float) -> float:
    return ((5.0 + length) / 6.0) ** alpha


def default_max_len(model: Transformer, src_len: int) -> int:
    """The paper's limit (input length + 50), capped by the positional-encoding table."""
    # DEVIATION: the cap at max_len - 1 positions; the paper's model had no fixed table limit here.
    return min(src_len + 50, model.config.max_len - 1)


def _as_batch(model: Transformer, src_ids: list[int] | torch.Tensor) -> torch.Tensor:
    src = torch.as_tensor(src_ids, dtype=torch.long, device=model.device)
    if src.dim() != 1 or src.numel() == 0:
        raise ValueError("src_ids must be a non-empty 1-D sequence of token ids")
    return src[None]  # (1, S)


@torch.no_grad()
def greedy_decode(
    model: Transformer, src_ids: list[int] | torch.Tensor, max_len: int | None = None
) -> Hypothesis:
    """Pick the most probable next token at every step until EOS or `max_len` tokens."""
    cfg = model.config
    src = _as_batch(model, src_ids)  # (1, S)
    max_len = default_max_len(model, src.size(1)) if max_len is None else max_len
    src_allowed = model.src_allowed(src)
    memory = model.encode(src, src_allowed)  # (1, S, D)
    tgt = torch.tensor([[cfg.bos_id]], device=model.device)  # (1, 1)
    log_prob, finished = 0.0, False
    for _ in range(max_len):
        logits = model.decode(tgt, memory, src_allowed)[0, -1]  # (V,)
        log_probs = logits.float().log_softmax(-1)
        next_id = int(log_probs.argmax())
        log_prob += float(log_probs[next_id])
        if next_id == cfg.eos_id:
            finished = True
            break
        tgt = torch.cat([tgt, tgt.new_tensor([[next_id]])], dim=1)  # (1, T+1)
    ids = tgt[0, 1:].tolist()
    return Hypothesis(ids, log_prob, log_prob, finished)


@torch.no_grad()
def beam_search(
    model: Transformer,
    src_ids: list[int] | torch.Tensor,
    beam_size: int = 4,
    alpha: float = 0.6,
    max_len: int | None = None,
) -> list[Hypothesis]:
    """Keep the `beam_size` best prefixes at each step; return finished hypotheses, best first.

    A hypothesis ends when it produces EOS. Search stops once `beam_size` hypotheses have ended
    (so beam size 1 is exactly greedy decoding), or at `max_len`.
    """
    if beam_size < 1:
        raise ValueError("beam_size must be at least 1")
    cfg = model.config
    src = _as_batch(model, src_ids)  # (1, S)
    max_len = default_max_len(model, src.size(1)) if max_len is None else max_len
    src_allowed = model.src_allowed(src)  # (1, 1, 1, S)
    memory = model.encode(src, src_allowed)  # (1, S, D)
    prefixes = torch.full((1, 1), cfg.bos_id, device=model.device)  # (W, T), W = 1 at first
    prefix_lp = torch.zeros(1, device=model.device)  # (W,)
    finished: list[Hypothesis] = []
    for step in range(1, max_len + 1):
        w = prefixes.size(0)
        logits = model.decode(prefixes, memory.expand(w, -1, -1), src_allowed.expand(w, -1, -1, -1))[
            :, -1
        ]  # (W, V)
        cand_lp = prefix_lp[:, None] + logits.float().log_softmax(-1)  # (W, V)
        top_lp, top_idx = cand_lp.flatten().topk(min(2 * beam_size, cand_lp.numel()))
        next_prefixes, next_lp = [], []
        for lp, flat in zip(top_lp.tolist(), top_idx.tolist(), strict=True):
            row, token = divmod(flat, cand_lp.size(1))
            if token == cfg.eos_id:
                ids = prefixes[row, 1:].tolist()
                finished.append(Hypothesis(ids, lp, lp / length_penalty(step, alpha), True))
            else:
                next_prefixes.append(torch.cat([prefixes[row], prefixes.new_tensor([token])]))
                next_lp.append(lp)
            if len(next_prefixes) == beam_size:
                break
        finished.sort(key=lambda h: h.score, reverse=True)
        if len(finished) >= beam_size or not next_prefixes:
            finished = finished[:beam_size]
            break
        prefixes = torch.stack(next_prefixes)  # (W, T+1)
        prefix_lp = torch.tensor(next_lp, device=model.device)
    if not finished:  # hit max_len with nothing ended: return the live prefixes, marked unfinished
        for row, lp in enumerate(prefix_lp.tolist()):
            ids = prefixes[row, 1:].tolist()
            finished.append(Hypothesis(ids, lp, lp / length_penalty(len(ids), alpha), False))
        finished.sort(key=lambda h: h.score, reverse=True)
    return finished[:beam_size]
