"""The paper's Figures 3, 4 and 5 remade on our model (paper §6, "Attention Visualizations"), and a
head finder, because our heads are not numbered like the paper's."""

from __future__ import annotations

import streamlit as st

from ui.frame import header

header("Paper figures", icon=":material/description:")  # on screen while PyTorch is imported
st.markdown(
    "The paper ends with three figures of attention weights (Figures 3, 4 and 5 of *Attention Is All You "
    "Need*). They all show **encoder self-attention in layer 5 of 6** (labelled “Input-Input Layer5” in "
    "the paper): the English sentence attending to itself, not the decoder. Here they are remade on our "
    "own model, in the same style: the sentence twice, queries on the left and keys on the right, one "
    "colour per head, stronger weight = stronger line."
)
st.info("Our model is much smaller and trained on much less text than the paper's, and nothing forces its "
        "heads into the same order: the paper's “head 5” is not our head 5. Next to each figure, the page "
        "says what the paper shows and what this model shows, measured on the model loaded now.")
from analysis.decoding import find_word, rank_heads, words  # noqa: E402
from ui import model as model_io  # noqa: E402
from ui import paper as evidence  # noqa: E402
from ui.head_finder import head_finder  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.presets import PRESETS  # noqa: E402
from ui.render import column_width, figure_columns, show_figure  # noqa: E402
from ui.sidebar import layer_slider  # noqa: E402
from ui.uniform import focus_default, focus_text, grid, heads_by_focus, uniform_note  # noqa: E402
from ui.url_state import url_widget  # noqa: E402
from viz import paper  # noqa: E402
from viz.labels import choices, token_labels  # noqa: E402

FIGURE3 = PRESETS["Paper Figure 3 (making … more difficult)"]
FIGURES45 = PRESETS["Paper Figures 4–5 (The Law will never be perfect)"]

p = setup()
sel = p.sel
url_widget("own", "paper_own", False)
use_own = st.toggle("Use my sentence (from the sidebar) instead of the paper's", key="paper_own")
if use_own and p.src.empty:
    st.warning("The sidebar sentence is empty; showing the paper's sentences.")
    use_own = False


def encoder_trace(sentence: str):
    """Encoder self-attention does not depend on the decoder, so no translation is needed (decoder = <s>)."""
    return model_io.trace(p.lm.model_id, p.src.text if use_own else sentence, target_ids=())


# The page opens on the most focused head of the sentence whose heads it picks (Figures 4-5), unless
# the URL or the reader named a layer; the paper's layer 5 stays one slider move away.
tr4 = encoder_trace(FIGURES45)
p, focus = focus_default(p, tr4, "encoder", "self")
sel = p.sel
layer = layer_slider(p, f"Encoder layer ({sel.numbering}); the paper shows layer 5 of 6", key="paper_layer")
if focus is not None:
    whose = "your sentence's" if use_own else "the Figures 4–5 sentence's"
    st.caption(focus_text(sel, tr4, "encoder", "self", focus, whose=whose))
head_names = [f"head {sel.show_head(h)}" for h in range(p.n_heads)]
colors = p.colors["categorical"]
numbering = f"Layers and heads are numbered {sel.numbering}."
where = f"encoder self-attention, layer {sel.show_layer(layer)} of {p.n_layers}"


# ---- Figure 3 -----------------------------------------------------------------------------------
st.header("Figure 3: a long-distance dependency")
st.markdown(
    "The paper's Figure 3 follows the verb **making** in a long sentence: its heads complete the phrase "
    "*making … more difficult*. Only the lines leaving one query token are drawn, in every head."
)
tr3 = encoder_trace(FIGURE3)
labels3 = token_labels(tr3.src_pieces, p.sel.pieces)
weights3 = tr3.attention("encoder", "self", layer)  # (H, S, S)
link3 = evidence.link(tr3, "making", ("more", "difficult"), layer)
st.markdown(evidence.verdict(link3, sel, "many heads of layer 5 give *making* most of their attention to "
                                         "*more difficult* at the end of the sentence."))
url_widget("q3", "paper_q3", evidence.default_position(tr3.src_pieces, "making"), list(range(len(labels3))))
names3 = choices(labels3)
query3 = st.selectbox("Query token", range(len(labels3)), format_func=lambda i: names3[i], key="paper_q3")
show_figure(
    paper.figure3(weights3, labels3, query3, head_names, colors, f"Figure 3 on our model: {where}"),
    key="paper_fig3",
    caption="Lines from the chosen query token to every key it gives at least 1% of its attention, "
    f"one colour per head. {numbering}",
)
show_figure(
    paper.query_rows_heatmap(weights3, labels3, query3, head_names, f"The same weights as a heatmap: {where}",
                             colorscale=p.colors["sequential"], max_width=column_width(1)),
    key="paper_fig3_heatmap",
    caption=numbering,
)
uniform_note(tr3, "encoder", "self", layer)
best3 = link3.anywhere
show_figure(
    paper.figure3(tr3.attention("encoder", "self", best3.layer), labels3, query3, head_names, colors,
                  f"This model's strongest evidence, anywhere: encoder layer {sel.show_layer(best3.layer)}, "
                  f"{head_names[best3.head]}", heads=[best3.head]),
    key="paper_fig3_best",
    caption=f"The head of the whole encoder that gives the measured words the most weight (the number "
    f"above), drawn for the chosen query token. {numbering}",
)

