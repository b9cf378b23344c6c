"""The paper figures page's head finder: which heads link one word of a sentence to another.

Our heads are not numbered like the paper's, so "the head of Figure 4" has to be looked for: every
layer and head of the encoder's self-attention is ranked by the weight from a query word to a key
word (`analysis.decoding.rank_heads`), and the strongest is drawn the paper's way.
"""

from __future__ import annotations

import streamlit as st

from analysis.decoding import rank_heads, words
from transformer.trace import Trace
from ui.page import Page
from ui.render import show_figure, show_table
from ui.uniform import uniform_note
from ui.url_state import url_widget
from viz import paper
from viz.labels import choices, span_label, token_labels


def _word_index(texts: list[str], text: str, fallback: int) -> int:
    lowered = [t.lower().strip(".,;:!?\"'()") for t in texts]
    return lowered.index(text.lower()) if text.lower() in lowered else min(fallback, len(texts) - 1)


def head_finder(p: Page, trace: Trace, head_names: list[str]) -> None:
    """Pick a query and a key word of the trace's sentence; rank every head; draw the strongest."""
    sel, colors = p.sel, p.colors["categorical"]
    numbering = f"Layers and heads are numbered {sel.numbering}."
    labels = token_labels(trace.src_pieces, sel.pieces)
    word_list = words(trace.src_pieces)
    texts = [w.text for w in word_list]
    # Words are named as the figures name their tokens: as written, or by position and piece.
    names = choices([span_label(labels, w.positions, sel.pieces) for w in word_list])
    cols = st.columns(2)
    options = list(range(len(word_list)))
    url_widget("fq", "finder_query", _word_index(texts, "its", 0), options)
    q_word = cols[0].selectbox("Query word (attending)", options, format_func=lambda i: names[i],
                               key="finder_query")
    url_widget("fk", "finder_key", _word_index(texts, "Law", 1), options)
    k_word = cols[1].selectbox("Key word (attended to)", options, format_func=lambda i: names[i],
                               key="finder_key")
    ranking = rank_heads(trace, word_list[q_word].positions, word_list[k_word].positions)
    show_table(paper.ranking_rows(ranking, sel.show_layer, sel.show_head, limit=10), key="finder_ranking",
               width="stretch")
    st.caption(f"The 10 strongest of {len(ranking)} heads (all layers). {numbering}")
    best = ranking[0]
    show_figure(
        paper.figure3(trace.attention("encoder", "self", best.layer), labels, word_list[q_word].positions[0],
                      head_names, colors,
                      f"Strongest head: encoder layer {sel.show_layer(best.layer)}, {head_names[best.head]} "
                      f"(weight {best.weight:.2f})", heads=[best.head]),
        key="finder_best",
        caption=f"Lines leaving the query word's first piece in the strongest head. {numbering}",
    )
    uniform_note(trace, "encoder", "self", best.layer, best.head)
