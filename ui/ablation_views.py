"""The figures and tables of "Why these choices?" (pages/Why_these_choices.py), from the shipped
variants' scores and from the models themselves on the reader's phrase."""

from __future__ import annotations

import streamlit as st

from analysis.scaling import dot_products
from tasks.numbers import alignment
from ui import ablations
from ui.render import show_figure, show_table
from viz import ablations as viz
from viz.decoding import mark_gold
from viz.heatmap import attention_heatmap
from viz.labels import token_labels, writes_labels

FOOTNOTE_DK = [2**i for i in range(11)]  # 1 .. 1024
ATTENTION_PANELS = {
    "logit_var": "variance of the softmax's input",
    "entropy": "entropy (nats)",
    "softmax_gradient": "size of the softmax's gradient",
}


def first_seed(scores: dict) -> dict:
    return scores["per_seed"][str(min(scores["seeds"]))]


def side_by_side(names: list[str], scores: dict, phrase: str, colors: dict) -> None:
    """Each model's answer (right or wrong) and its cross-attention with the right alignment boxed."""
    expected = ablations.right_answer(phrase)
    for column, name in zip(st.columns(len(names)), names, strict=True):
        with column:
            st.markdown(f"**{scores[name]['title']}**")
            lm = ablations.model(name)
            if lm is None:
                st.error(f"The {name} model's files are missing or damaged: reinstall or retrain it.")
                continue
            answer = ablations.answer(lm, phrase)
            right = answer["text"] == expected
            st.text(answer["text"] or "(nothing)")  # model output, shown as text
            if expected is not None:
                st.caption("✓ right" if right else f"✗ wrong; right: {expected}")
            fig = attention_heatmap(
                answer["rows"].numpy(),
                writes_labels(answer["tgt"], answer["written"]),  # escaped: "<s>" would vanish
                token_labels(answer["src"]),
                "Cross-attention, last decoder layer (heads averaged)",
                colors["sequential"],
            )
            matrix = alignment.decoder_rows(phrase, answer["src"], answer["tgt"])
            if matrix is not None:
                mark_gold(fig, matrix.numpy())
            show_figure(
                fig,
                key=f"why_attn_{name}",
                export=False,
                caption="Boxes: the English word each German piece translates."
                if matrix is not None
                else "No boxes: the phrase is outside the grammar, or the answer is wrong.",
            )


def curves(names: list[str], scores: dict, colors: list[str]) -> None:
    """Held-out loss, and exact match at each milestone step (how fast each model learns)."""
    left, right = st.columns(2)
    series = {scores[n]["title"]: scores[n]["curve"]["valid_loss"] for n in names}
    with left:
        title = "Held-out loss during training (first seed)"
        show_figure(viz.curves(series, title, "loss per piece", colors), key="why_curves")
    learned = {scores[n]["title"]: first_seed(scores[n]).get("exact_match_by_step") for n in names}
    if all(learned.values()):
        series = {label: [[int(s), v] for s, v in by_step.items()] for label, by_step in learned.items()}
        with right:
            title = "Exact match during training (300 held-out phrases)"
            show_figure(viz.curves(series, title, "exact match (%)", colors), key="why_learning")


def statistic(kind: str, names: list[str], scores: dict, colors: list[str], presenter: bool = False) -> None:
    """The view of the paper's argument: softmax statistics, per-head agreement or word order."""
    if kind == "scaling":
        stats = {scores[n]["title"]: first_seed(scores[n])["attention"] for n in names}
        show_figure(
            viz.over_training(stats, ATTENTION_PANELS, colors, columns=2 if presenter else None),
            key="why_softmax",
            caption="Means over every attention layer and head, on 40 held-out phrases.",
        )
    elif kind == "heads":
        per_head = {scores[n]["title"]: first_seed(scores[n])["alignment_per_head"][-1] for n in names}
        show_figure(viz.head_agreement(per_head, colors), key="why_heads")
    elif kind == "positions":
        rows = [
            {
                "phrase": phrase,
                **{scores[n]["title"]: first_seed(scores[n])["word_order"][phrase] for n in names},
            }
            for phrase in first_seed(scores[names[0]])["word_order"]
        ]
        st.markdown(
            "The same pieces in another order. Without positions the encoder cannot tell them "
            "apart, so both get the same answer, and at most one can be right:"
        )
        show_table(rows, key="why_order")


def summary_table(scores: dict) -> None:
    rows = [
        {
            "variant": s["title"],
            "seeds": len(s["seeds"]),
            "steps": s["steps"],
            "exact match (%)": f"{s['exact_match']['mean']:.1f} ± {s['exact_match']['spread'] / 2:.1f}",
            "alignment, last layer (%)": f"{s['alignment']['mean']:.0f} ± {s['alignment']['spread'] / 2:.0f}",
        }
        for s in scores.values()
    ]
    show_table(rows, key="why_table")
    st.caption(
        "Mean over seeds ± half the spread between them (max - min), on the 1,004 held-out test phrases."
    )


@st.cache_data(show_spinner=False)
def footnote_rows() -> list[tuple[int, dict]]:
    return [(d, dot_products(d)) for d in FOOTNOTE_DK]


def footnote4(d_k: int, colors: list[str], presenter: bool = False) -> None:
    """Random unit-variance q and k at every d_k: scores, softmax entropy, largest weight, gradient."""
    rows = footnote_rows()
    now = dict(rows)[d_k]
    u, s = now["unscaled"], now["scaled"]
    st.markdown(
        f"At d_k = {d_k}: the variance of q·k is {u.variance:.1f} (of q·k / √d_k: {s.variance:.2f}). "
        f"The softmax of the unscaled scores has entropy {u.entropy:.2f} nats (scaled: {s.entropy:.2f}; "
        f"an even spread over the 10 keys would be 2.30), puts {u.max_weight:.2f} of its weight on one key "
        f"on average ({s.max_weight:.2f}), and its gradient has size {u.gradient:.3f} ({s.gradient:.3f})."
    )
    show_figure(viz.footnote4(rows, d_k, colors, columns=2 if presenter else 4), key="why_footnote")
    show_figure(
        viz.softmax_rows(u.weights, s.weights, d_k, colors),
        key="why_footnote_row",
        caption="500 random queries, each with 10 random keys; every component drawn from N(0, 1).",
    )
