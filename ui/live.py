"""Layers and heads switched in the browser: a page's figures change under the Layer and Head sliders
at once, without waiting for the script to rerun (`ui/live.js`, a Streamlit v2 component).

The page draws its figures for the current selection as always, stamps them with a scope
(`stamp`), and mounts `live` once with what changes in each figure for every other layer and head
(`viz.live`). The sliders stay Streamlit's own: the rerun they cause keeps the URL and the other pages
in step and redraws the same picture the browser already shows.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from pathlib import Path

import streamlit as st
from _plotly_utils.utils import PlotlyJSONEncoder, convert_to_base64

from ui.state import Selection
from viz.live import Change

_COMPONENT = st.components.v2.component(
    "attention_atlas.live", js=(Path(__file__).with_name("live.js")).read_text(encoding="utf-8")
)


def scope(*parts) -> str:
    """A short name for what a page's figures show apart from the layer and head (model, sentence,
    stack, view options): the browser changes only figures of the scope it was given. Whether the reader
    or a link chose a selection's layer and head (`Selection.chosen`) does not change a picture, and is
    left out: a shared link names the same scope as the view it was copied from."""
    parts = tuple(replace(p, chosen=frozenset()) if isinstance(p, Selection) else p for p in parts)
    return hashlib.sha1(repr(parts).encode()).hexdigest()[:12]


def stamp(figs: dict, name: str) -> dict:
    """The figures with `scope` name `name` (Plotly's layout.uirevision); changed in place, before
    they are frozen (`ui.frozen`)."""
    for fig in figs.values():
        fig.layout.uirevision = name
    return figs


def role(rows: str | None, cols: str | None, axes: str = "") -> dict:
    """What a trace's rows and columns are ("query", "key", "dim" or None), and its axes ("", "2", …),
    for the browser to light the hovered token's row and column."""
    return {"rows": rows, "cols": cols, "x": f"x{axes}", "y": f"y{axes}"}


def following(key: str, drawn: int | None, names: list[str], changes: dict, everything: bool = False) -> dict:
    """A followed query for `live`: its select box's widget key, the query `drawn` (0-based; None: the
    first option), the names of the box's options (the first: no query followed, or with `everything`
    all of them; then query 0, 1, …), and figure key -> what changes in it from one query to another:
    a change whose values are `viz.live.by_row`, or `by_query` (figures whose traces depend on it)."""
    return {"key": key, "drawn": drawn, "names": names, "figures": changes, "all": everything}


def by_query(specs: dict[int | None, dict]) -> dict:
    """Query (None: all) -> {"data": the figure's traces, "layout": what else changes}, at the drawn
    selection: for figures whose traces depend on the query (`following`). Arrays travel as Plotly
    sends a figure's (`plain`)."""
    return {"by_query": {json.dumps(query): plain(spec) for query, spec in specs.items()}}


def plain(spec):
    """Traces or layout as the JSON Plotly makes of them (arrays in base64, what is left as lists)."""
    spec = copy.deepcopy(spec)
    convert_to_base64(spec)
    return json.loads(json.dumps(spec, cls=PlotlyJSONEncoder))


def live(name: str, dims: dict[str, str], offset: int, drawn: tuple[int, ...],
         roles: dict[str, list[dict]], changes: dict[tuple[int, ...], dict[str, Change]], key: str,
         depends: dict[str, tuple[str, ...]] | None = None, scopes: dict[str, str] | None = None,
         following: dict | None = None) -> None:
    """Mount the browser's switcher. `dims`: dimension ("layer", "head") -> its slider's widget key, in
    the order of the selections' tuples; `offset`: 0 or 1, the sliders' numbering; `drawn`: the
    selection the figures on the page show; `roles`: figure key -> one `role` per trace; `changes`:
    selection -> figure key -> its change (only figures that differ from one selection to another);
    `depends`: figure key -> the dims it changes with, when not all of them (its changes are then under
    selections of those dims only: (layer,) for a figure that does not change with the head); `scopes`:
    figure key -> its own scope, when not `name` (figures cached apart, that show other things);
    `following`: the followed query, when there is one (`following`)."""
    depends, scopes = depends or {}, scopes or {}
    _COMPONENT(
        key=key,
        height="content",
        data={
            "scope": name,
            "dims": list(dims),
            "sliders": dims,
            "offset": offset,
            "drawn": ",".join(map(str, drawn)),
            "figures": {fig: {"roles": r, **({"dims": list(depends[fig])} if fig in depends else {}),
                              **({"scope": scopes[fig]} if fig in scopes else {})}
                        for fig, r in roles.items()},
            "changes": {",".join(map(str, sel)): per_fig for sel, per_fig in changes.items()},
            "query": following,
        },
    )
