"""Grids of small attention heatmaps (paper §3.2.2): every head of one layer, every layer × head.

- `heads_grid`: every head of one layer as a small heatmap, side by side, each token labelled.
- `model_view`: all layers × all heads of one attention as a grid of thumbnails (patterns, no labels).

Shapes: H heads, L layers, T_q queries, T_k keys.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import (
    COLORBAR_PAD,
    COLORBAR_THICKNESS,
    QUERY_KEY_NOTE,
    WEIGHTS_META,
    axis_labels,
    colorbar_room,
    drawn_ticks,
    fixed_margins,
)
from viz.live import Change, heatmap_data, retitled
from viz.multihead import as_stack, check_labels

GRID_TICK_FONT = 10  # px: the token labels of the small heatmaps of a grid (readable at 1440×900)
LONG = 30  # tokens: beyond, a heads grid puts two panels to a row so that every label has room
GRID_WIDTH = 960  # px: a grid figure's width, about a page's main column at 1440 × 900


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
    percent: bool = False,
    tick_angle: float = -60,
    top: int = 100,
) -> go.Figure:
    """Small attention heatmaps on a grid, one shared colour bar; blocks: (row, col, (T_q, T_k), name).

    `percent`: the blocks hold whole percentages (0..100) instead of weights (0..1). The figure is
    GRID_WIDTH px wide (a page's main column at 1440 px; shown no wider, `ui.render.show_figure`) and as
    tall as its square-celled panels need at that width, with the colour bar right of the last column:
    no band of empty space between the rows, nor between the panels and the bar. `top`: the top margin.

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
            tickangle=tick_angle,
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
            constraintoward="top",  # right under its name: a narrow panel's spare height goes below it
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
    sides = dict(l=40, b=10)  # no ticks (the model view): room for its layer names on the left
    if show_ticks:
        sides = fixed_margins(drawn_ticks(x_ticks, x), drawn_ticks(y_ticks, y), x_angle=tick_angle,
                              size=GRID_TICK_FONT)
    top_value = 100.0 if percent else 1.0
    bar = dict(title=dict(text="weight (%)" if percent else "weight"), x=1.0, xanchor="left",
               xpad=COLORBAR_PAD, thickness=COLORBAR_THICKNESS)
    margin = dict(r=colorbar_room(bar, 0.0, top_value), t=top, **sides)
    panel = (GRID_WIDTH - margin["l"] - margin["r"]) * (1 / cols - gap)  # px, one panel's width
    plot = panel * len(query_labels) / len(key_labels) / (1 / rows - gap)  # px, the grid's height
    layout.update(
        title=dict(text=f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>"),
        coloraxis=dict(colorscale=colorscale, cmin=0.0, cmax=top_value, colorbar=bar),
        width=GRID_WIDTH,
        height=math.ceil(plot + margin["t"] + margin["b"]),
        margin=margin,
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
    check_labels(z.shape, query_labels, key_labels)
    if len(head_names) != z.shape[0]:
        raise ValueError(f"{len(head_names)} head names for {z.shape[0]} heads")
    # Every token is labelled: a long sentence gets two wider panels to a row (and upright labels)
    # instead of unlabelled ones.
    long = max(z.shape[1], z.shape[2]) > LONG
    rows, cols = _grid_shape(z.shape[0], min(max_cols, 2) if long else max_cols)
    blocks = [(h // cols, h % cols, z[h], head_names[h]) for h in range(z.shape[0])]
    return _grid_figure(blocks, rows, cols, query_labels, key_labels, title, colorscale, True, gap=0.06,
                        tick_angle=-90 if long else -60)


def grid_changes(fig: go.Figure, context: str, new_context: str, patterns) -> Change:
    """What changes in a `heads_grid` figure drawn for `context` (e.g. "layer 1 of 6") to show another
    layer's `patterns` (H, T_q, T_k), named `new_context`; contrast is read off the figure."""
    contrast = fig.data[0].customdata is not None  # viz.heatmap.relative_to_uniform
    return heatmap_data(list(as_stack(patterns, 3)), contrast=contrast), retitled(fig, context, new_context)


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
    check_labels(z.shape, query_labels, key_labels)
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
        percent=True,
        top=110,
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
    # Thumbnails of patterns: no token labels by design (tests/test_tick_labels.py reads this mark).
    fig.update_layout(meta={**fig.layout.meta, "thumbnails": True})
    return fig
