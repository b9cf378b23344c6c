"""Grids of small attention heatmaps (paper §3.2.2): every head of one layer, every layer × head.

- `heads_grid`: every head of one layer as a small heatmap, side by side, each token labelled: one
  heatmap trace of panels (`panels_meta`, `tile`, `split`), which `grid_changes` changes to another layer.
- `model_view`: all layers × all heads of one attention as a grid of thumbnails (patterns, no labels).

Shapes: H heads, L layers, T_q queries, T_k keys.
"""

from __future__ import annotations

import math
import re

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import (
    COLORBAR_PAD,
    COLORBAR_THICKNESS,
    QUERY_KEY_NOTE,
    TICK_FONT,
    WEIGHTS_META,
    axis_labels,
    cell_values,
    colorbar_room,
    drawn_ticks,
    fixed_margins,
    square_width,
    uniform_ratio,
)
from viz.live import Change, matrix, retitled
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
    token_hover: bool = True,
) -> go.Figure:
    """Small attention heatmaps on a grid, one trace and one x/y axis pair each, one shared colour bar
    (the model view's thumbnails); blocks: (row, col, (T_q, T_k), name).

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
    meta = {"kind": WEIGHTS_META, "unit": 100.0 if percent else 1.0}
    # Without `token_hover` the traces carry no token labels (hover gives positions) and the figure names
    # the tokens once, for the CSV (`ui.export`): 48 thumbnails of a long sentence repeated them 48 times.
    where = "query %{y}<br>key %{x}" if token_hover else "query at %{y}, key at %{x}"
    labels = dict(x=x, y=y) if token_hover else {}
    if not token_hover:
        meta["tokens"] = {"query": y, "key": x}
    for i, (r, c, z, name) in enumerate(blocks):
        suffix = "" if i == 0 else str(i + 1)
        x0, x1 = c / cols + gap / 2, (c + 1) / cols - gap / 2
        y1, y0 = 1 - r / rows - gap / 2, 1 - (r + 1) / rows + gap / 2
        x_shown, y_shown = show_ticks and r == rows - 1, show_ticks and c == 0  # tick labels drawn
        data.append(
            dict(
                type="heatmap",
                z=z,
                **labels,
                coloraxis="coloraxis",
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                name=name,
                hovertemplate=f"{name}<br>{where}<br>{value}<extra></extra>",
            )
        )
        layout[f"xaxis{suffix}"] = dict(
            domain=[x0, x1],
            anchor=f"y{suffix}",
            type="category",
            showticklabels=x_shown,
            tickangle=tick_angle,
            tickfont=dict(size=GRID_TICK_FONT),
            constrain="domain",
            automargin=False,  # margins sized below (viz.heatmap.fixed_margins)
            **(x_ticks if x_shown else {}),  # hidden labels need no tick arrays
        )
        layout[f"yaxis{suffix}"] = dict(
            domain=[y0, y1],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=y_shown,
            tickfont=dict(size=GRID_TICK_FONT),
            automargin=False,
            scaleanchor=f"x{suffix}",
            scaleratio=1,
            constrain="domain",
            constraintoward="top",  # right under its name: a narrow panel's spare height goes below it
            **(y_ticks if y_shown else {}),
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
        sides = fixed_margins(
            drawn_ticks(x_ticks, x), drawn_ticks(y_ticks, y), x_angle=tick_angle, size=GRID_TICK_FONT
        )
    top_value = 100.0 if percent else 1.0
    bar = dict(
        title=dict(text="weight (%)" if percent else "weight"),
        x=1.0,
        xanchor="left",
        xpad=COLORBAR_PAD,
        thickness=COLORBAR_THICKNESS,
    )
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
        meta=meta,
    )
    return go.Figure(data=data, layout=layout)


PANEL_GAP = 32  # px between two columns of panels of a heads grid (their key labels stay apart)
NAME_ROOM = 26  # px between two rows of panels: the lower panels' head names stand in it
# A heads grid's token categories: one per row and column of its one matrix, so the same token in
# another panel row or column carries this invisible mark once per panel before it (hover reads the
# same); the gap cells' categories are made of GAP_MARK alone.
PANEL_MARK = "\u2060"  # word joiner
GAP_MARK = "\u2063"  # invisible separator
PANEL_FILL = "#f0f0f0"  # behind a panel's cells: shows only where a cell has no value (blocked, −∞)
GRID_HOVER = "%{text}<br>query %{y}<br>key %{x}<br>weight = %{z:.4f}<extra></extra>"  # text: the head
_NUMBERED = re.compile(r"^(\D*?)(\d{1,3})$")  # "head 3": a prefix and the head's number


def panels_meta(fig: go.Figure) -> dict | None:
    """Where a `heads_grid` figure's heads lie in its one matrix (its `layout.meta["panels"]`); None for
    another figure. Keys: "grid" [rows, columns] of panels, head h in row h // columns, column
    h % columns; "size" [T_q, T_k] cells each; "step" [rows, columns] from a panel's first cell to the
    next panel's (the panel and the gap after it); "heads" the heads' names."""
    meta = fig.layout.meta
    return meta.get("panels") if isinstance(meta, dict) else None


def _panels(n_heads: int, n_q: int, n_k: int, max_cols: int, plot_width: float) -> dict:
    """`panels_meta` (but "heads") of a grid of `n_heads` (T_q, T_k) panels in a plot `plot_width` px
    wide: gaps of whole cells, about PANEL_GAP px between columns and NAME_ROOM px between rows."""
    rows, cols = _grid_shape(n_heads, max_cols)
    cell = (plot_width - (cols - 1) * PANEL_GAP) / (cols * n_k)  # px, about
    gap_cols = max(1, round(PANEL_GAP / cell)) if cols > 1 else 0
    cell = plot_width / (cols * n_k + (cols - 1) * gap_cols)  # px, exactly
    gap_rows = max(1, math.ceil(NAME_ROOM / cell)) if rows > 1 else 0
    return {"grid": [rows, cols], "size": [n_q, n_k], "step": [n_q + gap_rows, n_k + gap_cols]}


def _extent(panels: dict) -> tuple[int, int]:
    """(rows, columns) of the one matrix: the panels and the gaps between them (none after the last)."""
    (rows, cols), (n_q, n_k), (step_q, step_k) = panels["grid"], panels["size"], panels["step"]
    return rows * step_q - (step_q - n_q), cols * step_k - (step_k - n_k)


def _corner(panels: dict, h: int) -> tuple[int, int]:
    """(row, column) of head h's first cell in the one matrix."""
    cols = panels["grid"][1]
    return h // cols * panels["step"][0], h % cols * panels["step"][1]


