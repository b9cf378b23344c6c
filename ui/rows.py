"""Decoder rows labelled by the token they write (teacher forcing), for every cross-attention view.

The decoder's input is the translation shifted one place right, so the row that reads "Die" is the
row that writes "Kinder". A cross-attention row gathers the English for the token it writes: labelled
by its input alone it seems to look at the wrong word. Every cross-attention figure labels its rows
"reads → writes" and shows `WRITES_NOTE` beside it (`decoder_caption` on the pages that pick a stack).
"""

from __future__ import annotations

import streamlit as st

from analysis.decoding import written_ids
from transformer.trace import Trace
from ui import decoder_reads
from ui import model as model_io
from ui.state import Selection
from viz.labels import token_labels, writes_labels

WRITES_NOTE = (
    "Rows read “input → output”: the decoder position that reads *Die* is the one that writes the next "
    "token, *Kinder*. The decoder's input is the translation shifted one place to the right (`<s>` first), "
    "and each position is trained to produce the token after its own (teacher forcing), so a row's "
    "cross-attention gathers the English it needs for the token it **writes**."
)


def query_labels(
    model_id: str, trace: Trace, stack: str, kind: str, show_pieces: bool, sentence: str | None = None
) -> list[str]:
    """Row labels of one attention: decoder cross-attention rows as "reads → writes", others as read.

    `sentence`: for a trace without logits (attention only) of the greedy or beam translation of
    `sentence`, whether that translation ended tells what its last row writes (`</s>`).
    """
    read = trace.query_pieces(stack)
    if (stack, kind) != ("decoder", "cross"):
        return token_labels(read, show_pieces)
    return writes_labels(read, written_pieces(model_id, trace, sentence), show_pieces)


def written_pieces(model_id: str, trace: Trace, sentence: str | None = None) -> list[str | None]:
    """The piece each decoder row writes (`written_ids`), None where it is not known."""
    finished = None
    if sentence is not None and "generator.hook_logits" not in trace.tensors:
        finished = model_io.ends_translation(model_id, sentence, tuple(trace.tgt_ids[1:]))
    tokenizer = model_io.by_id(model_id).tokenizer
    return [None if i is None else tokenizer.id_to_piece(i) for i in written_ids(trace, finished)]


def decoder_caption(model_id: str, text: str, sel: Selection) -> None:
    """Above a decoder attention's figures: what the decoder reads, and for cross-attention `WRITES_NOTE`."""
    if sel.stack == "decoder":
        chosen = model_io.decoder_input(model_id, text, sel.decoder_choice)
        st.caption(decoder_reads.words(chosen) + (f" {WRITES_NOTE}" if sel.kind == "cross" else ""))
