"""Teacher forcing on the decoder page: pressing a next-token candidate makes the decoder read it.

The forced token must be what every decoder figure of the page draws (masked self-attention,
cross-attention averaged and head by head, the newest query's self-attention row), the page must say
which tokens were forced, undoing and clearing must give back the decoder input from before, and a link
must carry the forcing. Runs on the shipped model; what the model predicts is read from the page itself
(the candidates' bars, the decoder input it prints), never written down here.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from test_decoder_input import assert_reads, charts, decoder_axes

from transformer.pretrained import load_pretrained
from transformer.tokenizer import EOS_ID, PAD_ID
from ui import forcing
from ui.forcing import Forcing
from viz.labels import word

ROOT = Path(__file__).resolve().parents[1]
DECODER = str(ROOT / "pages" / "Decoder_and_generation.py")
TIMEOUT = 300
pytestmark = [pytest.mark.timeout(900), pytest.mark.usefixtures("one_thread")]
# Every figure of the page whose axis lists the decoder input, with the expander and tab that hold two
# of them open.
FIGURES = ("dec_self", "dec_cross_avg", "dec_cross_heads", "dec_step_self")
OPEN = {"dec_heads_open": True, "dec_rows": "Self-attention, this layer"}


def open_page(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(DECODER, default_timeout=TIMEOUT)
    at.query_params.update(params or {})
    for key, value in OPEN.items():
        at.session_state[key] = value
    return run(at)


@pytest.fixture(scope="module")
def lm():
    return load_pretrained(ROOT / "pretrained")


def run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def press(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click()
    return run(at)


def decoder_input(at: AppTest) -> list[str]:
    """The pieces "Next token" has reached, `<s>` first, as the page prints them."""
    line = next(t.value for t in at.text if t.value.startswith("Decoder input after"))
    return line.split(": ", 1)[1].split(" ")


def candidate(at: AppTest, rank: int) -> str:
    """The piece of the next-token bar at `rank` (0: the most probable), from the bar's hover."""
    return html.unescape(charts(at)["dec_topk"]["data"][0]["customdata"][rank])


def forced_lines(at: AppTest) -> list[str]:
    """The page's "Forced by you" lines, as Markdown draws them (escapes dropped)."""
    shown = [re.sub(r"\\(.)", r"\1", m.value) for m in at.markdown]
    return [line for line in shown if line.startswith("Forced by you")]


def self_attention_reads(at: AppTest) -> list[str]:
    """The decoder input the masked self-attention draws (its rows and its columns agree)."""
    rows, columns = decoder_axes(charts(at)["dec_self"])
    assert rows == columns
    return rows


def test_a_pressed_candidate_is_read_by_every_decoder_figure_and_listed(lm):
    at = open_page()
    press(press(at, "dec_next"), "dec_next")
    before = decoder_input(at)
    assert len(before) == 3  # <s> and the two greedy steps
    piece = candidate(at, 1)  # not the greedy choice: "Next token" would append rank 0
    assert piece != candidate(at, 0)
    assert at.button(key="dec_force_1").label.replace("\\", "").startswith(f"2. {word(piece)} (")

    press(at, "dec_force_1")
    expected = [*before, piece]
    assert_reads(at, FIGURES, expected)
    assert forced_lines(at) == [f"Forced by you: {piece} at position 3."]
    assert decoder_input(at) == expected  # "Next token" goes on after the forced token
    line = next(t.value for t in at.text if t.value.startswith("Decoder input after"))  # not "0 step(s):"
    assert line.startswith("Decoder input after 0 step(s) of Next token from 3 token(s) up to the last one ")
    assert at.button(key="dec_reset").disabled and "Clear the forcing" in at.button(key="dec_reset").help
    *steps, last = at.query_params["force"].split(",")
    assert len(steps) == 2 and not any(s.startswith("~") for s in steps) and last.startswith("~")
    assert lm.tokenizer.id_to_piece(int(last.removeprefix("~"))) == piece

    press(at, "dec_next")
    continued = decoder_input(at)
    assert continued[:4] == expected and len(continued) == 5
    assert_reads(at, ("dec_self", "dec_cross_avg"), expected)  # steps after it are not forced