def tile(patterns: np.ndarray, panels: dict) -> np.ndarray:
    """The heads' matrices (H, T_q, T_k) as one (rows, columns) matrix laid out as `panels` says; NaN in
    the gaps and in the panels no head fills."""
    out = np.full(_extent(panels), np.nan, dtype=np.float32)
    n_q, n_k = panels["size"]
    for h, weights in enumerate(patterns):
        row, col = _corner(panels, h)
        out[row : row + n_q, col : col + n_k] = weights
    return out


def split(matrix: np.ndarray, panels: dict) -> np.ndarray:
    """The heads' matrices (H, T_q, T_k) taken out of the one matrix `tile` made."""
    n_q, n_k = panels["size"]
    corners = [_corner(panels, h) for h in range(len(panels["heads"]))]
    return np.stack([matrix[row : row + n_q, col : col + n_k] for row, col in corners])


def _categories(tokens: list[str], count: int, step: int) -> list[str]:
    """One axis's categories: the tokens `count` times (marked by panel), gap cells between them."""
    gap = step - len(tokens)
    out = []
    for n in range(count):
        out += [PANEL_MARK * n + token for token in tokens]
        if n < count - 1:
            out += [GAP_MARK * (1 + n * gap + i) for i in range(gap)]
    return out


def _head_names(panels: dict) -> tuple[np.ndarray | list[list[str]], str]:
    """What hover names each cell's head by: (the trace's text, its hovertemplate).

    Names with one prefix and a number ("head 1" … "head 8", or from 0) travel as the numbers, one
    byte a cell (uint8, sent as a typed array), the prefix in the template: a 60-piece sentence's grid
    has 30,000 cells, which as the strings "head 3" took 270 KB. Other names go as they are ("" in a gap).
    """
    matches = [_NUMBERED.match(name) for name in panels["heads"]]
    numbered = all(matches) and len({m.group(1) for m in matches}) == 1
    numbered = numbered and all(int(m.group(2)) <= 255 for m in matches)
    shape = _extent(panels)
    names = np.zeros(shape, dtype=np.uint8) if numbered else np.full(shape, "", dtype=object)
    n_q, n_k = panels["size"]
    for h, name in enumerate(panels["heads"]):
        row, col = _corner(panels, h)
        names[row : row + n_q, col : col + n_k] = int(matches[h].group(2)) if numbered else name
    if not numbered:
        return names.tolist(), GRID_HOVER
    return names, GRID_HOVER.replace("%{text}", matches[0].group(1) + "%{text}", 1)


