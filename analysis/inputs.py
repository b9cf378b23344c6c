"""What the model's input layer does, measured: embeddings (§3.4) and positional encoding (§3.5).

    cos(a, b)      = a·b / (|a| |b|)                  token-to-token similarity of embedding rows
    centred        cos(a − ē, b − ē), ē the mean row  the same with the direction all rows share removed
    PE(pos+k)      = M_k · PE(pos)                    §3.5: "PE(pos+k) is a linear function of PE(pos)"
    M_k            = diag(R(k ω_0), ..., R(k ω_{D/2-1})),  R(θ) = [[cos θ, sin θ], [−sin θ, cos θ]]
    ω_i            = 1 / 10000^(2i / d_model)

Why M_k is a rotation: dimensions 2i and 2i+1 hold (sin(pos ω_i), cos(pos ω_i)), a point on a circle.
Moving k positions on turns that point by the angle k ω_i, whatever pos is, so one fixed matrix does it.

Without the encoding, self-attention cannot tell positions apart: every encoder layer is
permutation-equivariant, so shuffling the words only shuffles the rows and columns of each attention
pattern. `without_positions` shows this on the real model, removing PE through a hook edit.

Shapes: T positions (tokens), D = d_model, L layers, H heads, S source positions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from transformer import hooks
from transformer.model import Transformer
from transformer.trace import attn_hook

PE_HOOK = "src_pos_enc.hook_pe"
WORD_START = "▁"
SPECIALS = ("</s>", "<s>", "<pad>", "<unk>")


def cosine_similarity(vectors: torch.Tensor, eps: float = 1e-12) -> torch.Tensor:
    """Cosine similarity of every row with every row: (T, D) -> (T, T), diagonal 1."""
    x = vectors.double()
    unit = x / x.norm(dim=-1, keepdim=True).clamp_min(eps)  # (T, D)
    return (unit @ unit.T).clamp(-1.0, 1.0)  # (T, T)


def mean_off_diagonal(similarity: torch.Tensor) -> float:
    """The mean of a (T, T) similarity over its pairs of different positions (NaN for one position)."""
    t = similarity.shape[0]
    off = ~torch.eye(t, dtype=torch.bool)  # (T, T)
    return similarity[off].double().mean().item() if t > 1 else math.nan


@dataclass(frozen=True)
class VocabularySimilarity:
    """How alike two random rows of an embedding matrix look: the baseline a sentence's cosines are read
    against, before and after removing the mean row (the direction every row shares)."""

    rows: int  # vocabulary entries
    pairs: int  # random pairs of different rows compared
    raw: float  # mean cosine of those pairs
    centred: float  # the same pairs, the mean row subtracted from each
    along_mean: float  # mean cosine of a row with the mean row
    mean_row: torch.Tensor  # (D,) ē


def vocabulary_similarity(
    embedding: torch.Tensor, pairs: int = 20_000, seed: int = 0
) -> VocabularySimilarity:
    """Mean cosine of `pairs` random pairs of different rows of `embedding` (V, D), raw and centred."""
    x = embedding.detach().double().cpu()  # (V, D)
    v = x.shape[0]
    if v < 2:
        raise ValueError(f"an embedding of {v} row(s) has no pairs to compare")
    g = torch.Generator().manual_seed(int(seed))
    a = torch.randint(v, (pairs,), generator=g)  # (P,)
    b = torch.randint(v - 1, (pairs,), generator=g)
    b = b + (b >= a)  # (P,) never the same row as a

    def cos(u: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return (F.normalize(u, dim=-1) * F.normalize(w, dim=-1)).sum(-1)  # (P,)

    mean = x.mean(dim=0)  # (D,)
    centred = x - mean  # (V, D)
    raw, apart = cos(x[a], x[b]).mean().item(), cos(centred[a], centred[b]).mean().item()
    return VocabularySimilarity(v, pairs, raw, apart, cos(x, mean[None]).mean().item(), mean.float())


def position_similarity(pe: torch.Tensor) -> torch.Tensor:
    """Dot product of every position's encoding with every other's: (T, D) -> (T, T).

    It depends only on the distance between positions (Σ_i cos((p − q) ω_i)), which is why it is a
    band that fades away from the diagonal.
    """
    x = pe.double()
    return x @ x.T  # (T, T)


def frequencies(d_model: int) -> torch.Tensor:
    """ω_i = 1 / 10000^(2i / d_model) for i = 0 .. D/2 − 1: (D/2,)."""
    two_i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (D/2,)
    return torch.pow(10000.0, -two_i / d_model)


def shift_matrix(k: int, d_model: int, layout: str = "interleaved") -> torch.Tensor:
    """M_k, (D, D): 2×2 rotations with PE(pos + k) = M_k · PE(pos) for every pos; block-diagonal for the
    paper's interleaved table, each sine i paired with cosine D/2 + i for a "half_split" one (Marian's)."""
    if d_model % 2:
        raise ValueError(f"d_model={d_model} must be even")
    angle = k * frequencies(d_model)  # (D/2,)
    c, s = torch.cos(angle), torch.sin(angle)
    m = torch.zeros(d_model, d_model, dtype=torch.float64)
    sin = torch.arange(0, d_model, 2) if layout == "interleaved" else torch.arange(d_model // 2)
    cos = sin + 1 if layout == "interleaved" else sin + d_model // 2
    # sin(a + b) = sin a cos b + cos a sin b;  cos(a + b) = cos a cos b − sin a sin b
    m[sin, sin], m[sin, cos] = c, s
    m[cos, sin], m[cos, cos] = -s, c
    return m


@dataclass(frozen=True)
class ShiftCheck:
    """M_k applied to a PE table, against the table itself k rows further on."""

    k: int
    matrix: torch.Tensor  # (D, D) M_k
    predicted: torch.Tensor  # (T − k, D) rows M_k · PE(pos) for pos = 0 .. T−k−1
    actual: torch.Tensor  # (T − k, D) rows PE(pos + k)
    max_error: float  # largest |predicted − actual| over every entry


def check_shift(pe: torch.Tensor, k: int, layout: str = "interleaved") -> ShiftCheck:
    """Check PE(pos + k) = M_k · PE(pos) on a real table `pe` (T, D) of that `layout`, for every pos with
    pos + k < T."""
    t, d = pe.shape
    if not 0 <= k < t:
        raise ValueError(f"k={k} must be in 0..{t - 1} for a table of {t} positions")
    m = shift_matrix(k, d, layout)  # (D, D)
    table = pe.double()
    predicted = table[: t - k] @ m.T  # (T − k, D): each row is M_k · PE(pos)
    actual = table[k:]  # (T − k, D)
    error = (predicted - actual).abs().max().item() if t - k else 0.0
    return ShiftCheck(k, m, predicted, actual, error)


@dataclass(frozen=True)
class ScaleSummary:
    """Sizes of the three things summed at the input: E[x], E[x]·√d_model and PE(pos)."""

    sqrt_d_model: float
    rms_embed: float  # root-mean-square entry of the raw embedding rows
    rms_scaled: float
    rms_pe: float
    norm_embed: torch.Tensor  # (T,) length of each raw row
    norm_scaled: torch.Tensor  # (T,)
    norm_pe: torch.Tensor  # (T,)


def scale_summary(embed: torch.Tensor, scaled: torch.Tensor, pe: torch.Tensor) -> ScaleSummary:
    """Sizes of raw rows (T, D), scaled rows (T, D) and the PE rows (T, D) added to them."""
    if not embed.shape == scaled.shape == pe.shape:
        raise ValueError(f"shapes differ: {tuple(embed.shape)}, {tuple(scaled.shape)}, {tuple(pe.shape)}")

    def rms(x: torch.Tensor) -> float:
        return x.double().pow(2).mean().sqrt().item()

    return ScaleSummary(
        sqrt_d_model=math.sqrt(embed.shape[-1]),
        rms_embed=rms(embed),
        rms_scaled=rms(scaled),
        rms_pe=rms(pe),
        norm_embed=embed.double().norm(dim=-1),
        norm_scaled=scaled.double().norm(dim=-1),
        norm_pe=pe.double().norm(dim=-1),
    )


def word_shuffle(pieces: list[str], seed: int = 0) -> list[int]:
    """A permutation of piece positions that moves whole words and keeps special tokens in place.

    A word is a piece starting with '▁' plus the pieces that follow it. Returns `order` such that the
    shuffled sentence is `[pieces[i] for i in order]`. With two or more words, never the identity.
    """
    words: list[list[int]] = []
    fixed: list[int] = []
    for i, piece in enumerate(pieces):
        if piece in SPECIALS:
            fixed.append(i)
        elif piece.startswith(WORD_START) or not words:
            words.append([i])
        else:
            words[-1].append(i)
    if len(words) > 1:
        g = torch.Generator().manual_seed(int(seed))
        shuffled = torch.randperm(len(words), generator=g).tolist()
        if shuffled == list(range(len(words))):
            shuffled = shuffled[1:] + shuffled[:1]  # a shuffle that changes nothing shows nothing
        words = [words[j] for j in shuffled]
    order = [i for word in words for i in word]
    # Specials keep their positions (EOS stays last).
    for i in fixed:
        order.insert(i, i)
    return order


def permute_pattern(pattern: torch.Tensor, order: list[int]) -> torch.Tensor:
    """Reorder queries and keys of patterns (..., T, T): result[i, j] = pattern[order[i], order[j]]."""
    idx = torch.as_tensor(order, dtype=torch.long)
    return pattern[..., idx, :][..., :, idx]


@dataclass(frozen=True)
class WithoutPositions:
    """Encoder self-attention of a sentence and of its shuffle, with and without PE: (L, H, S, S) each."""

    order: list[int]  # shuffled ids = [ids[i] for i in order]
    plain: torch.Tensor  # no PE, original order
    shuffled: torch.Tensor  # no PE, shuffled order
    plain_with_pe: torch.Tensor  # with PE, original order
    shuffled_with_pe: torch.Tensor  # with PE, shuffled order

    @property
    def max_diff_without_pe(self) -> float:
        """Largest gap between the shuffled patterns and the original ones reordered the same way."""
        return (self.shuffled - permute_pattern(self.plain, self.order)).abs().max().item()

    def restored(self, with_pe: bool = False) -> torch.Tensor:
        """The shuffled patterns with queries and keys put back in the original order: (L, H, S, S)."""
        inverse = torch.argsort(torch.as_tensor(self.order)).tolist()
        return permute_pattern(self.shuffled_with_pe if with_pe else self.shuffled, inverse)

    @property
    def max_diff_with_pe(self) -> float:
        return (self.shuffled_with_pe - permute_pattern(self.plain_with_pe, self.order)).abs().max().item()


def _zero(pe: torch.Tensor) -> torch.Tensor:
    return torch.zeros_like(pe)


@torch.no_grad()
def encoder_patterns(model: Transformer, src_ids: list[int], positions: bool = True) -> torch.Tensor:
    """Every encoder self-attention pattern for one sentence: (L, H, S, S).

    With `positions=False` the positional encoding is replaced by zeros through a hook edit, for this
    call only: the shared model is not touched.
    """
    if model.training:
        raise RuntimeError("use an eval-mode model: dropout would make the patterns random")
    src = torch.tensor([list(src_ids)], device=model.device)  # (1, S)
    edits = {} if positions else {PE_HOOK: _zero}
    with hooks.record(edits) as store:
        model.encode(src)
    names = [attn_hook("encoder", "self", i, "pattern") for i in range(model.config.n_layers)]
    return torch.stack([store[n][0] for n in names])  # (L, H, S, S)


def without_positions(model: Transformer, src_ids: list[int], order: list[int]) -> WithoutPositions:
    """Encoder attention of `src_ids` and of `[src_ids[i] for i in order]`, with and without PE."""
    if sorted(order) != list(range(len(src_ids))):
        raise ValueError(f"order must be a permutation of 0..{len(src_ids) - 1}")
    shuffled_ids = [src_ids[i] for i in order]
    return WithoutPositions(
        order=list(order),
        plain=encoder_patterns(model, src_ids, positions=False),
        shuffled=encoder_patterns(model, shuffled_ids, positions=False),
        plain_with_pe=encoder_patterns(model, src_ids, positions=True),
        shuffled_with_pe=encoder_patterns(model, shuffled_ids, positions=True),
    )
