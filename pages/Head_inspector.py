"""Head inspector: what each head does over many sentences, averaging and rollout, comparing
sentences, and switching heads off (paper §3.2.2 multi-head attention, §6 attention visualizations)."""

from __future__ import annotations

import streamlit as st

from ui.frame import header

header("Head inspector", icon=":material/explore:")  # on screen while PyTorch is imported
st.markdown(
    "Each layer has 8 heads, and every head learns its own way of spreading attention. Looking at one "
    "sentence tells you little about a head; looking at many tells you its habits. Choose an attention "
    "and a head below: the statistics, the typical pattern, the averages and the quiz all follow it."
)
from transformer.analysis import heads  # noqa: E402
from ui import gold, inspector  # noqa: E402
from ui.layout import attention_picker, figure_columns, require_sentence, setup, show_figure  # noqa: E402
from ui.predict import predict_then_reveal  # noqa: E402
from ui.state import url_widget  # noqa: E402
from ui.uniform import focus_default, focus_text, uniform_note  # noqa: E402
from viz import inspector as viz_inspector  # noqa: E402
from viz.heatmap import attention_heatmap  # noqa: E402
from viz.labels import token_labels  # noqa: E402
from viz.palette import diverging_note  # noqa: E402

p = setup()
require_sentence(p)
quick_set, full_set, compare_pair = inspector.sentence_sets()  # built-in sentences that suit the model
# Opens on the sentence's most focused head of the chosen attention, unless the URL or the reader
# named a layer or head.
trace = inspector.attention_trace(p.lm.model_id, p.src.text)
p, focus = focus_default(p, trace)
sel = attention_picker(p)
attention = (sel.stack, sel.kind)
off = int(sel.one_based)
name = f"{inspector.ATTENTION_LABELS[attention]} attention, layer {sel.show_layer()}, head {sel.show_head()}"
st.caption(f"Selected: {name} (layers and heads numbered {sel.numbering}).")
if focus is not None:
    st.caption(focus_text(sel, trace, sel.stack, sel.kind, focus))

tab_stats, tab_mix, tab_compare, tab_off, tab_quiz = st.tabs(
    ["Statistics and roles", "Averaging and rollout", "Compare two sentences", "Switch heads off",
     "Predict, then reveal"])

with tab_stats:
    st.markdown(
        "Every statistic is measured on each query row of each sentence, then averaged. A head's decoder "
        "input is BOS followed by the model's own greedy translation. Position-based statistics "
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
            offset=off, roles=[[r.label for r in row] for row in roles], colorscale=p.colors["sequential"],
            selected=(sel.layer, sel.head), numbering=sel.numbering, zmin=scale.zmin, zmax=scale.zmax),
        key="hi_map",
        caption=f"Rows = layers, columns = heads; the framed cell is the selected head. "
                f"{heads.STATISTICS[statistic]}. {scale.note} Blank cells: the statistic is undefined for "
                "this attention. Hover for each head's role.",
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
    st.markdown(f"The sentence on which this head's **{statistic}** is closest to its average over the set:")
    st.text(stats.sentences[index])
    show_figure(
        attention_heatmap(typical.attention(sel.stack, sel.kind, sel.layer)[sel.head],
                          token_labels(typical.query_pieces(sel.stack), p.sel.pieces),
                          token_labels(typical.key_pieces(sel.stack, sel.kind), p.sel.pieces),
                          f"Typical pattern · {name} ({sel.numbering})", colorscale=p.colors["sequential"]),
        key="hi_typical",
    )
    uniform_note(typical, sel.stack, sel.kind, sel.layer, sel.head)
    if sel.kind == "cross":  # the numbers model knows which English word each German piece needs
        mine = trace.attention("decoder", "cross", sel.layer)[sel.head]  # (T, S)
        fig = attention_heatmap(mine, token_labels(trace.tgt_pieces, p.sel.pieces),
                                token_labels(trace.src_pieces, p.sel.pieces),
                                f"Your sentence · {name} ({sel.numbering})",
                                colorscale=p.colors["sequential"])
        right = gold.overlay(fig, trace, p.src.text, mine, f"head {sel.show_head()} alone")
        if right:
            st.subheader("The selected head against the right answer")
            show_figure(fig, key="hi_gold", caption=right)

