"""Matrix heatmaps drawn as matrices are written: row 0 at the top, square cells, exact hover values."""

from __future__ import annotations

import html
import math
import re

import numpy as np
import plotly.graph_objects as go

QUERY_KEY_NOTE = "rows = queries (attending), columns = keys (attended to)"
# Figures of attention weights carry this in `layout.meta`, so that `relative_to_uniform` can redraw
# them on the "relative to uniform" scale: "unit" for weights in 0..1, "percent" for whole percents;
# a heads grid's "panels" say where each head lies in its one matrix (`viz.grids.panels_meta`).
WEIGHTS_META = "attention weights"
RELATIVE_MAX = 2.0  # the relative scale runs 0..2 × the uniform share, white (1) in the middle


TITLE_WIDTH = 58  # characters per title line: a figure in half of the page has room for about this many

# Fixed margins instead of Plotly's `automargin`. Streamlit's chart theme turns automargin on for
# every axis; with square cells (`scaleanchor`) each margin change moves the plot, its ticks and its
# colour bar, and Plotly redraws the figure until they settle: in Chromium that made the nine
# heatmaps of the step-by-step page take 2-4 times as long to draw as with the margins given here,
# computed from the labels themselves.
TICK_FONT = 12  # px: the tick labels (Streamlit's chart theme uses 12 px too)
AXIS_TITLE_FONT = 14  # px: the axis titles
TITLE_STANDOFF = 14  # px between the tick labels and the axis title (Plotly measures it to their middle)
# The colour bar of a square heatmap stands right beside the matrix: the figure is given the width
# of its matrix plus margins (`square_width`), so its plot area is the matrix and the bar, at the plot
# area's right edge, is COLORBAR_PAD px from the last column. (Plotly's default puts the bar at the
# right of the whole figure: with square cells in a full-width figure the matrix sat in the middle,
# hundreds of px away from its bar.)
COLORBAR_THICKNESS = 14  # px
COLORBAR_PAD = 6  # px between the matrix and its colour bar
COLORBAR_TICK_LEN = 5  # px: Plotly's tick marks on the bar
MIN_WIDTH = 420  # px: narrower, a small matrix (4 × 5 tokens) gets larger cells, so that titles fit
FEW = 16  # categories (heads, layers) that are all ticked, however small their rows
MIN_TICK_FONT = 10  # px: the smallest tick label a class reads; a crowded axis shrinks its labels to it
LABEL_GAP = 1.2  # neighbouring tick labels are this many times their font size apart, or they touch
MAX_CELL = 60  # px: the largest cell that growth gives
MAX_HEIGHT = 900  # px
TITLE_FONT = 16  # px: the figure title in Streamlit's chart theme
# Width of a character in em, by kind (a sans-serif such as Source Sans); anything else counts as wide.
_NARROW = set("ijlI.,:;'!|`()[]{} ")
_MID = set("frt-\"/")
_WIDE = set("mwMW@%&▁")


def wrap_title(title: str, width: int = TITLE_WIDTH) -> str:
    """The title's first line broken at spaces into lines of at most `width` characters, as few as
    that takes and as even as they can be (no "… layer 3 of" above a lone "6").

    Plotly never wraps a title: in a narrow column the end of a long one is simply cut off. The
    subtitle (after the first `<br>`) is left as it is. Each line break keeps the space it replaces
    (`"the <br>heads"`): Plotly draws every line as its own SVG text span, and a reader that takes
    the figure's text (a screen reader, copy and paste) would otherwise get "theheads".
    """
    head, sep, rest = title.partition("<br>")
    lines = _filled(head, width)
    # the narrowest width that needs no more lines gives lines of about the same length
    narrowest = next(w for w in range(1, width + 1) if len(_filled(head, w)) <= len(lines))
    return " <br>".join(_filled(head, narrowest)) + (" " + sep + rest if sep else "")


