"""Head inspector: what each head does over many sentences, averaging and rollout, comparing
sentences, and switching heads off (paper §3.2.2 multi-head attention, §6 attention visualizations)."""

from __future__ import annotations

import streamlit as st

from ui.frame import header, intro

header("Head inspector", icon=":material/explore:")  # on screen while PyTorch is imported
intro(
    "Each layer has several heads (8 in the paper), and every head learns its own way of spreading "
    "attention. Looking at one sentence tells you little about a head; looking at many tells you its "
    "habits. Choose an attention and a head below: the statistics, the typical pattern, the averages "
    "and the quiz all follow it."
)
from ui import experiments, inspector, inspector_live, rows  # noqa: E402
from ui import inspector_views as views  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.render import figure_first, fold, show_figure  # noqa: E402
from ui.sidebar import attention_picker  # noqa: E402
from ui.uniform import focus_default, focus_text, uniform_note  # noqa: E402

PAGE = setup()
require_sentence(PAGE)
quick_set, full_set, compare_pair = inspector.sentence_sets()  # built-in sentences that suit the model


# Everything below changes with the attention, layer or head (and with the tabs' own controls): a
# fragment, so a head change reruns this part only, not the sidebar and the text above. The traces and
# the statistics over the sentence set are cached (per sentence; the set's collection per set), so a
# head change draws the chosen head's figures and reads everything else.
@st.fragment
def inspector_view() -> None:
    p = fresh(PAGE)
    # Opens on the sentence's most focused head of the chosen attention, unless the URL or the reader
    # named a layer or head.
    trace = inspector.attention_trace(p.lm.model_id, p.src.text, p.sel.decoder_choice)  # as on every page
    p, focus = focus_default(p, trace)
    sel = attention_picker(p)
    q_labels = rows.query_labels(p.lm.model_id, trace, sel.stack, sel.kind, p.sel.pieces,
                                 p.src.text)  # (T_q,)
    name = views.selected_name(sel)
    with fold(f"Selected: {name}"):  # presenter mode: folded, the first tab's map on the first screen
        st.caption(f"Selected: {name} (layers and heads numbered {sel.numbering}).")
        if sel.kind == "cross":
            st.caption(rows.WRITES_NOTE)
        if focus is not None:
            st.caption(focus_text(sel, trace, sel.stack, sel.kind, focus))

    tab_stats, tab_mix, tab_compare, tab_off, tab_quiz = st.tabs(
        ["Statistics and roles", "Averaging and rollout", "Compare two sentences", "Switch heads off",
         "Predict, then reveal"])  # fmt: skip

    with tab_stats:
        statistics = figure_first()
        st.markdown(
            "Every statistic is measured on each query row of each sentence, then averaged. Here a head's "
            "decoder input is BOS followed by the model's own greedy translation. Position-based statistics "
            "(distance, previous/next/own token, same word) only make sense in self-attention, where queries "
            "and keys are the same tokens; for cross-attention they are left blank."
        )
        with statistics:
            stats, statistic = views.statistics_picker(p, quick_set, full_set)
            roles = views.head_map(p, sel, stats, statistic)
        picked = roles[sel.layer][sel.head]
        st.markdown(f"**Role of the selected head:** {picked.label} ({picked.reason}).")
        st.markdown(
            "Roles are read off the averages with simple thresholds: a head gets the role whose statistic "
            "passes its threshold by the largest factor, and 'mixed' when none passes. They are a summary "
            "for people, not something the model knows about."
        )
        if not sel.presenter:
            views.role_tables(p, sel, roles)

        st.subheader("The selected head's typical pattern")
        index, typical = views.typical_trace(p, sel, stats, statistic)
        st.markdown(
            f"The sentence on which this head's **{statistic}** is closest to its average over the set:"
        )
        views.typical_pattern(p, sel, typical, stats.sentences[index], name)
        if sel.kind == "cross":  # the numbers model knows which English word each German piece needs
            fig, right = views.gold_figure(p, sel, trace, q_labels, name)
            if right:
                st.subheader("The selected head against the right answer")
                show_figure(fig, key="hi_gold", caption=right)

    with tab_mix:
        st.markdown(
            f"Two ways to summarise many heads. **Mean over heads** averages the {p.n_heads} patterns of "
            "one layer. **Attention rollout** follows attention through the layers: each layer's mean is "
            "mixed half and half with the identity (the residual connection lets every token keep its own "
            "vector), and the layers are multiplied in order. Row i of the result says how much each input "
            "token reaches position i by the end of that layer. Every row still sums to 1."
        )
        if sel.kind != "self":
            st.info(
                "Rollout needs square self-attention: cross-attention maps target tokens to source "
                "tokens, so it cannot be chained layer after layer. Only the raw head and the mean are "
                "shown."
            )
        mix = views.show_mix(p, sel, trace, q_labels)
        uniform_note(trace, sel.stack, sel.kind, sel.layer, sel.head)

    with tab_compare:
        experiments.compare_sentences(p, sel, compare_pair)

    with tab_off:
        experiments.switch_heads_off(p, sel)

    with tab_quiz:
        st.markdown(
            "Before looking, guess. Pick a query token of your sentence and the key you think the selected "
            "head gives the most weight to, then reveal the real weights."
        )
        views.quiz(p, sel, trace, q_labels, name)
    inspector_live.switch_in_browser(p, sel, trace, mix, stats.sentences, statistic)


inspector_view()
