"""Heatmaps sized to their matrix: a cross-attention heatmap is not small, and no wide gap stands
before its colour bar.

A heatmap of square cells used to take the page's whole width while its matrix, square-celled, took
only part of it: Plotly centred the matrix and put the colour bar at the figure's right edge, hundreds
of px away. Now the figure is as wide as its matrix plus margins, so its plot area is the matrix and
the bar stands COLORBAR_PAD px from the last column; cross-attention matrices get larger cells; and
the page shows such a figure at its own width (`width="content"`), not stretched.

Read from the figures' layouts, as Plotly lays them out: the plot area is the figure less its margins,
and square cells fill it exactly when (width − l − r) / columns = (height − t − b) / rows. A browser
test (tests/test_browser.py) measures the same gap on the decoder page in Chromium.
"""

from __future__ import annotations

import numpy as np
import pytest

from ui.render import column_width
from viz import decoding, grids
from viz.heatmap import (
    MAX_CELL,
    MIN_WIDTH,
    TITLE_FONT,
    attention_heatmap,
    colorbar_room,
    relative_to_uniform,
    text_width,
)
from viz.labels import token_labels, writes_labels
from viz.present import presenter_fonts

GAP_PX = 10  # the most empty space allowed between the matrix and its colour bar


def _pieces(n: int) -> list[str]:
    return [f"▁w{i}" for i in range(n - 1)] + ["</s>"]


def _cross(n_tgt: int, n_src: int):
    """A decoder layer's cross-attention (H, T, S) and its "reads → writes" rows and source columns."""
    tgt = ["<s>", *_pieces(n_tgt)[:-1]]
    rows = writes_labels(tgt, [*tgt[1:], "</s>"], False)
    weights = np.random.default_rng(0).dirichlet(np.ones(n_src), size=(8, n_tgt))
    return weights, rows, token_labels(_pieces(n_src), False)


def plot_area(fig) -> tuple[float, float]:
    """(width, height) px of the plot area: the figure less its margins."""
    m = fig.layout.margin
    return fig.layout.width - m.l - m.r, fig.layout.height - m.t - m.b


def assert_matrix_fills_its_plot(fig, what: str) -> float:
    """The matrix of square cells fills the plot area, and the colour bar stands beside its last column
    (within GAP_PX of it) with room for its labels in the right margin; returns the cell size (px)."""
    assert fig.layout.width is not None, f"{what}: no width of its own, so the page stretches it"
    n_rows, n_cols = np.shape(fig.data[0].z)
    width, height = plot_area(fig)
    cell = height / n_rows
    assert abs(width - cell * n_cols) <= 1.5, (
        f"{what}: plot {width:.0f} px wide, matrix {cell * n_cols:.0f} px: {width - cell * n_cols:.0f} px "
        "of empty plot beside the matrix, between it and the colour bar")
    bar = fig.data[0].colorbar if fig.data[0].coloraxis is None else fig.layout.coloraxis.colorbar
    assert bar.x == 1.0 and bar.xanchor == "left", f"{what}: colour bar not at the plot area's edge"
    assert (bar.xpad if bar.xpad is not None else 10) <= GAP_PX, what
    assert fig.layout.margin.r >= colorbar_room(bar.to_plotly_json(), 0.0, 1.0) - 1, (
        f"{what}: the colour bar's labels do not fit the right margin")
    return cell


def assert_title_fits(fig, what: str) -> None:
    """Each line of the title fits the figure's width (Plotly cuts a title that does not)."""
    head = fig.layout.title.text.split("<sup>")[0]
    for line in head.split("<br>"):
        assert text_width(line.strip(), TITLE_FONT) <= fig.layout.width, f"{what}: title line {line!r} cut"


