"""The Tokens & embeddings page's similarity section: the baseline its cosines are read against (random
pairs of the whole vocabulary, raw and centred, measured once per model) and a repeated piece to show."""

from __future__ import annotations

import collections

import streamlit as st
import torch

from analysis import inputs as analysis
from transformer.trace import Trace
from ui import model as model_io
from ui import state
from ui.presets import presets

PRESET_KEY = "atlas_preset"  # the sidebar's preset picker (ui.sidebar)
RAW, WITH_POSITIONS, CENTRED = 0, 1, 2  # what the page's similarity compares (its values in a link)


@st.cache_data(max_entries=16, show_spinner=False)
def vocabulary_similarity(model_id: str) -> analysis.VocabularySimilarity:
    """`analysis.vocabulary_similarity` of the model's (shared) embedding matrix, computed once per model."""
    return analysis.vocabulary_similarity(model_io.by_id(model_id).model.src_embed.lut.weight)


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
