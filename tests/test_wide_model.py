"""The wide model shipped beside the default one (pretrained/wide): the app finds it under the name
`wide` with its card's title, its weights are the ones its card names, and longer sentences translate
to the German committed here (beam 4, α = 1.8 from its decoding.json; checked by hand against
`python -m transformer.translate --model pretrained/wide`, and right German, where the default model
gets the first wrong: "Sie lebt seit zehn Jahren inlin.")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from transformer.decoding import beam_search
from transformer.inputs import encode_source
from transformer.pretrained import file_sha256, load_pretrained

ROOT = Path(__file__).resolve().parents[1]
WIDE = ROOT / "pretrained" / "wide"
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
def wide():
    return load_pretrained(WIDE)


def test_the_app_offers_it_by_name_with_its_cards_title():
    from ui.frame import MODELS

    label, directory = MODELS["wide"]
    assert directory.resolve() == WIDE.resolve()
    assert label == (WIDE / "MODEL_CARD.md").read_text(encoding="utf-8").split("\n", 1)[0].lstrip("# ")


def test_weights_checksum_matches_its_card(wide):
    card = (WIDE / "MODEL_CARD.md").read_text(encoding="utf-8")
    match = re.search(r"model\.safetensors.*?sha256[^0-9a-f]*([0-9a-f]{64})", card, re.S)
    assert match and file_sha256(WIDE / "model.safetensors") == match.group(1)
    config = wide.model.config
    assert (config.d_model, config.d_ff, config.n_heads, config.n_layers) == (256, 1024, 8, 6)


@pytest.mark.parametrize("english", BEAM, ids=lambda s: s[:25])
def test_longer_sentences_translate_to_the_committed_german(wide, english):
    d = wide.decoding
    assert (d.beam_size, d.alpha) == (4, 1.8)
    src = encode_source(wide.tokenizer, english)
    best = beam_search(wide.model, src.ids, beam_size=d.beam_size, alpha=d.alpha)[0]
    assert wide.tokenizer.decode(best.ids) == BEAM[english]


def _home(**params):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at, " ".join(c.value for c in at.caption)


def test_the_home_page_translates_with_it_when_the_link_names_it():
    english = "She has lived in Berlin for ten years."
    at, captions = _home(model="wide", s=english)
    assert [t.value for t in at.text] == ["Sie lebt seit zehn Jahren in Berlin.", BEAM[english]]
    assert "wide model was trained by this project from scratch" in captions
    assert "2-core CPU" not in captions


def test_the_default_models_home_page_points_to_the_wide_one():
    at, captions = _home(s="I like it.")
    assert "compact and was trained by this project on a 2-core CPU" in captions
    assert "Longer sentences come out better with the wide model" in captions
