"""Positional encoding (paper §3.5): the sin/cos table, its curves, position similarity, PE(pos+k) as a
linear map of PE(pos), and what the encoder's attention looks like without positions."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro
from ui.url_state import url_widget
from viz.palette import diverging_note

header("Positional encoding", icon=":material/waves:")  # on screen while PyTorch is imported
intro(
    "Attention compares every token with every other token, but nothing in that comparison says "
    "where a token stands: the same words in any order would look the same. The paper fixes this by "
    "adding a **positional encoding** PE(pos) to each token's scaled embedding. It is not learned: "
    "each pair of dimensions (2i, 2i+1) holds a sine and a cosine of the position, each pair turning "
    "at its own speed."
)
st.latex(
    r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
    r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
)
from ui import model as model_io  # noqa: E402
from ui import positional  # noqa: E402
from ui.page import require_sentence, setup  # noqa: E402
from ui.render import show_figure  # noqa: E402

p = setup()
require_sentence(p)
cfg = p.lm.model.config
trace = model_io.trace(p.lm.model_id, p.src.text, target_ids=())
n_src = len(trace.src_pieces)
table = positional.table(cfg)  # the very table the model adds (T, D)
half = cfg.pe_layout == "half_split"  # a Marian checkpoint: sines in the first half, cosines in the second
if half:
    st.info(
        "This model stores the same sines and cosines in another order: the sine of pair i in dimension "
        f"i and its cosine in dimension {cfg.d_model // 2} + i (Marian's layout), not side by side. "
        "Every figure below draws the table this model really adds."
    )
    angle = r"\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
    st.latex(rf"PE_{{(pos,\,i)}} = \sin\!{angle} \qquad PE_{{(pos,\,{cfg.d_model // 2}+i)}} = \cos\!{angle}")

st.header("1 · The whole table")
url_widget("positions", "pe_positions", min(cfg.max_len, max(64, n_src)), low=8, high=cfg.max_len)
n_show = st.slider("Positions to show", 8, cfg.max_len, key="pe_positions")
show_figure(
    positional.table_figure(table, n_show, p.colors),
    key="pe_matrix",
    caption=f"Your sentence has {n_src} tokens, so the encoder adds rows 0 to {n_src - 1}. Left (low "
    "dimensions): fast waves; right (high dimensions): slow waves that barely change over a sentence. "
    f"{diverging_note(p.colors).capitalize()}.",
)

st.header("2 · One dimension at a time")
st.markdown(
    "Each dimension is a wave over the positions. Dimension 0 (a sine) repeats every 2π ≈ 6.3 "
    f"positions; the wavelength grows with the dimension, up to 2π · 10000^({cfg.d_model - 2}/{cfg.d_model}) "
    f"≈ 2π · {10000 ** ((cfg.d_model - 2) / cfg.d_model):,.0f} for the last pair of d_model = {cfg.d_model} "
    "(the paper's range, 2π to 10000 · 2π, is the limit for a wide model). Pick dimensions to compare."
)
pair = cfg.d_model // 2 if half else 1  # how far a sine's cosine lies
url_widget("dims", "pe_dims", positional.first_dims(cfg), list(range(cfg.d_model)), max_items=8)
dims = st.multiselect("Dimensions", list(range(cfg.d_model)), key="pe_dims", max_selections=8)
if dims:
    which = (f"Dimensions 0 to {pair - 1} are sines, {pair} to {cfg.d_model - 1} cosines of the same angles."
             if half else "Even dimensions are sines, odd dimensions cosines of the same angle.")  # fmt: skip
    show_figure(positional.curves_figure(table, n_show, dims), key="pe_curves", caption=which)
else:
    st.info("Pick at least one dimension to draw its curve.")

st.header("3 · Which positions look alike?")
st.markdown(
    "The dot product PE(p)·PE(q) is the same for every pair at the same distance |p − q|: it is "
    "largest on the diagonal and falls off with distance. So the encoding tells attention how far "
    "apart two tokens are, whatever their absolute positions."
)
n_sim = min(n_show, 64)
show_figure(
    positional.similarity_figure(table, n_sim, p.colors),
    key="pe_similarity",
    caption=f"Positions 0 to {n_sim - 1}.",
)

st.header("4 · Moving k positions on is a fixed linear map")
st.markdown(
    "The paper chose this encoding because, for any offset k, PE(pos + k) is a **linear function** "
    "of PE(pos). Each (sin, cos) pair is a point on a circle; moving k positions on turns that point "
    "by a fixed angle. So one matrix M_k, made of 2×2 rotation blocks, does it for every position at "
    "once. Below, M_k is built from the formula and checked against the model's real table."
)
st.latex(
    r"PE(pos+k) = M_k\,PE(pos), \qquad M_k = \mathrm{diag}\big(R(k\omega_0), \dots, "
    r"R(k\omega_{d/2-1})\big)"
)
st.latex(
    r"R(\theta) = \begin{pmatrix}\cos\theta & \sin\theta \\ -\sin\theta & \cos\theta\end{pmatrix}, "
    r"\qquad \omega_i = 10000^{-2i/d_{model}}"
)
url_widget("k", "pe_k", 3, low=1, high=50)
k = st.slider("Offset k", 1, 50, key="pe_k")
check = positional.shift_check(table, k, cfg)
if half:
    st.caption(
        f"In this model's layout each rotation pairs dimension i with {cfg.d_model // 2} + i, so "
        "the 2×2 blocks of M_k sit spread over the matrix instead of along the diagonal."
    )
positional.shift_view(check, k, n_show, p)

st.header("5 · Without positions, word order is lost")
st.markdown(
    "What if the encoding were left out? Below, the model runs twice on your sentence with PE "
    "replaced by zeros (through a hook, the shared model is not changed): once in your word order, "
    "once with the words shuffled. Each token then attends to the other tokens with **exactly the "
    "same weights**, only the rows and columns trade places: the encoder cannot tell the two orders "
    "apart. With PE switched back on, the weights really change."
)

positional.without_positions_view(p, trace)
