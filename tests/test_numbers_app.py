"""The numbers model in the app: the model picker, every page on it, the training-step slider, the
gold alignment, and links that keep the model and snapshot. Runs on the shipped pretrained/numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from charts import page_charts
from streamlit.testing.v1 import AppTest

from transformer.pretrained import load_pretrained, snapshot_file, snapshot_steps
from ui.presets import NUMBERS_DEFAULT

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = ROOT / "pretrained" / "numbers"
# Every page but the home page (app.py runs it) and Train it yourself (no model of its own to show).
PAGES = sorted(p.name for p in (ROOT / "pages").glob("*.py")
               if p.name not in ("home.py", "Train_it_yourself.py"))
TIMEOUT = 120


def open_page(path: Path, **params: str) -> AppTest:
    at = AppTest.from_file(str(path), default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def model_caption(at: AppTest) -> str:
    return next(c.value for c in at.sidebar.caption if c.value.startswith("Model `"))


@pytest.fixture(scope="module")
def ids() -> dict:
    from transformer.pretrained import file_sha256

    return {
        "numbers": load_pretrained(NUMBERS).model_id,
        "translation": load_pretrained(ROOT / "pretrained").model_id,
        "step 50": file_sha256(snapshot_file(NUMBERS, 50))[:16],
    }


@pytest.mark.parametrize("page", ["app.py", *PAGES])
def test_every_page_runs_on_the_numbers_model(page, ids):
    path = ROOT / page if page == "app.py" else ROOT / "pages" / page
    at = open_page(path, model="numbers", s="forty-two")
    assert ids["numbers"] in model_caption(at)
    assert page_charts(at) or at.get("vega_lite_chart")
    assert not at.warning, [w.value for w in at.warning]  # a phrase of its grammar: no off-grammar notice


def test_home_shows_the_right_answer_beside_the_translation():
    at = open_page(ROOT / "app.py", model="numbers", s="twenty-one apples")
    assert "einundzwanzig Äpfel" in [t.value for t in at.text]  # greedy, beam and the right answer
    assert any("Right answer" in m.value for m in at.markdown)


def test_a_sentence_outside_the_grammar_is_flagged():
    at = open_page(ROOT / "pages" / "Multi_head_attention.py", model="numbers", s="The cat sat on the mat.")
    assert any("outside them" in w.value for w in at.warning)


def test_bad_model_and_snapshot_fall_back(ids):
    at = open_page(ROOT / "pages" / "Multi_head_attention.py", model="<script>", snapshot="x", s="Hi.")
    assert ids["translation"] in model_caption(at)
    multi_head = ROOT / "pages" / "Multi_head_attention.py"
    at = open_page(multi_head, model="numbers", snapshot="77", s="forty-two")
    assert ids["numbers"] in model_caption(at)
    assert at.select_slider(key="atlas_training_step").value == "final"


def test_snapshot_link_opens_those_weights_and_the_slider_moves_them(ids):
    assert snapshot_steps(NUMBERS)[:3] == [0, 50, 100]
    page = ROOT / "pages" / "Decoder_and_generation.py"
    at = open_page(page, model="numbers", snapshot="50", s="forty-two")
    assert ids["step 50"] in model_caption(at)
    assert at.select_slider(key="atlas_training_step").value == 50
    at.select_slider(key="atlas_training_step").set_value("final").run()
    assert ids["numbers"] in model_caption(at)
    assert "snapshot" not in at.query_params and at.query_params["model"] == "numbers"


def test_switching_models_gives_the_new_model_a_sentence_it_knows(ids):
    at = open_page(ROOT / "pages" / "Multi_head_attention.py", s="The cat sat on the mat.")
    at.selectbox(key="atlas_model_picker").set_value("numbers").run()
    assert not at.exception
    assert ids["numbers"] in model_caption(at)
    assert at.query_params["model"] == "numbers" and at.query_params["s"] == NUMBERS_DEFAULT
    at.selectbox(key="atlas_model_picker").set_value("translation").run()
    assert ids["translation"] in model_caption(at) and "model" not in at.query_params


def test_back_from_the_numbers_model_a_layer_nobody_chose_is_the_paper_s_layer_5_again():
    """The numbers model has 3 layers: its last stands in for layer 5; back on the 6-layer model the layer
    was left at 3. A layer the reader chose stays (within the model's layers)."""
    at = open_page(ROOT / "pages" / "Multi_head_attention.py")
    assert at.slider(key="atlas_layer").value == 5
    for name, layer in (("numbers", 3), ("translation", 5)):
        at.selectbox(key="atlas_model_picker").set_value(name).run()
        assert not at.exception and at.slider(key="atlas_layer").value == layer
        assert at.query_params["layer"] == str(layer)
    at.slider(key="atlas_layer").set_value(2).run()  # chosen: kept on the other model too
    at.selectbox(key="atlas_model_picker").set_value("numbers").run()
    assert at.slider(key="atlas_layer").value == 2


def test_decoder_page_draws_the_crossing_gold_alignment_and_its_agreement():
    at = open_page(ROOT / "pages" / "Decoder_and_generation.py", model="numbers", s="forty-two")
    chart = next(e for e in at.get("plotly_chart") if e.proto.id.endswith("dec_cross_avg"))
    spec = json.loads(chart.proto.spec)
    boxes = next(t for t in spec["data"] if t.get("name") == "right answer")
    # rows: <s> writes "zwei" (from "two"), "zwei" writes "und" (no English word), "und" writes
    # "vierzig" (from "forty"): the boxes cross the diagonal.
    assert len(boxes["x"]) == 2
    assert any("Agreement with the right answer" in c.value for c in at.caption)


def test_translation_model_draws_no_gold():
    at = open_page(ROOT / "pages" / "Decoder_and_generation.py", s="forty-two")
    chart = next(e for e in at.get("plotly_chart") if e.proto.id.endswith("dec_cross_avg"))
    assert all(t.get("name") != "right answer" for t in json.loads(chart.proto.spec)["data"])
