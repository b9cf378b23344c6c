"""The paper figures page says what the paper shows and what this model shows, in numbers measured on
the loaded model, and claims nothing the numbers do not show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis.decoding import HeadScore
from ui import model as model_io
from ui import paper as evidence
from ui.presets import PRESETS
from ui.state import Selection

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "Paper_figures.py")
SEL = Selection()  # 1-based numbering


def _link(weight: float) -> evidence.Link:
    return evidence.Link("its", "Law", 4, HeadScore(4, 2, 0.13), HeadScore(1, 6, weight), found=True)


def test_a_link_no_head_makes_is_called_absent_with_its_numbers():
    text = evidence.verdict(_link(0.25), SEL, "two heads give almost all of *its*'s attention to *Law*.")
    assert text.startswith("**The paper:** two heads give")
    assert "layer 5, head 3" in text and "0.13" in text  # the layer on screen, its strongest head
    assert "no head anywhere gives more than 0.25 (layer 2, head 7)" in text  # the strongest anywhere
    assert "does not show the link" in text and "does show" not in text


def test_a_link_some_head_makes_is_called_present_where_it_is():
    text = evidence.verdict(_link(0.8), SEL, "…")
    assert "the strongest head anywhere in the encoder, layer 2, head 7, gives 0.80" in text
    assert "does show the link there" in text and "does not show" not in text
    assert evidence.SHOWN <= 0.8 and evidence.verdict(_link(evidence.SHOWN), SEL, "…").count("does show") == 1


def test_a_sentence_without_the_figures_words_says_there_is_no_link_to_measure():
    trace = model_io.trace(model_io.loaded().model_id, "The cat sat on its mat.", target_ids=())
    said = evidence.figure4_verdicts(trace, SEL, 4)
    assert len(said) == 1 and "has no *its* and *Law*" in said[0]  # has "its", not "Law": not measured
    assert "no link of the paper's to measure" in said[0] and "first two words" not in said[0]
    assert "does show" not in said[0] and "0." not in said[0].split("**This model:**")[1]


def test_the_pronoun_check_says_resolved_only_when_the_head_moves():
    moves = evidence.Pronoun(HeadScore(0, 2, 0.6), animal=(0.6, 0.1), street=(0.1, 0.5))
    stays = evidence.Pronoun(HeadScore(0, 2, 0.45), animal=(0.45, 0.42), street=(0.08, 0.08))
    assert moves.resolves and not stays.resolves
    assert "It moves its weight" in evidence.pronoun_text(moves, SEL)
    text = evidence.pronoun_text(stays, SEL)
    assert "layer 1, head 3" in text and "0.45" in text and "0.42" in text and "does not move" in text


@pytest.fixture(scope="module")
def page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_page_states_the_numbers_of_the_loaded_model(page):
    """Measured again here on the very traces the page reads; the page must say exactly this."""
    model_id = model_io.loaded().model_id
    sel = page.session_state["atlas_selection"]
    layer = page.slider(key="paper_layer").value - 1
    shown = [m.value for m in page.markdown]
    figure3 = PRESETS["Paper Figure 3 (making … more difficult)"]
    figures45 = PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]
    for sentence, query, keys in ((figure3, "making", ("more", "difficult")), (figures45, "its", ("Law",))):
        trace = model_io.trace(model_id, sentence, target_ids=())
        found = evidence.link(trace, query, keys, layer)
        said = next(m for m in shown if m.startswith("**The paper:**") and f"*{query}* →" in m)
        assert said.endswith(evidence.verdict(found, sel, "").split("**This model:** ", 1)[1])
        assert ("does show" in said) == (found.anywhere.weight >= evidence.SHOWN)  # no overclaiming
    trace = model_io.trace(model_id, figures45, target_ids=())
    for key, _ in evidence.FIGURE4:  # both of Figure 4's links, each with the loaded model's numbers
        found = evidence.link(trace, "its", (key,), layer)
        said = next(m for m in shown if m.startswith("**The paper:**") and f"*its* → *{key}*" in m)
        assert evidence.verdict(found, sel, "").split("**This model:** ", 1)[1] in said
    application = next(m for m in shown if "*its* → *application*" in m)
    assert "the word right after *its*" in application  # "its application": a neighbour, not a reference
    check = evidence.pronoun(model_id)
    assert check is None or evidence.pronoun_text(check, sel) in shown
    layouts = [json.loads(c.proto.spec)["layout"] for c in page.get("plotly_chart")]
    titles = [layout.get("title", {}).get("text", "").replace(" <br>", " ") for layout in layouts]
    assert any("strongest evidence, anywhere" in t for t in titles)

