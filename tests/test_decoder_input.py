"""One German sentence everywhere: every page that draws the decoder draws it on the same decoder input.

By default that is the beam translation Home shows; the sidebar (and the link's `dec` and `prefix`) can
switch every page to the greedy translation or to a German prefix of the reader's own. The figures'
decoder labels are read from the Plotly JSON the pages send: a token axis is a list of categories
"position:piece" (a cross-attention row "position:read → written"), whose first is the start token.

Runs on the shipped model. The sentences are ones whose greedy and beam translations differ (checked
first), so that a page drawing the greedy output under the default fails.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
import torch
from streamlit.testing.v1 import AppTest

from ui.presets import PRESETS
from ui.state import DEFAULT_SENTENCE, parse_params, to_params

ROOT = Path(__file__).resolve().parents[1]
HOME, PAGES = ROOT / "app.py", ROOT / "pages"
DECODER, STEPS = PAGES / "Decoder_and_generation.py", PAGES / "Attention_step_by_step.py"
MULTI_HEAD, INSPECTOR = PAGES / "Multi_head_attention.py", PAGES / "Head_inspector.py"
TIMEOUT = 300
pytestmark = pytest.mark.timeout(900)
# Sentences whose greedy and beam translations differ on the shipped model (on the app's default sentence
# they agree), so that a figure drawing the wrong one fails.
DIFFERS = PRESETS["The animal … too wide"]
SENTENCES = [DIFFERS, PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]]
PREFIX = "Die Katze"
START = "<s>"


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The model runs in-process; one thread avoids oversubscribing a machine shared with other jobs."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def open_page(path: Path, sentence: str | None = None, session: dict | None = None, **params: str) -> AppTest:
    at = AppTest.from_file(str(path), default_timeout=TIMEOUT)
    if sentence is not None:
        at.query_params["s"] = sentence
    at.query_params.update(params)
    for key, value in (session or {}).items():
        at.session_state[key] = value
    return run(at)


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def home_translations(sentence: str | None) -> dict[str, str]:
    """{"greedy": …, "beam": …} as Home shows them, read from its translation columns."""
    at = open_page(HOME, sentence)
    found = {}
    for column in at.columns:
        heading = " ".join(m.value for m in column.markdown)
        for name, title in (("greedy", "**Greedy**"), ("beam", "**Beam search**")):
            if heading.startswith(title):
                found[name] = column.text[0].value
    assert found.keys() == {"greedy", "beam"}, found
    return found


def words(pieces: list[str]) -> str:
    """The text of SentencePiece pieces (`▁` starts a word), as the tokenizer writes it out."""
    return "".join(pieces).replace("▁", " ").strip()


def decoder_axes(fig: dict) -> list[list[str]]:
    """Every token axis of a figure that lists the decoder input (first category the start token),
    as the pieces each position reads (a cross-attention row "i:read → written" gives its read); a
    heads grid's axis once, as its first panel reads it."""
    axes = []
    panels = (fig["layout"].get("meta") or {}).get("panels")  # a heads grid: its first panel's tokens
    for trace in fig["data"]:
        for axis in ("x", "y"):
            values = trace.get(axis)
            if not isinstance(values, list) or not values or not isinstance(values[0], str):
                continue
            if panels:
                values = values[: panels["size"][axis == "x"]]
            reads = [html.unescape(v.split(":", 1)[-1].split(" → ")[0]).rstrip("\u200b") for v in values]
            if values[0].startswith("0:") and reads[0] == START:
                axes.append(reads)
    return axes


def charts(at: AppTest) -> dict[str, dict]:
    """Plotly specs by the key the page gave them (Streamlit ids end in '-<key>')."""
    return {e.proto.id.rsplit("-", 1)[-1]: json.loads(e.proto.spec) for e in at.get("plotly_chart")}


def assert_reads(at: AppTest, keys: tuple[str, ...], expected: list[str]) -> None:
    """Each figure named draws at least one decoder axis, and every decoder axis it draws is `expected`."""
    shown = charts(at)
    for key in keys:
        axes = decoder_axes(shown[key])
        assert axes, f"{key}: no decoder axis"
        for axis in axes:
            assert axis == expected, (key, axis, expected)


