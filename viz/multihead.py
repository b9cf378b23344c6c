"""Multi-head attention pictures (paper §3.2.2, Figure 2; the style of Figures 3-5).

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O

- `heads_grid`: every head of one layer as a small heatmap, side by side.
- `head_view`: the paper's picture: queries in a left column, keys in a right column, a line from
  query to key whose opacity and width grow with the weight, one colour per head.
- `model_view`: all layers x all heads of one attention as a grid of tiny heatmaps.
- `concat_figure`: the head outputs side by side (T x h·d_v), W^O, and the result (T x d_model).

Shapes: H heads, L layers, T_q queries, T_k keys, T positions, D = d_model, K = d_k = d_v.
"""

from __future__ import annotations

import math
import re

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import (
    QUERY_KEY_NOTE,
    TITLE_STANDOFF,
    WEIGHTS_META,
    axis_labels,
    drawn_ticks,
    fixed_margins,
)

# Lines are grouped into this many opacity levels: one Plotly trace per (head, level) instead of one
# per line keeps a 60-token sentence (8 x 60 x 60 lines) quick to draw.
LEVELS = 10
GRID_TICK_FONT = 8  # px: the token labels of the small heatmaps of a grid


def as_stack(values, ndim: int) -> np.ndarray:
    """A float32 array with exactly `ndim` dimensions from a tensor, an array, or a list of them.

    float32 is what the model computes, and Plotly sends numpy arrays as typed binary arrays, so a
    float32 figure travels at half the size of a float64 one.
    """
    if hasattr(values, "detach"):
        values = values.detach().cpu().float().numpy()
    elif isinstance(values, list | tuple) and values and hasattr(values[0], "detach"):
        values = [v.detach().cpu().float().numpy() for v in values]
    array = np.asarray(values, dtype=np.float32)
    if array.ndim != ndim:
        raise ValueError(f"expected a {ndim}-D array, got shape {array.shape}")
    return array


def _check_labels(shape: tuple[int, ...], query_labels, key_labels) -> None:
    if len(query_labels) != shape[-2] or len(key_labels) != shape[-1]:
        raise ValueError(
            f"labels ({len(query_labels)} queries, {len(key_labels)} keys) "
            f"do not fit weights of shape {shape}"
        )


def _grid_shape(n: int, max_cols: int) -> tuple[int, int]:
    cols = min(n, max_cols)
    return math.ceil(n / cols), cols


