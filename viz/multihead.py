"""The paper's picture of multi-head attention (paper §3.2.2; the style of Figures 3-5), and the array
helpers the attention figures share.

    MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O + b^O

- `head_view`: queries in a left column, keys in a right column, a line from query to key whose
  opacity and width grow with the weight, one colour per head; `head_view_rows` reads its lines back
  (the weights behind its CSV export, `ui.export`).
- `as_stack`, `check_labels`, `escape_text`: arrays of a fixed rank, labels that fit them, user text
  shown as typed.

The other pictures of the multi-head page: `viz.grids` (every head of a layer, every layer × head) and
`viz.concat` (Concat(heads) · W^O).

Shapes: H heads, T_q queries, T_k keys.
"""

from __future__ import annotations

import base64
import re

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import title_margin, wrap_title

# Lines are grouped into this many opacity levels: one Plotly trace per (head, level) instead of one
# per line keeps a 60-token sentence (8 x 60 x 60 lines) quick to draw.
LEVELS = 10
# Each head's lines start and end a little above or below the token's row (a fan, the same offset at
# both ends, symmetric around the row), so that two heads' lines between the same two tokens run side
# by side instead of one on top of the other. FAN: the outermost head's offset (rows); FAN_STEP: the
# most between neighbouring heads (two or three heads get a narrow fan, not one spread over the band).
# At about 22 px a row (long sentences), 8 heads span ±6.6 px, 1.9 px apart; a token's text, beside
# its row, stays clear.
FAN = 0.3
FAN_STEP = 0.15
# A head view's `layout.meta` kind: its token labels and the weight of every line it draws, in drawing
# order (`head_view_rows`), so that its export can give weights instead of line coordinates.
LINES_META = "attention lines"


def as_stack(values, ndim: int) -> np.ndarray:
    """A float32 array with exactly `ndim` dimensions from a tensor, an array, or a list of them.

    float32 is what the model computes, and Plotly sends numpy arrays as typed binary arrays, so a
    float32 figure travels at half the size of a float64 one.
    """
    if hasattr(values, "detach"):
        values = values.detach().cpu().float().numpy()
    elif isinstance(values, list | tuple) and values and hasattr(values[0], "detach"):
        values = [v.detach().cpu().float().numpy() for v in values]
    array = np.asarray(values, dtype=np.float32)
    if array.ndim != ndim:
        raise ValueError(f"expected a {ndim}-D array, got shape {array.shape}")
    return array


def check_labels(shape: tuple[int, ...], query_labels, key_labels) -> None:
    if len(query_labels) != shape[-2] or len(key_labels) != shape[-1]:
        raise ValueError(
            f"labels ({len(query_labels)} queries, {len(key_labels)} keys) "
            f"do not fit weights of shape {shape}"
        )


def head_view_lines(
    patterns, query: int | None = None, heads: list[int] | None = None, min_weight: float = 0.02
) -> list[tuple[int, int, int, float]]:
    """The lines a head view draws: (head, query, key, weight), for weights of at least `min_weight`.

    patterns: (H, T_q, T_k). `query` keeps only that query's lines; `heads` keeps only those heads.
    """
    z = as_stack(patterns, 3)
    heads = list(range(z.shape[0])) if heads is None else list(heads)
    queries = list(range(z.shape[1])) if query is None else [query]
    sub = z[np.ix_(heads, queries, list(range(z.shape[2])))]  # (heads, queries, T_k)
    hi, qi, ki = np.nonzero(sub >= min_weight)
    return [(heads[a], queries[b], int(c), float(sub[a, b, c])) for a, b, c in zip(hi, qi, ki)]


def fan_offsets(n_heads: int) -> np.ndarray:
    """The vertical offset (in rows) of each of `n_heads` drawn heads' line ends, in drawing order:
    symmetric around the token's row, at most ±FAN, at most FAN_STEP apart."""
    if n_heads <= 1:
        return np.zeros(n_heads, dtype=np.float32)
    step = min(FAN_STEP, 2 * FAN / (n_heads - 1))
    return ((np.arange(n_heads) - (n_heads - 1) / 2) * step).astype(np.float32)


