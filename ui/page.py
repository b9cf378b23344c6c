"""The page frame: the model, the shared selection and the sidebar every page starts from (`setup`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import streamlit as st

from transformer.inputs import Source
from transformer.pretrained import LoadedModel
from ui import language, lecture, state
from ui import model as model_io
from ui.frame import header
from ui.render import styles
from ui.sidebar import CUT_KEY, sidebar
from ui.state import Selection
from viz.palette import palette


@dataclass(frozen=True)
class Page:
    """What a page needs: the shared model, the selection, the cleaned source sentence."""

    lm: LoadedModel
    sel: Selection
    src: Source

    @property
    def colors(self) -> dict:
        return palette(self.sel.palette)

    @property
    def n_layers(self) -> int:
        return self.lm.model.config.n_layers

    @property
    def n_heads(self) -> int:
        return self.lm.model.config.n_heads


def page(title: str, icon: str = ":material/search:", snapshots: bool = False) -> Page:
    """Set up a page: config and title, then model, selection, sidebar. Stops with a clear message on
    bad input. `snapshots`: the page has a training-step slider (`ui.sidebar.step_slider`)."""
    header(title, icon)
    return setup(snapshots)


def setup(snapshots: bool = False) -> Page:
    """The model, the selection and the sidebar, for a page whose header is drawn (`ui.frame.header`)."""
    lm = model_io.loaded(snapshots_allowed=snapshots)
    cfg = lm.model.config
    sel = state.current(cfg.n_layers, cfg.n_heads)
    # Within the model's layers and heads (chosen on a model with more of them); a layer the reader never
    # chose is the model's default (back from the numbers model's 3 layers, the paper's layer 5 again)
    layer = min(sel.layer if "layer" in sel.chosen else state.Selection.layer, cfg.n_layers - 1)
    head = min(sel.head, cfg.n_heads - 1)
    if (layer, head) != (sel.layer, sel.head):
        sel = replace(sel, layer=layer, head=head)
        st.session_state[state.KEY] = sel
    sel = sidebar(sel, lm)
    styles(sel)
    state.sync_url(sel)
    src = model_io.source(sel.sentence)
    if CUT_KEY in st.session_state:
        st.warning(st.session_state[CUT_KEY])
    for notice in src.notices:
        st.warning(notice)
    if german := language.german_evidence(src.text):
        st.info(language.german_note(german), icon=":material/translate:")
    if tags := language.markup_tags(src.text):
        st.info(language.markup_note(tags), icon=":material/code:")
    if model_io.is_numbers() and not src.empty:
        from tasks.numbers import grammar

        if grammar.parse(sel.sentence) is None:
            st.warning("The numbers model learned only number phrases, dates and clock times (such as "
                       "“forty-two”, “twenty-one apples”, “at half past three”). This sentence is "
                       "outside them: the model has no right answer for it, and its attention shows "
                       "what an untrained input does. Pick a preset in the sidebar, or switch models.")
    return Page(lm, sel, src)


def fresh(p: Page) -> Page:
    """The page with the selection as it is now. A fragment (`st.fragment`) reruns alone when its own
    sliders move, and their callbacks have just written the shared selection: read it again."""
    return replace(p, sel=st.session_state.get(state.KEY, p.sel))


def require_sentence(p: Page) -> None:
    """Stop the page with a clear message when there is nothing to show (and still Back and Next)."""
    if p.src.empty:
        st.info("Type an English sentence in the sidebar (or pick a preset) to see the model at work.")
        lecture.stop()
