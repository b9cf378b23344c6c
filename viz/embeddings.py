"""Figures for the input embeddings (paper §3.4): embedding rows, the √d_model scaling, similarity."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import as_array, dimension_step, heatmap, sparse_ticks


def _check_rows(values, labels: list[str], what: str) -> np.ndarray:
    z = as_array(values)
    if len(labels) != z.shape[0]:
        raise ValueError(f"{len(labels)} labels for {z.shape[0]} {what}")
    return z


def embedding_heatmap(rows, labels: list[str], title: str, colorscale: str = "RdBu_r") -> go.Figure:
    """Token vectors (T, D) as a heatmap: one row per token, one column per dimension, colour 0 = white."""
    z = _check_rows(rows, labels, "rows")
    bound = float(np.abs(z).max()) or 1.0
    dims = [f"d{j}" for j in range(z.shape[1])]
    fig = heatmap(
        z,
        labels,
        dims,
        title,
        colorscale=colorscale,
        zmin=-bound,
        zmax=bound,
        square=False,
        row_title="tokens",
        col_title="dimension of d_model",
        xaxis_style=sparse_ticks(dims, dimension_step(len(dims))) if z.shape[1] > 32 else None,
        layout_style=dict(height=max(260, 22 * z.shape[0] + 140)),
    )
    return fig


def scale_bars(norm_embed, norm_scaled, norm_pe, labels: list[str], sqrt_d_model: float) -> go.Figure:
    """Length of each token's raw row, scaled row and positional encoding, side by side."""
    bars = {
        "E[x] (raw row)": np.asarray(norm_embed, dtype=float),
        f"E[x] · √d_model (× {sqrt_d_model:.2f})": np.asarray(norm_scaled, dtype=float),
        "PE(pos)": np.asarray(norm_pe, dtype=float),
    }
    for name, values in bars.items():
        if values.shape != (len(labels),):
            raise ValueError(f"{name}: shape {values.shape} for {len(labels)} labels")
    fig = go.Figure(
        [
            go.Bar(x=list(labels), y=values, name=name,
                   hovertemplate="%{x}<br>length = %{y:.4f}<extra>" + name + "</extra>")
            for name, values in bars.items()
        ]
    )
    fig.update_xaxes(type="category", tickangle=-45, title="tokens")
    fig.update_yaxes(title="vector length ‖·‖")
    fig.update_layout(barmode="group", title="Vector lengths before and after scaling, next to PE",
                      # The legend above the bars: below them, larger (presenter) tick labels ran into it.
                      margin=dict(l=10, r=10, t=90, b=10),
                      legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"))
    return fig


def similarity_heatmap(similarity, labels: list[str], title: str, colorscale: str = "RdBu_r") -> go.Figure:
    """Cosine similarity of tokens (T, T) in [−1, 1]; rows and columns are the same tokens."""
    return heatmap(
        similarity,
        labels,
        labels,
        f"{title}<br><sup>rows and columns = the same tokens; 1 = same direction, 0 = unrelated</sup>",
        colorscale=colorscale,
        zmin=-1.0,
        zmax=1.0,
        hover_name="cosine",
        row_title="tokens",
        col_title="tokens",
    )
