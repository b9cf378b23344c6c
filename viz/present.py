"""Figures for a projected screen: every text in a figure scaled up (presenter mode)."""

from __future__ import annotations

import plotly.graph_objects as go

PLOTLY_FONT = 12  # Plotly's default text size; titles are drawn 1.4× the layout font


def _scaled(size, scale: float) -> int | None:
    return None if size is None else round(size * scale)


def presenter_fonts(fig: go.Figure, scale: float) -> go.Figure:
    """A copy of `fig` with all of its text `scale` times larger (the given figure is not modified).

    The layout font (and with it titles, ticks, legends and hover) grows; so do the sizes a figure
    sets itself (axis ticks, annotations, colour-bar titles), which would otherwise stay small. The
    figure grows by half the factor so that larger ticks do not squeeze the plot.
    """
    new = go.Figure(fig)
    new.layout.font.size = _scaled(new.layout.font.size or PLOTLY_FONT, scale)
    for axis in (*new.select_xaxes(), *new.select_yaxes()):
        if axis.tickfont.size is not None:
            axis.tickfont.size = _scaled(axis.tickfont.size, scale)
    for annotation in new.layout.annotations:
        if annotation.font.size is not None:
            annotation.font.size = _scaled(annotation.font.size, scale)
    if new.layout.height is not None:
        new.layout.height = round(new.layout.height * (1 + (scale - 1) / 2))
    return new