def test_a_link_carries_the_forcing():
    at = open_page()
    press(press(at, "dec_next"), "dec_force_2")
    link = dict(at.query_params)
    assert "force" in link
    shared = open_page(link)
    assert forced_lines(shared) == forced_lines(at) and len(forced_lines(at)) == 1
    for key in FIGURES:
        assert decoder_axes(charts(shared)[key]) == decoder_axes(charts(at)[key]), key


@pytest.mark.parametrize("params", [{}, {"dec": "own", "prefix": "Die Katze"}], ids=["beam", "own prefix"])
def test_undo_and_clear_give_back_the_decoder_input_from_before(params):
    at = open_page(params)
    original = self_attention_reads(at)
    press(at, "dec_next")
    steps = decoder_input(at)
    press(at, "dec_force_1")
    first = decoder_input(at)
    assert self_attention_reads(at) == first != original
    press(at, "dec_next")
    press(at, "dec_force_3")
    second = decoder_input(at)
    assert len(forced_lines(at)) == 1 and forced_lines(at)[0].count(" at position ") == 2
    assert self_attention_reads(at) == second

    press(at, "dec_force_undo")
    assert self_attention_reads(at) == first
    assert decoder_input(at) == second[:-1]  # as it stood before the second token was forced
    assert forced_lines(at) == [f"Forced by you: {first[-1]} at position {len(first) - 1}."]

    press(at, "dec_force_clear")
    assert self_attention_reads(at) == original
    assert decoder_input(at) == steps
    assert not forced_lines(at) and "force" not in at.query_params
    assert not [b for b in at.button if b.key in ("dec_force_undo", "dec_force_clear")]


def test_another_decoder_input_in_the_sidebar_drops_the_forcing():
    at = open_page()
    press(at, "dec_force_1")
    assert forced_lines(at)
    at.radio(key="atlas_decoder").set_value("greedy")
    run(at)
    assert not forced_lines(at) and "force" not in at.query_params
    greedy = open_page({"dec": "greedy"})
    assert self_attention_reads(at) == self_attention_reads(greedy)


@pytest.mark.parametrize(
    "value",
    ["abc", "~99999999", "5,6", f"~{EOS_ID},~5", f"~{PAD_ID}", "~5," * 70 + "~5", "~5,<script>"],
    ids=[
        "not ids",
        "not in the vocabulary",
        "nothing forced",
        "</s> inside",
        "padding",
        "too long",
        "markup",
    ],
)
def test_a_bad_force_in_a_link_is_ignored(value):
    plain = open_page()
    at = open_page({"force": value})
    assert not forced_lines(at) and "force" not in at.query_params
    for key in FIGURES:
        assert decoder_axes(charts(at)[key]) == decoder_axes(charts(plain)[key]), key


def test_the_link_value_reads_back(lm):
    made = Forcing((5, 6, 7), (1, 3))
    assert forcing.encode(made) == "~5,6,~7"
    assert forcing.parse(forcing.encode(made), lm) == made
    assert forcing.parse("5,6,~7,8", lm) is None  # the forcing ends with a forced token
    assert forcing.parse(f"~{EOS_ID}", lm) == Forcing((EOS_ID,), (1,))  # forcing the end of the sentence


def test_a_forced_end_of_sentence_finishes_the_translation():
    at = open_page({"force": f"~{EOS_ID}"})
    assert_reads(at, FIGURES, ["<s>", "</s>"])
    assert forced_lines(at) == ["Forced by you: </s> at position 1."]
    assert [s.value for s in at.success] == ["You produced `</s>`: the translation is finished."]
    assert at.button(key="dec_next").disabled
    assert not [b.key for b in at.button if re.fullmatch(r"dec_force_\d+", b.key or "")]  # no candidates
