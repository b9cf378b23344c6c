"""The decoder at work (paper §3.1, §3.2.3, §6.1): masked self-attention, cross-attention as an
alignment, one decoding step at a time, and beam search candidates.

- `masked_attention_heatmap`: decoder self-attention with the blocked (future) cells marked.
- `alignment_heatmap`: encoder-decoder attention, target rows x source columns.
- `step_rows_heatmap`: the newest query's attention row in every head (rows = heads).
- `layer_rows_heatmap`: the newest query's row, averaged over heads, in every layer (rows = layers).
- `topk_bar`: the k most probable next tokens.
- `beam_rows` / `beam_figure`: beam search candidates and their scores.

Shapes: H heads, L layers, T decoder positions, S source positions, T_k keys.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import as_array, attention_heatmap
from viz.labels import readable, word
from viz.live import Change, heatmap_change
from viz.multihead import as_stack, escape_text

BLOCKED_TEXT = "0 (blocked: a future position)"
LEGEND_ROOM = 30  # px under a heatmap for the legend of its gold boxes
CROSS_CELL = 34  # px per cell of a cross-attention matrix, the page's main figure (26 elsewhere)


def masked_attention_heatmap(
    weights, allowed, query_labels: list[str], key_labels: list[str], title: str, colorscale: str = "Blues"
) -> go.Figure:
    """Decoder self-attention (T, T) with the causal mask made visible.

    `allowed` (T, T) bool, True = may attend. Blocked cells are drawn as grey gaps (their weight is
    exactly 0 because their score was −∞) and say so on hover.
    """
    w, ok = _masked(weights, allowed)
    fig = attention_heatmap(np.where(ok, w, np.nan), query_labels, key_labels, title, colorscale)
    fig.data[0].text = np.where(ok, np.char.mod("%.4f", w), BLOCKED_TEXT)
    return fig


def _masked(weights, allowed) -> tuple[np.ndarray, np.ndarray]:
    """The weights (T, T) and the mask as a bool array (True = may attend), checked to fit."""
    w = as_array(weights)
    ok = np.asarray(allowed.detach().cpu().numpy() if hasattr(allowed, "detach") else allowed, dtype=bool)
    if ok.shape != w.shape:
        raise ValueError(f"mask shape {ok.shape} does not match weights {w.shape}")
    return w, ok


def masked_changes(fig: go.Figure, context: str, new_context: str, weights, allowed) -> Change:
    """What changes in a `masked_attention_heatmap` drawn for `context` ("layer 1 of 6, head 1") to show
    another head's weights (T, T), named `new_context`: the same mask, other numbers."""
    w, ok = _masked(weights, allowed)
    data, layout = heatmap_change(fig, context, new_context, np.where(ok, w, np.nan))
    data["text"] = [np.where(ok, np.char.mod("%.4f", w), BLOCKED_TEXT).tolist()]
    return data, layout


def alignment_heatmap(
    weights,
    tgt_labels: list[str],
    src_labels: list[str],
    title: str,
    head: int | None = None,
    colorscale: str = "Blues",
) -> go.Figure:
    """Cross-attention as an alignment matrix: German (target) rows, English (source) columns.

    weights: (H, T, S); `head` picks one head, None averages the heads (rows still sum to 1).
    """
    w = as_stack(weights, 3)
    if head is not None and not 0 <= head < w.shape[0]:
        raise ValueError(f"head {head} out of range 0..{w.shape[0] - 1}")
    matrix = w.mean(axis=0) if head is None else w[head]
    fig = attention_heatmap(matrix, tgt_labels, src_labels, title, colorscale, cell=CROSS_CELL)
    fig.update_yaxes(title="target (decoder) queries")
    fig.update_xaxes(title="source (encoder) keys")
    return fig


