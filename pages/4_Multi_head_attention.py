"""Multi-head attention (paper §3.2.2, Figure 2): all heads of a layer, the head view, the model
view, and how Concat(head_1..head_h) W^O puts the heads back together."""

from __future__ import annotations

import streamlit as st

from transformer.analysis.decoding import SPECIAL_PIECES
from ui import model as model_io
from ui.layout import attention_picker, page, require_sentence, show_figure
from ui.state import url_widget
from ui.uniform import uniform_note
from viz import multihead
from viz.labels import plain, token_labels
from viz.palette import diverging_note

p = page("Multi-head attention", icon="🎛️", snapshots=True)
model_io.step_slider()  # the numbers model ships weights from earlier training steps
require_sentence(p)
cfg = p.lm.model.config
st.markdown(
    f"One attention layer does not look at the sentence once but **h = {cfg.n_heads} times in parallel**. "
    f"Each head has its own small projections W_i^Q, W_i^K, W_i^V (d_model = {cfg.d_model} → "
    f"d_k = {cfg.d_k}), so each can learn to look for something different: the next word, the verb, "
    "the word a pronoun stands for. Their outputs are then laid side by side and mixed by one more "
    "matrix, W^O."
)
sel = attention_picker(p, head=False)
tr = model_io.trace(p.lm.model_id, p.src.text)
weights = tr.attention(sel.stack, sel.kind, sel.layer)  # (H, T_q, T_k)
q_labels = token_labels(tr.query_pieces(sel.stack), p.sel.pieces)
k_labels = token_labels(tr.key_pieces(sel.stack, sel.kind), p.sel.pieces)
head_names = [f"head {sel.show_head(h)}" for h in range(p.n_heads)]
layer_names = [f"layer {sel.show_layer(i)}" for i in range(p.n_layers)]
where = f"{sel.stack} {sel.kind}-attention, layer {sel.show_layer()} of {p.n_layers}"
numbering = f"Layers and heads are numbered {sel.numbering}."
if sel.stack == "decoder":
    st.caption(
        "The decoder is fed `<s>` followed by the model's own greedy translation, as during generation."
    )

st.header("All heads of one layer")
show_figure(
    multihead.heads_grid(
        weights,
        q_labels,
        k_labels,
        head_names,
        f"{where}: all {p.n_heads} heads",
        colorscale=p.colors["sequential"],
    ),
    key="mh_grid",
    caption=f"Each small matrix is one head's softmax weights: rows = queries (attending), columns = keys "
    f"(attended to); each row sums to 1. {numbering}",
)
uniform_note(tr, sel.stack, sel.kind, sel.layer)

st.header("Head view: the paper's picture")
st.markdown(
    "The same weights drawn the way the paper draws them: the tokens twice, queries on the left and "
    "keys on the right, a line for every weight, darker and thicker the larger it is, one colour per "
    "head. It opens on the lines leaving one query token, the first word (eight heads × every token "
    "is a thicket); pick another token, or **all tokens** for the whole picture."
)
cols = st.columns([2, 3])
all_heads = list(range(p.n_heads))
url_widget("heads", "mh_heads", all_heads, all_heads, offset=int(sel.one_based))
chosen_heads = cols[0].multiselect(
    "Heads to draw", all_heads, format_func=lambda h: head_names[h], key="mh_heads"
)
first_word = next((i for i, piece in enumerate(tr.query_pieces(sel.stack)) if piece not in SPECIAL_PIECES), 0)
token_options = [None, *range(len(q_labels))]  # None: all tokens
token_key = "mh_token"
url_widget("tok", token_key, first_word, token_options)
token = cols[1].selectbox(
    "Query token",
    token_options,
    key=token_key,
    format_func=lambda i: "all tokens" if i is None else plain(q_labels[i]),
)
if chosen_heads:
    show_figure(
        multihead.head_view(
            weights,
            q_labels,
            k_labels,
            head_names,
            p.colors["categorical"],
            f"{where}: head view",
            query=token,
            heads=chosen_heads,
        ),
        key="mh_head_view",
        caption="Lines with weight below 0.02 are left out. With one query token isolated, each head has a "
        f"column of points by the keys: hover one for the exact weight. {numbering}",
    )
    uniform_note(tr, sel.stack, sel.kind, sel.layer, chosen_heads)
else:
    st.info("Choose at least one head to draw.")

st.header("Model view: every layer and head")
st.markdown(
    f"All {p.n_layers} layers × {p.n_heads} heads of the {sel.stack}'s {sel.kind}-attention at once, as "
    "thumbnails. Patterns repeat and change with depth: diagonal stripes (a token looks at itself or a "
    "neighbour), vertical stripes (everyone looks at one token, often the final `</s>`), and more spread-out "
    "heads."
)
patterns = [tr.attention(sel.stack, sel.kind, layer) for layer in range(p.n_layers)]
show_figure(
    multihead.model_view(
        patterns,
        layer_names,
        head_names,
        f"{sel.stack} {sel.kind}-attention: layers × heads",
        colorscale=p.colors["sequential"],
        query_labels=q_labels,
        key_labels=k_labels,
    ),
    key="mh_model_view",
    caption=f"Rows of the grid are layers, columns are heads; in each thumbnail rows = queries (attending), "
    f"columns = keys (attended to). Hover for the token names and the weight in whole percent (the "
    f"exact weights of one layer are in the grid at the top). {numbering}",
)
uniform_note(tr, sel.stack, sel.kind, None)

st.header("Concatenation and W^O")
z = tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "z"))  # (H, T_q, d_v)
concat = tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "concat"))  # (T_q, h·d_v)
out = tr.get(tr.attn_name(sel.stack, sel.kind, sel.layer, "out"))  # (T_q, d_model)
w_o = p.lm.model.get_submodule(f"{sel.stack}.layers.{sel.layer}.{sel.kind}_attn.w_o")
n_q = len(q_labels)
st.markdown(
    f"Each head returns one vector of d_v = {cfg.d_k} numbers per token: a {n_q} × {cfg.d_k} matrix. "
    f"Laying the {p.n_heads} head outputs side by side gives a {n_q} × {p.n_heads}·{cfg.d_k} = "
    f"{n_q} × {p.n_heads * cfg.d_k} matrix (T × h·d_v). W^O ({p.n_heads * cfg.d_k} × {cfg.d_model}) "
    f"then mixes the heads into one {n_q} × {cfg.d_model} output (T × d_model), the same shape the layer "
    "received, so it can be added back to its input (the residual connection). Rows of W^O come in "
    "blocks, one block per head: that is where each head's findings enter the mix."
)
show_figure(
    multihead.concat_figure(
        z,
        concat,
        w_o.weight,
        out,
        q_labels,
        head_names,
        f"{where}: Concat(heads) · W^O (+ bias)",
        colorscale=p.colors["diverging"],
    ),
    key="mh_concat",
    caption=f"Black lines separate the heads' blocks. Real values from this sentence: "
    f"{diverging_note(p.colors)}. Concat and output share one colour scale (the colourbar on the right), "
    "so their colours compare; W^O holds weights, on a much smaller scale, and has its own colourbar under "
    f"its panel. {numbering}",
)
