"""What the decoder reads, chosen once per session: the sidebar's control and the pages' words for it.

Every page that draws the decoder (its masked self-attention, its encoder-decoder attention, switching
heads off) draws it on `<s>` + `ui.model.decoder_input(model_id, sentence, sel.decoder_choice)`: by
default the beam translation Home shows, so a figure's German is the German on screen. The choice lives
in the shared selection and the URL (`dec`, `prefix`), like the sentence.
"""

from __future__ import annotations

import streamlit as st

from attention_atlas.decoder_input import DecoderInput, encode_prefix
from transformer.pretrained import LoadedModel
from ui import model as model_io
from ui import state
from ui.render import literal_markdown
from ui.state import DECODER_INPUTS, Selection

CHOICE_KEY, PREFIX_KEY = "atlas_decoder", "atlas_prefix_box"
LABELS = {"beam": "the beam translation (as on Home)", "greedy": "the greedy translation",
          "own": "my own German prefix"}  # fmt: skip


def sidebar(sel: Selection, lm: LoadedModel) -> None:
    """The choice, and for "own" the prefix box with what is wrong with it (drawn in the sidebar)."""
    st.session_state[CHOICE_KEY] = sel.decoder
    st.radio("The decoder reads", DECODER_INPUTS, key=CHOICE_KEY, format_func=LABELS.get, on_change=_chosen,
             help="The German sentence that every decoder figure is drawn on: the decoder reads `<s>` and "
                  "then this, one position per token (teacher forcing). By default the beam translation "
                  "that Home shows; kept in the link.")  # fmt: skip
    if sel.decoder != "own":
        return
    st.session_state[PREFIX_KEY] = sel.prefix
    st.text_input(
        "German prefix",
        key=PREFIX_KEY,
        on_change=_typed,
        placeholder="e.g. Das Tier",
        help="The beginning of a German sentence, read as if the model had written it.",
    )
    _, problem = encode_prefix(lm.tokenizer, sel.prefix, model_io.prefix_limit(lm))
    if problem:
        warn(problem)


def warn(problem: str) -> None:
    """The message for a prefix that cannot be read. It quotes the reader's words: shown as typed."""
    st.warning(literal_markdown(f"{problem} Until then the decoder reads the beam translation."))


def _chosen() -> None:
    state.update(decoder=st.session_state[CHOICE_KEY])


def _typed() -> None:
    state.update(prefix=st.session_state[PREFIX_KEY])


def words(chosen: DecoderInput | None) -> str:
    """One sentence for a caption: what the decoder positions are."""
    if chosen is None:
        return ""
    what = {"beam": "the beam translation that Home shows", "greedy": "the model's greedy translation",
            "own": "your own German prefix (you wrote it; the model only reads it)",
            "forced": "the tokens generated below, with those you forced (the model reads them as if it had "
                      "written them)"}[chosen.used]  # fmt: skip
    fallback = " (your prefix could not be used: see the sidebar)" if chosen.problem else ""
    change = ("Clear the forcing below to go back to the sidebar's choice." if chosen.used == "forced" else
              "Change it in the sidebar under “The decoder reads”.")  # fmt: skip
    return (
        f"Decoder positions are the decoder's input: `<s>` and then {what}{fallback}, one position per "
        f"token. {change}"
    )
