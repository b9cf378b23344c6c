"""Figures a student can read: what the screens showed, checked on the figures themselves."""

from __future__ import annotations

import numpy as np
import pytest

from viz import decoding, layers, positional, steps, worked
from viz.grids import heads_grid, model_view
from viz.heatmap import TITLE_WIDTH, attention_heatmap, heatmap, relative_to_uniform, wrap_title
from viz.labels import token_labels
from viz.present import presenter_fonts

PIECES = ["▁The", "▁cat", "▁sat", "▁on", "▁the", "▁cat", ".", "</s>"]
LABELS = token_labels(PIECES)


def title_lines(fig) -> list[str]:
    return fig.layout.title.text.split("<br><sup>")[0].split("<br>")


def test_ffn_colourbar_is_right_of_both_panels_clear_of_the_token_labels():
    fig = layers.ffn_hidden_figure(np.abs(np.random.default_rng(0).normal(size=(8, 64))), LABELS, "FFN")
    bar_x = fig.data[0].colorbar.x
    assert bar_x >= fig.layout.xaxis2.domain[1]  # not over the y labels at the left (was x = −0.12)
    assert fig.layout.margin.r >= 60  # and there is room for it


def test_square_heatmaps_fill_their_plot_instead_of_sitting_in_a_grey_band():
    fig = attention_heatmap(np.full((8, 8), 1 / 8), LABELS, LABELS, "A head")
    assert fig.layout.xaxis.constrain == "domain" and fig.layout.yaxis.constrain == "domain"
    numbers = [str(i) for i in range(40)]
    tall = attention_heatmap(np.full((40, 40), 1 / 40), numbers, numbers, "A long sentence")
    assert tall.layout.height > fig.layout.height  # the figure grows with the rows


def test_long_titles_wrap_instead_of_being_cut():
    title = "decoder layer 5 of 6: new self-attention row of the newest query (position 12)"
    for fig in (
        heatmap(np.zeros((2, 2)), ["a", "b"], ["c", "d"], title),
        decoding.step_rows_heatmap(np.full((2, 3), 1 / 3), ["a", "b", "c"], ["head 1", "head 2"], title),
        decoding.layer_rows_heatmap(np.full((2, 2, 3), 1 / 3), ["a", "b", "c"], ["layer 1", "layer 2"],
                                    title),
    ):
        lines = title_lines(fig)
        assert len(lines) > 1 and max(map(len, lines)) <= TITLE_WIDTH
        assert "".join(lines).replace(" ", "") == title.replace(" ", "")  # nothing lost
        assert fig.layout.margin.t >= 36 + 22 * fig.layout.title.text.count("<br>")
    assert wrap_title("short<br><sup>note</sup>") == "short <br><sup>note</sup>"
    # as few lines as the width needs, as even as they can be: no lone word under a full line
    assert wrap_title("Figure 3 on our model: encoder self-attention, layer 3 of 6") == (
        "Figure 3 on our model: encoder <br>self-attention, layer 3 of 6"
    )
    assert wrap_title("One two three four", 9) == "One two <br>three <br>four"  # the width still rules
    # A line break keeps its space: the figure's text (a screen reader, copy and paste) reads words.
    assert " <br>" in wrap_title(title) and "<br> " not in wrap_title(title)


def test_ticks_read_as_words_and_hover_gives_piece_and_position():
    fig = attention_heatmap(np.full((8, 8), 1 / 8), LABELS, LABELS, "A head")
    x = list(fig.data[0].x)
    assert x[1] == "1:▁cat" and x[5] == "5:▁cat"  # hover (%{x}) names the piece and its position
    assert list(fig.layout.xaxis.ticktext)[1] == "cat" and list(fig.layout.xaxis.tickvals) == x
    assert "%{x}" in fig.data[0].hovertemplate
    grid = heads_grid(np.full((2, 8, 8), 1 / 8), LABELS, LABELS, ["head 1", "head 2"], "Heads")
    assert list(grid.data[0].y)[0] == "0:▁The" and list(grid.layout.yaxis.ticktext)[0] == "The"
    words = list(attention_heatmap(np.full((8, 8), 1 / 8), LABELS, LABELS, "A head").layout.xaxis.ticktext)
    assert list(grid.layout.xaxis.ticktext) == words * 2  # under each panel, the same words
    assert len(set(grid.layout.xaxis.tickvals)) == 16  # each its own category: hover finds its panel
    pieces = token_labels(PIECES, show_pieces=True)  # the option: ticks are the pieces themselves
    assert list(attention_heatmap(np.full((8, 8), 1 / 8), pieces, pieces, "A head").data[0].x) == pieces


