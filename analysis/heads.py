"""What each attention head does, measured over sentences (paper §3.2.2, §6 "attention visualizations").

The paper's Figures 3-5 suggest that heads specialise. These statistics put numbers on that, one
value per head, from the softmax weights A (rows = queries, each row sums to 1):

    entropy         H_i = −Σ_j A_ij log A_ij            (nats; 0 = all weight on one key)
    broadness       H_i / log(n_i)                       (n_i keys the row may attend to; 1 = uniform)
    distance        Σ_j A_ij |i − j|                     (tokens; self-attention only)
    previous        A_i,i−1        next   A_i,i+1        self   A_ii
    same word       Σ_{j ≠ i, word(j) = word(i)} A_ij   (rows whose word has several pieces)
    delimiter       Σ_{j delimiter} A_ij                 (punctuation, <s>, </s>)

Each statistic is first computed per query row (NaN where it means nothing, e.g. `previous` on the
first row), then averaged over every row of every sentence, so long sentences weigh more.

Averaging heads and rolling attention through the layers: `analysis.rollout`;
comparing two sentences, or a model with a head switched off: `analysis.compare`.

Shapes: L layers, H heads, T_q query positions, T_k key positions, N sentences.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field

import torch

from analysis.compare import (  # noqa: F401  (the head inspector calls them as heads.*)
    align_pieces,
    aligned_difference,
    sequence_log_prob,
    top_k_union,
    unmatched,
)
from analysis.rollout import mean_over_heads, rollout  # noqa: F401  (likewise)
from transformer.trace import Trace

WORD_START = "▁"
SPECIAL_PIECES = ("<s>", "</s>", "<pad>", "<unk>")
ATTENTIONS = (("encoder", "self"), ("decoder", "self"), ("decoder", "cross"))

# name -> plain-language meaning (shown in the app next to the numbers)
STATISTICS = {
    "entropy": "entropy of a row in nats (natural-log units): 0 = all weight on one key, higher = spread",
    "broadness": "evenness: entropy as a share of its largest value; 0 = all weight on one key, 1 = all "
                 "keys equally",
    "distance": "mean distance (in tokens) between a query and the keys it attends to",
    "previous": "share of weight on the previous token",
    "next": "share of weight on the next token",
    "self": "share of weight on the query's own position",
    "same_word": "share on the other pieces of the query's own word",
    "delimiter": "share on punctuation and the sentence markers <s> / </s>",
}
POSITIONAL = ("distance", "previous", "next", "self", "same_word")  # only mean something in self-attention


@dataclass(frozen=True)
class Thresholds:
    """Where a statistic becomes a role: a head 'looks at the previous token' if previous ≥ 0.5."""

    previous: float = 0.5
    next: float = 0.5
    self: float = 0.5
    same_word: float = 0.4
    delimiter: float = 0.5
    broadness: float = 0.85


ROLE_TEXT = {
    "previous": "looks at the previous token",
    "next": "looks at the next token",
    "self": "looks at its own token",
    "same_word": "joins the pieces of a word",
    "delimiter": "rests on punctuation / sentence markers",
    "broadness": "spreads broadly over the sentence (bag of words)",
}


@dataclass(frozen=True)
class Role:
    """A head's plain-language role and the statistic, value and threshold behind it."""

    label: str
    statistic: str | None = None
    value: float = float("nan")
    threshold: float = float("nan")

    @property
    def reason(self) -> str:
        if self.statistic is None:
            return "no statistic reaches its threshold"
        return f"{self.statistic} = {self.value:.2f} ≥ {self.threshold:.2f}"


def word_ids(pieces: list[str]) -> list[int]:
    """Word index of every piece: a piece starting with '▁' starts a word; specials are words alone."""
    ids: list[int] = []
    current = -1
    previous_special = True
    for piece in pieces:
        special = piece in SPECIAL_PIECES
        if special or previous_special or piece.startswith(WORD_START):
            current += 1
        ids.append(current)
        previous_special = special
    return ids


def is_delimiter(piece: str) -> bool:
    """Sentence markers, and pieces made only of punctuation (after the word-start mark)."""
    if piece in ("<s>", "</s>"):
        return True
    text = piece.replace(WORD_START, "")
    return bool(text) and all(unicodedata.category(ch).startswith("P") for ch in text)


