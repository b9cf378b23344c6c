"""The app's shared caches, and what every page sends to the browser.

Traces live in a resource cache (`ui.model.trace`): every rerun and every session gets the very same
object, so a page that wrote into one would corrupt it for everybody. These tests draw every page
and then compare the cached trace, tensor by tensor, with a fresh one. They also check each page's
figure payload for the default sentence (at most 1 MB per page, for a school's link) and the slimmed traces.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch
from server import CAP_SENTENCE, discover_pages, figure_elements
from streamlit.testing.v1 import AppTest

from transformer.trace import run_trace
from ui import model as model_io
from ui.state import DEFAULT_SENTENCE

ROOT = Path(__file__).resolve().parents[1]
PAGES = [p.script for p in discover_pages()]  # app.py (the home page), then each page file
MAX_PAYLOAD = 1_000_000  # bytes of figure specs per page (bench/README.md's target)


def figure_bytes(at: AppTest) -> int:
    """Bytes of the figure specs a run sends: Plotly's, and Vega-Lite's (the home page's Figure 1)."""
    return sum(len(c.proto.spec.encode()) for c in figure_elements(at))


def fresh_trace(sentence: str):
    """The trace of `sentence` that the pages draw (the decoder reads the default decoder input, the beam
    translation Home shows) computed now, outside every cache."""
    lm = model_io.loaded_or_none()
    target = model_io.decoder_input(lm.model_id, sentence).ids
    src = model_io.source(sentence)
    tgt_pieces = ["<s>", *(lm.tokenizer.id_to_piece(i) for i in target)]
    return run_trace(lm.model, src.ids, [lm.tokenizer.bos_id, *target], src.pieces, tgt_pieces)


@pytest.fixture(scope="module")
def drawn() -> dict[str, AppTest]:
    """Every page drawn once on the default sentence."""
    runs = {}
    for page in PAGES:
        at = AppTest.from_file(str(ROOT / page), default_timeout=120)
        at.run()
        assert not at.exception, (page, [e.message for e in at.exception])
        runs[page] = at
    return runs


@pytest.fixture(scope="module")
def drawn_pages(drawn) -> dict[str, int]:
    """Page -> bytes of its figure specs."""
    return {page: figure_bytes(at) for page, at in drawn.items()}


def test_every_page_writes_self_attention_and_cross_attention_with_the_hyphen(drawn):
    """One spelling on every page, as the paper writes them (the head inspector wrote "self attention")."""
    for page, at in drawn.items():
        kinds = ("markdown", "caption", "text", "subheader", "header", "info", "success", "warning")
        said = [e.value for kind in kinds for e in at.get(kind)]
        said += [c.proto.spec for c in figure_elements(at)]
        found = [t for t in said if re.search(r"\b(self|cross) attention", str(t))]
        assert not found, (page, found[:3])


def test_every_page_sends_at_most_1_mb_of_figures(drawn_pages):
    assert len(drawn_pages) >= 10
    drawing = [page for page, size in drawn_pages.items() if size > 0]
    assert len(drawing) >= 8, drawn_pages  # the payload really was measured
    too_big = {page: size for page, size in drawn_pages.items() if size > MAX_PAYLOAD}
    assert not too_big, too_big


ATTENTION_PAGES = ("Attention_step_by_step", "Multi_head_attention", "Encoder_layer",
                   "Decoder_and_generation")  # fmt: skip


def test_the_attention_pages_are_pages():
    assert {f"pages/{name}.py" for name in ATTENTION_PAGES} <= set(PAGES)  # the test below tests them


@pytest.mark.parametrize("page", [f"pages/{name}.py" for name in ATTENTION_PAGES])
def test_attention_pages_at_the_60_piece_cap_send_at_most_1_mb(page):
    at = AppTest.from_file(str(ROOT / page), default_timeout=120)
    at.query_params["s"] = CAP_SENTENCE
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("only the first 60 are used" in w.value for w in at.warning)  # the cap really applied
    assert 100_000 < figure_bytes(at) <= MAX_PAYLOAD  # measured (the attention figures are there)


def test_pages_never_write_into_the_shared_trace(drawn_pages):
    lm = model_io.loaded_or_none()
    cached = model_io.decoder_trace(lm.model_id, DEFAULT_SENTENCE, ("beam", ""))
    assert cached is model_io.decoder_trace(lm.model_id, DEFAULT_SENTENCE, ("beam", ""))  # one shared object
    fresh = fresh_trace(DEFAULT_SENTENCE)
    assert cached.names() == fresh.names() and len(cached.names()) > 100
    changed = [name for name in fresh.names() if not torch.equal(cached.tensors[name], fresh.tensors[name])]
    assert not changed, changed[:5]


def test_a_slim_trace_keeps_only_the_attention_weights_and_masks():
    lm = model_io.loaded_or_none()
    slim = model_io.trace(lm.model_id, DEFAULT_SENTENCE, keep=model_io.ATTENTION_ONLY)
    full = model_io.trace(lm.model_id, DEFAULT_SENTENCE)
    n = full.config.n_layers
    assert len(slim.names()) == 2 * 3 * n  # pattern + mask for encoder self, decoder self and cross
    assert all(name.endswith(("hook_pattern", "hook_mask")) for name in slim.names())
    for name in slim.names():
        assert torch.equal(slim.tensors[name], full.tensors[name])
    assert slim.src_pieces == full.src_pieces and slim.tgt_pieces == full.tgt_pieces


def test_translate_combines_the_cached_greedy_and_beam_results():
    lm = model_io.loaded_or_none()
    result = model_io.translate(lm.model_id, "The house is small.")
    assert result["greedy"] == model_io.greedy(lm.model_id, "The house is small.")
    assert result["beam"] == model_io.beam(lm.model_id, "The house is small.")
    assert 1 <= len(result["beam"]) <= 4
    assert model_io.translate(lm.model_id, "   ") == {"greedy": None, "beam": []}


def test_loading_the_shared_model_leaves_autograd_alone():
    """Loading happens in whichever thread asks first (a page, a test): it must not
    switch gradients off for that thread, only mark the shared weights as never trained."""
    model_io._load.clear()  # so that this thread really loads it
    assert torch.is_grad_enabled()
    lm = model_io.loaded_or_none()
    assert torch.is_grad_enabled()
    assert not any(p.requires_grad for p in lm.model.parameters())
