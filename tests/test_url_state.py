"""A shared link reproduces the exact view: every page state that shapes a figure is in the URL.

For each page: open it, change its state (query token, decoder step, heads switched off, toggles,
sliders), read the URL the app wrote, open that URL in a fresh session, and compare. The new session
must show the same widget values and byte-for-byte the same figures. Bad values in such a link fall
back to the page's defaults.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from transformer import decoding
from ui.url_state import decode, encode

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "pages"
SENTENCE = "The cat sat on the mat."
TIMEOUT = 300
# The head inspector measures heads over a set of sentences; one PyTorch thread (tests/conftest.py).
pytestmark = [pytest.mark.timeout(900), pytest.mark.usefixtures("one_thread")]


@pytest.fixture(autouse=True, scope="module")
def short_translations():
    """Short greedy and beam translations (as in test_multi_head_layer_decoder_and_paper_pages.py): the
    state, not the text, matters."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoding, "default_max_len", lambda model, src_len: min(6, src_len + 50))
        st.cache_data.clear()
        yield
        st.cache_data.clear()


def run(page: str, params: dict) -> AppTest:
    at = AppTest.from_file(str(PAGES / page), default_timeout=TIMEOUT)
    at.query_params.update(params)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def widget(at: AppTest, kind: str, key: str):
    """The widget of this kind whose key is `key`, or starts with `key` when it ends in '*'."""
    if key.endswith("*"):
        return next(w for w in getattr(at, kind) if (w.key or "").startswith(key[:-1]))
    return getattr(at, kind)(key=key)


def figures(at: AppTest) -> dict[str, str]:
    return {e.proto.id.rsplit("-", 1)[-1]: e.proto.spec for e in at.get("plotly_chart")}


# page -> [(widget kind, key, new value, URL parameter it must write)]
CASES = {
    "Tokens_and_embeddings.py": [("radio", "embed_compare", 1, "compare")],
    "Positional_encoding.py": [
        ("slider", "pe_positions", 20, "positions"),
        ("multiselect", "pe_dims", [2, 3], "dims"),
        ("slider", "pe_k", 7, "k"),
        ("toggle", "pe_whole_matrix", True, "whole"),
        ("number_input", "pe_shuffle_seed", 5, "shuffle"),
        ("slider", "atlas_head", 3, "head"),
    ],
    "Attention_step_by_step.py": [
        ("slider", "atlas_head", 4, "head"),
        ("selectbox", "steps_query_*", 2, "q"),
        ("toggle", "atlas_contrast", True, "contrast"),
    ],
    "Multi_head_attention.py": [
        ("multiselect", "mh_heads", [0, 2], "heads"),
        ("selectbox", "mh_token", None, "tok"),
        ("selectbox", "atlas_kind", "self", "kind"),
    ],
    "Encoder_layer.py": [("slider", "atlas_layer", 2, "layer"), ("radio", "enc_stage", 2, "stage")],
    "Paper_figures.py": [
        ("selectbox", "paper_q3", 1, "q3"),
        ("selectbox", "paper_fig4_full", 3, "full"),
        ("multiselect", "paper_fig4_iso", [1, 4], "iso"),
        ("selectbox", "finder_query", 2, "fq"),
        ("selectbox", "finder_key", 0, "fk"),
        ("toggle", "paper_own", True, "own"),
    ],
    "Worked_examples.py": [
        ("text_area", "wk_v", "1 2\n3 4", "v"),
        ("text_input", "wk_scores", "3 1", "scores"),
        ("slider", "wk_factor", 9, "factor"),
        ("text_input", "wk_ln", "1 2 3", "ln"),
        ("selectbox", "wk_heads", 4, "h"),
        ("select_slider", "wk_d", 1024, "d"),
        ("slider", "wk_r", 40, "r"),
    ],
    "Head_inspector.py": [
        ("selectbox", "hi_stat", "distance", "stat"),
        ("multiselect", "hi_ablate", ["decoder.cross.5.0", "encoder.self.0.3"], "off"),
        ("slider", "hi_step", 1, "pos"),
        ("text_input", "hi_compare_a", "The dog ran home.", "a"),
    ],
}


