"""Home: type a sentence, read its translation, and find your way around the architecture.

The app's default page (app.py's navigation serves it at the root URL). Its links name the other
pages by file, relative to app.py, so it runs under app.py: `AppTest.from_file("app.py")` tests it.
"""

from __future__ import annotations

import streamlit as st

from ui import frame, home, lecture, state

frame.header("Attention Atlas", icon=":material/map:", plotly_now=False)  # Figure 1 first
frame.intro(
    "Watch the Transformer of *Attention Is All You Need* (Vaswani et al., 2017) translate your "
    "English sentence into German, and open up every step it takes: the real numbers of a real "
    "model trained by this project, not an illustration.",
    sentence=False,  # the page has its own box, with the translation
)
lecture.start_here()  # the lecture path's first page, in the main column: the sidebar's list is long
# The translation goes above the architecture but comes after it: Figure 1 needs only config.json, so
# it is on screen while PyTorch is imported (~1.5 s on a cold server) and the model translates. In
# presenter mode it goes below Figure 1, which then fits on the first screen of a projector.
translation = None if state.presenter() else st.container()
# None if broken: loading the model below names the file and the fix
config = frame.shipped_config(frame.chosen_dir())
if config is not None:
    with frame.HEAVY_IMPORTS:  # see ui.frame: no chart may meet a half-imported pandas
        home.show_architecture(config)
from ui import model as model_io  # noqa: E402  (PyTorch: only after Figure 1 is on screen)
from ui.page import require_sentence, setup  # noqa: E402
from ui.presets import reference_for  # noqa: E402
from ui.sidebar import HOME_BOX, sentence_box  # noqa: E402

with translation or st.container():
    p = setup()
    sentence_box(p.sel, HOME_BOX, "Your English sentence (or pick a preset in the sidebar)")
    require_sentence(p)
    numbers = model_io.is_numbers()
    home.show_translation(model_io.translate(p.lm.model_id, p.src.text), reference_for(p.sel.sentence),
                          numbers, model_io.decoding_words(p.lm.decoding))  # fmt: skip
frame.load_plotly()  # last: the pages Figure 1 opens need Plotly's script; the browser loads it now
