"""German typed into the English box gets a one-line note: the model translates English into German.

The check is cheap and says what it saw (ui.language): German function words, and words with umlauts
beside them, outnumbering English ones. Names with umlauts or a German title inside an English
sentence are not enough.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ui.language import german_evidence, german_note, markup_tags

ROOT = Path(__file__).resolve().parents[1]
TOKENS = str(ROOT / "pages" / "Tokens_and_embeddings.py")  # a quick page that starts from ui.page.setup


@pytest.mark.parametrize("text, seen", [
    ("Ich habe Hunger.", ["ich", "habe"]),
    ("Das Tier überquerte die Straße nicht, weil es zu müde war.", ["das", "überquerte", "straße", "nicht"]),
    ("Guten Morgen, wie geht es dir?", ["guten", "morgen", "wie", "geht"]),
    ("Es ist kalt heute.", ["es", "ist", "heute"]),
])
def test_german_sentences_are_recognised_by_words_the_note_names(text, seen):
    evidence = german_evidence(text)
    assert evidence[: len(seen)] == seen
    note = german_note(evidence)
    assert "English into German" in note and all(f"“{w}”" in note for w in evidence[:4])


@pytest.mark.parametrize("text", [
    "The animal didn't cross the street because it was too tired.",
    "Ursula von der Leyen is the president of the Commission.",  # German name words, English sentence
    "Gödel and Schrödinger met in Zürich.",  # umlauts alone are not German
    "Der Spiegel and Die Zeit are newspapers.",
    "The German word for dog is Hund.",
    "I swam across the river to get to the other bank.",
    "forty-two",
    "",
])
def test_english_sentences_get_no_note(text):
    assert german_evidence(text) == []


def _notes(at) -> list[str]:
    return [i.value for i in at.info if "English into German" in i.value]


def test_the_page_notes_german_input_and_not_english():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(TOKENS, default_timeout=120)
    at.query_params["s"] = "Ich habe heute keine Zeit."
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    (note,) = _notes(at)
    assert note.startswith("This looks like German (“ich”, “habe”")
    at.sidebar.text_area(key="atlas_sentence_box").input("I have no time today.").run()
    assert not at.exception, [e.message for e in at.exception]
    assert _notes(at) == []


@pytest.mark.parametrize("text, tags", [
    ("<b>hi</b> there", ["<b>", "</b>"]),
    ('Click <a href="x.html">here</a> <br/>', ['<a href="x.html">', "</a>", "<br/>"]),
    ("<script>alert(1)</script>", ["<script>", "</script>"]),
    ("If a < b and c > d, then 3 <4> 5.", []),  # comparisons are not tags
    ("I like tea.", []),
])
def test_markup_is_found_tag_by_tag(text, tags):
    assert markup_tags(text) == tags


def test_the_page_notes_markup_as_typed_and_draws_none_of_it():
    """The note names the tags in code spans, so Markdown shows them as typed; English gets no note."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(TOKENS, default_timeout=120)
    at.query_params["s"] = "<b>hi</b> there"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    (note,) = [i.value for i in at.info if "contains markup" in i.value]
    assert note.startswith("Your text contains markup (`<b>`, `</b>`).")
    at.sidebar.text_area(key="atlas_sentence_box").input("Hi there.").run()
    assert not [i.value for i in at.info if "contains markup" in i.value]
