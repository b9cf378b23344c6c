"""The head inspector page's controls and figures (§3.2.2, §6): every head's statistic over a sentence set
and the roles read off it, one head's typical pattern and its gold alignment, averaging and rollout, and
the quiz. The computations behind them are `ui.inspector`'s."""

from __future__ import annotations

import streamlit as st

from analysis import heads
from transformer.trace import Trace
from ui import gold, inspector, inspector_live, rows
from ui.page import Page
from ui.predict import predict_then_reveal
from ui.render import for_display, show_figure
from ui.state import Selection
from ui.uniform import uniform_note
from ui.url_state import url_widget
from viz import inspector as viz_inspector
from viz.decoding import CROSS_CELL
from viz.heatmap import attention_heatmap
from viz.labels import token_labels


def _cross_cells(sel: Selection) -> dict:
    return {"cell": CROSS_CELL} if sel.kind == "cross" else {}  # as large as the decoder page's


def statistics_picker(
    p: Page, quick_set: tuple[str, ...], full_set: tuple[str, ...]
) -> tuple[heads.HeadStatistics, str]:
    """The sentence set and the statistic to colour the map by, and the set's statistics (the reader's
    sentence first)."""
    cols = st.columns([2, 3])
    url_widget("set", "hi_set", "quick set", ["quick set", "all built-in"])
    which = cols[0].radio(
        "Sentences",
        ["quick set", "all built-in"],
        key="hi_set",
        horizontal=True,
        help=f"quick: {len(quick_set)} varied sentences; all: {len(full_set)}. "
        "Your sentence is always included.",
    )
    url_widget("stat", "hi_stat", next(iter(heads.STATISTICS)), list(heads.STATISTICS))
    statistic = cols[1].selectbox(
        "Colour the map by",
        list(heads.STATISTICS),
        key="hi_stat",
        format_func=lambda s: f"{s}: {heads.STATISTICS[s]}",
    )
    chosen = quick_set if which == "quick set" else full_set
    sentences = tuple(dict.fromkeys([p.src.text, *chosen]))  # the user's first; no duplicates
    return inspector.statistics(p.lm.model_id, sentences), statistic


def head_map(p: Page, sel: Selection, stats: heads.HeadStatistics, statistic: str) -> list:
    """Every head's mean `statistic` over the set, the selected head framed; returns the heads' roles
    (layer by layer)."""
    attention = (sel.stack, sel.kind)
    roles = stats.roles(attention)
    values = stats.mean(attention, statistic)
    scale = inspector.map_scale(stats, attention, statistic, values)
    fig = viz_inspector.head_map(
        values,
        f"{statistic} of every head · {inspector.ATTENTION_LABELS[attention]}-attention · "
        f"{len(stats.sentences)} sentences",
        offset=int(sel.one_based),
        roles=[[r.label for r in row] for row in roles],
        colorscale=p.colors["sequential"],
        selected=(sel.layer, sel.head),
        numbering=sel.numbering,
        zmin=scale.zmin,
        zmax=scale.zmax,
    )
    fig.layout.uirevision = inspector_live.map_scope(p, sel, stats.sentences, statistic)
    show_figure(
        fig,
        key="hi_map",
        caption=f"Rows = layers, columns = heads; the framed cell is the selected head. "
        f"{heads.STATISTICS[statistic]}. {scale.note} Blank cells: the statistic is undefined "
        "for this attention. Hover for each head's role.",
    )
    return roles


def role_tables(p: Page, sel: Selection, roles: list) -> None:
    """The roles' thresholds, and every head's role in an expander."""
    thresholds = heads.Thresholds()
    st.dataframe(
        {
            "role": list(heads.ROLE_TEXT.values()),
            "statistic": list(heads.ROLE_TEXT),
            "threshold": [getattr(thresholds, s) for s in heads.ROLE_TEXT],
        },
        hide_index=True,
        key="hi_thresholds",
    )
    with st.expander("Every head's role"):
        st.dataframe(
            {
                "layer": [sel.show_layer(layer) for layer in range(p.n_layers) for _ in range(p.n_heads)],
                "head": [sel.show_head(head) for _ in range(p.n_layers) for head in range(p.n_heads)],
                "role": [r.label for row in roles for r in row],
                "because": [r.reason for row in roles for r in row],
            },
            hide_index=True,
            key="hi_roles",
        )


