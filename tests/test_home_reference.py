"""The home page sets a human reference translation beside the model's, where a preset has one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ui.presets import PRESETS, REFERENCES, reference_for

ROOT = Path(__file__).resolve().parents[1]


def test_references_belong_to_presets_and_are_found_whatever_the_spacing():
    assert set(REFERENCES) <= set(PRESETS.values())
    river = PRESETS["River bank"]
    assert reference_for("  " + river.replace(" ", "  ") + "\n") == REFERENCES[river]
    assert reference_for("I like it.") is None


@pytest.mark.parametrize("name", ["River bank", "Paper Figures 4–5 (The Law will never be perfect)"])
def test_home_page_shows_a_presets_human_reference_beside_the_model(name):
    """A preset with a reference: the German a person wrote, labelled so, next to the model's output."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["s"] = PRESETS[name]
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.text) == 2  # greedy and beam: the model's output only
    shown = [m.value for m in at.markdown]
    label = next(i for i, value in enumerate(shown) if value.startswith("**Human reference**"))
    assert shown[label + 1] == f"*{REFERENCES[PRESETS[name]]}*"


def test_home_page_shows_no_reference_for_a_sentence_without_one():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["s"] = "I like it."
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not any("Human reference" in m.value for m in at.markdown)
