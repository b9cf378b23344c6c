"""Exporting any figure: a standalone HTML file and the numbers behind it as CSV.

PNG export is Plotly's own toolbar button. The HTML file embeds plotly.js (about 4 MB) instead of
linking a CDN, because the app may run where there is no network (a classroom, an exam room); it is
therefore built only when someone clicks the button (`st.download_button` accepts a callable).
The CSV comes from the figure's own traces, so it holds exactly the numbers drawn. A figure of
attention weights (a heads grid, the model view, a softmax heatmap: `viz.heatmap.is_weights`; a head
view: `viz.multihead.head_view_rows`) gives a tidy table instead, one row per weight:

    layer,head,query_position,query_token,key_position,key_token,weight
    1,1,0,▁The,0,▁The,0.8125
    1,1,0,▁The,1,▁cat,0.1875

Layer and head are numbered as the figure shows them (from its trace names, else its title; blank
where it names none; a panel that is no single head, e.g. "mean of 8 heads", by its name). Query
and key are a position and the token's label, as plain text. A head view gives the lines it draws
(weights of at least its `min_weight`), with their exact weights; the model view its weights as drawn,
to whole percents.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
import re

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from viz.grids import panels_meta, split
from viz.heatmap import is_weights
from viz.labels import plain
from viz.multihead import LINES_META, head_view_rows, plain_array

WEIGHTS_HEADER = ["layer", "head", "query_position", "query_token", "key_position", "key_token", "weight"]
CSV_HELP = {False: "The numbers drawn in this figure.",
            True: "The attention weights, one row each: layer, head, query position and token, key position "
                  "and token, weight."}


def figure_html(fig: go.Figure) -> str:
    """The figure as one self-contained HTML page (plotly.js embedded, works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False})


def _number(value) -> str:
    """One CSV cell: numbers exactly (repr round-trips), labels as plain text (a figure's "&lt;/s&gt;" as
    "</s>"), no value as blank."""
    if value is None:
        return ""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
        return "" if math.isnan(number) else repr(number)
    return plain(str(value))


def _position_and_token(label: str) -> list[str]:
    """ "3:▁cat" -> ["3", "▁cat"]; a label without a position (a row per head) -> ["", label]."""
    position, colon, token = label.partition(":")
    return [position, token] if colon and position.isdigit() else ["", label]


def _column(values) -> list:
    return [] if values is None else list(values)


def _token(label, position: int) -> str:
    """A token's label with its position in front ("3:▁cat"), once: categories that know their
    position (`viz.heatmap.axis_labels`) have it already."""
    text = plain(str(label))
    return text if text.startswith(f"{position}:") else f"{position}:{text}"


def _numbered(text, word: str) -> str:
    """The number after `word` in a name or title as shown ("layer 5 of 6", "L5" -> "5"); "" if none.

    Markup is dropped first (a wrapped title reads "layer <br>5"), and a subtitle is not read."""
    if not text:
        return ""
    text = re.sub(r"<sup>.*?</sup>", "", str(text), flags=re.S)
    short = word[0].upper()  # "L5 H1", as the step-by-step page's titles name them
    found = re.search(rf"\b(?:{word} |{short})(-?\d+)\b", re.sub(r"<[^>]*>", "", text))
    return found.group(1) if found else ""


def _title(fig: go.Figure) -> str:
    return fig.layout.title.text or ""


def is_attention(fig: go.Figure) -> bool:
    """Whether the figure's CSV is a table of attention weights (`weights_rows`)."""
    meta = fig.layout.meta
    return is_weights(fig) or (isinstance(meta, dict) and meta.get("kind") == LINES_META)


def _row_role(fig: go.Figure, trace) -> str:
    """What a heatmap's rows are: "query" (the rule), or "head" / "layer" where its y axis says so
    (one query's row in every head or layer, `viz.decoding.step_rows_heatmap`)."""
    axis = fig.layout[f"yaxis{(trace.yaxis or 'y')[1:]}"]
    words = (axis.title.text or "").strip().lower().split()
    return words[0] if words and words[0] in ("head", "layer") else "query"


def _weights(fig: go.Figure, trace) -> np.ndarray:
    """A heatmap's weights: its z in the figure's unit (whole percents in the model view), or, drawn
    relative to uniform (`viz.heatmap.relative_to_uniform`), the weights kept in its customdata."""
    z = plain_array(trace.z).astype(np.float64)
    if trace.customdata is not None:
        kept = plain_array(trace.customdata)
        if kept.shape == z.shape and kept.dtype.kind in "fiu":
            return kept.astype(np.float64)
    return z / float(fig.layout.meta.get("unit", 1.0))


