"""AppTest on the multi-head attention, encoder layer, decoder & generation and paper figures pages.

They run on the shipped pretrained/ model and never depend on what the weights are, only on how
the pages react: charts present, a new layer/head changes the data, "Next token" extends the
decoded prefix by one, bad URL values fall back to defaults.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from charts import page_charts
from streamlit.testing.v1 import AppTest
from test_palette import caption_ends, hue_name

from analysis import heads
from transformer import decoding
from transformer.pretrained import Decoding, load_decoding
from ui import generation, uniform
from ui import model as model_io
from ui.presets import PRESETS
from ui.render import literal_markdown
from viz import grids
from viz.labels import plain, readable
from viz.palette import PALETTES, diverging_note

ROOT = Path(__file__).resolve().parents[1]
MULTI_HEAD = str(ROOT / "pages" / "Multi_head_attention.py")
ENCODER_LAYER = str(ROOT / "pages" / "Encoder_layer.py")
DECODER = str(ROOT / "pages" / "Decoder_and_generation.py")
PAPER_FIGURES = str(ROOT / "pages" / "Paper_figures.py")
TIMEOUT = 60
SENTENCE = "The cat sat on the mat."
# The sentence on which the paper figures page picks its heads.
FIGURES45 = PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]


@pytest.fixture(autouse=True, scope="module")
def short_translations():
    """Cap decoding at a few tokens so the greedy and beam translations are quick on any weights.

    An untrained model never says EOS, so decoding would run to the paper's limit (source length +
    50) and, with beam 4 on a busy 2-core CPU, take a minute. The pages' behaviour does not depend on
    the translation's length. The cache is shared by this module's tests (one translation of
    SENTENCE) and cleared before and after, so no shortened translation leaks into other tests.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoding, "default_max_len", lambda model, src_len: min(6, src_len + 50))
        st.cache_data.clear()
        yield
        st.cache_data.clear()


