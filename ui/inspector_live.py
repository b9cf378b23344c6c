"""The head inspector's layer and head switched in the browser (`ui.live`): the map's frame moves to the
chosen head, and the head beside its layer's mean and rollout changes. The text around them, the typical
pattern (drawn on another sentence of the set for each head) and the tabs' other figures follow with the
rerun the slider starts."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from transformer.trace import Trace
from ui import inspector, live
from ui.page import Page
from ui.state import Selection
from viz import inspector as viz_inspector
from viz.live import heatmap_data, retitled


def map_scope(p: Page, sel: Selection, sentences: tuple[str, ...], statistic: str) -> str:
    """What the map shows apart from the selected head: the set and the statistic."""
    return live.scope(p.lm.model_id, p.src.text, replace(sel, layer=0, head=0), sentences, statistic)


def mix_scope(p: Page, sel: Selection) -> str:
    """What the head, mean and rollout figure shows apart from the layer and head: the reader's sentence."""
    return live.scope(p.lm.model_id, p.src.text, replace(sel, layer=0, head=0), sel.decoder_choice)


@st.cache_resource(max_entries=32, show_spinner=False)
def _mix_changes(model_id: str, text: str, sel: Selection, _trace: Trace, _drawn) -> dict:
    """(layer, head) -> what changes in the head / mean / rollout figure `_drawn` (drawn for `sel`) to
    show that layer and head: its matrices, its panels' titles, the layer in its title."""
    n_layers, n_heads = _trace.config.n_layers, _trace.config.n_heads
    stacked = inspector.layer_patterns(_trace, sel.stack, sel.kind)  # (L, H, T_q, T_k)
    contrast = _drawn.data[0].customdata is not None  # weights relative to uniform
    drawn = f"layer {sel.show_layer()}"
    changes = {}
    for layer in range(n_layers):
        layout = retitled(_drawn, drawn, f"layer {sel.show_layer(layer)}")
        for head in range(n_heads):
            matrices, titles = inspector.mix_parts(replace(sel, layer=layer, head=head), stacked, n_heads)
            panels = {f"annotations[{i}].text": title for i, title in enumerate(titles)}
            changes[(layer, head)] = {"hi_rollout": (heatmap_data(matrices, contrast=contrast),
                                                     {**layout, **panels})}  # fmt: skip
    return changes


def switch_in_browser(p: Page, sel: Selection, trace: Trace, mix, sentences: tuple[str, ...],
                      statistic: str) -> None:  # fmt: skip
    """Mount the browser's switcher for the map ("hi_map") and the head / mean / rollout figure `mix` as
    drawn ("hi_rollout")."""
    mixed = _mix_changes(p.lm.model_id, p.src.text, replace(sel, chosen=frozenset()), trace, mix)
    changes = {where: {**per_fig, "hi_map": viz_inspector.frame_change(*where)}
               for where, per_fig in mixed.items()}  # fmt: skip
    panels = len(mix.data)
    live.live(
        map_scope(p, sel, sentences, statistic),
        {"layer": "atlas_layer", "head": "atlas_head"},
        int(sel.one_based),
        (sel.layer, sel.head),
        {"hi_map": [live.role(None, None)],
         "hi_rollout": [live.role("query", "key", "" if i == 0 else str(i + 1)) for i in range(panels)]},
        changes,
        key="hi_live",
        scopes={"hi_rollout": mix_scope(p, sel)},
    )  # fmt: skip
