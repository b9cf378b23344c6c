"""Looking inside generation and finding heads (paper §3.2.3 masked decoding, §6 Figures 3-5).

Step-by-step decoding: at each step the decoder reads BOS + the tokens chosen so far and predicts a
distribution over the next token. Because the decoder's self-attention is causal, the only new
attention rows a step adds are those of its last (newest) query position; `decoding_step` returns
them, with the top-k next-token probabilities.

Head finder: rank every (layer, head) of one attention by how much a query word attends to a key
word, e.g. 'its' -> 'Law' in the paper's Figure 4. Words may span several SentencePiece pieces.

Shapes: L layers, H heads, S source positions, T decoder positions (BOS first), V vocabulary,
T_k key positions (S for cross-attention, T for self-attention).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from transformer import decoding, hooks
from transformer.model import Transformer
from transformer.trace import Trace, attn_hook

WORD_START = "▁"
SPECIAL_PIECES = ("<s>", "</s>", "<pad>", "<unk>")


@dataclass(frozen=True)
class DecodeStep:
    """What the decoder computes at one step of generation.

    `tgt_ids` is the decoder input (BOS first). `rows[(kind, layer)]` is the newest query's attention
    row for every head: (H, T_k), with kind "self" (keys: the decoder input) or "cross" (keys: source).
    """

    tgt_ids: list[int]
    top_ids: list[int]  # most probable next tokens, best first
    top_probs: list[float]  # their probabilities (softmax over the whole vocabulary)
    rows: dict[tuple[str, int], torch.Tensor]

    @property
    def next_id(self) -> int:
        """The greedy choice: the most probable next token."""
        return self.top_ids[0]


def _top_k(logits: torch.Tensor, k: int) -> tuple[list[int], list[float]]:
    """logits: (V,) -> the k most probable ids and their softmax probabilities."""
    probs = logits.float().softmax(dim=-1)  # (V,)
    top = probs.topk(min(k, probs.numel()))
    return top.indices.tolist(), top.values.tolist()


@dataclass(frozen=True)
class Tempered:
    """The next token's distribution as sampling sees it: the model's own probabilities of its `k` most
    probable tokens, and the same tokens' probabilities after dividing the logits by the temperature
    and keeping only them (top-k sampling). Lists are best first, over `ids`."""

    ids: list[int]
    model: list[float]  # softmax(z) over the whole vocabulary, read at ids
    sampled: list[float]  # softmax(z / temperature) over ids alone: sums to 1

    def draw(self, seed: int) -> int:
        """One token drawn from `sampled`, the same one for the same seed."""
        generator = torch.Generator().manual_seed(seed)
        return self.ids[int(torch.multinomial(torch.tensor(self.sampled), 1, generator=generator))]


def tempered(logits: torch.Tensor, temperature: float, k: int) -> Tempered:
    """logits: (V,) -> top-k sampling's distribution at `temperature` (> 0). Temperature 1 keeps the
    model's proportions among the k; below 1 sharpens them towards the greedy choice, above 1 flattens."""
    if temperature <= 0:
        raise ValueError("temperature must be positive (0 would be greedy decoding)")
    ids, model = _top_k(logits, k)
    sampled = (logits.float()[ids] / temperature).softmax(dim=-1)  # (k,)
    return Tempered(ids, model, sampled.tolist())


@torch.no_grad()
def decoding_step(model: Transformer, src_ids: list[int], tgt_ids: list[int], k: int = 10) -> DecodeStep:
    """Run the model on (source, decoder input) and keep what the newest position computes.

    Args:
        src_ids: source ids (EOS last), as given to the encoder.
        tgt_ids: the decoder input so far, BOS first.
        k: how many next-token candidates to return.
    """
    if not src_ids or not tgt_ids:
        raise ValueError("need at least one source id and the BOS id")
    if k < 1:
        raise ValueError("k must be at least 1")
    src = torch.tensor([src_ids], device=model.device)  # (1, S)
    tgt = torch.tensor([tgt_ids], device=model.device)  # (1, T)
    with hooks.record() as store:
        logits = model(src, tgt)[0, -1]  # (V,) the prediction after the last decoder position
    top_ids, top_probs = _top_k(logits.cpu(), k)
    rows = {}
    for kind in ("self", "cross"):
        for layer in range(model.config.n_layers):
            pattern = store[attn_hook("decoder", kind, layer, "pattern")]  # (1, H, T, T_k)
            rows[(kind, layer)] = pattern[0, :, -1, :]  # (H, T_k)
    return DecodeStep(list(tgt_ids), top_ids, top_probs, rows)


def step_limit(model: Transformer, src_len: int) -> int:
    """How many tokens generation may produce: the paper's input length + 50, within the PE table."""
    return decoding.default_max_len(model, src_len)


def step_from_trace(trace: Trace, k: int = 10) -> DecodeStep:
    """The same as `decoding_step`, read from a Trace whose decoder input is the prefix so far.

    Lets the app reuse its cached traces instead of running the model again.
    """
    logits = trace.get("generator.hook_logits")[-1]  # (V,)
    top_ids, top_probs = _top_k(logits, k)
    rows = {
        (kind, layer): trace.attention("decoder", kind, layer)[:, -1, :]  # (H, T_k)
        for kind in ("self", "cross")
        for layer in range(trace.config.n_layers)
    }
    return DecodeStep(list(trace.tgt_ids), top_ids, top_probs, rows)