@pytest.mark.parametrize("page", list(CASES))
def test_a_shared_link_reproduces_the_view(page):
    at = run(page, {"s": SENTENCE})
    cases = list(CASES[page])
    for kind, key, value, _ in cases:
        widget(at, kind, key).set_value(value)
    at.run()  # one rerun, as after the reader changed them one by one
    assert not at.exception, [e.message for e in at.exception]
    for i, (kind, key, value, param) in enumerate(cases):
        if kind == "selectbox" and isinstance(value, int) and param not in at.query_params:
            # the value is the page's default for this model and these settings (the paper figures
            # page's head for Figure 4 is the best-ranked one), and a link keeps only what differs: pick
            # the next
            value = (value + 1) % len(widget(at, kind, key).options)
            widget(at, kind, key).set_value(value)
            cases[i] = (kind, key, value, param)
            at.run()
    link = dict(at.query_params)
    for kind, key, value, param in cases:
        assert param in link, f"{key} is not in the URL: {link}"
        assert widget(at, kind, key).value == value
    shared = run(page, link)
    for kind, key, value, _ in cases:
        assert widget(shared, kind, key).value == value, key
    assert figures(shared) == figures(at)
    assert dict(shared.query_params) == link


def test_a_link_reproduces_the_decoder_step():
    at = run("Decoder_and_generation.py", {"s": SENTENCE})
    for _ in range(2):
        at.button(key="dec_next").click()
        at.run()
    link = dict(at.query_params)
    assert link["tokens"] == "2"
    shared = run("Decoder_and_generation.py", link)
    assert figures(shared) == figures(at)
    assert [t.value for t in shared.text] == [t.value for t in at.text]  # "Decoder input after 2 step(s)"


@pytest.mark.parametrize(
    ("page", "params", "key", "kind", "expected"),
    [
        ("Attention_step_by_step.py", {"q": "999"}, "steps_query_*", "selectbox", None),
        ("Attention_step_by_step.py", {"q": "x"}, "steps_query_*", "selectbox", None),
        ("Multi_head_attention.py", {"heads": "1,99"}, "mh_heads", "multiselect", list(range(8))),
        ("Multi_head_attention.py", {"heads": "none"}, "mh_heads", "multiselect", []),
        ("Positional_encoding.py", {"k": "-4"}, "pe_k", "slider", 1),
        ("Positional_encoding.py", {"dims": "1,2,3,4,5,6,7,8,9,10"}, "pe_dims", "multiselect",
         [1, 2, 3, 4, 5, 6, 7, 8]),
        ("Head_inspector.py", {"off": "decoder.cross.99.0"}, "hi_ablate", "multiselect", []),
        ("Head_inspector.py", {"stat": "<script>"}, "hi_stat", "selectbox", "entropy"),
    ],
)
def test_bad_page_state_in_a_link_falls_back(page, params, key, kind, expected):
    at = run(page, {"s": SENTENCE, **params})
    assert widget(at, kind, key).value == expected


def test_a_link_with_a_decoder_step_past_the_end_stops_at_the_end():
    at = run("Decoder_and_generation.py", {"s": SENTENCE, "tokens": "500"})
    n = int(at.query_params["tokens"])  # the whole greedy output (and its </s>), no more
    assert 0 < n < 500 and any(f"after {n} step(s)" in t.value for t in at.text)


@pytest.mark.parametrize(
    ("value", "default", "options", "offset", "expected"),
    [
        ([0, 2], [], [0, 1, 2], 1, "1,3"),
        (None, 0, [None, 0], 0, "all"),
        ([], [1], [0, 1], 0, "none"),
        (True, False, None, 0, "1"),
        ("quick set", "x", ["quick set", "x"], 0, "quick set"),
    ],
)
def test_encode_and_decode_are_inverse(value, default, options, offset, expected):
    assert encode(value, offset) == expected
    assert decode(expected, default, options, offset) == value
