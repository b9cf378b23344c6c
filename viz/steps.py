"""Scaled dot-product attention one step at a time (paper §3.2.1, Figure 2 left), for one head.

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V

Each step gets its own figure, all sharing the same query/key labels, so a reader can follow one
query row from Q to its output z. Inputs are one head's tensors (no batch, no head dimension):
Q (T_q, d_k), K and V (T_k, d_k), every score matrix (T_q, T_k), Z (T_q, d_k).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.heatmap import QUERY_KEY_NOTE, as_array, attention_heatmap, colorbar_room, heatmap
from viz.live import Change, by_row, heatmap_data, retitled, symmetric_bound
from viz.neuron import neuron_change

BLOCKED = "−∞ (blocked)"
QUERY_FRAME = "atlas-query"  # the shape that frames the followed query's row (ui/live.js moves it)
BLOCKED_COLOUR = "#bbbbbb"
VECTOR_PLOT_WIDTH = 230  # px: the plot of one of three Q, K, V heatmaps side by side on a wide page
# px: the same plot when Q, K, V and Z each have a row of their own (presenter mode): at a third of a page
# their cells, and with them the token labels, stayed at 9 px on a projector
VECTOR_PLOT_WIDTH_ALONE = 560


def vectors_heatmap(values, labels: list[str], title: str, what: str, colorscale: str = "RdBu_r",
                    layout_style: dict | None = None, plot_width: int = VECTOR_PLOT_WIDTH) -> go.Figure:
    """One vector per token (T, d_k): rows = tokens, columns = the head's d_k dimensions, square cells
    in a plot about `plot_width` px wide."""
    z = as_array(values)
    bound = symmetric_bound(z)
    fig = heatmap(
        z,
        labels,
        [f"{what}{j}" for j in range(z.shape[1])],
        title,
        colorscale=colorscale,
        zmin=-bound,
        zmax=bound,
        hover_name=f"{what} entry",
        row_title="tokens",
        col_title="dimension of d_k",
        # Three of these share a row on the page: the colour bar lies along the bottom edge of the
        # figure (in its margin, under the tick labels) instead of taking a third of the width beside
        # the matrix.
        trace_style=dict(colorbar=dict(orientation="h", thickness=10, len=0.9, yref="container", y=0.0,
                                       yanchor="bottom")),
        extra_margin=dict(b=40),
        layout_style=layout_style,
        cell=round(_vector_cell(z.shape[1], plot_width)),
    )
    return fig


def _vector_cell(n_columns: int, plot_width: int = VECTOR_PLOT_WIDTH) -> float:
    """px per cell of a vectors heatmap whose plot is about `plot_width` px wide."""
    return min(26.0, max(6.0, plot_width / n_columns))


def _panel_height(fig: go.Figure) -> int:
    """The height of a vectors heatmap as a panel of `qkv_figure`: the square cells its width gives,
    and no empty band above or below the matrix."""
    n_rows, n_cols = np.shape(fig.data[0].z)
    return fig.layout.margin.t + fig.layout.margin.b + round(_vector_cell(n_cols) * n_rows) + 10


def qkv_figure(q_fig: go.Figure, k_fig: go.Figure, v_fig: go.Figure, title: str) -> go.Figure:
    """The Q, K and V heatmaps (`vectors_heatmap`) as three panels of one figure, each with its own
    colour scale and bar under it, and the title of each above its panel.

    One figure instead of three: the browser builds a figure's frame (toolbar, hover layer, title) once,
    which makes a head change on the step-by-step page noticeably quicker. K's rows are labelled only
    when they are other tokens than Q's (cross-attention); V always has K's rows.
    """
    figs = (q_fig, k_fig, v_fig)
    same_rows = list(q_fig.data[0].y) == list(k_fig.data[0].y)
    gaps = (0.0, 0.03 if same_rows else 0.09, 0.03)  # room left of each panel for its row labels
    width = (1 - sum(gaps)) / 3  # the same for all three, so that their cells are the same size
    data, annotations, layout = [], [], {}
    for i, fig in enumerate(figs):
        suffix = "" if i == 0 else str(i + 1)
        x0 = i * width + sum(gaps[: i + 1])
        x1 = x0 + width
        trace = fig.data[0].to_plotly_json()
        bar = {**trace.get("colorbar", {}), "x": (x0 + x1) / 2, "xanchor": "center", "len": 0.85 * (x1 - x0)}
        data.append({**trace, "xaxis": f"x{suffix}", "yaxis": f"y{suffix}", "colorbar": bar})
        xaxis = {**fig.layout.xaxis.to_plotly_json(), "domain": [x0, x1], "anchor": f"y{suffix}"}
        yaxis = {**fig.layout.yaxis.to_plotly_json(), "anchor": f"x{suffix}", "scaleanchor": f"x{suffix}"}
        if i == 2 or (i == 1 and same_rows):
            yaxis.update(showticklabels=False, title=dict(text=""))
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = xaxis, yaxis
        # Above the matrix itself: square cells shrink the panel's domain around its centre.
        annotations.append(dict(text=fig.layout.title.text, x=0.5, y=1.0, xref=f"x{suffix} domain",
                                yref=f"y{suffix} domain", yanchor="bottom", yshift=6, showarrow=False,
                                font=dict(size=13)))
    shapes = [dict(shape.to_plotly_json()) for shape in q_fig.layout.shapes]  # Q's framed row (axes x, y)
    margin = {side: max(fig.layout.margin[side] for fig in figs) for side in ("l", "r", "t", "b", "pad")}
    margin["t"] += 28  # the panel titles
    return go.Figure(data=data, layout=dict(
        title=dict(text=title), annotations=annotations, shapes=shapes, margin=margin,
        height=max(_panel_height(fig) for fig in figs) + 28, plot_bgcolor=q_fig.layout.plot_bgcolor, **layout,
    ))


def scores_heatmap(values, query_labels: list[str], key_labels: list[str], title: str,
                   colorscale: str = "RdBu_r", hover_name: str = "score", **style) -> go.Figure:
    """A (T_q, T_k) score matrix, colour centred on 0; −∞ entries appear as gaps marked 'blocked'."""
    z = as_array(values)
    bound = symmetric_bound(z)
    return heatmap(
        z,
        query_labels,
        key_labels,
        f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>",
        colorscale=colorscale,
        zmin=-bound,
        zmax=bound,
        hover_name=hover_name,
        row_title="queries",
        col_title="keys",
        **style,
    )


def mask_heatmap(allowed, query_labels: list[str], key_labels: list[str], title: str = "The mask",
                 colour: str = "#9ecae1", layout_style: dict | None = None,
                 max_width: int | None = None) -> go.Figure:
    """The mask as what it adds to the scores: 0 where a query may attend, −∞ (a gap) where blocked."""
    a = as_array(allowed).astype(bool)
    additive = np.where(a, 0.0, -np.inf)
    return heatmap(
        additive,
        query_labels,
        key_labels,
        f"{title}<br><sup>{QUERY_KEY_NOTE}; white gaps = −∞ (blocked)</sup>",
        colorscale=[[0.0, colour], [1.0, colour]],  # every allowed cell holds 0: one flat colour
        zmin=0.0,
        zmax=1.0,
        hover_name="added to the score",
        row_title="queries",
        col_title="keys",
        trace_style=dict(showscale=False),
        layout_style={"plot_bgcolor": "white", **(layout_style or {})},
        # As wide a right margin as the score matrices' colour bars take: beside one, the same cells.
        extra_margin=dict(r=colorbar_room({}, -10.0, 10.0) - 10),
        max_width=max_width,
    )


def row_frame(row: int, color: str = "#d62728") -> dict:
    """A layout shape framing one row (a query) of a heatmap, so it can be followed across steps."""
    return dict(type="rect", xref="x domain", x0=0, x1=1, yref="y", y0=row - 0.5, y1=row + 0.5,
                line=dict(color=color, width=3), fillcolor="rgba(0,0,0,0)", name=QUERY_FRAME)


def _shapes(q, k, v, qk, scores, allowed, masked, pattern, z, query_labels, key_labels) -> dict:
    arrays = {name: as_array(x) for name, x in
              dict(q=q, k=k, v=v, qk=qk, scores=scores, allowed=allowed, masked=masked, pattern=pattern,
                   z=z).items()}
    t_q, t_k = len(query_labels), len(key_labels)
    d_k = arrays["q"].shape[1]
    d_v = arrays["v"].shape[1]
    expected = dict(q=(t_q, d_k), k=(t_k, d_k), v=(t_k, d_v), qk=(t_q, t_k), scores=(t_q, t_k),
                    allowed=(t_q, t_k), masked=(t_q, t_k), pattern=(t_q, t_k), z=(t_q, d_v))
    for name, shape in expected.items():
        if arrays[name].shape != shape:
            raise ValueError(f"{name} has shape {arrays[name].shape}, expected {shape} for "
                             f"{t_q} query labels, {t_k} key labels and d_k = {d_k}")
    return arrays


def step_figures(q, k, v, qk, scores, allowed, masked, pattern, z, query_labels: list[str],
                 key_labels: list[str], sequential: str = "Blues", diverging: str = "RdBu_r",
                 highlight: int | None = None, context: str = "",
                 half_width: int | None = None, vectors_alone: bool = False) -> dict[str, go.Figure]:
    """One figure per step, in order: q, k, v, qk, scores, mask, masked, pattern, z.

    Raises ValueError when the shapes do not fit each other or the labels. `highlight` frames one
    query row in every figure whose rows are queries; `context` (e.g. "layer 5, head 1") ends each title
    but the mask's, which is the same for every layer and head. `half_width`: px of the half of the page
    that the mask and the masked scores share, side by side (None: one under the other). `vectors_alone`:
    Q, K, V and Z each get a row of the page (presenter mode), and cells to fill it.
    """
    vectors = dict(plot_width=VECTOR_PLOT_WIDTH_ALONE if vectors_alone else VECTOR_PLOT_WIDTH)
    a = _shapes(q, k, v, qk, scores, allowed, masked, pattern, z, query_labels, key_labels)

    def titled(title: str) -> str:  # the builders add their subtitle after this
        return f"{title} · {context}" if context else title

    def framed(rows_are_queries: bool = True) -> dict:
        # Everything is passed at construction: each later update_* call re-validates the figure.
        shapes = [row_frame(highlight)] if rows_are_queries and highlight is not None else []
        return dict(layout_style=dict(shapes=shapes))

    return {
        "q": vectors_heatmap(a["q"], query_labels, titled("Q (one row per query)"), "q", diverging,
                             **framed(), **vectors),
        "k": vectors_heatmap(a["k"], key_labels, titled("K (one row per key)"), "k", diverging,
                             **framed(False), **vectors),
        "v": vectors_heatmap(a["v"], key_labels, titled("V (one row per key)"), "v", diverging,
                             **framed(False), **vectors),
        "qk": scores_heatmap(a["qk"], query_labels, key_labels, titled("Q Kᵀ"),
                             diverging, "q·k", **framed()),
        "scores": scores_heatmap(a["scores"], query_labels, key_labels,
                                 titled("Q Kᵀ / √d_k"), diverging, "scaled score",
                                 **framed()),
        # The mask is the same for every layer and head: an unchanged figure is not drawn again
        # when the reader moves to another head.
        "mask": mask_heatmap(a["allowed"], query_labels, key_labels,
                             "The mask (the same in every layer and head)", **framed(), max_width=half_width),
        "masked": scores_heatmap(a["masked"], query_labels, key_labels,
                                 titled("Scores after the mask"), diverging,
                                 "masked score", **framed(), max_width=half_width),
        "pattern": attention_heatmap(a["pattern"], query_labels, key_labels,
                                     titled("softmax: attention weights"),
                                     sequential, **framed()),
        "z": vectors_heatmap(a["z"], query_labels, titled("Z = weights · V (the head's output)"), "z",
                             diverging, **framed(), **vectors),
    }


# Which tensors each figure of `step_figures` draws, trace by trace, and whether its colours are centred on 0
STEP_TENSORS = {"q": ["q"], "k": ["k"], "v": ["v"], "qkv": ["q", "k", "v"], "qk": ["qk"],
                "scores": ["scores"], "masked": ["masked"], "pattern": ["pattern"], "z": ["z"]}


def step_changes(figs: dict[str, go.Figure], context: str, new_context: str,
                 tensors: dict) -> dict[str, Change]:
    """What changes in the figures `figs` (as `step_figures` drew them for `context`, e.g. "L1 H2") to
    show the head `new_context` whose tensors are `tensors` (q, k, v, qk, scores, masked, pattern, z, one
    head's, as `step_figures` takes them); the mask is the same for every head. The journey and neuron
    figures get every query's rows (the browser draws the followed one's). Contrast (weights relative to
    uniform) is read off the figures."""
    changes = {}
    for name, fig in figs.items():
        if name in STEP_TENSORS:
            matrices = [tensors[t] for t in STEP_TENSORS[name]]
            data = heatmap_data(matrices, symmetric=name != "pattern",
                                contrast=name == "pattern" and fig.data[0].customdata is not None)
            changes[name] = (data, retitled(fig, context, new_context))
        elif name == "journey":  # every query's row: the browser draws the followed one's
            changes[name] = ({"y": [by_row(as_array(tensors[t])) for t in ("scores", "pattern")]}, {})
        elif name == "neuron":  # every query's terms: the browser computes the followed one's
            t = tensors
            changes[name] = neuron_change(fig, context, new_context, t["q"], t["k"], t["qk"])
    return changes


def journey_title(query_label: str) -> str:
    return f"Query {query_label}: from scores to weights (grey = blocked by the mask)"


def journey_bars(masked_row, colour: str) -> tuple[list[str], list[str]]:
    """The colour and the text of each key's score bar: grey and marked where the mask blocks it."""
    blocked = np.isneginf(np.asarray(masked_row, dtype=float).ravel())
    return np.where(blocked, BLOCKED_COLOUR, colour).tolist(), np.where(blocked, BLOCKED, "").tolist()


