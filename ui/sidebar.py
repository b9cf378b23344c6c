"""The controls that write the shared selection: the sidebar, and the pickers and sliders pages draw."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import streamlit as st

from transformer.inputs import MAX_CHARS
from transformer.pretrained import LoadedModel
from ui import decoder_reads, state
from ui import model as model_io
from ui.frame import MODELS
from ui.presets import NUMBERS_DEFAULT, presets
from ui.state import Selection

if TYPE_CHECKING:
    from ui.page import Page


def _model_switched(name: str) -> None:
    """Give the newly chosen model a sentence it was made for, unless the current one already is."""
    from tasks.numbers import grammar

    sentence = st.session_state[state.KEY].sentence
    in_grammar = grammar.parse(sentence) is not None
    if name == "numbers" and not in_grammar:
        state.update(sentence=NUMBERS_DEFAULT)
    elif name != "numbers" and in_grammar:
        state.update(sentence=state.DEFAULT_SENTENCE)
    st.session_state["atlas_preset"] = "—"


def _seed(key: str, value) -> None:
    """Show the shared selection in a widget. Widgets are per page, the selection is per session:
    seeding every widget before it is drawn keeps all pages in step (and survives page switches)."""
    st.session_state[key] = value


def _on_change(field: str, key: str, convert=lambda value: value):
    """A widget callback that writes the widget's value into the shared selection (and the URL)."""

    def callback() -> None:
        state.update(**{field: convert(st.session_state[key])})

    return callback


CUT_KEY = "atlas_cut_notice"  # session state: what the sentence box cut, until the next edit


def cut_to_limit(text: str, limit: int, box: str = "the sentence box") -> tuple[str, str | None]:
    """(`text` cut to `limit` characters, what to tell the reader about it, or None when it fits).

    A text box gets no `max_chars` of its own: with one, a browser paste longer than the limit left the
    box empty (or unchanged) without a word. Its callback cuts the text with this and shows the message.
    """
    if len(text) <= limit:
        return text, None
    return text[:limit], (f"Your text had {len(text):,} characters, more than the limit of {limit:,}: it "
                          f"was cut after character {limit:,}, and {box} now holds what is kept.")


def _on_sentence(key: str = "atlas_sentence_box") -> None:
    """A sentence box's callback: text over MAX_CHARS is cut there, and the page says so."""
    text, notice = cut_to_limit(st.session_state[key], MAX_CHARS)
    if notice:
        st.session_state[CUT_KEY] = notice
    else:
        st.session_state.pop(CUT_KEY, None)
    state.update(sentence=text)


HOME_BOX = "atlas_home_sentence"  # Home's own box, in its main column


def sentence_box(sel: Selection, key: str = "atlas_sentence_box", label: str = "English sentence") -> None:
    """A box holding the shared sentence: the sidebar's, and Home's in its main column (`HOME_BOX`: on a
    1440×900 screen the sidebar's is below the list of pages). Either writes the selection, and each is
    seeded from it, so both show the same sentence."""
    _seed(key, sel.sentence)
    st.text_area(
        label, key=key, height=100, on_change=_on_sentence, args=(key,),
        help=f"Shared by every page and kept in the link, so a copied URL shows the same view. Up "
             f"to {MAX_CHARS:,} characters: longer text is cut, and the page says so.",
    )


def _pick_preset() -> None:
    st.session_state.pop(CUT_KEY, None)
    name = st.session_state.get("atlas_preset", "—")
    if name in presets():
        state.update(sentence=presets()[name])


def sidebar(sel: Selection, lm: LoadedModel) -> Selection:
    """The sidebar: model, sentence (box and presets), the decoder's input and the display settings."""
    with st.sidebar:
        picker(on_switch=_model_switched)
        st.subheader("Your sentence")
        st.selectbox("Presets", ["—", *presets()], key="atlas_preset", on_change=_pick_preset)
        sentence_box(sel)
        decoder_reads.sidebar(sel, lm)
        with st.expander("Display", expanded=False):
            _seed("atlas_one_based", sel.one_based)
            st.toggle("Number layers and heads from 1 (as in the paper)", key="atlas_one_based",
                      on_change=_on_change("one_based", "atlas_one_based"))
            _seed("atlas_palette", sel.palette)
            st.radio("Palette", ["default", "colour-blind safe"], key="atlas_palette", horizontal=True,
                     on_change=_on_change("palette", "atlas_palette"))
            _seed("atlas_pieces", sel.pieces)
            st.toggle("Show pieces and positions", key="atlas_pieces",
                      on_change=_on_change("pieces", "atlas_pieces"),
                      help="Label tokens as the tokenizer sees them, e.g. `3:▁cat` (position 3, piece "
                           "`▁cat`; `▁` marks the start of a word) instead of the word as written.")
            _seed("atlas_contrast", sel.contrast)
            st.toggle("Contrast: relative to uniform (1/T)", key="atlas_contrast",
                      on_change=_on_change("contrast", "atlas_contrast"),
                      help="Colour attention weights by how far they are from an even spread over the "
                           "T keys a row may see: white = 1/T (even), red = more, blue = less. Off: the "
                           "fixed scale 0 to 1, on which an even spread looks evenly pale.")
            _seed("atlas_presenter", sel.presenter)
            st.toggle("Presenter mode (large type)", key="atlas_presenter",
                      on_change=_on_change("presenter", "atlas_presenter"))
        device = lm.model.device
        st.caption(f"Model `{lm.model_id}` on **{device.type.upper()}** · "
                   f"layers and heads are numbered {sel.numbering}.")
    return sel


