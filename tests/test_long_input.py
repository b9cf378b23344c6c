"""Text a lecturer pastes: over-long text is cut at the limit with a message that
says so, instead of silently emptying the box, and text the vocabulary does not know gets a notice."""

from __future__ import annotations

import json
from pathlib import Path

from charts import page_charts
from streamlit.testing.v1 import AppTest

from transformer.inputs import MAX_CHARS, encode_source
from ui import model as model_io
from ui.sidebar import CUT_KEY

ROOT = Path(__file__).resolve().parents[1]
PAGE = str(ROOT / "pages" / "Tokens_and_embeddings.py")  # a quick page that needs a sentence
TIMEOUT = 120


def _type(at: AppTest, text: str) -> AppTest:
    at.sidebar.text_area(key="atlas_sentence_box").input(text).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def test_pasted_text_over_the_limit_is_cut_with_a_message():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    pasted = ("The cat sat on the mat and looked at the dog. " * 60)[: 2 * MAX_CHARS]
    _type(at, pasted)
    assert at.sidebar.text_area(key="atlas_sentence_box").value == pasted[:MAX_CHARS]  # not emptied
    assert at.session_state["atlas_selection"].sentence == pasted[:MAX_CHARS]
    said = [w for w in _warnings(at) if "more than the limit" in w]
    assert said and f"{2 * MAX_CHARS:,} characters" in said[0] and f"{MAX_CHARS:,}" in said[0]
    assert page_charts(at) and not at.info  # the page shows the kept text, asks for nothing
    # The message stays until the reader edits the box again.
    _type(at, "The cat sat on the mat.")
    assert not any("more than the limit" in w for w in _warnings(at))
    assert CUT_KEY not in at.session_state


def test_text_at_the_limit_is_kept_whole_without_a_message():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    text = ("A dog ran. " * 200)[:MAX_CHARS]
    _type(at, text)
    assert at.sidebar.text_area(key="atlas_sentence_box").value == text
    assert not any("more than the limit" in w for w in _warnings(at))


def test_emoji_only_text_gets_a_notice():
    at = AppTest.from_file(PAGE, default_timeout=TIMEOUT).run()
    text = "😀 🎉"
    _type(at, text)
    lm = model_io.loaded()
    source = encode_source(lm.tokenizer, text)
    assert set(source.notices) <= set(_warnings(at))  # every notice of the input is on the page
    if lm.tokenizer.unk_id in source.ids:  # a vocabulary without byte pieces: the emoji are unknown
        assert any("in the model's vocabulary" in w for w in _warnings(at)), _warnings(at)


INSPECTOR = str(ROOT / "pages" / "Head_inspector.py")


def _chart(at: AppTest, key: str) -> dict:
    """The Plotly figure the page drew with `key`, as JSON."""
    for chart in page_charts(at):
        if chart.proto.id.endswith(f"-{key}"):
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart with key {key!r}")


def test_a_compare_box_cuts_pasted_text_with_a_message_and_still_compares():
    """The head inspector's "Compare two sentences" boxes take 300 characters: a longer paste is cut
    there with a message under the box (it used to be refused without a word), and both maps and the
    difference are drawn from what is kept."""
    from ui.experiments import COMPARE_MAX_CHARS
    from ui.inspector import attention_trace

    at = AppTest.from_file(INSPECTOR, default_timeout=TIMEOUT).run()
    pasted = ("The dog chased the cat across the garden. " * 60)[: 2_000]
    at.text_input(key="hi_compare_a").input(pasted).run()
    assert not at.exception, [e.message for e in at.exception]
    kept = pasted[:COMPARE_MAX_CHARS]
    assert at.text_input(key="hi_compare_a").value == kept  # cut, not emptied, not left as it was
    said = [w for w in _warnings(at) if "more than the limit" in w]
    assert len(said) == 1 and "2,000 characters" in said[0] and f"limit of {COMPARE_MAX_CHARS}" in said[0]
    assert "Sentence A" in said[0]
    trace = attention_trace(model_io.loaded().model_id, kept)
    assert len(_chart(at, "hi_compare_fig_a")["data"][0]["y"]) == len(trace.src_pieces)  # from the kept text
    for key in ("hi_compare_fig_b", "hi_difference"):
        assert _chart(at, key)["data"], key
    # The message stays until the box is edited again, and a text within the limit is kept whole.
    at.text_input(key="hi_compare_b").input("The dog ran home.").run()
    assert any("more than the limit" in w for w in _warnings(at))
    at.text_input(key="hi_compare_a").input("The cat ran home.").run()
    assert at.text_input(key="hi_compare_a").value == "The cat ran home."
    assert not any("more than the limit" in w for w in _warnings(at))
