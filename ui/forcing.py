"""Teacher forcing on the decoder page: the reader picks the next token instead of the model.

In training the decoder reads the right German, not its own guesses (teacher forcing, §3.1, §5); the
decoder page lets a reader do the same by hand. Pressing one of the next-token candidates appends it to
the decoder input, and "Next token" continues greedily from there. The result is an own German prefix
built from pieces: the decoder reads `<s>` + these ids as they were chosen (typed text would be cut into
pieces anew, and a forced piece such as "re" after "▁über" would vanish into "▁überre").

The forcing belongs to the sentence, the model and the sidebar's decoder input it was built on; another
of them draws without it. It lives in the session and in the link (`force`: the ids after `<s>`, each
forced one marked `~`), and a bad `force` in a link is ignored, as other page state is (`ui.url_state`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import streamlit as st

from attention_atlas.decoder_input import DecoderInput
from transformer.pretrained import LoadedModel
from ui import model as model_io
from ui.render import literal_markdown
from ui.state import MAX_URL_SENTENCE
from ui.url_state import url_value
from viz.labels import word

KEY, PARAM, MARK = "atlas_forcing", "force", "~"
_FORMAT = re.compile(rf"{MARK}?\d{{1,9}}(,{MARK}?\d{{1,9}})*")


@dataclass(frozen=True)
class Forcing:
    """The decoder input after `<s>` (`ids`) and the positions the reader forced (`<s>` is position 0).

    The last id is always a forced one: "Next token" steps after it are the page's `tokens`, not part
    of the forcing.
    """

    ids: tuple[int, ...]
    forced: tuple[int, ...]

    def pieces(self, lm: LoadedModel) -> list[tuple[str, int]]:
        """(piece, position) of each forced token, in order."""
        return [(lm.tokenizer.id_to_piece(self.ids[n - 1]), n) for n in self.forced]


def encode(forcing: Forcing | None) -> str:
    """The link's `force` value ("" for none)."""
    if forcing is None:
        return ""
    return ",".join(f"{MARK if n in forcing.forced else ''}{i}" for n, i in enumerate(forcing.ids, 1))


def parse(text, lm: LoadedModel) -> Forcing | None:
    """A `force` value read back, or None when it is not one this model could have written.

    It must name ids of the vocabulary that a reader can force (`forcible`), no more than an own prefix
    may hold (`ui.model.prefix_limit`), end with a forced one and hold `</s>` last if at all.
    """
    if not isinstance(text, str) or len(text) > MAX_URL_SENTENCE or not _FORMAT.fullmatch(text):
        return None
    items = text.split(",")
    ids = tuple(int(item.removeprefix(MARK)) for item in items)
    forced = tuple(n for n, item in enumerate(items, 1) if item.startswith(MARK))
    eos = lm.tokenizer.eos_id
    if len(ids) > model_io.prefix_limit(lm) or not forced or forced[-1] != len(ids) or eos in ids[:-1]:
        return None
    if not all(forcible(lm, i) for i in ids):
        return None
    return Forcing(ids, forced)


def forcible(lm: LoadedModel, token_id: int) -> bool:
    """A token the decoder may be made to read: in the vocabulary, not padding (the mask would hide it,
    `transformer.masks.target_mask`) and not the start token."""
    cfg = lm.model.config
    return 0 <= token_id < cfg.vocab_size and token_id not in (cfg.pad_id, cfg.start_id)


def current(context: tuple, lm: LoadedModel) -> Forcing | None:
    """This session's forcing for `context` (model id, sentence, decoder choice), first from the link;
    mirrored to the link."""
    if KEY not in st.session_state:
        st.session_state[KEY] = (context, parse(st.query_params.get(PARAM), lm))
    held, forcing = st.session_state[KEY]
    forcing = forcing if held == context else None
    url_value(PARAM, encode(forcing), "")
    return forcing