def weights_rows(fig: go.Figure) -> list[tuple] | None:
    """(layer, head, query, key, weight), one per attention weight the figure shows; None for a
    figure that shows no attention weights. A cell with no value (blocked by a mask) has weight NaN."""
    title = _title(fig)
    lines = head_view_rows(fig)
    if lines is not None:  # drawn by opacity level: listed by head (as drawn), query, key instead
        layer = _numbered(title, "layer")
        heads = {name: i for i, name in enumerate(dict.fromkeys(line[0] for line in lines))}
        lines = sorted(lines, key=lambda line: (heads[line[0]], line[1], line[3]))
        return [(layer, _numbered(name, "head") or plain(str(name or "")), _token(q_label, q),
                 _token(k_label, k), weight)
                for name, q, q_label, k, k_label, weight in lines]  # fmt: skip
    if not is_weights(fig):
        return None
    panels = panels_meta(fig)
    if panels is not None:  # a heads grid: one heatmap of a panel per head
        return _grid_rows(fig, panels)
    rows = []
    tokens = (fig.layout.meta or {}).get("tokens", {})  # a long sentence's thumbnails name them once
    for trace in fig.data:
        if trace.type != "heatmap":
            continue
        weights = _weights(fig, trace)
        x = _column(trace.x) or tokens.get("key") or list(range(weights.shape[1] if weights.ndim == 2 else 0))
        y = _column(trace.y) or tokens.get("query") or list(range(len(weights)))
        layer = _numbered(trace.name, "layer") or _numbered(title, "layer")
        head = _numbered(trace.name, "head") or (plain(trace.name) if trace.name else "")
        head = head or _numbered(title, "head")
        role = _row_role(fig, trace)
        for i, (label, row) in enumerate(zip(y, weights, strict=True)):
            query, row_layer, row_head = _token(label, i), layer, head
            if role != "query":  # a row per head or per layer, of one query not named on the axis
                query = ""
                named = _numbered(label, role) or plain(str(label))
                row_layer, row_head = (named, head) if role == "layer" else (layer, named)
            for j, (key, value) in enumerate(zip(x, row, strict=True)):
                rows.append((row_layer, row_head, query, _token(key, j), float(value)))
    return rows


def _grid_rows(fig: go.Figure, panels: dict) -> list[tuple]:
    """`weights_rows` of a heads grid (`viz.grids.heads_grid`): head by head, each panel's cells; the
    tokens named by the first panel's row and column categories (the others' carry invisible marks)."""
    trace, layer = fig.data[0], _numbered(_title(fig), "layer")
    n_q, n_k = panels["size"]
    queries = [_token(label, i) for i, label in enumerate(_column(trace.y)[:n_q])]
    keys = [_token(label, j) for j, label in enumerate(_column(trace.x)[:n_k])]
    rows = []
    for name, weights in zip(panels["heads"], split(_weights(fig, trace), panels), strict=True):  # (T_q, T_k)
        head = _numbered(name, "head") or plain(str(name))
        rows += [(layer, head, q, k, float(w)) for q, row in zip(queries, weights) for k, w in zip(keys, row)]
    return rows


def figure_csv(fig: go.Figure) -> str:
    """The numbers drawn in the figure, as CSV.

    A figure of attention weights gives one row per weight (`weights_rows`; header `WEIGHTS_HEADER`).
    Another figure that is one heatmap gives the matrix itself (first column: row labels; header: column
    labels), as the heatmap shows it. Anything else gives one line per drawn value:
    trace, x, y (and z for heatmaps). Cells with no value (e.g. −∞ blocked by a mask) are blank.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    table = weights_rows(fig)
    if table is not None:
        writer.writerow(WEIGHTS_HEADER)
        split = _position_and_token
        writer.writerows([layer, head, *split(query), *split(key), _number(weight)]
                         for layer, head, query, key, weight in table)
        return out.getvalue()
    traces = list(fig.data)
    if len(traces) == 1 and traces[0].type == "heatmap":
        trace = traces[0]
        z = [list(row) for row in trace.z]
        x = _column(trace.x) or list(range(len(z[0]) if z else 0))
        y = _column(trace.y) or list(range(len(z)))
        writer.writerow(["row \\ column", *(_number(v) for v in x)])
        for label, row in zip(y, z, strict=True):
            writer.writerow([_number(label), *(_number(v) for v in row)])
        return out.getvalue()
    writer.writerow(["trace", "x", "y", "z"])
    for index, trace in enumerate(traces):
        name = trace.name or f"trace {index}"
        if trace.type == "heatmap":
            z = [list(row) for row in trace.z]
            x = _column(trace.x) or list(range(len(z[0]) if z else 0))
            y = _column(trace.y) or list(range(len(z)))
            for label, row in zip(y, z, strict=True):
                for column, value in zip(x, row, strict=True):
                    writer.writerow([name, _number(column), _number(label), _number(value)])
        else:
            xs, ys = _column(getattr(trace, "x", None)), _column(getattr(trace, "y", None))
            xs = xs or list(range(len(ys)))
            ys = ys or list(range(len(xs)))
            for x, y in zip(xs, ys, strict=False):
                writer.writerow([name, _number(x), _number(y), ""])
    return out.getvalue()


def file_stem(key: str) -> str:
    """A safe file name from a widget key."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or "figure"


def export_buttons(fig: go.Figure, key: str) -> None:
    """One small "Export" button under a figure, opening HTML (built on click) and CSV downloads.

    In a popover, the two download buttons are drawn only when it is open: a page of nine figures
    no longer redraws eighteen buttons (with new download ids) every time a slider moves.
    """
    stem = file_stem(key)
    with st.popover("⬇ Export", help="Download this figure as a web page or its numbers as CSV "
                                     "(PNG: the camera in the figure's toolbar)."):
        st.download_button("⬇ HTML", data=lambda: figure_html(fig), file_name=f"{stem}.html",
                           mime="text/html", key=f"{key}__html", on_click="ignore",
                           help="The figure as a standalone web page (works offline).")
        st.download_button("⬇ CSV", data=lambda: figure_csv(fig), file_name=f"{stem}.csv",
                           mime="text/csv", key=f"{key}__csv", on_click="ignore",
                           help=CSV_HELP[is_attention(fig)])