def _filled(text: str, width: int) -> list[str]:
    """`text` broken at spaces, each line filled with as many words as fit in `width` characters."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 2 + len(word) <= width:  # + the space, and the one kept at the break
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def text_width(text: str, size: float = TICK_FONT) -> float:
    """About how many px `text` takes in a sans-serif font of `size` px (a little more, not less).

    Plotly labels may hold escaped entities (`&lt;/s&gt;`) and a few tags (`<b>`): they count as
    drawn. Zero-width spaces (which keep repeated words apart) take no room.
    """
    shown = html.unescape(re.sub(r"<[^>]*>", "", str(text))).replace("\u200b", "")
    em = 0.0
    for char in shown:
        if char in _NARROW:
            em += 0.3
        elif char in _MID:
            em += 0.42
        elif char in _WIDE:
            em += 0.85
        elif char.isupper():
            em += 0.66
        elif char.isascii():
            em += 0.56
        else:
            em += 0.8  # e.g. umlauts and symbols: wider than most ASCII letters
    return em * size


def tick_depth(labels, size: float = TICK_FONT, angle: float = 0.0) -> float:
    """How far (px) the widest of these tick labels reaches from its axis, drawn at `angle` degrees
    (0: horizontal text; Plotly's -45 tilts it): a horizontal label reaches its width across a y axis;
    across an x axis, the rotated label reaches width · |sin angle| + its height · |cos angle|."""
    width = max((text_width(label, size) for label in labels), default=0.0)
    turn = math.radians(angle)
    return width * abs(math.sin(turn)) + size * abs(math.cos(turn))


def fixed_margins(x_ticks, y_ticks, x_title: str = "", y_title: str = "", x_angle: float = -45.0,
                  size: float = TICK_FONT) -> dict:
    """Left and bottom margins (px) that hold the tick labels and axis titles of one heatmap.

    `x_ticks`, `y_ticks`: the texts drawn as ticks (empty: none). The first x label, tilted, also
    reaches left of the plot: the left margin makes room for it.
    """
    title = AXIS_TITLE_FONT + TITLE_STANDOFF
    left = (max((text_width(t, size) for t in y_ticks), default=0.0) + 6 + (title if y_title else 0))
    if x_ticks and x_angle:
        left = max(left, text_width(x_ticks[0], size) * abs(math.cos(math.radians(x_angle))))
    bottom = (tick_depth(x_ticks, size, x_angle) + 6 if x_ticks else 0) + (title if x_title else 0)
    return dict(l=math.ceil(left) + 4, b=math.ceil(bottom) + 4)


def nice_ticks(low: float, high: float) -> list[float]:
    """About the tick values Plotly puts on a colour bar from `low` to `high` (steps of 1, 2 or 5 × 10ⁿ)."""
    span = high - low
    if not (math.isfinite(span) and span > 0):
        return [low]
    raw = span / 5
    step = 10 ** math.floor(math.log10(raw))
    step *= next((m for m in (1, 2, 5) if m * step >= raw), 10)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def tick_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return f"{value:.{decimals}f}".replace("-", "−")


def colorbar_room(bar: dict, low: float, high: float, size: float = TICK_FONT) -> int:
    """px right of the plot area that a vertical colour bar takes: the pad, the bar, its tick marks
    and tick labels (its `ticktext`, or the values Plotly would tick from `low` to `high`), or its
    title, placed above the bar, when that is wider."""
    if bar.get("ticktext") is not None:
        labels = [str(t) for t in bar["ticktext"]]
    else:
        ticks = nice_ticks(low, high)
        step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
        labels = [tick_text(t, step) for t in ticks]
    title = bar.get("title") or {}
    title = title.get("text", "") if isinstance(title, dict) else str(title)
    bar_and_ticks = (bar.get("thickness", COLORBAR_THICKNESS) + COLORBAR_TICK_LEN + 3
                     + max((text_width(t, size) for t in labels), default=0.0))
    title_width = max((text_width(line, size) for line in title.split("<br>")), default=0.0)
    return math.ceil(bar.get("xpad", COLORBAR_PAD) + max(bar_and_ticks, title_width) + 6)


def square_width(height: float, margin: dict, n_rows: int, n_cols: int) -> int:
    """The figure width (px) at which square cells fill the plot area exactly: the plot's height
    (`height` less the top and bottom margins) gives the cell, the columns give the plot's width."""
    cell = (height - margin["t"] - margin["b"]) / max(n_rows, 1)
    return math.ceil(margin["l"] + margin["r"] + cell * n_cols)


def fit_width(fig: go.Figure) -> go.Figure:
    """Give a square-celled heatmap figure (`heatmap(..., square=True)`) the width of its matrix again
    after its height or margins changed (in place; other figures are left as they are)."""
    layout = fig.layout
    heats = [t for t in fig.data if t.type == "heatmap"]
    if len(heats) != 1 or layout.width is None or layout.height is None or layout.yaxis.scaleanchor != "x":
        return fig  # not one square-celled matrix (the model view's thumbnails keep their width)
    heat = heats[0]
    n_rows, n_cols = np.shape(heat.z)
    margin = {side: layout.margin[side] or 0 for side in ("l", "r", "t", "b")}
    layout.width = square_width(layout.height, margin, n_rows, n_cols)
    return fig


def fit_height(fig: go.Figure) -> go.Figure:
    """Give a square-celled heatmap figure the height (whole px) that its matrix takes at its width, after
    its margins changed (in place; `fit_width` then gives the width that height's cells take exactly)."""
    layout = fig.layout
    n_rows, n_cols = np.shape(next(t for t in fig.data if t.type == "heatmap").z)
    margin = {side: layout.margin[side] or 0 for side in ("l", "r", "t", "b")}
    plot = (layout.width - margin["l"] - margin["r"]) * n_rows / max(n_cols, 1)
    layout.height = math.floor(plot) + margin["t"] + margin["b"]
    return fig


def title_chars(width: float) -> int:
    """About how many characters of a figure title fit on one line of a figure `width` px wide."""
    return max(24, int((width - 20) / (0.6 * TITLE_FONT)))


def axis_labels(labels) -> tuple[list[str], dict]:
    """(categories, axis settings) for token labels: ticks read as words, hover gives the pieces.

    Labels that know their piece and position (`viz.labels.Label`) become categories named by it
    ("3:▁cat"), which is what hover shows, and tick texts that read as the word; every token gets its
    tick, however many there are (Plotly would skip every other one on a crowded axis, and the key a
    reader is looking at would go unnamed). Other labels (dimensions, numbers) are their own
    categories: up to FEW of them (heads, layers) all ticked too, since Plotly also skipped every other
    "head n" in presenter mode; more (positions, dimensions) as Plotly sees fit.
    """
    texts = [str(label) for label in labels]
    hovers = [getattr(label, "hover", None) for label in labels]
    if texts and all(hovers) and len(set(hovers)) == len(hovers):
        return hovers, dict(tickmode="array", tickvals=hovers, ticktext=texts)
    if 0 < len(texts) <= FEW:
        return texts, dict(tickmode="array", tickvals=texts, ticktext=texts)
    return texts, {}


def dimension_step(n: int, most: int = 8) -> int:
    """Every how many of `n` dimensions a label goes: the smallest power of two that leaves at most `most`
    labels (d0, d32, … for d_model = 256). Sixteen or more ran into each other across a page at 1440 px, or
    at presenter size."""
    step = 1
    while -(-n // step) > most:
        step *= 2
    return step


def sparse_ticks(categories: list[str], every: int) -> dict:
    """Axis settings that label every `every`-th category, upright: for dimensions (d0, d16, …), where a
    label per column would overlap and no labels at all leave bare tick marks."""
    return dict(tickmode="array", tickvals=categories[::every], ticktext=categories[::every], tickangle=0)


def as_array(values) -> np.ndarray:
    """A 2-D float array from a tensor or array-like (tensors are moved to CPU)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().float().numpy()
    array = np.asarray(values, dtype=float)
    if array.ndim != 2:
        raise ValueError(f"a heatmap needs a 2-D matrix, got shape {array.shape}")
    return array


def cell_values(z: np.ndarray, show_text: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """What a heatmap trace holds for matrix `z`: the colours' values (float32, ±∞ as NaN: a gap) and,
    when some cell is blocked (−∞) or values are printed, the text of every cell (else None)."""
    blocked = np.isneginf(z)
    shown = np.where(np.isinf(z), np.nan, z).astype(np.float32)
    if not (blocked.any() or show_text):
        return shown, None
    return shown, np.where(blocked, "−∞ (blocked)", np.char.mod("%.4f", np.nan_to_num(z, neginf=0.0)))


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
    extra_margin: dict | None = None,
    cell: int = 26,
    max_width: int | None = None,
) -> go.Figure:
    """One matrix as a heatmap; raises ValueError if labels do not fit the matrix.

    The `*_style` dicts add to (or override) the heatmap trace, the layout and the two axes. The
    margins are computed from the labels (`fixed_margins`, no automargin); `extra_margin` adds room
    (px) on any side, e.g. for a colour bar under the matrix. The figure is built in one constructor
    call: Plotly validates every later `update_*` call again, which made a page of a dozen heatmaps
    several times slower to rerun.

    Square cells (`square`) of about `cell` px: the figure gets the height of its rows and the width
    of its columns (`square_width`), the matrix sits at the top left of its plot area and a vertical
    colour bar right beside it (shown at that width: `ui.render.show_figure`; a narrower column
    shrinks the cells). A matrix too small for `MIN_WIDTH` gets larger cells; one wider than
    `max_width` (e.g. the column it is drawn in, `ui.render.column_width`) smaller ones.
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
    shown, text = cell_values(z, show_text)
    value = "%{z:.4f}" if text is None else "%{text}"
    x, x_ticks = axis_labels(col_labels)
    y, y_ticks = axis_labels(row_labels)
    trace = dict(
        z=shown,
        x=x,
        y=y,
        colorscale=colorscale,
        zmin=zmin,
        zmax=zmax,
        text=text,
        texttemplate="%{text}" if show_text else None,
        hovertemplate=f"row %{{y}}<br>column %{{x}}<br>{hover_name} = {value}<extra></extra>",
        hoverongaps=True,
    )
    fixed = dict(automargin=False, tickfont=dict(size=TICK_FONT))
    yaxis = dict(autorange="reversed", title=dict(text=row_title, standoff=TITLE_STANDOFF), type="category",
                 **fixed, **y_ticks)
    xaxis = dict(title=dict(text=col_title, standoff=TITLE_STANDOFF), type="category", tickangle=-45,
                 side="bottom", **fixed, **x_ticks)
    if square:
        # Square cells, and the plot shrinks to the matrix on both axes (no grey band beside a tall
        # or wide matrix), towards the top left: any room left over lies below and right of it.
        yaxis.update(scaleanchor="x", scaleratio=1, constrain="domain", constraintoward="top")
        xaxis.update(constrain="domain", constraintoward="left")
    xaxis, yaxis = {**xaxis, **(xaxis_style or {})}, {**yaxis, **(yaxis_style or {})}
    trace_style = dict(trace_style or {})
    bar = trace_style.pop("colorbar", None) or {}
    shows_bar = trace_style.get("showscale", True) is not False
    vertical = bar.get("orientation", "v") == "v"
    if square and shows_bar and vertical:
        bar = {"x": 1.0, "xanchor": "left", "xpad": COLORBAR_PAD, "thickness": COLORBAR_THICKNESS,
               "y": 1.0, "yanchor": "top", "len": 1.0, **bar}
    if bar:
        trace["colorbar"] = bar
    # pad 0: the theme's 8-px gap between the plot and its axes is not in the room Plotly leaves for an
    # axis title, which then sat on the tick labels
    margin = dict(r=10, t=0, pad=0, **fixed_margins(
        drawn_ticks(xaxis, x), drawn_ticks(yaxis, y), col_title, row_title, xaxis.get("tickangle", 0)))
    if square and shows_bar and vertical:
        finite = shown[np.isfinite(shown)]
        low = zmin if zmin is not None else float(finite.min()) if finite.size else 0.0
        high = zmax if zmax is not None else float(finite.max()) if finite.size else 1.0
        margin["r"] = colorbar_room(bar, low, high)
    for side, extra in (extra_margin or {}).items():
        margin[side] += extra
    height, width = None, None
    if square:
        height, width, title = _square_size(z.shape, margin, title, cell, max_width)
    else:
        title = wrap_title(title)
    margin["t"] = title_margin(title)
    layout = dict(
        title=dict(text=title),
        height=height,
        width=width,
        margin=margin,
        plot_bgcolor="#f0f0f0",  # shows through only where a cell has no value (a gap)
        xaxis=xaxis,
        yaxis=yaxis,
    )
    fig = go.Figure(data=[go.Heatmap(**{**trace, **trace_style})], layout={**layout, **(layout_style or {})})
    return fit_ticks(fig) if square else fig


def _square_size(shape: tuple[int, int], margin: dict, title: str, cell: int,
                 max_width: int | None) -> tuple[int, int, str]:
    """(height, width, title wrapped to that width) of a square-celled heatmap; `margin` has all sides
    but the top, which the wrapped title decides.

    The plot gets `cell` px per row (`square_height`); a figure that would be narrower than MIN_WIDTH
    gets larger cells instead (up to MAX_CELL), so that a 4 × 5 matrix is not a stamp beside a title;
    one wider than `max_width` smaller cells. The title is wrapped to the width, and the figure grows
    by the lines that adds.

    A matrix that stays narrower than the figure (one or two columns, which keep their cells rather
    than grow into a pillar, or cells held at MAX_CELL) leaves room over: it goes to the right margin
    (`margin["r"]` grows, in place), beyond the colour bar, so the plot area is still the matrix and
    its bar stands beside its last column (it stood at the figure's right edge, 300 px away).
    """
    n_rows, n_cols = shape
    plot = square_height(n_rows, cell) - title_margin(wrap_title(title)) - margin["b"]  # plot height
    sides = margin["l"] + margin["r"]
    if sides + plot / n_rows * n_cols < MIN_WIDTH and n_cols >= 3:  # one or two columns: no pillar
        plot = max(plot, min((MIN_WIDTH - sides) / n_cols * n_rows, MAX_CELL * n_rows,
                             MAX_HEIGHT - 120 - margin["b"]))
    if max_width and sides + plot / n_rows * n_cols > max_width:
        plot = (max_width - sides) / n_cols * n_rows
    plot = math.floor(plot)  # whole px: the figure's height is exact, and the width follows from it
    needed = math.ceil(sides + plot / n_rows * n_cols)
    width = max(min(MIN_WIDTH, max_width or MIN_WIDTH), needed)
    margin["r"] += width - needed
    title = wrap_title(title, title_chars(width))
    return math.ceil(plot + title_margin(title) + margin["b"]), width, title


def _fitting(labels: list[str], spacing: float, size: float, angle: float) -> tuple[float, float]:
    """(font size, angle) at which tick labels `spacing` px apart do not touch: the given ones where
    they fit; else turned further (0° → −45° → −90°; upright, neighbours are a whole spacing apart,
    at −45° only 0.71 of it); else upright and smaller, down to MIN_TICK_FONT (never larger)."""

    def fits(at: float, px: float) -> bool:
        if at % 180 == 0:  # horizontal text along the axis: each label needs its own width
            return spacing >= max(text_width(label, px) for label in labels) + px / 2
        return spacing * abs(math.sin(math.radians(at))) >= LABEL_GAP * px

    for at in [angle] + [a for a in (-45.0, -90.0) if abs(a) > abs(angle)]:
        if fits(at, size):
            return size, at
    return max(MIN_TICK_FONT, min(size, math.floor(spacing / LABEL_GAP))), -90.0


def fit_ticks(fig: go.Figure) -> go.Figure:
    """Tick labels of a square-celled heatmap that do not touch their neighbours (in place).

    Every token keeps its label (rotate, never skip). Where the cells are too narrow for the
    labels at their angle, the x labels turn upright, and where even that is too tight (38 keys in an
    860-px figure at presenter size) they get smaller, to MIN_TICK_FONT at the least; rows too low for
    their labels' size get smaller labels the same way. The margins follow the labels, the plot stays:
    the figure grows or shrinks by as much. Other figures are returned unchanged.
    """
    layout = fig.layout
    heats = [t for t in fig.data if t.type == "heatmap"]
    if len(heats) != 1 or layout.width is None or layout.height is None or layout.yaxis.scaleanchor != "x":
        return fig  # not one square-celled matrix (a grid of them labels its outer panels only)
    if isinstance(layout.meta, dict) and layout.meta.get("panels"):
        return fig  # a heads grid (`viz.grids.heads_grid`): its panels' labels keep their size and angle
    heat = heats[0]
    n_rows, n_cols = np.shape(heat.z)
    margin = layout.margin
    cell = (layout.height - margin.t - margin.b) / max(n_rows, 1)
    for axis, values, count in ((layout.xaxis, heat.x, n_cols), (layout.yaxis, heat.y, n_rows)):
        if axis.showticklabels is False or axis.tickmode != "array" or not axis.tickvals:
            continue  # no labels, or Plotly's own choice of ticks
        labels = drawn_ticks(axis.to_plotly_json(), values if values is not None else [])
        size = axis.tickfont.size or TICK_FONT
        angle = float(axis.tickangle) if isinstance(axis.tickangle, (int, float)) else 0.0
        spacing = cell * count / len(axis.tickvals)
        if axis is layout.yaxis:  # horizontal labels, one per row: only their size can change
            new_size = size if spacing >= LABEL_GAP * size else max(
                MIN_TICK_FONT, min(size, math.floor(spacing / LABEL_GAP)))
            new_angle = angle
        else:
            new_size, new_angle = _fitting(labels, spacing, size, angle)
        if (new_size, new_angle) == (size, angle):
            continue
        axis.tickfont.size, axis.tickangle = new_size, new_angle
        if axis is layout.xaxis:
            grow = math.ceil(tick_depth(labels, new_size, new_angle) - tick_depth(labels, size, angle))
            margin.b += grow
            layout.height += grow
        else:
            widest = max((text_width(label, new_size) for label in labels), default=0.0)
            grow = math.ceil(widest - max((text_width(label, size) for label in labels), default=0.0))
            margin.l += grow
            layout.width += grow
    return fig


def drawn_ticks(axis: dict, categories) -> list[str]:
    """The tick texts an axis (as a layout dict) draws: none, its `ticktext`, or its categories."""
    if axis.get("showticklabels") is False:
        return []
    if axis.get("ticktext") is not None:
        return [str(t) for t in axis["ticktext"]]
    return [str(c) for c in categories]


def title_margin(title: str) -> int:
    """Top margin (px) with room for every line of a (wrapped) title and its subtitle."""
    return 36 + 22 * (title.count("<br>") + 1)


def square_height(n_rows: int, cell: int = 26, chrome: int = 210) -> int:
    """A figure height that gives `n_rows` rows of about `cell` px (title, ticks and margins: `chrome`)."""
    return int(min(900, max(340, cell * n_rows + chrome)))


def attention_heatmap(weights, query_labels, key_labels, title: str, colorscale: str = "Blues",
                      note: str = QUERY_KEY_NOTE, **style):
    """Softmax weights (T_q, T_k) in [0, 1]; the subtitle `note` says which axis is which.

    `style`: the `*_style` dicts of `heatmap`, its `cell` and `max_width`.
    """
    layout_style = {"meta": {"kind": WEIGHTS_META, "unit": 1.0}, **style.pop("layout_style", {})}
    return heatmap(
        weights,
        query_labels,
        key_labels,
        f"{title}<br><sup>{note}</sup>",
        colorscale=colorscale,
        zmin=0.0,
        zmax=1.0,
        hover_name="weight",
        row_title="queries",
        col_title="keys",
        layout_style=layout_style,
        **style,
    )


def is_weights(fig: go.Figure) -> bool:
    meta = fig.layout.meta
    return isinstance(meta, dict) and meta.get("kind") == WEIGHTS_META


def uniform_ratio(z: np.ndarray, segment: int | None = None) -> np.ndarray:
    """Each weight divided by its row's uniform share 1/T (T = the keys the row may attend to).

    z: (..., T_k) weights; keys a row may not attend to are NaN or exactly 0 (a softmax gives every
    allowed key a positive weight). 1 = as much as an even spread would give, 0 = none. `segment`: a
    row holds several heads' rows side by side (`viz.grids.heads_grid`), one every `segment` columns
    (its keys, then NaN gap cells): T is counted in each segment apart.
    """
    allowed = np.nan_to_num(z, nan=0.0) > 0
    if segment is None:
        count = allowed.sum(axis=-1, keepdims=True)
    else:
        n = z.shape[-1]
        padded = np.pad(allowed, [(0, 0)] * (z.ndim - 1) + [(0, -n % segment)])
        per = padded.reshape(*z.shape[:-1], -1, segment).sum(axis=-1, keepdims=True)  # (..., segments, 1)
        count = np.broadcast_to(per, (*per.shape[:-1], segment)).reshape(*z.shape[:-1], -1)[..., :n]
    return z * np.maximum(count, 1)


def relative_to_uniform(fig: go.Figure, diverging: str) -> go.Figure:
    """An attention-weights figure redrawn relative to uniform: white = 1/T, the even spread.

    A uniform head is white all over instead of an even pale blue, and what a head prefers (red) or
    avoids (blue) stands out even when no weight is near 1. The scale runs 0..2 × uniform (above 2 is
    drawn as 2); hover still gives the weight itself. Figures that are not attention weights
    (`is_weights`) are returned unchanged; the given figure is never modified.
    """
    if not is_weights(fig):
        return fig
    new = go.Figure(fig)
    unit = float(new.layout.meta.get("unit", 1.0))
    panels = new.layout.meta.get("panels")  # a heads grid: each row of its matrix holds several heads'
    segment = panels["step"][1] if panels else None
    bar = dict(title=dict(text="× uniform<br>(1/T)"), tickvals=[0, 0.5, 1, 1.5, 2],
               ticktext=["0", "½", "1 (even)", "1½", "≥ 2"])
    for trace in new.data:
        if trace.type != "heatmap":
            continue
        weights = np.asarray(trace.z, dtype=float) / unit
        trace.z = uniform_ratio(weights, segment).astype(np.float32)
        trace.customdata = weights.astype(np.float32)
        hover = (trace.hovertemplate or "").replace("%{z:.4f}", "%{customdata:.4f}")
        hover = hover.replace("≈ %{z}%", "= %{customdata:.2f}")
        trace.hovertemplate = hover.replace("<extra>", " (%{z:.2f} × uniform)<extra>", 1)
        if trace.coloraxis is None:
            trace.update(colorscale=diverging, zmin=0.0, zmax=RELATIVE_MAX, colorbar=bar)
    if new.layout.coloraxis.colorscale is not None or new.layout.coloraxis.cmax is not None:
        new.layout.coloraxis.update(colorscale=diverging, cmin=0.0, cmax=RELATIVE_MAX, colorbar=bar)
    if new.layout.width is not None:  # a square heatmap sized to its matrix: room for the new bar
        heat = next(t for t in new.data if t.type == "heatmap")
        drawn_bar = new.layout.coloraxis.colorbar if heat.coloraxis else heat.colorbar
        room = colorbar_room(drawn_bar.to_plotly_json(), 0.0, RELATIVE_MAX)
        new.layout.margin.r = max(new.layout.margin.r or 0, room)
        if panels:  # a heads grid keeps its width (the page's column): its cells shrink a little instead
            fit_height(new)
        fit_width(new)
    return new