def applied(chosen: DecoderInput, forcing: Forcing | None) -> DecoderInput:
    """What the decoder reads: the sidebar's choice, or the forced prefix built on it."""
    if forcing is None:
        return chosen
    return replace(chosen, ids=forcing.ids, used="forced", finished=None, problem=None)


def steps_key(context: tuple, start: tuple[int, ...]) -> str:
    """The session key of the tokens "Next token" has appended after `start`."""
    model_id, sentence, _ = context
    return f"atlas_decode::{model_id}::{sentence}::{start}"


def _store(context: tuple, forcing: Forcing | None, start: tuple[int, ...], steps: list[int]) -> None:
    """Make `forcing` the session's, with "Next token" standing at `steps` after `start`."""
    st.session_state[KEY] = (context, forcing)
    st.session_state[steps_key(context, start)] = steps


def force(context: tuple, before: Forcing | None, prefix: tuple[int, ...], token_id: int) -> None:
    """Append `token_id` to the decoder input `prefix`: a forced position, and generation goes on after it."""
    ids = (*prefix, token_id)
    forced = (*(before.forced if before else ()), len(ids))
    _store(context, Forcing(ids, forced), ids, list(ids))


def undo(context: tuple, forcing: Forcing, base: tuple[int, ...]) -> None:
    """Take back the last forced token: the decoder input and the steps are as before it was pressed."""
    last = forcing.forced[-1]
    if len(forcing.forced) == 1:
        _store(context, None, base, list(forcing.ids[: last - 1]))
        return
    earlier = Forcing(forcing.ids[: forcing.forced[-2]], forcing.forced[:-1])
    _store(context, earlier, earlier.ids, list(forcing.ids[: last - 1]))


def clear(context: tuple, forcing: Forcing, base: tuple[int, ...]) -> None:
    """Take back every forced token: the sidebar's decoder input, with the steps taken before the first."""
    _store(context, None, base, list(forcing.ids[: forcing.forced[0] - 1]))


def said(forcing: Forcing, lm: LoadedModel) -> str:
    """In words, e.g. "Forced by you: ▁Katze at position 3." (plain text: Markdown must escape it)."""
    return "Forced by you: " + ", ".join(f"{piece} at position {n}" for piece, n in forcing.pieces(lm)) + "."


def candidates(
    lm: LoadedModel,
    context: tuple,
    forcing: Forcing | None,
    prefix: tuple[int, ...],
    top: tuple[list[int], list[float]],
    show_pieces: bool,
    closed: bool,
) -> None:
    """A button per next-token candidate (best first, as the bars): pressing one forces it.

    `closed`: the translation is finished or at its length limit, nothing can be appended.
    """
    full = len(prefix) >= model_io.prefix_limit(lm)  # a longer forcing could not go into a link
    row = st.container(horizontal=True)
    for rank, (token_id, prob) in enumerate(zip(*top)):
        piece = lm.tokenizer.id_to_piece(token_id)
        shown = piece if show_pieces else word(piece)
        row.button(
            literal_markdown(f"{rank + 1}. {shown} ({prob:.1%})"),
            key=f"dec_force_{rank}",  # by rank: the same key whichever token holds the place
            on_click=force,
            args=(context, forcing, prefix, token_id),
            disabled=closed or full or not forcible(lm, token_id),
            help=literal_markdown(f"Force {piece} (probability {prob:.1%}) at position {len(prefix) + 1}."),
        )


def controls(lm: LoadedModel, context: tuple, forcing: Forcing | None, base: tuple[int, ...]) -> None:
    """Which tokens the reader forced, and the buttons that take them back."""
    if forcing is None:
        return
    st.markdown(literal_markdown(said(forcing, lm)))
    row = st.container(horizontal=True)
    taken_back = (context, forcing, base)
    row.button("Undo the last forced token", key="dec_force_undo", on_click=undo, args=taken_back)
    row.button("Clear the forcing", key="dec_force_clear", on_click=clear, args=taken_back)
