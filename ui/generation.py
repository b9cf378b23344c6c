"""The decoder page's figures, and its "Next token" state rebuilt from a link.

Figures are cached for the whole server (only read, never changed), ready to show (`for_display`) and
frozen (`ui.frozen`: turned into the browser's JSON once, not by every session that shows them):
going back to a layer or head seen before draws without building a figure, and a figure that did not
change (e.g. the cross-attention when only the head moved) is not drawn again. Cross-attention rows
say which token they write (`ui.rows`). The decoder reads `<s>` + the session's decoder input
(`ui.model.decoder_input`, named by `Selection.decoder_choice`): by default the translation Home shows;
the decoder page passes its ids, which a forcing of the reader's may have changed (`ui.forcing`).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from analysis.decoding import decoding_step, step_from_trace, step_limit
from transformer.pretrained import Decoding
from ui import gold, live
from ui import model as model_io
from ui.frozen import frozen
from ui.render import column_width, for_display, grid_columns
from ui.rows import query_labels
from ui.state import Selection
from viz import decoding as dec_viz
from viz import grids
from viz.labels import readable, token_labels, word
from viz.palette import palette

TOP_K = 10


def beam_settings(d: Decoding) -> tuple[str, str | None]:
    """The model's beam size and α in words for a student, and the numbers behind the choice (for an
    expander; None for the paper's own settings)."""
    if (d.beam_size, d.alpha) == (Decoding().beam_size, Decoding().alpha):
        return f"This model uses the paper's settings: {d.beam_size} kept, α = {d.alpha:g}.", None
    return (
        f"This model keeps {d.beam_size} translations and uses α = {d.alpha:g} (the paper: 4 and 0.6). "
        "Like the paper, we tried several values on sentences kept apart from training for this "
        "purpose and kept the one whose translations came closest to translations written by people.",
        f"{d.chosen_on}. The model card (`pretrained/MODEL_CARD.md`) explains these scores.",
    )


def greedy_prefix(model_id: str, sentence: str, n: int, start: tuple[int, ...] = ()) -> list[int]:
    """`start` and then the first `n` token ids that pressing "Next token" `n` times appends after it.

    "Next token" appends the most probable token each time, so from `<s>` alone (no `start`) its tokens
    are the greedy translation followed by EOS (when the translation ended with one); after a prefix of
    the reader's own (`start`), the greedy continuation of that prefix. A link stores only `n`.
    """
    if n <= 0:
        return list(start)
    if start:
        return [*start, *_continued(model_id, sentence, tuple(start), n)]
    result = model_io.greedy(model_id, sentence)
    if result is None:
        return []
    ids = list(result["ids"])
    if result["finished"]:
        ids.append(model_io.by_id(model_id).tokenizer.eos_id)
    return ids[:n]


@st.cache_data(max_entries=64, show_spinner=False)
def _continued(model_id: str, sentence: str, start: tuple[int, ...], n: int) -> list[int]:
    """Up to `n` tokens that greedy steps append after `<s>` + `start`: fewer at EOS or the length limit."""
    lm, src = model_io.by_id(model_id), model_io.source(sentence, model_id)
    ids, limit = list(start), step_limit(lm.model, len(src.ids))
    while len(ids) < min(len(start) + n, limit) and not (ids and ids[-1] == lm.tokenizer.eos_id):
        ids.append(decoding_step(lm.model, src.ids, [lm.model.config.start_id, *ids], k=1).next_id)
    return ids[len(start) :]


def scope(model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None, prefix=None) -> str:
    """What a figure shows apart from the layer and head (`ui.live`): the decoder's input `ids` for the
    masked self-attention and the cross-attention, the "Next token" `prefix` for its rows."""
    return live.scope(model_id, text, replace(sel, layer=0, head=0), ids, prefix)


def names(sel: Selection, n_layers: int, n_heads: int) -> tuple[list[str], list[str]]:
    return ([f"head {sel.show_head(h)}" for h in range(n_heads)],
            [f"layer {sel.show_layer(i)}" for i in range(n_layers)])  # fmt: skip


def read(model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None):
    """The trace of the decoder reading `<s>` + `ids`, or the decoder input the selection names."""
    if ids is None:
        return model_io.decoder_trace(model_id, text, sel.decoder_choice)
    return model_io.trace(model_id, text, ids)