def test_qkv_heatmaps_put_their_colour_bar_under_the_matrix():
    fig = steps.vectors_heatmap(np.random.default_rng(0).normal(size=(8, 16)), LABELS, "Q", "q")
    assert fig.data[0].colorbar.orientation == "h"
    # The plot is as tall as its square cells need in a third of the page (~14 px for 16 columns):
    # not tiny, and no empty band above and below the matrix either.
    plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    assert 8 * 14 <= plot <= 8 * 26 + 20
    assert fig.layout.margin.b >= 40 + 20  # the colour bar under the tick labels and axis title


def test_pe_table_has_tick_labels_on_both_axes():
    fig = positional.pe_heatmap(np.zeros((64, 128)))
    assert list(fig.layout.xaxis.ticktext) == ["d0", "d16", "d32", "d48", "d64", "d80", "d96", "d112"]
    assert len(fig.layout.yaxis.ticktext) >= 16 and fig.layout.yaxis.ticktext[0] == "0"
    assert fig.layout.xaxis.showticklabels is not False and fig.layout.yaxis.showticklabels is not False


def test_no_pe_heatmaps_share_a_scale_up_to_their_largest_weight():
    rng = np.random.default_rng(0)
    plain = rng.dirichlet(np.full(8, 20.0), size=8)  # nearly uniform rows, as without positions
    shuffled = plain[::-1, ::-1]
    a, b = positional.shuffle_pair(plain, shuffled, LABELS, LABELS[::-1], "no PE")
    assert a.data[0].zmax == b.data[0].zmax == pytest.approx(plain.max())
    assert a.data[0].zmax < 0.5  # on 0..1 these would be nearly white


def test_worked_example_panel_titles_do_not_sit_on_the_column_labels():
    fig = worked.matrices([("A", np.eye(2), ["q1", "q2"], ["k1", "k2"]),
                           ("B", np.eye(2), ["q1", "q2"], ["k1", "k2"])], "t")
    assert all(fig.layout[name].side != "top" for name in ("xaxis", "xaxis2"))


def test_presenter_mode_scales_the_text_inside_figures():
    grid = heads_grid(np.full((2, 8, 8), 1 / 8), LABELS, LABELS, ["head 1", "head 2"], "Heads")
    big = presenter_fonts(grid, 1.5)
    assert big.layout.font.size == 18  # from Plotly's 12
    assert big.layout.xaxis.tickfont.size == round(grid.layout.xaxis.tickfont.size * 1.5)
    assert big.layout.annotations[0].font.size == round(grid.layout.annotations[0].font.size * 1.5)
    assert big.layout.height > grid.layout.height
    assert grid.layout.font.size is None  # the original is untouched


def test_contrast_relative_to_uniform_draws_an_even_head_white():
    weights = np.full((8, 8), 1 / 8)
    fig = relative_to_uniform(attention_heatmap(weights, LABELS, LABELS, "even"), "RdBu_r")
    np.testing.assert_allclose(np.asarray(fig.data[0].z, dtype=float), 1.0)  # the middle of the scale
    assert (fig.data[0].zmin, fig.data[0].zmax) == (0.0, 2.0)
    assert "uniform" in fig.data[0].colorbar.title.text
    hover = np.asarray(fig.data[0].customdata, dtype=float)
    np.testing.assert_allclose(hover, weights)  # hover still gives the weight
    even = heads_grid(np.stack([weights, weights]), LABELS, LABELS, ["head 1", "head 2"], "t")
    grid = relative_to_uniform(even, "RdBu_r")
    drawn = np.asarray(grid.data[0].z, dtype=float)
    np.testing.assert_allclose(drawn[np.isfinite(drawn)], 1.0)  # each head against its own 1/T, not the row's
    causal = np.tril(np.ones((4, 4)))
    causal /= causal.sum(axis=1, keepdims=True)  # row i spreads evenly over its i + 1 keys
    rel = relative_to_uniform(attention_heatmap(causal, LABELS[:4], LABELS[:4], "causal"), "RdBu_r")
    z = np.asarray(rel.data[0].z, dtype=float)
    np.testing.assert_allclose(z[np.tril_indices(4)], 1.0)
    views = model_view(np.full((2, 2, 8, 8), 1 / 8), ["layer 1", "layer 2"], ["head 1", "head 2"], "all")
    rel = relative_to_uniform(views, "RdBu_r")
    assert rel.layout.coloraxis.cmax == 2.0
    np.testing.assert_allclose(np.asarray(rel.data[0].z, dtype=float), 1.0, atol=0.05)  # whole percents
    other = heatmap(np.zeros((2, 2)), ["a", "b"], ["c", "d"], "not weights")
    assert relative_to_uniform(other, "RdBu_r") is other
