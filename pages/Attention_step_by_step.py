"""Scaled dot-product attention, step by step (paper §3.2.1, Figure 2 left), for one chosen head."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro
from viz.palette import diverging_note

# on screen while PyTorch is imported
header("Scaled dot-product attention, step by step", icon=":material/calculate:")
intro(
    "One attention head takes a **query** for every position that is looking, and a **key** and a "
    "**value** for every position it may look at. It scores each query against each key, turns the "
    "scores of a row into weights that sum to 1, and returns the weighted average of the values. "
    "Pick a stack, an attention sub-layer, a layer and a head; every number below is the model's own."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
from ui import model as model_io  # noqa: E402
from ui import rows, steps  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.sidebar import attention_picker  # noqa: E402
from ui.uniform import uniform_note  # noqa: E402

PAGE = setup()
require_sentence(PAGE)
cfg = PAGE.lm.model.config


# Everything below changes with the stack, layer, head or query: a fragment, so moving a slider reruns
# only this part of the page. A layer, a head or another followed query is drawn in the browser first
# (ui.steps.switch_in_browser); the rerun keeps the URL in step and draws the same picture.
@st.fragment
def steps_view() -> None:
    p = fresh(PAGE)
    sel = attention_picker(p)
    trace = model_io.decoder_trace(p.lm.model_id, p.src.text, sel.decoder_choice)
    if trace is None:
        st.stop()

    steps.show_heading(sel, cfg.n_layers, cfg.n_heads)
    rows.decoder_caption(p.lm.model_id, p.src.text, sel)

    row = steps.query_picker(p.lm.model_id, trace, sel)
    figs = steps.step_figures(p.lm.model_id, p.src.text, sel, row)
    shown: list[str] = []
    step = steps.stepper(sel, figs, shown)

    source = "the decoder" if sel.stack == "decoder" else "the encoder"
    kv_source = "the encoder's output" if sel.kind == "cross" else "the same sequence"
    step(
        "1 · Queries, keys and values",
        steps.QKV_FORMULA,
        f"Each position's vector (d_model = {cfg.d_model}) is projected three times by this head's own "
        f"matrices into d_k = {cfg.d_k} numbers. Queries come from {source}; keys and values come from "
        f"{kv_source}. The paper writes the projections without the bias vectors b; this model has them "
        "(a listed deviation), and the numbers below include them.",
        ["q", "k", "v"] if sel.presenter else ["qkv"],
        f"Rows = tokens, columns = the head's d_k dimensions. Hover for exact values. Colours here, in the "
        f"score matrices and in Z below: {diverging_note(p.colors)}.",
    )
    step(
        "2 · Scores: every query against every key",
        r"S = QK^\top,\qquad S_{ij} = q_i \cdot k_j",
        "Entry (i, j) is the dot product of query i with key j: large when the two point the same way. "
        "Here every query meets every key; the result reaches the other positions in step 6, when the "
        "weights mix their values.",
        ["qk"],
    )
    step(
        "3 · Scaling by √d_k",
        r"\tilde S = \frac{QK^\top}{\sqrt{d_k}}",
        f"Here d_k = {cfg.d_k}, so every score is divided by √{cfg.d_k} = {cfg.d_k**0.5:g}. A dot product "
        "of d_k terms grows with d_k; without the division, large scores would push the softmax to all-or-"
        "nothing, where its gradients vanish.",
        ["scores"],
    )
    mask_text = {
        ("encoder", "self"): "Encoder self-attention only blocks padding. One sentence has none, so nothing "
        "is blocked here: every token may look at every token, before and after it.",
        ("decoder", "self"): "Decoder self-attention is **causal**: position i may only look at positions "
        "up to i. The model is trained to predict the next token, so it must not peek at it.",
        ("decoder", "cross"): "Encoder-decoder attention only blocks source padding. Every decoder position "
        "may look at every source token.",
    }[(sel.stack, sel.kind)]
    blocks = (sel.stack, sel.kind) == ("decoder", "self")  # one sentence, no padding: only causal blocks
    step(
        "4 · The mask",
        r"M_{ij} = \begin{cases} 0 & \text{if } i \text{ may attend to } j \\ -\infty & \text{otherwise}"
        r"\end{cases}",
        mask_text + " Blocked cells get −∞, so after the softmax their weight is exactly 0.",
        ["mask", "masked"] if blocks else ["mask"],  # nothing blocked: the masked scores are step 3's
        "Gaps marked −∞ (blocked) on hover." if blocks else "Nothing is blocked here, so the scores after "
        "the mask are exactly step 3's scores (the decoder's self-attention shows both).",
    )  # fmt: skip
    step(
        "5 · Softmax: scores become weights",
        r"\alpha_{ij} = \frac{e^{\tilde S_{ij} + M_{ij}}}{\sum_{j'} e^{\tilde S_{ij'} + M_{ij'}}}",
        "Each row is turned into positive weights that add up to 1: how much query i takes from each key. "
        "This is the attention pattern the other pages draw.",
        ["pattern"],
    )
    uniform_note(trace, sel.stack, sel.kind, sel.layer, sel.head)
    step(
        "6 · Weighted sum of the values",
        r"z_i = \sum_j \alpha_{ij}\, v_j, \qquad Z = \alpha V",
        f"Each query's output is the average of the value rows, weighted by its row of α: d_v = {cfg.d_k} "
        "numbers per position (the paper takes d_v = d_k = d_model / h). The h heads' outputs are then "
        "concatenated and mixed by W^O (next page).",
        ["z"],
    )

    if row is not None:
        st.header("One query, start to finish")
        steps.show_journey(figs, shown)
        steps.show_neuron(figs, shown, cfg.d_k, p.colors)
    steps.switch_in_browser(p.lm.model_id, p.src.text, sel, row, shown)


steps_view()