def row_statistics(
    pattern: torch.Tensor,
    query_pieces: list[str],
    key_pieces: list[str],
    allowed: torch.Tensor | None = None,
    positional: bool = True,
) -> dict[str, torch.Tensor]:
    """Every statistic for every head and query row.

    Args:
        pattern: (H, T_q, T_k) softmax weights, rows = queries.
        allowed: (T_q, T_k) bool, True = may attend (default: all); used for `broadness` and to
            leave out blocked neighbours (e.g. the next token under a causal mask).
        positional: True for self-attention, where query i and key i are the same token. For
            cross-attention the positional statistics are NaN.
    Returns:
        name -> (H, T_q), NaN where the statistic is undefined for that row.
    """
    a = pattern.double()  # (H, T_q, T_k)
    n_heads, t_q, t_k = a.shape
    if len(query_pieces) != t_q or len(key_pieces) != t_k:
        raise ValueError(f"pieces ({len(query_pieces)}, {len(key_pieces)}) do not fit {tuple(a.shape)}")
    if allowed is None:
        allowed = torch.ones(t_q, t_k, dtype=torch.bool)
    allowed = allowed.bool()
    nan = torch.full((n_heads, t_q), float("nan"), dtype=torch.float64)

    entropy = -(a * a.clamp_min(1e-30).log()).sum(-1)  # (H, T_q)
    n_allowed = allowed.sum(-1).double()  # (T_q,)
    broadness = torch.where(n_allowed > 1, entropy / n_allowed.clamp_min(2).log(), nan)
    delimiter_keys = torch.tensor([is_delimiter(p) for p in key_pieces], dtype=torch.float64)  # (T_k,)
    stats = {"entropy": entropy, "broadness": broadness, "delimiter": a @ delimiter_keys}
    if not positional:
        stats.update({name: nan.clone() for name in POSITIONAL})
        return stats
    if t_q != t_k:
        raise ValueError("positional statistics need self-attention (a square pattern)")

    rows = torch.arange(t_q)
    distance = (rows[:, None] - rows[None, :]).abs().double()  # (T_q, T_k)
    stats["distance"] = (a * distance).sum(-1)
    stats["self"] = a[:, rows, rows]
    for name, offset in (("previous", -1), ("next", 1)):
        cols = rows + offset
        inside = (cols >= 0) & (cols < t_k)
        valid = torch.zeros(t_q, dtype=torch.bool)
        valid[inside] = allowed[rows[inside], cols[inside]]  # a blocked neighbour is no neighbour
        value = nan.clone()
        value[:, valid] = a[:, rows[valid], cols[valid]]
        stats[name] = value
    words = torch.tensor(word_ids(query_pieces))
    same = (words[:, None] == words[None, :]) & ~torch.eye(t_q, dtype=torch.bool) & allowed  # (T_q, T_k)
    stats["same_word"] = torch.where(same.any(-1), (a * same).sum(-1), nan)
    return stats


def mean_statistics(pattern: torch.Tensor, query_pieces, key_pieces, allowed=None, positional=True):
    """Per-head means over the rows where each statistic is defined: name -> (H,) (NaN if none)."""
    return {name: v.nanmean(-1) for name, v in
            row_statistics(pattern, query_pieces, key_pieces, allowed, positional).items()}


def sentence_statistics(trace: Trace) -> dict[tuple[str, str], dict[str, tuple[torch.Tensor, torch.Tensor]]]:
    """Row sums and row counts of every statistic for every attention, layer and head of one trace.

    Returns (stack, kind) -> name -> (sum (L, H), count (L, H)); sum / count is the sentence's mean.
    """
    out: dict = {}
    for stack, kind in ATTENTIONS:
        sums: dict[str, list] = {name: [] for name in STATISTICS}
        counts: dict[str, list] = {name: [] for name in STATISTICS}
        for layer in range(trace.config.n_layers):
            mask_name = trace.attn_name(stack, kind, layer, "mask")
            allowed = trace.get(mask_name)[0] if mask_name in trace.tensors else None  # (T_q, T_k)
            rows = row_statistics(trace.attention(stack, kind, layer), trace.query_pieces(stack),
                                  trace.key_pieces(stack, kind), allowed, positional=kind == "self")
            for name, value in rows.items():  # value: (H, T_q)
                defined = ~value.isnan()
                sums[name].append(torch.where(defined, value, 0.0).sum(-1))
                counts[name].append(defined.sum(-1).double())
        out[(stack, kind)] = {n: (torch.stack(sums[n]), torch.stack(counts[n])) for n in STATISTICS}
    return out