def open_page(path: str, **params: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    at.query_params["s"] = SENTENCE
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def charts(at: AppTest) -> dict[str, dict]:
    """Plotly specs by the key the page gave them (Streamlit ids end in '-<key>')."""
    return {e.proto.id.rsplit("-", 1)[-1]: json.loads(e.proto.spec) for e in at.get("plotly_chart")}


def array(value) -> np.ndarray:
    """A Plotly JSON array: a plain (nested) list or the typed-array form {'dtype', 'bdata', 'shape'}."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            data = data.reshape([int(s) for s in str(value["shape"]).split(",")])
        return data.astype(float)
    return np.asarray([np.nan if v is None else v for v in np.ravel(value)], dtype=float).reshape(
        np.shape(value)
    )


def z_of(spec: dict, trace: int = 0) -> np.ndarray:
    return array(spec["data"][trace]["z"])


def heads_of(grid: dict) -> np.ndarray:
    """A heads grid's weights head by head (H, T_q, T_k), taken out of its one matrix."""
    return grids.split(z_of(grid), grid["layout"]["meta"]["panels"])


def assert_changed(before: np.ndarray, after: np.ndarray) -> None:
    assert before.shape != after.shape or not np.allclose(before, after, equal_nan=True)


def test_multi_head_page_all_heads_head_view_model_view_and_concat():
    at = open_page(MULTI_HEAD)
    shown = charts(at)
    assert {"mh_grid", "mh_head_view", "mh_model_view", "mh_concat"} <= shown.keys()
    grid = shown["mh_grid"]
    assert len(grid["data"]) == 1 and len(heads_of(grid)) == 8  # one heatmap, a panel per head
    assert "rows = queries" in grid["layout"]["title"]["text"]
    assert len(shown["mh_model_view"]["data"]) == 6 * 8
    for head in heads_of(grid):  # softmax rows sum to 1, in every head's panel
        np.testing.assert_allclose(head.sum(axis=1), 1.0, atol=1e-4)
    before = heads_of(grid)[3]
    at.slider(key="atlas_layer").set_value(2)
    rerun(at)
    assert_changed(before, heads_of(charts(at)["mh_grid"])[3])
    assert at.query_params["layer"] == "2"


@pytest.mark.parametrize("name", list(PALETTES))
def test_multi_head_page_concat_caption_names_the_colours_its_figure_draws(name):
    """The caption's words for negative and positive are the ends of the figure's own colour scale."""
    at = open_page(MULTI_HEAD, palette=name)
    concat = charts(at)["mh_concat"]
    captions = [c.value for c in at.caption if "Black lines separate" in c.value]
    assert len(captions) == 1 and diverging_note(PALETTES[name]) in captions[0], captions
    low_word, high_word = caption_ends(captions[0])
    for axis in ("coloraxis", "coloraxis2"):  # concat and output share the first, W^O has the second
        scale = concat["layout"][axis]
        ends = (hue_name(scale["colorscale"][0][1]), hue_name(scale["colorscale"][-1][1]))
        assert ends == (low_word, high_word), (axis, ends)
        assert scale["cmid"] == 0 and scale["cmin"] == -scale["cmax"]
    assert [t["coloraxis"] for t in concat["data"][:3]] == ["coloraxis", "coloraxis2", "coloraxis"]


def test_multi_head_page_isolating_a_token_draws_only_its_lines():
    at = open_page(MULTI_HEAD)
    token = at.selectbox(key="mh_token")
    assert token.options[0] == "all tokens"
    assert token.options[-1] == "</s>"  # a select box shows plain text, not escaped markup
    token.set_value(1)
    rerun(at)
    spec = charts(at)["mh_head_view"]
    markers = [t for t in spec["data"] if t.get("mode") == "markers"]
    assert markers
    for t in markers:
        assert set(array(t["customdata"])[:, 0].astype(int)) == {1}


@pytest.mark.parametrize(("stack", "kind", "first_word"), [("encoder", "self", 0), ("decoder", "cross", 1)])
def test_multi_head_page_head_view_opens_on_one_query(stack, kind, first_word):
    """Readable at first sight: the lines of one query (the first word, not <s>), every head drawn."""
    at = open_page(MULTI_HEAD, stack=stack, kind=kind)
    token = at.selectbox(key="mh_token")
    assert token.value == first_word
    spec = charts(at)["mh_head_view"]
    markers = [t for t in spec["data"] if t.get("mode") == "markers"]
    assert len(markers) == 8  # one column of points per head, all from the one query
    for t in markers:
        assert set(array(t["customdata"])[:, 0].astype(int)) == {first_word}
    token.select_index(0)  # "all tokens": the whole picture is still there
    rerun(at)
    markers = [t for t in charts(at)["mh_head_view"]["data"] if t.get("mode") == "markers"]
    assert len(markers) == 8 and all(not t.get("text") for t in markers)  # legend only: every line drawn


def test_multi_head_page_decoder_cross_attention_has_source_columns():
    at = open_page(MULTI_HEAD, stack="decoder", kind="cross")
    grid = charts(at)["mh_grid"]
    n_src = grid["layout"]["meta"]["panels"]["size"][1]
    keys = grid["data"][0]["x"][:n_src]  # the first panel's columns
    assert keys[0].startswith("0:") and keys[-1].endswith(readable("</s>"))
    assert heads_of(grid).shape[2] == n_src and grid["data"][0]["x"][-1] == grids.PANEL_MARK * 2 + keys[-1]


def test_encoder_layer_page_stages_ffn_and_layer_changes():
    at = open_page(ENCODER_LAYER)
    shown = charts(at)
    assert {"enc_stage_heatmap", "enc_stage_norms", "enc_ffn_hidden", "enc_layer_changes"} <= shown.keys()
    hidden = z_of(shown["enc_ffn_hidden"])
    d_ff = json.loads((ROOT / "pretrained" / "config.json").read_text(encoding="utf-8"))["d_ff"]
    assert hidden.shape[1] == d_ff and (hidden >= 0).all()  # d_ff units after ReLU
    zeros = array(shown["enc_ffn_hidden"]["data"][1]["x"])
    np.testing.assert_allclose(zeros, (hidden == 0).mean(axis=1), atol=1e-6)
    assert any("%" in m.value for m in at.markdown)  # the share of zeros is stated
    before = z_of(shown["enc_stage_heatmap"])
    at.slider(key="atlas_layer").set_value(1)
    rerun(at)
    assert_changed(before, z_of(charts(at)["enc_stage_heatmap"]))
    before = z_of(charts(at)["enc_stage_heatmap"])
    at.radio(key="enc_stage").set_value(1)
    rerun(at)
    assert_changed(before, z_of(charts(at)["enc_stage_heatmap"]))


def decoded_prefix(at: AppTest) -> str:
    return next(t.value for t in at.text if t.value.startswith("Decoder input after"))


def test_decoder_page_next_token_extends_the_prefix_by_one_and_reset_clears_it():
    at = open_page(DECODER)
    assert {"dec_self", "dec_cross_avg", "dec_topk", "dec_step_cross"} <= charts(at).keys()
    # Figures behind a closed expander or tab are drawn only when opened (one tab at a time).
    assert not {"dec_cross_heads", "dec_step_self", "dec_step_layers", "dec_beam"} & charts(at).keys()
    at.session_state["dec_heads_open"] = at.session_state["dec_beam_open"] = True
    at.session_state["dec_rows"] = "Self-attention, this layer"
    shown = charts(rerun(at))
    assert {"dec_cross_heads", "dec_step_self", "dec_beam"} <= shown.keys()
    self_attn = z_of(shown["dec_self"])
    assert np.isnan(self_attn[np.triu_indices_from(self_attn, k=1)]).all()  # the causal mask is visible
    assert decoded_prefix(at).startswith("Decoder input after 0 step(s): <s>")
    step_self = z_of(shown["dec_step_self"])
    assert step_self.shape == (8, 1)  # one row per head, one key (<s>)
    top = array(shown["dec_topk"]["data"][0]["x"])
    assert (np.diff(top) <= 0).all() and top.sum() <= 1 + 1e-6
    chosen = plain(shown["dec_topk"]["data"][0]["customdata"][0])  # the bar reads as a word, hover: piece

    at.button(key="dec_next").click()
    rerun(at)
    after = decoded_prefix(at)
    assert after.startswith("Decoder input after 1 step(s): <s> ")
    assert after.split("<s> ", 1)[1] == chosen  # greedy appended the most probable token
    shown = charts(at)
    assert z_of(shown["dec_step_self"]).shape == (8, 2)  # the new query sees one more key
    assert_changed(step_self, z_of(shown["dec_step_self"]))

    at.button(key="dec_next").click()
    rerun(at)
    assert decoded_prefix(at).startswith("Decoder input after 2 step(s)")

    at.button(key="dec_reset").click()
    rerun(at)
    assert decoded_prefix(at).startswith("Decoder input after 0 step(s)")


def test_decoder_page_layer_and_head_change_the_data():
    at = open_page(DECODER)
    before_self = z_of(charts(at)["dec_self"])
    at.slider(key="atlas_head").set_value(4)
    rerun(at)
    assert_changed(before_self, z_of(charts(at)["dec_self"]))
    before_cross = z_of(charts(at)["dec_cross_avg"])
    at.slider(key="atlas_layer").set_value(1)
    rerun(at)
    assert_changed(before_cross, z_of(charts(at)["dec_cross_avg"]))
    assert at.query_params["stack"] == "decoder"


def test_decoder_page_beam_table_lists_candidates_best_first():
    """The beam table is Markdown (no Arrow script to load in a new session): a header, an alignment row,
    then one row per candidate, best first, the model's text escaped so that it shows as written."""
    at = open_page(DECODER)
    tables = [m.value for m in at.markdown if m.value.startswith("| rank |")]
    assert len(tables) == 1 and not at.table and not at.dataframe
    header, align, *rows = tables[0].splitlines()
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]
    columns = [c.strip() for c in header.split(" | ")]
    assert columns[-1].rstrip(" |") == literal_markdown("ended with </s>") != "ended with </s>"
    assert [int(r[0]) for r in cells] == list(range(1, len(rows) + 1)) and len(rows) >= 1
    scores = [float(r[4].replace("\\", "")) for r in cells]
    assert scores == sorted(scores, reverse=True)
    alpha = load_decoding(ROOT / "pretrained").alpha
    for row, score in zip(cells, scores, strict=True):  # a reader can check a row by hand
        length, log_p = int(row[2]), float(row[3].replace("\\", ""))
        assert score == pytest.approx(log_p / ((5 + length) / 6) ** alpha, abs=1e-4)
    for row in cells:
        assert row[1].count(".") == row[1].count("\\.")  # every full stop in the translation escaped
        assert row[5] in ("yes", "no")


