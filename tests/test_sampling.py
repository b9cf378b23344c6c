"""Sampling on the decoder page: temperature and top-k (analysis.decoding.tempered), the candidates drawn
before and after them (viz.decoding.tempered_bars, ui.sampling), and "Next token" taking the drawn token."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from charts import page_charts
from streamlit.testing.v1 import AppTest

from analysis.decoding import tempered
from ui import model as model_io
from ui import sampling
from ui.state import DEFAULT_SENTENCE

ROOT = Path(__file__).resolve().parents[1]
LOGITS = torch.tensor([2.0, 1.0, 0.5, -1.0, 3.0, 0.0])  # (V,): the best is id 4, then 0, 1, 2, 5, 3


def test_temperature_one_keeps_the_models_proportions_among_the_k():
    t = tempered(LOGITS, 1.0, 3)
    assert t.ids == [4, 0, 1]
    full = LOGITS.softmax(-1)
    assert t.model == pytest.approx(full[[4, 0, 1]].tolist())
    assert t.sampled == pytest.approx((full[[4, 0, 1]] / full[[4, 0, 1]].sum()).tolist())


def test_low_temperature_sharpens_high_temperature_flattens():
    def entropy(p):
        return -sum(x * math.log(x) for x in p if x > 0)

    cold, warm, hot = (tempered(LOGITS, t, 6).sampled for t in (0.2, 1.0, 2.0))
    assert cold[0] > warm[0] > hot[0]
    assert entropy(cold) < entropy(warm) < entropy(hot)
    by_rank = LOGITS[[4, 0, 1, 2, 5, 3]]
    assert tempered(LOGITS, 0.5, 6).sampled == pytest.approx((by_rank / 0.5).softmax(-1).tolist())
    assert tempered(LOGITS, 1.7, 1).sampled == [1.0]  # top-1: greedy
    with pytest.raises(ValueError, match="positive"):
        tempered(LOGITS, 0.0, 3)


def test_draws_are_repeatable_and_follow_the_probabilities():
    t = tempered(LOGITS, 1.0, 3)
    assert t.draw(7) == t.draw(7)
    draws = [t.draw(seed) for seed in range(4000)]
    for token, p in zip(t.ids, t.sampled, strict=True):
        assert draws.count(token) / len(draws) == pytest.approx(p, abs=0.03)


def _decoder_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "Decoder_and_generation.py"), default_timeout=300)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_greedy_stays_the_default():
    at = _decoder_page()
    assert at.radio(key=sampling.PICK_KEY).value == sampling.GREEDY
    assert not [c for c in page_charts(at) if c.proto.id.endswith("-dec_tempered")]


def test_sampling_draws_from_the_tempered_top_k_and_next_token_takes_the_draw():
    at = _decoder_page()
    at.radio(key=sampling.PICK_KEY).set_value(sampling.SAMPLING).run()
    at.slider(key=sampling.TEMPERATURE_KEY).set_value(0.5).run()
    at.slider(key=sampling.TOP_K_KEY).set_value(5).run()
    assert not at.exception, [e.message for e in at.exception]
    spec = next(json.loads(c.proto.spec) for c in page_charts(at) if c.proto.id.endswith("-dec_tempered"))
    before, after = (trace["x"] for trace in spec["data"])

    # The same numbers from the model itself: its logits after <s>, the page's default decoder input.
    lm = model_io.loaded_or_none()
    src = lm.tokenizer.encode(DEFAULT_SENTENCE) + [lm.tokenizer.eos_id]
    with torch.no_grad():
        logits = lm.model(torch.tensor([src]), torch.tensor([[lm.model.config.start_id]]))[0, -1]  # (V,)
    top = logits.softmax(-1).topk(5)
    assert before == pytest.approx(top.values.tolist(), abs=1e-5)
    assert after == pytest.approx((logits[top.indices] / 0.5).softmax(-1).tolist(), abs=1e-5)

    marked = [label for label in spec["data"][0]["y"] if label.endswith("← drawn")]
    assert len(marked) == 1
    drawn_id = top.indices[spec["data"][0]["y"].index(marked[0])].item()
    at.button(key="dec_next").click().run()
    shown = next(t.value for t in at.text if t.value.startswith("Decoder input after"))
    assert shown.endswith(" " + lm.tokenizer.id_to_piece(drawn_id)), shown
