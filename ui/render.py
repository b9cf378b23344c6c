"""How a page shows things: figures, tables and Markdown escaping, figure widths, and the pages' CSS."""

from __future__ import annotations

import contextlib
import math
import re

import streamlit as st

from ui import state
from ui.export import export_buttons
from ui.frame import HEAVY_IMPORTS
from ui.state import Selection
from viz.heatmap import relative_to_uniform
from viz.palette import palette
from viz.present import presenter_fonts

# Imported before any session builds a figure, under the lock that the home page's Figure 1 takes:
# Plotly looks pandas up in sys.modules, and a session could otherwise find it half-imported by
# another (seen under concurrent load). See ui.frame.HEAVY_IMPORTS.
with HEAVY_IMPORTS:
    import pandas  # noqa: F401

# Static styling only (no user text ever goes through HTML): larger type for projection.
# The root font size stays as it is: Streamlit sizes its layout (paddings, the sidebar) in rem, and a
# larger root made the sidebar half of a 1024-px screen and squeezed the page into a strip. The sidebar
# widens a little (in px, for the same reason) and its page names wrap instead of being cut. Half the
# space above the title (its text still starts below the 60-px header bar) leaves room for a page's figure
# on the first screen of a 1024 × 768 projector; formulas grow 1.45 times from 19 px, like the text.
PRESENTER_CSS = """
<style>
.stMarkdown, .stText, .stCaption, p, li, label { font-size: 1.35rem !important; }
[data-testid="stMetricValue"], [data-testid="stMetricValue"] * { font-size: 2.6rem !important; }
h1 { font-size: 2.6rem !important; } h2 { font-size: 2.1rem !important; }
h3 { font-size: 1.7rem !important; }
[data-testid="stSidebarNav"] span, [data-testid="stSidebarNavLink"] span {
  font-size: 1.2rem !important; white-space: normal !important; overflow: visible !important;
}
[data-testid="stTable"] td, [data-testid="stTable"] th,
.stMarkdown td, .stMarkdown th { font-size: 1.35rem !important; }
[data-baseweb="select"] *, [data-baseweb="popover"] li, [data-tag] span,
input, textarea { font-size: 1.35rem !important; }
[data-testid="stSliderThumbValue"], [data-testid="stSliderTickBarMin"],
[data-testid="stSliderTickBarMax"] { font-size: 1.2rem !important; }
[data-testid="stMainBlockContainer"] { padding-top: 3rem !important; }
.katex-display > .katex { font-size: 1.75rem !important; }
</style>
"""
# Static styling on every page (no user text ever goes through HTML). A tab bar and a multiselect's
# chips wrap onto another line instead of scrolling sideways (the head inspector's last tab was cut
# after "Pr" at 1024 px, "Heads to draw" showed 4½ of its 8 chips). On a screen narrower than 1280 px,
# columns that hold figures stand one under another: each figure then has the main column's width
# (about 560 px at 1024 with the sidebar open) instead of half of it, where figures built for half of
# the 980-px column at 1440 (`column_width`) were squeezed, their labels run together, titles cut.
LAYOUT_CSS = """
<style>
[data-testid="stTabs"] [role="tablist"] { flex-wrap: wrap !important; row-gap: 0.3rem; }
[data-testid="stMultiSelectTagsContainer"] { flex-wrap: wrap !important; }
@media (max-width: 1279px) {
  [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"]) { flex-wrap: wrap !important; }
  [data-testid="stHorizontalBlock"]:has([data-testid="stPlotlyChart"]) > [data-testid="stColumn"] {
    flex: 1 1 100% !important; min-width: 100% !important;
  }
}
</style>
"""


def styles(sel: Selection) -> None:
    """Draw the pages' CSS, and presenter mode's when it is on (static constants only)."""
    st.html(LAYOUT_CSS)
    if sel.presenter:
        st.html(PRESENTER_CSS)


PRESENTER_FONT = 1.5  # figure text in presenter mode, relative to Plotly's default sizes
PRESENTER_WIDTH = 860  # px: the main column at 1024 px wide with the sidebar folded (presenter mode)


# The page's main column at 1440 × 900 with the sidebar open (px), and the gap between columns: a
# heatmap of square cells in one of n columns is built no wider than its share (`heatmap(max_width=)`).
MAIN_WIDTH = 980
COLUMN_GAP = 16


def column_width(columns: float, sel: Selection | None = None) -> int | None:
    """px of one of `columns` side-by-side columns (`figure_columns`) on a 1440-px-wide screen (a
    fraction for a column of another share: 2.5 is the first of `figure_columns([2, 3])`); None in
    presenter mode, where figures stand one under another. `sel`: default, this session's selection."""
    sel = sel if sel is not None else st.session_state.get(state.KEY)
    if sel is not None and sel.presenter:
        return None
    return int((MAIN_WIDTH - COLUMN_GAP * (math.ceil(columns) - 1)) / columns)


def grid_columns(sel: Selection, kind: str) -> int:
    """Heads to a row of a heads grid (`viz.grids.heads_grid`): two in presenter mode (four would leave
    each too narrow for its larger labels); three for cross-attention, whose rows are labelled
    "reads → writes" and whose cells would be a few px with four; else four."""
    if sel.presenter:
        return 2
    return 3 if kind == "cross" else 4


def figure_columns(spec: int | list) -> list:
    """Places for figures side by side (`st.columns(spec)`); in presenter mode one under another, since
    two figures with projector-sized type do not fit next to each other on a 1024-px screen."""
    sel = st.session_state.get(state.KEY)
    if sel is not None and sel.presenter:
        return [st.container() for _ in range(spec if isinstance(spec, int) else len(spec))]
    return st.columns(spec)