def test_decoder_page_says_how_beam_search_was_set_in_plain_words():
    """Words for a student in the paragraph; how a sweep chose the settings (scores, set names) only in
    an expander, and no expander for the paper's own settings."""
    at = open_page(DECODER)
    (paragraph,) = [m.value for m in at.markdown if m.value.startswith("Greedy decoding commits")]
    shipped = load_decoding(ROOT / "pretrained")
    settings, details = generation.beam_settings(shipped)
    assert paragraph.endswith(settings) and shipped.chosen_on not in paragraph
    for lab_word in ("BLEU", "chrF", "valid"):
        assert lab_word not in paragraph
    expanders = [e for e in at.expander if e.label.startswith("How these settings")]
    assert len(expanders) == (details is not None)
    if details:
        assert details in [c.value for c in at.caption]
    swept = Decoding(4, 1.8, "valid-everyday: largest BLEU + chrF, alpha 1.8 / 2.2 = 276.99 / 276.75")
    settings, details = generation.beam_settings(swept)
    assert "α = 1.8" in settings and "BLEU" not in settings and swept.chosen_on in details
    settings, details = generation.beam_settings(Decoding())
    assert "the paper's settings" in settings and details is None


def test_paper_figures_page_paper_figures_and_head_finder():
    at = open_page(PAPER_FIGURES)
    shown = charts(at)
    keys = {
        "paper_fig3",
        "paper_fig3_heatmap",
        "paper_fig4_top",
        "paper_fig4_bottom",
        "paper_fig5_0",
        "paper_fig5_1",
        "finder_best",
    }
    assert keys <= shown.keys()
    focus_layer, _ = paper_figures_focus()
    assert at.slider(key="paper_layer").value == focus_layer + 1  # the most focused layer, 1-based
    # Figure 3's default query is 'making'; its heatmap has one row per head.
    query = at.selectbox(key="paper_q3")
    assert query.format_func(query.value) == "making"  # as written: no ▁, no position
    assert z_of(shown["paper_fig3_heatmap"]).shape[0] == 8
    assert any("Input-Input Layer5" in m.value for m in at.markdown)
    # Head finder: 'its' -> 'Law' by default, ranked strongest first.
    table = at.dataframe[0].value
    weights = list(table["weight"])
    assert weights == sorted(weights, reverse=True) and len(table) == 10
    assert (
        at.selectbox(key="finder_query").format_func(at.selectbox(key="finder_query").value).endswith("its")
    )
    before = z_of(shown["paper_fig3_heatmap"])
    at.slider(key="paper_layer").set_value(5 if focus_layer != 4 else 2)  # the paper's layer 5, or another
    rerun(at)
    assert_changed(before, z_of(charts(at)["paper_fig3_heatmap"]))
    assert at.query_params["layer"] == str(at.slider(key="paper_layer").value)  # moved: now in the link


