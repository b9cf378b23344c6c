"""Inside an encoder layer (paper §3.1, §3.3, §5.4): residual sums, LayerNorm, the ReLU FFN.

    x₁ = LayerNorm(x + MultiHead(x, x, x))        FFN(x) = max(0, x W₁ + b₁) W₂ + b₂
    x₂ = LayerNorm(x₁ + FFN(x₁))

- `activation_heatmap`: one stage's vectors (T x D or T x d_ff), one row per token.
- `stage_norms`: the length of each token's vector through the stages of one layer.
- `ffn_zero_fraction` / `ffn_hidden_figure`: how many hidden units the ReLU (or a Marian checkpoint's
  SiLU) switched off.
- `layer_changes`: each token's vector from layer to layer: cosine similarity with the previous
  layer and its norm.

Activation heatmaps are not attention matrices: their columns are feature dimensions (128 or 512
of them), so cells are not forced square; rows are still tokens, top to bottom.

Shapes: T positions, D = d_model, F = d_ff, L layers.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.heatmap import as_array, axis_labels, dimension_step, heatmap, sparse_ticks
from viz.multihead import as_stack, escape_text


def activation_heatmap(
    values, labels: list[str], title: str, colorscale: str = "RdBu_r", feature: str = "dimension"
) -> go.Figure:
    """values: (T, D) -> heatmap with tokens as rows and feature dimensions as columns.

    A diverging scale centred on 0 (default "RdBu_r": blue = negative, red = positive; see
    `viz.palette`), except for ReLU outputs, which are never negative: pass a sequential `colorscale`
    for those.
    """
    z = as_array(values)
    bound = float(np.abs(z).max()) or 1.0
    sequential = bool(z.min() >= 0)
    dims = [str(i) for i in range(z.shape[1])]
    fig = heatmap(
        z,
        list(labels),
        dims,
        title,
        colorscale=colorscale,
        zmin=0.0 if sequential else -bound,
        zmax=bound,
        square=False,
        row_title="tokens",
        col_title=feature,
        xaxis_style=sparse_ticks(dims, dimension_step(len(dims))),
        layout_style=dict(height=max(300, 18 * z.shape[0] + 140)),
    )
    return fig


def _with_legend(n_tokens: int) -> int:
    """A figure height (px) whose legend shows one entry per token without a scroll bar (up to
    about 35 tokens: a longer sentence scrolls its legend rather than make the figure taller than a
    screen). The rotated stage names below the plot take about 200 px."""
    return min(900, max(420, 20 * n_tokens + 200))


DASHES = ("solid", "dash", "dot", "dashdot")
DEFAULT_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf")  # Plotly's own cycle


def token_line(t: int, colors: list[str] | None = None) -> dict:
    """Token `t`'s line: the palette's colours in turn, then again dashed, dotted, …, so that no two
    tokens of a sentence look alike (with 10 colours, the 1st and 11th token were both blue)."""
    colors = list(colors or DEFAULT_COLORS)
    return dict(color=colors[t % len(colors)], dash=DASHES[(t // len(colors)) % len(DASHES)])


def vector_norms(values) -> np.ndarray:
    """(T, D) -> (T,) Euclidean length of each token's vector."""
    return np.linalg.norm(as_array(values), axis=1)


def stage_norms(
    stages: list[tuple[str, object]], labels: list[str], title: str, colors: list[str] | None = None
) -> go.Figure:
    """Each token's vector length at each stage of a layer: one line per token.

    stages: [(stage name, (T, D) values), ...] in the order the layer computes them.
    """
    if not stages:
        raise ValueError("no stages to draw")
    norms = np.stack([vector_norms(v) for _, v in stages])  # (stages, T)
    if norms.shape[1] != len(labels):
        raise ValueError(f"{len(labels)} labels for {norms.shape[1]} tokens")
    names = [name for name, _ in stages]
    fig = go.Figure()
    for t, label in enumerate(labels):
        fig.add_trace(
            go.Scatter(
                x=names,
                y=norms[:, t],
                mode="lines+markers",
                name=escape_text(label),
                line=token_line(t, colors),
                hovertemplate=f"{escape_text(label)}<br>%{{x}}<br>‖x‖ = %{{y:.3f}}<extra></extra>",
            )
        )
    fig.update_layout(
        title=title,
        xaxis_title="stage",
        yaxis_title="vector length ‖x‖",
        height=_with_legend(len(labels)),
        margin=dict(l=10, r=10, t=60, b=10),
    )
    return fig


def ffn_zero_fraction(hidden, activation: str = "relu") -> np.ndarray:
    """(T, F) hidden activations -> (T,) share of units switched off for each token: exactly zero
    after a ReLU; at or below zero after a SiLU (x·σ(x) keeps negative inputs as values in (−0.28, 0])."""
    h = as_array(hidden)
    return (h == 0).mean(axis=1) if activation == "relu" else (h <= 0).mean(axis=1)


