"""Multi-head attention (paper §3.2.2, Figure 2): all heads of a layer, the head view, the model
view, and how Concat(head_1..head_h) W^O puts the heads back together."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.frame import chosen_dir, header, intro, shipped_config
from viz.palette import diverging_note

header("Multi-head attention", icon=":material/tune:")  # on screen while PyTorch is imported
if (config := shipped_config(chosen_dir())) is not None:  # read without PyTorch; None: loading says why
    intro(
        f"One attention layer does not look at the sentence once but **h = {config.n_heads} times in "
        f"parallel**. Each head has its own small projections W_i^Q, W_i^K, W_i^V (d_model = "
        f"{config.d_model} → d_k = {config.d_k}), so each can learn to look for something different: the "
        "next word, the verb, the word a pronoun stands for. Their outputs are then laid side by side and "
        "mixed by one more matrix, W^O."
    )
from ui import model as model_io  # noqa: E402
from ui import multi_head, rows  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.render import show_figure  # noqa: E402
from ui.sidebar import attention_picker, step_slider  # noqa: E402
from ui.uniform import uniform_note  # noqa: E402

PAGE = setup(snapshots=True)
step_slider()  # the numbers model ships weights from earlier training steps
require_sentence(PAGE)


# Everything below changes with the stack, attention or layer: a fragment, so moving a slider reruns
# this part only. A layer or another query token is drawn in the browser first
# (ui.multi_head.switch_in_browser); the rerun keeps the URL in step and draws the same picture.
@st.fragment
def heads_view() -> None:
    p = fresh(PAGE)
    cfg = p.lm.model.config
    sel = attention_picker(p, head=False)
    shown = replace(sel, head=0, chosen=frozenset())  # what this page's figures depend on
    tr = model_io.decoder_trace(p.lm.model_id, p.src.text, sel.decoder_choice)
    q_labels = rows.query_labels(p.lm.model_id, tr, sel.stack, sel.kind, p.sel.pieces)
    numbering = f"Layers and heads are numbered {sel.numbering}."
    rows.decoder_caption(p.lm.model_id, p.src.text, sel)

    st.header("All heads of one layer")
    grid_place = st.container()
    uniform_note(tr, sel.stack, sel.kind, sel.layer)

    st.header("Head view: the paper's picture")
    st.markdown(
        "The same weights drawn the way the paper draws them: the tokens twice, queries on the left and "
        "keys on the right, a line for every weight, darker and thicker the larger it is, one colour per "
        "head. It opens on the lines leaving one query token, the first word (eight heads × every token "
        "is a thicket); pick another token, or **all tokens** for the whole picture."
    )
    chosen_heads, token = multi_head.head_view_picker(sel, tr, q_labels, p.n_heads)
    figs = multi_head.layer_figures(p.lm.model_id, p.src.text, shown, tuple(chosen_heads), token)
    with grid_place:
        show_figure(
            figs["grid"],
            key="mh_grid",
            caption=f"Each small matrix is one head's softmax weights: rows = queries (attending), columns = "
            f"keys (attended to); each row sums to 1. {numbering}",
            displayed=True,
        )
    if chosen_heads:
        show_figure(
            figs["head_view"],
            key="mh_head_view",
            caption="Lines with weight below 0.02 are left out. With one query token isolated, each head has "
            f"a column of points by the keys: hover one for the exact weight. {numbering}",
            displayed=True,
        )
        uniform_note(tr, sel.stack, sel.kind, sel.layer, chosen_heads)
    else:
        st.info("Choose at least one head to draw.")

    st.header("Model view: every layer and head")
    st.markdown(
        f"All {p.n_layers} layers × {p.n_heads} heads of the {sel.stack}'s {sel.kind}-attention at once, "
        "as thumbnails. Patterns repeat and change with depth: diagonal stripes (a token looks at itself "
        "or a neighbour), vertical stripes (everyone looks at one token, often the final `</s>`), and more "
        "spread-out heads."
    )
    show_figure(
        multi_head.model_view_figure(p.lm.model_id, p.src.text, replace(shown, layer=0)),
        key="mh_model_view",
        caption=f"Rows of the grid are layers, columns are heads; in each thumbnail rows = queries "
        f"(attending), columns = keys (attended to). Hover for the token names and the weight in whole "
        f"percent (the exact weights of one layer are in the grid at the top). {numbering}",
        displayed=True,
    )
    uniform_note(tr, sel.stack, sel.kind, None)

    st.header("Concatenation and W^O")
    n_q = len(q_labels)
    st.markdown(
        f"Each head returns one vector of d_v = {cfg.d_k} numbers per token: a {n_q} × {cfg.d_k} matrix. "
        f"Laying the {p.n_heads} head outputs side by side gives a {n_q} × {p.n_heads}·{cfg.d_k} = "
        f"{n_q} × {p.n_heads * cfg.d_k} matrix (T × h·d_v). W^O ({p.n_heads * cfg.d_k} × {cfg.d_model}) "
        f"then mixes the heads into one {n_q} × {cfg.d_model} output (T × d_model), the same shape the "
        "layer received, so it can be added back to its input (the residual connection). Rows of W^O come "
        "in blocks, one block per head: that is where each head's findings enter the mix."
    )
    show_figure(
        figs["concat"],
        key="mh_concat",
        caption=f"Black lines separate the heads' blocks. Real values from this sentence: "
        f"{diverging_note(p.colors)}. Concat and output share one colour scale (the colourbar on the "
        "right), so their colours compare; W^O holds weights, on a much smaller scale, and has its own "
        f"colourbar under its panel. {numbering}",
        displayed=True,
    )
    multi_head.switch_in_browser(p.lm.model_id, p.src.text, shown, tuple(chosen_heads), token)


heads_view()
