"""One encoder layer with its real activations (paper §3.1, §3.3, §5.4): self-attention, residual
sum, LayerNorm, the ReLU feed-forward network; then how each token's vector changes layer by layer."""

from __future__ import annotations

import streamlit as st

from ui.frame import ACTIVATION_NAMES, chosen_dir, header, intro, shipped_config
from ui.url_state import url_widget
from viz.labels import token_labels
from viz.palette import diverging_note

header("Encoder layer", icon=":material/layers:")  # on screen while PyTorch is imported
if (config := shipped_config(chosen_dir())) is not None:  # read without PyTorch; None: loading says why
    intro(
        f"An encoder layer does two things to every token's vector of d_model = {config.d_model} "
        "numbers. First **self-attention** lets each token gather information from the others. Then a "
        f"small **feed-forward network** (FFN: {config.d_model} → {config.d_ff} → {config.d_model}, with "
        f"a {ACTIVATION_NAMES[config.activation]} in between) works on each token on its own, the same "
        "network for every position. Around "
        "each of the two sits a **residual connection** (the input is added back to the output) and a "
        "**LayerNorm** (each vector is shifted and scaled to mean 0 and variance 1, then given a learned "
        "scale and offset): LayerNorm(x + Sublayer(x)), as in the paper."
    )
from ui import encoder_layer  # noqa: E402
from ui import model as model_io  # noqa: E402
from ui.page import require_sentence, setup  # noqa: E402
from ui.render import control_columns, figure_first, show_figure  # noqa: E402

p = setup()
require_sentence(p)
cfg = p.lm.model.config
slider_place, stage_place = control_columns([1.3, 3])  # presenter mode: one line, room for the figure
sel, layer = encoder_layer.layer_slider(p, slider_place)
shown = sel.show_layer(layer)

# Encoder activations do not depend on the decoder input, so skip the translation (decoder = <s>).
tr = model_io.trace(p.lm.model_id, p.src.text, target_ids=())
labels = token_labels(tr.src_pieces, p.sel.pieces)
stages = encoder_layer.stages(tr, layer, sel)

st.header(f"Layer {shown} of {p.n_layers}, stage by stage")
stage_figure = figure_first()
st.caption(
    f"Layers are numbered {sel.numbering}. Each heatmap row is one token's vector; columns are its "
    f"{cfg.d_model} dimensions; {diverging_note(p.colors)}. Hover for exact values."
)
stage_names = [name for name, _ in stages]
stage_options = list(range(len(stage_names)))  # by index: the first stage's name depends on the layer
url_widget("stage", "enc_stage", len(stage_names) - 1, stage_options)
picked = stage_names[
    stage_place.radio("Stage", stage_options, format_func=lambda i: stage_names[i], horizontal=True,
                      key="enc_stage")  # fmt: skip
]
values = dict(stages)[picked]
with stage_figure:
    show_figure(encoder_layer.stage_figure(values, labels, f"Layer {shown}: {picked} ({len(labels)} × "
                                           f"{cfg.d_model})", p.colors), key="enc_stage_heatmap")  # fmt: skip
st.markdown(
    "Compare *x + attention* with *LayerNorm 1*: the residual sum can drift to any size, LayerNorm brings "
    "every row back to the same scale. The chart below shows that as vector lengths: after each LayerNorm "
    f"every token's vector has about the same length (√{cfg.d_model} ≈ {cfg.d_model**0.5:.1f} before the "
    "learned scale)."
)
show_figure(
    encoder_layer.norms_figure(
        stages, labels, f"Layer {shown}: length of each token's vector at each stage", p.colors
    ),
    key="enc_stage_norms",
    caption="One line per token (click a legend entry to hide it).",
)

st.header("Inside the feed-forward network")
hidden = encoder_layer.ffn_hidden(tr, layer)  # (S, d_ff)
zero_share = encoder_layer.zero_share(hidden, cfg.activation)
act = ACTIVATION_NAMES[cfg.activation]
if cfg.activation == "relu":
    st.markdown(
        f"The FFN computes max(0, xW₁ + b₁)W₂ + b₂: it expands each token to d_ff = {cfg.d_ff} hidden "
        "units (xW₁ + b₁) and applies ReLU, max(0, ·), "
        f"which sets every negative unit to exactly zero. In this layer **{zero_share:.0%}** of the hidden "
        "units are zero on average: each token switches on its own subset of units, and only those "
        "contribute to the output."
    )
else:
    st.markdown(
        f"The FFN first expands each token to d_ff = {cfg.d_ff} hidden units and applies **SiLU**, x·σ(x) "
        '(Marian\'s "swish", the activation this checkpoint was trained with; the paper uses ReLU, '
        "max(0, ·)). SiLU passes large positive units almost unchanged and squeezes negative ones into "
        "small values between −0.28 and 0 instead of cutting them to exactly zero. In this layer "
        f"**{zero_share:.0%}** of the hidden units are at or below zero on average: nearly switched off."
    )
show_figure(
    encoder_layer.ffn_figure(
        hidden, labels, f"Layer {shown}: FFN hidden activations after {act}", p.colors, cfg.activation
    ),
    key="enc_ffn_hidden",
    caption="Left: the hidden units (rows = tokens, columns = units). Right: the share of units that are 0.",
)

st.header("From layer to layer")
st.markdown(
    "Each layer's output is the next layer's input. How much does a token's vector change on the way? "
    "The left panel gives the cosine similarity between a token's vector before and after each layer "
    "(1 = same direction, 0 = unrelated); the right panel its length."
)
show_figure(
    encoder_layer.changes_figure(tr, labels, sel, p.n_layers, p.colors),
    key="enc_layer_changes",
    caption=f"'input' is the scaled embedding plus positional encoding. Layers are numbered {sel.numbering}.",
)
