"""The numbers model's right answers, next to its cross-attention (decoder page, head inspector).

The numbers grammar knows which English word each German piece translates, so for that model a
cross-attention figure can carry the gold alignment and say how often the attention agrees with it.
For the translation model, or a phrase outside the grammar, there is no right answer: nothing is drawn.
"""

from __future__ import annotations

import streamlit as st
import torch

from tasks.numbers import alignment, grammar
from transformer.trace import Trace
from ui import model as model_io
from viz.decoding import mark_gold

CAPTION = (
    "Boxes: the right answer. Each row's box marks the English word that the German piece the row "
    "writes (after its arrow) translates, by the grammar that made the data."
)


def gold(trace: Trace, sentence: str) -> tuple[torch.Tensor | None, str | None]:
    """(T, S) gold alignment for the trace's cross-attention rows, or (None, why not) — (None, None)
    when the model is not the numbers model or the sentence is outside its grammar."""
    if model_io.choice()[0] != "numbers":
        return None, None
    example = grammar.parse(sentence)
    if example is None:
        return None, None
    full = alignment.decoder_rows(sentence, trace.src_pieces, trace.tgt_pieces)
    if full is None:
        written = "".join(trace.tgt_pieces[1:]).replace(alignment.WORD_START, " ").strip()
        return None, (f"The model wrote “{written}”, not the right answer “{example.target}”, so its rows "
                      "have no gold alignment to compare with.")  # fmt: skip
    return full, None


def agreement_text(rows: torch.Tensor, matrix: torch.Tensor, what: str) -> str:
    """One sentence: how many gold-marked rows of `rows` (T, S) put their largest weight in a box."""
    hits, total = alignment.agreement(rows, matrix)
    return (f"Agreement with the right answer ({what}): {hits} of {total} German pieces put their "
            f"largest weight in their box ({100 * hits / max(total, 1):.0f}%).")  # fmt: skip


def marks(fig, trace: Trace, sentence: str, rows: torch.Tensor, what: str) -> tuple[str | None, str | None]:
    """Draw the gold boxes on `fig` (in place): (the caption to show, None), or (None, why there is no
    gold, or None). Draws nothing on the page itself, so a cached figure builder can call it."""
    matrix, why_not = gold(trace, sentence)
    if matrix is None:
        return None, why_not
    mark_gold(fig, matrix.numpy())
    return f"{CAPTION} {agreement_text(rows, matrix, what)}", None


def overlay(fig, trace: Trace, sentence: str, rows: torch.Tensor, what: str) -> str | None:
    """Draw the gold boxes on `fig` (in place) and return the caption to show, or None (no gold)."""
    caption, why_not = marks(fig, trace, sentence, rows, what)
    if why_not:
        st.caption(why_not)
    return caption
