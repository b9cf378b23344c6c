"""The alignment screen of the model card (analysis.decoding.cross_alignment)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from analysis.decoding import cross_alignment


def test_a_diagonal_sweep_is_clean():
    # token i looks at source i, nothing on the last source position (</s>): (T=5, S=6)
    weights = torch.cat([torch.eye(5), torch.zeros(5, 1)], dim=1)
    a = cross_alignment(weights)
    assert a.argmax == [0, 1, 2, 3, 4]
    assert a.monotonic == pytest.approx(1.0) and a.on_end == 0.0 and a.clean


def test_attention_parked_on_the_end_token_is_not_clean():
    weights = torch.full((4, 5), 0.05)
    weights[:, -1] = 0.8  # every token looks at </s>
    a = cross_alignment(weights)
    assert a.argmax == [4, 4, 4, 4] and a.monotonic == 0.0
    assert a.on_end == pytest.approx(0.8) and not a.clean


def test_a_backwards_sweep_is_negative():
    weights = torch.eye(4).flip(0)  # token i looks at source 3 - i
    a = cross_alignment(torch.cat([weights, torch.zeros(4, 1)], dim=1))
    assert a.monotonic == pytest.approx(-1.0) and not a.clean


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError):
        cross_alignment(torch.ones(3))
    with pytest.raises(ValueError):
        cross_alignment(torch.ones(3, 0))


def test_samples_command_prints_one_row_per_sentence(tmp_path, capsys):
    """The card's sample table, on the shipped model and a two-line corpus written here."""
    from training import samples

    (tmp_path / "mini.en").write_text("The house is small.\nI like it.\n", encoding="utf-8")
    (tmp_path / "mini.de").write_text("Das Haus ist klein.\nMir gefällt es.\n", encoding="utf-8")
    shipped = Path(__file__).resolve().parents[1] / "pretrained"
    text = samples.main(["--model", str(shipped), "--corpus", str(tmp_path), "--split", "mini", "--n", "2"])
    rows = [line for line in text.splitlines() if line.startswith("| ") and "English" not in line]
    assert len(rows) == 2
    assert rows[0].startswith("| The house is small. |") and "| Das Haus ist klein. |" in rows[0]
    assert "of 2 pass the screen" in text
    assert capsys.readouterr().out.strip() == text.strip()
