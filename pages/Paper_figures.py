"""The paper's Figures 3, 4 and 5 remade on our model (paper §6, "Attention Visualizations"), and a
head finder, because our heads are not numbered like the paper's."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro
from ui.url_state import url_widget

header("Paper figures", icon=":material/description:")  # on screen while PyTorch is imported
intro(
    "The paper ends with three figures of attention weights (Figures 3, 4 and 5 of *Attention Is All You "
    "Need*). They all show **encoder self-attention in layer 5 of 6** (labelled “Input-Input Layer5” in "
    "the paper): the English sentence attending to itself, not the decoder. Here they are remade on our "
    "own model, in the same style: the sentence twice, queries on the left and keys on the right, one "
    "colour per head, stronger weight = stronger line.",
    note="Our model is much smaller and trained on much less text than the paper's, and nothing forces its "
    "heads into the same order: the paper's “head 5” is not our head 5. Next to each figure, the page "
    "says what the paper shows and what this model shows, measured on the model loaded now.",
)
from ui import paper as evidence  # noqa: E402
from ui import paper_views as views  # noqa: E402
from ui.head_finder import head_finder  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.render import control_columns, figure_first, fold  # noqa: E402
from ui.sidebar import layer_slider  # noqa: E402
from ui.uniform import focus_default, focus_text  # noqa: E402

p = setup()
url_widget("own", "paper_own", False)
use_own = st.toggle("Use my sentence (from the sidebar) instead of the paper's", key="paper_own")
if use_own and p.src.empty:
    st.warning("The sidebar sentence is empty; showing the paper's sentences.")
    use_own = False


# The page opens on the most focused head of the sentence whose heads it picks (Figures 4-5), unless
# the URL or the reader named a layer; the paper's layer 5 stays one slider move away.
tr4 = views.encoder_trace(p, views.FIGURES45, use_own)
p, focus = focus_default(p, tr4, "encoder", "self")
sel = p.sel
layer_place, why_place = control_columns(2)  # presenter mode: one line, room for Figure 3
layer = layer_slider(p, f"Encoder layer ({sel.numbering}); the paper shows layer 5 of 6", key="paper_layer",
                     where=layer_place)  # fmt: skip
if focus is not None:
    whose = "your sentence's" if use_own else "the Figures 4–5 sentence's"
    with why_place, fold("Why this layer and head"):
        st.caption(focus_text(sel, tr4, "encoder", "self", focus, whose=whose))
figures = views.Figures(p, layer)


# ---- Figure 3 -----------------------------------------------------------------------------------
heading, picker = control_columns([2, 1], vertical_alignment="bottom")  # presenter mode: room for Figure 3
heading.header("Figure 3: a long-distance dependency")
figure3 = figure_first()
st.markdown(
    "The paper's Figure 3 follows the verb **making** in a long sentence: its heads complete the phrase "
    "*making … more difficult*. Only the lines leaving one query token are drawn, in every head."
)
tr3 = views.encoder_trace(p, views.FIGURE3, use_own)
link3 = evidence.link(tr3, "making", ("more", "difficult"), layer)
st.markdown(evidence.verdict(link3, sel, "many heads of layer 5 give *making* most of their attention to "
                                         "*more difficult* at the end of the sentence."))  # fmt: skip
with figure3:
    figures.figure3(tr3, link3.anywhere if link3.found else None, picker)

# ---- Figures 4 and 5 ----------------------------------------------------------------------------
st.header("Figure 4: anaphora resolution")
st.markdown(
    "The paper's Figure 4 shows two heads of layer 5 that seem to resolve the pronoun **its** to the noun "
    "it refers to, **Law**: from *its* their attention goes to *Law* and to *application*. Top: every line "
    "of one head. Bottom: only the lines leaving *its*, for two heads. We pick the heads of this layer that "
    "link *its* to *Law* most strongly (change them below)."
)
for said in evidence.figure4_verdicts(tr4, sel, layer):
    st.markdown(said)
figures.figure4(tr4)

st.header("Figure 5: heads that follow sentence structure")
st.markdown(
    "The paper's Figure 5 shows two more heads of layer 5 whose full patterns look clearly different "
    "from each other, as if each had learned its own task related to the structure of the sentence "
    "(for example, looking at the next word, or at the end of the phrase). Compare any two of our heads: "
    "one that looks at neighbours draws parallel, almost horizontal lines; one that looks at a single "
    "token draws a fan. The two most focused heads of the layer are drawn first."
)
pair = figures.figure5_pair(tr4)
if pair:
    st.markdown(
        "**The paper:** two heads whose patterns differ, each seemingly with its own task. **This "
        "model:** " + figures.evenness(tr4, pair) + " (0 = all weight on one key, 1 = an even spread)."
    )
figures.figure5(tr4, pair)

st.header("Head finder")
st.markdown(
    "Which of our heads link one word to another? Choose a query word (the one attending) and a key word "
    "(the one attended to). Every layer and head of the encoder's self-attention is ranked by the weight "
    "from the query to the key. When a word is split into several pieces, the weights on the key's pieces "
    "are added up (attention anywhere on the word counts) and the query's pieces are averaged (so the "
    "result stays a share of one row, between 0 and 1)."
)
head_finder(p, views.encoder_trace(p, views.FIGURES45, use_own), figures.head_names)

st.header("Does a head resolve *it*?")
st.markdown(
    "A pronoun test often quoted with the Transformer (not one of the paper's figures): in “The animal "
    "didn't cross the street because it was too **tired**”, *it* is the animal; with “too **wide**” it is "
    "the street. A head that resolved the pronoun would move its weight from *animal* to *street* between "
    "the two sentences."
)
check = evidence.pronoun(p.lm.model_id)
st.markdown(
    evidence.pronoun_text(check, sel)
    if check
    else "This model's vocabulary splits the sentences so that *it*, *animal* or *street* cannot be found."
)