def _panel_marks(panels: dict) -> tuple[list[dict], list[dict]]:
    """(annotations, shapes): each head's name above its panel, and the panel's grey backdrop."""
    n_q, n_k = panels["size"]
    notes, shapes = [], []
    for h, name in enumerate(panels["heads"]):
        row, col = _corner(panels, h)
        top, left = row - 0.5, col - 0.5  # cell edges, in the axes' coordinates
        name_at = dict(x=left + n_k / 2, y=top, xref="x", yref="y", yanchor="bottom", showarrow=False)
        notes.append(dict(text=name, font=dict(size=11), **name_at))
        box = dict(x0=left, x1=left + n_k, y0=top, y1=top + n_q, xref="x", yref="y")
        shapes.append(dict(type="rect", fillcolor=PANEL_FILL, line=dict(width=0), layer="below", **box))
    return notes, shapes


def _grid_axes(panels: dict, x: list[str], y: list[str], x_text: list[str], y_text: list[str], angle: float):
    """(x axis, y axis) of a heads grid: every token of every panel ticked, square cells, the matrix's
    own ranges (row 0 at the top)."""
    (rows, cols), (step_q, step_k) = panels["grid"], panels["step"]
    n_rows, n_cols = _extent(panels)
    axis = dict(type="category", tickmode="array", tickfont=dict(size=GRID_TICK_FONT), constrain="domain")
    axis.update(showgrid=False, zeroline=False, automargin=False)  # margins: sized by `heads_grid`
    ticks_x = [c for c in _categories(x, cols, step_k) if not c.startswith(GAP_MARK)]
    ticks_y = [c for c in _categories(y, rows, step_q) if not c.startswith(GAP_MARK)]
    xaxis = dict(axis, tickvals=ticks_x, ticktext=x_text * cols, tickangle=angle, constraintoward="left")
    yaxis = dict(axis, tickvals=ticks_y, ticktext=y_text * rows, constraintoward="top")
    xaxis.update(range=[-0.5, n_cols - 0.5], autorange=False)
    yaxis.update(range=[n_rows - 0.5, -0.5], autorange=False, scaleanchor="x", scaleratio=1)
    return xaxis, yaxis


