"""What the decoder reads after its start token: the beam translation, the greedy one, or your own prefix.

The paper's decoder reads the German sentence shifted one place right (§3.1, §3.2.3): `<s>` and then the
translation, each position predicting the token after its own. To draw its masked self-attention and its
encoder-decoder attention for an English sentence, some German sentence has to be chosen:

- "beam" (the default): the best beam-search translation with the model's own beam size and length
  penalty (`LoadedModel.decoding`), the translation the app's Home page shows;
- "greedy": the most probable token at every step;
- "own": a German prefix you type, tokenized with the model's tokenizer (teacher forcing: the model reads
  it as if it had written it).

The app (`ui.model.decoder_input`) and notebooks (`trace` below) make the same choice here. From Python::

    from attention_atlas import decoder_input
    trace, reads = decoder_input.trace(lm, "The animal didn't cross the street.", "own", "Das Tier")
    trace.tgt_pieces  # ['<s>', '▁Das', '▁Tier']

Pure Python and PyTorch: no Streamlit, no Plotly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from transformer.decoding import beam_search, greedy_decode
from transformer.inputs import MAX_CHARS, clean_text, encode_source
from transformer.pretrained import LoadedModel
from transformer.trace import Trace, run_trace

CHOICES = ("beam", "greedy", "own")
DEFAULT = "beam"
MAX_PREFIX_CHARS = 300  # a sentence's beginning, not a text
MAX_PREFIX_PIECES = 60  # as many as the app's source sentence (`transformer.inputs.MAX_SOURCE_TOKENS`)
_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")  # a byte-fallback piece: a character not in the vocabulary


@dataclass(frozen=True)
class DecoderInput:
    """The token ids the decoder reads after its start token, and where they come from.

    `used` is what was read: the choice, except that an own prefix that cannot be used (`problem` says
    why) falls back to the beam translation. `finished`: the ids are a whole translation that ended with
    `</s>` (True), one cut off at the length limit (False), or a prefix (None).
    """

    ids: tuple[int, ...]
    choice: str
    used: str
    finished: bool | None
    problem: str | None = None


def encode_prefix(
    tokenizer, text: str, max_pieces: int = MAX_PREFIX_PIECES
) -> tuple[tuple[int, ...], str | None]:
    """(ids, None) for a German prefix the model can read; ((), what is wrong) otherwise.

    Wrong: empty, longer than MAX_PREFIX_CHARS characters or `max_pieces` pieces, or holding pieces the
    tokenizer cannot encode (they would become `<unk>` or raw bytes, which say nothing to the model).
    Messages are plain text; the words they quote are the reader's own.
    """
    clean, _ = clean_text(text, MAX_CHARS)
    if not clean:
        return (), "Your German prefix is empty: type the beginning of a German sentence, e.g. “Das Tier”."
    if len(clean) > MAX_PREFIX_CHARS:
        return (), (f"Your German prefix has {len(clean):,} characters, more than the limit of "
                    f"{MAX_PREFIX_CHARS}: shorten it.")  # fmt: skip
    encode = getattr(tokenizer, "encode_target", tokenizer.encode)  # Marian: German has its own pieces
    ids = tuple(encode(clean))
    if len(ids) > max_pieces:
        return (), (f"Your German prefix is {len(ids)} pieces long, more than the limit of {max_pieces}: "
                    "shorten it.")  # fmt: skip
    words = dict.fromkeys(clean.split())
    unknown = [word for word in words if any(_foreign(tokenizer, i) for i in encode(word))]
    if unknown:
        shown = ", ".join(f"“{word}”" for word in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        return (), (f"The model's vocabulary cannot encode {len(unknown)} word(s) of your German prefix: "
                    f"{shown}. They would become the unknown token or raw bytes, which tell the model "
                    "nothing: remove them.")  # fmt: skip
    return ids, None


def _foreign(tokenizer, piece_id: int) -> bool:
    """A piece that stands for no text the model learned: `<unk>`, or a raw byte (byte fallback)."""
    unknown = piece_id == getattr(tokenizer, "unk_id", None)
    return unknown or _BYTE_PIECE.fullmatch(tokenizer.id_to_piece(piece_id)) is not None


def resolve(
    tokenizer,
    choice: str,
    prefix: str,
    translation: Callable[[str], tuple[list[int], bool]],
    max_pieces: int = MAX_PREFIX_PIECES,
) -> DecoderInput:
    """The decoder input for `choice`; `translation("beam" | "greedy")` gives (ids, finished).

    An own prefix that `encode_prefix` rejects falls back to the beam translation, with the reason.
    """
    if choice not in CHOICES:
        raise ValueError(f"decoder input {choice!r}: choose one of {', '.join(CHOICES)}")
    problem = None
    if choice == "own":
        ids, problem = encode_prefix(tokenizer, prefix, max_pieces)
        if problem is None:
            return DecoderInput(ids, "own", "own", None)
    used = "greedy" if choice == "greedy" else "beam"
    ids, finished = translation(used)
    return DecoderInput(tuple(ids), choice, used, finished, problem)


def trace(
    lm: LoadedModel, sentence: str, decoder_input: str = DEFAULT, prefix: str = "", max_len: int | None = None
) -> tuple[Trace, DecoderInput]:
    """Run `sentence` through the model with the decoder reading `<s>` + the chosen German, recording
    every intermediate (`transformer.trace.run_trace`). Returns the trace and what the decoder read.

    `decoder_input`: "beam" (default, the model's own beam size and α), "greedy", or "own" with
    `prefix` the German it reads. `max_len`: the longest translation searched for (default: the
    paper's source length + 50; the app stops at 2·source + 10). Raises ValueError for an empty
    sentence, an unknown choice or a prefix the model cannot read (the app falls back to the beam
    translation instead, and says why).
    """
    src = encode_source(lm.tokenizer, sentence)
    if src.empty:
        raise ValueError("the sentence is empty")
    if decoder_input == "own":
        _, problem = encode_prefix(lm.tokenizer, prefix)
        if problem:
            raise ValueError(problem)

    def translation(how: str) -> tuple[list[int], bool]:
        if how == "greedy":
            best = greedy_decode(lm.model, src.ids, max_len=max_len)
        else:
            best = beam_search(lm.model, src.ids, lm.decoding.beam_size, lm.decoding.alpha, max_len)[0]
        return best.ids, best.finished

    reads = resolve(lm.tokenizer, decoder_input, prefix, translation)
    tgt_ids = [lm.model.config.start_id, *reads.ids]
    tgt_pieces = [lm.tokenizer.id_to_piece(i) for i in tgt_ids]
    return run_trace(lm.model, src.ids, tgt_ids, src.pieces, tgt_pieces), reads
