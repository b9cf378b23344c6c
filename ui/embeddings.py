"""The Tokens & embeddings page's tables and figures (§3.4), and its similarity section: the baseline its
cosines are read against (random pairs of the whole vocabulary, raw and centred, measured once per model)
and a repeated piece to show."""

from __future__ import annotations

import collections

import streamlit as st
import torch

from analysis import inputs as analysis
from transformer.trace import Trace
from ui import model as model_io
from ui import state
from ui.presets import presets
from viz import embeddings as viz_embed
from viz.labels import WORD_START

PRESET_KEY = "atlas_preset"  # the sidebar's preset picker (ui.sidebar)
RAW, WITH_POSITIONS, CENTRED = 0, 1, 2  # what the page's similarity compares (its values in a link)


@st.cache_data(max_entries=16, show_spinner=False)
def vocabulary_similarity(model_id: str) -> analysis.VocabularySimilarity:
    """`analysis.vocabulary_similarity` of the model's (shared) embedding matrix, computed once per model."""
    return analysis.vocabulary_similarity(model_io.by_id(model_id).model.src_embed.lut.weight)


# Random pairs of rows scoring this much or more on average: the rows share a large direction, and a high
# cosine says little (0.55 in the d_model 128 model shipped before; 0.07 in the d_model 256 one).
SHARED = 0.3


def baseline_words(base: analysis.VocabularySimilarity, sentence_mean: float) -> str:
    """What a cosine is worth on this model, with its numbers: random pairs of vocabulary rows, the
    sentence's pieces, the shared mean row, and random pairs once it is taken away."""
    said = ("Cosine similarity compares the direction of two vectors: 1 means the same direction, 0 "
            "unrelated, −1 opposite. Read it against a baseline: two pieces drawn at random from the whole "
            f"vocabulary score **{base.raw:.2f}** on average ({base.pairs:,} random pairs of its "
            f"{base.rows:,} rows), and the pieces of your sentence {sentence_mean:.2f}. ")
    if base.raw >= SHARED:
        said += ("So a high cosine here says little. The rows share one large direction, the **mean row** of "
                 f"the matrix: a typical row's cosine with it is {base.along_mean:.2f}. ")
    else:
        said += ("Random pieces are close to unrelated here, so a cosine well above that stands out. The "
                 "rows still lean a little one way, towards the **mean row** of the matrix (a typical row's "
                 f"cosine with it is {base.along_mean:.2f}). ")
    return said + (
        "The same matrix scores every vocabulary entry at the output, where a part that all rows share adds "
        "the same amount to every score and the softmax ignores it, so training has no reason to remove it. "
        f"Subtract the mean row from every row (*centred* embeddings) and random pairs score "
        f"**{base.centred:.2f}**: what is left is what sets the pieces apart.")


def similarity(trace: Trace, compared: int, base: analysis.VocabularySimilarity) -> torch.Tensor:
    """Cosine similarity (S, S) of the source's raw embedding rows, of those rows less the vocabulary's
    mean row (CENTRED), or of the encoder's input E[x]·√d_model + PE(pos) (WITH_POSITIONS)."""
    if compared == WITH_POSITIONS:
        return analysis.cosine_similarity(trace.get("src_pos_enc.hook_sum"))
    rows = trace.get("src_embed.hook_embed")  # (S, D)
    return analysis.cosine_similarity(rows - base.mean_row if compared == CENTRED else rows)


def repeated_piece(pieces: list[str]) -> tuple[str, int] | None:
    """A piece that occurs more than once and how often (a word before punctuation), specials aside;
    None when no piece repeats."""
    counts = collections.Counter(p for p in pieces if p not in analysis.SPECIALS)
    repeats = sorted((p for p in counts if counts[p] > 1), key=lambda p: not any(c.isalnum() for c in p))
    return (repeats[0], counts[repeats[0]]) if repeats else None


def preset_with_repeat(model_id: str) -> str | None:
    """The name of the first preset (of the chosen model) whose pieces repeat one, or None."""
    for name, sentence in presets().items():
        if repeated_piece(model_io.source(sentence, model_id).pieces):
            return name
    return None


def use_preset(name: str) -> None:
    """A button's callback: the session's sentence becomes the preset `name` (as the sidebar picks it)."""
    st.session_state[PRESET_KEY] = name
    state.update(sentence=presets()[name])


def tokens_table(trace: Trace) -> dict:
    """The source's pieces, their ids and whether each starts a word, one column each."""
    pieces = trace.src_pieces
    return {
        "position": list(range(len(pieces))),
        "piece": pieces,
        "id": trace.src_ids,
        "starts a word": ["yes" if piece.startswith(WORD_START) else "" for piece in pieces],
    }


def rows_figure(trace: Trace, labels: list[str], colors: dict):
    """The raw embedding rows E[x] of the source, one row per token."""
    return viz_embed.embedding_heatmap(
        trace.get("src_embed.hook_embed"),
        labels,
        "Raw embedding rows E[x]: one row per token",
        colors["diverging"],
    )


def scale_summary(trace: Trace) -> analysis.ScaleSummary:
    """The sizes of E[x], E[x]·√d_model and PE(pos) in the source (§3.4's scaling)."""
    return analysis.scale_summary(
        trace.get("src_embed.hook_embed"),
        trace.get("src_embed.hook_scaled"),
        trace.get("src_pos_enc.hook_pe"),
    )


def scale_figure(sizes: analysis.ScaleSummary, labels: list[str]):
    """Each token's vector length before and after the scaling, beside PE's."""
    return viz_embed.scale_bars(
        sizes.norm_embed, sizes.norm_scaled, sizes.norm_pe, labels, sizes.sqrt_d_model
    )


def pair_mean(similarity: torch.Tensor) -> float:
    """The mean cosine similarity over the pairs of a similarity matrix (S, S), its diagonal left out."""
    return analysis.mean_off_diagonal(similarity)


def raw_mean(trace: Trace) -> float:
    """`pair_mean` of the source's raw embedding rows."""
    return pair_mean(analysis.cosine_similarity(trace.get("src_embed.hook_embed")))


def similarity_figure(similarity: torch.Tensor, labels: list[str], title: str, colors: dict):
    """A cosine similarity matrix (S, S) of the source's tokens."""
    return viz_embed.similarity_heatmap(similarity, labels, title, colors["diverging"])
