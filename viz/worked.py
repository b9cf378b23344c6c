"""Figures of the worked examples: small annotated matrices, softmax bars, Table 1 costs."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.heatmap import QUERY_KEY_NOTE, as_array


def matrices(panels: list[tuple[str, object, list[str], list[str]]], title: str,
             colorscale: str = "Blues") -> go.Figure:
    """Small matrices side by side with every number written in its cell.

    panels: (title, matrix (rows, cols), row labels, column labels), drawn left to right.
    """
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=[p[0] for p in panels],
                        horizontal_spacing=0.08)
    for i, (name, matrix, rows, cols) in enumerate(panels, start=1):
        z = as_array(matrix)
        if z.shape != (len(rows), len(cols)):
            raise ValueError(f"panel {name!r}: labels do not fit a {z.shape} matrix")
        fig.add_trace(go.Heatmap(z=z, x=list(cols), y=list(rows), name=name, colorscale=colorscale,
                                 showscale=False, texttemplate="%{z:.3f}",
                                 hovertemplate=f"{name}<br>row %{{y}}, column %{{x}}<br>%{{z:.6f}}"
                                               "<extra></extra>"), row=1, col=i)
        anchor = "x" if i == 1 else f"x{i}"
        fig.update_yaxes(autorange="reversed", type="category", scaleanchor=anchor, scaleratio=1,
                         constrain="domain", row=1, col=i)
        fig.update_xaxes(type="category", constrain="domain", row=1, col=i)  # ticks below, title above
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=110, b=10), height=330)
    return fig


def attention_steps(steps, colorscale: str = "Blues") -> go.Figure:
    """QKᵀ, ÷√d_k, softmax and ·V of a worked example (an AttentionSteps-like object)."""
    n, m = steps.qk.shape
    queries = [f"q{i + 1}" for i in range(n)]
    keys = [f"k{j + 1}" for j in range(m)]
    dims = [f"dim {c + 1}" for c in range(steps.output.shape[1])]
    return matrices([
        ("Q·Kᵀ", steps.qk, queries, keys),
        (f"÷ √d_k = ÷ {np.sqrt(steps.d_k):.3f}", steps.scaled, queries, keys),
        ("softmax (each row)", steps.weights, queries, keys),
        ("weights · V", steps.output, queries, dims),
    ], f"Scaled dot-product attention, step by step<br><sup>{QUERY_KEY_NOTE}</sup>", colorscale)


def softmax_bars(x, curves: dict[str, object], colors: list[str]) -> go.Figure:
    """softmax of the same scores under several scalings, one group of bars per entry."""
    labels = [f"x{i + 1} = {float(v):g}" for i, v in enumerate(np.asarray(x, dtype=float))]
    fig = go.Figure()
    for i, (name, probs) in enumerate(curves.items()):
        fig.add_trace(go.Bar(x=labels, y=np.asarray(probs, dtype=float), name=name,
                             marker_color=colors[i % len(colors)],
                             hovertemplate="%{x}<br>weight = %{y:.4f}<extra>" + name + "</extra>"))
    fig.update_layout(title="softmax turns scores into weights that sum to 1", barmode="group",
                      yaxis=dict(title="weight", range=[0, 1]), xaxis=dict(type="category"),
                      margin=dict(l=10, r=10, t=60, b=10))
    return fig


def saturation(sat, colors: list[str]) -> go.Figure:
    """Left: variance of q·k against d_k (theory: d_k). Right: the softmax's largest weight."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, subplot_titles=(
        # Two short lines each: on one line the two titles ran into each other in presenter mode.
        "variance of q·k<br>(random unit-variance vectors)", "largest softmax weight<br>(mean)"))
    d = np.asarray(sat.d_k, dtype=float)
    fig.add_trace(go.Scatter(x=d, y=sat.variance, name="measured variance", mode="lines+markers",
                             line=dict(color=colors[0])), row=1, col=1)
    fig.add_trace(go.Scatter(x=d, y=d, name="theory: variance = d_k", mode="lines",
                             line=dict(color=colors[1], dash="dash")), row=1, col=1)
    fig.add_trace(go.Scatter(x=d, y=sat.max_weight_raw, name="softmax(q·k)", mode="lines+markers",
                             line=dict(color=colors[2])), row=1, col=2)
    fig.add_trace(go.Scatter(x=d, y=sat.max_weight_scaled, name="softmax(q·k / √d_k)",
                             mode="lines+markers", line=dict(color=colors[3])), row=1, col=2)
    fig.update_xaxes(type="log", title="d_k")
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_yaxes(range=[0, 1], row=1, col=2)
    fig.update_layout(title="Why the paper divides by √d_k", margin=dict(l=10, r=10, t=110, b=10))
    return fig


def layer_norm_bars(x, normalised, colors: list[str]) -> go.Figure:
    """A vector before and after LayerNorm, position by position."""
    labels = [f"x{i + 1}" for i in range(len(np.asarray(x)))]
    fig = go.Figure([
        go.Bar(x=labels, y=np.asarray(x, dtype=float), name="input", marker_color=colors[0],
               hovertemplate="%{x}: %{y:.4f}<extra>input</extra>"),
        go.Bar(x=labels, y=np.asarray(normalised, dtype=float), name="after LayerNorm",
               marker_color=colors[1], hovertemplate="%{x}: %{y:.4f}<extra>after LayerNorm</extra>"),
    ])
    fig.update_layout(title="LayerNorm: mean 0, variance 1 across one vector", barmode="group",
                      xaxis=dict(type="category"), margin=dict(l=10, r=10, t=60, b=10))
    return fig


def complexity(n, costs: dict[str, object], title: str, colors: list[str], y_title: str) -> go.Figure:
    """Cost of each layer type against sequence length n (log scale: the curves differ by orders)."""
    fig = go.Figure()
    for i, (name, values) in enumerate(costs.items()):
        fig.add_trace(go.Scatter(x=np.asarray(n, dtype=float), y=np.asarray(values, dtype=float),
                                 name=name, mode="lines", line=dict(color=colors[i % len(colors)]),
                                 hovertemplate="n = %{x:.0f}<br>%{y:.3s}<extra>" + name + "</extra>"))
    fig.update_layout(title=title, xaxis=dict(title="sequence length n", type="log"),
                      yaxis=dict(title=y_title, type="log"), margin=dict(l=10, r=10, t=60, b=10))
    return fig