def test_paper_figures_page_can_use_the_sidebar_sentence():
    at = open_page(PAPER_FIGURES)
    before = charts(at)["paper_fig3_heatmap"]["data"][0]["x"]
    at.toggle(key="paper_own").set_value(True)
    rerun(at)
    after = charts(at)["paper_fig3_heatmap"]["data"][0]["x"]
    pieces = page_trace(SENTENCE).src_pieces  # the shipped tokenizer's: "▁cat", or "▁c" "at"
    assert after != before and after[1] == f"1:{pieces[1]}" and pieces[1].startswith("▁c")  # position, piece
    assert charts(at)["paper_fig3_heatmap"]["layout"]["xaxis"]["ticktext"][1] == pieces[1][1:]  # the word
    # no "making … more difficult" in it: no evidence of the paper's link drawn (the first two words were)
    assert "paper_fig3_best" in charts(open_page(PAPER_FIGURES)) and "paper_fig3_best" not in charts(at)


def test_paper_figures_page_head_finder_numbers_words_as_the_figures_number_tokens():
    """Words read as the figures' labels do: as written by default, by position and piece as an option."""
    at = open_page(PAPER_FIGURES)
    finder = at.selectbox(key="finder_query")
    labels = charts(at)["finder_best"]["data"][-1]["text"]  # the key column of the head view
    assert finder.format_func(finder.value) == "its" and finder.options[:2] == ["The", "Law"]
    at = open_page(PAPER_FIGURES, pieces="1")
    finder = at.selectbox(key="finder_query")
    name = finder.format_func(finder.value)
    position = int(name.split(":")[0])
    assert name == f"{position}:▁its"
    shown = charts(at)["finder_best"]["data"][-1]["text"]
    assert shown[position].endswith(f"{position}:▁its") and shown != labels


