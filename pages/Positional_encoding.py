"""Positional encoding (paper §3.5): the sin/cos table, its curves, position similarity, PE(pos+k) as a
linear map of PE(pos), and what the encoder's attention looks like without positions."""

from __future__ import annotations

import streamlit as st

from ui.frame import header

header("Positional encoding", icon=":material/waves:")  # on screen while PyTorch is imported
st.markdown(
    "Attention compares every token with every other token, but nothing in that comparison says "
    "where a token stands: the same words in any order would look the same. The paper fixes this by "
    "adding a **positional encoding** PE(pos) to each token's scaled embedding. It is not learned: "
    "each pair of dimensions (2i, 2i+1) holds a sine and a cosine of the position, each pair turning "
    "at its own speed."
)
st.latex(r"PE_{(pos,\,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right) \qquad "
         r"PE_{(pos,\,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)")
from analysis import inputs as analysis  # noqa: E402
from transformer.embeddings import sinusoidal_encoding  # noqa: E402
from ui import model as model_io  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.render import column_width, figure_columns, show_figure  # noqa: E402
from ui.sidebar import attention_picker  # noqa: E402
from ui.url_state import url_widget  # noqa: E402
from viz import positional as viz_pos  # noqa: E402
from viz.heatmap import attention_heatmap  # noqa: E402
from viz.labels import token_labels  # noqa: E402
from viz.palette import diverging_note  # noqa: E402

p = setup()
require_sentence(p)
cfg = p.lm.model.config
trace = model_io.trace(p.lm.model_id, p.src.text, target_ids=())
n_src = len(trace.src_pieces)
table = sinusoidal_encoding(cfg.max_len, cfg.d_model, cfg.pe_layout)  # the very table the model adds (T, D)
half = cfg.pe_layout == "half_split"  # a Marian checkpoint: sines in the first half, cosines in the second
if half:
    st.info(
        "This model stores the same sines and cosines in another order: the sine of pair i in dimension "
        f"i and its cosine in dimension {cfg.d_model // 2} + i (Marian's layout), not side by side. "
        "Every figure below draws the table this model really adds."
    )
    angle = r"\left(\frac{pos}{10000^{2i/d_{model}}}\right)"
    st.latex(rf"PE_{{(pos,\,i)}} = \sin\!{angle} \qquad PE_{{(pos,\,{cfg.d_model // 2}+i)}} = \cos\!{angle}")


@st.cache_data(max_entries=32, show_spinner="Running the encoder without positions…")
def _without_positions(model_id: str, src_ids: tuple[int, ...], order: tuple[int, ...]):
    # model_id keys the cache to the weights; the model itself is the shared cached one.
    return analysis.without_positions(model_io.by_id(model_id).model, list(src_ids), list(order))


st.header("1 · The whole table")
url_widget("positions", "pe_positions", min(cfg.max_len, max(64, n_src)), low=8, high=cfg.max_len)
n_show = st.slider("Positions to show", 8, cfg.max_len, key="pe_positions")
show_figure(
    viz_pos.pe_heatmap(table[:n_show], colorscale=p.colors["diverging"]),
    key="pe_matrix",
    caption=f"Your sentence has {n_src} tokens, so the encoder adds rows 0 to {n_src - 1}. Left (low "
    "dimensions): fast waves; right (high dimensions): slow waves that barely change over a sentence. "
    f"{diverging_note(p.colors).capitalize()}.",
)