def decoder_figures(sentence: str | None, **params: str) -> dict[str, list[list[str]]]:
    """Page -> the decoder inputs its decoder figures draw (one list of pieces per figure), for every page
    that draws the decoder: the decoder page (cross-attention heads opened), the step-by-step page
    (decoder self- and cross-attention), the multi-head page and the head inspector's switching heads off
    (the pieces its decoder has read at the last position, and its rollout figure)."""
    at = open_page(DECODER, sentence, {"dec_heads_open": True}, **params)
    figs = charts(at)
    found = {"decoder": [a for key in ("dec_self", "dec_cross_avg", "dec_cross_heads")
                         for a in decoder_axes(figs[key])]}  # fmt: skip
    for kind in ("self", "cross"):
        at = open_page(STEPS, sentence, stack="decoder", kind=kind, **params)
        found[f"steps {kind}"] = [
            a for key in ("steps_qk", "steps_pattern", "steps_z") for a in decoder_axes(charts(at)[key])
        ]
    at = open_page(MULTI_HEAD, sentence, stack="decoder", kind="cross", **params)
    found["multi-head"] = [a for key in ("mh_grid", "mh_concat") for a in decoder_axes(charts(at)[key])]
    at = open_page(INSPECTOR, sentence, stack="decoder", kind="self", pos="999", **params)
    read = [t.value for t in at.text if t.value.startswith(START)]
    found["switch heads off"] = [read[-1].split(" ")] if read else []
    found["inspector"] = decoder_axes(charts(at)["hi_rollout"])
    return found


def assert_everywhere(found: dict[str, list[list[str]]], text: str) -> None:
    for page, axes in found.items():
        assert axes, f"{page}: no decoder labels"
        for pieces in axes:
            assert pieces[0] == START and words(pieces[1:]) == text, (page, pieces, text)


@pytest.mark.parametrize("sentence", SENTENCES, ids=["too wide", "figures 4-5"])
def test_every_decoder_figure_reads_the_translation_home_shows(sentence):
    home = home_translations(sentence)
    assert home["beam"] != home["greedy"]  # else drawing the greedy output would pass too
    assert_everywhere(decoder_figures(sentence), home["beam"])


def test_choosing_greedy_in_the_sidebar_draws_the_greedy_translation_and_keeps_it_in_the_link():
    home = home_translations(DIFFERS)
    assert home["beam"] != home["greedy"]
    at = open_page(DECODER, DIFFERS)
    assert at.radio(key="atlas_decoder").value == "beam"
    at.radio(key="atlas_decoder").set_value("greedy")
    run(at)
    assert at.query_params["dec"] == "greedy"
    axes = decoder_axes(charts(at)["dec_self"]) + decoder_axes(charts(at)["dec_cross_avg"])
    assert axes and all(words(a[1:]) == home["greedy"] for a in axes)
    assert_everywhere(decoder_figures(DIFFERS, dec="greedy"), home["greedy"])


def test_an_own_prefix_appears_in_every_decoder_figure():
    from transformer.pretrained import load_pretrained

    pieces = [START, *load_pretrained(ROOT / "pretrained").tokenizer.encode_pieces(PREFIX)]
    at = open_page(DECODER)
    at.radio(key="atlas_decoder").set_value("own")
    run(at)
    assert any("is empty" in w.value for w in at.warning)  # chosen, nothing typed yet
    at.text_input(key="atlas_prefix_box").input(PREFIX)
    run(at)
    assert (at.query_params["dec"], at.query_params["prefix"]) == ("own", PREFIX)
    assert not at.warning, [w.value for w in at.warning]
    at.session_state["dec_heads_open"] = True
    at.session_state["dec_rows"] = "Self-attention, this layer"
    run(at)
    assert_reads(at, ("dec_self", "dec_cross_avg", "dec_cross_heads", "dec_step_self"), pieces)
    # "Next token" starts after the prefix and continues it
    decoded = [t.value for t in at.text if t.value.startswith("Decoder input after")]
    start = f"of Next token from {len(pieces) - 1} token(s) of your own German prefix"
    assert decoded == [f"Decoder input after 0 step(s) {start}: {' '.join(pieces)}"]
    at.button(key="dec_next").click()
    run(at)
    decoded = next(t.value for t in at.text if t.value.startswith("Decoder input after"))
    assert decoded.startswith(f"Decoder input after 1 step(s) {start}: {' '.join(pieces)} ")
    assert_everywhere(decoder_figures(None, dec="own", prefix=PREFIX), words(pieces[1:]))