def step_rows_heatmap(
    rows, key_labels: list[str], head_names: list[str], title: str, colorscale: str = "Blues",
    max_width: int | None = None,
) -> go.Figure:
    """rows: (H, T_k), the newest query's weights in each head -> rows = heads, columns = keys."""
    z = as_array(rows)
    if z.shape[0] != len(head_names) or z.shape[1] != len(key_labels):
        raise ValueError(f"{len(head_names)} heads × {len(key_labels)} keys do not fit shape {z.shape}")
    fig = attention_heatmap(z, list(head_names), list(key_labels), title, colorscale,
                            note="rows = heads (the newest query's row), columns = keys (attended to)",
                            max_width=max_width)
    fig.update_yaxes(title="head")
    return fig


def layer_rows_heatmap(
    rows, key_labels: list[str], layer_names: list[str], title: str, colorscale: str = "Blues"
) -> go.Figure:
    """rows: (L, H, T_k) -> the head average per layer: rows = layers, columns = keys."""
    z = as_stack(rows, 3).mean(axis=1)  # (L, T_k)
    if z.shape[0] != len(layer_names) or z.shape[1] != len(key_labels):
        raise ValueError(f"{len(layer_names)} layers × {len(key_labels)} keys do not fit shape {z.shape}")
    fig = attention_heatmap(z, list(layer_names), list(key_labels), title, colorscale,
                            note="rows = layers (heads averaged), columns = keys (attended to)")
    fig.update_yaxes(title="layer")
    return fig


def ranked(pieces: list[str], show_pieces: bool = False) -> list[str]:
    """Candidates' labels, best first: "1. Haus", … (words unless `show_pieces`)."""
    return [f"{i + 1}. {readable(p if show_pieces else word(p))}" for i, p in enumerate(pieces)]


