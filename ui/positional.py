"""The positional encoding page's table, figures and its last section (§3.5): the sin/cos table the model
adds, PE(pos+k) as a linear map of PE(pos), and the encoder's attention with the encoding left out."""

from __future__ import annotations

import streamlit as st
import torch

from analysis import inputs as analysis
from transformer.config import TransformerConfig
from transformer.embeddings import sinusoidal_encoding
from transformer.trace import Trace
from ui import model as model_io
from ui.page import Page, fresh
from ui.render import column_width, figure_columns, show_figure
from ui.sidebar import attention_picker
from ui.url_state import url_widget
from viz import positional as viz_pos
from viz.heatmap import attention_heatmap
from viz.labels import token_labels
from viz.palette import diverging_note


def table(cfg: TransformerConfig) -> torch.Tensor:
    """The very table the model adds: (max_len, d_model), in the model's layout."""
    return sinusoidal_encoding(cfg.max_len, cfg.d_model, cfg.pe_layout)


def table_figure(pe: torch.Tensor, n_show: int, colors: dict):
    """The table's first `n_show` positions."""
    return viz_pos.pe_heatmap(pe[:n_show], colorscale=colors["diverging"])


def curves_figure(pe: torch.Tensor, n_show: int, dims: list[int]):
    """Each of `dims` as a wave over the first `n_show` positions."""
    return viz_pos.pe_curves(pe[:n_show], dims)


def similarity_figure(pe: torch.Tensor, n_sim: int, colors: dict):
    """PE(p)·PE(q) for every pair of the first `n_sim` positions."""
    return viz_pos.position_similarity_heatmap(
        analysis.position_similarity(pe[:n_sim]), colorscale=colors["sequential"]
    )


def shift_check(pe: torch.Tensor, k: int, cfg: TransformerConfig) -> analysis.ShiftCheck:
    """M_k built from the formula, and how far M_k·PE(pos) lands from the table's PE(pos+k)."""
    return analysis.check_shift(pe, k, cfg.pe_layout)


def shift_matrix_figure(check: analysis.ShiftCheck, k: int, whole: bool, colors: dict, sel):
    """M_k: its top-left corner, or the whole matrix."""
    return viz_pos.shift_matrix_heatmap(
        check.matrix, k, None if whole else 16, colors["diverging"], max_width=column_width(2.5, sel)
    )


def shift_scatter(check: analysis.ShiftCheck, k: int, n_points: int):
    """Every entry of M_k·PE(pos) against PE(pos+k), for the first `n_points` positions."""
    return viz_pos.shift_scatter(check.predicted[:n_points], check.actual[:n_points], k)


def first_dims(cfg: TransformerConfig) -> list[int]:
    """The dimensions section 2 opens on: two sine/cosine pairs (0 and 10) and a slower wave."""
    half = cfg.pe_layout == "half_split"
    pair = cfg.d_model // 2 if half else 1  # how far a sine's cosine lies
    return [0, pair, 10, 10 + pair, cfg.d_model // 2 + (10 if half else 0)]


def shift_view(check: analysis.ShiftCheck, k: int, n_show: int, p: Page) -> None:
    """Section 4's check: M_k beside how far M_k·PE(pos) lands from PE(pos+k)."""
    cols = figure_columns([2, 3])
    with cols[0]:
        url_widget("whole", "pe_whole_matrix", False)
        corner = st.toggle("Show the whole matrix", key="pe_whole_matrix")
        show_figure(
            shift_matrix_figure(check, k, corner, p.colors, p.sel),
            key="pe_shift_matrix",
            caption=f"{diverging_note(p.colors).capitalize()}.",
        )
    with cols[1]:
        st.metric(
            f"largest |M_k·PE(pos) − PE(pos+k)| over {check.actual.shape[0]} positions × "
            f"{p.lm.model.config.d_model} dims",
            f"{check.max_error:.2e}",
        )
        n_points = max(1, n_show - k)  # the positions drawn in section 1, to keep the page light
        show_figure(
            shift_scatter(check, k, n_points),
            key="pe_shift_scatter",
            caption=f"Every entry for positions 0 to {n_points - 1} (as in section 1), predicted "
            "against real: on the line means equal (the tiny gap is float32 rounding).",
        )


@st.cache_data(max_entries=32, show_spinner="Running the encoder without positions…")
def _without_positions(model_id: str, src_ids: tuple[int, ...], order: tuple[int, ...]):
    # model_id keys the cache to the weights; the model itself is the shared cached one.
    return analysis.without_positions(model_io.by_id(model_id).model, list(src_ids), list(order))


# Only this section changes with the layer and head: a fragment, so moving them reruns it alone, not
# the table, the waves and the matrices above (the two runs without positions are cached per sentence
# and shuffle; a head change draws that head's two maps).
@st.fragment
def without_positions_view(p: Page, trace: Trace) -> None:
    """Section 5: one head's encoder self-attention without PE, in the reader's order and shuffled."""
    cfg = p.lm.model.config
    page = fresh(p)
    sel = attention_picker(page, stacks=("encoder",))
    url_widget("shuffle", "pe_shuffle_seed", 0, low=0, high=10_000)
    seed = st.number_input("Shuffle (change the number for another order)", 0, 10_000, key="pe_shuffle_seed")
    order = analysis.word_shuffle(trace.src_pieces, int(seed))
    result = _without_positions(page.lm.model_id, tuple(trace.src_ids), tuple(order))
    labels = token_labels(trace.src_pieces, page.sel.pieces)
    shuffled_labels = [labels[i] for i in order]
    st.caption(
        f"Encoder self-attention, layer {sel.show_layer()} of {cfg.n_layers}, head {sel.show_head()} "
        f"of {cfg.n_heads} ({sel.numbering}), positional encoding removed."
    )
    where = f"L{sel.show_layer()} H{sel.show_head()}, no PE"
    plain_fig, shuffled_fig = viz_pos.shuffle_pair(
        result.plain[sel.layer, sel.head], result.shuffled[sel.layer, sel.head], labels, shuffled_labels,
        where, page.colors["sequential"], column_width(2, page.sel))  # fmt: skip
    cols = figure_columns(2)
    with cols[0]:
        show_figure(plain_fig, key="pe_noposition_plain")
    with cols[1]:
        show_figure(shuffled_fig, key="pe_noposition_shuffled")
    st.text("Shuffled: " + " ".join(trace.src_pieces[i] for i in order))
    cols = st.columns(2)
    cols[0].metric("largest difference without PE", f"{result.max_diff_without_pe:.1e}")
    cols[1].metric("the same with PE", f"{result.max_diff_with_pe:.3f}")
    st.caption("Over all layers and heads, after undoing the shuffle.")  # a long metric label was cut
    with st.expander("The shuffled pattern put back in your order"):
        show_figure(
            attention_heatmap(result.restored()[sel.layer, sel.head], labels, labels,
                              f"{where}, shuffled then put back", page.colors["sequential"]),
            key="pe_noposition_restored",
            caption="Identical to the left-hand figure above: without PE, shuffling changed nothing but "
            "the order.",
        )  # fmt: skip
