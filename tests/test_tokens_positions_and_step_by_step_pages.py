"""AppTest on the tokens & embeddings, positional encoding and attention step-by-step pages.

They run on the shipped pretrained/ model; no test depends on what the weights are, only on how the
page reacts: charts present, a new sentence changes the tokens, a new layer/head changes the data,
bad URL values fall back to defaults.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from charts import page_charts
from streamlit.testing.v1 import AppTest

from transformer import decoding
from viz.labels import token_labels

ROOT = Path(__file__).resolve().parents[1]
TOKENS = str(ROOT / "pages" / "Tokens_and_embeddings.py")
POSITIONS = str(ROOT / "pages" / "Positional_encoding.py")
STEPS = str(ROOT / "pages" / "Attention_step_by_step.py")
TIMEOUT = 60
NEW_SENTENCE = "Birds sing."
# Q, K and V are one figure of three panels ("qkv"; three figures in presenter mode). The scores after
# the mask are drawn only where the mask blocks something (the decoder's self-attention).
STEP_KEYS = ("qkv", "qk", "scores", "mask", "pattern", "z")


@pytest.fixture(autouse=True, scope="module")
def short_translations():
    """Cap decoding at a few tokens so the step-by-step page's translation is quick on any weights.

    That page feeds the decoder the greedy translation; until it says EOS (an untrained model never
    does) decoding runs to the paper's limit of source length + 50, which on a busy 2-core CPU can
    take a minute. The pages' behaviour does not depend on the translation's length. The caches are
    cleared before and after so that no shortened translation outlives these tests.
    """
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(decoding, "default_max_len", lambda model, src_len: min(8, src_len + 50))
        st.cache_data.clear()
        yield
        st.cache_data.clear()


def open_page(path: str, **params: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def charts(at: AppTest) -> dict[str, dict]:
    """Plotly specs by the key the page gave them (Streamlit ids end in '-<key>')."""
    out = {}
    for element in page_charts(at):
        out[element.proto.id.rsplit("-", 1)[-1]] = json.loads(element.proto.spec)
    return out


def array(value) -> np.ndarray:
    """A Plotly JSON array: a plain list or the typed-array form {'dtype', 'bdata', 'shape'}."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            data = data.reshape([int(s) for s in str(value["shape"]).split(",")])
        return data.astype(float)
    return np.asarray([np.nan if v is None else v for v in np.ravel(value)], dtype=float).reshape(
        np.shape(value))


def type_sentence(at: AppTest, text: str) -> AppTest:
    at.sidebar.text_area(key="atlas_sentence_box").input(text).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_tokens_page_shows_pieces_embeddings_scaling_and_similarity():
    at = open_page(TOKENS)
    figs = charts(at)
    assert {"embed_rows", "embed_scale", "embed_similarity"} <= set(figs)
    table = at.dataframe[0].value
    pieces = list(table["piece"])
    assert pieces[-1] == "</s>" and len(pieces) > 3
    # Ticks read as words (markup escaped for Plotly); the rows are named by position and piece (hover)
    assert figs["embed_rows"]["layout"]["yaxis"]["ticktext"] == token_labels(pieces)
    assert figs["embed_rows"]["data"][0]["y"] == token_labels(pieces, show_pieces=True)
    rows = array(figs["embed_rows"]["data"][0]["z"])
    assert rows.shape[0] == len(pieces)
    sim = array(figs["embed_similarity"]["data"][0]["z"])
    np.testing.assert_allclose(np.diag(sim), 1.0, atol=1e-6)
    sqrt_d = float(next(m for m in at.metric if m.label == "√d_model").value)
    assert sqrt_d == pytest.approx(rows.shape[1] ** 0.5, abs=1e-3)


def test_tokens_page_new_sentence_changes_the_tokens():
    at = open_page(TOKENS)
    before = list(at.dataframe[0].value["piece"])
    type_sentence(at, NEW_SENTENCE)
    after = list(at.dataframe[0].value["piece"])
    assert after != before and after[-1] == "</s>"
    assert charts(at)["embed_rows"]["layout"]["yaxis"]["ticktext"] == token_labels(after)


def test_tokens_page_similarity_switch_changes_the_vectors_compared():
    at = open_page(TOKENS)
    raw = array(charts(at)["embed_similarity"]["data"][0]["z"])
    at.radio(key="embed_compare").set_value(1).run()
    with_pe = array(charts(at)["embed_similarity"]["data"][0]["z"])
    assert raw.shape == with_pe.shape and not np.allclose(raw, with_pe)