@pytest.mark.parametrize("n_tgt, n_src", [(15, 15), (4, 5), (16, 30)])
def test_cross_attention_fills_its_figure_and_its_bar_stands_beside_it(n_tgt, n_src):
    weights, rows, cols = _cross(n_tgt, n_src)
    fig = decoding.alignment_heatmap(weights, rows, cols, "decoder layer 5 of 6: cross-attention, average of "
                                     "the heads")
    cell = assert_matrix_fills_its_plot(fig, f"{n_tgt} × {n_src}")
    assert cell >= decoding.CROSS_CELL - 1, f"cells of {cell:.0f} px: the page's main figure stays small"
    assert fig.layout.width >= MIN_WIDTH
    assert_title_fits(fig, f"{n_tgt} × {n_src}")


def test_a_small_matrix_gets_larger_cells_not_a_stamp():
    """The numbers model's 4 × 5 cross-attention: at the default 26 px a cell, the matrix would be
    narrower than its title; it grows to MIN_WIDTH instead."""
    weights, rows, cols = _cross(4, 5)
    fig = decoding.alignment_heatmap(weights, rows, cols, "t")
    assert assert_matrix_fills_its_plot(fig, "4 × 5") > 50
    assert fig.layout.width == MIN_WIDTH


def test_self_attention_and_the_newest_rows_fill_their_figures_too():
    labels = token_labels(_pieces(15), False)
    weights = np.full((15, 15), 1 / 15)
    assert_matrix_fills_its_plot(attention_heatmap(weights, labels, labels, "t"), "self-attention")
    heads = [f"head {h + 1}" for h in range(8)]
    assert_matrix_fills_its_plot(decoding.step_rows_heatmap(weights[:8], labels, heads, "t"), "newest rows")


def test_presenter_mode_and_relative_to_uniform_keep_the_bar_beside_the_matrix():
    weights, rows, cols = _cross(15, 15)
    fig = decoding.alignment_heatmap(weights, rows, cols, "t")
    assert_matrix_fills_its_plot(presenter_fonts(fig, 1.5), "presenter mode")
    relative = relative_to_uniform(fig, "RdBu_r")  # a colour bar with a title and wider tick labels
    assert_matrix_fills_its_plot(relative, "relative to uniform")
    assert relative.layout.margin.r > fig.layout.margin.r
    assert_matrix_fills_its_plot(presenter_fonts(relative, 1.5), "both")


def test_a_figure_in_one_of_two_columns_is_built_to_fit_it():
    """Side by side (`figure_columns(2)`), a figure wider than its half of the page would be squeezed
    by the browser: smaller cells, an empty band below the matrix, a colour bar taller than it."""
    labels = token_labels(_pieces(15), False)
    weights = np.full((15, 15), 1 / 15)
    half = column_width(2, sel=None)
    title = "decoder layer 5 of 6: a long title that needs two lines in half of the page"
    wide = attention_heatmap(weights, labels, labels, title)
    fitted = attention_heatmap(weights, labels, labels, title, max_width=half)
    assert fitted.layout.width == half < wide.layout.width
    assert_matrix_fills_its_plot(fitted, "half a page")
    assert_title_fits(fitted, "half a page")
    assert attention_heatmap(weights, labels, labels, title, max_width=2000).layout.width == wide.layout.width


def assert_panels_packed(fig, what: str) -> None:
    """A heads grid's panels stand NAME_ROOM px apart (room for a head's name), no band between them."""
    panels = grids.panels_meta(fig)
    cell = plot_area(fig)[1] / np.shape(fig.data[0].z)[0]  # px
    (n_q, n_k), (step_q, step_k) = panels["size"], panels["step"]
    scale = fig.layout.width / grids.GRID_WIDTH  # presenter mode grows or shrinks the whole figure
    gap_px = (step_q - n_q) * cell
    assert grids.NAME_ROOM * min(scale, 1) <= gap_px <= (grids.NAME_ROOM + cell) * max(scale, 1), what
    assert (step_k - n_k) * cell <= (grids.PANEL_GAP + cell) * max(scale, 1), what


