"""Figures for the sinusoidal positional encoding (paper §3.5) and what attention does without it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import as_array, attention_heatmap, dimension_step, heatmap


def pe_heatmap(pe, title: str = "The positional-encoding table", colorscale: str = "RdBu_r") -> go.Figure:
    """PE (P, D): one row per position (0 at the top), one column per dimension, values in [−1, 1]."""
    z = as_array(pe)
    dims = [f"d{j} ({'sin' if j % 2 == 0 else 'cos'})" for j in range(z.shape[1])]
    positions = [f"pos {p}" for p in range(z.shape[0])]
    every, step = max(1, -(-z.shape[0] // 32)), dimension_step(z.shape[1])
    # Label a few dimensions and enough positions to read a row off (every label would overlap).
    fig = heatmap(
        z,
        positions,
        dims,
        f"{title}<br><sup>rows = positions, columns = dimensions (even: sin, odd: cos)</sup>",
        colorscale=colorscale,
        zmin=-1.0,
        zmax=1.0,
        square=False,
        row_title="position",
        col_title="dimension",
        xaxis_style=dict(tickmode="array", tickvals=dims[::step], tickangle=0,
                         ticktext=[f"d{j}" for j in range(0, z.shape[1], step)]),
        yaxis_style=dict(tickmode="array", tickvals=positions[::every],
                         ticktext=[str(p) for p in range(0, z.shape[0], every)]),
        layout_style=dict(height=max(360, min(10 * z.shape[0] + 160, 760))),
    )
    return fig


def pe_curves(pe, dims: list[int], title: str = "One dimension of PE along the positions") -> go.Figure:
    """Lines PE[:, dim] against position for each chosen dimension."""
    z = as_array(pe)
    bad = [d for d in dims if not 0 <= d < z.shape[1]]
    if bad:
        raise ValueError(f"dimensions {bad} outside 0..{z.shape[1] - 1}")
    positions = np.arange(z.shape[0])
    fig = go.Figure(
        [
            go.Scatter(
                x=positions,
                y=z[:, d],
                mode="lines+markers",
                marker=dict(size=4),
                name=f"d{d} ({'sin' if d % 2 == 0 else 'cos'})",
                hovertemplate="pos %{x}<br>PE = %{y:.4f}<extra>d" + str(d) + "</extra>",
            )
            for d in dims
        ]
    )
    fig.update_xaxes(title="position")
    fig.update_yaxes(title="PE(pos, dim)", range=[-1.1, 1.1])
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=60, b=10))
    return fig


def position_similarity_heatmap(similarity, title: str = "PE(p) · PE(q) for every pair of positions",
                                colorscale: str = "Blues") -> go.Figure:
    """Dot products (P, P) of position encodings; rows and columns are positions."""
    z = as_array(similarity)
    labels = [f"pos {p}" for p in range(z.shape[0])]
    return heatmap(
        z,
        labels,
        labels,
        f"{title}<br><sup>rows and columns = positions; the diagonal is |PE|² = d_model / 2</sup>",
        colorscale=colorscale,
        hover_name="dot product",
        row_title="position p",
        col_title="position q",
    )


def shift_matrix_heatmap(matrix, k: int, size: int | None = None, colorscale: str = "RdBu_r",
                         max_width: int | None = None) -> go.Figure:
    """M_k (D, D), or its top-left `size` × `size` corner, where the 2×2 rotation blocks are visible;
    no wider than `max_width` px."""
    z = as_array(matrix)
    if size is not None:
        z = z[:size, :size]
    labels = [f"d{j}" for j in range(z.shape[0])]
    shown = "" if size is None or size >= as_array(matrix).shape[0] else f" (first {z.shape[0]} dimensions)"
    return heatmap(
        z,
        labels,
        labels,
        f"M_k for k = {k}{shown}<br><sup>zero except 2×2 rotation blocks on the diagonal</sup>",
        colorscale=colorscale,
        zmin=-1.0,
        zmax=1.0,
        hover_name="M_k entry",
        row_title="output dimension",
        col_title="input dimension",
        max_width=max_width,
    )


def shift_scatter(predicted, actual, k: int) -> go.Figure:
    """Every entry of M_k · PE(pos) against PE(pos + k): all points lie on the line y = x."""
    p, a = as_array(predicted), as_array(actual)
    if p.shape != a.shape:
        raise ValueError(f"predicted {p.shape} and actual {a.shape} differ in shape")
    # float32 points: Plotly sends them as base64 typed arrays, half the bytes of float64.
    p, a = p.astype(np.float32), a.astype(np.float32)
    fig = go.Figure(
        [
            go.Scattergl(x=p.ravel(), y=a.ravel(), mode="markers", marker=dict(size=3, opacity=0.5),
                         name="entries", hovertemplate="M_k·PE(pos) = %{x:.6f}<br>PE(pos+k) = %{y:.6f}"
                         "<extra></extra>"),
            go.Scatter(x=[-1, 1], y=[-1, 1], mode="lines", name="y = x",
                       line=dict(dash="dash", color="grey")),
        ]
    )
    fig.update_xaxes(title=f"M_{k} · PE(pos)", range=[-1.1, 1.1])
    fig.update_yaxes(title=f"PE(pos + {k})", range=[-1.1, 1.1], scaleanchor="x", scaleratio=1)
    fig.update_layout(title=f"Moving {k} positions on is one fixed linear map", height=420,
                      margin=dict(l=10, r=10, t=60, b=10))
    return fig


def shuffle_pair(plain, shuffled, labels: list[str], shuffled_labels: list[str], title: str,
                 colorscale: str = "Blues", max_width: int | None = None) -> tuple[go.Figure, go.Figure]:
    """The same head's attention (S, S) on the sentence and on its shuffle, as two attention heatmaps.

    Without positions a head spreads its weight thinly (every row near 1/S), which the fixed 0..1
    scale draws almost white: both figures share a scale from 0 to the larger one's largest weight
    instead, so the patterns show and stay comparable.
    """
    top = float(max(np.nanmax(as_array(plain)), np.nanmax(as_array(shuffled)), 1e-6))
    style = dict(trace_style=dict(zmax=top, colorbar=dict(title=dict(text=f"weight<br>(0–{top:.2f})"))),
                 max_width=max_width)  # side by side: each no wider than its half of the page
    return (
        attention_heatmap(plain, labels, labels, f"{title}: your word order", colorscale, **style),
        attention_heatmap(shuffled, shuffled_labels, shuffled_labels, f"{title}: words shuffled", colorscale,
                          **style),
    )
