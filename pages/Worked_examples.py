"""Worked examples: small numbers you can check by hand (paper §3.2.1 Eq. 1, §3.1 LayerNorm,
§3.2.2 multi-head shapes, §4 Table 1), every result computed by the model's own functions."""

from __future__ import annotations

import math

import streamlit as st

from ui.frame import header

header("Worked examples", icon=":material/edit:")  # on screen while PyTorch is imported
st.markdown(
    "Small examples you can follow with pen and paper. The numbers are not typed in by hand: each one is "
    "computed by the same code the model runs, so the page doubles as a check that the code does what "
    "the paper says. Edit any input and every step updates."
)
from analysis import worked  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.render import show_figure, show_table  # noqa: E402
from ui.url_state import url_widget  # noqa: E402
from viz import worked as viz_worked  # noqa: E402

p = setup()
cat = p.colors["categorical"]
EDITORS = {"wk_q": worked.SEED_Q, "wk_k": worked.SEED_K, "wk_v": worked.SEED_V}


def _reset_matrices() -> None:
    for key, value in EDITORS.items():
        st.session_state[key] = worked.format_matrix(value)


def _parsed(label: str, text: str, parse):
    """The parsed input, or None after showing what is wrong with it."""
    try:
        return parse(text)
    except ValueError as err:
        st.error(f"{label}: {err}.")
        return None


tab_attn, tab_softmax, tab_norm, tab_heads, tab_table = st.tabs(
    ["Attention on 2 tokens", "Softmax and √d_k", "LayerNorm", "Multi-head shapes", "Table 1: cost"])

with tab_attn:
    st.markdown(
        "Two tokens, say *The* and *cat*, with d_k = 2. Their queries and keys are the unit vectors "
        "[1, 0] and [0, 1]: each token matches itself and not the other. Their values are [2, 3] and "
        "[4, 5]. One number per entry, one row per token; edit them freely (up to 8 × 8)."
    )
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right) V")
    for key, value in EDITORS.items():  # in the link as "q", "k", "v" when edited
        url_widget(key.removeprefix("wk_"), key, worked.format_matrix(value), max_items=500)
    cols = st.columns(3)
    texts = [cols[i].text_area(f"{name} (one row per token)", key=key, height=110)
             for i, (name, key) in enumerate((("Q", "wk_q"), ("K", "wk_k"), ("V", "wk_v")))]
    st.button("Back to the example", key="wk_reset", on_click=_reset_matrices)
    q, k, v = (_parsed(name, text, worked.parse_matrix) for name, text in zip("QKV", texts, strict=True))
    if q is not None and k is not None and v is not None:
        try:
            steps = worked.attention_steps(q, k, v)
        except ValueError as err:
            st.error(f"These matrices do not fit together: {err}.")
        else:
            show_figure(viz_worked.attention_steps(steps, p.colors["sequential"]), key="wk_steps",
                        caption=f"d_k = {steps.d_k}, so the scores are divided by √{steps.d_k} ≈ "
                                f"{math.sqrt(steps.d_k):.3f}. Each softmax row sums to 1; each output row "
                                "is that row's weighted average of the rows of V.")
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
    url_widget("scores", "wk_scores", "2 1 0.1", max_items=200)
    scores_text = st.text_input("Scores", key="wk_scores")
    url_widget("factor", "wk_factor", 5, low=1, high=20)
    factor = st.slider("Multiply the scores by", 1, 20, key="wk_factor")
    scores = _parsed("Scores", scores_text, worked.parse_vector)
    if scores is not None:
        show_figure(viz_worked.softmax_bars(scores, {"softmax(x)": worked.softmax(scores),
                                                     f"softmax({factor}·x)": worked.softmax(scores * factor)},
                                            cat),
                    key="wk_softmax")
    st.markdown(
        "Why that matters here: if the entries of a query and a key are random with mean 0 and variance "
        "1, their dot product adds up d_k such products, so its variance is d_k. With d_k = 64 "
        "(the paper's heads) typical scores are about 8 times larger than with d_k = 1, the softmax "
        "saturates on one key and its gradients almost vanish. Dividing by √d_k brings the variance "
        "back to 1. The left panel measures the variance on random vectors; the right one shows the "
        "largest of 10 softmax weights with and without the division."
    )
    show_figure(viz_worked.saturation(worked.saturation(), cat), key="wk_saturation",
                caption="2,000 random query/key draws per d_k (fixed seed).")

