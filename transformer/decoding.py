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


def _next_token_logits(
    model: Transformer, tgt: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor
) -> torch.Tensor:
    """Logits for the token after the last target position only: (B, T) -> (B, V).

    Padding and the start token are never a next token: their logits are -inf, so no decoder can emit
    them (an untrained or badly trained model otherwise can).
    """
    logits = model.decode(tgt, memory, src_allowed, last_only=True)[:, -1]  # (B, V)
    never = torch.tensor(sorted({model.config.pad_id, model.config.start_id}), device=logits.device)
    return logits.index_fill(-1, never, float("-inf"))


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
    tgt = torch.tensor([[cfg.start_id]], device=model.device)  # (1, 1)
    log_prob, finished = 0.0, False
    for _ in range(max_len):
        logits = _next_token_logits(model, tgt, memory, src_allowed)[0]  # (V,)
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
    prefixes = torch.full((1, 1), cfg.start_id, device=model.device)  # (W, T), W = 1 at first
    prefix_lp = torch.zeros(1, device=model.device)  # (W,)
    finished: list[Hypothesis] = []
    for step in range(1, max_len + 1):
        w = prefixes.size(0)
        logits = _next_token_logits(
            model, prefixes, memory.expand(w, -1, -1), src_allowed.expand(w, -1, -1, -1)
        )  # (W, V)
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


# ---- batches of sentences (evaluation, validation during training) ------------------------------


def _encode_batch(model: Transformer, sources: list[list[int]]):
    """Pad and encode sources: -> src_allowed (B, 1, 1, S), memory (B, S, D)."""
    if not sources or any(len(s) == 0 for s in sources):
        raise ValueError("sources must be non-empty id lists")
    cfg = model.config
    src = torch.full(
        (len(sources), max(map(len, sources))), cfg.pad_id, dtype=torch.long, device=model.device
    )
    for row, ids in enumerate(sources):
        src[row, : len(ids)] = torch.as_tensor(ids, device=model.device)  # (B, S)
    src_allowed = model.src_allowed(src)  # (B, 1, 1, S)
    return src_allowed, model.encode(src, src_allowed)  # (B, S, D)


def _limits(model: Transformer, sources: list[list[int]], max_len: int | None) -> list[int]:
    return [default_max_len(model, len(s)) if max_len is None else max_len for s in sources]


@torch.no_grad()
def greedy_decode_batch(
    model: Transformer, sources: list[list[int]], max_len: int | None = None
) -> list[Hypothesis]:
    """Greedy decoding of several sources at once; the same result as `greedy_decode` on each.

    Each source is a non-empty id list ending in EOS. A sentence stops at EOS or at its own
    maximum length (`max_len`, or the paper's input length + 50) and leaves the batch, so the
    decoder only ever runs on sentences still going (all of the same length: no target padding).
    """
    cfg, device = model.config, model.device
    src_allowed, memory = _encode_batch(model, sources)  # (B, 1, 1, S), (B, S, D)
    limits = _limits(model, sources, max_len)
    ids: list[list[int]] = [[] for _ in sources]
    log_prob = [0.0] * len(sources)
    finished = [False] * len(sources)
    rows = torch.tensor([i for i, limit in enumerate(limits) if limit > 0], dtype=torch.long)  # (R,) going
    tgt = torch.full((len(rows), 1), cfg.start_id, dtype=torch.long, device=device)  # (R, T)
    step = 0
    while len(rows):
        step += 1
        index = rows.to(device)
        log_probs = _next_token_logits(model, tgt, memory[index], src_allowed[index]).float().log_softmax(-1)
        best_lp, next_id = log_probs.max(-1)  # (R,), (R,)
        keep = []
        for j, (row, lp, token) in enumerate(
            zip(rows.tolist(), best_lp.tolist(), next_id.tolist(), strict=True)
        ):
            log_prob[row] += lp
            if token == cfg.eos_id:
                finished[row] = True
                continue
            ids[row].append(token)
            if step < limits[row]:
                keep.append(j)
        keep_t = torch.tensor(keep, dtype=torch.long)
        rows = rows[keep_t]
        keep_t = keep_t.to(device)
        tgt = torch.cat([tgt[keep_t], next_id[keep_t, None]], dim=1)  # (R', T+1)
    return [Hypothesis(i, lp, lp, f) for i, lp, f in zip(ids, log_prob, finished, strict=True)]


def _choose(cand_lp: torch.Tensor, beam_size: int, eos_id: int):
    """One sentence's beam step, as in `beam_search`: walk the 2W best (row, token) candidates
    (cand_lp: (W, V)) best first; EOS ends a hypothesis, others extend it, until W are extended.

    Returns ended [(row, log_prob)], and rows, tokens, log_probs of the extended prefixes.
    """
    top_lp, top_idx = cand_lp.flatten().topk(min(2 * beam_size, cand_lp.numel()))
    ended, rows, tokens, lps = [], [], [], []
    for lp, flat in zip(top_lp.tolist(), top_idx.tolist(), strict=True):
        row, token = divmod(flat, cand_lp.size(1))
        if token == eos_id:
            ended.append((row, lp))
        else:
            rows.append(row)
            tokens.append(token)
            lps.append(lp)
        if len(rows) == beam_size:
            break
    return ended, rows, tokens, lps


