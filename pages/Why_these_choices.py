"""Why these choices? The paper's design choices taken away one at a time on the numbers model (§3.1,
§3.2.1 footnote 4, §3.2.2, §3.5, §5.4, Table 3), each variant trained the same way and shown beside
the paper's model; and footnote 4 measured on random vectors."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro

header("Why these choices?", icon=":material/science:")  # on screen while PyTorch is imported
intro(
    "The paper argues for its choices: scaling the scores, several heads, positional encodings, "
    "residual connections, layer normalisation, label smoothing, dropout. Here each one is taken away "
    "from the numbers model (English number phrases into German, where every answer and every right "
    "alignment is known), and the model is trained again by the same loop, on the same phrases, for the "
    "same number of steps. Pick a choice and compare.",
    sentence=False,  # the page has a phrase box of its own
)
from ui import ablation_views as views  # noqa: E402
from ui import ablations, lecture  # noqa: E402
from ui.page import setup  # noqa: E402
from ui.presets import NUMBERS_DEFAULT  # noqa: E402
from ui.render import control_columns, figure_first  # noqa: E402
from ui.url_state import url_widget  # noqa: E402

p = setup()
colors = p.colors["categorical"]
scores, problems = ablations.cached_scores()
for problem in problems:
    st.warning(problem)
if ablations.BASE not in scores:
    st.error(
        "The trained variants are not installed (pretrained/ablations/). `make train-ablations` "
        "trains them (a few hours on a CPU)."
    )
    lecture.stop()  # with Back and Next

url_widget("choice", "why_choice", "scaling", options=list(ablations.CHOICES))
key = st.selectbox(
    "The paper's choice",
    list(ablations.CHOICES),
    key="why_choice",
    format_func=lambda k: ablations.CHOICES[k].label,
)
choice = ablations.CHOICES[key]
shipped = [v for v in choice.variants if v in scores]
if not shipped:
    st.warning("None of this choice's variants is installed.")
    lecture.stop()  # with Back and Next
url_widget("variant", "why_variant", shipped[0], options=shipped)
variant_place, phrase_place = control_columns(2)  # presenter mode: one line, room for the answers
variant = variant_place.selectbox(
    "Without it",
    shipped,
    key="why_variant",
    format_func=lambda v: scores[v]["title"],
    disabled=len(shipped) == 1,
)
sidebar = p.sel.sentence if ablations.right_answer(p.sel.sentence) else NUMBERS_DEFAULT
url_widget("phrase", "why_phrase", sidebar, max_items=200)
phrase = phrase_place.text_input(
    "A number phrase",
    key="why_phrase",
    max_chars=200,
    help="Cardinals, counts, dates or clock times, e.g. “forty-two”, “at half past three”.",
)
if not phrase.strip():
    st.info("Type a number phrase (e.g. “forty-two”) to see both models answer it.")
    lecture.stop()  # with Back and Next
if ablations.right_answer(phrase) is None:
    st.warning(
        "This is outside the numbers grammar: the models have no right answer for it, so there "
        "are no boxes and no ✓ or ✗. Try “forty-two” or “on the fifth of March”."
    )

answers = figure_first()  # presenter mode: the answers first, on the first screen
st.info(f"**The paper:** {choice.claim}")
base, other = scores[ablations.BASE], scores[variant]
expect = choice.expect[choice.variants.index(variant)]
st.markdown(ablations.verdict(base, other, expect))
if key == "smoothing":
    st.markdown(ablations.loss_note(base, other))
if key == "scaling":
    st.markdown(ablations.scaling_note(base, other))

names = [ablations.BASE, variant]
with answers, st.spinner("Both models translate the phrase…"):
    views.side_by_side(names, scores, phrase, p.colors)
views.curves(names, scores, colors)
views.statistic(choice.statistic, names, scores, colors, p.sel.presenter)

with st.expander("Every variant"):
    views.summary_table(scores)

st.subheader("Footnote 4, live: why divide by √d_k?")
st.markdown(
    "Draw q and k with d_k components, each of mean 0 and variance 1. Then q·k = Σ q_i k_i has mean 0 and "
    "variance d_k: the wider the heads, the larger the scores. Move d_k and watch the softmax of the "
    "unscaled scores pile its weight on one key, where its gradient (how much the weights move when a "
    "score moves) is small; the scaled scores keep variance 1 at every width."
)
d_k = st.select_slider("d_k", views.FOOTNOTE_DK, value=64, key="why_dk")
views.footnote4(d_k, colors, p.sel.presenter)