def journey_by_query(masked, query_labels: list[str], colour: str) -> Change:
    """What changes in the journey figure from one followed query to another, for every query (`by_row`):
    which score bars are blocked, and the title; its numbers change with the head (`step_changes`)."""
    bars = [journey_bars(row, colour) for row in as_array(masked)]
    colours, texts = by_row([c for c, _ in bars]), by_row([t for _, t in bars])
    data = {"marker.color": [colours, colour], "text": [texts, None]}
    return data, {"title.text": by_row([journey_title(label) for label in query_labels])}


def query_journey(scores_row, masked_row, pattern_row, key_labels: list[str], query_label: str,
                  colour: str = "#1f77b4") -> go.Figure:
    """One query's scaled scores (top) and attention weights (bottom) over the keys."""
    s, m, w = (np.asarray(x, dtype=float).ravel() for x in (scores_row, masked_row, pattern_row))
    if not len(s) == len(m) == len(w) == len(key_labels):
        raise ValueError(f"rows of length {len(s)}, {len(m)}, {len(w)} for {len(key_labels)} keys")
    colours, texts = journey_bars(m, colour)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=("scaled score q·k / √d_k", "weight after the mask and softmax"))
    fig.add_trace(go.Bar(x=list(key_labels), y=s, marker_color=colours, text=texts, textposition="outside",
                         hovertemplate="key %{x}<br>score = %{y:.4f}<extra></extra>", name="score"),
                  row=1, col=1)
    fig.add_trace(go.Bar(x=list(key_labels), y=w, marker_color=colour,
                         hovertemplate="key %{x}<br>weight = %{y:.4f}<extra></extra>", name="weight"),
                  row=2, col=1)
    fig.update_xaxes(type="category", tickangle=-45, row=2, col=1)
    fig.update_yaxes(range=[0, 1], row=2, col=1)
    # query_label comes from viz.labels.token_labels, already escaped for Plotly.
    fig.update_layout(title=journey_title(query_label), showlegend=False, height=480,
                      margin=dict(l=10, r=10, t=80, b=10))
    return fig