def head_view_data(
    patterns,
    query_labels: list[str],
    key_labels: list[str],
    head_names: list[str],
    colors: list[str],
    query: int | None = None,
    heads: list[int] | None = None,
    min_weight: float = 0.02,
    text_size: int = 13,
) -> tuple[list[dict], np.ndarray]:
    """The traces of a `head_view` (its `data`, as dicts) and the weight of every line it draws, in
    drawing order; the arguments are `head_view`'s, `text_size` the tokens' px. What changes in a head
    view from one query token to another: the browser draws another token's with these (`ui.live`)."""
    z = as_stack(patterns, 3)
    check_labels(z.shape, query_labels, key_labels)
    if len(head_names) != z.shape[0]:
        raise ValueError(f"{len(head_names)} head names for {z.shape[0]} heads")
    if query is not None and not 0 <= query < z.shape[1]:
        raise ValueError(f"query {query} out of range 0..{z.shape[1] - 1}")
    heads = list(range(z.shape[0])) if heads is None else list(heads)
    if any(not 0 <= h < z.shape[0] for h in heads):
        raise ValueError(f"heads must be in 0..{z.shape[0] - 1}")
    lines = np.array(head_view_lines(z, query, heads, min_weight), dtype=np.float32).reshape(-1, 4)
    # Row i of a column sits at y = i; the axis is reversed so the first token is on top.
    data, drawn = [], []
    fan = fan_offsets(len(heads))
    for rank, h in enumerate(heads):
        color = colors[h % len(colors)]
        mine = lines[lines[:, 0] == h]  # (n, 4): head, query, key, weight
        level = np.minimum((mine[:, 3] * LEVELS).astype(int), LEVELS - 1)
        for lv in np.unique(level):
            seg = mine[level == lv]
            # Each line is (query end, key end, gap): a NaN y breaks the polyline between lines, so x
            # can be whole numbers and go as one byte each (a third of the figure's bytes before).
            xs = np.tile(np.array([0, 1, 0], dtype=np.uint8), len(seg))
            gaps = np.full(len(seg), np.nan, dtype=np.float32)
            ys = np.column_stack([seg[:, 1] + fan[rank], seg[:, 2] + fan[rank], gaps]).ravel()
            drawn.append(seg[:, 3])
            strength = (lv + 1) / LEVELS
            data.append(
                dict(
                    type="scatter",
                    x=xs,
                    y=ys,
                    mode="lines",
                    hoverinfo="skip",
                    showlegend=False,
                    legendgroup=str(h),
                    opacity=min(1.0, 0.15 + 0.85 * strength),
                    line=dict(color=color, width=0.5 + 4.5 * strength),
                )
            )
        if query is None:
            mine = mine[:0]  # the legend entry only (see above)
        q_idx, k_idx = mine[:, 1].astype(int), mine[:, 2].astype(int)
        data.append(
            dict(
                type="scatter",
                x=np.full(len(mine), 0.97 - 0.025 * rank, dtype=np.float32),
                y=mine[:, 2],
                mode="markers",
                name=head_names[h],
                legendgroup=str(h),
                marker=dict(color=color, size=4 + 14 * mine[:, 3], opacity=0.8),  # grows with the weight
                customdata=mine[:, 1:],
                text=[escape_text(f"{query_labels[q]} → {key_labels[k]}") for q, k in zip(q_idx, k_idx)],
                hovertemplate=f"{head_names[h]}<br>%{{text}}<br>"
                "weight = %{customdata[2]:.4f}<extra></extra>",
            )
        )
    data.append(_token_column(query_labels, 0.0, "right", query, text_size))
    data.append(_token_column(key_labels, 1.0, "left", None, text_size))
    return data, np.concatenate(drawn) if drawn else np.zeros(0, dtype=np.float32)


