"""The decoder and generation (paper §3.1, §3.2.3, §6.1): masked self-attention, encoder-decoder
attention (an alignment only where its heads are focused), decoding one token at a time, and beam search."""

from __future__ import annotations

import streamlit as st

from transformer.analysis.decoding import step_from_trace, step_limit
from ui import generation, gold, state
from ui import model as model_io
from ui.layout import page, require_sentence, show_figure
from ui.uniform import uniform_note
from viz import decoding as dec_viz
from viz import multihead
from viz.labels import token_labels

TOP_K = 10

p = page("Decoder and generation", icon="✍️", snapshots=True)
model_io.step_slider()  # the numbers model ships weights from earlier training steps
require_sentence(p)
cfg = p.lm.model.config
sel = p.sel
st.markdown(
    "The decoder writes the German sentence one token at a time. Each of its layers has **three** "
    "sub-layers: *masked* self-attention over the German tokens written so far, **encoder-decoder "
    "attention** (queries from the decoder, keys and values from the encoder's output: this is where the "
    "English sentence comes in), and the same kind of feed-forward network as the encoder. A final "
    "linear layer (sharing its weights with the embeddings) and a softmax turn the last vector into a "
    "probability for every token of the vocabulary."
)
off = int(sel.one_based)
cols = st.columns(2)
layer = (
    cols[0].slider(
        f"Decoder layer ({sel.numbering})", off, p.n_layers - 1 + off, sel.layer + off, key="atlas_layer"
    )
    - off
)
head = (
    cols[1].slider(f"Head ({sel.numbering})", off, p.n_heads - 1 + off, sel.head + off, key="atlas_head")
    - off
)
if (layer, head, sel.stack) != (sel.layer, sel.head, "decoder"):
    kind = sel.kind if sel.stack == "decoder" else "self"
    sel = state.update(layer=layer, head=head, stack="decoder", kind=kind)
head_names = [f"head {sel.show_head(h)}" for h in range(p.n_heads)]
layer_names = [f"layer {sel.show_layer(i)}" for i in range(p.n_layers)]
where = f"decoder layer {sel.show_layer(layer)} of {p.n_layers}"
numbering = f"Layers and heads are numbered {sel.numbering}."

tr = model_io.trace(p.lm.model_id, p.src.text)  # decoder input: <s> + the greedy translation
tgt_labels = token_labels(tr.tgt_pieces, p.sel.pieces)
src_labels = token_labels(tr.src_pieces, p.sel.pieces)

st.header("Masked self-attention")
st.markdown(
    "While training, the decoder sees the whole German sentence at once, so it must be stopped from "
    "peeking at the words it is meant to predict. The **causal mask** blocks every key to the right of "
    "the query: their scores become −∞ and their weights exactly 0. Query *i* can only look at "
    "positions 0…*i*, which is why the matrix is empty above its diagonal."
)
self_mask = tr.get(tr.attn_name("decoder", "self", layer, "mask"))[0]  # (T, T), True = may attend
show_figure(
    dec_viz.masked_attention_heatmap(
        tr.attention("decoder", "self", layer)[head],
        self_mask,
        tgt_labels,
        tgt_labels,
        f"{where}, {head_names[head]}: masked self-attention",
        colorscale=p.colors["sequential"],
    ),
    key="dec_self",
    caption=f"Grey cells are blocked (a future position). The decoder input is `<s>` followed by the model's "
    f"greedy translation. {numbering}",
)
uniform_note(tr, "decoder", "self", layer, head)

st.header("Encoder-decoder attention: where the German looks in the English")
st.markdown(
    "In the second sub-layer each German position asks the English sentence what it needs next. Read "
    "as a matrix with German rows and English columns, the weights of a well-trained model often look "
    "like a word alignment: a German word attends to the English word(s) it translates. Averaging the "
    "heads gives the overall picture; single heads are often sharper, or specialised on something else. "
    "A head that spreads its weight evenly over the source aligns nothing, and a note under the figure "
    "says so when one does."
)
cross = tr.attention("decoder", "cross", layer)  # (H, T, S)
cross_fig = dec_viz.alignment_heatmap(
    cross, tgt_labels, src_labels, f"{where}: cross-attention, average of the heads",
    colorscale=p.colors["sequential"],
)  # fmt: skip
# The numbers model knows the right answer: boxes on the cells each row should attend to.
right = gold.overlay(cross_fig, tr, p.src.text, cross.mean(0), "heads averaged, this layer")
show_figure(
    cross_fig,
    key="dec_cross_avg",
    caption=f"Rows = queries (German, decoder), columns = keys (English, encoder). {numbering}"
    + (f" {right}" if right else ""),
)
uniform_note(tr, "decoder", "cross", layer)
with st.expander("Cross-attention head by head"):
    show_figure(
        multihead.heads_grid(
            cross,
            tgt_labels,
            src_labels,
            head_names,
            f"{where}: cross-attention per head",
            colorscale=p.colors["sequential"],
        ),
        key="dec_cross_heads",
        caption=numbering,
    )

