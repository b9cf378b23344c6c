"""Home: type a sentence, read its translation, and find your way around the architecture."""

from __future__ import annotations

import streamlit as st

from ui import home
from ui import model as model_io
from ui.layout import page, require_sentence

p = page("Attention Atlas", icon="🗺️")
st.markdown(
    "Watch the Transformer of *Attention Is All You Need* (Vaswani et al., 2017) translate your "
    "English sentence into German, and open up every step it takes: the real numbers of a real "
    "model trained by this project, not an illustration."
)
# The translation goes above the architecture but is computed after it is drawn, so Figure 1 is on
# screen (and shown even for an empty sentence) while the model translates.
translation = st.container()
home.show_architecture(p)
with translation:
    require_sentence(p)
    home.show_translation(model_io.translate(p.lm.model_id, p.src.text))
