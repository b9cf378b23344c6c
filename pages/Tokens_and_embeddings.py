"""Tokens & embeddings (paper §3.4): pieces and ids, embedding rows, the √d_model scaling, similarity."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro
from ui.url_state import url_widget
from viz.labels import WORD_START, token_labels
from viz.palette import diverging_note

header("Tokens & embeddings", icon=":material/text_fields:")  # on screen while PyTorch is imported
from ui import embeddings  # noqa: E402
from ui import model as model_io  # noqa: E402
from ui.page import require_sentence, setup  # noqa: E402
from ui.render import figure_first, fold, literal_markdown, show_figure, show_table  # noqa: E402

intro()  # presenter mode: a box for the sentence (the sidebar starts folded)
p = setup()
require_sentence(p)
cfg = p.lm.model.config
# Only the source side is needed here, so the decoder gets BOS alone (no translation to wait for).
trace = model_io.trace(p.lm.model_id, p.src.text, target_ids=())
pieces = trace.src_pieces
labels = token_labels(pieces, p.sel.pieces)

st.header("1 · From text to pieces")
with fold(f"The {len(pieces)} pieces and their ids"):  # presenter mode: the table would fill the screen
    st.markdown(
        "The model never sees letters. A SentencePiece tokenizer, trained on English–German text, cuts the "
        f"sentence into **pieces** from a vocabulary of **{cfg.vocab_size:,}** entries. A piece that starts "
        f"a new word carries the marker `{WORD_START}`. Common words are one piece each; rarer words are "
        "split into several pieces, numbers into single digits, and a character the vocabulary lacks (an "
        "emoji) is spelled as its UTF-8 bytes (`<0xF0>` …) where the tokenizer allows it. The encoder input "
        "ends with `</s>`, the end-of-sentence token. Each piece is then just a number: its **id**."
    )
    show_table(embeddings.tokens_table(trace), key="tokens_table")
    st.caption(f"{len(pieces)} tokens, `</s>` included. The same piece always gets the same id.")

st.header("2 · Embedding rows")
rows = figure_first()
st.markdown(
    f"The embedding is one matrix E with a row of d_model = {cfg.d_model} numbers per vocabulary entry. "
    "Embedding a token means looking up the row at its id: nothing is computed. The paper uses the "
    "**same** matrix three times: for source tokens, for target tokens, and (transposed) to turn the "
    "decoder's last vectors into next-token scores. A repeated piece gets an identical row."
)
with rows:
    show_figure(embeddings.rows_figure(trace, labels, p.colors), key="embed_rows",
                caption="Rows = tokens of your sentence, columns = the d_model dimensions; "
                f"{diverging_note(p.colors)}. Hover for exact values.")  # fmt: skip

st.header("3 · Scaling by √d_model")
sizes = embeddings.scale_summary(trace)
st.markdown(
    "Before the positional encoding is added, every row is multiplied by √d_model "
    f"(here √{cfg.d_model} ≈ {sizes.sqrt_d_model:.2f}). The paper states this step (§3.4) without "
    "giving a reason. A common reading: the shared matrix also serves as the output projection, and its "
    "entries are small (about 1/√d_model each when training starts), while the positional encoding holds "
    "sines and cosines between −1 and 1; without the scaling the position signal could drown out the "
    "word, after it both have a similar size (the numbers below show the sizes in this model)."
)
cols = [c for row in (st.columns(2), st.columns(2)) for c in row]  # two by two: four cut the labels at 1024
cols[0].metric("√d_model", f"{sizes.sqrt_d_model:.3f}")
cols[1].metric("typical entry of E[x] (RMS)", f"{sizes.rms_embed:.4f}")
cols[2].metric("typical entry of E[x]·√d_model", f"{sizes.rms_scaled:.4f}")
cols[3].metric("typical entry of PE(pos)", f"{sizes.rms_pe:.4f}")
show_figure(
    embeddings.scale_figure(sizes, labels),
    key="embed_scale",
    caption="Length (Euclidean norm) of each token's vector. Scaling multiplies every length by √d_model; "
    f"every PE row has the same length √(d_model/2) = {(cfg.d_model / 2) ** 0.5:.2f}.",
)

st.header("4 · Which tokens look alike?")
base = embeddings.vocabulary_similarity(p.lm.model_id)  # measured once per model, over its whole vocabulary
st.markdown(embeddings.baseline_words(base, embeddings.raw_mean(trace)))
repeat = embeddings.repeated_piece(pieces)
if repeat:
    st.markdown(
        f"Your sentence has the piece “{literal_markdown(repeat[0])}” {repeat[1]} times. On the raw rows "
        "its copies score exactly 1 with each other: the embedding alone cannot tell them apart. Add "
        "the positional encoding (what the first encoder layer actually receives) and the copies become "
        "different vectors."
    )
elif (preset := embeddings.preset_with_repeat(p.lm.model_id)) is not None:
    st.markdown(
        "Your sentence repeats no piece. In one that does, the copies of a piece score exactly 1 with "
        "each other on the raw rows (the embedding alone cannot tell them apart), until the positional "
        f"encoding makes them different vectors. The preset “{preset}” repeats one:"
    )
    st.button(f"Use “{preset}”", key="embed_repeat_preset", on_click=embeddings.use_preset, args=(preset,))
compared = {embeddings.RAW: "embedding rows E[x]",
            embeddings.CENTRED: "centred rows E[x] − mean row (the shared direction removed)",
            embeddings.WITH_POSITIONS: "E[x]·√d_model + PE(pos) (input of encoder layer 1)"}  # fmt: skip
url_widget("compare", "embed_compare", embeddings.RAW, list(compared))
choice = st.radio("Compare", list(compared), format_func=compared.get, horizontal=True, key="embed_compare")
similarity = embeddings.similarity(trace, choice, base)  # (S, S)
versus = {embeddings.RAW: f" (random pairs of the vocabulary: {base.raw:.2f})",
          embeddings.CENTRED: f" (random centred pairs: {base.centred:.2f})"}.get(choice, "")  # fmt: skip
title = f"Cosine similarity of {compared[choice].split(' (')[0]}"
show_figure(
    embeddings.similarity_figure(similarity, labels, title, p.colors),
    key="embed_similarity",
    caption=f"{diverging_note(p.colors).capitalize()}. Mean over the pairs of your sentence: "
    f"{embeddings.pair_mean(similarity):.2f}{versus}. Scaling does not change a cosine: E[x] and "
    "E[x]·√d_model give the same picture.",
)
