"""Model cards read as one: each fits on a page or two, the shipped model's card has the
sections a reader looks for in their order, its links lead somewhere, its run-by-run history lives in
docs/TRAINING_LOG.md, and the decoding it reports as shipped is the one `decoding.json` ships.

The card's numbers are not checked here (the golden test checks its checksum): the shipped model is
replaced now and then, and its card with it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CARDS = sorted((ROOT / "pretrained").rglob("MODEL_CARD.md"))
CARD = ROOT / "pretrained" / "MODEL_CARD.md"
LOG = ROOT / "docs" / "TRAINING_LOG.md"
SECTIONS = ["Model", "Data and licences", "Reproduce", "Scores", "Health", "Samples", "Known weaknesses",
            "History"]  # fmt: skip
MAX_LINES = 200


def sections(text: str) -> dict[str, str]:
    """'## Title' -> the text under it, up to the next '## ' heading."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2])}


def links(text: str) -> list[str]:
    """Targets of the Markdown links that point into the repository (not the web, not an anchor)."""
    return [t for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:|#", t)]


def test_the_cards_are_found():
    assert CARD in CARDS and len(CARDS) >= 2, CARDS


@pytest.mark.parametrize("card", CARDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_card_fits_on_a_page_or_two(card):
    lines = card.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{card.relative_to(ROOT)}: {lines} lines (history: docs/TRAINING_LOG.md)"


@pytest.mark.parametrize("card", CARDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_in_a_card_leads_to_a_file(card):
    for target in links(card.read_text(encoding="utf-8")):
        assert (card.parent / target.split("#")[0]).resolve().is_file(), (card.relative_to(ROOT), target)


def test_the_shipped_card_has_its_sections_in_order():
    found = list(sections(CARD.read_text(encoding="utf-8")))
    assert [s for s in found if s in SECTIONS] == SECTIONS, found
    assert all(sections(CARD.read_text(encoding="utf-8"))[s].strip() for s in SECTIONS)


def test_the_history_is_in_the_training_log_and_the_card_links_it():
    history = sections(CARD.read_text(encoding="utf-8"))["History"]
    assert any((CARD.parent / t).resolve() == LOG for t in links(history)), history
    log = LOG.read_text(encoding="utf-8")
    assert log.count("\n") > MAX_LINES and "pretrained/MODEL_CARD.md" in log  # the record, kept whole


def test_the_card_scores_the_decoding_that_ships():
    """The Scores section names the beam size and α of decoding.json, and scores every test split."""
    shipped = json.loads((ROOT / "pretrained" / "decoding.json").read_text(encoding="utf-8"))
    scores = sections(CARD.read_text(encoding="utf-8"))["Scores"]
    assert f"beam {shipped['beam_size']}, α = {shipped['alpha']:g} (shipped)" in scores, scores
    assert "sacreBLEU" in scores and "greedy" in scores
    rows = [line for line in scores.splitlines() if line.startswith("| ")]
    for split in ("test-everyday", "test", "test-tech", "test-story", "valid"):
        assert any(re.match(rf"\| {split}\b(?!-)", row) for row in rows), (split, rows)