def written_ids(trace: Trace, finished: bool | None = None) -> list[int | None]:
    """The token each decoder position writes: (T,) ids, one per row of a decoder attention.

    Teacher forcing: the decoder input is the translation shifted one place right (BOS first), and
    position i, which reads input token i, is the one that produces token i + 1. So a row of
    cross-attention gathers the source for the token it writes, not for the one it reads. The last
    position writes what follows the input: the model's most probable token when the trace holds the
    logits; else EOS when `finished` says the input is a whole translation; else None (not known).
    """
    written: list[int | None] = list(trace.tgt_ids[1:])
    if "generator.hook_logits" in trace.tensors:
        written.append(int(trace.get("generator.hook_logits")[-1].argmax()))  # (V,) -> the argmax
    else:
        written.append(trace.config.eos_id if finished else None)
    return written


# ---- words made of pieces -------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    """A word of the sentence and the piece positions it covers."""

    text: str
    positions: tuple[int, ...]


def words(pieces: list[str]) -> list[Word]:
    """Group SentencePiece pieces into words: a piece starting with '▁' starts a new word.

    Special pieces (e.g. '</s>') are words of their own.
    """
    groups: list[list[int]] = []
    for i, piece in enumerate(pieces):
        starts = piece.startswith(WORD_START) or piece in SPECIAL_PIECES or not groups
        if groups and pieces[groups[-1][0]] in SPECIAL_PIECES:
            starts = True
        if starts:
            groups.append([i])
        else:
            groups[-1].append(i)
    return [
        Word("".join(pieces[i] for i in g).replace(WORD_START, " ").strip() or pieces[g[0]], tuple(g))
        for g in groups
    ]


def find_word(pieces: list[str], text: str) -> Word | None:
    """The first word whose text equals `text` (ignoring case and surrounding punctuation)."""
    wanted = text.strip().lower()
    for word in words(pieces):
        if word.text.lower().strip(".,;:!?\"'()") == wanted:
            return word
    return None


# ---- head finder ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HeadScore:
    """How strongly one head links the query word to the key word (0-based layer and head)."""

    layer: int
    head: int
    weight: float


def link_weights(
    patterns: torch.Tensor, query_positions: tuple[int, ...], key_positions: tuple[int, ...]
) -> torch.Tensor:
    """Weight from a query word to a key word in every layer and head.

    patterns: (L, H, T_q, T_k) softmax weights. The key word's pieces are summed (the share of
    attention that lands anywhere on the word); the query word's pieces are averaged, so that the
    result stays a share of one row, between 0 and 1, however many pieces either word has.
    Returns (L, H).
    """
    if patterns.dim() != 4:
        raise ValueError(f"patterns must be (L, H, T_q, T_k), got {tuple(patterns.shape)}")
    if not query_positions or not key_positions:
        raise ValueError("the query and key words need at least one position each")
    q = torch.tensor(query_positions)
    k = torch.tensor(key_positions)
    on_key = patterns[:, :, :, k].sum(dim=-1)  # (L, H, T_q)
    return on_key[:, :, q].mean(dim=-1)  # (L, H)


def rank_heads(
    trace: Trace,
    query_positions: tuple[int, ...],
    key_positions: tuple[int, ...],
    stack: str = "encoder",
    kind: str = "self",
) -> list[HeadScore]:
    """Every (layer, head) of one attention, sorted by the query -> key weight, strongest first."""
    patterns = torch.stack(
        [trace.attention(stack, kind, layer) for layer in range(trace.config.n_layers)]
    )  # (L, H, T_q, T_k)
    weights = link_weights(patterns, query_positions, key_positions)  # (L, H)
    scores = [
        HeadScore(layer, head, float(weights[layer, head]))
        for layer in range(weights.size(0))
        for head in range(weights.size(1))
    ]
    return sorted(scores, key=lambda s: s.weight, reverse=True)


# ---- alignment of a translation with its source (model card) -------------------------------


@dataclass(frozen=True)
class Alignment:
    """How a translation's cross-attention (one layer, mean over heads) sweeps over the source.

    `monotonic`: Pearson correlation between each generated token's position and the source position
    it attends to most (1.0: a clean left-to-right sweep; 0 for fewer than 3 tokens or a constant
    argmax). `on_end`: mean weight the generated tokens put on the last source position (`</s>`),
    where a head that has nothing to align parks its attention. `clean`: monotonic ≥ 0.5 and
    on_end ≤ 0.3, a rough screen to be confirmed by looking at the figure.
    """

    monotonic: float
    on_end: float
    argmax: list[int]

    @property
    def clean(self) -> bool:
        return self.monotonic >= 0.5 and self.on_end <= 0.3


def cross_alignment(weights: torch.Tensor) -> Alignment:
    """weights: (T, S) cross-attention rows of the generated tokens (BOS's row left out)."""
    if weights.dim() != 2 or weights.size(1) == 0:
        raise ValueError(f"weights must be (T, S) with S ≥ 1, got {tuple(weights.shape)}")
    argmax = weights.argmax(dim=-1)  # (T,)
    on_end = float(weights[:, -1].mean()) if len(weights) else 1.0
    monotonic = 0.0
    if len(argmax) > 2 and argmax.float().std() > 0:
        positions = torch.arange(len(argmax), dtype=torch.float64)
        monotonic = float(torch.corrcoef(torch.stack([positions, argmax.double()]))[0, 1])
    return Alignment(round(monotonic, 4), round(on_end, 4), argmax.tolist())