def typical_trace(p: Page, sel: Selection, stats: heads.HeadStatistics, statistic: str) -> tuple[int, Trace]:
    """The set's sentence on which the selected head's `statistic` is closest to its average, and its
    attention trace."""
    index = stats.typical_sentence((sel.stack, sel.kind), statistic, sel.layer, sel.head)
    return index, inspector.attention_trace(p.lm.model_id, stats.sentences[index])


def typical_pattern(p: Page, sel: Selection, typical: Trace, sentence: str, name: str) -> None:
    """The typical sentence, the selected head's pattern on it and the note on an even spread."""
    st.text(sentence)
    show_figure(
        attention_heatmap(
            typical.attention(sel.stack, sel.kind, sel.layer)[sel.head],
            rows.query_labels(p.lm.model_id, typical, sel.stack, sel.kind, p.sel.pieces, sentence),
            token_labels(typical.key_pieces(sel.stack, sel.kind), p.sel.pieces),
            f"Typical pattern · {name} ({sel.numbering})",
            colorscale=p.colors["sequential"],
            **_cross_cells(sel),
        ),
        key="hi_typical",
    )
    uniform_note(typical, sel.stack, sel.kind, sel.layer, sel.head)


def gold_figure(p: Page, sel: Selection, trace: Trace, q_labels: list[str], name: str):
    """The selected cross-attention head on the reader's sentence, with the right alignment boxed where
    the numbers model knows it: (figure, its caption, or None without a right answer)."""
    mine = trace.attention("decoder", "cross", sel.layer)[sel.head]  # (T, S)
    fig = attention_heatmap(
        mine,
        q_labels,
        token_labels(trace.src_pieces, p.sel.pieces),
        f"Your sentence · {name} ({sel.numbering})",
        colorscale=p.colors["sequential"],
        **_cross_cells(sel),
    )
    return fig, gold.overlay(fig, trace, p.src.text, mine, f"head {sel.show_head()} alone")


def selected_name(sel: Selection) -> str:
    """The selected attention, layer and head in words ("encoder self-attention, layer 2, head 3")."""
    return (f"{inspector.ATTENTION_LABELS[(sel.stack, sel.kind)]}-attention, layer {sel.show_layer()}, "
            f"head {sel.show_head()}")  # fmt: skip


def show_mix(p: Page, sel: Selection, trace: Trace, q_labels: list[str]):
    """Show `inspector.mix_parts` side by side, on the reader's sentence; returns the figure as shown."""
    stacked = inspector.layer_patterns(trace, sel.stack, sel.kind)  # (L, H, T_q, T_k)
    matrices, titles = inspector.mix_parts(sel, stacked, p.n_heads)
    fig = viz_inspector.side_by_side(
        matrices,
        titles,
        q_labels,
        token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces),
        f"{inspector.ATTENTION_LABELS[(sel.stack, sel.kind)]}-attention, layer "
        f"{sel.show_layer()} ({sel.numbering}), your sentence",
        colorscale=p.colors["sequential"],
    )
    fig.layout.uirevision = inspector_live.mix_scope(p, sel)  # for the browser's switcher
    fig = for_display(fig)
    show_figure(fig, key="hi_rollout", displayed=True)
    return fig


def quiz(p: Page, sel: Selection, trace: Trace, q_labels: list[str], name: str) -> None:
    """Predict, then reveal, on the selected head and the reader's sentence (`ui.predict`): the other keys
    grey, the answer and a wrong guess in the palette's colours."""
    cat = p.colors["categorical"]
    predict_then_reveal(
        trace.attention(sel.stack, sel.kind, sel.layer)[sel.head],
        q_labels,
        token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces),
        key="hi_predict",
        what=f"{name} ({sel.numbering})",
        colors=(
            "#9e9e9e",
            cat[3] if sel.palette != "default" else "#2ca02c",
            cat[6] if sel.palette != "default" else "#d62728",
        ),
    )
