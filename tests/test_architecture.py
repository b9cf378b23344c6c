"""The home page's Figure 1 diagram: the paper's parts, in its order, each leading to a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from viz.architecture import (
    BOX_H,
    BOX_W,
    SELECTION,
    SUM_Y,
    architecture_spec,
    figure1_parts,
    page_of_selection,
)

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


def test_the_top_layer_takes_each_box_click_and_selects_its_page():
    parts = figure1_parts()
    spec = architecture_spec(n_layers=6)
    top = spec["layer"][-1]  # drawn last, so it is over the labels too
    assert top["params"] == [{"name": SELECTION, "select": {"type": "point", "fields": ["page"]}}]
    rows = top["data"]["values"]
    assert [r["page"] for r in rows] == [p.page for p in parts]
    for row, part in zip(rows, parts):  # the click area is the box itself
        assert row["x0"] < part.x < row["x1"] and row["y0"] < part.y < row["y1"]
    boxes = [layer for layer in spec["layer"] if layer["mark"]["type"] == "rect"]
    assert len(boxes) == 3  # the N× frames, the visible boxes, the click layer


def test_every_layer_shares_the_same_fixed_scales():
    for layer in architecture_spec(6)["layer"]:
        enc = layer["encoding"]
        assert enc["x"]["scale"] == {"domain": [-1.5, 3.5]} and enc["y"]["scale"] == {"domain": [-1.4, 11.0]}


@pytest.mark.parametrize("n_layers", [2, 6])
def test_layer_count_is_the_models(n_layers):
    layers = architecture_spec(n_layers)["layer"]
    texts = [row.get("text") for layer in layers for row in layer["data"]["values"]]
    assert texts.count(f"N = {n_layers} ×") == 2


def test_selection_gives_the_clicked_page():
    page = figure1_parts()[1].page
    assert page_of_selection({SELECTION: [{"page": page}]}) == page
    assert page_of_selection({SELECTION: [{"page": "pages/nope.py"}, {"page": page}]}) == page


@pytest.mark.parametrize(
    "selection",
    [None, {}, {SELECTION: []}, {SELECTION: "x"}, {SELECTION: [None, 3]}, {SELECTION: [{"page": 7}]},
     {SELECTION: [{"page": "../../etc/passwd"}]}, {SELECTION: [{"page": "pages/nope.py"}]},
     {SELECTION: [{"page": []}]}, {"other": [{"page": figure1_parts()[0].page}]},
     "pages/Tokens_and_embeddings.py"],
)
def test_selection_from_the_browser_never_names_a_page_the_diagram_does_not_offer(selection):
    assert page_of_selection(selection) is None


def test_residual_paths_enter_every_add_and_norm_and_the_encoding_is_added_at_a_sum():
    """Figure 1 draws a residual connection into each Add & Norm, and a ⊕ where the positional
    encoding is added to the embedding (the paper's Figure 1)."""
    spec = architecture_spec(6)
    rows = [r for layer in spec["layer"] for r in layer["data"]["values"]]
    arrows = list({tuple(r.items()): r for r in rows if "head" in r}.values())  # drawn twice: rule, head
    for norm in (p for p in figure1_parts() if p.label == "Add & Norm"):
        side = [a for a in arrows
                if a["y"] == a["y2"] == norm.y and abs(abs(a["x2"] - norm.x) - BOX_W / 2) < 1e-9]
        assert len(side) == 1, f"no residual arrow into the Add & Norm at {norm.x}, {norm.y}"
    sums = [r for r in rows if r.get("text") == "⊕"]
    assert sorted({s["x"] for s in sums}) == sorted({p.x for p in figure1_parts()})  # one ⊕ per stack
    assert {s["y"] for s in sums} == {SUM_Y}
    into_encoding = [a for a in arrows if a["x"] == a["x2"] and a["y2"] == 1 - BOX_H / 2]
    assert not into_encoding  # the embedding runs beside its encoding's box into the ⊕, not through it