with tab_mix:
    st.markdown(
        "Two ways to summarise many heads. **Mean over heads** averages the 8 patterns of one layer. "
        "**Attention rollout** follows attention through the layers: each layer's mean is mixed half "
        "and half with the identity (the residual connection lets every token keep its own vector), and "
        "the layers are multiplied in order. Row i of the result says how much each input token reaches "
        "position i by the end of that layer. Every row still sums to 1."
    )
    stacked = inspector.layer_patterns(trace, sel.stack, sel.kind)  # (L, H, T_q, T_k)
    q_labels = token_labels(trace.query_pieces(sel.stack), p.sel.pieces)
    k_labels = token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces)
    matrices = [stacked[sel.layer, sel.head], heads.mean_over_heads(stacked[sel.layer])]
    titles = [f"head {sel.show_head()}", f"mean of {p.n_heads} heads"]
    if sel.kind == "self":
        matrices.append(heads.rollout(stacked)[sel.layer])
        titles.append(f"rollout, layers {off}…{sel.show_layer()}")
    else:
        st.info("Rollout needs square self-attention: cross-attention maps target tokens to source tokens, "
                "so it cannot be chained layer after layer. Only the raw head and the mean are shown.")
    show_figure(
        viz_inspector.side_by_side(matrices, titles, q_labels, k_labels,
                                   f"{inspector.ATTENTION_LABELS[attention]} attention, layer "
                                   f"{sel.show_layer()} ({sel.numbering}), your sentence",
                                   colorscale=p.colors["sequential"]),
        key="hi_rollout",
    )
    uniform_note(trace, sel.stack, sel.kind, sel.layer, sel.head)

with tab_compare:
    st.markdown(
        "Change one word and see which weights move. The two sentences go through the encoder separately; "
        "tokens that appear in both (in the same order) are matched, and the difference map shows "
        "sentence A minus sentence B on the matched tokens only. Encoder self-attention, the selected "
        "layer and head."
    )
    cols = st.columns(2)
    url_widget("a", "hi_compare_a", compare_pair[0], max_items=300)
    text_a = cols[0].text_input("Sentence A", key="hi_compare_a", max_chars=300)
    url_widget("b", "hi_compare_b", compare_pair[1], max_items=300)
    text_b = cols[1].text_input("Sentence B", key="hi_compare_b", max_chars=300)
    trace_a = inspector.attention_trace(p.lm.model_id, text_a)
    trace_b = inspector.attention_trace(p.lm.model_id, text_b)
    if trace_a is None or trace_b is None:
        st.info("Type two sentences to compare.")
    else:
        head_a = trace_a.attention("encoder", "self", sel.layer)[sel.head]
        head_b = trace_b.attention("encoder", "self", sel.layer)[sel.head]
        what = f"encoder self-attention, layer {sel.show_layer()}, head {sel.show_head()} ({sel.numbering})"
        labels_a = token_labels(trace_a.src_pieces, p.sel.pieces)
        labels_b = token_labels(trace_b.src_pieces, p.sel.pieces)
        cols = figure_columns(2)
        with cols[0]:
            show_figure(attention_heatmap(head_a, labels_a, labels_a, f"A · {what}", p.colors["sequential"]),
                        key="hi_compare_fig_a")
            uniform_note(trace_a, "encoder", "self", sel.layer, sel.head)
        with cols[1]:
            show_figure(attention_heatmap(head_b, labels_b, labels_b, f"B · {what}", p.colors["sequential"]),
                        key="hi_compare_fig_b")
            uniform_note(trace_b, "encoder", "self", sel.layer, sel.head)
        pairs = heads.align_pieces(trace_a.src_pieces, trace_b.src_pieces)
        if not pairs:
            st.info("The two sentences share no tokens, so there is nothing to line up.")
        else:
            labels = [f"{i}|{j}:{trace_a.src_pieces[i]}" for i, j in pairs]
            diff = heads.aligned_difference(head_a, head_b, pairs)
            show_figure(viz_inspector.difference_map(diff, labels, f"A − B on matched tokens · {what}",
                                                     p.colors["diverging"]),
                        key="hi_difference",
                        caption="Labels are 'position in A|position in B:piece'. "
                                f"{diverging_note(p.colors).capitalize()}: positive where A attends more, "
                                "negative where B attends more.")
            only_a = heads.unmatched(trace_a.src_pieces, [i for i, _ in pairs])
            only_b = heads.unmatched(trace_b.src_pieces, [j for _, j in pairs])
            st.caption("Tokens only in A / only in B (left out of the difference map):")
            st.text(f"A: {' '.join(only_a) or '—'}\nB: {' '.join(only_b) or '—'}")

