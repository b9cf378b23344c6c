"""A page's own default layer and head stay on that page.

The paper figures and the head inspector open on the sentence's most focused head. That default used
to be written into the session's shared selection, so the step-by-step and decoder pages then opened
on it too (head 7 instead of head 1). Only what the reader picks is shared between pages.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analysis import heads
from transformer import decoding
from ui.state import KEY, Selection

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120
FOCUS = (1, 3)  # 0-based: layer 2, head 4, the paper's layer 5 and head 1 are (4, 0)


@pytest.fixture()
def app(monkeypatch) -> AppTest:
    """app.py on a short sentence, with the most focused head of any grid forced to FOCUS (so the page
    default differs from the shared default whatever the shipped weights are) and short translations."""
    monkeypatch.setattr(heads, "lowest", lambda grid: FOCUS)
    monkeypatch.setattr(decoding, "default_max_len", lambda model, src_len: min(6, src_len + 50))
    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params["s"] = "The cat sat on the mat."
    yield at
    st.cache_data.clear()


def _open(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_the_paper_figures_default_does_not_become_the_other_pages_default(app):
    at = _open(app, "pages/Paper_figures.py")
    assert at.slider(key="paper_layer").value == FOCUS[0] + 1  # the page opens on its own default
    assert at.query_params["layer"] == str(FOCUS[0] + 1)  # and its link shows the same view
    shared = at.session_state[KEY]
    assert (shared.layer, shared.head, shared.chosen) == (Selection().layer, Selection().head, frozenset())

    at = _open(at, "pages/Attention_step_by_step.py")
    assert (at.slider(key="atlas_layer").value, at.slider(key="atlas_head").value) == (5, 1)
    assert at.query_params["layer"] == "5" and at.query_params["head"] == "1"

    at = _open(at, "pages/Decoder_and_generation.py")
    assert (at.slider(key="atlas_layer").value, at.slider(key="atlas_head").value) == (5, 1)


def test_what_the_reader_picks_is_shared(app):
    at = _open(app, "pages/Paper_figures.py")
    at.slider(key="paper_layer").set_value(3).run()
    assert not at.exception
    at = _open(at, "pages/Attention_step_by_step.py")
    assert at.slider(key="atlas_layer").value == 3  # the reader's layer follows them