@dataclass
class HeadStatistics:
    """Statistics of every head over a set of sentences, kept per sentence so any can be looked up."""

    sentences: list[str]
    sums: dict[tuple[str, str], dict[str, torch.Tensor]] = field(default_factory=dict)  # (N, L, H)
    counts: dict[tuple[str, str], dict[str, torch.Tensor]] = field(default_factory=dict)  # (N, L, H)

    @classmethod
    def collect(cls, sentences: list[str], per_sentence: list[dict]) -> HeadStatistics:
        """From `sentence_statistics` of each sentence, in the same order as `sentences`."""
        if len(sentences) != len(per_sentence) or not sentences:
            raise ValueError("need one sentence_statistics result per sentence, and at least one")
        result = cls(list(sentences))
        for attention in per_sentence[0]:
            pairs = {n: [s[attention][n] for s in per_sentence] for n in STATISTICS}
            result.sums[attention] = {n: torch.stack([p[0] for p in v]) for n, v in pairs.items()}
            result.counts[attention] = {n: torch.stack([p[1] for p in v]) for n, v in pairs.items()}
        return result

    def mean(self, attention: tuple[str, str], name: str) -> torch.Tensor:
        """Mean over all rows of all sentences: (L, H), NaN where never defined."""
        total = self.counts[attention][name].sum(0)
        return torch.where(total > 0, self.sums[attention][name].sum(0) / total.clamp_min(1), float("nan"))

    def per_sentence(self, attention: tuple[str, str], name: str) -> torch.Tensor:
        """Each sentence's own mean: (N, L, H), NaN where undefined in that sentence."""
        count = self.counts[attention][name]
        return torch.where(count > 0, self.sums[attention][name] / count.clamp_min(1), float("nan"))

    def typical_sentence(self, attention: tuple[str, str], name: str, layer: int, head: int) -> int:
        """Index of the sentence on which the head's statistic is closest to its overall mean."""
        values = self.per_sentence(attention, name)[:, layer, head]  # (N,)
        gap = (values - self.mean(attention, name)[layer, head]).abs()
        gap = torch.where(gap.isnan(), float("inf"), gap)
        return int(gap.argmin())

    def roles(self, attention: tuple[str, str], thresholds: Thresholds = Thresholds()) -> list[list[Role]]:
        """Role of every head: [layer][head]."""
        means = {name: self.mean(attention, name) for name in ROLE_TEXT}
        n_layers, n_heads = means["previous"].shape
        return [[role({n: float(m[layer, head]) for n, m in means.items()}, thresholds)
                 for head in range(n_heads)] for layer in range(n_layers)]


def role(values: dict[str, float], thresholds: Thresholds = Thresholds()) -> Role:
    """The role whose statistic exceeds its threshold by the largest factor; 'mixed' when none does."""
    best: Role | None = None
    best_ratio = 0.0
    for name, text in ROLE_TEXT.items():
        value, limit = values.get(name, float("nan")), getattr(thresholds, name)
        if math.isnan(value) or value < limit:
            continue
        if value / limit > best_ratio:
            best, best_ratio = Role(text, name, value, limit), value / limit
    return best or Role("mixed: no single simple pattern")


# A head whose rows have ≥ 95% of the largest possible entropy spreads its weight (nearly) evenly:
# its picture shows no structure, and the app says so instead of letting it pass for an alignment.
NEAR_UNIFORM = 0.95


def broadness_grid(trace: Trace, stack: str, kind: str) -> torch.Tensor:
    """Mean broadness (entropy ÷ ln of the keys allowed) of every head: (L, H); 1 = uniform."""
    layers = []
    for layer in range(trace.config.n_layers):
        mask_name = trace.attn_name(stack, kind, layer, "mask")
        allowed = trace.get(mask_name)[0] if mask_name in trace.tensors else None  # (T_q, T_k)
        stats = mean_statistics(
            trace.attention(stack, kind, layer), trace.query_pieces(stack), trace.key_pieces(stack, kind),
            allowed, positional=False,
        )  # fmt: skip
        layers.append(stats["broadness"])
    return torch.stack(layers).float()  # (L, H)


def most_focused(trace: Trace, stack: str, kind: str) -> tuple[int, int]:
    """(layer, head), 0-based, of the head with the lowest mean broadness for this sentence."""
    return lowest(broadness_grid(trace, stack, kind))


def lowest(grid: torch.Tensor) -> tuple[int, int]:
    """(row, column) of the smallest value of a (L, H) broadness grid; NaN (undefined) never wins."""
    grid = torch.nan_to_num(grid, nan=2.0)
    flat = int(grid.argmin())
    return flat // grid.size(1), flat % grid.size(1)


def uniform_heads(broadness: torch.Tensor, threshold: float = NEAR_UNIFORM) -> list[int]:
    """Indices (0-based) of the heads of one layer whose broadness is above `threshold`."""
    return [h for h, b in enumerate(broadness.tolist()) if b == b and b > threshold]
