"""Head inspector: what each head does over many sentences, averaging and rollout, comparing
sentences, and switching heads off (paper §3.2.2 multi-head attention, §6 attention visualizations)."""

from __future__ import annotations

import streamlit as st

from ui.frame import header

header("Head inspector", icon=":material/explore:")  # on screen while PyTorch is imported
st.markdown(
    "Each layer has several heads (8 in the paper), and every head learns its own way of spreading "
    "attention. Looking at one sentence tells you little about a head; looking at many tells you its "
    "habits. Choose an attention and a head below: the statistics, the typical pattern, the averages "
    "and the quiz all follow it."
)
from analysis import heads  # noqa: E402
from ui import experiments, gold, inspector, rows  # noqa: E402
from ui.page import fresh, require_sentence, setup  # noqa: E402
from ui.predict import predict_then_reveal  # noqa: E402
from ui.render import show_figure  # noqa: E402
from ui.sidebar import attention_picker  # noqa: E402
from ui.uniform import focus_default, focus_text, uniform_note  # noqa: E402
from ui.url_state import url_widget  # noqa: E402
from viz import inspector as viz_inspector  # noqa: E402
from viz.decoding import CROSS_CELL  # noqa: E402
from viz.heatmap import attention_heatmap  # noqa: E402
from viz.labels import token_labels  # noqa: E402

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
    attention = (sel.stack, sel.kind)
    off = int(sel.one_based)
    q_labels = rows.query_labels(p.lm.model_id, trace, sel.stack, sel.kind, p.sel.pieces,
                                 p.src.text)  # (T_q,)
    name = (f"{inspector.ATTENTION_LABELS[attention]} attention, layer {sel.show_layer()}, "
            f"head {sel.show_head()}")
    st.caption(f"Selected: {name} (layers and heads numbered {sel.numbering}).")
    if sel.kind == "cross":
        st.caption(rows.WRITES_NOTE)
    cross_cells = {"cell": CROSS_CELL} if sel.kind == "cross" else {}  # as large as the decoder page's
    if focus is not None:
        st.caption(focus_text(sel, trace, sel.stack, sel.kind, focus))

    tab_stats, tab_mix, tab_compare, tab_off, tab_quiz = st.tabs(
        ["Statistics and roles", "Averaging and rollout", "Compare two sentences", "Switch heads off",
         "Predict, then reveal"])

    with tab_stats:
        st.markdown(
            "Every statistic is measured on each query row of each sentence, then averaged. Here a head's "
            "decoder input is BOS followed by the model's own greedy translation. Position-based statistics "
            "(distance, previous/next/own token, same word) only make sense in self-attention, where queries "
            "and keys are the same tokens; for cross-attention they are left blank."
        )
        cols = st.columns([2, 3])
        url_widget("set", "hi_set", "quick set", ["quick set", "all built-in"])
        which = cols[0].radio("Sentences", ["quick set", "all built-in"], key="hi_set", horizontal=True,
                              help=f"quick: {len(quick_set)} varied sentences; all: {len(full_set)}. "
                                   "Your sentence is always included.")
        url_widget("stat", "hi_stat", next(iter(heads.STATISTICS)), list(heads.STATISTICS))
        statistic = cols[1].selectbox("Colour the map by", list(heads.STATISTICS), key="hi_stat",
                                      format_func=lambda s: f"{s}: {heads.STATISTICS[s]}")
        chosen = quick_set if which == "quick set" else full_set
        sentences = tuple(dict.fromkeys([p.src.text, *chosen]))  # the user's first; no duplicates
        stats = inspector.statistics(p.lm.model_id, sentences)
        roles = stats.roles(attention)
        values = stats.mean(attention, statistic)
        scale = inspector.map_scale(stats, attention, statistic, values)
        show_figure(
            viz_inspector.head_map(
                values, f"{statistic} of every head · {inspector.ATTENTION_LABELS[attention]} attention · "
                        f"{len(stats.sentences)} sentences",
                offset=off, roles=[[r.label for r in row] for row in roles],
                colorscale=p.colors["sequential"], selected=(sel.layer, sel.head), numbering=sel.numbering,
                zmin=scale.zmin, zmax=scale.zmax),
            key="hi_map",
            caption=f"Rows = layers, columns = heads; the framed cell is the selected head. "
                    f"{heads.STATISTICS[statistic]}. {scale.note} Blank cells: the statistic is undefined "
                    "for this attention. Hover for each head's role.",
        )
        picked = roles[sel.layer][sel.head]
        st.markdown(f"**Role of the selected head:** {picked.label} ({picked.reason}).")
        st.markdown(
            "Roles are read off the averages with simple thresholds: a head gets the role whose statistic "
            "passes its threshold by the largest factor, and 'mixed' when none passes. They are a summary "
            "for people, not something the model knows about."
        )
        if not sel.presenter:
            thresholds = heads.Thresholds()
            st.dataframe({"role": list(heads.ROLE_TEXT.values()), "statistic": list(heads.ROLE_TEXT),
                          "threshold": [getattr(thresholds, s) for s in heads.ROLE_TEXT]},
                         hide_index=True, key="hi_thresholds")
            with st.expander("Every head's role"):
                st.dataframe({
                    "layer": [layer + off for layer in range(p.n_layers) for _ in range(p.n_heads)],
                    "head": [head + off for _ in range(p.n_layers) for head in range(p.n_heads)],
                    "role": [r.label for row in roles for r in row],
                    "because": [r.reason for row in roles for r in row],
                }, hide_index=True, key="hi_roles")

        st.subheader("The selected head's typical pattern")
        index = stats.typical_sentence(attention, statistic, sel.layer, sel.head)
        typical = inspector.attention_trace(p.lm.model_id, stats.sentences[index])
        st.markdown(f"The sentence on which this head's **{statistic}** is closest to its average over the "
                    "set:")
        st.text(stats.sentences[index])
        show_figure(
            attention_heatmap(typical.attention(sel.stack, sel.kind, sel.layer)[sel.head],
                              rows.query_labels(p.lm.model_id, typical, sel.stack, sel.kind, p.sel.pieces,
                                                stats.sentences[index]),
                              token_labels(typical.key_pieces(sel.stack, sel.kind), p.sel.pieces),
                              f"Typical pattern · {name} ({sel.numbering})",
                              colorscale=p.colors["sequential"], **cross_cells),
            key="hi_typical",
        )
        uniform_note(typical, sel.stack, sel.kind, sel.layer, sel.head)
        if sel.kind == "cross":  # the numbers model knows which English word each German piece needs
            mine = trace.attention("decoder", "cross", sel.layer)[sel.head]  # (T, S)
            fig = attention_heatmap(mine, q_labels, token_labels(trace.src_pieces, p.sel.pieces),
                                    f"Your sentence · {name} ({sel.numbering})",
                                    colorscale=p.colors["sequential"], **cross_cells)
            right = gold.overlay(fig, trace, p.src.text, mine, f"head {sel.show_head()} alone")
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
        stacked = inspector.layer_patterns(trace, sel.stack, sel.kind)  # (L, H, T_q, T_k)
        k_labels = token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces)
        matrices = [stacked[sel.layer, sel.head], heads.mean_over_heads(stacked[sel.layer])]
        titles = [f"head {sel.show_head()}", f"mean of {p.n_heads} heads"]
        if sel.kind == "self":
            matrices.append(heads.rollout(stacked)[sel.layer])
            titles.append(f"rollout, layers {off}…{sel.show_layer()}")
        else:
            st.info("Rollout needs square self-attention: cross-attention maps target tokens to source "
                    "tokens, so it cannot be chained layer after layer. Only the raw head and the mean are "
                    "shown.")
        show_figure(
            viz_inspector.side_by_side(matrices, titles, q_labels, k_labels,
                                       f"{inspector.ATTENTION_LABELS[attention]} attention, layer "
                                       f"{sel.show_layer()} ({sel.numbering}), your sentence",
                                       colorscale=p.colors["sequential"]),
            key="hi_rollout",
        )
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
        cat = p.colors["categorical"]
        predict_then_reveal(trace.attention(sel.stack, sel.kind, sel.layer)[sel.head],
                            q_labels, token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces),
                            key="hi_predict", what=f"{name} ({sel.numbering})",
                            colors=("#9e9e9e", cat[3] if sel.palette != "default" else "#2ca02c",
                                    cat[6] if sel.palette != "default" else "#d62728"))


inspector_view()