def _grid_figure(
    blocks: list[tuple[int, int, np.ndarray, str]],
    rows: int,
    cols: int,
    query_labels: list[str],
    key_labels: list[str],
    title: str,
    colorscale: str,
    show_ticks: bool,
    gap: float,
    block_height: int,
    percent: bool = False,
) -> go.Figure:
    """Small attention heatmaps on a grid, one shared colour bar; blocks: (row, col, (T_q, T_k), name).

    `percent`: the blocks hold whole percentages (0..100) instead of weights (0..1).

    Built from plain dicts with the axis domains computed here: `make_subplots` plus per-axis updates
    takes about a second for the 48 panels of the model view, this takes a few milliseconds.
    """
    data, layout = [], {}
    annotations = []
    value = "weight ≈ %{z}%" if percent else "weight = %{z:.4f}"
    x, x_ticks = axis_labels(key_labels)  # ticks read as words, hover names the piece and position
    y, y_ticks = axis_labels(query_labels)
    for i, (r, c, z, name) in enumerate(blocks):
        suffix = "" if i == 0 else str(i + 1)
        x0, x1 = c / cols + gap / 2, (c + 1) / cols - gap / 2
        y1, y0 = 1 - r / rows - gap / 2, 1 - (r + 1) / rows + gap / 2
        data.append(
            dict(
                type="heatmap",
                z=z,
                x=x,
                y=y,
                coloraxis="coloraxis",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                name=name,
                hovertemplate=f"{name}<br>query %{{y}}<br>key %{{x}}<br>{value}<extra></extra>",
            )
        )
        layout[f"xaxis{suffix}"] = dict(
            domain=[x0, x1],
            anchor=f"y{suffix}",
            type="category",
            showticklabels=show_ticks and r == rows - 1,
            tickangle=-60,
            tickfont=dict(size=GRID_TICK_FONT),
            constrain="domain",
            automargin=False,  # margins sized below (viz.heatmap.fixed_margins)
            **x_ticks,
        )
        layout[f"yaxis{suffix}"] = dict(
            domain=[y0, y1],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=show_ticks and c == 0,
            tickfont=dict(size=GRID_TICK_FONT),
            automargin=False,
            scaleanchor=f"x{suffix}",
            scaleratio=1,
            constrain="domain",
            **y_ticks,
        )
        annotations.append(
            dict(
                text=name,
                x=(x0 + x1) / 2,
                y=y1,
                xref="paper",
                yref="paper",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=11),
            )
        )
    sides = dict(l=10, b=10)
    if show_ticks:
        sides = fixed_margins(drawn_ticks(x_ticks, x), drawn_ticks(y_ticks, y), x_angle=-60,
                              size=GRID_TICK_FONT)
    layout.update(
        title=dict(text=f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>"),
        coloraxis=dict(
            colorscale=colorscale,
            cmin=0.0,
            cmax=100.0 if percent else 1.0,
            colorbar=dict(title=dict(text="weight (%)" if percent else "weight")),
        ),
        height=block_height * rows + 140,
        margin=dict(r=10, t=100, **sides),
        plot_bgcolor="#f0f0f0",
        annotations=annotations,
        meta={"kind": WEIGHTS_META, "unit": 100.0 if percent else 1.0},
    )
    return go.Figure(data=data, layout=layout)


def heads_grid(
    patterns,
    query_labels: list[str],
    key_labels: list[str],
    head_names: list[str],
    title: str,
    colorscale: str = "Blues",
    max_cols: int = 4,
) -> go.Figure:
    """All heads of one layer: patterns (H, T_q, T_k) -> one small heatmap per head, one colour bar.

    Trace h is head h; its `z` is that head's (T_q, T_k) weights.
    """
    z = as_stack(patterns, 3)
    _check_labels(z.shape, query_labels, key_labels)
    if len(head_names) != z.shape[0]:
        raise ValueError(f"{len(head_names)} head names for {z.shape[0]} heads")
    rows, cols = _grid_shape(z.shape[0], max_cols)
    blocks = [(h // cols, h % cols, z[h], head_names[h]) for h in range(z.shape[0])]
    show_ticks = max(z.shape[1], z.shape[2]) <= 30
    return _grid_figure(
        blocks,
        rows,
        cols,
        query_labels,
        key_labels,
        title,
        colorscale,
        show_ticks,
        gap=0.06 if show_ticks else 0.03,
        block_height=320,
    )


def model_view(
    patterns,
    layer_names: list[str],
    head_names: list[str],
    title: str,
    colorscale: str = "Blues",
    query_labels: list[str] | None = None,
    key_labels: list[str] | None = None,
) -> go.Figure:
    """All layers x heads as a grid of tiny heatmaps (rows = layers, columns = heads).

    patterns: (L, H, T_q, T_k), or a list of L arrays (H, T_q, T_k). Trace l·H + h is layer l, head h.
    The thumbnails show patterns, not values: each weight travels as a whole percentage in one byte
    (uint8), a quarter of float32, which keeps the 48 thumbnails of a 40-token sentence near 150 KB
    instead of 480 KB. The exact weights of a layer are in `heads_grid`.
    """
    z = as_stack(patterns, 4)
    n_layers, n_heads = z.shape[:2]
    if len(layer_names) != n_layers or len(head_names) != n_heads:
        raise ValueError(f"{len(layer_names)} layer / {len(head_names)} head names for shape {z.shape}")
    query_labels = query_labels or [str(i) for i in range(z.shape[2])]
    key_labels = key_labels or [str(i) for i in range(z.shape[3])]
    _check_labels(z.shape, query_labels, key_labels)
    pct = np.rint(np.clip(z, 0.0, 1.0) * 100).astype(np.uint8)  # (L, H, T_q, T_k), 0..100
    blocks = [
        (layer, h, pct[layer, h], f"{layer_names[layer]}, {head_names[h]}")
        for layer in range(n_layers)
        for h in range(n_heads)
    ]
    fig = _grid_figure(
        blocks,
        n_layers,
        n_heads,
        query_labels,
        key_labels,
        title,
        colorscale,
        False,
        gap=0.012,
        block_height=130,
        percent=True,
    )
    # Name rows and columns once instead of on every thumbnail.
    fig.layout.annotations = [
        dict(
            text=head_names[h],
            x=(h + 0.5) / n_heads,
            y=1.0,
            xref="paper",
            yref="paper",
            yanchor="bottom",
            showarrow=False,
            font=dict(size=11),
        )
        for h in range(n_heads)
    ] + [
        dict(
            text=layer_names[layer],
            x=0.0,
            y=1 - (layer + 0.5) / n_layers,
            xref="paper",
            yref="paper",
            xanchor="right",
            textangle=-90,
            showarrow=False,
            font=dict(size=11),
        )
        for layer in range(n_layers)
    ]
    fig.update_layout(margin=dict(l=40, r=10, t=110, b=10))
    return fig


def head_view_lines(
    patterns, query: int | None = None, heads: list[int] | None = None, min_weight: float = 0.02
) -> list[tuple[int, int, int, float]]:
    """The lines a head view draws: (head, query, key, weight), for weights of at least `min_weight`.

    patterns: (H, T_q, T_k). `query` keeps only that query's lines; `heads` keeps only those heads.
    """
    z = as_stack(patterns, 3)
    heads = list(range(z.shape[0])) if heads is None else list(heads)
    queries = list(range(z.shape[1])) if query is None else [query]
    sub = z[np.ix_(heads, queries, list(range(z.shape[2])))]  # (heads, queries, T_k)
    hi, qi, ki = np.nonzero(sub >= min_weight)
    return [(heads[a], queries[b], int(c), float(sub[a, b, c])) for a, b, c in zip(hi, qi, ki)]


def head_view(
    patterns,
    query_labels: list[str],
    key_labels: list[str],
    head_names: list[str],
    colors: list[str],
    title: str,
    query: int | None = None,
    heads: list[int] | None = None,
    min_weight: float = 0.02,
) -> go.Figure:
    """Two token columns joined by lines: opacity and width show the weight, colour shows the head.

    patterns: (H, T_q, T_k). `query` isolates one query token (its lines only, its label in bold);
    `heads` picks which heads to draw. Weights below `min_weight` are not drawn (they would only
    grey the picture).

    Each head has one trace named after it (its legend entry). With a query isolated, that trace
    holds a point near each line's key end, in a column of its own per head so that every point can
    be hovered, sized by the weight; the point's customdata row is (query, key, weight). With all
    queries drawn it is empty: up to T_q points would sit on each key's spot, one hoverable and the
    rest only payload (a 38-token sentence sent 6,800 of them, 0.4 MB); `heads_grid` has the weights.
    """
    z = as_stack(patterns, 3)
    _check_labels(z.shape, query_labels, key_labels)
    if len(head_names) != z.shape[0]:
        raise ValueError(f"{len(head_names)} head names for {z.shape[0]} heads")
    if query is not None and not 0 <= query < z.shape[1]:
        raise ValueError(f"query {query} out of range 0..{z.shape[1] - 1}")
    heads = list(range(z.shape[0])) if heads is None else list(heads)
    if any(not 0 <= h < z.shape[0] for h in heads):
        raise ValueError(f"heads must be in 0..{z.shape[0] - 1}")
    lines = np.array(head_view_lines(z, query, heads, min_weight), dtype=np.float32).reshape(-1, 4)
    n_q, n_k = z.shape[1], z.shape[2]
    # Row i of a column sits at y = i; the axis is reversed so the first token is on top.
    data = []
    for rank, h in enumerate(heads):
        color = colors[h % len(colors)]
        mine = lines[lines[:, 0] == h]  # (n, 4): head, query, key, weight
        level = np.minimum((mine[:, 3] * LEVELS).astype(int), LEVELS - 1)
        for lv in np.unique(level):
            seg = mine[level == lv]
            # Each line is (query end, key end, gap): a NaN y breaks the polyline between lines, so x
            # can be whole numbers and go as one byte each (a third of the figure's bytes before).
            xs = np.tile(np.array([0, 1, 0], dtype=np.uint8), len(seg))
            ys = np.column_stack([seg[:, 1], seg[:, 2], np.full(len(seg), np.nan, dtype=np.float32)]).ravel()
            strength = (lv + 1) / LEVELS
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=str(h),
                    opacity=min(1.0, 0.15 + 0.85 * strength),
                    line=dict(color=color, width=0.5 + 4.5 * strength),
                )
            )
        if query is None:
            mine = mine[:0]  # the legend entry only (see above)
        q_idx, k_idx = mine[:, 1].astype(int), mine[:, 2].astype(int)
        data.append(
            dict(
                type="scatter",
                x=np.full(len(mine), 0.97 - 0.025 * rank, dtype=np.float32),
                y=mine[:, 2],
                mode="markers",
                name=head_names[h],
                legendgroup=str(h),
                marker=dict(color=color, size=4 + 14 * mine[:, 3], opacity=0.8),  # grows with the weight
                customdata=mine[:, 1:],
                text=[escape_text(f"{query_labels[q]} → {key_labels[k]}") for q, k in zip(q_idx, k_idx)],
                hovertemplate=f"{head_names[h]}<br>%{{text}}<br>"
                "weight = %{customdata[2]:.4f}<extra></extra>",
            )
        )
    data.append(_token_column(query_labels, 0.0, "right", query))
    data.append(_token_column(key_labels, 1.0, "left", None))
    layout = dict(
        title=dict(
            text=f"{title}<br><sup>left: queries (attending) · right: keys (attended to) · "
            "stronger weight = darker, thicker line</sup>"
        ),
        xaxis=dict(visible=False, range=[-0.45, 1.45]),
        yaxis=dict(visible=False, autorange="reversed"),
        height=max(400, 22 * max(n_q, n_k) + 120),
        plot_bgcolor="white",
        hovermode="closest",
        legend=dict(title=dict(text="head"), orientation="h", y=-0.02),
        margin=dict(l=10, r=10, t=80, b=10),
    )
    return go.Figure(data=data, layout=layout)


def _token_column(labels: list[str], x: float, side: str, bold: int | None) -> dict:
    text = [f"<b>{escape_text(t)}</b>" if i == bold else escape_text(t) for i, t in enumerate(labels)]
    return dict(
        type="scatter",
        x=[x] * len(labels),
        y=list(range(len(labels))),
        mode="text",
        text=text,
        showlegend=False,
        textposition=f"middle {'left' if side == 'right' else 'right'}",
        hoverinfo="skip",
        textfont=dict(size=13),
    )


def escape_text(label: str) -> str:
    """Plotly text understands a few HTML tags; escape user text so it is always shown as typed.

    Idempotent: entities already escaped (e.g. by the caller) are left alone, never doubled.
    """
    return re.sub(r"&(?!(?:lt|gt|amp);)", "&amp;", label).replace("<", "&lt;").replace(">", "&gt;")


def concat_figure(
    z_heads,
    concat,
    w_o_weight,
    out,
    labels: list[str],
    head_names: list[str],
    title: str,
    colorscale: str = "RdBu_r",
) -> go.Figure:
    """Concat(head_1..head_h) (T x h·d_v), times W^O (h·d_v x d_model), gives the output (T x d_model).

    z_heads: (H, T, K) per-head outputs; concat: (T, H·K); w_o_weight: (D, H·K), the weight of the
    `w_o` Linear layer as torch stores it (out x in), drawn transposed, the way the paper writes W^O;
    out: (T, D). Raises ValueError when the shapes do not chain or when `concat` is not the heads
    laid side by side.
    """
    zh = as_stack(z_heads, 3)
    c, w, o = as_stack(concat, 2), as_stack(w_o_weight, 2).T, as_stack(out, 2)  # w: (H·K, D)
    n_heads, n_tok, d_v = zh.shape
    if c.shape != (n_tok, n_heads * d_v) or w.shape[0] != c.shape[1] or o.shape != (n_tok, w.shape[1]):
        raise ValueError(
            f"shapes do not chain: heads {zh.shape}, concat {c.shape}, W^O {w.shape}, out {o.shape}"
        )
    if len(labels) != n_tok or len(head_names) != n_heads:
        raise ValueError("labels and head names must match the tokens and heads")
    if not np.allclose(np.concatenate(list(zh), axis=1), c, atol=1e-5):
        raise ValueError("concat is not the head outputs side by side")
    # The concat's x labels name each dimension's head (hover: "dim 17 (head 2)"). A customdata
    # matrix would repeat the head name in every cell: 78 kB of a 60-token figure.
    concat_dims = [f"{j} ({head_names[j // d_v]})" for j in range(c.shape[1])]
    panels = [  # (matrix, x domain, y labels, title, hover)
        (
            c,
            [0.0, 0.34],
            list(labels),
            f"Concat(head₁…head_{n_heads})<br>{n_tok} × {n_heads}·{d_v} = {n_tok} × {c.shape[1]}",
            "token %{y}<br>dim %{x}<br>value = %{z:.4f}",
        ),
        (
            w,
            [0.4, 0.6],
            list(range(w.shape[0])),
            f"W^O<br>{w.shape[0]} × {w.shape[1]}",
            "W^O row %{y}, column %{x}<br>value = %{z:.4f}",
        ),
        (
            o,
            [0.66, 1.0],  # same rows as the concat: its tick labels are not repeated
            list(labels),
            f"output<br>{n_tok} × {o.shape[1]}",
            "token %{y}<br>dim %{x}<br>value = %{z:.4f}",
        ),
    ]
    # Concat and output are both token vectors: one colour axis (one symmetric scale, one colourbar)
    # makes their colours comparable. W^O holds weights, about ten times smaller than the vectors
    # (0.2 against 2 in the shipped model): on the same scale it would be blank, so it has its own axis
    # and colourbar, under its panel.
    vectors = float(max(np.abs(c).max(), np.abs(o).max())) or 1.0
    weights = float(np.abs(w).max()) or 1.0
    colour_axes = ("coloraxis", "coloraxis2", "coloraxis")  # concat, W^O, output
    data, annotations = [], []
    layout: dict = {
        "coloraxis": dict(
            colorscale=colorscale,
            cmid=0.0,
            cmin=-vectors,
            cmax=vectors,
            colorbar=dict(title=dict(text="Concat,<br>output"), thickness=12, len=0.8, y=0.5),
        ),
        "coloraxis2": dict(
            colorscale=colorscale,
            cmid=0.0,
            cmin=-weights,
            cmax=weights,
            colorbar=dict(
                title=dict(text="W^O", side="right"),
                orientation="h",
                thickness=10,
                x=0.5,
                xanchor="center",
                lenmode="pixels",  # a fraction of a narrow page would squeeze its tick labels
                len=180,
                nticks=5,
                yref="container",
                y=0.0,
                yanchor="bottom",
            ),
        ),
    }
    for i, (m, domain, y_labels, panel_title, hover) in enumerate(panels):
        suffix = "" if i == 0 else str(i + 1)
        data.append(
            dict(
                type="heatmap",
                z=m,
                x=concat_dims if i == 0 else list(range(m.shape[1])),
                y=y_labels,
                coloraxis=colour_axes[i],
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                hovertemplate=hover + "<extra></extra>",
            )
        )
        # Horizontal tick labels, few enough not to be turned (the margin below is sized for them).
        layout[f"xaxis{suffix}"] = dict(domain=domain, anchor=f"y{suffix}", automargin=False, tickangle=0,
                                        nticks=5, title=dict(text="dimension", standoff=TITLE_STANDOFF))
        if i == 0:  # ticks show the dimension's number where each head's block starts; hover adds the head
            step = d_v
            layout["xaxis"].update(
                type="category", tickmode="array", tickvals=concat_dims[::step],
                ticktext=[str(j) for j in range(0, c.shape[1], step)],
            )
        layout[f"yaxis{suffix}"] = dict(
            anchor=f"x{suffix}",
            autorange="reversed",
            type="category" if i != 1 else "linear",
            showticklabels=i != 2,
            automargin=False,  # the margins are sized below
        )
        annotations.append(
            dict(
                text=panel_title,
                x=sum(domain) / 2,
                y=1.0,
                xref="paper",
                yref="paper",
                yanchor="bottom",
                yshift=18,
                showarrow=False,
                font=dict(size=12),
            )
        )
    # Head boundaries: vertical lines in the concat, horizontal lines in W^O (its rows per head).
    shapes = []
    for h in range(1, n_heads):
        edge = h * d_v - 0.5
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="y domain",
                x0=edge,
                x1=edge,
                y0=0,
                y1=1,
                line=dict(color="black", width=1),
            )
        )
        shapes.append(
            dict(
                type="line",
                xref="x2 domain",
                yref="y2",
                x0=0,
                x1=1,
                y0=edge,
                y1=edge,
                line=dict(color="black", width=1),
            )
        )
    for h in range(n_heads):
        annotations.append(
            dict(
                text=head_names[h].replace("head ", "h"),  # "h3": a block is only d_v columns wide
                x=h * d_v + (d_v - 1) / 2,
                y=1.0,
                xref="x",
                yref="y domain",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=9),
            )
        )
    # Ticks: the concat's tokens on the left, dimension numbers along the bottom; under them W^O's
    # colour bar (about 45 px with its tick labels).
    margin = fixed_margins([str(c.shape[1])], list(labels), "dimension", "", x_angle=0)
    margin["b"] += 45
    layout.update(
        title=dict(text=title),
        height=max(380, 16 * n_tok + 260),
        margin=dict(r=10, t=110, **margin),
        shapes=shapes,
        annotations=annotations,
    )
    fig = go.Figure(data=data, layout=layout)
    return fig
