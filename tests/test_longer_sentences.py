"""Longer sentences on the shipped model (d_model 256): they translate to the German committed here
(beam 4, α = 1.8 from its decoding.json; checked by hand against `python -m transformer.translate`, and
right German, where the d_model 128 model shipped before got the first wrong: "Sie lebt seit zehn
Jahren inlin."), on the home page too, and links made when this model was the second choice
(`?model=wide`) still open it."""

from __future__ import annotations

from pathlib import Path

import pytest

from transformer.decoding import beam_search
from transformer.inputs import encode_source
from transformer.pretrained import load_pretrained

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "pretrained"
BEAM = {
    "She has lived in Berlin for ten years.": "Sie lebt seit zehn Jahren in Berlin.",
    "I think that the book which you gave me is very interesting.":
        "Ich glaube, das Buch, das du mir gegeben hast, ist sehr interessant.",
    "The meeting starts at 9 o'clock on 3 March 2024.": "Das Treffen beginnt um 9 Uhr am 3. März 2024.",
    "The animal didn't cross the street because it was too tired.":
        "Das Tier konnte die Straße nicht überqueren, weil es zu müde war.",
    "Although it was raining, the children played in the garden.":
        "Obwohl es regnete, spielten die Kinder im Garten.",
}  # fmt: skip


@pytest.fixture(scope="module")
def shipped():
    return load_pretrained(SHIPPED)


def test_the_shipped_model_is_the_wide_one(shipped):
    config = shipped.model.config
    assert (config.d_model, config.d_ff, config.n_heads, config.n_layers) == (256, 1024, 8, 6)


@pytest.mark.parametrize("english", BEAM, ids=lambda s: s[:25])
def test_longer_sentences_translate_to_the_committed_german(shipped, english):
    d = shipped.decoding
    assert (d.beam_size, d.alpha) == (4, 1.8)
    src = encode_source(shipped.tokenizer, english)
    best = beam_search(shipped.model, src.ids, beam_size=d.beam_size, alpha=d.alpha)[0]
    assert shipped.tokenizer.decode(best.ids) == BEAM[english]


def _home(**params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at, " ".join(c.value for c in at.caption)


@pytest.mark.parametrize("link", [{}, {"model": "wide"}], ids=["plain link", "old wide link"])
def test_the_home_page_translates_a_longer_sentence(link):
    english = "She has lived in Berlin for ten years."
    at, captions = _home(s=english, **link)
    assert [t.value for t in at.text] == ["Sie lebt seit zehn Jahren in Berlin.", BEAM[english]]
    assert "trained by this project from scratch" in captions
    assert "2-core CPU" not in captions