def fold(label: str):
    """A `with` block for text that can wait: in presenter mode a closed expander named `label`, so that
    the page's figure fits on the first screen of a 1024 × 768 projector; elsewhere nothing (in place)."""
    return st.expander(label) if state.presenter() else contextlib.nullcontext()


def figure_first():
    """A `with` block for a figure the page explains before drawing it: in presenter mode a place made
    now, so that the figure drawn into it later stands above that text (a class sees the figure on the
    first screen, the text after it); elsewhere nothing, and the page keeps its order."""
    return st.container() if state.presenter() else contextlib.nullcontext()


class _Here:
    """The page itself as a place: `place.slider(...)` is `st.slider(...)`, `with place:` changes nothing."""

    def __getattr__(self, name: str):
        return getattr(st, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


def control_columns(spec: int | list, **options) -> list:
    """Places for controls: side by side in presenter mode (`st.columns(spec, **options)`; one under
    another, they pushed the figure off the first screen at 1024 × 768); elsewhere the page itself, one
    under another as always."""
    if state.presenter():
        return st.columns(spec, **options)
    return [_Here()] * (spec if isinstance(spec, int) else len(spec))


def for_display(fig, sel: Selection | None = None):
    """The figure as this session shows it (the given one is never modified): with "contrast: relative
    to uniform" on, attention-weight figures on that scale (`relative_to_uniform`); in presenter mode,
    larger text. `sel`: the selection to follow (default: this session's)."""
    sel = sel if sel is not None else st.session_state.get(state.KEY)
    if sel is not None and sel.contrast:
        fig = relative_to_uniform(fig, palette(sel.palette)["diverging"])
    if sel is not None and sel.presenter:
        fig = presenter_fonts(fig, PRESENTER_FONT, PRESENTER_WIDTH)
    return fig


# Text st.table would read as Markdown: any ASCII punctuation mark (CommonMark lets each be escaped with
# a backslash), and the starts of GFM's bare links (http://, www., name@host), which escaping does not
# stop: an invisible word joiner (U+2060) goes inside them.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_BARE_LINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?<=@)")


def literal_markdown(text: str) -> str:
    """`text` as Markdown that shows exactly `text` (pieces such as `</s>`, `**`, `:red[x]`, a URL)."""
    return _PUNCTUATION.sub(r"\\\1", _BARE_LINK.sub("\u2060", " ".join(text.splitlines())))


def markdown_table(rows: list[dict]) -> str:
    """Rows (dicts with the same keys) as a GitHub Markdown table for `st.markdown`, every cell shown as
    typed (`literal_markdown`; a `|` in a cell is escaped too), numbers right-aligned, True/False as
    yes/no. Unlike `st.table` and `st.dataframe` it sends no Arrow table, so a new session does not
    load Arrow's ~0.9 MB of script for a few rows."""
    columns = list(rows[0]) if rows else []

    def cell(value) -> str:
        return "yes" if value is True else "no" if value is False else literal_markdown(str(value))

    def is_number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    numeric = [all(is_number(r[c]) for r in rows) for c in columns]
    lines = ["| " + " | ".join(cell(c) for c in columns) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]  # fmt: skip
    lines += ["| " + " | ".join(cell(r[c]) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def show_table(data, key: str, **dataframe_args) -> None:
    """A table (a dict of columns, or a list of row dicts, as `st.dataframe` takes them).

    An `st.dataframe` (sortable, scrolls), except in presenter mode: a data frame is drawn on a canvas
    whose small text no CSS reaches, so there it is an `st.table`, which the presenter CSS enlarges.
    `st.table` reads its cells as Markdown: text cells go through `literal_markdown`, so text from the
    reader or the model shows as typed, never as formatting, links or HTML. `dataframe_args`: for
    `st.dataframe` (e.g. `width="stretch"`).
    """
    sel = st.session_state.get(state.KEY)
    if not (sel is not None and sel.presenter):
        st.dataframe(data, hide_index=True, key=key, **dataframe_args)
        return
    st.table(literal_table(data), hide_index=True)


def literal_table(data):
    """`data` (as `st.dataframe` takes it) as a pandas DataFrame for `st.table`, whose text cells and
    column names show as typed (`literal_markdown`): `st.table` reads every cell as Markdown."""
    import pandas as pd

    frame = pd.DataFrame(data)
    frame = frame.map(lambda v: literal_markdown(v) if isinstance(v, str) else v)
    frame.columns = [literal_markdown(str(c)) for c in frame.columns]
    return frame


def show_figure(fig, key: str, caption: str | None = None, export: bool = True,
                displayed: bool = False) -> None:
    """Render a Plotly figure full width, with HTML and CSV downloads (PNG is in its toolbar).

    Presenter mode hides the download buttons: fewer controls on a projected screen. The figure is
    shown as `for_display` makes it, unless it comes from there already (`displayed`, e.g. from a
    cache of a page's figures).
    """
    sel = st.session_state.get(state.KEY)
    if not displayed:
        fig = for_display(fig, sel)
    # A figure with a width of its own (a heatmap of square cells, `viz.heatmap.square_width`) is shown
    # at that width, or the column's if narrower: stretched wider, its matrix would stand far from its
    # colour bar.
    st.plotly_chart(fig, key=key, width="content" if fig.layout.width else "stretch",
                    config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}})
    if caption:
        st.caption(caption)
    if export and not (sel is not None and sel.presenter):
        export_buttons(fig, key)
