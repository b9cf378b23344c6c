"""Page frame shared by every page: config, the sentence box and settings, and render helpers."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from transformer.inputs import MAX_CHARS, Source
from transformer.pretrained import LoadedModel
from ui import model as model_io
from ui import state
from ui.export import export_buttons
from ui.state import Selection
from viz.palette import palette

PRESETS = {
    "The animal … too tired": "The animal didn't cross the street because it was too tired.",
    "The animal … too wide": "The animal didn't cross the street because it was too wide.",
    "River bank": "I swam across the river to get to the other bank.",
    "Paper Figure 3 (making … more difficult)": (
        "It is in this spirit that a majority of American governments have passed new laws since 2009 "
        "making the registration or voting process more difficult."
    ),
    "Paper Figures 4–5 (The Law will never be perfect)": (
        "The Law will never be perfect, but its application should be just - this is what we are "
        "missing, in my opinion."
    ),
}

# Static styling only (no user text ever goes through HTML): larger type for projection.
PRESENTER_CSS = """
<style>
html, body, [class*="css"], .stMarkdown, .stText, p, li, label { font-size: 1.35rem !important; }
h1 { font-size: 2.6rem !important; } h2 { font-size: 2.1rem !important; }
h3 { font-size: 1.7rem !important; }
</style>
"""


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


def page(title: str, icon: str = "🔎") -> Page:
    """Set up a page: config, model, selection, sidebar. Stops with a clear message on bad input."""
    st.set_page_config(page_title=f"{title} · Attention Atlas", page_icon=icon, layout="wide")
    lm = model_io.loaded()
    cfg = lm.model.config
    sel = state.current(cfg.n_layers, cfg.n_heads)
    sel = _sidebar(sel, lm)
    if sel.presenter:
        st.html(PRESENTER_CSS)
    state.sync_url(sel)
    st.title(title)
    src = model_io.source(sel.sentence)
    for notice in src.notices:
        st.warning(notice)
    return Page(lm, sel, src)


def require_sentence(p: Page) -> None:
    """Stop the page with a clear message when there is nothing to show."""
    if p.src.empty:
        st.info("Type an English sentence in the sidebar (or pick a preset) to see the model at work.")
        st.stop()


def _sidebar(sel: Selection, lm: LoadedModel) -> Selection:
    with st.sidebar:
        st.subheader("Your sentence")
        preset = st.selectbox("Presets", ["—", *PRESETS], key="atlas_preset")
        if preset != "—" and st.session_state.get("atlas_last_preset") != preset:
            st.session_state["atlas_last_preset"] = preset
            sel = state.update(sentence=PRESETS[preset])
            st.session_state["atlas_sentence_box"] = sel.sentence
        if "atlas_sentence_box" not in st.session_state:
            st.session_state["atlas_sentence_box"] = sel.sentence
        typed = st.text_area(
            "English sentence", key="atlas_sentence_box", max_chars=MAX_CHARS, height=100,
            help="Shared by every page and kept in the link, so a copied URL shows the same view.",
        )
        if typed != sel.sentence:
            sel = state.update(sentence=typed)
        with st.expander("Display", expanded=False):
            one_based = st.toggle("Number layers and heads from 1 (as in the paper)", value=sel.one_based,
                                  key="atlas_one_based")
            pal = st.radio("Palette", ["default", "colour-blind safe"], key="atlas_palette",
                           index=0 if sel.palette == "default" else 1, horizontal=True)
            presenter = st.toggle("Presenter mode (large type)", value=sel.presenter, key="atlas_presenter")
        if (one_based, pal, presenter) != (sel.one_based, sel.palette, sel.presenter):
            sel = state.update(one_based=one_based, palette=pal, presenter=presenter)
        device = lm.model.device
        st.caption(f"Model `{lm.model_id}` on **{device.type.upper()}** · "
                   f"layers and heads are numbered {sel.numbering}.")
    return sel


def attention_picker(p: Page, stacks: tuple[str, ...] = ("encoder", "decoder"), head: bool = True,
                     where=None) -> Selection:
    """Stack / kind / layer / head controls, written back to the shared selection."""
    sel, off = p.sel, int(p.sel.one_based)
    box = where or st
    cols = box.columns(4 if head else 3)
    stack = cols[0].selectbox("Stack", stacks, index=stacks.index(sel.stack) if sel.stack in stacks else 0,
                              key="atlas_stack")
    kinds = state.STACK_KINDS[stack]
    kind = cols[1].selectbox("Attention", kinds, index=kinds.index(sel.kind) if sel.kind in kinds else 0,
                             key="atlas_kind", format_func=lambda k: f"{k}-attention")
    layer = cols[2].slider(f"Layer ({sel.numbering})", off, p.n_layers - 1 + off, sel.layer + off,
                           key="atlas_layer") - off
    h = sel.head
    if head:
        h = cols[3].slider(f"Head ({sel.numbering})", off, p.n_heads - 1 + off, sel.head + off,
                           key="atlas_head") - off
    if (stack, kind, layer, h) != (sel.stack, sel.kind, sel.layer, sel.head):
        sel = state.update(stack=stack, kind=kind, layer=layer, head=h)
    return sel


def show_figure(fig, key: str, caption: str | None = None, export: bool = True) -> None:
    """Render a Plotly figure full width, with HTML and CSV downloads (PNG is in its toolbar).

    Presenter mode hides the download buttons: fewer controls on a projected screen.
    """
    st.plotly_chart(fig, key=key, width="stretch",
                    config={"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}})
    if caption:
        st.caption(caption)
    sel = st.session_state.get(state.KEY)
    if export and not (sel is not None and sel.presenter):
        export_buttons(fig, key)
