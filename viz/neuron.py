"""One query's dot products with every key, one dimension at a time (paper §3.2.1):

    q · k_j = Σ_d q_d · k_jd

The view BertViz calls its neuron view: the query vector q on top, under it the term q_d · k_jd of
every key j (rows) and dimension d (columns), and beside each row its sum, the score q · k_j of QKᵀ.
Inputs are one head's: q (d_k,), K (T_k, d_k) and the scores row (T_k,).
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import TICK_FONT, axis_labels, sparse_ticks, text_width, title_margin
from viz.live import Change, by_row, matrix, retitled, times_row

MAX_PLOT_WIDTH = 520  # px: the terms' matrix, at most
SUM_WIDTH = 64  # px: the column of sums, wide enough for "-12.34"
GAP = 14  # px between the terms and their sums
BAND = 34  # px between the query row and the terms: the terms' panel title
NARROW = 400  # px: a plot narrower than this has its title on two lines


def neuron_title(query_label: str, d_k: int) -> str:
    """The title, on two lines when the terms are narrow (a small d_k): always two there, whatever the
    query, so that the browser can change the query in a title of the same height."""
    sep = " <br>" if _plot_width(d_k) < NARROW else " "
    return f"Query {query_label}:{sep}q · k, one dimension at a time"


def terms_title(context: str) -> str:
    """The terms' panel title; `context` (e.g. "L1 H2") names the head."""
    return f"q_d · k_jd · {context}" if context else "q_d · k_jd"  # short: a small d_k's plot is narrow


def _cell(d_k: int) -> float:
    return min(20.0, max(8.0, MAX_PLOT_WIDTH / d_k))


def _plot_width(d_k: int) -> float:
    return d_k * _cell(d_k) + GAP + SUM_WIDTH


def neuron_view(q_row, k, scores_row, key_labels: list[str], query_label: str, colorscale: str = "RdBu_r",
                context: str = "") -> go.Figure:
    """The terms q_d · k_jd (trace 0, one row per key), their sums q · k_j (trace 1: `scores_row`, the
    model's own QKᵀ row) and the query q (trace 2). Every panel has its own colour scale, centred on 0.
    Raises ValueError when the shapes do not fit each other or the labels."""
    q = np.asarray(_numpy(q_row), dtype=np.float32).ravel()
    keys = np.asarray(_numpy(k), dtype=np.float32)
    sums = np.asarray(_numpy(scores_row), dtype=np.float32).ravel()
    if keys.shape != (len(key_labels), len(q)) or sums.shape != (len(key_labels),):
        raise ValueError(f"q {q.shape}, K {keys.shape}, scores row {sums.shape}: {len(key_labels)} keys?")
    d_k, n_k = len(q), len(key_labels)
    cell = _cell(d_k)
    dims = [f"d{d}" for d in range(d_k)]
    ys, y_ticks = axis_labels(key_labels)
    left = math.ceil(max(text_width(t, TICK_FONT) for t in [*map(str, key_labels), "query"]) + 14)
    plot_w, plot_h = _plot_width(d_k), cell + BAND + n_k * cell
    width = left + 12 + plot_w
    title = neuron_title(query_label, d_k)
    margin = dict(l=left, r=12, t=title_margin(title) + 10, b=64)
    height = margin["t"] + margin["b"] + plot_h
    split = d_k * cell / plot_w  # where the terms end, as a fraction of the plot's width
    top = (n_k * cell) / plot_h  # where the terms' panel ends, from the bottom
    dim_axis = dict(type="category", tickfont=dict(size=TICK_FONT), **sparse_ticks(dims, 4))
    key_axis = dict(type="category", autorange="reversed", tickfont=dict(size=TICK_FONT), **y_ticks)
    # the browser centres each panel's scale on 0
    middle = dict(zmid=0.0, hoverongaps=False, colorscale=colorscale)
    data = [
        go.Heatmap(z=keys * q, x=dims, y=ys, customdata=keys, name="q_d · k_jd", **middle,
                   colorbar=dict(orientation="h", thickness=10, len=0.6, x=0.0, xanchor="left",
                                 yref="container", y=0.0, yanchor="bottom"),
                   hovertemplate="key %{y}<br>dimension %{x}<br>k = %{customdata:.4f}<br>"
                                 "q × k = %{z:.4f}<extra></extra>"),  # fmt: skip
        go.Heatmap(z=sums[:, None], x=["q · k"], y=ys, name="q · k_j", showscale=False, **middle,
                   texttemplate="%{z:.2f}", xaxis="x2", yaxis="y2",
                   hovertemplate="key %{y}<br>q · k = %{z:.4f} (the row's sum)<extra></extra>"),
        go.Heatmap(z=q[None, :], x=dims, y=["query"], name="q", showscale=False, **middle,
                   xaxis="x3", yaxis="y3", hovertemplate="dimension %{x}<br>q = %{z:.4f}<extra></extra>"),
    ]
    layout = dict(
        title=dict(text=title), width=math.ceil(width), height=math.ceil(height), margin=margin,
        xaxis=dict(domain=[0, split], anchor="y", **dim_axis),
        yaxis=dict(domain=[0, top], anchor="x", **key_axis),
        xaxis2=dict(domain=[split + GAP / plot_w, 1], anchor="y2", type="category",
                    tickfont=dict(size=TICK_FONT)),
        yaxis2=dict(domain=[0, top], anchor="x2", matches="y", showticklabels=False, **_no_ticks(key_axis)),
        xaxis3=dict(domain=[0, split], anchor="y3", matches="x", showticklabels=False, ticks=""),
        yaxis3=dict(domain=[1 - cell / plot_h, 1], anchor="x3", type="category",
                    tickfont=dict(size=TICK_FONT)),
        annotations=[dict(text=terms_title(context), x=0, y=top, xref="paper", yref="paper", xanchor="left",
                          yanchor="bottom", yshift=4, showarrow=False, font=dict(size=13))],
        plot_bgcolor="white",
    )
    return go.Figure(data=data, layout=layout)


def _no_ticks(axis: dict) -> dict:
    """`axis` with no tick labels and no tick marks (an axis shared with a panel that labels them)."""
    return {**{k: v for k, v in axis.items() if k not in ("tickmode", "tickvals", "ticktext")}, "ticks": ""}


def _numpy(values):
    return values.detach().cpu().float().numpy() if hasattr(values, "detach") else values


def neuron_change(fig: go.Figure, context: str, new_context: str, q, k, qk) -> Change:
    """What changes in the figure `neuron_view` drew for `context` to show the head `new_context` whose
    Q (T_q, d_k), K (T_k, d_k) and QKᵀ (T_q, T_k) these are, for every followed query: the terms travel
    as Q and K and the browser multiplies the followed query's row of Q into K (`viz.live.times_row`)."""
    q, k, qk = (np.asarray(_numpy(x), dtype=np.float32) for x in (q, k, qk))
    data = {
        "z": [times_row(q, k), by_row([matrix(row[:, None]) for row in qk]),
              by_row([matrix(row[None, :]) for row in q])],
        "customdata": [matrix(k), None, None],
    }
    return data, retitled(fig, context, new_context)


def neuron_by_query(query_labels: list[str], d_k: int) -> Change:
    """What changes in the figure from one followed query to another besides its numbers (which change
    with the head too: `neuron_change`): the title."""
    return {}, {"title.text": by_row([neuron_title(label, d_k) for label in query_labels])}
