"""The shipped model: its checksum matches the model card, and fixed sentences translate to the
outputs committed with it (tests/golden.json, written when the weights were exported and checked by
hand against `python -m transformer.translate`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from transformer.decoding import beam_search, greedy_decode
from transformer.inputs import encode_source
from transformer.pretrained import file_sha256, load_pretrained

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = json.loads((ROOT / "tests" / "golden.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def shipped():
    return load_pretrained(ROOT / "pretrained")


def test_weights_checksum_matches_the_model_card():
    card = (ROOT / "pretrained" / "MODEL_CARD.md").read_text(encoding="utf-8")
    match = re.search(r"model\.safetensors.*?sha256[^0-9a-f]*([0-9a-f]{64})", card, re.S)
    assert match, "MODEL_CARD.md must state the sha256 of model.safetensors"
    assert file_sha256(ROOT / "pretrained" / "model.safetensors") == match.group(1)
    assert GOLDEN["sha256"] == match.group(1)


def test_golden_beams_were_searched_with_the_shipped_decoding(shipped):
    """The beam outputs below belong to one beam size and α: those of pretrained/decoding.json."""
    d = shipped.decoding
    assert (GOLDEN["beam_size"], GOLDEN["alpha"]) == (d.beam_size, d.alpha)


@pytest.mark.parametrize("case", GOLDEN["sentences"], ids=lambda c: c["en"][:30])
def test_fixed_sentences_translate_to_committed_outputs(shipped, case):
    src = encode_source(shipped.tokenizer, case["en"])
    greedy = greedy_decode(shipped.model, src.ids)
    beam = beam_search(shipped.model, src.ids, beam_size=GOLDEN["beam_size"], alpha=GOLDEN["alpha"])[0]
    assert shipped.tokenizer.decode(greedy.ids) == case["greedy"]
    assert shipped.tokenizer.decode(beam.ids) == case["beam"]


def test_home_page_shows_the_golden_translations_above_figure_1():
    """The home page in AppTest: the shipped model's greedy and beam outputs for a golden sentence,
    under "Translation", which sits above the architecture section and its Figure 1 diagram."""
    from streamlit.testing.v1 import AppTest

    case = GOLDEN["sentences"][-1]
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["s"] = case["en"]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert [t.value for t in at.text] == [case["greedy"], case["beam"]]
    assert [h.value for h in at.subheader][:2] == ["Translation", "The architecture, part by part"]
    assert len(at.get("vega_lite_chart")) == 1  # Figure 1: Vega-Lite; the one Plotly chart is hidden
    assert [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")] == ["atlas_plotly_preload_chart"]
    card = (ROOT / "pretrained" / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert at.expander[0].label.startswith("Model card")
    assert [m.value.strip() for m in at.expander[0].markdown] == [card.strip()]
