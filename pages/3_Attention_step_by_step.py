"""Scaled dot-product attention, step by step (paper §3.2.1, Figure 2 left), for one chosen head."""

from __future__ import annotations

import streamlit as st

from ui.frame import header

header("Scaled dot-product attention, step by step", icon="🧮")  # on screen while PyTorch is imported
from ui import model as model_io  # noqa: E402
from ui.layout import attention_picker, fresh, require_sentence, setup, show_figure  # noqa: E402
from ui.state import url_widget  # noqa: E402
from ui.uniform import uniform_note  # noqa: E402
from viz import steps as viz_steps  # noqa: E402
from viz.labels import plain, token_labels  # noqa: E402
from viz.palette import diverging_note  # noqa: E402

PAGE = setup()
require_sentence(PAGE)
cfg = PAGE.lm.model.config
st.markdown(
    "One attention head takes a **query** for every position that is looking, and a **key** and a "
    "**value** for every position it may look at. It scores each query against each key, turns the "
    "scores of a row into weights that sum to 1, and returns the weighted average of the values. "
    "Pick a stack, an attention sub-layer, a layer and a head; every number below is the model's own."
)
st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")


# Everything below changes with the stack, layer, head or query: a fragment, so moving a slider reruns
# and redraws only this part of the page (not the sidebar, the text and the formula above).
@st.fragment
def steps_view() -> None:
    p = fresh(PAGE)
    sel = attention_picker(p)
    trace = model_io.trace(p.lm.model_id, p.src.text)
    if trace is None:
        st.stop()

    def get(what: str):
        return trace.get(trace.attn_name(sel.stack, sel.kind, sel.layer, what))

    head = sel.head
    query_labels = token_labels(trace.query_pieces(sel.stack), p.sel.pieces)
    key_labels = token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces)
    where = (
        f"{sel.stack} {sel.kind}-attention, layer {sel.show_layer()} of {cfg.n_layers}, "
        f"head {sel.show_head()} of {cfg.n_heads} ({sel.numbering})"
    )
    st.subheader(where)
    if sel.stack == "decoder":
        st.caption(
            "Decoder positions are the decoder's input: `<s>` and then the model's own greedy "
            "translation, one position per token it has produced so far."
        )

    query_options = [None, *range(len(query_labels))]
    query_key = f"steps_query_{sel.stack}_{len(query_labels)}"
    url_widget("q", query_key, None, query_options)
    choice = st.selectbox(
        "Follow one query through every step (framed in red)",
        query_options,
        format_func=lambda i: "—" if i is None else plain(query_labels[i]),
        key=query_key,
    )
    row = choice
    figs = viz_steps.step_figures(
        get("q")[head],
        get("k")[head],
        get("v")[head],
        get("qk")[head],
        get("scores")[head],
        get("mask")[0],
        get("masked_scores")[head],
        get("pattern")[head],
        get("z")[head],
        query_labels,
        key_labels,
        sequential=p.colors["sequential"],
        diverging=p.colors["diverging"],
        highlight=row,
        context=f"L{sel.show_layer()} H{sel.show_head()}",
    )

    def step(title: str, formula: str, text: str, names: list[str], caption: str | None = None) -> None:
        """One step: its formula and explanation side by side, then its figure(s) at full width."""
        st.header(title)
        left, right = st.columns([2, 3])
        left.latex(formula)
        right.markdown(text)
        for col, name in zip(st.columns(len(names)), names):
            with col:
                show_figure(figs[name], key=f"steps_{name}")
        if caption:
            st.caption(caption)

    source = "the decoder" if sel.stack == "decoder" else "the encoder"
    kv_source = "the encoder's output" if sel.kind == "cross" else "the same sequence"
    step(
        "1 · Queries, keys and values",
        r"Q = X W_i^Q,\quad K = X' W_i^K,\quad V = X' W_i^V",
        f"Each position's vector (d_model = {cfg.d_model}) is projected three times by this head's own "
        f"matrices into d_k = {cfg.d_k} numbers. Queries come from {source}; keys and values come from "
        f"{kv_source}.",
        ["q", "k", "v"],
        f"Rows = tokens, columns = the head's d_k dimensions. Hover for exact values. Colours here, in the "
        f"score matrices and in Z below: {diverging_note(p.colors)}.",
    )
    step(
        "2 · Scores: every query against every key",
        r"S = QK^\top,\qquad S_{ij} = q_i \cdot k_j",
        "Entry (i, j) is the dot product of query i with key j: large when the two point the same way. "
        "This is the only place where positions meet.",
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
    step(
        "4 · The mask",
        r"M_{ij} = \begin{cases} 0 & \text{if } i \text{ may attend to } j \\ -\infty & \text{otherwise}"
        r"\end{cases}",
        mask_text + " Blocked cells get −∞, so after the softmax their weight is exactly 0.",
        ["mask", "masked"],
        "Gaps marked −∞ (blocked) on hover.",
    )
    step(
        "5 · Softmax: scores become weights",
        r"\alpha_{ij} = \frac{e^{\tilde S_{ij} + M_{ij}}}{\sum_{j'} e^{\tilde S_{ij'} + M_{ij'}}}",
        "Each row is turned into positive weights that add up to 1: how much query i takes from each key. "
        "This is the attention pattern the other pages draw.",
        ["pattern"],
    )
    uniform_note(trace, sel.stack, sel.kind, sel.layer, head)
    step(
        "6 · Weighted sum of the values",
        r"z_i = \sum_j \alpha_{ij}\, v_j, \qquad Z = \alpha V",
        f"Each query's output is the average of the value rows, weighted by its row of α: d_k = {cfg.d_k} "
        "numbers per position. The h heads' outputs are then concatenated and mixed by W^O (next page).",
        ["z"],
    )

    if row is not None:
        st.header("One query, start to finish")
        show_figure(
            viz_steps.query_journey(
                get("scores")[head][row],
                get("masked_scores")[head][row],
                get("pattern")[head][row],
                key_labels,
                query_labels[row],
                p.colors["categorical"][0],
            ),
            key="steps_journey",
            caption="Top: the row of scaled scores; bottom: the same row after the mask and softmax.",
        )


steps_view()
