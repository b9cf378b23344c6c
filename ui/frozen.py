"""Figures built once per server and sent by every session that shows them.

`st.plotly_chart` turns a figure into JSON on every run: a deep copy of the whole figure
(`Figure.to_dict`), then every array converted to base64, then the text. For a figure that a
server-wide cache hands to every session (the step-by-step page's figures, cached by model, sentence
and selection), that work is the same each time. A `FrozenFigure` does the copy and the conversion
once, when it is cached; Streamlit then only writes the text (about 5× less work per figure, the
same JSON: tests/test_frozen.py).
"""

from __future__ import annotations

import plotly.graph_objects as go
from _plotly_utils.utils import convert_to_base64


class FrozenFigure(go.Figure):
    """A figure whose dict is made once. Read-only: never change it after `frozen()` made it."""

    def __init__(self, fig: go.Figure) -> None:
        super().__init__(fig)
        spec = fig.to_dict()
        convert_to_base64(spec)  # what plotly.io.to_json does to it on every call, done here once
        self._frozen_spec = spec

    def to_dict(self) -> dict:
        return self._frozen_spec


def frozen(fig: go.Figure) -> FrozenFigure:
    """`fig` as a FrozenFigure (itself when it is one already)."""
    return fig if isinstance(fig, FrozenFigure) else FrozenFigure(fig)