def head_view(
    patterns,
    query_labels: list[str],
    key_labels: list[str],
    head_names: list[str],
    colors: list[str],
    title: str,
    query: int | None = None,
    heads: list[int] | None = None,
    min_weight: float = 0.02,
) -> go.Figure:
    """Two token columns joined by lines: opacity and width show the weight, colour shows the head.

    patterns: (H, T_q, T_k). `query` isolates one query token (its lines only, its label in bold);
    `heads` picks which heads to draw. Weights below `min_weight` are not drawn (they would only
    grey the picture).

    The k-th drawn head's lines start and end `fan_offsets(len(heads))[k]` rows below their tokens'
    rows (a negative offset: above), so the lines of two heads between the same two tokens run side by
    side. `layout.meta` holds the exact weight of every line (`head_view_rows` reads them back).

    Each head has one trace named after it (its legend entry). With a query isolated, that trace
    holds a point near each line's key end, in a column of its own per head so that every point can
    be hovered, sized by the weight; the point's customdata row is (query, key, weight). With all
    queries drawn it is empty: up to T_q points would sit on each key's spot, one hoverable and the
    rest only payload (a 38-token sentence sent 6,800 of them, 0.4 MB); `heads_grid` has the weights.
    """
    data, weights = head_view_data(patterns, query_labels, key_labels, head_names, colors, query, heads,
                                   min_weight)  # fmt: skip
    n_q, n_k = len(query_labels), len(key_labels)
    # Wrapped: Plotly cuts a long title ("…, head 8, all toker" in a 560-px column at 1024 px).
    title = (f"{wrap_title(title)}<br><sup>left: queries (attending) · right: keys (attended to) · "
             "stronger weight = darker, thicker line</sup>")
    layout = dict(
        title=dict(text=title),
        xaxis=dict(visible=False, range=[-0.45, 1.45]),
        yaxis=dict(visible=False, autorange="reversed"),
        height=max(400, 22 * max(n_q, n_k) + 120),
        plot_bgcolor="white",
        hovermode="closest",
        legend=dict(title=dict(text="head"), orientation="h", y=-0.02),
        margin=dict(l=10, r=10, t=title_margin(title), b=10),
        # float32, 4 bytes a line (base64 on the wire): the CSV's exact weights, also with every query
        # drawn, where no point carries them.
        meta=dict(
            kind=LINES_META,
            queries=[_position_label(t) for t in query_labels],
            keys=[_position_label(t) for t in key_labels],
            weights=weights,
        ),
    )
    return go.Figure(data=data, layout=layout)


def _position_label(label: str) -> str:
    """A token's label with its position where it knows it (`viz.labels.Label.hover`, "3:▁cat")."""
    return str(getattr(label, "hover", None) or label)


def plain_array(values) -> np.ndarray:
    """An array as a figure holds it: a list, a numpy array, or Plotly's base64 typed-array dict."""
    if isinstance(values, dict) and "bdata" in values:
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        shape = values.get("shape")
        return flat.reshape([int(s) for s in str(shape).split(",")]) if shape else flat
    return np.asarray(values if values is not None else [])


def head_view_rows(fig: go.Figure) -> list[tuple[str, int, str, int, str, float]] | None:
    """The lines of a `head_view` figure, read back from it, in drawing order: (head name, query
    position, query label, key position, key label, weight); None for any other figure.

    A line's tokens are its ends' rows (its y, less the head's offset, which is under half a row);
    its weight is the exact one (`layout.meta`), not its drawn opacity level.
    """
    meta = fig.layout.meta
    if not (isinstance(meta, dict) and meta.get("kind") == LINES_META):
        return None
    weights = plain_array(meta["weights"]).astype(np.float32).ravel()
    queries, keys = list(meta["queries"]), list(meta["keys"])
    names = {t.legendgroup: t.name for t in fig.data if t.mode == "markers"}
    lines = []  # (head name, query position, key position), one per line
    for trace in fig.data:
        if trace.mode == "lines":
            ends = np.rint(plain_array(trace.y).astype(np.float64).reshape(-1, 3)[:, :2]).astype(int)
            name = names.get(trace.legendgroup, trace.legendgroup)
            lines += [(name, int(q), int(k)) for q, k in ends]
    if len(lines) != len(weights):
        raise ValueError(f"{len(lines)} lines drawn, {len(weights)} weights in the figure's meta")
    return [(name, q, queries[q], k, keys[k], float(w))
            for (name, q, k), w in zip(lines, weights, strict=True)]


def _token_column(labels: list[str], x: float, side: str, bold: int | None, size: int = 13) -> dict:
    text = [f"<b>{escape_text(t)}</b>" if i == bold else escape_text(t) for i, t in enumerate(labels)]
    return dict(
        type="scatter",
        x=[x] * len(labels),
        y=list(range(len(labels))),
        mode="text",
        text=text,
        showlegend=False,
        textposition=f"middle {'left' if side == 'right' else 'right'}",
        hoverinfo="skip",
        textfont=dict(size=size),
    )


def escape_text(label: str) -> str:
    """Plotly text understands a few HTML tags; escape user text so it is always shown as typed.

    Idempotent: entities already escaped (e.g. by the caller) are left alone, never doubled.
    """
    return re.sub(r"&(?!(?:lt|gt|amp);)", "&amp;", label).replace("<", "&lt;").replace(">", "&gt;")
