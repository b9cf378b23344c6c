"""Attention Atlas: the entry point (`streamlit run app.py`). Builds the sidebar's navigation and runs
the page the reader asked for.

Only Streamlit is imported here: this script runs before every page, and the home page draws its
title and Figure 1 before PyTorch is imported (see `ui.frame`).
"""

from __future__ import annotations

import streamlit as st

# Section -> pages, each (file, title, icon, URL path). The URL paths are the ones Streamlit derived
# from the file names before this navigation existed, so shared links and the home page's Figure 1
# keep opening the same pages. The home page's "" is the app's root. Read by tests/server.py with
# `ast.literal_eval`: keep it a plain literal.
SECTIONS = {
    "": [("pages/home.py", "Home", "🗺️", "")],
    "Inputs": [
        ("pages/1_Tokens_and_embeddings.py", "Tokens & embeddings", "🔤", "Tokens_and_embeddings"),
        ("pages/2_Positional_encoding.py", "Positional encoding", "〰️", "Positional_encoding"),
    ],
    "Attention": [
        ("pages/3_Attention_step_by_step.py", "Attention, step by step", "🧮", "Attention_step_by_step"),
        ("pages/4_Multi_head_attention.py", "Multi-head attention", "🎛️", "Multi_head_attention"),
        ("pages/7_Paper_figures.py", "Paper figures", "📄", "Paper_figures"),
        ("pages/8_Head_inspector.py", "Head inspector", "🧭", "Head_inspector"),
    ],
    "The layers": [
        ("pages/5_Encoder_layer.py", "Encoder layer", "🧱", "Encoder_layer"),
    ],
    "Generation": [
        ("pages/6_Decoder_and_generation.py", "Decoder and generation", "✍️", "Decoder_and_generation"),
    ],
    "Classroom": [
        ("pages/9_Worked_examples.py", "Worked examples", "✏️", "Worked_examples"),
        ("pages/10_Train_it_yourself.py", "Train it yourself", "🏋️", "Train_it_yourself"),
    ],
}

st.navigation(
    {
        section: [
            st.Page(file, title=title, icon=icon, url_path=url or None, default=not url)
            for file, title, icon, url in pages
        ]
        for section, pages in SECTIONS.items()
    },
    expanded=True,
).run()
