"""The multi-head page's figures (§3.2.2): a layer's heads grid, head view and Concat·W^O, the model
view, and what changes in the layer's figures for every other layer (and in the head view for every
other query token), for the browser to switch without a rerun (`ui.live`)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from analysis.decoding import SPECIAL_PIECES
from transformer.trace import Trace
from ui import live, rows
from ui import model as model_io
from ui.frozen import frozen
from ui.render import for_display, grid_columns
from ui.state import Selection
from ui.url_state import url_widget
from viz import concat, grids, multihead
from viz.labels import choices, token_labels
from viz.palette import palette

TOKEN_KEY, ALL_TOKENS = "mh_token", "all tokens"  # the head view's query token box, and its first option


def names(sel: Selection, n_layers: int, n_heads: int) -> tuple[list[str], list[str]]:
    """The heads' and the layers' names in the reader's numbering."""
    return ([f"head {sel.show_head(h)}" for h in range(n_heads)],
            [f"layer {sel.show_layer(i)}" for i in range(n_layers)])  # fmt: skip


def head_view_picker(
    sel: Selection, tr: Trace, q_labels: list[str], n_heads: int
) -> tuple[list[int], int | None]:
    """The head view's controls: the heads to draw and the query token (None: all tokens), which opens
    on the first word."""
    all_heads = list(range(n_heads))
    url_widget("heads", "mh_heads", all_heads, all_heads, offset=int(sel.one_based))
    chosen_heads = st.multiselect(  # a row of its own, chips named by number: all eight show
        f"Heads to draw ({sel.numbering})",
        all_heads,
        format_func=lambda h: f"{sel.show_head(h)}",
        key="mh_heads",
    )
    pieces = tr.query_pieces(sel.stack)
    first_word = next((i for i, piece in enumerate(pieces) if piece not in SPECIAL_PIECES), 0)
    token_options = [None, *range(len(q_labels))]  # None: all tokens
    url_widget("tok", TOKEN_KEY, first_word, token_options)
    q_names = choices(q_labels)
    token = st.selectbox(
        "Query token",
        token_options,
        key=TOKEN_KEY,
        format_func=lambda i: ALL_TOKENS if i is None else q_names[i],
    )
    return chosen_heads, token


def w_o(model, stack: str, kind: str, layer: int):
    """W^O of one attention sub-layer, as torch stores it: (d_model, h·d_v)."""
    return getattr(getattr(model, stack).layers[layer], f"{kind}_attn").w_o.weight


def _where(sel: Selection, layer: int, n_layers: int) -> str:
    return f"layer {sel.show_layer(layer)} of {n_layers}"


def _scope(model_id: str, text: str, sel: Selection, heads: tuple[int, ...], token: int | None) -> str:
    return live.scope(model_id, text, replace(sel, layer=0), heads, token)


