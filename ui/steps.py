"""The step-by-step page's figures (scaled dot-product attention, §3.2.1, for one head), and what
changes in them for every other layer and head, for the browser to switch without a rerun (`ui.live`)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from transformer.trace import Trace
from ui import live, rows
from ui import model as model_io
from ui.frozen import frozen
from ui.render import column_width, figure_columns, figure_first, for_display, show_figure
from ui.state import Selection
from ui.url_state import url_widget
from viz import neuron
from viz import steps as viz_steps
from viz.labels import choices, token_labels
from viz.palette import palette

# What each figure's rows and columns are, trace by trace (for the hovered token's row and column)
ROLES = {
    "q": [live.role("query", "dim")],
    "k": [live.role("key", "dim")],
    "v": [live.role("key", "dim")],
    "qkv": [live.role("query", "dim"), live.role("key", "dim", "2"), live.role("key", "dim", "3")],
    **{name: [live.role("query", "key")] for name in ("qk", "scores", "mask", "masked", "pattern")},
    "z": [live.role("query", "dim")],
    "journey": [live.role(None, "key"), live.role(None, "key", "2")],
    "neuron": [live.role("key", "dim"), live.role("key", None, "2"), live.role(None, "dim", "3")],
}

# Step 1's three projections, one a line: on one line they ran past the formula's column at 1440 px.
QKV_FORMULA = (r"\begin{aligned} Q &= X W_i^Q + b_i^Q \\ K &= X' W_i^K + b_i^K \\ "
               r"V &= X' W_i^V + b_i^V \end{aligned}")


def heading(sel: Selection, n_layers: int, n_heads: int) -> str:
    """The attention, layer and head the page shows, in the reader's numbering."""
    return (
        f"{sel.stack} {sel.kind}-attention, layer {sel.show_layer()} of {n_layers}, "
        f"head {sel.show_head()} of {n_heads} ({sel.numbering})"
    )


def show_heading(sel: Selection, n_layers: int, n_heads: int) -> None:
    """The `heading` above the steps; in presenter mode the controls right above it name the same, and
    the first step's figure needs its line on a 1024 × 768 projector's first screen."""
    if not sel.presenter:
        st.subheader(heading(sel, n_layers, n_heads))


def query_options(model_id: str, trace: Trace, sel: Selection) -> tuple[str, list[str]]:
    """The query picker's widget key (one per stack and length) and the names of its options ("—",
    no query followed, then every query)."""
    labels = rows.query_labels(model_id, trace, sel.stack, sel.kind, sel.pieces)
    return f"steps_query_{sel.stack}_{len(labels)}", ["—", *choices(labels)]


def query_picker(model_id: str, trace: Trace, sel: Selection) -> int | None:
    """The query the page follows through every step (None: none)."""
    query_key, names = query_options(model_id, trace, sel)
    options = [None, *range(len(names) - 1)]
    url_widget("q", query_key, None, options)
    return st.selectbox(
        "Follow one query through every step (framed in red)",
        options,
        format_func=lambda i: names[0] if i is None else names[i + 1],
        key=query_key,
    )


def stepper(sel: Selection, figs: dict, shown: list[str]):
    """The page's `step(title, formula, text, names, caption=None)`, drawing `figs[name]` for each of
    `names` as "steps_<name>" and adding the names to `shown`."""

    def step(title: str, formula: str, text: str, names: list[str], caption: str | None = None) -> None:
        """One step: its formula and explanation side by side, then its figure(s) side by side. In
        presenter mode (large type, often a narrow projector) everything stands one under another, the
        figures first: the first step's is then on the projector's first screen."""
        st.header(title)
        figures = figure_first()
        left, right = (st, st) if sel.presenter else st.columns([2, 3])
        left.latex(formula)
        right.markdown(text)
        with figures:
            for place, name in zip(figure_columns(len(names)), names):
                with place:
                    show_figure(figs[name], key=f"steps_{name}", displayed=True)
        shown.extend(names)
        if caption:
            st.caption(caption)

    return step


def _show(figs: dict, shown: list[str], name: str, caption: str) -> None:
    show_figure(figs[name], key=f"steps_{name}", caption=caption, displayed=True)
    shown.append(name)


def show_journey(figs: dict, shown: list[str]) -> None:
    """The followed query's row from scaled scores to weights, drawn as "steps_journey"."""
    _show(figs, shown, "journey",
          "Top: the row of scaled scores; bottom: the same row after the mask and softmax.")


def show_neuron(figs: dict, shown: list[str], d_k: int, colors: dict) -> None:
    """The followed query's dot products, dimension by dimension, drawn as "steps_neuron"."""
    low, high = colors["diverging_ends"]
    st.subheader("Inside one dot product")
    st.markdown(
        f"Step 2's score q · k is a sum of d_k = {d_k} products, one per dimension. Each row below is one "
        "key: its products with the followed query's vector q (on top), dimension by dimension, and on the "
        f"right their sum, the score in Q Kᵀ. {high.capitalize()} terms push the score up, {low} ones pull "
        "it down; a large score needs many terms of one sign or a few large ones. The √d_k and the mask "
        "come after this."
    )
    _show(figs, shown, "neuron",
          "Each panel has its own colour scale, centred on 0. Hover a cell for q, k and their product.")


def _context(sel: Selection, layer: int, head: int) -> str:
    return f"L{sel.show_layer(layer)} H{sel.show_head(head)}"


def _tensors(trace, sel: Selection, layer: int, head: int) -> dict:
    """One head's tensors as `viz.steps.step_figures` takes them."""

    def get(what: str):
        return trace.get(trace.attn_name(sel.stack, sel.kind, layer, what))[head]

    return dict(q=get("q"), k=get("k"), v=get("v"), qk=get("qk"), scores=get("scores"),
                masked=get("masked_scores"), pattern=get("pattern"), z=get("z"))  # fmt: skip


