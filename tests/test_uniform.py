"""The near-uniform notes and the most-focused default (ui/uniform.py) on hand-made attention patterns.

The tiny model's softmax weights are replaced through hook edits (as in test_analysis_heads.py), so
which head is uniform and which is focused is known exactly.
"""

from __future__ import annotations

import pytest
import torch

from analysis import heads
from transformer.trace import run_trace
from ui import uniform
from ui.state import Selection

SRC, TGT = [5, 6, 7, 8, 3], [2, 9, 10]  # 5 source tokens, 3 decoder positions
UNIFORM = "uniform"


def _pattern(*per_head):
    """An edit giving head h all its weight on key per_head[h], or equal weights if it is UNIFORM."""

    def edit(pattern: torch.Tensor) -> torch.Tensor:  # (B, H, T_q, T_k)
        out = torch.zeros_like(pattern)
        for h, what in enumerate(per_head):
            if what == UNIFORM:
                out[:, h] = 1.0 / pattern.size(-1)
            else:
                out[:, h, :, what] = 1.0
        return out

    return edit


def _trace(tiny_model, layer0, layer1, stack="decoder", kind="cross"):
    name = f"{stack}.layers.{{}}.{kind}_attn.hook_pattern"
    edits = {name.format(0): _pattern(*layer0), name.format(1): _pattern(*layer1)}
    return run_trace(tiny_model, SRC, TGT, list("abcde"), list("xyz"), edits=edits)


def test_a_focused_head_gets_no_note_and_a_uniform_head_gets_one(tiny_model):
    trace = _trace(tiny_model, (2, 3), (UNIFORM, 2))  # layer 2 (1-based): head 1 uniform, head 2 focused
    assert uniform.note_text(trace, "decoder", "cross", 1, 1) is None
    assert uniform.note_text(trace, "decoder", "cross", 0, 0) is None
    assert uniform.note_text(trace, "decoder", "cross", 1, 0) == (
        "Head 1 of layer 2 spreads its weight almost evenly over the 5 source tokens (evenness 1.00, where 1 "
        "is a perfectly even spread): there is no alignment to read here."
    )
    zero_based = uniform.note_text(trace, "decoder", "cross", 1, 0, offset=0)
    assert zero_based.startswith("Head 0 of layer 1 spreads its weight")


def test_notes_for_a_layer_some_heads_and_every_layer(tiny_model):
    trace = _trace(tiny_model, (2, 3), (UNIFORM, 2))
    assert uniform.note_text(trace, "decoder", "cross", 0) is None  # both heads of layer 1 focused
    assert uniform.note_text(trace, "decoder", "cross", 1) == (
        "Head 1 of layer 2 spreads its weight almost evenly over the 5 source tokens (evenness 1.00, where 1 "
        "is a perfectly even spread): there is no alignment to read in its picture."
    )
    assert uniform.note_text(trace, "decoder", "cross", 1, [1]) is None  # the figure draws head 2 only
    assert uniform.note_text(trace, "decoder", "cross", None).startswith(
        "1 of the 4 heads spreads its weight almost evenly over the 5 source tokens")

    flat = _trace(tiny_model, (2, 3), (UNIFORM, UNIFORM))
    assert uniform.note_text(flat, "decoder", "cross", 1) == (
        "Every head of layer 2 spreads its weight almost evenly over the 5 source tokens (evenness 1.00, "
        "where 1 is a perfectly even spread): there is no alignment to read here."
    )
    assert uniform.note_text(flat, "decoder", "cross", None) == (
        "2 of the 4 heads spread their weight almost evenly over the 5 source tokens (evenness above 0.95, "
        "where 1 is a perfectly even spread), among them every head of layer 2: there is no alignment to "
        "read in those heads."
    )
    everywhere = _trace(tiny_model, (UNIFORM, UNIFORM), (UNIFORM, UNIFORM))
    assert uniform.note_text(everywhere, "decoder", "cross", None).startswith(
        "Every head of every layer spreads its weight almost evenly")


def test_self_attention_notes_speak_of_patterns_not_alignments(tiny_model):
    trace = _trace(tiny_model, (UNIFORM, 0), (1, 2), stack="encoder", kind="self")
    text = uniform.note_text(trace, "encoder", "self", 0, 0)
    assert text == ("Head 1 of layer 1 spreads its weight almost evenly over the 5 tokens of the sentence "
                    "(evenness 1.00, where 1 is a perfectly even spread): there is no pattern to read here.")
    assert "alignment" not in uniform.note_text(trace, "encoder", "self", 0)


def test_the_grid_is_measured_once_per_trace(tiny_model):
    trace = _trace(tiny_model, (2, 3), (UNIFORM, 2))
    first = uniform.grid(trace, "decoder", "cross")
    assert uniform.grid(trace, "decoder", "cross") is first
    torch.testing.assert_close(first, heads.broadness_grid(trace, "decoder", "cross"))
    other = _trace(tiny_model, (UNIFORM, UNIFORM), (UNIFORM, UNIFORM))
    assert not torch.equal(uniform.grid(other, "decoder", "cross"), first)


GRID = torch.tensor([  # (L=3, H=3) broadness; the most focused head is layer 1, head 2 (0-based)
    [0.9, 0.8, 0.7],
    [0.6, 0.5, 0.1],
    [0.99, 0.3, float("nan")],
])


@pytest.mark.parametrize("chosen, sel_at, expected", [
    ((), (0, 0), (1, 2)),  # nothing named: the most focused head
    (("layer",), (2, 0), (2, 1)),  # a named layer: its most focused head (NaN never wins)
    (("head",), (0, 0), (1, 0)),  # a named head: the layer where it is most focused
    (("layer", "head"), (0, 0), (0, 0)),  # both named: exactly those
])
def test_default_pick_keeps_what_the_reader_named(chosen, sel_at, expected):
    sel = Selection(layer=sel_at[0], head=sel_at[1], chosen=frozenset(chosen))
    focus = (int(GRID.nan_to_num(2.0).argmin()) // 3, int(GRID.nan_to_num(2.0).argmin()) % 3)
    assert uniform.default_pick(GRID, focus, sel) == expected


def test_focus_caption_names_the_paper_layer_and_the_focused_head(tiny_model):
    trace = _trace(tiny_model, (UNIFORM, 0), (1, 2), stack="encoder", kind="self")
    focus = heads.most_focused(trace, "encoder", "self")
    assert focus == (0, 1)
    text = uniform.focus_text(Selection(), trace, "encoder", "self", focus)
    assert text.startswith("Layer 5 is the paper's choice; this sentence's most focused head is layer 1, "
                           "head 2 (evenness 0.00: 0 = all weight on one key")
    assert "opens there" in text
    named_layer = Selection(layer=1, chosen=frozenset({"layer"}))
    named = uniform.focus_text(named_layer, trace, "encoder", "self", focus)
    assert "Showing the layer that you (or your link) picked" in named
    zero = uniform.focus_text(Selection(one_based=False), trace, "encoder", "self", focus)
    assert zero.startswith("Layer 4 is the paper's choice") and "layer 0, head 1" in zero
