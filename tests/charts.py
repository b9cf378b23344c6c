"""The figures a page draws, as AppTest sees them."""

from __future__ import annotations

from ui.frame import PLOTLY_PRELOAD_KEY


def page_charts(at) -> list:
    """The page's Plotly charts, without the empty hidden one under its title, which only has the
    browser load Plotly's script early (`ui.frame.load_plotly`)."""
    return [c for c in at.get("plotly_chart") if not c.proto.id.endswith(f"-{PLOTLY_PRELOAD_KEY}_chart")]