with tab_off:
    st.markdown(
        "Switch heads off and watch the output. A switched-off head's output is set to zero before the "
        "heads are concatenated and multiplied by W^O, for this request only: the shared model is never "
        "changed. The probability chart feeds the decoder the same input both times (BOS + the normal "
        "translation), so any change comes from the missing heads."
    )
    options = inspector.head_options(p.n_layers, p.n_heads, off)
    url_widget("off", "hi_ablate", [], list(options))
    picked = st.multiselect("Heads to switch off", list(options), format_func=options.get, key="hi_ablate",
                            placeholder="choose one or more heads")
    ablate = tuple(inspector.head_from_code(code) for code in picked)
    result = inspector.ablation(p.lm.model_id, p.src.text, ablate)
    cols = st.columns(2)
    for col, side, heading in ((cols[0], "before", "All heads on"), (cols[1], "after", "Chosen heads off")):
        col.markdown(f"**{heading}** (greedy translation)")
        col.text(result[side]["text"])
    log_before = heads.sequence_log_prob(result["probs_before"], result["target_ids"])
    log_after = heads.sequence_log_prob(result["probs_after"], result["target_ids"])
    st.metric("log-probability of the normal greedy translation", f"{log_after:.3f}",
              delta=f"{log_after - log_before:+.3f} vs all heads on", delta_color="normal")
    steps = result["decoder_input"]
    url_widget("pos", "hi_step", 0, low=0, high=len(steps) - 1)
    step = st.slider("Decoder position (predicting the token after it)", 0, len(steps) - 1, key="hi_step")
    st.caption("The decoder has read so far:")
    st.text(" ".join(steps[: step + 1]))
    ids = heads.top_k_union(result["probs_before"][step], result["probs_after"][step], k=8)
    show_figure(
        viz_inspector.probability_change(
            [result["piece"](i) for i in ids], result["probs_before"][step, ids],
            result["probs_after"][step, ids], f"Next-token probabilities at decoder position {step}",
            colors=(p.colors["categorical"][0], p.colors["categorical"][1])),
        key="hi_probs",
        caption="The candidates among the top 8 with all heads on or with the chosen heads off.",
    )

with tab_quiz:
    st.markdown(
        "Before looking, guess. Pick a query token of your sentence and the key you think the selected "
        "head gives the most weight to, then reveal the real weights."
    )
    cat = p.colors["categorical"]
    predict_then_reveal(trace.attention(sel.stack, sel.kind, sel.layer)[sel.head],
                        token_labels(trace.query_pieces(sel.stack), p.sel.pieces),
                        token_labels(trace.key_pieces(sel.stack, sel.kind), p.sel.pieces),
                        key="hi_predict", what=f"{name} ({sel.numbering})",
                        colors=("#9e9e9e", cat[3] if sel.palette != "default" else "#2ca02c",
                                cat[6] if sel.palette != "default" else "#d62728"))
