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
    trace_style: dict | None = None,
    layout_style: dict | None = None,
    xaxis_style: dict | None = None,
    yaxis_style: dict | None = None,
) -> go.Figure:
    """One matrix as a heatmap; raises ValueError if labels do not fit the matrix.

    The `*_style` dicts add to (or override) the heatmap trace, the layout and the two axes. The
    figure is built in one constructor call: Plotly validates every later `update_*` call again,
    which made a page of a dozen heatmaps several times slower to rerun.
    """
    z = as_array(values)
    if len(row_labels) != z.shape[0] or len(col_labels) != z.shape[1]:
        raise ValueError(
            f"labels ({len(row_labels)} rows, {len(col_labels)} columns) do not fit a {z.shape} matrix"
        )
    # -inf (blocked by a mask) cannot be coloured: it is drawn as a gap, with its own hover text.
    # Only matrices with such gaps (or printed values) carry a text array; the others format z in the
    # browser, and z travels as float32 (Plotly sends typed arrays as base64): about a third of the
    # bytes of float64 plus a string per cell.
    blocked = np.isneginf(z)
    shown = np.where(np.isinf(z), np.nan, z).astype(np.float32)
    if blocked.any() or show_text:
        text = np.where(blocked, "−∞ (blocked)", np.char.mod("%.4f", np.nan_to_num(z, neginf=0.0)))
        value = "%{text}"
    else:
        text, value = None, "%{z:.4f}"
    trace = dict(
        z=shown,
        x=list(col_labels),
        y=list(row_labels),
        colorscale=colorscale,
        zmin=zmin,
        zmax=zmax,
        text=text,
        texttemplate="%{text}" if show_text else None,
        hovertemplate=f"row %{{y}}<br>column %{{x}}<br>{hover_name} = {value}<extra></extra>",
        hoverongaps=True,
    )
    yaxis = dict(autorange="reversed", title=dict(text=row_title), type="category")
    if square:
        yaxis.update(scaleanchor="x", scaleratio=1, constrain="domain")
    xaxis = dict(title=dict(text=col_title), type="category", tickangle=-45, side="bottom")
    layout = dict(
        title=dict(text=title),
        margin=dict(l=10, r=10, t=60, b=10),
        plot_bgcolor="#f0f0f0",
        xaxis={**xaxis, **(xaxis_style or {})},
        yaxis={**yaxis, **(yaxis_style or {})},
    )
    return go.Figure(data=[go.Heatmap(**{**trace, **(trace_style or {})})],
                     layout={**layout, **(layout_style or {})})


def attention_heatmap(weights, query_labels, key_labels, title: str, colorscale: str = "Blues", **style):
    """Softmax weights (T_q, T_k) in [0, 1]; the title says which axis is which.

    `style`: the `*_style` dicts of `heatmap`.
    """
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
        **style,
    )
