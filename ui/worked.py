"""The worked examples page's inputs, steps and figures (§3.2.1 Eq. 1, §3.1 LayerNorm, §3.2.2 multi-head
shapes, §4 Table 1): each example's widgets, its numbers from `analysis.worked` (the model's own
functions) and its figure or table."""

from __future__ import annotations

import math

import streamlit as st

from analysis import worked
from ui import state
from ui.render import show_figure, show_table
from ui.url_state import url_widget
from viz import worked as viz_worked

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


def attention_example(colors: dict) -> bool:
    """Editors for Q, K and V, then every step of Eq. 1 on them; False when they do not parse or fit."""
    for key, value in EDITORS.items():  # in the link as "q", "k", "v" when edited
        url_widget(key.removeprefix("wk_"), key, worked.format_matrix(value), max_items=500)
    presenting = state.presenter()  # the button beside the boxes: the figure fits on a projector's screen
    cols = st.columns([1, 1, 1, 1.1], vertical_alignment="bottom") if presenting else st.columns(3)
    texts = [
        cols[i].text_area(f"{name} (one row per token)", key=key, height=110)
        for i, (name, key) in enumerate((("Q", "wk_q"), ("K", "wk_k"), ("V", "wk_v")))
    ]
    (cols[3] if presenting else st).button("Back to the example", key="wk_reset", on_click=_reset_matrices)
    q, k, v = (_parsed(name, text, worked.parse_matrix) for name, text in zip("QKV", texts, strict=True))
    if q is None or k is None or v is None:
        return False
    try:
        steps = worked.attention_steps(q, k, v)
    except ValueError as err:
        st.error(f"These matrices do not fit together: {err}.")
        return False
    show_figure(
        viz_worked.attention_steps(steps, colors["sequential"]),
        key="wk_steps",
        caption=f"d_k = {steps.d_k}, so the scores are divided by √{steps.d_k} ≈ "
        f"{math.sqrt(steps.d_k):.3f}. Each softmax row sums to 1; each output row "
        "is that row's weighted average of the rows of V.",
    )
    return True


def softmax_example(cat: list[str]) -> None:
    """Scores to type and a factor to multiply them by, and both softmaxes side by side."""
    url_widget("scores", "wk_scores", "2 1 0.1", max_items=200)
    scores_text = st.text_input("Scores", key="wk_scores")
    url_widget("factor", "wk_factor", 5, low=1, high=20)
    factor = st.slider("Multiply the scores by", 1, 20, key="wk_factor")
    scores = _parsed("Scores", scores_text, worked.parse_vector)
    if scores is not None:
        show_figure(
            viz_worked.softmax_bars(
                scores,
                {
                    "softmax(x)": worked.softmax(scores),
                    f"softmax({factor}·x)": worked.softmax(scores * factor),
                },
                cat,
            ),
            key="wk_softmax",
        )


def saturation_figure(cat: list[str]):
    """The variance of q·k against d_k, and the largest softmax weight with and without ÷√d_k."""
    return viz_worked.saturation(worked.saturation(), cat)


def layer_norm_example(cat: list[str]) -> None:
    """A vector to type, and its LayerNorm step by step: a table and the bars before and after."""
    url_widget("ln", "wk_ln", "3 5 2 8", max_items=200)
    norm_text = st.text_input("A vector", key="wk_ln")
    vector = _parsed("Vector", norm_text, worked.parse_vector)
    if vector is None:
        return
    try:
        ln = worked.layer_norm(vector)
    except ValueError as err:
        st.error(f"{err}.")
        return
    show_table(
        {
            "step": ["mean", "variance (÷ n)", "standard deviation", "normalised"],
            "value": [
                f"{ln.mean:.4f}",
                f"{ln.variance:.4f}",
                f"{ln.std:.4f}",
                ", ".join(f"{x:.2f}" for x in ln.normalised.tolist()),
            ],
        },
        key="wk_ln_table",
    )
    show_figure(
        viz_worked.layer_norm_bars(ln.x, ln.normalised, cat),
        key="wk_ln_bars",
        caption="With [3, 5, 2, 8]: mean 4.5, variance 5.25, standard deviation ≈ 2.29, "
        "so (3 − 4.5) / 2.29 ≈ −0.65 and so on.",
    )


def shapes_example() -> None:
    """T, d_model and h to pick, and the shape of every step of multi-head attention on them."""
    cols = st.columns(3)
    url_widget("tokens", "wk_tokens", 5, low=1, high=64)
    tokens = cols[0].number_input("tokens T", 1, 64, key="wk_tokens")
    url_widget("dmodel", "wk_dmodel", 512, [16, 64, 128, 256, 512])
    d_model = cols[1].selectbox("d_model", [16, 64, 128, 256, 512], key="wk_dmodel")
    url_widget("h", "wk_heads", 8, [1, 2, 4, 8, 16])
    n_heads = cols[2].selectbox("heads h", [1, 2, 4, 8, 16], key="wk_heads")
    rows = worked.multihead_shapes(int(tokens), d_model, n_heads)
    show_table(
        {"step": [r[0] for r in rows], "shape": [" × ".join(map(str, r[1])) for r in rows]}, key="wk_shapes"
    )
    st.caption(
        f"d_k = {d_model} / {n_heads} = {d_model // n_heads}. The batch dimension is left out; "
        "per-head shapes are (h, T, ·)."
    )


def table_1() -> dict:
    """The paper's Table 1, a column per heading."""
    return {
        "layer type": [t.name for t in worked.TABLE_1],
        "complexity per layer": [t.complexity for t in worked.TABLE_1],
        "sequential operations": [t.sequential for t in worked.TABLE_1],
        "maximum path length": [t.path_length for t in worked.TABLE_1],
    }


def cost_example(cat: list[str]) -> None:
    """d, k and r to pick, and each layer type's work and path length against the sequence length n."""
    cols = st.columns(3)
    url_widget("d", "wk_d", 512, [64, 128, 256, 512, 1024, 2048])
    d = cols[0].select_slider("d", [64, 128, 256, 512, 1024, 2048], key="wk_d")
    url_widget("kw", "wk_k_width", 3, low=2, high=9)
    k = cols[1].slider("k (kernel width)", 2, 9, key="wk_k_width")
    url_widget("r", "wk_r", 16, low=2, high=128)
    r = cols[2].slider("r (restricted neighbourhood)", 2, 128, key="wk_r")
    n = worked.sequence_lengths()
    names = [t.name for t in worked.TABLE_1]
    show_figure(
        viz_worked.complexity(
            n,
            {name: worked.cost(name, n, d, k, r) for name in names},
            f"Work per layer against n (d = {d}, k = {k}, r = {r})",
            cat,
            "operations (without constants)",
        ),
        key="wk_cost",
        caption=f"Self-attention (n²·d) is cheaper than a recurrent layer (n·d²) while n < d = {d}: "
        "true for most sentences, which is the paper's argument.",
    )
    show_figure(
        viz_worked.complexity(
            n,
            {name: worked.path_length(name, n, k, r) for name in names},
            "Maximum path length against n",
            cat,
            "layers between two positions",
        ),
        key="wk_path",
    )
