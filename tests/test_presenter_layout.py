"""What a class reads at 1024 × 768 in presenter mode and at 1440 × 900, checked on the figures' layouts
and in AppTest; tests/test_presenter_browser.py measures the same things in Chromium.

- Tables in presenter mode are `st.table` (the presenter CSS enlarges its text; a data frame's canvas
  it cannot reach), their text cells escaped so that Markdown shows them as typed.
- Figure 3's heatmap: 37 key labels that no longer touch, every one labelled, ≥ 10 px.
- The encoder layer's legends of tokens grow with presenter-sized entries instead of scrolling.
- Concat · W^O: "head₁…head₈" (not "head_8"), "dimension" placed clear of the tick numbers.
- A matrix of one or two columns has its colour bar beside it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest
from test_heatmap_layout import assert_matrix_fills_its_plot

from ui.render import literal_markdown, markdown_table
from viz import concat, decoding, layers, paper
from viz.heatmap import LABEL_GAP, MIN_TICK_FONT, TICK_FONT, relative_to_uniform
from viz.labels import token_labels
from viz.present import LEGEND_ENTRY, presenter_fonts

ROOT = Path(__file__).resolve().parents[1]
# The paper's Figure 3 sentence as this model's tokenizer cuts it: 37 pieces with </s>.
FIGURE3 = ("▁It ▁is ▁in ▁this ▁spir it ▁that ▁a ▁majority ▁of ▁American ▁govern ments ▁have ▁passed ▁new "
           "▁law s ▁since ▁ 2 0 0 9 ▁making ▁the ▁registr ation ▁or ▁v ot ing ▁process ▁more ▁difficult "
           ". </s>").split()
HEADS = [f"head {h + 1}" for h in range(8)]


# ---- tables ---------------------------------------------------------------------------------------

HOSTILE = ["</s>", "<b>x</b>", "**b**", ":red[x]", ":smile:", "$x^2$", "[l](javascript:alert(1))",
           "`c`", "# h", "1. item", "a\\b", "&amp;", "http://example.com", "www.example.com", "a@b.de"]


@pytest.mark.parametrize("text", HOSTILE)
def test_literal_markdown_escapes_every_mark_and_breaks_bare_links(text):
    shown = literal_markdown(text)
    kept, chars = [], iter(shown)
    for char in chars:  # every ASCII punctuation mark comes escaped (CommonMark shows it as itself)
        if char == "\\":
            kept.append(next(chars))
        else:
            assert not re.fullmatch(r"[!-/:-@\[-`{-~]", char), f"{char!r} unescaped in {shown!r}"
            kept.append(char)
    unescaped = "".join(kept)
    assert unescaped.replace("\u2060", "") == text  # the text itself, plus invisible word joiners
    for start in (r"://", r"www\.", r"@\w"):  # GFM links these even when escaped: a joiner sits inside
        assert not re.search(start, unescaped), (start, shown)


def test_markdown_table_keeps_one_cell_per_value_and_shows_text_as_typed():
    """A `|` or a newline in the model's text would split a Markdown row or end it: both are escaped or
    joined, so every row has one cell per column; numbers right-aligned, booleans as yes/no."""
    rows = [{"rank": 1, "translation": "a | b\nc", "log P": -1.5, "done": True},
            {"rank": 2, "translation": "</s>", "log P": -2.0, "done": False}]
    header, align, *lines = markdown_table(rows).splitlines()
    assert align == "|---:|---|---:|---|"
    for line in [header, *lines]:
        assert len(re.split(r"(?<!\\)\|", line)) == 6, line  # 4 cells between 5 unescaped bars
    assert lines[0].endswith("| yes |") and lines[1].endswith("| no |")
    assert literal_markdown("a | b c") in lines[0] and literal_markdown("</s>") in lines[1]


def _page(name: str, query: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / name), default_timeout=300)
    at.query_params.update(query)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_tokens_table_is_an_st_table_in_presenter_mode_and_a_data_frame_otherwise():
    """The pieces table kept its small canvas text in presenter mode (a data frame); there it is now
    an `st.table`, whose cells are the pieces escaped for Markdown (`</s>` and `▁` included)."""
    sentence = "The <b>cat</b> **sat** on http://example.com :red[x]."
    shown = _page("Tokens_and_embeddings.py", {"s": sentence, "present": "1"})
    assert not shown.dataframe and len(shown.table) == 1
    table = shown.table[0].value
    plain = _page("Tokens_and_embeddings.py", {"s": sentence})
    assert len(plain.dataframe) == 1 and not plain.table
    pieces = list(plain.dataframe[0].value["piece"])
    assert list(table.iloc[:, 1]) == [literal_markdown(piece) for piece in pieces]
    assert "</s>" in pieces and "\\<\\/s\\>" in list(table.iloc[:, 1])


def test_worked_examples_tables_are_st_tables_in_presenter_mode():
    at = _page("Worked_examples.py", {"present": "1"})
    assert not at.dataframe and len(at.table) >= 3


# ---- Figure 3's 37 keys ---------------------------------------------------------------------------

def _x_spacing(fig) -> float:
    m = fig.layout.margin
    return (fig.layout.width - m.l - m.r) / len(fig.layout.xaxis.tickvals)


def assert_keys_apart(fig, what: str, smallest: float) -> None:
    """Every key ticked, ≥ `smallest` px, and neighbouring labels at least LABEL_GAP × their size
    apart, measured across the text (the spacing × |sin angle|)."""
    axis = fig.layout.xaxis
    assert list(axis.tickvals) == list(fig.data[0].x), f"{what}: keys skipped"
    size = axis.tickfont.size or TICK_FONT
    assert size >= smallest, f"{what}: {size}-px labels"
    apart = _x_spacing(fig) * abs(math.sin(math.radians(axis.tickangle)))
    assert apart >= LABEL_GAP * size - 0.5, f"{what}: {size}-px labels {apart:.1f} px apart: they touch"


def test_figure_3s_keys_are_all_labelled_and_apart_at_1440_and_in_presenter_mode():
    """Presenter mode at 1024 × 768: the 37 keys at 18 px, turned −45° in an 860-px figure, touched.
    At 1440 × 900 the figure is built for its 980-px column (Streamlit squeezed a wider one, leaving
    an empty band under the matrix) and its 12-px labels stay at −45°; in presenter mode they turn
    upright and grow as far as their spacing allows."""
    labels = token_labels(FIGURE3, False)
    w = np.random.default_rng(0).dirichlet(np.ones(len(FIGURE3)), size=(8, len(FIGURE3)))
    fig = paper.query_rows_heatmap(w, labels, 24, HEADS, "t", max_width=980)
    assert fig.layout.width <= 980
    assert_keys_apart(fig, "1440 × 900", MIN_TICK_FONT)
    assert fig.layout.xaxis.tickfont.size == TICK_FONT
    big = presenter_fonts(paper.query_rows_heatmap(w, labels, 24, HEADS, "t"), 1.5, 860)
    assert big.layout.width <= 860
    assert_keys_apart(big, "presenter mode", TICK_FONT + 2)
    assert_matrix_fills_its_plot(big, "presenter mode")
    assert_matrix_fills_its_plot(fig, "1440 × 900")


def test_a_long_sentence_turns_its_keys_upright_rather_than_let_them_touch():
    """61 tokens in a 900-px-high attention map: 11-px cells; 12-px labels at −45° touched."""
    from viz.heatmap import attention_heatmap

    labels = token_labels([f"▁w{i}" for i in range(60)] + ["</s>"], False)
    fig = attention_heatmap(np.full((61, 61), 1 / 61), labels, labels, "t")
    assert fig.layout.xaxis.tickangle == -90
    assert (fig.layout.xaxis.tickfont.size or TICK_FONT) >= MIN_TICK_FONT


# ---- the encoder layer's legends --------------------------------------------------------------------

@pytest.mark.parametrize("n", [8, 15])
def test_legends_of_tokens_grow_with_their_entries_in_presenter_mode(n):
    """The stage chart's legend scrolled at presenter size: 15 entries at 18 px need about 30 px each,
    and the figure kept the height it had for 12-px entries."""
    rng = np.random.default_rng(0)
    labels = token_labels([f"▁w{i}" for i in range(n - 1)] + ["</s>"], False)
    stages = [(f"stage {i}", rng.normal(size=(n, 16))) for i in range(7)]
    for fig in (layers.stage_norms(stages, labels, "t"),
                layers.layer_changes(rng.normal(size=(7, n, 16)), labels, [f"l{i}" for i in range(7)], "t")):
        big = presenter_fonts(fig, 1.5)
        font = big.layout.legend.font.size
        # entries, and the rest of the figure (title, rotated stage names: 200 px at 12 px) grown too
        assert big.layout.height >= n * LEGEND_ENTRY * font + 1.5 * 200


# ---- Concat · W^O -----------------------------------------------------------------------------------

def _concat():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(8, 15, 16))
    return concat.concat_figure(z, np.concatenate(list(z), axis=1), rng.normal(size=(128, 128)) * 0.1,
                                rng.normal(size=(15, 128)), [f"w{i}" for i in range(15)], HEADS, "t")


def test_concat_names_its_heads_one_way_and_keeps_dimension_clear_of_the_numbers():
    fig = _concat()
    texts = [a.text for a in fig.layout.annotations]
    assert "Concat(head₁…head₈)<br>15 × 8·16 = 15 × 128" in texts and not any("head_" in t for t in texts)
    assert list(fig.layout.xaxis.ticktext) == ["0", "32", "64", "96"]  # every other block: 8 ran together
    dims = [a for a in fig.layout.annotations if a.text == "dimension"]
    assert len(dims) == 3 and all(not fig.layout[f"xaxis{s}"].title.text for s in ("", "2", "3"))
    # the tick numbers end TICK_FONT + 20 px under the plot in Streamlit's chart theme (measured)
    assert all(a.yanchor == "top" and -a.yshift >= TICK_FONT + 24 for a in dims)
    assert fig.layout.margin.b >= -dims[0].yshift + 18 + 45  # the title, then W^O's colour bar
    big = presenter_fonts(fig, 1.5, 860)
    for a in (a for a in big.layout.annotations if a.text == "dimension"):
        assert -a.yshift >= 1.5 * TICK_FONT + 24


# ---- a matrix of one or two columns -----------------------------------------------------------------

@pytest.mark.parametrize("n_keys", [1, 2])
def test_a_matrix_of_one_or_two_columns_has_its_colour_bar_beside_it(n_keys):
    """The newest query's rows at the first decoding steps (8 heads × 1 or 2 keys): the 420-px figure
    (room for its title) put the bar at its right edge, 300 px from the matrix. The room left over
    now lies right of the bar."""
    labels = token_labels(["<s>", "▁Die"][:n_keys], False)
    fig = decoding.step_rows_heatmap(np.full((8, n_keys), 1 / n_keys), labels, HEADS, "t")
    assert fig.layout.width >= 420
    for shown, what in ((fig, "plain"), (presenter_fonts(fig, 1.5, 860), "presenter"),
                        (relative_to_uniform(fig, "RdBu"), "relative to uniform")):
        cell = assert_matrix_fills_its_plot(shown, what)
        assert cell <= 60, what