# Figures cached for the whole server (only read, never changed), ready to show (`for_display`): going
# back to a layer seen before draws without building a figure. Each is keyed by what it shows only:
# the model view does not change with the layer, and then is not drawn again either.
@st.cache_resource(max_entries=64, show_spinner=False)
def layer_figures(
    model_id: str, text: str, sel: Selection, heads: tuple[int, ...], token: int | None
) -> dict:
    """The heads grid, the head view (of `heads`, for query `token` or all) and Concat·W^O of a layer."""
    lm, tr = model_io.by_id(model_id), model_io.decoder_trace(model_id, text, sel.decoder_choice)
    cfg, colors = lm.model.config, palette(sel.palette)
    head_names, _ = names(sel, cfg.n_layers, cfg.n_heads)
    weights = tr.attention(sel.stack, sel.kind, sel.layer)  # (H, T_q, T_k)
    q_labels = rows.query_labels(model_id, tr, sel.stack, sel.kind, sel.pieces)
    k_labels = token_labels(tr.key_pieces(sel.stack, sel.kind), sel.pieces)
    where = f"{sel.stack} {sel.kind}-attention, {_where(sel, sel.layer, cfg.n_layers)}"
    figs = {
        "grid": grids.heads_grid(weights, q_labels, k_labels, head_names,
                                 f"{where}: all {cfg.n_heads} heads", colorscale=colors["sequential"],
                                 max_cols=grid_columns(sel, sel.kind)),
        "concat": concat.concat_figure(
            tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "z")),  # (H, T_q, d_v)
            tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "concat")),  # (T_q, h·d_v)
            w_o(lm.model, sel.stack, sel.kind, sel.layer),
            tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "out")),  # (T_q, d_model)
            q_labels, head_names, f"{where}: Concat(heads) · W^O (+ bias)", colorscale=colors["diverging"],
        ),
    }  # fmt: skip
    shown = {name: for_display(fig, sel) for name, fig in figs.items()}
    stamped = live.stamp(shown, _scope(model_id, text, sel, heads, token))
    figs = {name: frozen(fig) for name, fig in stamped.items()}
    if heads:
        figs["head_view"] = head_view_figure(model_id, text, sel, heads, token)
    return figs


@st.cache_resource(max_entries=64, show_spinner=False)
def head_view_figure(model_id: str, text: str, sel: Selection, heads: tuple[int, ...], token: int | None):
    """The head view of a layer: the lines of `heads` leaving query `token` (None: every query)."""
    lm, tr = model_io.by_id(model_id), model_io.decoder_trace(model_id, text, sel.decoder_choice)
    cfg, colors = lm.model.config, palette(sel.palette)
    where = f"{sel.stack} {sel.kind}-attention, {_where(sel, sel.layer, cfg.n_layers)}"
    fig = multihead.head_view(
        tr.attention(sel.stack, sel.kind, sel.layer),
        rows.query_labels(model_id, tr, sel.stack, sel.kind, sel.pieces),
        token_labels(tr.key_pieces(sel.stack, sel.kind), sel.pieces),
        names(sel, cfg.n_layers, cfg.n_heads)[0], colors["categorical"], f"{where}: head view",
        query=token, heads=list(heads),
    )  # fmt: skip
    fig = for_display(fig, sel)
    fig.layout.uirevision = _scope(model_id, text, sel, heads, token)
    return frozen(fig)


@st.cache_resource(max_entries=32, show_spinner=False)
def model_view_figure(model_id: str, text: str, sel: Selection):
    """Every layer × head of the selection's stack and attention (its layer and head do not matter)."""
    lm, tr = model_io.by_id(model_id), model_io.decoder_trace(model_id, text, sel.decoder_choice)
    cfg = lm.model.config
    head_names, layer_names = names(sel, cfg.n_layers, cfg.n_heads)
    fig = grids.model_view(
        [tr.attention(sel.stack, sel.kind, layer) for layer in range(cfg.n_layers)],
        layer_names, head_names, f"{sel.stack} {sel.kind}-attention: layers × heads",
        colorscale=palette(sel.palette)["sequential"],
        query_labels=rows.query_labels(model_id, tr, sel.stack, sel.kind, sel.pieces),
        key_labels=token_labels(tr.key_pieces(sel.stack, sel.kind), sel.pieces),
    )  # fmt: skip
    return for_display(fig, sel)


