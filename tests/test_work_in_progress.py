"""Slow work says on the page what it computes: the model's queued work runs inside a spinner with words
("Translating…", "Tracing the model…"), which Streamlit shows after half a second, where the page asked
for it. Work already done shows none, and nothing is drawn outside a script run."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

from ui import turns

ROOT = Path(__file__).resolve().parents[1]
TOKENS = str(ROOT / "pages" / "Tokens_and_embeddings.py")  # traces the sentence (source side only)


def test_outside_a_script_run_the_work_draws_nothing():
    assert isinstance(turns.page_spinner("trace"), contextlib.nullcontext)


def test_new_work_runs_inside_a_spinner_that_names_it_and_done_work_does_not(monkeypatch):
    said: list[str] = []
    real = st.spinner

    def spinner(text, **kwargs):
        said.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(st, "spinner", spinner)
    at = AppTest.from_file(TOKENS, default_timeout=120)
    at.query_params["s"] = f"A sentence nobody traced before, number {uuid.uuid4().int % 10**9}."
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert turns.WORKING["trace"] in said
    said.clear()
    at.run()  # the same sentence: its trace is done and cached
    assert not at.exception, [e.message for e in at.exception]
    assert turns.WORKING["trace"] not in said
