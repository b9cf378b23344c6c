"""The decoder page's layers and heads switched in the browser (`ui.live`): its masked self-attention
changes with the layer and the head, its cross-attention (the heads' average and head by head) and the
newest query's rows of "this layer" with the layer only. Each figure is found by the key the page draws
it under; the figures a reader has not opened are simply not there to change."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from analysis.decoding import step_from_trace
from ui import generation, live
from ui import model as model_io
from ui.state import Selection
from viz import decoding as dec_viz
from viz import grids
from viz.live import heatmap_change


def _where(sel: Selection, layer: int, n_layers: int) -> str:
    return f"layer {sel.show_layer(layer)} of {n_layers}"


@st.cache_resource(max_entries=32, show_spinner=False)
def _changes(model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None,
             prefix: tuple[int, ...], step_keys: tuple[tuple[str, str], ...]) -> dict:  # fmt: skip
    """(layer, head) -> the masked self-attention's change; (layer,) -> the other figures' changes; all
    from the figures of layer 0 and head 0 (`sel` has them)."""
    lm, tr = model_io.by_id(model_id), generation.read(model_id, text, sel, ids)
    n_layers, n_heads = lm.model.config.n_layers, lm.model.config.n_heads
    masked = generation.self_figure(model_id, text, sel, ids)
    cross, _, _ = generation.cross_figures(model_id, text, sel, ids)
    drawn = generation.step_figures(model_id, text, prefix, sel)
    step = step_from_trace(model_io.trace(model_id, text, target_ids=prefix), generation.TOP_K)
    allowed = tr.get(tr.attn_name("decoder", "self", 0, "mask"))[0]  # (T, T): the same in every layer
    head_names, _ = generation.names(sel, n_layers, n_heads)
    first = f"{_where(sel, 0, n_layers)}, {head_names[0]}"
    changes: dict = {}
    for layer in range(n_layers):
        old, new = _where(sel, 0, n_layers), _where(sel, layer, n_layers)
        weights = tr.attention("decoder", "cross", layer)  # (H, T, S)
        changes[(layer,)] = {
            "dec_cross_avg": heatmap_change(cross["average"], old, new, weights.mean(0)),
            "dec_cross_heads": grids.grid_changes(cross["heads"], old, new, weights),
            **{key: heatmap_change(drawn[name], old, new, step.rows[(name, layer)])
               for name, key in step_keys},
        }  # fmt: skip
        self_attn = tr.attention("decoder", "self", layer)  # (H, T, T)
        for head in range(n_heads):
            changes[(layer, head)] = {"dec_self": dec_viz.masked_changes(
                masked, first, f"{new}, {head_names[head]}", self_attn[head], allowed)}  # fmt: skip
    return changes


def switch_in_browser(model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None,
                      prefix: tuple[int, ...], step_keys: dict[str, str]) -> None:  # fmt: skip
    """Mount the browser's switcher for the decoder page's figures: `sel` as drawn, `ids` what the decoder
    reads, `prefix` where "Next token" stands, `step_keys` the keys of its rows of this layer ("self",
    "cross" -> the key the page draws each under)."""
    first = replace(sel, layer=0, head=0)
    figures = generation.scope(model_id, text, sel, ids)
    rows = generation.scope(model_id, text, sel, None, prefix)
    live.live(
        figures,
        {"layer": "atlas_layer", "head": "atlas_head"},
        int(sel.one_based),
        (sel.layer, sel.head),
        {
            "dec_self": [live.role("query", "key")],
            "dec_cross_avg": [live.role("query", "source")],
            "dec_cross_heads": [live.role("query", "source")],  # one trace: a panel per head
            step_keys["self"]: [live.role(None, "step key")],  # the "Next token" prefix: other tokens
            step_keys["cross"]: [live.role(None, "source")],
        },
        _changes(model_id, text, first, ids, prefix, tuple(step_keys.items())),
        key="dec_live",
        depends={key: ("layer",) for key in ("dec_cross_avg", "dec_cross_heads", *step_keys.values())},
        scopes={key: rows for key in step_keys.values()},
    )
