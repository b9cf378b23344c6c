"""The paper's Figures 3-5, remade on our model (paper §6, "Attention Visualizations").

The paper's figures show *encoder self-attention* in layer 5 of 6 ("Input-Input Layer5"): the
sentence twice, as two columns, with lines from a query word (left) to the words it attends to
(right); one colour per head, stronger weight = stronger line.

- `figure3`: one query token's lines in every head (Figure 3: 'making' -> 'more difficult').
- `figure_full`: every query's lines in the chosen heads (Figure 4 top, Figure 5).
- `query_rows_heatmap`: the heatmap variant: for one query token, rows = heads, columns = keys.
- `ranking_rows`: the head finder's ranking as table rows, numbered as the user chose.

Shapes: H heads, T source positions.
"""

from __future__ import annotations

import plotly.graph_objects as go

from viz.heatmap import attention_heatmap
from viz.multihead import as_stack, escape_text, head_view

PAPER_LAYER = 4  # 0-based index of "layer 5 of 6", the layer of the paper's Figures 3-5


def figure3(
    patterns,
    labels: list[str],
    query: int,
    head_names: list[str],
    colors: list[str],
    title: str,
    heads: list[int] | None = None,
) -> go.Figure:
    """patterns: (H, T, T) encoder self-attention of one layer; lines from token `query` only."""
    return head_view(
        patterns, labels, labels, head_names, colors, title, query=query, heads=heads, min_weight=0.01
    )


def figure_full(
    patterns, labels: list[str], heads: list[int], head_names: list[str], colors: list[str], title: str
) -> go.Figure:
    """patterns: (H, T, T); every query's lines, for the chosen heads only (Figures 4 top and 5)."""
    if not heads:
        raise ValueError("choose at least one head")
    return head_view(patterns, labels, labels, head_names, colors, title, heads=heads, min_weight=0.05)


def query_rows_heatmap(
    patterns, labels: list[str], query: int, head_names: list[str], title: str, colorscale: str = "Blues",
    max_width: int | None = None,
) -> go.Figure:
    """patterns: (H, T, T) -> for token `query`: rows = heads, columns = keys (its row in each head).

    `max_width`: the column it is drawn in (px); its cells, and so the room for each key's label, are
    what fits there (`viz.heatmap.fit_ticks` turns crowded labels upright rather than skip any)."""
    z = as_stack(patterns, 3)
    if not 0 <= query < z.shape[1]:
        raise ValueError(f"query {query} out of range 0..{z.shape[1] - 1}")
    if len(labels) != z.shape[2] or len(head_names) != z.shape[0]:
        raise ValueError("labels and head names must match the weights")
    fig = attention_heatmap(z[:, query, :], list(head_names), list(labels), title, colorscale,
                            max_width=max_width)
    fig.update_layout(
        title=f"{title}<br><sup>rows = heads (the weights of the query token "
        f"{_quote(labels[query])} in each head), columns = keys (attended to)</sup>"
    )
    fig.update_yaxes(title="head")
    return fig


def _quote(label: str) -> str:
    return "“" + escape_text(label) + "”"


def ranking_rows(scores, show_layer, show_head, limit: int | None = None) -> list[dict]:
    """HeadScore list (strongest first) -> rows with displayed layer/head numbers and the weight.

    `show_layer`/`show_head` turn 0-based indices into the numbers the user sees (1- or 0-based).
    """
    chosen = list(scores)[:limit] if limit else list(scores)
    return [
        {"rank": i + 1, "layer": show_layer(s.layer), "head": show_head(s.head), "weight": round(s.weight, 4)}
        for i, s in enumerate(chosen)
    ]
