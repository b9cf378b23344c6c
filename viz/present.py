"""Figures for a projected screen: every text in a figure scaled up (presenter mode)."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from viz.heatmap import fit_ticks, fit_width, title_chars, wrap_title

PLOTLY_FONT = 12  # Plotly's default text size, and Streamlit's chart theme's for ticks and legends
# Streamlit's chart theme gives titles and axis titles sizes of their own (in its template, which the
# browser applies): a figure must set them itself for them to grow.
THEME_TITLE_FONT = 16
THEME_AXIS_TITLE_FONT = 14
# px of a vertical legend's entry per px of its font: `viz.layers` gives a figure 20 px per token at
# 12 px so that its legend of tokens shows every entry without a scroll bar.
LEGEND_ENTRY = 20 / 12


def _scaled(size, scale: float, default: float | None = None) -> int | None:
    size = size if size is not None else default
    return None if size is None else round(size * scale)


def presenter_fonts(fig: go.Figure, scale: float, max_width: int | None = None) -> go.Figure:
    """A copy of `fig` with all of its text `scale` times larger (the given figure is not modified).

    Every text size is set explicitly (title, axis ticks and titles, annotations, colour bars,
    legend, hover, a trace's own text), since Streamlit's chart theme would otherwise keep its own sizes
    for most of them.
    The margins grow by the same factor, for figures that size them to their labels instead of letting
    Plotly push them (`viz.heatmap.fixed_margins`); the figure grows by as much as its margins did, and
    its plot by half the factor, so that larger ticks do not squeeze the plot (a figure with a width of
    its own grows in width the same way as in height, so square cells still fill it, and no wider than
    `max_width`: its plot then shrinks in both directions, as a narrower column would have squeezed its
    cells and left an empty band below them). Tick labels that the larger text would press together
    turn upright or stop growing (`viz.heatmap.fit_ticks`): 38 keys at 18 px touched in an 860-px figure.
    A figure with a vertical legend (one entry per token, `viz.layers`) grows by what its larger entries
    take, so that the legend still shows all of them without a scroll bar.
    """
    new = go.Figure(fig)
    layout = new.layout
    layout.font.size = _scaled(layout.font.size, scale, PLOTLY_FONT)
    layout.title.font.size = _scaled(layout.title.font.size, scale, THEME_TITLE_FONT)
    layout.legend.font.size = _scaled(layout.legend.font.size, scale, PLOTLY_FONT)
    layout.hoverlabel.font.size = _scaled(layout.hoverlabel.font.size, scale, PLOTLY_FONT)
    for axis in (*new.select_xaxes(), *new.select_yaxes()):
        axis.tickfont.size = _scaled(axis.tickfont.size, scale, PLOTLY_FONT)
        axis.title.font.size = _scaled(axis.title.font.size, scale, THEME_AXIS_TITLE_FONT)
        if axis.title.standoff is not None:  # larger labels: the title keeps its distance from them
            axis.title.standoff = round(axis.title.standoff * scale)
    for annotation in layout.annotations:
        annotation.font.size = _scaled(annotation.font.size, scale, PLOTLY_FONT)
        for shift in ("xshift", "yshift"):  # px from a panel's edge, past text that grew as well
            if annotation[shift]:
                annotation[shift] = round(annotation[shift] * scale)
    for trace in new.data:  # text drawn at a size of its own: the head view's tokens stayed at 13 px
        if "textfont" in trace and trace.textfont.size is not None:
            trace.textfont.size = _scaled(trace.textfont.size, scale)
    bars = [trace.colorbar for trace in new.data if "colorbar" in trace]
    bars += [axis.colorbar for axis in new.select_coloraxes()]
    for bar in bars:
        bar.tickfont.size = _scaled(bar.tickfont.size, scale, PLOTLY_FONT)
        bar.title.font.size = _scaled(bar.title.font.size, scale, PLOTLY_FONT)
    if layout.width is not None:
        _rewrap_title(layout, scale)
    top_bottom = (layout.margin.t or 0) + (layout.margin.b or 0)
    sides = (layout.margin.l or 0) + (layout.margin.r or 0)
    for side in ("l", "r", "t", "b"):
        if layout.margin[side] is not None:
            layout.margin[side] = round(layout.margin[side] * scale)
    if layout.height is not None:
        plot = layout.height - top_bottom
        layout.height = round(plot * (1 + (scale - 1) / 2) + top_bottom * scale)
    entries = sum(1 for t in new.data if t.type in ("scatter", "bar") and t.showlegend is not False
                  and t.name)
    vertical = layout.showlegend is not False and layout.legend.orientation != "h"
    if layout.height is not None and entries > 1 and vertical:  # a legend beside the plot: entries grew
        old_font = fig.layout.legend.font.size or PLOTLY_FONT
        layout.height += round(entries * LEGEND_ENTRY * (layout.legend.font.size - old_font))
    if layout.width is not None:  # a figure sized to its matrix (`viz.heatmap.square_width`): the same
        plot = layout.width - sides
        layout.width = round(plot * (1 + (scale - 1) / 2) + sides * scale)
        sides, top_bottom = sides * scale, top_bottom * scale
        if max_width and layout.width > max_width and layout.height is not None and max_width > sides:
            shrink = (max_width - sides) / (layout.width - sides)
            layout.height = math.floor((layout.height - top_bottom) * shrink + top_bottom)
            layout.width = max_width
            if sum(t.type == "heatmap" for t in new.data) == 1:  # one matrix (not a grid of them):
                fit_width(new)  # the rounded height's cells exactly (37 columns made 2 px of a rounding),
                layout.margin.r += max_width - layout.width  # and the px left over right of its bar
                layout.width = max_width
    return fit_ticks(new)


def _rewrap_title(layout, scale: float) -> None:
    """The title of a figure of fixed width wrapped again for type `scale` times larger, its subtitle
    (`<sup>`, 70 % of the size) too, the top margin and the height grown by the lines they gain (at the
    smaller size: they are scaled after): wrapped for the smaller type, a small matrix's title ran past
    the figure's edge."""
    text = layout.title.text
    if not text:
        return
    head, sep, sub = text.partition("<br><sup>")
    chars = title_chars(layout.width / scale)
    lines = [wrap_title(head.rstrip(" ").replace(" <br>", " "), chars)]
    if sep:
        note, end, after = sub.partition("</sup>")
        note = wrap_title(note, round(chars / 0.7)).replace(" <br>", "</sup> <br><sup>")  # a line each
        lines.append("<sup>" + note + end + after)
    new = " <br>".join(lines)
    added = new.count("<br>") - text.count("<br>")
    if added <= 0:  # the smaller type's lines are short enough
        return
    layout.title.text = new
    grow = 22 * added  # a title line (`viz.heatmap.title_margin`)
    layout.margin.t = (layout.margin.t or 0) + grow
    if layout.height is not None:
        layout.height += grow