@pytest.mark.parametrize("page", [MULTI_HEAD, ENCODER_LAYER, DECODER, PAPER_FIGURES])
def test_bad_query_params_are_clamped(page):
    at = open_page(page, layer="99", head="-4", stack="bogus", kind="nope")
    assert not at.exception
    assert page_charts(at)
    if page != PAPER_FIGURES:
        assert at.slider(key="atlas_layer").value == 6  # clamped to the last layer, 1-based
    else:
        assert at.slider(key="paper_layer").value == 6  # the URL's layer, clamped, wins over the default
    if page == DECODER:
        assert at.slider(key="atlas_head").value == 1


def page_trace(sentence: str, target_ids=None):
    """The very trace the page reads (the same cached object: AppTest runs in this process); by default
    with the decoder reading what every page's decoder reads (the beam translation Home shows)."""
    model_id = model_io.loaded().model_id
    if target_ids is None:
        target_ids = model_io.decoder_input(model_id, sentence).ids
    return model_io.trace(model_id, sentence, target_ids=target_ids)


def paper_figures_focus() -> tuple[int, int]:
    return heads.most_focused(page_trace(FIGURES45, ()), "encoder", "self")


def infos(at: AppTest) -> list[str]:
    return [i.value for i in at.info]


def test_decoder_page_says_when_cross_attention_is_near_uniform():
    """Where the shipped model's cross-attention spreads a head evenly over the source, the page says
    so next to the figure instead of letting it pass for an alignment, and says nothing where the
    heads are focused (the wording itself is tested on synthetic traces in test_uniform.py)."""
    at = open_page(DECODER)
    trace = page_trace(SENTENCE)
    expected = uniform.note_text(trace, "decoder", "cross", 4)  # layer 5, the page's default
    shown = infos(at)
    if expected is None:
        assert not any("of layer 5" in t and t.endswith("no alignment to read here.") for t in shown)
    else:
        assert expected in shown
    every_layer = uniform.note_text(trace, "decoder", "cross", None)  # the layer-by-layer figure
    assert (every_layer is None) or (every_layer in shown)
    assert not any("an alignment" in h.value for h in at.header)  # the heading promises none


def test_paper_figures_page_opens_on_the_most_focused_layer_unless_the_url_names_one():
    focus_layer, focus_head = paper_figures_focus()
    at = open_page(PAPER_FIGURES)
    assert at.slider(key="paper_layer").value == focus_layer + 1
    caption = next(c.value for c in at.caption if "the paper's choice" in c.value)
    assert caption.startswith("Layer 5 is the paper's choice; the Figures 4–5 sentence's most focused "
                              f"head is layer {focus_layer + 1}, head {focus_head + 1} ")
    pair = at.multiselect(key=f"paper_fig5_heads_{focus_layer}").value
    assert pair[0] == focus_head  # Figure 5 starts from the focused head
    assert at.query_params["layer"] == str(focus_layer + 1)  # the link reproduces the view

    named = open_page(PAPER_FIGURES, layer="5")
    assert named.slider(key="paper_layer").value == 5
    assert "Showing the layer that you (or your link) picked" in next(
        c.value for c in named.caption if "the paper's choice" in c.value)
    trace = page_trace(FIGURES45, ())
    best_in_5 = uniform.heads_by_focus(trace, "encoder", "self", 4)[0]  # the layer's most focused head
    assert named.multiselect(key="paper_fig5_heads_4").value[0] == best_in_5
    note = uniform.note_text(trace, "encoder", "self", 4, best_in_5)
    assert note is None or note in infos(named)  # drawn near-uniform, it is called so