@pytest.mark.parametrize(
    ("prefix", "said"),
    [
        ("   ", "is empty"),
        ("Das " * 200, "more than the limit"),
        ("x " * 70, "pieces long"),
        ("Das Tier 😀 日本", "“😀”, “日本”"),
        ("*Das* [Tier](http://x) <b>😀</b>", "cannot encode"),
    ],
    ids=["empty", "too long", "too many pieces", "unknown pieces", "markup"],
)
def test_a_bad_prefix_gets_a_message_and_the_beam_translation(prefix, said):
    home = home_translations(None)
    at = open_page(DECODER, dec="own", prefix=prefix)
    warnings = [w.value for w in at.warning]
    assert not any("<b>" in w or "](" in w for w in warnings), warnings  # the reader's text shown as typed
    shown = [re.sub(r"\\(.)", r"\1", w) for w in warnings]  # as Markdown draws it: escapes dropped
    assert any(said in w and "beam translation" in w for w in shown), shown
    axes = decoder_axes(charts(at)["dec_self"]) + decoder_axes(charts(at)["dec_cross_avg"])
    assert axes and all(words(a[1:]) == home["beam"] for a in axes)
    assert any("could not be used" in c.value for c in at.caption)


@pytest.mark.parametrize("value", ["<script>", "OWN", "", "beam,greedy"])
def test_a_bad_decoder_choice_in_a_link_falls_back_to_the_beam_translation(value):
    home = home_translations(None)
    at = open_page(DECODER, dec=value, prefix="Die Katze")
    assert at.radio(key="atlas_decoder").value == "beam"
    assert not at.warning, [w.value for w in at.warning]
    axes = decoder_axes(charts(at)["dec_self"])
    assert axes and all(words(a[1:]) == home["beam"] for a in axes)
    assert "dec" not in at.query_params  # the link is rewritten to the choice it stands for


def test_the_choice_goes_through_the_link_and_back():
    for params in ({}, {"dec": "greedy"}, {"dec": "own", "prefix": PREFIX}):
        sel = parse_params(params, 6, 8)
        assert {k: v for k, v in to_params(sel).items() if k in ("dec", "prefix")} == params
    sel = parse_params({"dec": "greedy", "prefix": PREFIX}, 6, 8)
    assert sel.decoder_choice == ("greedy", "")  # a prefix counts only for "own"
    assert parse_params({"dec": ["own"]}, 6, 8).decoder == "beam"  # not text: the default
    assert parse_params({"dec": "own", "prefix": "x" * 5000}, 6, 8).prefix == "x" * 1000


def test_the_python_api_takes_the_same_choice():
    """`attention_atlas.decoder_input.trace`, for notebooks, reads what the app's pages read."""
    from attention_atlas import decoder_input
    from transformer.pretrained import load_pretrained

    lm = load_pretrained(ROOT / "pretrained")
    home = home_translations(DIFFERS)
    assert home["beam"] != home["greedy"]
    for choice, expected in (("beam", home["beam"]), ("greedy", home["greedy"])):
        trace, reads = decoder_input.trace(lm, DIFFERS, choice)
        assert trace.tgt_pieces[0] == START and words(trace.tgt_pieces[1:]) == expected
        assert reads.used == choice and reads.finished is True
    trace, reads = decoder_input.trace(lm, DEFAULT_SENTENCE, "own", PREFIX)
    assert trace.tgt_pieces == [START, *lm.tokenizer.encode_pieces(PREFIX)] and reads.finished is None
    assert decoder_input.trace(lm, DEFAULT_SENTENCE)[0].tgt_pieces == decoder_input.trace(
        lm, DEFAULT_SENTENCE, "beam")[0].tgt_pieces  # fmt: skip
    for bad in (("own", ""), ("own", "Tier 😀"), ("sampled", "")):
        with pytest.raises(ValueError):
            decoder_input.trace(lm, DEFAULT_SENTENCE, *bad)