@torch.no_grad()
def beam_search_batch(
    model: Transformer,
    sources: list[list[int]],
    beam_size: int = 4,
    alpha: float = 0.6,
    max_len: int | None = None,
) -> list[list[Hypothesis]]:
    """`transformer.decoding.beam_search` for several sources at once, with the same results.

    The live prefixes of every sentence go through the decoder together (one call per step
    instead of one per sentence and step); choosing, finishing and stopping follow `beam_search`
    rule for rule, sentence by sentence. Returns each sentence's hypotheses, best first.
    """
    if beam_size < 1:
        raise ValueError("beam_size must be at least 1")
    cfg, device = model.config, model.device
    src_allowed, memory = _encode_batch(model, sources)  # (B, 1, 1, S), (B, S, D)
    limits = _limits(model, sources, max_len)
    results: list[list[Hypothesis] | None] = [None] * len(sources)
    finished: list[list[Hypothesis]] = [[] for _ in sources]
    # Live prefixes of all unfinished sentences, R rows, each sentence's rows kept together.
    owner = [i for i, limit in enumerate(limits) if limit > 0]  # (R,) sentence of each row
    for i, limit in enumerate(limits):
        if limit <= 0:
            results[i] = [Hypothesis([], 0.0, 0.0, False)]
    prefixes = torch.full((len(owner), 1), cfg.start_id, dtype=torch.long, device=device)  # (R, T)
    prefix_lp = torch.zeros(len(owner), device=device)  # (R,)
    step = 0
    while owner:
        step += 1
        rows = torch.tensor(owner, device=device)
        logits = _next_token_logits(model, prefixes, memory[rows], src_allowed[rows])  # (R, V)
        cand_lp = (prefix_lp[:, None] + logits.float().log_softmax(-1)).cpu()  # (R, V)
        keep_rows, keep_tokens, keep_lp, keep_owner = [], [], [], []
        start = 0
        while start < len(owner):
            sent = owner[start]
            end = start
            while end < len(owner) and owner[end] == sent:
                end += 1
            ended, nxt_rows, nxt_tokens, nxt_lp = _choose(cand_lp[start:end], beam_size, cfg.eos_id)
            for row, lp in ended:
                ids = prefixes[start + row, 1:].tolist()
                finished[sent].append(Hypothesis(ids, lp, lp / length_penalty(step, alpha), True))
            nxt_rows = [start + row for row in nxt_rows]
            finished[sent].sort(key=lambda h: h.score, reverse=True)
            if len(finished[sent]) >= beam_size or not nxt_rows:
                results[sent] = finished[sent][:beam_size]
            elif step >= limits[sent]:
                if finished[sent]:
                    results[sent] = finished[sent][:beam_size]
                else:  # nothing ended within max_len: the live prefixes, marked unfinished
                    live = [prefixes[r, 1:].tolist() + [t] for r, t in zip(nxt_rows, nxt_tokens, strict=True)]
                    hyps = [
                        Hypothesis(ids, lp, lp / length_penalty(len(ids), alpha), False)
                        for ids, lp in zip(live, nxt_lp, strict=True)
                    ]
                    results[sent] = sorted(hyps, key=lambda h: h.score, reverse=True)[:beam_size]
            else:
                keep_rows += nxt_rows
                keep_tokens += nxt_tokens
                keep_lp += nxt_lp
                keep_owner += [sent] * len(nxt_rows)
            start = end
        owner = keep_owner
        index = torch.tensor(keep_rows, dtype=torch.long, device=device)
        tokens = torch.tensor(keep_tokens, dtype=torch.long, device=device)
        prefixes = torch.cat([prefixes[index], tokens[:, None]], dim=1)  # (R', T+1)
        prefix_lp = torch.tensor(keep_lp, device=device)
    return results  # type: ignore[return-value]


def _by_length(decode, sources: list[list[int]], batch_size: int) -> list:
    """Run `decode` on batches of similar-length sources; results in input order."""
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    out: list = [None] * len(sources)
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        for i, result in zip(chunk, decode([sources[i] for i in chunk]), strict=True):
            out[i] = result
    return out


def greedy_translate(model: Transformer, sources: list[list[int]], batch_size: int = 64) -> list[Hypothesis]:
    """Greedy hypotheses of any number of sources, in input order."""
    return _by_length(lambda chunk: greedy_decode_batch(model, chunk), sources, batch_size)


def beam_translate(
    model: Transformer, sources: list[list[int]], beam_size: int, alpha: float, batch_size: int = 16
) -> list[Hypothesis]:
    """The best beam-search hypothesis of each source, in input order."""
    decode = lambda chunk: [h[0] for h in beam_search_batch(model, chunk, beam_size, alpha)]
    return _by_length(decode, sources, batch_size)
