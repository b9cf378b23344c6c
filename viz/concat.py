"""Concat(head_1, ..., head_h) W^O (paper §3.2.2): the head outputs side by side, W^O, the result.

Shapes: H heads, T positions, K = d_v, D = d_model.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from viz.heatmap import AXIS_TITLE_FONT, TICK_FONT, fixed_margins, nice_ticks
from viz.live import Change, heatmap_data, retitled
from viz.multihead import as_stack

# The "dimension" under each panel is an annotation AXIS_TITLE_SHIFT px below the plot, not an axis
# title: in Streamlit's chart theme a title with a standoff (and no automargin) was drawn over the tick
# numbers (5 px of overlap measured in Chromium); an annotation's place
# is fixed in px. In that theme the numbers end TICK_FONT + 20 px under the plot (measured); the title
# starts 8 px lower. Presenter mode scales the shift with the text (`viz.present.presenter_fonts`).
AXIS_TITLE_SHIFT = -(TICK_FONT + 28)
# The panel titles lean towards W^O: the concat's ends at its panel's right edge (it runs on over the
# token labels on the left), W^O's is centred, the output's starts at its panel's left edge. Centred
# titles touched where the figure is squeezed into the 560-px column at 1024 px with the sidebar open
# ("15 × 8·16 = 15 × 128" is twice as wide as the concat panel is there).
TITLE_ANCHORS = ("right", "center", "left")  # concat, W^O, output
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# W^O travels in units of 10⁻⁵, as whole numbers (int16, two bytes a weight instead of float32's four):
# at d_model = 256 it is 65,536 weights, 350 KB of a page as float32, 213 KB so (Plotly's JSON writes
# each "/" of the base64 as 6 characters; units of 10⁻⁴ made more of them: 290 KB).
W_UNITS = 100_000
W_HOVER = "W^O row %{y}, column %{x}<br>value = %{z:.0f} × 10⁻⁵"


def w_units(w: np.ndarray) -> np.ndarray:
    """W^O in units of 10⁻⁵, rounded: int16 where it fits (|w| < 0.32767), else float32."""
    scaled = np.rint(np.asarray(w, dtype=np.float64) * W_UNITS)
    fits = np.abs(scaled).max(initial=0) <= np.iinfo(np.int16).max
    return scaled.astype(np.int16 if fits else np.float32)


def w_bar_ticks(weights: float) -> dict:
    """W^O's colour-bar ticks for −`weights` … `weights` (units of 10⁻⁵): the ends and 0, labelled in the
    weights' own numbers (−0.1, 0, 0.1), not in the units they travel in (Plotly wrote −10k … 10k beside
    "× 10⁻⁵"). Three labels: five ran into each other on the 180-px bar at presenter size."""
    top = nice_ticks(-weights / W_UNITS, weights / W_UNITS)[-1]
    values = [-top, 0.0, top] if top > 0 else [0.0]
    return {"tickvals": [round(v * W_UNITS, 6) for v in values],
            "ticktext": [f"{round(v, 9):g}".replace("-", "−") for v in values]}


def _sub(number: int) -> str:
    """A number as subscript digits, as the paper writes head₁ … head_h (8 → "₈")."""
    return str(number).translate(_SUBSCRIPTS)


def concat_figure(
    z_heads,
    concat,
    w_o_weight,
    out,
    labels: list[str],
    head_names: list[str],
    title: str,
    colorscale: str = "RdBu_r",
) -> go.Figure:
    """Concat(head_1..head_h) (T x h·d_v), times W^O (h·d_v x d_model), gives the output (T x d_model).

    z_heads: (H, T, K) per-head outputs; concat: (T, H·K); w_o_weight: (D, H·K), the weight of the
    `w_o` Linear layer as torch stores it (out x in), drawn transposed, the way the paper writes W^O;
    out: (T, D). Raises ValueError when the shapes do not chain or when `concat` is not the heads
    laid side by side.
    """
    zh = as_stack(z_heads, 3)
    c, w, o = as_stack(concat, 2), as_stack(w_o_weight, 2).T, as_stack(out, 2)  # w: (H·K, D)
    n_heads, n_tok, d_v = zh.shape
    if c.shape != (n_tok, n_heads * d_v) or w.shape[0] != c.shape[1] or o.shape != (n_tok, w.shape[1]):
        raise ValueError(
            f"shapes do not chain: heads {zh.shape}, concat {c.shape}, W^O {w.shape}, out {o.shape}"
        )
    if len(labels) != n_tok or len(head_names) != n_heads:
        raise ValueError("labels and head names must match the tokens and heads")
    if not np.allclose(np.concatenate(list(zh), axis=1), c, atol=1e-5):
        raise ValueError("concat is not the head outputs side by side")
    w_shown = w_units(w)  # (H·K, D) in units of 10⁻⁵
    # The concat's x labels name each dimension's head (hover: "dim 17 (head 2)"). A customdata
    # matrix would repeat the head name in every cell: 78 kB of a 60-token figure.
    concat_dims = [f"{j} ({head_names[j // d_v]})" for j in range(c.shape[1])]
    panels = [  # (matrix, x domain, y labels, title, hover)
        (
            c,
            [0.0, 0.34],
            list(labels),
            f"Concat(head{_sub(1)}…head{_sub(n_heads)})<br>"
            f"{n_tok} × {n_heads}·{d_v} = {n_tok} × {c.shape[1]}",
            "token %{y}<br>dim %{x}<br>value = %{z:.4f}",
        ),
        (
            w_shown,
            [0.4, 0.6],
            list(range(w.shape[0])),
            f"W^O<br>{w.shape[0]} × {w.shape[1]}",
            W_HOVER,
        ),
        (
            o,
            [0.66, 1.0],  # same rows as the concat: its tick labels are not repeated
            list(labels),
            f"output<br>{n_tok} × {o.shape[1]}",
            "token %{y}<br>dim %{x}<br>value = %{z:.4f}",
        ),
    ]
    # Concat and output are both token vectors: one colour axis (one symmetric scale, one colourbar)
    # makes their colours comparable. W^O holds weights, about ten times smaller than the vectors
    # (0.2 against 2 in the shipped model): on the same scale it would be blank, so it has its own axis
    # and colourbar, under its panel.
    vectors, weights = _ranges(c, w_shown, o)
    colour_axes = ("coloraxis", "coloraxis2", "coloraxis")  # concat, W^O, output
    data, annotations = [], []
    layout: dict = {
        "coloraxis": dict(
            colorscale=colorscale,
            cmid=0.0,
            cmin=-vectors,
            cmax=vectors,
            colorbar=dict(title=dict(text="Concat,<br>output"), thickness=12, len=0.8, y=0.5),
        ),
        "coloraxis2": dict(
            colorscale=colorscale,
            cmid=0.0,
            cmin=-weights,
            cmax=weights,
            colorbar=dict(
                title=dict(text="W^O", side="right"),
                orientation="h",
                thickness=10,
                x=0.5,
                xanchor="center",
                lenmode="pixels",  # a fraction of a narrow page would squeeze its tick labels
                len=180,
                **w_bar_ticks(weights),
                yref="container",
                y=0.0,
                yanchor="bottom",
            ),
        ),
    }
    for i, (m, domain, y_labels, panel_title, hover) in enumerate(panels):
        suffix = "" if i == 0 else str(i + 1)
        data.append(
            dict(
                type="heatmap",
                z=m,
                x=concat_dims if i == 0 else list(range(m.shape[1])),
                y=y_labels,
                coloraxis=colour_axes[i],
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                hovertemplate=hover + "<extra></extra>",
            )
        )
        # Horizontal tick labels, few enough not to be turned (the margin below is sized for them).
        layout[f"xaxis{suffix}"] = dict(domain=domain, anchor=f"y{suffix}", automargin=False, tickangle=0,
                                        nticks=5)
        if i == 0:  # ticks show the dimension's number where every other head's block starts (h1, h2 …
            # above the panel name each block; a number per block ran together in a 560-px column)
            step = d_v * (2 if n_heads > 4 else 1)
            layout["xaxis"].update(
                type="category", tickmode="array", tickvals=concat_dims[::step],
                ticktext=[str(j) for j in range(0, c.shape[1], step)],
            )
        layout[f"yaxis{suffix}"] = dict(
            anchor=f"x{suffix}",
            autorange="reversed",
            type="category" if i != 1 else "linear",
            showticklabels=i != 2,
            automargin=False,  # the margins are sized below
        )
        annotations.append(dict(text="dimension", x=sum(domain) / 2, y=0.0, xref="paper",
                                yref=f"y{suffix} domain", yanchor="top", yshift=AXIS_TITLE_SHIFT,
                                showarrow=False, font=dict(size=AXIS_TITLE_FONT)))
        annotations.append(
            dict(
                text=panel_title,
                x=(domain[1], sum(domain) / 2, domain[0])[i],
                xanchor=TITLE_ANCHORS[i],
                align=TITLE_ANCHORS[i],
                y=1.0,
                xref="paper",
                yref="paper",
                yanchor="bottom",
                yshift=18,
                showarrow=False,
                font=dict(size=12),
            )
        )
    # Head boundaries: vertical lines in the concat, horizontal lines in W^O (its rows per head).
    shapes = []
    for h in range(1, n_heads):
        edge = h * d_v - 0.5
        shapes.append(
            dict(
                type="line",
                xref="x",
                yref="y domain",
                x0=edge,
                x1=edge,
                y0=0,
                y1=1,
                line=dict(color="black", width=1),
            )
        )
        shapes.append(
            dict(
                type="line",
                xref="x2 domain",
                yref="y2",
                x0=0,
                x1=1,
                y0=edge,
                y1=edge,
                line=dict(color="black", width=1),
            )
        )
    for h in range(n_heads):
        annotations.append(
            dict(
                text=head_names[h].replace("head ", "h"),  # "h3": a block is only d_v columns wide
                x=h * d_v + (d_v - 1) / 2,
                y=1.0,
                xref="x",
                yref="y domain",
                yanchor="bottom",
                showarrow=False,
                font=dict(size=10),
            )
        )
    # Ticks: the concat's tokens on the left, dimension numbers along the bottom; under them W^O's
    # colour bar (about 45 px with its tick labels).
    margin = fixed_margins([str(c.shape[1])], list(labels), "dimension", "", x_angle=0)
    margin["b"] += 45 + 12  # W^O's colour bar, and the title's place under the numbers
    layout.update(
        title=dict(text=title),
        height=max(380, 16 * n_tok + 260),
        margin=dict(r=10, t=110, **margin),
        shapes=shapes,
        annotations=annotations,
    )
    fig = go.Figure(data=data, layout=layout)
    return fig


def _ranges(c: np.ndarray, w_shown: np.ndarray, o: np.ndarray) -> tuple[float, float]:
    """The colour ranges ± of the vectors (concat and output share one) and of W^O as drawn (`w_units`)."""
    return float(max(np.abs(c).max(), np.abs(o).max())) or 1.0, float(np.abs(w_shown).max()) or 1.0


def concat_changes(fig: go.Figure, context: str, new_context: str, concat, w_o_weight, out) -> Change:
    """What changes in a `concat_figure` drawn for `context` (e.g. "layer 1 of 6") to show another
    layer's concat (T, H·K), W^O weight (D, H·K) and output (T, D), named `new_context`."""
    c, w, o = as_stack(concat, 2), as_stack(w_o_weight, 2).T, as_stack(out, 2)
    w_shown = w_units(w)
    vectors, weights = _ranges(c, w_shown, o)
    layout = {"coloraxis.cmin": -vectors, "coloraxis.cmax": vectors,
              "coloraxis2.cmin": -weights, "coloraxis2.cmax": weights}
    layout.update({f"coloraxis2.colorbar.{k}": v for k, v in w_bar_ticks(weights).items()})
    return heatmap_data([c, w_shown, o]), {**layout, **retitled(fig, context, new_context)}