@pytest.mark.parametrize("kind, n_q", [("self", 15), ("cross", 12)])
def test_a_heads_grid_has_no_band_between_its_rows_and_a_bar_beside_its_panels(kind, n_q):
    weights = np.full((8, n_q, 15), 1 / 15)
    labels = token_labels(_pieces(15), False)
    rows = labels[:n_q]
    heads = [f"head {h + 1}" for h in range(8)]
    fig = grids.heads_grid(weights, rows, labels, heads, "t", max_cols=3 if kind == "cross" else 4)
    assert grids.panels_meta(fig)["grid"] == ([3, 3] if kind == "cross" else [2, 4])
    assert_matrix_fills_its_plot(fig, kind)  # square cells, the bar beside the last column of panels
    assert_panels_packed(fig, kind)
    assert fig.layout.width == grids.GRID_WIDTH
    contrast = relative_to_uniform(fig, "RdBu_r")  # a wider colour bar: the cells shrink, not the page
    assert_matrix_fills_its_plot(contrast, f"{kind}, relative to uniform")
    assert contrast.layout.width <= grids.GRID_WIDTH


def test_presenter_mode_keeps_a_wide_figure_within_the_projected_column():
    """Presenter mode grows a figure's text 1.5× and its plot 1.25×: a heads grid (960 px) would be
    1,250 px wide, squeezed by an 860-px column into panels with empty bands between their rows."""
    weights = np.full((8, 15, 15), 1 / 15)
    labels = token_labels(_pieces(15), False)
    heads = [f"head {h + 1}" for h in range(8)]
    grid = presenter_fonts(grids.heads_grid(weights, labels, labels, heads, "t", max_cols=2), 1.5, 860)
    assert grid.layout.width == 860
    assert_matrix_fills_its_plot(grid, "presenter mode, heads grid")
    assert_panels_packed(grid, "presenter mode, heads grid")
    fig = presenter_fonts(attention_heatmap(weights[0], labels, labels, "t"), 1.5, 500)
    assert fig.layout.width == 500
    assert_matrix_fills_its_plot(fig, "presenter mode, capped")


def test_a_matrix_of_one_column_does_not_grow_into_a_pillar():
    """The newest query's rows at the first step: 8 heads × 1 key. Growing its cells to fill the
    minimum width made it a 700-px pillar: a matrix of one or two columns keeps its cells (its bar then
    stands apart), and growth stops at MAX_CELL."""
    labels = token_labels(["<s>"], False)
    heads = [f"head {h + 1}" for h in range(8)]
    fig = decoding.step_rows_heatmap(np.ones((8, 1)), labels, heads, "t")
    _, height = plot_area(fig)
    assert height / 8 <= 40  # as any 8-row matrix (`square_height`), not grown
    weights, rows, cols = _cross(6, 4)  # a small matrix does grow, up to MAX_CELL
    _, height = plot_area(decoding.alignment_heatmap(weights, rows, cols, "t"))
    assert decoding.CROSS_CELL < height / 6 <= MAX_CELL + 1


def test_the_newest_rows_subtitles_fit_their_figures_in_presenter_mode():
    """Plotly cuts a subtitle that is wider than its figure (it is not wrapped): the newest query's
    rows of the numbers model (4 keys) were cut after "columns =" at presenter size."""
    labels = token_labels(_pieces(4), False)
    heads, layer_names = [f"head {h + 1}" for h in range(8)], [f"layer {i + 1}" for i in range(3)]
    rows = np.full((3, 8, 4), 0.25)
    for fig in (decoding.step_rows_heatmap(rows[0], labels, heads, "t"),
                decoding.layer_rows_heatmap(rows, labels, layer_names, "t")):
        shown = presenter_fonts(fig, 1.5, 860)
        subtitle = shown.layout.title.text.split("<sup>")[1].split("</sup>")[0]
        assert text_width(subtitle, 0.7 * TITLE_FONT * 1.5) <= shown.layout.width, subtitle