def _on_stack() -> None:
    stack = st.session_state["atlas_stack"]
    sel = st.session_state[state.KEY]
    kinds = state.STACK_KINDS[stack]
    state.update(stack=stack, kind=sel.kind if sel.kind in kinds else kinds[0])


def attention_picker(p: Page, stacks: tuple[str, ...] = ("encoder", "decoder"), head: bool = True,
                     where=None) -> Selection:
    """Stack / kind / layer / head controls, written back to the shared selection when moved.

    A page that offers fewer stacks shows the first one without changing the shared choice.
    """
    sel, off = p.sel, int(p.sel.one_based)
    stack = sel.stack if sel.stack in stacks else stacks[0]
    kinds = state.STACK_KINDS[stack]
    kind = sel.kind if sel.kind in kinds else kinds[0]
    cols = (where or st).columns(4 if head else 3)
    _seed("atlas_stack", stack)
    cols[0].selectbox("Stack", stacks, key="atlas_stack", on_change=_on_stack)
    _seed("atlas_kind", kind)
    cols[1].selectbox("Attention", kinds, key="atlas_kind", format_func=lambda k: f"{k}-attention",
                      on_change=_on_change("kind", "atlas_kind"))
    keys = {"layer": "atlas_layer", "head": "atlas_head"} if head else {"layer": "atlas_layer"}
    _seed("atlas_layer", sel.show_layer())
    cols[2].slider(f"Layer ({sel.numbering})", *sel.shown_range(p.n_layers), key="atlas_layer",
                   on_change=_pin(keys, off))
    if head:
        _seed("atlas_head", sel.show_head())
        cols[3].slider(f"Head ({sel.numbering})", *sel.shown_range(p.n_heads), key="atlas_head",
                       on_change=_pin(keys, off))
    return replace(sel, stack=stack, kind=kind)


def _pin(keys: dict[str, str], off: int):
    """A layer/head slider callback: the layer and head on screen become the reader's choice together,
    so moving the head does not let a page's default move the layer under it (`state.pin`)."""

    def callback() -> None:
        state.pin(**{field: state.index_of(int(st.session_state[key]), off) for field, key in keys.items()})

    return callback


def layer_slider(p: Page, label: str, key: str, where=None) -> int:
    """A layer slider (no head) showing the selection's layer; moving it pins the layer. 0-based."""
    off = int(p.sel.one_based)
    _seed(key, p.sel.show_layer())
    value = (where or st).slider(label, *p.sel.shown_range(p.n_layers), key=key,
                                 on_change=_pin({"layer": key}, off))
    return p.sel.index(int(value))


# ---- the sidebar's model picker and the pages' training-step slider ----------------------------

PICKER_KEY, STEP_KEY = "atlas_model_picker", "atlas_training_step"
FINAL = "final"


def picker(on_switch=None) -> None:
    """The sidebar's model choice (shown only when more than one model is shipped). `on_switch(name)`
    runs after a switch, e.g. to give the new model a sentence it was trained for."""
    names = model_io.available()
    if len(names) < 2:
        return
    st.session_state[PICKER_KEY] = model_io.choice()[0]

    def switched() -> None:
        name = st.session_state[PICKER_KEY]
        model_io.choose(name)
        if on_switch is not None:
            on_switch(name)

    st.selectbox("Model", names, key=PICKER_KEY, format_func=lambda n: MODELS[n][0], on_change=switched,
                 help="Which trained model every page shows. The numbers model translates number "
                      "phrases, dates and clock times, where every output has one right answer.")


def step_slider(where=None) -> int | None:
    """A "training step" slider over the chosen model's snapshots (None: the final weights); draws
    nothing for a model without snapshots. Pages that show it load with
    `ui.model.loaded(snapshots_allowed=True)`."""
    name, snapshot = model_io.choice()
    steps = model_io.snapshots(name)
    if not steps:
        return None
    st.session_state[STEP_KEY] = FINAL if snapshot is None else snapshot

    def moved() -> None:
        value = st.session_state[STEP_KEY]
        model_io.choose(name, None if value == FINAL else int(value))

    (where or st).select_slider(
        "Training step", options=[*steps, FINAL], key=STEP_KEY, on_change=moved,
        format_func=lambda v: "final weights" if v == FINAL else f"step {v:,}",
        help="The same sentence through the weights the model had at earlier steps of its training: "
             "watch the heads go from even spreads to sharp alignments.",
    )  # fmt: skip
    return snapshot
