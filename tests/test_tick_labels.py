"""Tick labels a class can read: at least 10 px, and every token of a heatmap
labelled, however long the sentence (rotate, don't skip). Read from the figures' layouts: the figure
functions on sentences of 8 and 61 tokens, and every chart of the attention pages as they send it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from charts import page_charts
from streamlit.testing.v1 import AppTest

from viz import decoding, embeddings, grids, inspector, layers, paper
from viz.heatmap import attention_heatmap
from viz.labels import token_labels, writes_labels

ROOT = Path(__file__).resolve().parents[1]
MIN_PX = 10
DEFAULT_PX = 12  # Streamlit's chart theme: ticks with no size of their own


def _pieces(n: int) -> list[str]:
    return ["▁the" if i % 3 == 0 else f"▁w{i}" for i in range(n - 1)] + ["</s>"]  # repeats, and </s>


def _axes(layout: dict) -> dict[str, dict]:
    return {name: axis for name, axis in layout.items() if name.startswith(("xaxis", "yaxis"))}


def assert_readable(spec: dict) -> None:
    """Every tick font ≥ MIN_PX; every token axis (categories named 'position:piece') ticks each one."""
    layout = spec["layout"]
    axes = _axes(layout)
    for name, axis in axes.items():
        size = axis.get("tickfont", {}).get("size", DEFAULT_PX)
        assert size >= MIN_PX, (name, size)
    for note in layout.get("annotations", []):
        assert note.get("font", {}).get("size", DEFAULT_PX) >= MIN_PX, note.get("text")
    if (layout.get("meta") or {}).get("thumbnails"):
        return  # the model view: a grid of pattern thumbnails, labelled by layer and head only
    labelled = {}  # letter -> whether some axis of token categories shows its labels
    for trace in spec["data"]:
        if trace.get("type") != "heatmap":
            continue
        for letter in ("x", "y"):
            values = trace.get(letter)
            if isinstance(values, list) and (layout.get("meta") or {}).get("panels"):  # a heads grid:
                values = [v for v in values if not v.startswith(grids.GAP_MARK)]  # every panel's tokens
            if not isinstance(values, list) or not all(isinstance(v, str) and ":" in v for v in values):
                continue  # not tokens (dimensions, heads, layers)
            axis = axes[f"{letter}axis{trace.get(letter + 'axis', letter)[1:]}"]
            shows = axis.get("showticklabels") is not False  # a grid labels its outer panels only
            labelled[letter] = labelled.get(letter, False) or shows
            if shows:
                assert axis.get("tickmode") == "array" and list(axis["tickvals"]) == list(values), (
                    f"{letter} axis skips tokens: {len(axis.get('tickvals', []))} ticks for {len(values)}")
    assert all(labelled.values()), f"tokens with no labels at all on {labelled}"


@pytest.mark.parametrize("n", [8, 61])  # 61: the longest source the app traces (60 pieces + </s>)
@pytest.mark.parametrize("show_pieces", [False, True])
def test_figure_functions_label_every_token_at_10_px_or_more(n, show_pieces):
    labels = token_labels(_pieces(n), show_pieces)
    rows = writes_labels(_pieces(n), [*_pieces(n)[1:], None], show_pieces)
    w = np.full((8, n, n), 1 / n)
    heads = [f"head {h + 1}" for h in range(8)]
    figures = {
        "attention": attention_heatmap(w[0], labels, labels, "t"),
        "heads grid": grids.heads_grid(w, rows, labels, heads, "t"),
        "alignment": decoding.alignment_heatmap(w, rows, labels, "t"),
        "newest row": decoding.step_rows_heatmap(w[:, 0], labels, heads, "t"),
        "Figure 3 heatmap": paper.query_rows_heatmap(w, labels, 1, heads, "t"),
        "side by side": inspector.side_by_side([w[0], w[1]], ["a", "b"], rows, labels, "t"),
        "A − B": inspector.difference_map(w[0] - w[1], labels, "t"),
    }
    for name, fig in figures.items():
        try:
            assert_readable(json.loads(fig.to_json()))
        except AssertionError as error:
            raise AssertionError(f"{name}: {error}") from error


@pytest.mark.parametrize(("page", "params"), [
    ("Multi_head_attention.py", {}),
    ("Multi_head_attention.py", {"stack": "decoder", "kind": "cross"}),
    ("Decoder_and_generation.py", {}),
    ("Paper_figures.py", {}),
    ("Attention_step_by_step.py", {}),
])
def test_every_chart_of_a_page_is_readable(page, params):
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=120)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    charts = page_charts(at)
    assert charts
    for chart in charts:
        try:
            assert_readable(json.loads(chart.proto.spec))
        except AssertionError as error:
            raise AssertionError(f"{chart.proto.id}: {error}") from error


def test_dimension_axes_are_labelled_not_bare_tick_marks():
    """Screenshots at 1440 × 900: the embedding rows and an encoder layer's stages
    (T × 128) and the FFN's hidden units (T × 512) showed a tick mark per dimension and no number at
    all. Now every 16th dimension is labelled, upright, and the hidden units' axis has its numbers."""
    rng = np.random.default_rng(0)
    labels = token_labels(_pieces(15), False)
    for name, fig in {
        "embedding rows": embeddings.embedding_heatmap(rng.normal(size=(15, 128)), labels, "t"),
        "layer stage": layers.activation_heatmap(rng.normal(size=(15, 128)), labels, "t"),
    }.items():
        axis = fig.layout.xaxis
        assert axis.showticklabels is not False, name
        assert list(axis.ticktext) == [str(c) for c in fig.data[0].x[::16]], name  # d0, d16, … / 0, 16, …
        assert axis.tickangle == 0, name
    ffn = layers.ffn_hidden_figure(np.abs(rng.normal(size=(15, 512))), labels, "t")
    assert ffn.layout.xaxis.showticklabels is not False and ffn.layout.xaxis.title.text == "hidden unit"