def heads_grid(
    patterns,
    query_labels: list[str],
    key_labels: list[str],
    head_names: list[str],
    title: str,
    colorscale: str = "Blues",
    max_cols: int = 4,
) -> go.Figure:
    """All heads of one layer: patterns (H, T_q, T_k) -> their matrices side by side, one colour bar.

    One heatmap trace holds them all, each head in a panel of a grid, a gap of empty cells (NaN)
    between panels: the browser changes one matrix for another layer several times faster than one
    per head (`grid_changes`, `ui/live.js`). Where each head lies: `panels_meta`; `split` takes the
    heads' matrices out again. Every token is labelled, the queries left of each row of panels and the
    keys under each column; hover names the head (the cell's text), the query and the key (its row's
    and column's categories: the tokens' hover form, `axis_labels`) and the weight; the gaps have none.
    A long sentence gets two wider panels to a row (and upright labels) instead of unlabelled ones.
    The figure is GRID_WIDTH px wide and as tall as its square cells need.
    """
    z = as_stack(patterns, 3)  # (H, T_q, T_k)
    check_labels(z.shape, query_labels, key_labels)
    if len(head_names) != z.shape[0]:
        raise ValueError(f"{len(head_names)} head names for {z.shape[0]} heads")
    long = max(z.shape[1], z.shape[2]) > LONG
    angle = -90 if long else -60
    (x, x_ticks), (y, y_ticks) = axis_labels(key_labels), axis_labels(query_labels)
    x_text, y_text = drawn_ticks(x_ticks, x), drawn_ticks(y_ticks, y)
    # The bar's title at the size `colorbar_room` measures (the chart theme's 14 px would push the right
    # margin wider, and Plotly then keeps the cells square by drawing rows above the matrix).
    named = dict(text="weight", font=dict(size=TICK_FONT))
    bar = dict(title=named, x=1.0, xanchor="left", xpad=COLORBAR_PAD, thickness=COLORBAR_THICKNESS)
    margin = dict(r=colorbar_room(bar, 0.0, 1.0), t=100)
    margin.update(fixed_margins(x_text, y_text, x_angle=angle, size=GRID_TICK_FONT))
    plot_width = GRID_WIDTH - margin["l"] - margin["r"]
    panels = _panels(*z.shape, min(max_cols, 2) if long else max_cols, plot_width)
    panels["heads"] = list(head_names)
    shown, _ = cell_values(tile(z, panels))  # (R, C): −∞ (blocked) is a gap too
    (n_rows, n_cols), (rows, cols) = shown.shape, panels["grid"]
    height = math.floor(plot_width * n_rows / n_cols) + margin["t"] + margin["b"]
    margin["r"] += GRID_WIDTH - square_width(height, margin, n_rows, n_cols)  # the px the height rounded off
    head_text, hover = _head_names(panels)
    trace = dict(
        type="heatmap",
        z=shown,
        x=_categories(x, cols, panels["step"][1]),
        y=_categories(y, rows, panels["step"][0]),
        text=head_text,
        hovertemplate=hover,
        hoverongaps=False,
        coloraxis="coloraxis",
    )
    xaxis, yaxis = _grid_axes(panels, x, y, x_text, y_text, angle)
    notes, shapes = _panel_marks(panels)
    layout = dict(
        title=dict(text=f"{title}<br><sup>{QUERY_KEY_NOTE}</sup>"),
        xaxis=xaxis,
        yaxis=yaxis,
        coloraxis=dict(colorscale=colorscale, cmin=0.0, cmax=1.0, colorbar=bar),
        width=GRID_WIDTH,
        height=height,
        margin=margin,
        plot_bgcolor="rgba(0,0,0,0)",  # the gaps between panels: the page's own background
        annotations=notes,
        shapes=shapes,
        meta={"kind": WEIGHTS_META, "unit": 1.0, "panels": panels},
    )
    return go.Figure(data=[trace], layout=layout)


def grid_changes(fig: go.Figure, context: str, new_context: str, patterns) -> Change:
    """What changes in a `heads_grid` figure drawn for `context` (e.g. "layer 1 of 6") to show another
    layer's `patterns` (H, T_q, T_k), named `new_context`: its one matrix (and, drawn relative to
    uniform, the weights its hover gives: `viz.heatmap.relative_to_uniform`, read off the figure) and
    its title. The heads' names, the labels and the layout stay."""
    panels = panels_meta(fig)
    shown, _ = cell_values(tile(as_stack(patterns, 3), panels))  # (R, C)
    data = {}
    if fig.data[0].customdata is not None:
        data["customdata"] = [matrix(shown)]
        shown = uniform_ratio(shown.astype(float), panels["step"][1]).astype(np.float32)
    data["z"] = [matrix(shown)]
    return data, retitled(fig, context, new_context)


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
        token_hover=max(z.shape[2:]) <= LONG,  # past it a cell is a pixel or two wide: positions suffice
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
