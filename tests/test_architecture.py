"""The home page's Figure 1 diagram: the paper's parts, in its order, each leading to a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from viz.architecture import architecture_figure, figure1_parts, page_of_selection

ROOT = Path(__file__).resolve().parents[1]
# Figure 1 of the paper, bottom-up (read off the figure by hand).
ENCODER = ["Input Embedding", "Positional Encoding", "Multi-Head Attention", "Add & Norm", "Feed Forward",
           "Add & Norm"]
DECODER = ["Output Embedding", "Positional Encoding", "Masked Multi-Head Attention", "Add & Norm",
           "Multi-Head Attention", "Add & Norm", "Feed Forward", "Add & Norm", "Linear", "Softmax"]


def test_parts_follow_figure_1_bottom_up():
    parts = figure1_parts()
    stacks = sorted({p.x for p in parts})
    encoder = sorted((p for p in parts if p.x == stacks[0]), key=lambda p: p.y)
    decoder = sorted((p for p in parts if p.x == stacks[1]), key=lambda p: p.y)
    assert [p.label for p in encoder] == ENCODER
    assert [p.label for p in decoder] == DECODER
    # The N× frame holds one layer's sub-layers: 4 in the encoder, 6 in the decoder.
    assert [sum(p.layer for p in stack) for stack in (encoder, decoder)] == [4, 6]


def test_every_box_leads_to_an_existing_page():
    for part in figure1_parts():
        assert (ROOT / part.page).is_file(), f"{part.label} leads to a missing page {part.page}"


def test_one_clickable_point_per_box_with_its_page():
    parts = figure1_parts()
    fig = architecture_figure(n_layers=6)
    points = fig.data[0]
    assert list(points.customdata) == [p.page for p in parts]
    assert list(zip(points.x, points.y)) == [(p.x, p.y) for p in parts]
    assert len(fig.layout.shapes) >= len(parts)  # a box per part, plus frames and the memory line


@pytest.mark.parametrize("n_layers", [2, 6])
def test_layer_count_is_the_models(n_layers):
    texts = [a.text for a in architecture_figure(n_layers).layout.annotations]
    assert texts.count(f"N = {n_layers} ×") == 2


def test_selection_gives_the_clicked_page():
    page = figure1_parts()[1].page
    assert page_of_selection({"points": [{"point_index": 1, "customdata": page}]}) == page
    assert page_of_selection({"points": [{"customdata": [page]}]}) == page


@pytest.mark.parametrize(
    "selection",
    [None, {}, {"points": []}, {"points": "x"}, {"points": [None, 3]}, {"points": [{"customdata": 7}]},
     {"points": [{"customdata": "../../etc/passwd"}]}, {"points": [{"customdata": "pages/nope.py"}]},
     {"points": [{"customdata": []}]}, "pages/1_Tokens_and_embeddings.py"],
)
def test_selection_from_the_browser_never_names_a_page_the_diagram_does_not_offer(selection):
    assert page_of_selection(selection) is None