@pytest.mark.parametrize("n", [8, 15, 30])
def test_a_legend_of_tokens_fits_its_figure(n):
    """One legend entry per token (the vector lengths of an encoder layer): at 15 tokens the legend
    scrolled, cut after 'too', and the layer-to-layer one was drawn at 9 px. About 20 px an entry fit,
    at the legend's default 12 px, up to the figure's 900-px cap."""
    rng = np.random.default_rng(0)
    labels = token_labels(_pieces(n), False)
    stages = [(f"stage {i}", rng.normal(size=(n, 16))) for i in range(7)]
    for fig in (layers.stage_norms(stages, labels, "t"),
                layers.layer_changes(rng.normal(size=(7, n, 16)), labels, [f"l{i}" for i in range(7)], "t")):
        assert fig.layout.height >= min(900, 20 * n + 200), (n, fig.layout.height)  # stage names take ~200
        assert (fig.layout.legend.font.size or DEFAULT_PX) >= MIN_PX


def test_heads_layers_and_ffn_tokens_are_all_ticked_in_presenter_mode_too():
    """At 1024 × 768 in presenter mode (18-px labels) Plotly skipped every other "head n" of the Figure 3
    heatmap and every other token of the FFN's hidden units: such axes now tick every category."""
    from viz.present import presenter_fonts

    labels = token_labels(_pieces(15), False)
    heads = [f"head {h + 1}" for h in range(8)]
    w = np.full((8, 15, 15), 1 / 15)
    rows = presenter_fonts(paper.query_rows_heatmap(w, labels, 1, heads, "t"), 1.5, 860).layout.yaxis
    assert rows.tickmode == "array" and list(rows.ticktext) == heads
    ffn = presenter_fonts(layers.ffn_hidden_figure(np.abs(w[0]), labels, "t"), 1.5).layout.yaxis
    assert ffn.tickmode == "array" and list(ffn.ticktext) == [str(label) for label in labels]