st.header("Generating, one token at a time")
st.markdown(
    "Press **Next token** to let the model take one greedy step: it reads `<s>` plus the tokens chosen "
    "so far, predicts a probability for every token in its vocabulary, and appends the most probable "
    "one. Thanks to the causal mask, earlier positions never change, so each step only adds one new row "
    "to every attention matrix: the row of the newest query, shown below."
)
decode_key = f"atlas_decode::{p.lm.model_id}::{p.src.text}"
if decode_key not in st.session_state:  # a link names how many tokens were generated ("tokens")
    asked = state.decode(st.query_params.get("tokens"), 0, low=0)
    st.session_state[decode_key] = generation.greedy_prefix(p.lm.model_id, p.src.text, asked)
prefix = list(st.session_state[decode_key])
state.url_value("tokens", len(prefix), 0)
step_tr = model_io.trace(p.lm.model_id, p.src.text, target_ids=tuple(prefix))
step = step_from_trace(step_tr, TOP_K)
finished = bool(prefix) and prefix[-1] == p.lm.tokenizer.eos_id
at_limit = len(prefix) >= step_limit(p.lm.model, len(p.src.ids))


def _append(token_id: int) -> None:
    st.session_state[decode_key] = [*st.session_state.get(decode_key, []), token_id]


def _reset() -> None:
    st.session_state[decode_key] = []


cols = st.columns([1, 1, 4])
cols[0].button(
    "Next token",
    key="dec_next",
    on_click=_append,
    args=(step.next_id,),
    disabled=finished or at_limit,
    type="primary",
)
cols[1].button("Reset", key="dec_reset", on_click=_reset, disabled=not prefix)
st.text(f"Decoder input after {len(prefix)} step(s): " + " ".join(step_tr.tgt_pieces))
if finished:
    st.success("The model produced `</s>`: the translation is finished.")
    st.text(p.lm.tokenizer.decode(prefix))
elif at_limit:
    st.warning("Reached the maximum output length (input length + 50) without `</s>`.")

top_pieces = [p.lm.tokenizer.id_to_piece(i) for i in step.top_ids]
if not finished:
    show_figure(
        dec_viz.topk_bar(
            top_pieces,
            step.top_probs,
            f"Step {len(prefix) + 1}: the {TOP_K} most probable next tokens",
            color=p.colors["categorical"][0],
            show_pieces=p.sel.pieces,
        ),
        key="dec_topk",
        caption=f"Together these {TOP_K} tokens hold {sum(step.top_probs):.1%} of the probability; "
        f"the rest is spread over the other {cfg.vocab_size - TOP_K} tokens of the vocabulary. "
        "The highlighted bar is the one greedy decoding appends.",
    )
newest = f"the newest query (position {len(prefix)})"
cols = st.columns(2)
with cols[0]:
    show_figure(
        dec_viz.step_rows_heatmap(
            step.rows[("self", layer)],
            token_labels(step_tr.tgt_pieces, p.sel.pieces),
            head_names,
            f"{where}: new self-attention row of {newest}",
            colorscale=p.colors["sequential"],
        ),
        key="dec_step_self",
    )
    uniform_note(step_tr, "decoder", "self", layer)
with cols[1]:
    show_figure(
        dec_viz.step_rows_heatmap(
            step.rows[("cross", layer)],
            src_labels,
            head_names,
            f"{where}: new cross-attention row of {newest}",
            colorscale=p.colors["sequential"],
        ),
        key="dec_step_cross",
    )
    uniform_note(step_tr, "decoder", "cross", layer)
show_figure(
    dec_viz.layer_rows_heatmap(
        [step.rows[("cross", i)] for i in range(p.n_layers)],
        src_labels,
        layer_names,
        f"Where {newest} looks in the English sentence, layer by layer",
        colorscale=p.colors["sequential"],
    ),
    key="dec_step_layers",
    caption=numbering,
)
uniform_note(step_tr, "decoder", "cross", None)

st.header("Beam search")
st.markdown(
    "Greedy decoding commits to the single best token at every step and can paint itself into a corner. "
    "The paper instead keeps the **4 best partial translations** (beam size 4) at every step and, at the "
    "end, ranks the finished ones by log-probability divided by a length penalty ((5 + length) / 6)^α "
    "with α = 0.6, so that longer translations are not unfairly punished for having more factors below 1."
)
result = model_io.translate(p.lm.model_id, p.src.text)
if result["beam"]:
    st.dataframe(dec_viz.beam_rows(result["beam"]), hide_index=True, width="stretch")
    show_figure(
        dec_viz.beam_figure(
            result["beam"], "Beam candidates (higher is better)", color=p.colors["categorical"][0]
        ),
        key="dec_beam",
    )
st.caption("Greedy translation, for comparison:")
st.text(result["greedy"]["text"] if result["greedy"] else "")
