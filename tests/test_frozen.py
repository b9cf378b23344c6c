"""ui.frozen: a figure made into the browser's JSON once sends exactly what Streamlit sends for it."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import plotly.io
import plotly.tools

from ui.export import figure_csv
from ui.frozen import FrozenFigure, frozen


def _figure() -> go.Figure:
    z = np.arange(12, dtype=float).reshape(3, 4) / 12
    fig = go.Figure(go.Heatmap(z=z, x=["a", "b", "c", "d"], y=["p", "q", "r"], colorscale="Blues"))
    fig.add_trace(go.Scatter(x=np.arange(3), y=np.array([0.5, 1.5, 2.5])))
    fig.update_layout(title="rows = queries", yaxis_autorange="reversed")
    return fig


def _as_streamlit_sends(fig) -> str:
    """What st.plotly_chart puts in its element (streamlit/elements/plotly_chart.py)."""
    return plotly.io.to_json(
        plotly.tools.return_figure_from_figure_or_data(fig, validate_figure=True), validate=False
    )


def test_frozen_figure_sends_the_same_json_every_time():
    fig = _figure()
    expected = _as_streamlit_sends(fig)
    ice = frozen(fig)
    assert isinstance(ice, FrozenFigure)
    assert _as_streamlit_sends(ice) == expected
    assert _as_streamlit_sends(ice) == expected  # shown again (by another session): unchanged
    assert frozen(ice) is ice


def test_frozen_figure_keeps_its_data_for_the_exports():
    fig = _figure()
    ice = frozen(fig)
    assert figure_csv(ice) == figure_csv(fig)
    np.testing.assert_array_equal(ice.data[0].z, fig.data[0].z)


def test_the_decoder_pages_cached_figures_are_frozen():
    """The decoder page's figures come from server-wide caches (`ui.generation`) and are frozen there,
    so a class opening the page does not turn them into JSON once per student."""
    from ui import generation
    from ui import model as model_io
    from ui.state import DEFAULT_SENTENCE, Selection

    lm = model_io.loaded_or_none()
    sel = Selection(stack="decoder", kind="self")
    figures = [generation.self_figure(lm.model_id, DEFAULT_SENTENCE, sel)]
    figures += generation.cross_figures(lm.model_id, DEFAULT_SENTENCE, sel)[0].values()
    prefix = tuple(generation.greedy_prefix(lm.model_id, DEFAULT_SENTENCE, 2))
    figures += generation.step_figures(lm.model_id, DEFAULT_SENTENCE, prefix, sel).values()
    assert len(figures) == 7
    assert all(isinstance(fig, FrozenFigure) for fig in figures)
