"""Gold alignment of the numbers model: which source pieces each output piece should attend to.

The grammar records, for every German character, the English word it translates (`Example`). Here
that record is carried over to SentencePiece pieces: a source piece belongs to the English word
whose characters it covers, and a German piece's gold keys are the pieces of its English word.
"und" (and the "hundert" English leaves out in "nineteen ninety") has no English word: no gold.

    agreement = share of German pieces with a gold word whose cross-attention row (mean over heads)
                puts its largest weight on one of that word's source pieces

As in `training.health`, the row of a German piece is the decoder position that
*produces* it (teacher forcing on the grammar's translation: the input there is the piece before).

Shapes: L layers, H heads, S source positions (pieces + </s>), T target positions.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from tasks.numbers import grammar
from tasks.numbers.grammar import Example
from transformer import hooks
from transformer.trace import attn_hook

WORD_START = "\u2581"


def piece_spans(pieces: Sequence[str]) -> list[tuple[int, int]]:
    """Character span of each piece in the text it encodes (specials and '▁' alone: empty spans)."""
    spans, at = [], -1  # the text's first piece starts with '▁', which stands for no character
    for piece in pieces:
        if piece.startswith("<") and piece.endswith(">"):
            spans.append((at, at))
            continue
        start = at + (1 if piece.startswith(WORD_START) else 0)
        at += len(piece)
        spans.append((start, at))
    return spans


def _word_of_spans(spans: list[tuple[int, int]], word_spans: list[tuple[int, int]]) -> list[int | None]:
    words: list[int | None] = []
    for start, end in spans:
        hit = [w for w, (a, b) in enumerate(word_spans) if start < b and a < end]
        words.append(hit[0] if hit else None)
    return words


def gold_keys(example: Example, src_pieces: Sequence[str], out_pieces: Sequence[str]) -> list[set[int]]:
    """For each output piece (the grammar's translation, in pieces), the source positions of its
    English word; an empty set where the piece has no English word (or the pieces do not spell the
    example: then every set is empty)."""
    if "".join(out_pieces).replace(WORD_START, " ").strip() != example.target:
        return [set() for _ in out_pieces]
    src_word = _word_of_spans(piece_spans(src_pieces), example.source_spans())
    links = example.target_links()
    keys: list[set[int]] = []
    for start, end in piece_spans(out_pieces):
        words = {links[c] for c in range(max(start, 0), end) if links[c] is not None}
        keys.append({s for s, w in enumerate(src_word) if w in words})
    return keys


def gold_matrix(source: str, src_pieces: Sequence[str], out_pieces: Sequence[str]) -> torch.Tensor | None:
    """(T, S) bool: True where output piece t should attend to source piece s; None when `source`
    is outside the grammar or `out_pieces` are not its translation (there is no right answer then)."""
    example = grammar.parse(source)
    if example is None:
        return None
    keys = gold_keys(example, src_pieces, out_pieces)
    return _matrix(keys, len(out_pieces), len(src_pieces)) if any(keys) else None


def decoder_rows(source: str, src_pieces: Sequence[str], tgt_pieces: Sequence[str]) -> torch.Tensor | None:
    """gold_matrix for the rows of a decoder that reads `tgt_pieces` (<s> first): row i writes piece
    i + 1, the last row writes </s> (no gold). (T, S) bool, or None as gold_matrix."""
    matrix = gold_matrix(source, src_pieces, tgt_pieces[1:])
    if matrix is None:
        return None
    full = torch.zeros(len(tgt_pieces), len(src_pieces), dtype=torch.bool)
    full[: matrix.shape[0]] = matrix
    return full


def _matrix(keys: list[set[int]], rows: int, cols: int) -> torch.Tensor:
    """(rows, cols) bool with row t True at the source positions in keys[t] (later rows: none)."""
    gold = torch.zeros(rows, cols, dtype=torch.bool)
    for t, ks in enumerate(keys):
        gold[t, list(ks)] = True
    return gold


def agreement(rows: torch.Tensor, gold: torch.Tensor) -> tuple[int, int]:
    """(hits, pieces with a gold word) for attention rows (T, S) against a gold matrix (T, S)."""
    has_gold = gold.any(-1)
    best = rows.argmax(-1)  # (T,)
    hits = gold[torch.arange(len(best)), best] & has_gold
    return int(hits.sum()), int(has_gold.sum())


@torch.no_grad()
def measure(model, tokenizer, sources: Sequence[str]) -> dict:
    """Gold-alignment agreement per decoder layer (heads averaged) on phrases of the grammar,
    teacher-forced on the grammar's translations. Phrases outside the grammar are skipped."""
    was_training = model.training
    model.eval()
    cfg, device = model.config, model.device
    hits, total, used = [0] * cfg.n_layers, 0, 0
    for source in sources:
        example = grammar.parse(source)
        if example is None:
            continue
        s = tokenizer.encode(source) + [cfg.eos_id]
        out = tokenizer.encode(example.target) + [cfg.eos_id]
        src_pieces = [tokenizer.id_to_piece(i) for i in s]
        out_pieces = [tokenizer.id_to_piece(i) for i in out]
        keys = gold_keys(example, src_pieces[:-1], out_pieces[:-1])  # </s> has no gold word
        gold = _matrix(keys, len(out), len(s))
        tgt = torch.tensor([[cfg.bos_id, *out[:-1]]], device=device)  # (1, T) decoder input
        with hooks.record() as store:
            model(torch.tensor([s], device=device), tgt)
        for layer in range(cfg.n_layers):
            pattern = store[attn_hook("decoder", "cross", layer, "pattern")][0].float()  # (H, T, S)
            hits[layer] += agreement(pattern.mean(0).cpu(), gold)[0]
        total += int(gold.any(-1).sum())
        used += 1
    model.train(was_training)
    per_layer = [h / total if total else float("nan") for h in hits]
    best = max(range(len(per_layer)), key=lambda i: per_layer[i]) if total else None
    return {"sentences": used, "pieces": total, "per_layer": [round(a, 4) for a in per_layer],
            "best_layer": best, "best": round(per_layer[best], 4) if best is not None else None}  # fmt: skip