@st.cache_resource(max_entries=64, show_spinner=False)
def self_figure(model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None = None):
    """The masked self-attention of the selection's decoder layer and head, on `<s>` + `ids` (default:
    the decoder input the selection names; the decoder page passes a forced one, `ui.forcing`)."""
    lm, tr = model_io.by_id(model_id), read(model_id, text, sel, ids)
    head_names, _ = names(sel, lm.model.config.n_layers, lm.model.config.n_heads)
    labels = token_labels(tr.tgt_pieces, sel.pieces)
    fig = dec_viz.masked_attention_heatmap(
        tr.attention("decoder", "self", sel.layer)[sel.head],
        tr.get(tr.attn_name("decoder", "self", sel.layer, "mask"))[0],  # (T, T), True = may attend
        labels, labels,
        f"decoder layer {sel.show_layer()} of {lm.model.config.n_layers}, {head_names[sel.head]}: "
        "masked self-attention",
        colorscale=palette(sel.palette)["sequential"],
    )  # fmt: skip
    fig = for_display(fig, sel)
    fig.layout.uirevision = scope(model_id, text, sel, ids)
    return frozen(fig)


@st.cache_resource(max_entries=64, show_spinner=False)
def cross_figures(
    model_id: str, text: str, sel: Selection, ids: tuple[int, ...] | None = None
) -> tuple[dict, str | None, str | None]:
    """The layer's cross-attention averaged over the heads (with the numbers model's right answer) and
    head by head, on `<s>` + `ids` as `self_figure`; and the gold caption, or why there is no gold
    (`gold.marks`)."""
    lm, tr = model_io.by_id(model_id), read(model_id, text, sel, ids)
    cfg, colors = lm.model.config, palette(sel.palette)
    head_names, _ = names(sel, cfg.n_layers, cfg.n_heads)
    tgt = query_labels(model_id, tr, "decoder", "cross", sel.pieces)  # "reads → writes"
    src = token_labels(tr.src_pieces, sel.pieces)
    where = f"decoder layer {sel.show_layer()} of {cfg.n_layers}"
    cross = tr.attention("decoder", "cross", sel.layer)  # (H, T, S)
    average = dec_viz.alignment_heatmap(
        cross, tgt, src, f"{where}: cross-attention, average of the heads", colorscale=colors["sequential"]
    )
    right, why_not = gold.marks(average, tr, text, cross.mean(0), "heads averaged, this layer")
    heads = grids.heads_grid(
        cross,
        tgt,
        src,
        head_names,
        f"{where}: cross-attention per head",
        colorscale=colors["sequential"],
        max_cols=grid_columns(sel, "cross"),
    )
    stamped = live.stamp({"average": for_display(average, sel), "heads": for_display(heads, sel)},
                         scope(model_id, text, sel, ids))  # fmt: skip
    return {name: frozen(fig) for name, fig in stamped.items()}, right, why_not


@st.cache_resource(max_entries=64, show_spinner=False)
def step_figures(model_id: str, text: str, prefix: tuple[int, ...], sel: Selection) -> dict:
    """The next-token probabilities after `prefix`, and the newest query's attention rows."""
    lm = model_io.by_id(model_id)
    cfg, colors = lm.model.config, palette(sel.palette)
    head_names, layer_names = names(sel, cfg.n_layers, cfg.n_heads)
    step_tr = model_io.trace(model_id, text, target_ids=prefix)
    step = step_from_trace(step_tr, TOP_K)
    src = token_labels(step_tr.src_pieces, sel.pieces)
    where = f"decoder layer {sel.show_layer()} of {cfg.n_layers}"
    next_piece = lm.tokenizer.id_to_piece(step.next_id)
    reads, writes = (readable(word(piece)) for piece in (step_tr.tgt_pieces[-1], next_piece))
    newest = f"the newest query (position {len(prefix)}: reads “{reads}”, writes “{writes}”)"
    half = column_width(2, sel)  # the two newest rows share a row of the page
    figs = {
        "topk": dec_viz.topk_bar(
            [lm.tokenizer.id_to_piece(i) for i in step.top_ids], step.top_probs,
            f"Step {len(prefix) + 1}: the {TOP_K} most probable next tokens", color=colors["categorical"][0],
            show_pieces=sel.pieces,
        ),
        "self": dec_viz.step_rows_heatmap(
            step.rows[("self", sel.layer)], token_labels(step_tr.tgt_pieces, sel.pieces), head_names,
            f"{where}: new self-attention row of {newest}", colorscale=colors["sequential"], max_width=half,
        ),
        "cross": dec_viz.step_rows_heatmap(
            step.rows[("cross", sel.layer)], src, head_names, f"{where}: new cross-attention row of {newest}",
            colorscale=colors["sequential"], max_width=half,
        ),
        "layers": dec_viz.layer_rows_heatmap(
            [step.rows[("cross", i)] for i in range(cfg.n_layers)], src, layer_names,
            f"Where {newest} looks in the English sentence, layer by layer", colorscale=colors["sequential"],
        ),
    }  # fmt: skip
    shown = live.stamp({name: for_display(fig, sel) for name, fig in figs.items()},
                       scope(model_id, text, sel, None, prefix))  # fmt: skip
    return {name: frozen(fig) for name, fig in shown.items()}
