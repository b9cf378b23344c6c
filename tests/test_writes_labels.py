"""Cross-attention rows say which token they write.

Under teacher forcing the decoder row that reads "Die" writes the next token: labelled by its input
alone, its cross-attention seems to look at the wrong English word. Every cross-attention view
labels rows "reads → writes". The pages are checked on the shipped model without knowing its
tokens: what each row reads and writes is read from the very trace the page draws.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from analysis.decoding import written_ids
from transformer import decoding
from transformer.trace import run_trace
from ui import inspector
from ui import model as model_io
from viz.labels import WRITES, plain, token_labels, word, writes_labels

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "The children play in the garden."
TIMEOUT = 120


# ---- the labels and what each row writes ----------------------------------------------------------


def test_rows_read_their_input_and_write_the_next_token():
    read = ["<s>", "▁Die", "▁Kinder", "▁spielen"]
    written = ["▁Die", "▁Kinder", "▁spielen", "</s>"]
    labels = writes_labels(read, written)
    assert [str(label) for label in labels] == [
        "&lt;s&gt; → Die", "Die → Kinder", "Kinder → spielen", "spielen → &lt;/s&gt;"]  # escaped for Plotly
    assert [label.hover for label in labels][1] == "1:▁Die → ▁Kinder"  # position and both pieces
    assert labels != token_labels(read)  # not the reading labels
    assert writes_labels(read, written, show_pieces=True)[2] == "2:▁Kinder → ▁spielen"


def test_rows_that_read_and_write_the_same_stay_distinct_and_unknown_reads_a_question_mark():
    labels = writes_labels(["<s>", "▁la", "▁la"], ["▁la", "▁la", None])
    assert plain(labels[1]) == "la → la" and labels[1] != labels[0]
    assert str(labels[2]) == "la → ?"
    assert len(set(writes_labels(["▁a", "▁a"], ["▁b", "▁b"]))) == 2  # same text, two categories
    with pytest.raises(ValueError):
        writes_labels(["<s>"], [])


def test_written_ids_follow_the_decoder_input_and_end_with_the_models_choice(tiny_model):
    cfg = tiny_model.config
    src, tgt = [5, 6, 7, cfg.eos_id], [cfg.bos_id, 8, 9, 10]
    trace = run_trace(tiny_model, src, tgt, list("abcd"), list("wxyz"))
    logits = trace.get("generator.hook_logits")  # (T, V)
    assert written_ids(trace) == [8, 9, 10, int(logits[-1].argmax())]
    slim = trace.only(("hook_pattern",))  # attention only: the last write is known only if finished
    assert written_ids(slim) == [8, 9, 10, None]
    assert written_ids(slim, finished=True) == [8, 9, 10, cfg.eos_id]


# ---- every cross-attention view -----------------------------------------------------------------


@pytest.fixture(scope="module", autouse=True)
def short_translations():
    """A few tokens of translation are enough to tell the labellings apart, and quick on any weights."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoding, "default_max_len", lambda model, src_len: min(6, src_len + 50))
        st.cache_data.clear()
        yield
        st.cache_data.clear()


def _open(page: str, **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / page), default_timeout=TIMEOUT)
    at.query_params.update({"s": SENTENCE, **params})
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _ticks(at: AppTest, key: str, axis: str = "yaxis") -> list[str]:
    """The tick labels of a chart's axis; of a heads grid, those of its first row of panels (the same
    labels stand left of every row: tests/test_readable.py)."""
    spec = next(json.loads(e.proto.spec) for e in at.get("plotly_chart") if e.proto.id.endswith(f"-{key}"))
    ticks = [plain(t) for t in spec["layout"][axis]["ticktext"]]
    panels = (spec["layout"].get("meta") or {}).get("panels")
    if not panels:
        return ticks
    first = ticks[: panels["size"][axis == "xaxis"]]
    assert ticks == first * panels["grid"][axis == "xaxis"]
    return first


def _expected(trace, last: str | None) -> list[str]:
    """'reads → writes' for the trace's rows, from its own pieces; `last`: what the last row writes."""
    written = [*trace.tgt_pieces[1:], last]
    return [plain(f"{word(r)}{WRITES}{'?' if w is None else word(w)}")
            for r, w in zip(trace.tgt_pieces, written)]


def _page_trace():
    lm = model_io.loaded()
    trace = model_io.decoder_trace(lm.model_id, SENTENCE, ("beam", ""))  # what the pages draw by default
    last = lm.tokenizer.id_to_piece(int(trace.get("generator.hook_logits")[-1].argmax()))
    return trace, last


def _differ(labels: list[str], trace) -> None:
    """The labels name the written token, so they are not the reading labels."""
    assert labels != [plain(t) for t in token_labels(trace.tgt_pieces)]
    assert all(label.split(WRITES)[1] == nxt.split(WRITES)[0] for label, nxt in zip(labels, labels[1:]))


def test_decoder_page_cross_attention_rows_say_what_they_write():
    at = _open("Decoder_and_generation.py")
    trace, last = _page_trace()
    labels = [t.replace("\u200b", "") for t in _ticks(at, "dec_cross_avg")]
    assert labels == _expected(trace, last)
    _differ(labels, trace)
    charts = {e.proto.id.rsplit("-", 1)[-1]: json.loads(e.proto.spec) for e in at.get("plotly_chart")}
    newest = charts["dec_step_cross"]
    assert "writes" in newest["layout"]["title"]["text"]  # the newest query's row names what it writes
    assert any("teacher forcing" in c.value for c in at.caption)
    self_labels = _ticks(at, "dec_self")  # self-attention rows keep the token they read
    assert self_labels == [plain(t) for t in token_labels(trace.tgt_pieces)]


@pytest.mark.parametrize("page", ["Attention_step_by_step.py", "Multi_head_attention.py"])
def test_cross_attention_pages_label_rows_by_what_they_write(page):
    at = _open(page, stack="decoder", kind="cross")
    trace, last = _page_trace()
    key = "steps_pattern" if page.startswith("Attention") else "mh_grid"
    labels = [t.replace("\u200b", "") for t in _ticks(at, key)]
    assert labels == _expected(trace, last)
    assert any("teacher forcing" in c.value for c in at.caption)


def test_head_inspector_cross_attention_rows_say_what_they_write():
    at = _open("Head_inspector.py", stack="decoder", kind="cross", layer="5", head="1")
    lm = model_io.loaded()
    trace = inspector.attention_trace(lm.model_id, SENTENCE, ("beam", ""))  # attention only: no logits
    finished = model_io.decoder_input(lm.model_id, SENTENCE).finished
    labels = [t.replace("\u200b", "") for t in _ticks(at, "hi_rollout")]
    assert labels == _expected(trace, "</s>" if finished else None)
    quiz = at.selectbox(key="hi_predict_query")
    assert WRITES in quiz.options[1]  # the quiz names its query rows the same way
