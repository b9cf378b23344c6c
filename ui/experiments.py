"""The head inspector's two experiments: two sentences compared on one head, and heads switched off.

Both change something and show what moved: a word of the sentence (the difference map on the tokens
the two sentences share), or which heads take part (the translation and the next-token probabilities
before and after; the shared model is never changed, see `analysis.compare.head_ablation`).
"""

from __future__ import annotations

import streamlit as st

from analysis import heads
from ui import inspector
from ui.page import Page
from ui.render import column_width, figure_columns, show_figure
from ui.sidebar import cut_to_limit
from ui.state import Selection
from ui.uniform import uniform_note
from ui.url_state import url_widget
from viz import inspector as viz_inspector
from viz.heatmap import attention_heatmap
from viz.labels import readable, token_labels
from viz.palette import diverging_note

NOTHING_OFF = "No head is switched off yet: choose one or more above, and the change shows here."
COMPARE_MAX_CHARS = 300  # a sentence to compare, not a text: the main box takes up to 1,000 characters


def compare_sentences(p: Page, sel: Selection, pair: tuple[str, str]) -> None:
    """Two sentences through the encoder, the selected layer and head: both maps and A − B."""
    st.markdown(
        "Change one word and see which weights move. The two sentences go through the encoder separately; "
        "tokens that appear in both (in the same order) are matched, and the difference map shows "
        "sentence A minus sentence B on the matched tokens only. Encoder self-attention, the selected "
        "layer and head."
    )
    cols = st.columns(2)
    text_a = _compare_box(cols[0], "Sentence A", "a", "hi_compare_a", pair[0])
    text_b = _compare_box(cols[1], "Sentence B", "b", "hi_compare_b", pair[1])
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
        cols, half = figure_columns(2), column_width(2, p.sel)
        with cols[0]:
            show_figure(attention_heatmap(head_a, labels_a, labels_a, f"A · {what}", p.colors["sequential"],
                                          max_width=half), key="hi_compare_fig_a")
            uniform_note(trace_a, "encoder", "self", sel.layer, sel.head)
        with cols[1]:
            show_figure(attention_heatmap(head_b, labels_b, labels_b, f"B · {what}", p.colors["sequential"],
                                          max_width=half), key="hi_compare_fig_b")
            uniform_note(trace_b, "encoder", "self", sel.layer, sel.head)
        pairs = heads.align_pieces(trace_a.src_pieces, trace_b.src_pieces)
        if not pairs:
            st.info("The two sentences share no tokens, so there is nothing to line up.")
        else:
            labels = [f"{i}|{j}:{readable(trace_a.src_pieces[i])}" for i, j in pairs]  # "</s>" drawn
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


def _compare_box(place, label: str, param: str, key: str, default: str) -> str:
    """One sentence box of the comparison, kept in the URL as `param`; text over COMPARE_MAX_CHARS is
    cut with a message under the box (`cut_to_limit`), which stays until the box is edited again."""
    url_widget(param, key, default, max_items=COMPARE_MAX_CHARS)
    text = place.text_input(label, key=key, on_change=_cut_box, args=(key, label),
                            help=f"Up to {COMPARE_MAX_CHARS} characters: longer text is cut, and the page "
                                 "says so.")  # fmt: skip
    if f"{key}_cut" in st.session_state:
        place.warning(st.session_state[f"{key}_cut"])
    return text


def _cut_box(key: str, label: str) -> None:
    """A compare box's callback: cut its text to COMPARE_MAX_CHARS and keep what to say about it."""
    text, notice = cut_to_limit(st.session_state[key], COMPARE_MAX_CHARS, f"the box {label}")
    st.session_state[key] = text
    if notice:
        st.session_state[f"{key}_cut"] = notice
    else:
        st.session_state.pop(f"{key}_cut", None)


