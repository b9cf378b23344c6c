"""Worked examples: small numbers you can check by hand (paper §3.2.1 Eq. 1, §3.1 LayerNorm,
§3.2.2 multi-head shapes, §4 Table 1), every result computed by the model's own functions."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro

header("Worked examples", icon=":material/edit:")  # on screen while PyTorch is imported
intro(
    "Small examples you can follow with pen and paper. The numbers are not typed in by hand: each one is "
    "computed by the same code the model runs, so the page doubles as a check that the code does what "
    "the paper says. Edit any input and every step updates.",
    sentence=False,  # its numbers are its own: no box for the sentence
)
from ui import worked  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.render import figure_first, show_figure, show_table  # noqa: E402

p = setup()
cat = p.colors["categorical"]

tab_attn, tab_softmax, tab_norm, tab_heads, tab_table = st.tabs(
    ["Attention on 2 tokens", "Softmax and √d_k", "LayerNorm", "Multi-head shapes", "Table 1: cost"]
)

with tab_attn:
    example = figure_first()
    st.markdown(
        "Two tokens, say *The* and *cat*, with d_k = 2. Their queries and keys are the unit vectors "
        "[1, 0] and [0, 1]: each token matches itself and not the other. Their values are [2, 3] and "
        "[4, 5]. One number per entry, one row per token; edit them freely (up to 8 × 8)."
    )
    with example:
        st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")
        shown = worked.attention_example(p.colors)
    if shown:
        st.markdown(
            "With the starting numbers: Q·Kᵀ is the identity, ÷√2 gives 0.707 on the diagonal, and "
            "softmax([0.707, 0]) = [e^0.707, 1] / (e^0.707 + 1) ≈ [0.67, 0.33]. So *The* keeps two "
            "thirds of its own value and takes one third of *cat*'s: 0.67·[2, 3] + 0.33·[4, 5] ≈ "
            "[2.66, 3.66]. *cat* gets ≈ [3.34, 4.34]."
        )

with tab_softmax:
    st.markdown(
        "Softmax turns any list of scores into positive weights that sum to 1; bigger scores get more. "
        "It only cares about differences between scores, and it is very sensitive to their size: "
        "multiply all scores by a large number and nearly all weight goes to the largest one."
    )
    worked.softmax_example(cat)
    st.markdown(
        "Why that matters here: if the entries of a query and a key are random with mean 0 and variance "
        "1, their dot product adds up d_k such products, so its variance is d_k. With d_k = 64 "
        "(the paper's heads) typical scores are about 8 times larger than with d_k = 1, the softmax "
        "saturates on one key and its gradients almost vanish. Dividing by √d_k brings the variance "
        "back to 1. The left panel measures the variance on random vectors; the right one shows the "
        "largest of 10 softmax weights with and without the division."
    )
    show_figure(
        worked.saturation_figure(cat),
        key="wk_saturation",
        caption="2,000 random query/key draws per d_k (fixed seed).",
    )

with tab_norm:
    st.markdown(
        "Each sub-layer's output goes through LayerNorm: the numbers of one token's vector are shifted "
        "to mean 0 and scaled to variance 1 (then a learned gain and bias are applied; they start at 1 "
        "and 0 and are left out here)."
    )
    worked.layer_norm_example(cat)

with tab_heads:
    st.markdown(
        "Multi-head attention does not make h copies of the work. Q, K and V are each projected once "
        "with a d_model × d_model matrix plus a bias (Q = XW^Q + b^Q; the paper writes no bias, this "
        "model has one: see the README's deviations) and then *cut* into h slices of d_k = d_model / h "
        "columns. Each head attends within its slice, the h outputs are put side by side again (Concat) "
        "and mixed by W^O, plus its bias b^O. The shapes below are recorded from the model's own "
        "attention module."
    )
    worked.shapes_example()

with tab_table:
    st.markdown(
        "The paper's Table 1 compares one layer of each kind on a sequence of n positions with vectors "
        "of size d (k: convolution kernel width, r: neighbourhood of restricted self-attention). "
        "**Sequential operations** count the steps that must wait for each other; **maximum path "
        "length** is how many layers a signal needs to connect two far-apart positions."
    )
    show_table(worked.table_1(), key="wk_table1")
    worked.cost_example(cat)
