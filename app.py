"""Attention Atlas: the entry point (`streamlit run app.py`). Builds the sidebar's navigation, runs
the page the reader asked for, and ends it with Back and Next along the lecture path (`ui.lecture`).

Only Streamlit is imported here (and `ui.warm`, which imports nothing more until its thread starts, and
`ui.lecture` and `ui.navigation`, Streamlit alone): this script runs before every page, and the home
page draws its title and Figure 1 before PyTorch is imported (see `ui.frame`). After the page, the first
run on a server starts the warm-up (`ui.warm`).
"""

from __future__ import annotations

import streamlit as st

# ui.lecture: Streamlit and ui.state only; ui.navigation: Streamlit only; ui.warm: the standard library
# only, until its thread starts
from ui import lecture, navigation, warm

# Section -> pages, each (file, title, icon, URL path). Files are named by topic, and each file's name
# is its URL path: the paths Streamlit derived from the old numbered file names, so shared links and
# the home page's Figure 1 keep opening the same pages, and a deep link that Streamlit first runs the
# legacy `pages/` way (see `ui.frame`) finds the same file. The home page's "" is the app's root.
# Read by tests/server.py with `ast.literal_eval`: keep it a plain literal.
SECTIONS = {
    "": [("pages/home.py", "Home", ":material/map:", "")],
    "Inputs": [
        ("pages/Tokens_and_embeddings.py", "Tokens & embeddings",
         ":material/text_fields:", "Tokens_and_embeddings"),
        ("pages/Positional_encoding.py", "Positional encoding", ":material/waves:", "Positional_encoding"),
    ],
    "Attention": [
        ("pages/Attention_step_by_step.py", "Attention, step by step",
         ":material/calculate:", "Attention_step_by_step"),
        ("pages/Multi_head_attention.py", "Multi-head attention", ":material/tune:", "Multi_head_attention"),
        ("pages/Paper_figures.py", "Paper figures", ":material/description:", "Paper_figures"),
        ("pages/Head_inspector.py", "Head inspector", ":material/explore:", "Head_inspector"),
    ],
    "The layers": [
        ("pages/Encoder_layer.py", "Encoder layer", ":material/layers:", "Encoder_layer"),
    ],
    "Generation": [
        ("pages/Decoder_and_generation.py", "Decoder and generation",
         ":material/edit_note:", "Decoder_and_generation"),
    ],
    "Classroom": [
        ("pages/Worked_examples.py", "Worked examples", ":material/edit:", "Worked_examples"),
        ("pages/Train_it_yourself.py", "Train it yourself", ":material/fitness_center:", "Train_it_yourself"),
        ("pages/Why_these_choices.py", "Why these choices?", ":material/science:", "Why_these_choices"),
    ],
}

# The lecture path: every page but Home, by URL path, in the paper's order: inputs (§3.4, §3.5), attention
# (§3.2.1, §3.2.2), the layers (§3.1, §3.3), the decoder (§3.2.3), then Table 1 (§4), training (§5),
# Table 3 (§6.2), and last the attention figures the paper ends with and the head inspector that reads
# them over many sentences. Home's "Start here" opens the first page; each page ends with Back and Next
# along it (`ui.lecture`). tests/test_lecture_path.py fails unless it names every page of SECTIONS but
# Home, once. Read by tests/server.py with `ast.literal_eval`: keep it a plain literal.
LECTURE_PATH = [
    "Tokens_and_embeddings", "Positional_encoding", "Attention_step_by_step", "Multi_head_attention",
    "Encoder_layer", "Decoder_and_generation", "Worked_examples", "Train_it_yourself", "Why_these_choices",
    "Paper_figures", "Head_inspector",
]

st.set_page_config(page_icon=navigation.FAVICON)  # before the navigation (ui.navigation.FAVICON)
try:
    page = st.navigation(navigation.pages(SECTIONS), expanded=True)  # this run's copies of the pages
    lecture.arrive(page.url_path, lecture.steps(SECTIONS, LECTURE_PATH))
    page.run()
    lecture.footer()  # Back and Next; a page that stops early draws them itself (`lecture.stop`)
finally:
    warm.start()  # once per server process, after the page has run (ui.warm)
