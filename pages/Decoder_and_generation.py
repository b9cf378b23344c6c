"""The decoder and generation (paper §3.1, §3.2.3, §6.1): masked self-attention, encoder-decoder
attention (an alignment only where its heads are focused), decoding one token at a time, and beam search."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ui.frame import header

header("Decoder and generation", icon=":material/edit_note:")  # on screen while PyTorch is imported
st.markdown(
    "The decoder writes the German sentence one token at a time. Each of its layers has **three** "
    "sub-layers: *masked* self-attention over the German tokens written so far, **encoder-decoder "
    "attention** (queries from the decoder, keys and values from the encoder's output: this is where the "
    "English sentence comes in), and the same kind of feed-forward network as the encoder. A final "
    "linear layer (sharing its weights with the embeddings) and a softmax turn the last vector into a "
    "probability for every token of the vocabulary."
)
from analysis.decoding import step_from_trace, step_limit  # noqa: E402
from ui import decoder_reads, generation, state, url_state  # noqa: E402
from ui import model as model_io  # noqa: E402
from ui.generation import TOP_K  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.render import markdown_table, show_figure  # noqa: E402
from ui.rows import WRITES_NOTE  # noqa: E402
from ui.sidebar import step_slider  # noqa: E402
from ui.uniform import uniform_note  # noqa: E402
from viz import decoding as dec_viz  # noqa: E402

# The newest query's rows, tab by tab: figure name, attention kind, whether it shows the chosen layer.
ROW_TABS = {
    "Cross-attention, this layer": ("cross", "cross", True),
    "Self-attention, this layer": ("self", "self", True),
    "Cross-attention, layer by layer": ("layers", "cross", False),
}

PAGE = setup(snapshots=True)
step_slider()  # the numbers model ships weights from earlier training steps
require_sentence(PAGE)


# Everything that changes with the decoder layer, the head or the tokens generated: a fragment, so a
# slider or "Next token" reruns and redraws this part only (not the sidebar, the text above and the
# beam search below).
@st.fragment
def decoder_view() -> None:
    p = fresh(PAGE)
    cfg, sel = p.lm.model.config, p.sel
    off = int(sel.one_based)
    cols = st.columns(2)
    layer = cols[0].slider(f"Decoder layer ({sel.numbering})", off, p.n_layers - 1 + off, sel.layer + off,
                           key="atlas_layer") - off  # fmt: skip
    head = cols[1].slider(f"Head ({sel.numbering})", off, p.n_heads - 1 + off, sel.head + off,
                          key="atlas_head") - off  # fmt: skip
    if (layer, head, sel.stack) != (sel.layer, sel.head, "decoder"):
        kind = sel.kind if sel.stack == "decoder" else "self"
        sel = state.update(layer=layer, head=head, stack="decoder", kind=kind)
    shown = replace(sel, kind="self", chosen=frozenset())  # what the figures depend on
    numbering = f"Layers and heads are numbered {sel.numbering}."
    chosen = model_io.decoder_input(p.lm.model_id, p.src.text, sel.decoder_choice)  # as on every page
    tr = model_io.trace(p.lm.model_id, p.src.text, chosen.ids)

    st.header("Masked self-attention")
    st.markdown(
        "While training, the decoder sees the whole German sentence at once, so it must be stopped from "
        "peeking at the words it is meant to predict. The **causal mask** blocks every key to the right of "
        "the query: their scores become −∞ and their weights exactly 0. Query *i* can only look at "
        "positions 0…*i*, which is why the matrix is empty above its diagonal."
    )
    show_figure(
        generation.self_figure(p.lm.model_id, p.src.text, shown),
        key="dec_self",
        caption=f"Grey cells are blocked (a future position). {decoder_reads.words(chosen)} {numbering}",
        displayed=True,
    )
    uniform_note(tr, "decoder", "self", layer, head)

    st.header("Encoder-decoder attention: where the German looks in the English")
    st.markdown(
        "In the second sub-layer each German position asks the English sentence what it needs next. Read "
        "as a matrix with German rows and English columns, the weights of a well-trained model often look "
        "like a word alignment: the position that writes a German word attends to the English word(s) that "
        "word translates. Each row is named by the token it reads and the token it writes (“Die → Kinder”): "
        "it is the written one that the row is looking for. Averaging the heads gives the overall picture; "
        "single heads are often sharper, or specialised on something else. A head that spreads its weight "
        "evenly over the source aligns nothing, and a note under the figure says so when one does."
    )
    cross, right, why_not = generation.cross_figures(p.lm.model_id, p.src.text, replace(shown, head=0))
    if why_not:  # the numbers model did not write the right answer: no gold to draw
        st.caption(why_not)
    show_figure(
        cross["average"],
        key="dec_cross_avg",
        caption=f"Rows = queries (German, decoder), columns = keys (English, encoder). {WRITES_NOTE} "
        f"{numbering}" + (f" {right}" if right else ""),
        displayed=True,
    )
    uniform_note(tr, "decoder", "cross", layer)
    # Figures a reader opens are drawn when opened (`on_change="rerun"`): a closed expander or tab would
    # still draw its figure, and every figure drawn makes a new browser session wait for it.
    with st.expander("Cross-attention head by head", key="dec_heads_open", on_change="rerun") as box:
        if box.open:
            show_figure(cross["heads"], key="dec_cross_heads", caption=f"{WRITES_NOTE} {numbering}",
                        displayed=True)

    st.header("Generating, one token at a time")
    st.markdown(
        "Press **Next token** to let the model take one greedy step: it reads `<s>` plus the tokens chosen "
        "so far, predicts a probability for every token in its vocabulary, and appends the most probable "
        "one. Thanks to the causal mask, earlier positions never change, so each step only adds one new "
        "row to every attention matrix: the row of the newest query, shown below."
        + (" Here it starts after your own German prefix and continues it." if chosen.used == "own" else "")
    )
    start = chosen.ids if chosen.used == "own" else ()  # generation starts after the reader's own prefix
    decode_key = f"atlas_decode::{p.lm.model_id}::{p.src.text}::{start}"
    if decode_key not in st.session_state:  # a link names how many tokens were generated ("tokens")
        asked = url_state.decode(st.query_params.get("tokens"), 0, low=0)
        st.session_state[decode_key] = generation.greedy_prefix(p.lm.model_id, p.src.text, asked, start)
    prefix = list(st.session_state[decode_key])
    url_state.url_value("tokens", len(prefix) - len(start), 0)
    step_tr = model_io.trace(p.lm.model_id, p.src.text, target_ids=tuple(prefix))
    step = step_from_trace(step_tr, TOP_K)
    finished = bool(prefix) and prefix[-1] == p.lm.tokenizer.eos_id
    at_limit = len(prefix) >= step_limit(p.lm.model, len(p.src.ids))

    def _append(token_id: int) -> None:
        st.session_state[decode_key] = [*st.session_state.get(decode_key, []), token_id]

    def _reset() -> None:
        st.session_state[decode_key] = list(start)

    # A row of buttons each as wide as its label: in a sixth of the 560-px column (1024 px wide, the
    # sidebar open) "Next token" was cut to "Next to…".
    buttons = st.container(horizontal=True)
    buttons.button(
        "Next token",
        key="dec_next",
        on_click=_append,
        args=(step.next_id,),
        disabled=finished or at_limit,
        type="primary",
    )
    buttons.button("Reset", key="dec_reset", on_click=_reset, disabled=len(prefix) == len(start))
    st.text(f"Decoder input after {len(prefix) - len(start)} step(s): " + " ".join(step_tr.tgt_pieces))
    if finished:
        st.success("The model produced `</s>`: the translation is finished.")
        st.text(p.lm.tokenizer.decode(prefix))
    elif at_limit:
        st.warning("Reached the maximum output length (input length + 50) without `</s>`.")

    figs = generation.step_figures(p.lm.model_id, p.src.text, tuple(prefix), replace(shown, head=0))
    if not finished:
        show_figure(
            figs["topk"],
            key="dec_topk",
            caption=f"Together these {TOP_K} tokens hold {sum(step.top_probs):.1%} of the probability; "
            f"the rest is spread over the other {cfg.vocab_size - TOP_K} tokens of the vocabulary. "
            "The highlighted bar is the one greedy decoding appends.",
            displayed=True,
        )
    st.markdown("The newest query's new row in each attention (one tab at a time):")
    tabs = st.tabs(list(ROW_TABS), key="dec_rows", on_change="rerun")
    for tab, (name, kind, one_layer) in zip(tabs, ROW_TABS.values()):
        if tab.open:
            with tab:
                show_figure(figs[name], key=f"dec_step_{name}", caption=numbering, displayed=True)
                uniform_note(step_tr, "decoder", kind, layer if one_layer else None)


decoder_view()

st.header("Beam search")
settings, details = generation.beam_settings(PAGE.lm.decoding)
st.markdown(
    "Greedy decoding commits to the single most likely token at every step and can paint itself into a "
    "corner. Beam search keeps several unfinished translations at once (the paper keeps **4**) and grows "
    "each by one token per step. At the end it picks among the finished ones by how likely the model "
    "finds the whole sentence (its log-probability), divided by a length penalty ((5 + length) / 6)^α: "
    "every token multiplies in one more probability below 1, so without the penalty shorter translations "
    "would be favoured. The larger α, the more the penalty helps longer ones. "
    + settings
)
if details:
    with st.expander("How these settings were chosen (the numbers)"):
        st.caption(details)
result = model_io.translate(PAGE.lm.model_id, PAGE.src.text)
if result["beam"]:
    # A Markdown table: a few rows need no grid, and st.table or st.dataframe would load Arrow's script
    # in a new session. The model's own text shows as written (markdown_table escapes every cell).
    st.markdown(markdown_table(dec_viz.beam_rows(result["beam"])))
    with st.expander("The same scores as bars", key="dec_beam_open", on_change="rerun") as box:
        if box.open:
            show_figure(dec_viz.beam_figure(result["beam"], "Beam candidates (higher is better)",
                                            color=PAGE.colors["categorical"][0]), key="dec_beam")
st.caption("Greedy translation, for comparison:")
st.text(result["greedy"]["text"] if result["greedy"] else "")
