"""Home page pieces: the translation panel and the architecture map.

Light on purpose (no PyTorch): the home page draws the map while the model is still loading.
"""

from __future__ import annotations

import functools

import streamlit as st

from transformer.config import TransformerConfig
from ui import frame, navigation, state
from viz.architecture import PAGES, architecture_spec, page_of_selection

# (Figure 1 part, page file, what the page shows)
ARCHITECTURE = [
    ("Input embedding", PAGES["embedding"], "pieces, ids, embedding rows, ×√d_model"),
    ("Positional encoding", PAGES["position"], "sin/cos signals added to each position"),
    ("Scaled dot-product attention", "pages/Attention_step_by_step.py",
     "Q, K, V, QKᵀ, ÷√d_k, mask, softmax, ·V"),
    ("Multi-head attention", PAGES["encoder attention"], "all heads, head view, W^O"),
    ("Add & Norm, Feed forward (encoder)", PAGES["encoder layer"], "residuals, LayerNorm, FFN"),
    ("Decoder, Linear, Softmax", PAGES["decoder"],
     "masked and cross-attention, token by token"),
    ("The paper's Figures 3–5", "pages/Paper_figures.py", "encoder self-attention, layer 5 of 6"),
    ("Head inspector", "pages/Head_inspector.py", "what each head does, rollout, switching heads off"),
    ("Worked examples", "pages/Worked_examples.py", "small hand-checkable numbers, Table 1"),
    ("Train it yourself", "pages/Train_it_yourself.py", "train a small model live and watch its attention"),
    ("Why these choices?", "pages/Why_these_choices.py", "the paper's choices taken away one at a time"),
]


def show_translation(
    result: dict, reference: str | None = None, numbers: bool = False, beam_words: str = "beam 4"
) -> None:
    """The model's greedy and beam translations; beside them a human `reference` when there is one
    (for the numbers model: the right answer, which its grammar knows). `beam_words` says how the beam
    search was set (`ui.model.decoding_words`)."""
    st.subheader("Translation")
    cols = st.columns(3 if reference else 2)
    greedy = result["greedy"]
    cols[0].markdown("**Greedy** (most likely token at each step)")
    cols[0].text(greedy["text"] if greedy else "")
    cols[1].markdown(f"**Beam search** ({beam_words})")
    best = result["beam"][0] if result["beam"] else None
    cols[1].text(best["text"] if best else "")
    if reference and numbers:
        cols[2].markdown("**Right answer** (from the grammar that made the numbers data)")
        cols[2].text(reference)  # plain text: the grammar's output for the reader's phrase
    elif reference:
        cols[2].markdown("**Human reference** (written by a person, not by the model)")
        # Markdown, not st.text (st.text holds the model's output only): references are our own
        # constants (ui.presets.REFERENCES), plain text with no markdown in them.
        cols[2].markdown(f"*{reference}*")
    if numbers:
        st.caption(
            "The numbers model translates number phrases, dates and clock times, and nothing else. On "
            "1,004 test phrases of numbers it never saw, its greedy answers were all right and its "
            "beam-search answers 99.1% (see its model card below)."
        )
    else:
        st.caption(_quality_note(frame.chosen_dir()))
    card = frame.model_card(str(frame.chosen_dir()))
    with st.expander("Model card: data, training, scores and known weaknesses"):
        st.markdown(card if card else "`pretrained/MODEL_CARD.md` is missing: restore it with "
                    "`git checkout pretrained/`.")


@functools.cache
def _shipped_dir():
    """The default model's real folder, looked up once per process: the home page runs for every visitor,
    and a real-path lookup is slow on some file systems."""
    return frame.MODEL_DIR.resolve()


def _quality_note(directory) -> str:
    """What to expect of the translation, by model: the shipped default or another."""
    real = "Every number on every page is still the real computation of this model on your sentence."
    if directory.resolve() == _shipped_dir():
        return (
            "The shipped model is a quarter of the paper's base size, trained by this project from scratch "
            "in about 24 minutes on lent GPUs: right on most short everyday sentences, often wrong on long "
            "ones; its measured quality is in the model card below. " + real
        )
    return "This model was not trained by this project: its model card below says what it is. " + real


def show_architecture(cfg: TransformerConfig) -> None:
    st.subheader("The architecture, part by part")
    shape = (
        f"This model has the paper's shape: **N = {cfg.n_layers}** encoder and decoder layers with "
        f"**h = {cfg.n_heads}** heads each, but a smaller width (d_model = {cfg.d_model}, "
        f"d_ff = {cfg.d_ff}, d_k = {cfg.d_k}) so that it runs on a laptop CPU."
    )
    presenting = state.presenter()
    if not presenting:  # in presenter mode below the figure, so that it fits on a projector's first screen
        st.markdown(shape)
    # Side by side on a wide screen; one under the other in presenter mode, where half of a projector's
    # 1024 px squeezed the diagram's boxes into each other.
    left, right = (st.container(), st.container()) if presenting else st.columns([1, 1])
    with left:
        st.caption("Figure 1 of the paper, drawn for this model. Click a box to open the page that shows "
                   "its real numbers for your sentence.")
        event = st.vega_lite_chart(  # Vega-Lite, not Plotly: see viz.architecture
            spec=architecture_spec(cfg.n_layers), key="atlas_figure1", width="stretch",
            on_select="rerun", theme=None,
        )
        target = page_of_selection(event.selection if event else None)
        if target:
            st.switch_page(target)
    with right:
        if presenting:
            st.markdown(shape)
        st.markdown("**Every page**")
        for part, target, what in ARCHITECTURE:  # one element each: a home page sent to a class is short
            navigation.link(target, label=f"**{part}** · {what}")
