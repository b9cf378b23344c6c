"""Exporting any figure: a standalone HTML file and the numbers behind it as CSV.

PNG export is Plotly's own toolbar button. The HTML file embeds plotly.js (about 4 MB) instead of
linking a CDN, because the app may run where there is no network (a classroom, an exam room); it is
therefore built only when someone clicks the button (`st.download_button` accepts a callable).
The CSV comes from the figure's own traces, so it holds exactly the numbers drawn.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
import re

import plotly.graph_objects as go
import streamlit as st


def figure_html(fig: go.Figure) -> str:
    """The figure as one self-contained HTML page (plotly.js embedded, works offline)."""
    return fig.to_html(include_plotlyjs=True, full_html=True, config={"displaylogo": False})


def _number(value) -> str:
    """One CSV cell: numbers exactly (repr round-trips), labels as text, no value as blank."""
    if value is None:
        return ""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
        return "" if math.isnan(number) else repr(number)
    return str(value)


def _column(values) -> list:
    return [] if values is None else list(values)


def figure_csv(fig: go.Figure) -> str:
    """The numbers drawn in the figure, as CSV.

    A figure that is one heatmap gives the matrix itself (first column: row labels; header: column
    labels), as the heatmap shows it. Anything else gives one line per drawn value:
    trace, x, y (and z for heatmaps). Cells with no value (e.g. −∞ blocked by a mask) are blank.
    """
    out = io.StringIO()
    writer = csv.writer(out)
    traces = list(fig.data)
    if len(traces) == 1 and traces[0].type == "heatmap":
        trace = traces[0]
        z = [list(row) for row in trace.z]
        x = _column(trace.x) or list(range(len(z[0]) if z else 0))
        y = _column(trace.y) or list(range(len(z)))
        writer.writerow(["row \\ column", *(_number(v) for v in x)])
        for label, row in zip(y, z, strict=True):
            writer.writerow([_number(label), *(_number(v) for v in row)])
        return out.getvalue()
    writer.writerow(["trace", "x", "y", "z"])
    for index, trace in enumerate(traces):
        name = trace.name or f"trace {index}"
        if trace.type == "heatmap":
            z = [list(row) for row in trace.z]
            x = _column(trace.x) or list(range(len(z[0]) if z else 0))
            y = _column(trace.y) or list(range(len(z)))
            for label, row in zip(y, z, strict=True):
                for column, value in zip(x, row, strict=True):
                    writer.writerow([name, _number(column), _number(label), _number(value)])
        else:
            xs, ys = _column(getattr(trace, "x", None)), _column(getattr(trace, "y", None))
            xs = xs or list(range(len(ys)))
            ys = ys or list(range(len(xs)))
            for x, y in zip(xs, ys, strict=False):
                writer.writerow([name, _number(x), _number(y), ""])
    return out.getvalue()


def file_stem(key: str) -> str:
    """A safe file name from a widget key."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", key).strip("_") or "figure"


def export_buttons(fig: go.Figure, key: str) -> None:
    """One small "Export" button under a figure, opening HTML (built on click) and CSV downloads.

    In a popover, the two download buttons are drawn only when it is open: a page of nine figures
    no longer redraws eighteen buttons (with new download ids) every time a slider moves.
    """
    stem = file_stem(key)
    with st.popover("⬇ Export", help="Download this figure as a web page or its numbers as CSV "
                                     "(PNG: the camera in the figure's toolbar)."):
        st.download_button("⬇ HTML", data=lambda: figure_html(fig), file_name=f"{stem}.html",
                           mime="text/html", key=f"{key}__html", on_click="ignore",
                           help="The figure as a standalone web page (works offline).")
        st.download_button("⬇ CSV", data=lambda: figure_csv(fig), file_name=f"{stem}.csv",
                           mime="text/csv", key=f"{key}__csv", on_click="ignore",
                           help="The numbers drawn in this figure.")