def _scope(model_id: str, text: str, sel: Selection, row: int | None) -> str:
    """Everything the figures show but the layer and head."""
    return live.scope(model_id, text, replace(sel, layer=0, head=0), row)


@st.cache_resource(max_entries=64, show_spinner=False)
def step_figures(model_id: str, text: str, sel: Selection, row: int | None) -> dict:
    """Every figure of the steps for one selection and followed query, as shown (`for_display`).

    Cached for the whole server (figures are only read, never changed): going back to a head seen
    before, or a second reader on the same sentence, draws without building a figure again.
    """
    trace = model_io.decoder_trace(model_id, text, sel.decoder_choice)
    t = _tensors(trace, sel, sel.layer, sel.head)
    query_labels = rows.query_labels(model_id, trace, sel.stack, sel.kind, sel.pieces)
    key_labels = token_labels(trace.key_pieces(sel.stack, sel.kind), sel.pieces)
    colors = palette(sel.palette)
    figs = viz_steps.step_figures(
        t["q"], t["k"], t["v"], t["qk"], t["scores"],
        trace.get(trace.attn_name(sel.stack, sel.kind, sel.layer, "mask"))[0],
        t["masked"], t["pattern"], t["z"],
        query_labels, key_labels,
        sequential=colors["sequential"], diverging=colors["diverging"], highlight=row,
        context=_context(sel, sel.layer, sel.head), half_width=column_width(2, sel),
        vectors_alone=sel.presenter,
    )  # fmt: skip
    if not sel.presenter:  # Q, K and V as one figure of three panels (one under another when presenting)
        title = f"Queries, keys and values · {_context(sel, sel.layer, sel.head)}"
        figs["qkv"] = viz_steps.qkv_figure(figs["q"], figs["k"], figs["v"], title)
    if row is not None:
        figs["journey"] = viz_steps.query_journey(
            t["scores"][row], t["masked"][row], t["pattern"][row], key_labels,
            query_labels[row], colors["categorical"][0],
        )  # fmt: skip
        figs["neuron"] = neuron.neuron_view(t["q"][row], t["k"], t["qk"][row], key_labels, query_labels[row],
                                            colors["diverging"], _context(sel, sel.layer, sel.head))
    shown = {name: for_display(fig, sel) for name, fig in figs.items()}
    # frozen: turned into the browser's JSON once here, not once per session that shows them (ui.frozen)
    return {name: frozen(fig) for name, fig in live.stamp(shown, _scope(model_id, text, sel, row)).items()}


@st.cache_resource(max_entries=32, show_spinner=False)
def _changes(model_id: str, text: str, scope_sel: Selection, shown: tuple[str, ...], _figs: dict) -> dict:
    """What changes in the shown figures `_figs` (drawn for `scope_sel`'s layer and head) for every
    layer and head of its stack and attention; cached by everything but the layer, the head and the
    followed query (the journey's changes hold every query's row)."""
    trace = model_io.decoder_trace(model_id, text, scope_sel.decoder_choice)
    cfg = model_io.by_id(model_id).model.config
    drawn = {name: _figs[name] for name in shown}
    context = _context(scope_sel, scope_sel.layer, scope_sel.head)
    return {(layer, head): viz_steps.step_changes(drawn, context, _context(scope_sel, layer, head),
                                                  _tensors(trace, scope_sel, layer, head))
            for layer in range(cfg.n_layers) for head in range(cfg.n_heads)}  # fmt: skip


def _by_query(model_id: str, trace: Trace, sel: Selection) -> dict:
    """What changes from one followed query to another in the journey (`viz.steps.journey_by_query`)
    and in the neuron view (`viz.neuron.neuron_by_query`), by figure key."""
    masked = trace.get(trace.attn_name(sel.stack, sel.kind, sel.layer, "masked_scores"))[sel.head]
    labels = rows.query_labels(model_id, trace, sel.stack, sel.kind, sel.pieces)
    d_k, colour = model_io.by_id(model_id).model.config.d_k, palette(sel.palette)["categorical"][0]
    return {"steps_journey": viz_steps.journey_by_query(masked, labels, colour),
            "steps_neuron": neuron.neuron_by_query(labels, d_k)}


def switch_in_browser(model_id: str, text: str, sel: Selection, row: int | None, shown: list[str]) -> None:
    """Mount the browser's switcher for the figures `shown` (drawn as "steps_<name>"), and for the
    followed query `row` (`query_picker`) when one is followed."""
    # the changes do not depend on the followed query: drawn from the first head's figures for query 0
    # (or none), so that following another query builds no figures for it at layer 0, head 0
    first_sel = replace(sel, layer=0, head=0)
    first = _changes(model_id, text, first_sel, tuple(shown),
                     step_figures(model_id, text, first_sel, None if row is None else 0))  # fmt: skip
    following = None
    if row is not None:  # one followed query to another; from none to one the page grows: a rerun
        trace = model_io.decoder_trace(model_id, text, sel.decoder_choice)
        query_key, names = query_options(model_id, trace, sel)
        following = live.following(query_key, row, names, _by_query(model_id, trace, sel))
    live.live(
        _scope(model_id, text, sel, row),
        {"layer": "atlas_layer", "head": "atlas_head"},
        int(sel.one_based),
        (sel.layer, sel.head),
        {f"steps_{name}": ROLES[name] for name in shown},
        {
            where: {f"steps_{name}": change for name, change in per_fig.items()}
            for where, per_fig in first.items()
        },  # fmt: skip
        key="steps_live",
        following=following,
    )