def switch_heads_off(p: Page, sel: Selection) -> None:
    """Heads switched off for this request: the translation and next-token probabilities, before/after."""
    st.markdown(
        "Switch heads off and watch the output. A switched-off head's output is set to zero before the "
        "heads are concatenated and multiplied by W^O (the bias b^O is still added), for this request "
        "only: the shared model is never changed. The probability chart feeds the decoder the same input "
        "both times (`<s>` + what the decoder reads, chosen in the sidebar), so any change comes from the "
        "missing heads."
    )
    options = inspector.head_options(p.n_layers, p.n_heads, int(sel.one_based))
    url_widget("off", "hi_ablate", [], list(options))
    picked = st.multiselect("Heads to switch off", list(options), format_func=options.get, key="hi_ablate",
                            placeholder="choose one or more heads")
    ablate = tuple(inspector.head_from_code(code) for code in picked)
    result = _ablation(p.lm.model_id, p.src.text, ablate, p.sel.decoder_choice)
    cols = st.columns(2)
    off = "Chosen heads off" if ablate else "No head switched off yet"
    for col, side, heading in ((cols[0], "before", "All heads on"), (cols[1], "after", off)):
        col.markdown(f"**{heading}** ({result['search']})")
        col.text(result[side]["text"])
    log_before, log_after = result["log_before"], result["log_after"]
    read = {"beam": "the beam translation", "greedy": "the greedy translation", "own": "your German prefix"}
    label = f"log-probability of {read[result['reads']]} (what the decoder reads)"
    if ablate:
        st.metric(label, f"{log_after:.3f}", delta=f"{log_after - log_before:+.3f} vs all heads on",
                  delta_color="normal")
    else:  # nothing switched off: no change to show, and a "+0.000" would look like a result
        st.metric(label, f"{log_before:.3f}")
        st.caption(NOTHING_OFF)
    steps = result["decoder_input"]
    url_widget("pos", "hi_step", 0, low=0, high=len(steps) - 1)
    step = st.slider("Decoder position (predicting the token after it)", 0, len(steps) - 1, key="hi_step")
    st.caption("The decoder has read so far:")
    st.text(" ".join(steps[: step + 1]))
    colors = (p.colors["categorical"][0], p.colors["categorical"][1])
    show_figure(
        _probability_figure(p.lm.model_id, p.src.text, ablate, p.sel.decoder_choice, step, colors),
        key="hi_probs",
        caption="The candidates among the top 8 with all heads on or with the chosen heads off.",
    )


# Switching heads off does not depend on the selected head: cached for the whole server (read, never
# changed), so a head change on the page, which reruns this tab too, reads these instead of computing.
@st.cache_resource(max_entries=64, show_spinner=False)
def _ablation(model_id: str, sentence: str, ablate: tuple, choice: tuple[str, str]) -> dict:
    """`inspector.ablation`, with the log-probability of the decoder input before and after."""
    result = inspector.ablation(model_id, sentence, ablate, choice)
    target = result["target_ids"]  # one per row, or none for the last row after the reader's own prefix
    return {**result,
            "log_before": heads.sequence_log_prob(result["probs_before"][: len(target)], target),
            "log_after": heads.sequence_log_prob(result["probs_after"][: len(target)], target)}  # fmt: skip


@st.cache_resource(max_entries=128, show_spinner=False)
def _probability_figure(model_id: str, sentence: str, ablate: tuple, choice: tuple[str, str], step: int,
                        colors: tuple[str, str]):  # fmt: skip
    """The next-token probabilities at decoder position `step`, all heads on and `ablate` off."""
    result = _ablation(model_id, sentence, ablate, choice)
    before, after = result["probs_before"][step], result["probs_after"][step]  # (V,)
    ids = heads.top_k_union(before, after, k=8)
    return viz_inspector.probability_change(
        [result["piece"](i) for i in ids], before[ids], after[ids],
        f"Next-token probabilities at decoder position {step}", colors=colors)  # fmt: skip