# ---- Figures 4 and 5 ----------------------------------------------------------------------------
st.header("Figure 4: anaphora resolution")
st.markdown(
    "The paper's Figure 4 shows two heads of layer 5 that seem to resolve the pronoun **its** to the noun "
    "it refers to, **Law**: from *its* almost all their attention goes to *Law*. Top: every line of one "
    "head. Bottom: only the lines leaving *its*, for two heads. We pick the heads of this layer that link "
    "*its* to *Law* most strongly (change them below)."
)
pieces4 = tr4.src_pieces
labels4 = token_labels(pieces4, p.sel.pieces)
weights4 = tr4.attention("encoder", "self", layer)  # (H, S, S)
its = find_word(pieces4, "its") or words(pieces4)[0]
law = find_word(pieces4, "Law") or words(pieces4)[min(1, len(words(pieces4)) - 1)]
in_layer = [s.head for s in rank_heads(tr4, its.positions, law.positions) if s.layer == layer]
st.markdown(evidence.verdict(evidence.link(tr4, "its", ("Law",), layer), sel,
                             "two heads of layer 5 give almost all of *its*'s attention to *Law*."))
cols = st.columns(2)
all_heads, off = list(range(p.n_heads)), int(sel.one_based)
url_widget("full", "paper_fig4_full", in_layer[0], all_heads, offset=off)
full_head = cols[0].selectbox(
    "Head for the full picture (top)", all_heads, format_func=lambda h: head_names[h], key="paper_fig4_full"
)
url_widget("iso", "paper_fig4_iso", in_layer[:2], all_heads, offset=off)
iso_heads = cols[1].multiselect("Heads for the isolated picture (bottom)", all_heads,
                                format_func=lambda h: head_names[h], key="paper_fig4_iso")
show_figure(
    paper.figure_full(weights4, labels4, [full_head], head_names, colors,
                      f"Figure 4 (top) on our model: {where}, {head_names[full_head]}, all tokens"),
    key="paper_fig4_top",
    caption=f"Lines of weight at least 0.05. {numbering}",
)
uniform_note(tr4, "encoder", "self", layer, full_head)
its_query = its.positions[0]
if iso_heads:
    show_figure(
        paper.figure3(weights4, labels4, its_query, head_names, colors,
                      f"Figure 4 (bottom) on our model: {where}, lines from one token", heads=iso_heads),
        key="paper_fig4_bottom",
        caption=f"Only the lines leaving the query token at position {its_query}. {numbering}",
    )
    uniform_note(tr4, "encoder", "self", layer, iso_heads)
else:
    st.info("Choose at least one head for the isolated picture.")

st.header("Figure 5: heads that follow sentence structure")
st.markdown(
    "The paper's Figure 5 shows two more heads of layer 5 whose full patterns look clearly different "
    "from each other, as if each had learned its own task related to the structure of the sentence "
    "(for example, looking at the next word, or at the end of the phrase). Compare any two of our heads: "
    "one that looks at neighbours draws parallel, almost horizontal lines; one that looks at a single "
    "token draws a fan. The two most focused heads of the layer are drawn first."
)
pair_default = [sel.head, *(h for h in heads_by_focus(tr4, "encoder", "self", layer) if h != sel.head)][:2]
pair_key = f"paper_fig5_heads_{layer}"  # each layer starts from its own most focused heads
url_widget("pair", pair_key, pair_default, all_heads, offset=off, max_items=2)
pair = st.multiselect(
    "Two heads to compare", all_heads, max_selections=2, format_func=lambda h: head_names[h], key=pair_key
)
if pair:
    broad = grid(tr4, "encoder", "self")[layer]  # (H,) entropy ÷ its maximum
    st.markdown("**The paper:** two heads whose patterns differ, each seemingly with its own task. **This "
                "model:** " + "; ".join(f"{head_names[h]} has evenness {float(broad[h]):.2f}"
                                        for h in pair) + " (0 = all weight on one key, 1 = an even spread).")
fig5_cols = figure_columns(2)
for i, h in enumerate(pair):
    with fig5_cols[i]:
        show_figure(
            paper.figure_full(weights4, labels4, [h], head_names, colors,
                              f"Figure 5 on our model: {where}, {head_names[h]}"),
            key=f"paper_fig5_{i}",
            caption=numbering,
        )
        uniform_note(tr4, "encoder", "self", layer, h)

st.header("Head finder")
st.markdown(
    "Which of our heads link one word to another? Choose a query word (the one attending) and a key word "
    "(the one attended to). Every layer and head of the encoder's self-attention is ranked by the weight "
    "from the query to the key. When a word is split into several pieces, the weights on the key's pieces "
    "are added up (attention anywhere on the word counts) and the query's pieces are averaged (so the "
    "result stays a share of one row, between 0 and 1)."
)
head_finder(p, encoder_trace(FIGURES45), head_names)

st.header("Does a head resolve *it*?")
st.markdown(
    "A pronoun test often quoted with the Transformer (not one of the paper's figures): in “The animal "
    "didn't cross the street because it was too **tired**”, *it* is the animal; with “too **wide**” it is "
    "the street. A head that resolved the pronoun would move its weight from *animal* to *street* between "
    "the two sentences."
)
check = evidence.pronoun(p.lm.model_id)
st.markdown(evidence.pronoun_text(check, sel) if check else "This model's vocabulary splits the sentences so "
            "that *it*, *animal* or *street* cannot be found.")