def ffn_hidden_figure(
    hidden, labels: list[str], title: str, colorscale: str = "Blues", activation: str = "relu"
) -> go.Figure:
    """The FFN's hidden activations (T x d_ff) after the ReLU (or SiLU) and, beside them, the share of
    units switched off per token (`ffn_zero_fraction`)."""
    h = as_array(hidden)
    if h.shape[0] != len(labels):
        raise ValueError(f"{len(labels)} labels for {h.shape[0]} tokens")
    if activation == "relu" and (h < 0).any():
        raise ValueError("ReLU outputs cannot be negative: is this the hidden layer after the ReLU?")
    name, off = ("ReLU", "zeros") if activation == "relu" else ("SiLU", "≤ 0")
    zeros = ffn_zero_fraction(h, activation)
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.78, 0.22],
        shared_yaxes=True,
        horizontal_spacing=0.05,  # room between the last unit number and "0%"
        subplot_titles=[f"hidden units after {name} ({h.shape[0]} × {h.shape[1]})", f"share {off}"],
    )
    rows, row_ticks = axis_labels(labels)  # every token ticked (Plotly skipped some in presenter mode)
    fig.add_trace(
        go.Heatmap(
            z=h,
            x=list(range(h.shape[1])),
            y=rows,
            colorscale=colorscale,
            zmin=min(0.0, float(h.min())),
            zmax=float(h.max()) or 1.0,
            name="hidden",
            colorbar=dict(x=1.01, xanchor="left", title="value"),  # right of both panels, clear of labels
            hovertemplate="token %{y}<br>unit %{x}<br>value = %{z:.4f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Bar(
            x=zeros,
            y=rows,
            orientation="h",
            name="zeros",
            marker_color="#888",
            hovertemplate=f"token %{{y}}<br>%{{x:.1%}} of units are {'0' if activation == 'relu' else '≤ 0'}"
            "<extra></extra>",
        ),
        row=1,
        col=2,
    )
    fig.update_yaxes(autorange="reversed", type="category", **row_ticks)
    fig.update_xaxes(title="hidden unit", row=1, col=1)
    fig.update_xaxes(range=[0, 1], tickformat=".0%", row=1, col=2)
    fig.update_layout(
        title=title,
        showlegend=False,
        height=max(320, 18 * h.shape[0] + 140),
        margin=dict(l=10, r=80, t=80, b=10),
    )
    return fig


def consecutive_cosine(reps) -> np.ndarray:
    """reps: (L+1, T, D), index 0 = the layer-1 input -> (L, T) cosine(layer l output, its input)."""
    r = as_stack(reps, 3)
    if r.shape[0] < 2:
        raise ValueError(f"expected (L+1, T, D) with L >= 1, got {r.shape}")
    a, b = r[:-1], r[1:]
    denom = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (a * b).sum(-1) / np.where(denom == 0, 1.0, denom)


LAYER_CHANGES_GAP = 0.26  # of the width, between the cosine heatmap and the length panel


def layer_changes(
    reps,
    labels: list[str],
    layer_names: list[str],
    title: str,
    colorscale: str = "Viridis",
    colors: list[str] | None = None,
) -> go.Figure:
    """How each token's vector changes from layer to layer.

    reps: (L+1, T, D) or a list of L+1 (T, D): the encoder input (embedding + PE), then each layer's
    output. Left: a heatmap of cosine(output of layer l, its input) per token (1 = direction
    unchanged). Right: each token's vector length at every stage. `layer_names` names the L+1
    entries ("input", "layer 1", ...).
    """
    r = as_stack(reps, 3)
    if r.shape[1] != len(labels) or r.shape[0] != len(layer_names):
        raise ValueError(
            f"shape {r.shape} does not fit {len(layer_names)} layer names and {len(labels)} labels"
        )
    cos = consecutive_cosine(r).T  # (T, L)
    norms = np.linalg.norm(r, axis=-1)  # (L+1, T)
    steps = [f"{layer_names[i]} → {layer_names[i + 1]}" for i in range(len(layer_names) - 1)]
    fig = make_subplots(
        rows=1,
        cols=2,
        column_widths=[0.5, 0.5],
        horizontal_spacing=LAYER_CHANGES_GAP,
        subplot_titles=["cosine similarity with the previous layer", "vector length per layer"],
    )
    fig.add_trace(
        go.Heatmap(
            z=cos,
            x=steps,
            y=list(labels),
            colorscale=colorscale,
            # From the lowest cosine (to a tenth) to 1: on −1 … 1 the usual 0.9-1.0 were one colour
            zmin=max(-1.0, min(0.9, math.floor(float(np.nanmin(cos)) * 10) / 10)),
            zmax=1.0,
            name="cosine",
            # Right after the heatmap, leaving the rest of the gap to the length panel's axis (with
            # presenter-sized text the two ran into each other).
            colorbar=dict(x=(1 - LAYER_CHANGES_GAP) / 2 + 0.01, xanchor="left", title="cos"),
            hovertemplate="token %{y}<br>%{x}<br>cosine = %{z:.4f}<extra></extra>",
        ),
        row=1,
        col=1,
    )
    for t, label in enumerate(labels):
        fig.add_trace(
            go.Scatter(
                x=list(layer_names),
                y=norms[:, t],
                mode="lines+markers",
                name=escape_text(label),
                line=token_line(t, colors),
                hovertemplate=f"{escape_text(label)}<br>%{{x}}<br>‖x‖ = %{{y:.3f}}<extra></extra>",
            ),
            row=1,
            col=2,
        )
    fig.update_yaxes(autorange="reversed", type="category", row=1, col=1)
    fig.update_xaxes(type="category", tickangle=-45, row=1, col=1)
    fig.update_yaxes(title="vector length ‖x‖", row=1, col=2)  # "‖x‖" alone, turned, read as a box
    fig.update_layout(
        title=title,
        height=_with_legend(len(labels)),
        margin=dict(l=10, r=10, t=80, b=10),
    )
    return fig
