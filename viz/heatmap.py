"""Matrix heatmaps drawn as matrices are written: row 0 at the top, square cells, exact hover values."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

QUERY_KEY_NOTE = "rows = queries (attending), columns = keys (attended to)"


def as_array(values) -> np.ndarray:
    """A 2-D float array from a tensor or array-like (tensors are moved to CPU)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().float().numpy()
    array = np.asarray(values, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"a heatmap needs a 2-D matrix, got shape {array.shape}")
    return array


def heatmap(
    values,
    row_labels: list[str],
    col_labels: list[str],
    title: str,
    colorscale: str = "Blues",
    zmin: float | None = None,
    zmax: float | None = None,
    hover_name: str = "value",
    square: bool = True,
    show_text: bool = False,
    row_title: str = "",
    col_title: str = "",
) -> go.Figure:
    """One matrix as a heatmap; raises ValueError if labels do not fit the matrix."""
    z = as_array(values)
    if len(row_labels) != z.shape[0] or len(col_labels) != z.shape[1]:
        raise ValueError(
            f"labels ({len(row_labels)} rows, {len(col_labels)} columns) do not fit a {z.shape} matrix"
        )
    # -inf (blocked by a mask) cannot be coloured; show it as a gap with its own hover text.
    text = np.where(np.isneginf(z), "−∞ (blocked)", np.char.mod("%.4f", np.nan_to_num(z, neginf=0.0)))
    shown = np.where(np.isinf(z), np.nan, z)
    fig = go.Figure(
        go.Heatmap(
            z=shown,
            x=list(col_labels),
            y=list(row_labels),
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            text=text,
            texttemplate="%{text}" if show_text else None,
            hovertemplate=f"row %{{y}}<br>column %{{x}}<br>{hover_name} = %{{text}}<extra></extra>",
            hoverongaps=True,
        )
    )
    fig.update_yaxes(autorange="reversed", title=row_title, type="category")
    fig.update_xaxes(title=col_title, type="category", tickangle=-45, side="bottom")
    if square:
        fig.update_yaxes(scaleanchor="x", scaleratio=1, constrain="domain")
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=60, b=10), plot_bgcolor="#f0f0f0")
    return fig


def attention_heatmap(weights, query_labels, key_labels, title: str, colorscale: str = "Blues"):
    """Softmax weights (T_q, T_k) in [0, 1]; the title says which axis is which."""
    return heatmap(
        weights,
        query_labels,
        key_labels,
        f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>",
        colorscale=colorscale,
        zmin=0.0,
        zmax=1.0,
        hover_name="weight",
        row_title="queries",
        col_title="keys",
    )
