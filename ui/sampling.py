"""Sampling instead of greedy decoding for the decoder page's "Next token": a temperature and top-k,
the candidates' probabilities before and after them, and the token drawn.

The paper decodes with beam search (§6.1) and the page's "Next token" greedily; sampling is what
generation often uses instead, and the temperature is the knob a student asks about. The draw is
seeded by the decoder input and this session's count of sampled steps, so a rerun (another layer, a
hover) shows the same draw until "Next token" takes it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import streamlit as st

from analysis.decoding import Tempered, tempered
from transformer.trace import Trace
from ui.render import show_figure
from viz import decoding as dec_viz
from viz.labels import readable, word

GREEDY = "greedy: the most probable token"
SAMPLING = "sampling: temperature and top-k"
PICK_KEY, TEMPERATURE_KEY, TOP_K_KEY = "dec_pick", "dec_temperature", "dec_top_k"
DRAWS_KEY = "dec_draws"  # sampled steps taken in this session: part of the next draw's seed
MAX_K = 20


@dataclass(frozen=True)
class Draw:
    """This step's sampling: its settings, the distribution drawn from and the token drawn."""

    temperature: float
    k: int
    dist: Tempered
    token_id: int

    @property
    def rank(self) -> int:
        """The drawn token's place among the candidates (0: the greedy one)."""
        return self.dist.ids.index(self.token_id)


def controls() -> tuple[float, int] | None:
    """How "Next token" picks: None for greedy, else (temperature, k)."""
    pick = st.radio("Next token picks by", [GREEDY, SAMPLING], key=PICK_KEY, horizontal=True,
                    help="Greedy is what this page shows by default; the paper's translations use beam "
                    "search (below). Sampling draws the next token at random, in proportion to its "
                    "probability after the temperature.")  # fmt: skip
    if pick == GREEDY:
        return None
    left, right = st.columns(2)
    temperature = left.slider(
        "Temperature", 0.1, 2.0, 1.0, 0.1, key=TEMPERATURE_KEY,
        help="Every logit is divided by it before the softmax: below 1 the distribution sharpens towards "
        "the greedy choice, above 1 it flattens.")  # fmt: skip
    k = right.slider("Top-k", 1, MAX_K, 10, key=TOP_K_KEY,
                     help="Only the k most probable tokens can be drawn (k = 1 is greedy).")  # fmt: skip
    return temperature, k


def draw(trace: Trace, settings: tuple[float, int]) -> Draw:
    """The draw for the step after `trace`'s decoder input (its last position's logits)."""
    temperature, k = settings
    dist = tempered(trace.get("generator.hook_logits")[-1], temperature, k)  # (V,) -> k candidates
    seed = zlib.crc32(repr((trace.tgt_ids, st.session_state.get(DRAWS_KEY, 0))).encode())
    return Draw(temperature, k, dist, dist.draw(seed))


def taken() -> None:
    """Count a sampled step (called when "Next token" appends the drawn token): the next draw is new."""
    st.session_state[DRAWS_KEY] = st.session_state.get(DRAWS_KEY, 0) + 1


def show(d: Draw, pieces: list[str], colors: dict, show_pieces: bool) -> None:
    """The candidates before and after the temperature, the drawn one marked."""
    shown = readable(pieces[d.rank] if show_pieces else word(pieces[d.rank]))
    fig = dec_viz.tempered_bars(pieces, d.dist.model, d.dist.sampled, d.temperature,
                                f"Sampling the next token: temperature {d.temperature:g}, top-{d.k}",
                                colors=("#9aa5b1", colors["categorical"][0]), drawn=d.rank,
                                show_pieces=show_pieces)  # fmt: skip
    show_figure(fig, key="dec_tempered", caption=(
        "Grey: the model's own probability of each candidate (the softmax over the whole vocabulary, as "
        f"above). Coloured: divide the logits by {d.temperature:g}, keep the {d.k} most "
        f"probable, softmax again: what “Next token” draws from. It drew “{shown}” (candidate "
        f"{d.rank + 1}, {d.dist.sampled[d.rank]:.1%}). A shared link keeps how many steps were taken, "
        "not what sampling drew: it opens on greedy steps."))  # fmt: skip
