"""Figures of the head inspector: a layers × heads map, matrices side by side, before/after bars.

Inputs are arrays (or tensors) and labels; nothing here knows about the model or Streamlit.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.heatmap import (
    QUERY_KEY_NOTE,
    TICK_FONT,
    as_array,
    axis_labels,
    drawn_ticks,
    fixed_margins,
    heatmap,
)


def head_map(values, title: str, offset: int = 1, roles: list[list[str]] | None = None,
             colorscale: str = "Blues", selected: tuple[int, int] | None = None,
             numbering: str = "1-based", zmin: float | None = None, zmax: float | None = None) -> go.Figure:
    """One number per head: rows = layers, columns = heads (layer 0 at the top).

    values: (L, H); NaN cells (statistic undefined) are left blank. `offset` is 1 for 1-based labels.
    `roles[l][h]` is shown on hover. `selected` (0-based layer, head) gets a frame. `zmin`/`zmax` fix
    the colour range (default: fitted to the values).
    """
    z = as_array(values)
    n_layers, n_heads = z.shape
    rows = [f"layer {layer + offset}" for layer in range(n_layers)]
    cols = [f"head {head + offset}" for head in range(n_heads)]
    fig = heatmap(z, rows, cols, f"{title}<br><sup>layers and heads numbered {numbering}</sup>",
                  colorscale=colorscale, zmin=zmin, zmax=zmax, show_text=True, row_title="layer",
                  col_title="head")
    fig.data[0].texttemplate = "%{z:.2f}"
    fig.data[0].text = np.where(np.isnan(z), "undefined", np.char.mod("%.4f", np.nan_to_num(z)))
    if roles is not None:
        fig.data[0].customdata = np.array(roles, dtype=object)
        fig.data[0].hovertemplate = "%{y}, %{x}<br>value = %{text}<br>role: %{customdata}<extra></extra>"
    if selected is not None:
        layer, head = selected
        fig.add_shape(type="rect", x0=head - 0.5, x1=head + 0.5, y0=layer - 0.5, y1=layer + 0.5,
                      line=dict(color="#d62728", width=3))
    return fig


def frame_change(layer: int, head: int) -> tuple[dict, dict]:
    """What moves `head_map`'s frame (its first shape) to another head: a `viz.live.Change`."""
    return {}, {"shapes[0].x0": head - 0.5, "shapes[0].x1": head + 0.5,
                "shapes[0].y0": layer - 0.5, "shapes[0].y1": layer + 0.5}  # fmt: skip


def side_by_side(matrices: list, titles: list[str], query_labels: list[str], key_labels: list[str],
                 title: str, colorscale: str = "Blues") -> go.Figure:
    """Attention matrices of the same tokens next to each other, on one 0..1 colour scale.

    Every token is labelled (ticks read as words, hover names position and piece), at `TICK_FONT`.
    """
    fig = make_subplots(rows=1, cols=len(matrices), subplot_titles=titles, horizontal_spacing=0.06)
    x, x_ticks = axis_labels(key_labels)
    y, y_ticks = axis_labels(query_labels)
    font = dict(size=TICK_FONT)
    for i, matrix in enumerate(matrices, start=1):
        z = as_array(matrix)
        if z.shape != (len(query_labels), len(key_labels)):
            raise ValueError(f"matrix {i} has shape {z.shape}, labels fit "
                             f"{(len(query_labels), len(key_labels))}")
        fig.add_trace(go.Heatmap(
            z=z, x=x, y=y, name=titles[i - 1], coloraxis="coloraxis",
            hovertemplate="query %{y}<br>key %{x}<br>weight = %{z:.4f}<extra></extra>"), row=1, col=i)
        anchor = "x" if i == 1 else f"x{i}"
        fig.update_yaxes(autorange="reversed", type="category", scaleanchor=anchor, scaleratio=1,
                         constrain="domain", showticklabels=i == 1, tickfont=font, automargin=False,
                         row=1, col=i, **y_ticks)
        fig.update_xaxes(type="category", tickangle=-90, constrain="domain", tickfont=font, automargin=False,
                         row=1, col=i, **x_ticks)
    sides = fixed_margins(drawn_ticks(x_ticks, x), drawn_ticks(y_ticks, y), x_angle=-90)
    fig.update_layout(title=f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>",
                      coloraxis=dict(colorscale=colorscale, cmin=0.0, cmax=1.0),
                      margin=dict(r=10, t=90, **sides), plot_bgcolor="#f0f0f0")
    return fig


def difference_map(diff, labels: list[str], title: str, colorscale: str = "RdBu_r") -> go.Figure:
    """A − B of two attention matrices on matched tokens, centred on 0."""
    z = as_array(diff)
    limit = float(np.nanmax(np.abs(z))) if z.size else 1.0
    limit = limit or 1.0
    fig = heatmap(z, labels, labels, f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>", colorscale=colorscale,
                  zmin=-limit, zmax=limit, hover_name="difference", row_title="queries", col_title="keys")
    fig.data[0].zmid = 0.0
    return fig


def probability_change(tokens: list[str], before, after, title: str,
                       colors: tuple[str, str] = ("#1f77b4", "#ff7f0e")) -> go.Figure:
    """Next-token probabilities of the same candidates with all heads on and with some switched off."""
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if not len(tokens) == len(before) == len(after):
        raise ValueError("one probability before and after for every token")
    fig = go.Figure([
        go.Bar(x=list(tokens), y=before, name="all heads on", marker_color=colors[0],
               hovertemplate="%{x}: %{y:.4f}<extra>all heads on</extra>"),
        go.Bar(x=list(tokens), y=after, name="chosen heads off", marker_color=colors[1],
               hovertemplate="%{x}: %{y:.4f}<extra>chosen heads off</extra>"),
    ])
    fig.update_layout(title=title, barmode="group", yaxis=dict(title="probability", range=[0, 1]),
                      xaxis=dict(title="candidate next token", type="category"),
                      margin=dict(l=10, r=10, t=60, b=10))
    return fig


def guess_reveal(weights, key_labels: list[str], guess: int, title: str,
                 colors: tuple[str, str, str] = ("#9e9e9e", "#2ca02c", "#d62728")) -> go.Figure:
    """One query's attention row revealed: the true maximum in one colour, a wrong guess in another."""
    w = np.asarray(weights, dtype=float)
    if len(w) != len(key_labels):
        raise ValueError("one weight per key")
    answer = int(np.argmax(w))
    bar_colors = [colors[0]] * len(w)
    if guess != answer and 0 <= guess < len(w):
        bar_colors[guess] = colors[2]
    bar_colors[answer] = colors[1]
    fig = go.Figure(go.Bar(x=list(key_labels), y=w, marker_color=bar_colors,
                           hovertemplate="key %{x}<br>weight = %{y:.4f}<extra></extra>"))
    fig.update_layout(title=f"{title}<br><sup>keys (attended to) on the x axis; green = most attended, "
                            "red = your guess if it differs</sup>",
                      yaxis=dict(title="weight", range=[0, 1]), xaxis=dict(type="category", tickangle=-45),
                      margin=dict(l=10, r=10, t=70, b=10))
    return fig