@st.cache_resource(max_entries=32, show_spinner=False)
def _changes(model_id: str, text: str, sel: Selection, heads: tuple[int, ...], token: int | None) -> dict:
    """layer -> figure -> its change, from layer 0's figures (`sel` has layer 0): the grid's and the
    concat's numbers, and the head view whole (its lines depend on the weights)."""
    lm, tr = model_io.by_id(model_id), model_io.decoder_trace(model_id, text, sel.decoder_choice)
    n_layers = lm.model.config.n_layers
    drawn = layer_figures(model_id, text, sel, heads, token)
    changes = {}
    for layer in range(n_layers):
        old, new = _where(sel, 0, n_layers), _where(sel, layer, n_layers)

        def get(what: str, layer=layer):
            return tr.get(tr.attn_name(sel.stack, sel.kind, layer, what))

        per_fig = {
            "mh_grid": grids.grid_changes(drawn["grid"], old, new, tr.attention(sel.stack, sel.kind, layer)),
            "mh_concat": concat.concat_changes(drawn["concat"], old, new, get("concat"),
                                               w_o(lm.model, sel.stack, sel.kind, layer), get("out")),
        }  # fmt: skip
        if heads:  # drawn anew: which lines there are depends on the weights
            other = head_view_figure(model_id, text, replace(sel, layer=layer), heads, token)
            per_fig["mh_head_view"] = {"figure": other.to_dict()}
        changes[(layer,)] = per_fig
    return changes


@st.cache_resource(max_entries=32, show_spinner=False)
def _token_views(model_id: str, text: str, sel: Selection, heads: tuple[int, ...], _drawn) -> dict:
    """The head view of the layer `sel` shows, for every query token and for all of them, as the browser
    draws it when the reader picks another token: token -> its traces and `layout.meta` (the weights of
    its lines), with the text size of the head view `_drawn` for one of them. Cached by all but that
    token: a token picked is sent the same views again, not built again."""
    lm, tr = model_io.by_id(model_id), model_io.decoder_trace(model_id, text, sel.decoder_choice)
    cfg, colors = lm.model.config, palette(sel.palette)
    drawn = _drawn.to_dict()
    q_labels = rows.query_labels(model_id, tr, sel.stack, sel.kind, sel.pieces)
    k_labels = token_labels(tr.key_pieces(sel.stack, sel.kind), sel.pieces)
    weights = tr.attention(sel.stack, sel.kind, sel.layer)  # (H, T_q, T_k)
    head_names = names(sel, cfg.n_layers, cfg.n_heads)[0]
    size = drawn["data"][-1]["textfont"]["size"]  # the tokens' px, larger in presenter mode
    views = {}
    for query in [None, *range(len(q_labels))]:
        data, lines = multihead.head_view_data(weights, q_labels, k_labels, head_names, colors["categorical"],
                                               query=query, heads=list(heads), text_size=size)  # fmt: skip
        views[query] = {"data": data, "layout": {"meta": {**drawn["layout"]["meta"], "weights": lines}}}
    return live.by_query(views)


ROLES = {
    "mh_grid": [live.role("query", "key")],  # one trace: a panel per head (ui/live.js reads where)
    "mh_concat": [live.role("query", "dim"), live.role(None, None, "2"), live.role("query", "dim", "3")],
    "mh_head_view": [],
}


def switch_in_browser(
    model_id: str, text: str, sel: Selection, heads: tuple[int, ...], token: int | None
) -> None:
    """Mount the browser's switcher for the layer's figures (drawn as "mh_grid", "mh_head_view",
    "mh_concat")."""
    first = replace(sel, layer=0)
    roles = dict(ROLES)
    if not heads:
        roles.pop("mh_head_view")
    following = None
    if heads:  # another query token: the head view's lines for it, drawn in the browser
        tr = model_io.decoder_trace(model_id, text, sel.decoder_choice)
        q_labels = rows.query_labels(model_id, tr, sel.stack, sel.kind, sel.pieces)
        drawn = head_view_figure(model_id, text, sel, heads, token)
        views = {"mh_head_view": _token_views(model_id, text, sel, heads, drawn)}
        following = live.following(TOKEN_KEY, token, [ALL_TOKENS, *choices(q_labels)], views, everything=True)
    live.live(
        _scope(model_id, text, sel, heads, token),
        {"layer": "atlas_layer"},
        int(sel.one_based),
        (sel.layer,),
        roles,
        _changes(model_id, text, first, heads, token),
        key="mh_live",
        following=following,
    )
