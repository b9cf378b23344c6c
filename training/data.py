"""Training data as token-based batches (paper §5.1: batches of roughly equal token counts).

Pairs are tokenised once, grouped by length so that little padding is wasted, cut into batches of at
most `max_tokens` padded tokens per side, and shuffled batch-wise with a seeded generator, so the same
(seed, epoch) always gives the same batches: that is what lets `--resume` continue exactly.

Shapes: B batch, S source length, T target length (BOS/EOS included).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

import torch

from transformer.config import TransformerConfig


@dataclass(frozen=True)
class Pair:
    src: tuple[int, ...]  # source ids, ending in EOS
    tgt: tuple[int, ...]  # target ids, BOS ... EOS


def read_lines(path: str | Path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def read_parallel(prefix: str | Path, src_lang: str = "en", tgt_lang: str = "de"):
    """Read `prefix.en` / `prefix.de` as aligned lists of lines."""
    src = read_lines(f"{prefix}.{src_lang}")
    tgt = read_lines(f"{prefix}.{tgt_lang}")
    if len(src) != len(tgt):
        raise ValueError(f"{prefix}: {len(src)} source lines but {len(tgt)} target lines")
    return src, tgt


def encode_pairs(tokenizer, src_lines, tgt_lines, config: TransformerConfig, max_len: int):
    """Tokenise aligned lines into Pairs, dropping empty ones and ones longer than `max_len`."""
    pairs = []
    src_ids, tgt_ids = tokenizer.encode(list(src_lines)), tokenizer.encode(list(tgt_lines))
    for s, t in zip(src_ids, tgt_ids, strict=True):
        if 0 < len(s) < max_len and 0 < len(t) < max_len:
            pairs.append(Pair((*s, config.eos_id), (config.bos_id, *t, config.eos_id)))
    return pairs


def make_batches(pairs: list[Pair], max_tokens: int, seed: int) -> list[list[int]]:
    """Indices of `pairs` grouped into batches of at most `max_tokens` padded tokens per side.

    Deterministic for a given seed: shuffle, sort within large pools by length, cut, shuffle batches.
    """
    rng = random.Random(seed)
    order = list(range(len(pairs)))
    rng.shuffle(order)
    pool = 100 * max(1, max_tokens // 16)  # sort within pools: lengths grouped, epochs still vary
    batches: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start : start + pool], key=lambda i: (len(pairs[i].tgt), len(pairs[i].src)))
        batch: list[int] = []
        longest = 0
        for i in chunk:
            longest_if_added = max(longest, len(pairs[i].src), len(pairs[i].tgt))
            if batch and longest_if_added * (len(batch) + 1) > max_tokens:
                batches.append(batch)
                batch, longest_if_added = [], max(len(pairs[i].src), len(pairs[i].tgt))
            batch.append(i)
            longest = longest_if_added
        if batch:
            batches.append(batch)
    rng.shuffle(batches)
    return batches


def _pad(rows: list[tuple[int, ...]], pad_id: int) -> torch.Tensor:
    """Rows of ids, right-padded into one (len(rows), longest) tensor. One tensor is built from all the
    ids at once: a tensor per row cost more time on a GPU machine than the step itself."""
    lengths = torch.tensor([len(r) for r in rows])
    out = torch.full((len(rows), int(lengths.max())), pad_id, dtype=torch.long)
    filled = torch.arange(out.size(1)) < lengths[:, None]  # (rows, longest): True where an id goes
    out[filled] = torch.tensor([t for r in rows for t in r], dtype=torch.long)  # row by row, in order
    return out


def collate(pairs: list[Pair], indices: list[int], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad one batch: -> src (B, S), tgt (B, T)."""
    return _pad([pairs[i].src for i in indices], pad_id), _pad([pairs[i].tgt for i in indices], pad_id)


def epoch_pairs(sentences: list[Pair], lexicon: list[Pair], lexicon_share: float, seed: int):
    """One epoch's training pairs: every sentence pair plus a fresh sample of lexicon entries.

    The lexicon (dictionary words and phrases) teaches vocabulary, but it is many times larger than
    the sentence data; sampling `lexicon_share × len(sentences)` entries per epoch keeps sentences
    the main signal while every entry is still seen over the epochs.
    """
    k = min(len(lexicon), int(lexicon_share * len(sentences)))
    sample = random.Random(seed).sample(range(len(lexicon)), k) if k else []
    return sentences + [lexicon[i] for i in sample]