def _similarity_text(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Cosine similarity compares"))


def test_tokens_page_reads_cosines_against_the_measured_vocabulary_baseline(monkeypatch):
    """The baseline (random vocabulary pairs, raw and centred) is measured, never written in: another
    measurement gives other words on the page."""
    from dataclasses import replace

    from ui import embeddings

    measured, seen = embeddings.vocabulary_similarity, []
    monkeypatch.setattr(embeddings, "vocabulary_similarity", lambda model_id: seen.append(measured(model_id))
                        or seen[-1])  # fmt: skip
    at = open_page(TOKENS)
    real, text = seen[-1], _similarity_text(at)
    assert f"**{real.raw:.2f}**" in text and f"**{real.centred:.2f}**" in text
    assert f"{real.along_mean:.2f}" in text and f"{real.rows:,} rows" in text and real.raw > real.centred
    other = replace(real, raw=0.1234, centred=0.0612, along_mean=0.4321)
    monkeypatch.setattr(embeddings, "vocabulary_similarity", lambda model_id: other)
    at.run()
    text = _similarity_text(at)
    assert "**0.12**" in text and "**0.06**" in text and "0.43" in text
    assert f"**{real.raw:.2f}**" not in text
    # whether a high cosine says little follows the baseline measured (0.07 on the shipped model)
    assert ("says little" in text) is False and "close to unrelated" in text
    monkeypatch.setattr(embeddings, "vocabulary_similarity", lambda model_id: replace(real, raw=0.55))
    at.run()
    assert "says little" in _similarity_text(at) and "close to unrelated" not in _similarity_text(at)


def test_tokens_page_offers_centred_embeddings_and_a_preset_with_a_repeated_piece():
    at = open_page(TOKENS)  # the default sentence repeats no piece: no "exactly 1" claim about it
    said = " ".join(m.value for m in at.markdown)
    assert "Your sentence repeats no piece" in said and "Your sentence has the piece" not in said
    raw = array(charts(at)["embed_similarity"]["data"][0]["z"])
    at.radio(key="embed_compare").set_value(2).run()  # centred: the mean row taken away
    centred = array(charts(at)["embed_similarity"]["data"][0]["z"])
    assert raw.shape == centred.shape and not np.allclose(raw, centred)
    assert centred[~np.eye(len(centred), dtype=bool)].mean() < raw[~np.eye(len(raw), dtype=bool)].mean()
    at.button(key="embed_repeat_preset").click().run()  # the offered preset, which repeats a piece
    assert not at.exception, [e.message for e in at.exception]
    pieces = list(at.dataframe[0].value["piece"])
    repeated = next(p for p in pieces if pieces.count(p) > 1)
    said = " ".join(m.value for m in at.markdown)
    assert "Your sentence has the piece" in said and "exactly 1" in said
    at.radio(key="embed_compare").set_value(0).run()
    sim = array(charts(at)["embed_similarity"]["data"][0]["z"])
    i, j = [k for k, p in enumerate(pieces) if p == repeated][:2]
    assert sim[i, j] == pytest.approx(1.0, abs=1e-6)


def test_positions_page_shows_table_curves_similarity_shift_and_shuffle():
    at = open_page(POSITIONS)
    figs = charts(at)
    assert {"pe_matrix", "pe_curves", "pe_similarity", "pe_shift_matrix", "pe_shift_scatter",
            "pe_noposition_plain", "pe_noposition_shuffled"} <= set(figs)
    pe = array(figs["pe_matrix"]["data"][0]["z"])
    assert pe[0, 1] == pytest.approx(1.0) and pe[0, 0] == pytest.approx(0.0)  # cos 0, sin 0
    metrics = {m.label: m.value for m in at.metric}
    shift_error = next(v for label, v in metrics.items() if label.startswith("largest |M_k"))
    assert float(shift_error) < 1e-5
    no_pe = next(v for label, v in metrics.items() if label.startswith("largest difference without PE"))
    assert float(no_pe) < 1e-5
    plain = figs["pe_noposition_plain"]["data"][0]
    shuffled = figs["pe_noposition_shuffled"]["data"][0]
    assert sorted(plain["y"]) == sorted(shuffled["y"]) and plain["y"] != shuffled["y"]
    # Same weights, rows and columns permuted: put the shuffled matrix back by its labels.
    idx = [shuffled["y"].index(label) for label in plain["y"]]
    z_shuffled = array(shuffled["z"])
    np.testing.assert_allclose(z_shuffled[np.ix_(idx, idx)], array(plain["z"]), atol=1e-5)


def test_positions_page_controls_change_the_figures():
    at = open_page(POSITIONS)
    m3 = array(charts(at)["pe_shift_matrix"]["data"][0]["z"])
    at.slider(key="pe_k").set_value(10).run()
    m10 = array(charts(at)["pe_shift_matrix"]["data"][0]["z"])
    assert m3.shape == m10.shape and not np.allclose(m3, m10)
    at.multiselect(key="pe_dims").set_value([4]).run()
    assert [trace["name"] for trace in charts(at)["pe_curves"]["data"]] == ["d4 (sin)"]
    shuffled = charts(at)["pe_noposition_shuffled"]["data"][0]["y"]
    at.number_input(key="pe_shuffle_seed").set_value(7).run()
    assert not at.exception
    assert sorted(charts(at)["pe_noposition_shuffled"]["data"][0]["y"]) == sorted(shuffled)


def test_positions_page_new_sentence_changes_the_tokens():
    at = open_page(POSITIONS)
    before = charts(at)["pe_noposition_plain"]["data"][0]["y"]
    type_sentence(at, NEW_SENTENCE)
    after = charts(at)["pe_noposition_plain"]["data"][0]["y"]
    assert after != before and after[-1].endswith("&lt;/s&gt;")


def test_step_by_step_page_shows_every_step_and_follows_layer_and_head():
    at = open_page(STEPS)
    figs = charts(at)
    assert {f"steps_{k}" for k in STEP_KEYS} <= set(figs) and "steps_masked" not in figs  # encoder
    assert "steps_masked" in charts(open_page(STEPS, stack="decoder", kind="self"))  # causal: it blocks
    pattern = array(figs["steps_pattern"]["data"][0]["z"])
    np.testing.assert_allclose(pattern.sum(axis=1), 1.0, atol=1e-4)
    # Rows = queries, columns = keys, stated on the matrix figures.
    assert "rows = queries" in figs["steps_pattern"]["layout"]["title"]["text"]
    at.slider(key="atlas_head").set_value(at.slider(key="atlas_head").value + 1).run()
    other_head = array(charts(at)["steps_pattern"]["data"][0]["z"])
    assert other_head.shape == pattern.shape and not np.allclose(other_head, pattern)
    at.slider(key="atlas_layer").set_value(at.slider(key="atlas_layer").min).run()
    other_layer = array(charts(at)["steps_pattern"]["data"][0]["z"])
    assert not np.allclose(other_layer, other_head)
    assert not at.exception


def test_step_by_step_page_decoder_self_attention_is_causal_and_cross_uses_source_keys():
    at = open_page(STEPS)
    source_labels = charts(at)["steps_pattern"]["data"][0]["x"]
    at.selectbox(key="atlas_stack").set_value("decoder").run()
    spec = charts(at)["steps_mask"]["data"][0]
    mask = array(spec["z"])
    assert np.isnan(mask[np.triu_indices(mask.shape[0], 1)]).all()  # future positions: −∞, a gap
    assert not np.isnan(mask[np.tril_indices(mask.shape[0])]).any()
    assert spec["y"][0].endswith("&lt;s&gt;")
    at.selectbox(key="atlas_kind").set_value("cross").run()
    cross = charts(at)["steps_pattern"]["data"][0]
    assert cross["x"] == source_labels and cross["y"][0].startswith("0:&lt;s&gt; → ")  # reads → writes


def test_step_by_step_page_follow_one_query():
    at = open_page(STEPS)
    box = next(s for s in at.selectbox if s.label.startswith("Follow one query"))
    assert "steps_journey" not in charts(at)
    box.set_value(1).run()
    figs = charts(at)
    assert "steps_journey" in figs
    assert figs["steps_pattern"]["layout"]["shapes"][0]["y0"] == 0.5
    np.testing.assert_allclose(array(figs["steps_journey"]["data"][1]["y"]),
                               array(figs["steps_pattern"]["data"][0]["z"])[1], atol=1e-4)
    # inside the followed query's dot products: the terms of each key's row add up to its score in QKᵀ
    terms, sums, q = (array(t["z"]) for t in figs["steps_neuron"]["data"])
    qk_row = array(figs["steps_qk"]["data"][0]["z"])[1]
    np.testing.assert_allclose(sums[:, 0], qk_row, rtol=1e-5)
    np.testing.assert_allclose(terms.sum(axis=1), qk_row, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(terms, array(figs["steps_neuron"]["data"][0]["customdata"]) * q[0], rtol=1e-5)
    assert q.shape == (1, terms.shape[1])
    assert figs["steps_neuron"]["layout"]["title"]["text"].startswith("Query ")


def test_the_browser_names_a_followed_query_as_the_server_does():
    """The titles the browser draws when another query is followed (the live component's data) are the
    ones the server draws for that query: escaped for Plotly, so the decoder's "<s>" stays visible."""
    at = open_page(STEPS)
    at.selectbox(key="atlas_stack").set_value("decoder").run()
    box = next(s for s in at.selectbox if s.label.startswith("Follow one query"))
    box.set_value(0).run()  # the decoder's first query: "<s>"
    live = json.loads(at.get("bidi_component")[0].proto.json)["query"]["figures"]
    drawn = charts(at)
    for key in ("steps_neuron", "steps_journey"):
        titles = live[key][1]["title.text"]["row"]
        assert titles[0] == drawn[key]["layout"]["title"]["text"], key
        assert "&lt;s&gt;" in titles[0] and "<s>" not in titles[0], key


def test_step_by_step_page_new_sentence_changes_the_tokens():
    at = open_page(STEPS)
    before = charts(at)["steps_qkv"]["data"][0]["y"]  # Q's panel
    type_sentence(at, NEW_SENTENCE)
    after = charts(at)["steps_qkv"]["data"][0]["y"]
    assert after != before and after[-1].endswith("&lt;/s&gt;")


@pytest.mark.parametrize("path", [TOKENS, POSITIONS, STEPS])
def test_bad_query_params_fall_back(path):
    at = open_page(path, layer="-5", head="abc", stack="xyz", kind="nope", s="")
    assert at.info  # empty sentence: a clear message, no exception
    at = open_page(path, layer="-5", head="abc", stack="xyz", kind="nope", zero="maybe")
    if path == STEPS:
        heading = at.subheader[0].value
        assert heading.startswith("encoder self-attention, layer 1 of") and "head 1 of" in heading
    else:
        assert charts(at)


def test_step_by_step_page_clamps_too_large_layer_and_head():
    at = open_page(STEPS, layer="99", head="99", stack="decoder", kind="cross")
    heading = at.subheader[0].value
    assert heading.startswith("decoder cross-attention, layer 6 of 6") and "head 8 of 8" in heading


def test_step_by_step_page_follows_the_first_of_a_repeated_word():
    """Streamlit 1.67 identifies a select box option by its text: two options reading "the" were one,
    and picking the first "the" followed the last. Repeats are numbered, and the pick holds."""
    at = open_page(STEPS, s="the dog saw the cat.")
    box = next(b for b in at.selectbox if b.key.startswith("steps_query_"))
    labels = list(box.options)  # as the reader sees them
    assert len(set(labels)) == len(labels) and "the (1)" in labels and "the (2)" in labels
    first = labels.index("the (1)") - 1  # options: [None, 0, 1, ...]
    box.set_value(first)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert next(b for b in at.selectbox if b.key.startswith("steps_query_")).value == first


def test_presenter_mode_draws_q_k_v_and_z_with_token_labels_a_projector_shows():
    """In presenter mode Q, K, V and Z each have a row of their own, and their cells grow to fill it:
    sized for a third of the page, their rows of 32 dimensions left the token labels at 9 px."""
    from ui.render import PRESENTER_FONT
    from viz.heatmap import TICK_FONT

    figs = charts(open_page(STEPS, present="1"))
    for key in ("steps_q", "steps_k", "steps_v", "steps_z"):
        assert figs[key]["layout"]["yaxis"]["tickfont"]["size"] >= round(TICK_FONT * PRESENTER_FONT), key


def test_positional_encoding_page_gives_the_last_pairs_wavelength_of_this_d_model():
    """2π · 10000^(254/256) ≈ 2π · 9,306 at d_model = 256 (by hand: e^(0.9921875 · ln 10000) = 9,306.0);
    the paper's 10000 · 2π is the limit, which the page said this model reaches."""
    said = " ".join(m.value for m in open_page(POSITIONS).markdown)
    assert "up to 2π · 10000^(254/256) ≈ 2π · 9,306 for the last pair of d_model = 256" in said
