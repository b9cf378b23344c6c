"""The decoder and generation (paper §3.1, §3.2.3, §6.1): masked self-attention, encoder-decoder
attention (an alignment only where its heads are focused), decoding one token at a time, forcing a token
of your own (teacher forcing), and beam search."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro

header("Decoder and generation", icon=":material/edit_note:")  # on screen while PyTorch is imported
intro(
    "The decoder writes the German sentence one token at a time. Each of its layers has **three** "
    "sub-layers: *masked* self-attention over the German tokens written so far, **encoder-decoder "
    "attention** (queries from the decoder, keys and values from the encoder's output: this is where the "
    "English sentence comes in), and the same kind of feed-forward network as the encoder. A final "
    "linear layer (sharing its weights with the embeddings) and a softmax turn the last vector into a "
    "probability for every token of the vocabulary."
)
from ui import decoder_view as view  # noqa: E402
from ui import generation  # noqa: E402
from ui.page import require_sentence, setup  # noqa: E402
from ui.render import figure_first  # noqa: E402
from ui.sidebar import step_slider  # noqa: E402

PAGE = setup(snapshots=True)
step_slider()  # the numbers model ships weights from earlier training steps
require_sentence(PAGE)


# Everything that changes with the decoder layer, the head, the tokens generated or forced: a fragment,
# so a slider, "Next token" or a forced token reruns and redraws this part only (not the sidebar, the
# text above and the beam search below).
@st.fragment
def decoder_view() -> None:
    v = view.view(PAGE)

    st.header("Masked self-attention")
    masked = figure_first()
    st.markdown(
        "While training, the decoder sees the whole German sentence at once, so it must be stopped from "
        "peeking at the words it is meant to predict. The **causal mask** blocks every key to the right of "
        "the query: their scores become −∞ and their weights exactly 0. Query *i* can only look at "
        "positions 0…*i*, which is why the matrix is empty above its diagonal."
    )
    with masked:
        view.self_attention(v)

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
    view.cross_attention(v)

    st.header("Generating, one token at a time")
    st.markdown(
        "Press **Next token** to let the model take one greedy step: it reads `<s>` plus the tokens chosen "
        "so far, predicts a probability for every token in its vocabulary, and appends the most probable "
        "one. Thanks to the causal mask, earlier positions never change, so each step only adds one new "
        "row to every attention matrix: the row of the newest query, shown below. Press a candidate "
        "instead to **force** it, as training does with the right German (teacher forcing), and compare "
        "where the model goes from there with where it goes on its own. Or let it **sample**: draw the "
        "next token at random, in proportion to its probability after a temperature." + view.start_words(v)
    )
    view.generating(v)


decoder_view()

st.header("Beam search")
settings, details = generation.beam_settings(PAGE.lm.decoding)
st.markdown(
    "Greedy decoding commits to the single most likely token at every step and can paint itself into a "
    "corner. Beam search keeps several unfinished translations at once (the paper keeps **4**) and grows "
    "each by one token per step. At the end it picks among the finished ones by how likely the model "
    "finds the whole sentence (its log-probability), divided by a length penalty ((5 + length) / 6)^α "
    "(the length counts the closing `</s>`): "
    "every token multiplies in one more probability below 1, so without the penalty shorter translations "
    "would be favoured. The larger α, the more the penalty helps longer ones. " + settings
)
if details:
    with st.expander("How these settings were chosen (the numbers)"):
        st.caption(details)
view.beam_search(PAGE)