with tab_norm:
    st.markdown(
        "Each sub-layer's output goes through LayerNorm: the numbers of one token's vector are shifted "
        "to mean 0 and scaled to variance 1 (then a learned gain and bias are applied; they start at 1 "
        "and 0 and are left out here)."
    )
    url_widget("ln", "wk_ln", "3 5 2 8", max_items=200)
    norm_text = st.text_input("A vector", key="wk_ln")
    vector = _parsed("Vector", norm_text, worked.parse_vector)
    if vector is not None:
        try:
            ln = worked.layer_norm(vector)
        except ValueError as err:
            st.error(f"{err}.")
        else:
            show_table({
                "step": ["mean", "variance (÷ n)", "standard deviation", "normalised"],
                "value": [f"{ln.mean:.4f}", f"{ln.variance:.4f}", f"{ln.std:.4f}",
                          ", ".join(f"{x:.2f}" for x in ln.normalised.tolist())],
            }, key="wk_ln_table")
            show_figure(viz_worked.layer_norm_bars(ln.x, ln.normalised, cat), key="wk_ln_bars",
                        caption="With [3, 5, 2, 8]: mean 4.5, variance 5.25, standard deviation ≈ 2.29, "
                                "so (3 − 4.5) / 2.29 ≈ −0.65 and so on.")

with tab_heads:
    st.markdown(
        "Multi-head attention does not make h copies of the work. Q, K and V are each projected once "
        "with a d_model × d_model matrix plus a bias (Q = XW^Q + b^Q; the paper writes no bias, this "
        "model has one: see the README's deviations) and then *cut* into h slices of d_k = d_model / h "
        "columns. Each head attends within its slice, the h outputs are put side by side again (Concat) "
        "and mixed by W^O, plus its bias b^O. The shapes below are recorded from the model's own "
        "attention module."
    )
    cols = st.columns(3)
    url_widget("tokens", "wk_tokens", 5, low=1, high=64)
    tokens = cols[0].number_input("tokens T", 1, 64, key="wk_tokens")
    url_widget("dmodel", "wk_dmodel", 512, [16, 64, 128, 256, 512])
    d_model = cols[1].selectbox("d_model", [16, 64, 128, 256, 512], key="wk_dmodel")
    url_widget("h", "wk_heads", 8, [1, 2, 4, 8, 16])
    n_heads = cols[2].selectbox("heads h", [1, 2, 4, 8, 16], key="wk_heads")
    rows = worked.multihead_shapes(int(tokens), d_model, n_heads)
    show_table({"step": [r[0] for r in rows], "shape": [" × ".join(map(str, r[1])) for r in rows]},
               key="wk_shapes")
    st.caption(f"d_k = {d_model} / {n_heads} = {d_model // n_heads}. The batch dimension is left out; "
               "per-head shapes are (h, T, ·).")

with tab_table:
    st.markdown(
        "The paper's Table 1 compares one layer of each kind on a sequence of n positions with vectors "
        "of size d (k: convolution kernel width, r: neighbourhood of restricted self-attention). "
        "**Sequential operations** count the steps that must wait for each other; **maximum path "
        "length** is how many layers a signal needs to connect two far-apart positions."
    )
    show_table({"layer type": [t.name for t in worked.TABLE_1],
                "complexity per layer": [t.complexity for t in worked.TABLE_1],
                "sequential operations": [t.sequential for t in worked.TABLE_1],
                "maximum path length": [t.path_length for t in worked.TABLE_1]},
               key="wk_table1")
    cols = st.columns(3)
    url_widget("d", "wk_d", 512, [64, 128, 256, 512, 1024, 2048])
    d = cols[0].select_slider("d", [64, 128, 256, 512, 1024, 2048], key="wk_d")
    url_widget("kw", "wk_k_width", 3, low=2, high=9)
    k = cols[1].slider("k (kernel width)", 2, 9, key="wk_k_width")
    url_widget("r", "wk_r", 16, low=2, high=128)
    r = cols[2].slider("r (restricted neighbourhood)", 2, 128, key="wk_r")
    n = worked.sequence_lengths()
    names = [t.name for t in worked.TABLE_1]
    show_figure(viz_worked.complexity(n, {name: worked.cost(name, n, d, k, r) for name in names},
                                      f"Work per layer against n (d = {d}, k = {k}, r = {r})", cat,
                                      "operations (without constants)"),
                key="wk_cost",
                caption=f"Self-attention (n²·d) is cheaper than a recurrent layer (n·d²) while n < d = {d}: "
                        "true for most sentences, which is the paper's argument.")
    show_figure(viz_worked.complexity(n, {name: worked.path_length(name, n, k, r) for name in names},
                                      "Maximum path length against n", cat, "layers between two positions"),
                key="wk_path")
