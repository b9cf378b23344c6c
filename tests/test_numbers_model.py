"""The shipped numbers model: its checksum matches its card, its outputs on fixed phrases are the
right answers (the grammar's, checked against num2words and by hand in tests/test_numbers.py), and
the one command that made it runs end to end on a small corpus."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tasks.numbers import grammar
from transformer.decoding import beam_search, greedy_decode
from transformer.inputs import encode_source
from transformer.pretrained import file_sha256, load_pretrained, snapshot_steps
from ui.presets import NUMBER_PRESETS

ROOT = Path(__file__).resolve().parents[1]
NUMBERS = ROOT / "pretrained" / "numbers"
# Presets, and one phrase of each form the card calls out; outputs read and checked by hand.
PHRASES = [*NUMBER_PRESETS.values(), "one cat", "one apple", "at one o'clock", "at half past twelve",
           "on the thirty-first of December nineteen ninety-nine"]  # fmt: skip


@pytest.fixture(scope="module")
def shipped():
    return load_pretrained(NUMBERS)


def test_weights_checksum_matches_the_model_card():
    card = (NUMBERS / "MODEL_CARD.md").read_text(encoding="utf-8")
    match = re.search(r"model\.safetensors.*?sha256[^0-9a-f]*([0-9a-f]{64})", card, re.S)
    assert match and file_sha256(NUMBERS / "model.safetensors") == match.group(1)
    assert snapshot_steps(NUMBERS) == [0, 50, 100, 200, 500, 1000]
    assert (NUMBERS / "heldout" / "test.en").is_file()


@pytest.mark.parametrize("phrase", PHRASES)
def test_shipped_outputs_are_the_right_answers(shipped, phrase):
    src = encode_source(shipped.tokenizer, phrase)
    right = grammar.parse(phrase).target
    assert shipped.tokenizer.decode(greedy_decode(shipped.model, src.ids).ids) == right
    best = beam_search(shipped.model, src.ids, beam_size=4, alpha=0.6)[0]
    assert shipped.tokenizer.decode(best.ids) == right


def test_the_one_command_trains_and_exports(tmp_path):
    """`python -m training.numbers.train` on a 2% corpus for 3 steps: data, tokenizer, training
    with milestone weights, export with snapshots and held-out phrases, then the evaluate CLI."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    model = tmp_path / "model"
    subprocess.run(
        [sys.executable, "-m", "training.numbers.train", "--out", str(model), "--corpus",
         str(tmp_path / "data"), "--run", str(tmp_path / "run"), "--steps", "3", "--threads", "1",
         "--data-scale", "0.02"],
        check=True, env=env, cwd=tmp_path, capture_output=True, timeout=300,
    )  # fmt: skip
    lm = load_pretrained(model)
    assert lm.model.config.n_layers == 3 and lm.model.config.d_model == 64
    assert snapshot_steps(model) == [0]  # the milestones reached in 3 steps
    out = tmp_path / "eval.json"
    subprocess.run(
        [sys.executable, "-m", "training.evaluate", "--model", str(model), "--limit", "4", "--beam", "0",
         "--out", str(out)],
        check=True, env=env, cwd=tmp_path, capture_output=True, timeout=300,
    )  # fmt: skip
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["corpus"] == str(model / "heldout") and result["sentences"] == 4
    assert 0 <= result["greedy"]["exact_match"] <= 100
    assert result["gold_alignment"]["sentences"] == 4  # held-out phrases are all in the grammar