st.header("2 · One dimension at a time")
st.markdown(
    "Each dimension is a wave over the positions. Dimension 0 (a sine) repeats every 2π ≈ 6.3 "
    f"positions; the wavelength grows with the dimension, up to 10000·2π for the last pair of "
    f"d_model = {cfg.d_model}. Pick dimensions to compare."
)
pair = cfg.d_model // 2 if half else 1  # how far a sine's cosine lies
url_widget("dims", "pe_dims", [0, pair, 10, 10 + pair, cfg.d_model // 2 + (10 if half else 0)],
           list(range(cfg.d_model)), max_items=8)
dims = st.multiselect("Dimensions", list(range(cfg.d_model)), key="pe_dims", max_selections=8)
if dims:
    which = (f"Dimensions 0 to {pair - 1} are sines, {pair} to {cfg.d_model - 1} cosines of the same angles."
             if half else "Even dimensions are sines, odd dimensions cosines of the same angle.")
    show_figure(viz_pos.pe_curves(table[:n_show], dims), key="pe_curves", caption=which)
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
    viz_pos.position_similarity_heatmap(analysis.position_similarity(table[:n_sim]),
                                        colorscale=p.colors["sequential"]),
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
st.latex(r"PE(pos+k) = M_k\,PE(pos), \qquad M_k = \mathrm{diag}\big(R(k\omega_0), \dots, "
         r"R(k\omega_{d/2-1})\big)")
st.latex(r"R(\theta) = \begin{pmatrix}\cos\theta & \sin\theta \\ -\sin\theta & \cos\theta\end{pmatrix}, "
         r"\qquad \omega_i = 10000^{-2i/d_{model}}")
url_widget("k", "pe_k", 3, low=1, high=50)
k = st.slider("Offset k", 1, 50, key="pe_k")
check = analysis.check_shift(table, k, cfg.pe_layout)
if half:
    st.caption(f"In this model's layout each rotation pairs dimension i with {cfg.d_model // 2} + i, so "
               "the 2×2 blocks of M_k sit spread over the matrix instead of along the diagonal.")
cols = figure_columns([2, 3])
with cols[0]:
    url_widget("whole", "pe_whole_matrix", False)
    corner = st.toggle("Show the whole matrix", key="pe_whole_matrix")
    show_figure(viz_pos.shift_matrix_heatmap(check.matrix, k, None if corner else 16, p.colors["diverging"],
                                             max_width=column_width(2.5, p.sel)),
                key="pe_shift_matrix", caption=f"{diverging_note(p.colors).capitalize()}.")
with cols[1]:
    st.metric(f"largest |M_k·PE(pos) − PE(pos+k)| over {check.actual.shape[0]} positions × "
              f"{cfg.d_model} dims", f"{check.max_error:.2e}")
    n_points = max(1, n_show - k)  # the positions drawn in section 1, to keep the page light
    show_figure(viz_pos.shift_scatter(check.predicted[:n_points], check.actual[:n_points], k),
                key="pe_shift_scatter",
                caption=f"Every entry for positions 0 to {n_points - 1} (as in section 1), predicted "
                "against real: on the line means equal (the tiny gap is float32 rounding).")

st.header("5 · Without positions, word order is lost")
st.markdown(
    "What if the encoding were left out? Below, the model runs twice on your sentence with PE "
    "replaced by zeros (through a hook, the shared model is not changed): once in your word order, "
    "once with the words shuffled. Each token then attends to the other tokens with **exactly the "
    "same weights**, only the rows and columns trade places: the encoder cannot tell the two orders "
    "apart. With PE switched back on, the weights really change."
)


# Only this section changes with the layer and head: a fragment, so moving them reruns it alone, not
# the table, the waves and the matrices above (the two runs without positions are cached per sentence
# and shuffle; a head change draws that head's two maps).
@st.fragment
def without_positions_view() -> None:
    page = fresh(p)
    sel = attention_picker(page, stacks=("encoder",))
    url_widget("shuffle", "pe_shuffle_seed", 0, low=0, high=10_000)
    seed = st.number_input("Shuffle (change the number for another order)", 0, 10_000, key="pe_shuffle_seed")
    order = analysis.word_shuffle(trace.src_pieces, int(seed))
    result = _without_positions(page.lm.model_id, tuple(trace.src_ids), tuple(order))
    labels = token_labels(trace.src_pieces, page.sel.pieces)
    shuffled_labels = [labels[i] for i in order]
    st.caption(f"Encoder self-attention, layer {sel.show_layer()} of {cfg.n_layers}, head {sel.show_head()} "
               f"of {cfg.n_heads} ({sel.numbering}), positional encoding removed.")
    where = f"L{sel.show_layer()} H{sel.show_head()}, no PE"
    plain_fig, shuffled_fig = viz_pos.shuffle_pair(
        result.plain[sel.layer, sel.head], result.shuffled[sel.layer, sel.head], labels, shuffled_labels,
        where, page.colors["sequential"], column_width(2, page.sel))  # fmt: skip
    cols = figure_columns(2)
    with cols[0]:
        show_figure(plain_fig, key="pe_noposition_plain")
    with cols[1]:
        show_figure(shuffled_fig, key="pe_noposition_shuffled")
    st.text("Shuffled: " + " ".join(trace.src_pieces[i] for i in order))
    cols = st.columns(2)
    cols[0].metric("largest difference without PE", f"{result.max_diff_without_pe:.1e}")
    cols[1].metric("the same with PE", f"{result.max_diff_with_pe:.3f}")
    st.caption("Over all layers and heads, after undoing the shuffle.")  # a long metric label was cut
    with st.expander("The shuffled pattern put back in your order"):
        show_figure(
            attention_heatmap(result.restored()[sel.layer, sel.head], labels, labels,
                              f"{where}, shuffled then put back", page.colors["sequential"]),
            key="pe_noposition_restored",
            caption="Identical to the left-hand figure above: without PE, shuffling changed nothing but "
            "the order.",
        )


without_positions_view()