def topk_bar(
    pieces: list[str], probs: list[float], title: str, color: str = "#1f77b4", chosen: int | None = 0,
    show_pieces: bool = False,
) -> go.Figure:
    """Horizontal bars of the k most probable next tokens, most probable on top.

    `chosen` marks the bar of the token greedy decoding takes (index into `pieces`). Bars read as
    words unless `show_pieces` (as `viz.labels.token_labels`).
    """
    if len(pieces) != len(probs):
        raise ValueError(f"{len(pieces)} pieces for {len(probs)} probabilities")
    # The rank keeps pieces that read the same ("Haus", "▁Haus") apart; the hover names the piece.
    labels = ranked(pieces, show_pieces)
    colors = [color if i == chosen else "#9aa5b1" for i in range(len(pieces))]
    fig = go.Figure(
        go.Bar(
            x=list(probs),
            y=labels,
            orientation="h",
            marker_color=colors,
            text=[f"{p:.1%}" for p in probs],
            textposition="outside",
            customdata=[readable(p) for p in pieces],
            hovertemplate="%{y}<br>piece %{customdata}<br>P = %{x:.4f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(range=[0, 1.1], tickformat=".0%", title="probability of being the next token")
    fig.update_layout(
        title=title, height=max(260, 28 * len(pieces) + 120), margin=dict(l=10, r=10, t=60, b=10)
    )
    return fig


def tempered_bars(pieces: list[str], model: list[float], sampled: list[float], temperature: float,
                  title: str, colors: tuple[str, str] = ("#9aa5b1", "#1f77b4"), drawn: int | None = None,
                  show_pieces: bool = False) -> go.Figure:  # fmt: skip
    """The k candidates' probabilities before (the model's softmax) and after temperature and top-k
    (what sampling draws from), side by side, most probable on top; `drawn` marks the drawn one."""
    if not len(pieces) == len(model) == len(sampled):
        raise ValueError(f"{len(pieces)} pieces for {len(model)} and {len(sampled)} probabilities")
    labels = ranked(pieces, show_pieces)
    labels = [label + (" ← drawn" if i == drawn else "") for i, label in enumerate(labels)]
    fig = go.Figure()
    series = (("the model's probability (temperature 1, whole vocabulary)", model, colors[0]),
              (f"sampled from: temperature {temperature:g}, these {len(pieces)} only", sampled, colors[1]))
    for name, probs, color in series:
        fig.add_trace(go.Bar(x=list(probs), y=labels, orientation="h", name=name, marker_color=color,
                             text=[f"{p:.1%}" for p in probs], textposition="outside",
                             hovertemplate="%{y}<br>P = %{x:.4f}<extra>" + name + "</extra>"))  # fmt: skip
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(range=[0, 1.15], tickformat=".0%", title="probability of being the next token")
    fig.update_layout(title=title, barmode="group", height=max(300, 40 * len(pieces) + 150),
                      legend=dict(orientation="h", y=-0.25), margin=dict(l=10, r=10, t=60, b=10))  # fmt: skip
    return fig


LENGTH = "length (with </s>)"


def beam_rows(beam: list[dict]) -> list[dict]:
    """Beam candidates (as returned by ui.model.translate) as table rows, best first.

    The length is the one the penalty divides by: the tokens and the `</s>` that ended them (an
    unfinished candidate, cut at the length limit, has none).
    """
    ended = [bool(cand.get("finished", True)) for cand in beam]
    return [
        {
            "rank": i + 1,
            "translation": cand["text"],
            LENGTH: len(cand["ids"]) + int(end),
            "log P": round(float(cand["log_prob"]), 4),
            "score = log P / lp": round(float(cand["score"]), 4),
            "ended with </s>": end,
        }
        for i, (cand, end) in enumerate(zip(beam, ended, strict=True))
    ]


def beam_figure(beam: list[dict], title: str, color: str = "#1f77b4") -> go.Figure:
    """Bars of each candidate's log-probability and length-penalised score (higher is better)."""
    names = [f"#{i + 1}" for i in range(len(beam))]
    texts = [escape_text(cand["text"]) for cand in beam]
    fig = go.Figure(
        [
            go.Bar(
                x=names,
                y=[c["log_prob"] for c in beam],
                name="log P(Y|X)",
                marker_color="#9aa5b1",
                customdata=texts,
                hovertemplate="%{x}: %{customdata}<br>log P = %{y:.4f}<extra></extra>",
            ),
            go.Bar(
                x=names,
                y=[c["score"] for c in beam],
                name="score (÷ length penalty)",
                marker_color=color,
                customdata=texts,
                hovertemplate="%{x}: %{customdata}<br>score = %{y:.4f}<extra></extra>",
            ),
        ]
    )
    fig.update_layout(
        title=title,
        barmode="group",
        yaxis_title="log-probability (0 is best)",
        height=360,
        margin=dict(l=10, r=10, t=60, b=10),
    )
    return fig


def mark_gold(fig: go.Figure, gold, color: str = "#111111", name: str = "right answer") -> go.Figure:
    """Outline the cells of a (T, S) boolean gold alignment on an attention heatmap (in place).

    The heatmap's axes are categorical labels, so the outlines are drawn in cell coordinates: the
    heatmap trace's own x and y values at the marked positions.
    """
    g = np.asarray(gold, dtype=bool)
    heat = next(t for t in fig.data if t.type == "heatmap")
    xs, ys = list(heat.x) if heat.x is not None else None, list(heat.y) if heat.y is not None else None
    rows, cols = np.nonzero(g)
    fig.add_trace(go.Scatter(
        x=[xs[c] if xs else int(c) for c in cols], y=[ys[r] if ys else int(r) for r in rows],
        mode="markers", name=name, showlegend=True, hoverinfo="skip",
        marker={"symbol": "square-open", "size": 18, "line": {"width": 2.5}, "color": color},
    ))  # fmt: skip
    # Along the bottom of the figure, under the axis title, in room added below (the plot keeps its size).
    height = fig.layout.height + LEGEND_ROOM if fig.layout.height else None
    fig.update_layout(legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0,
                              "yanchor": "bottom"},
                      margin_b=(fig.layout.margin.b or 0) + LEGEND_ROOM, height=height)
    return fig
