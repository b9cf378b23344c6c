"""Figure 1 of the paper as a diagram whose parts lead to the app's pages.

The encoder (left) and decoder (right) are drawn bottom-up as in the paper: embeddings, positional
encoding, then one layer's sub-layers inside an "N×" frame, then the decoder's Linear and Softmax.
Every box carries a point (on a trace of its own) whose `customdata` is the page that explains the
part, so that a click on the box can open that page.
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

# Box fill per kind of part, after the paper's figure (pastel, with dark text).
FILLS = {
    "embedding": "#f6d5d5",
    "position": "#ffffff",
    "attention": "#fbe1c4",
    "norm": "#f4f1bc",
    "ffn": "#cfe6f7",
    "linear": "#dcd3ef",
    "softmax": "#d3efd3",
}
PAGES = {
    "embedding": "pages/1_Tokens_and_embeddings.py",
    "position": "pages/2_Positional_encoding.py",
    "encoder attention": "pages/4_Multi_head_attention.py",
    "encoder layer": "pages/5_Encoder_layer.py",
    "decoder": "pages/6_Decoder_and_generation.py",
}
ENCODER_X, DECODER_X = 0.0, 2.0
BOX_W, BOX_H = 1.3, 0.62


@dataclass(frozen=True)
class Part:
    label: str  # as in Figure 1
    kind: str  # key of FILLS
    x: float  # centre
    y: float  # row, 0 at the bottom
    page: str  # the page that explains this part
    layer: bool = False  # inside the "N×" frame


def figure1_parts() -> list[Part]:
    """The boxes of Figure 1, encoder then decoder, each bottom-up."""
    enc, dec = ENCODER_X, DECODER_X
    return [
        Part("Input Embedding", "embedding", enc, 0, PAGES["embedding"]),
        Part("Positional Encoding", "position", enc, 1, PAGES["position"]),
        Part("Multi-Head Attention", "attention", enc, 2, PAGES["encoder attention"], True),
        Part("Add & Norm", "norm", enc, 3, PAGES["encoder layer"], True),
        Part("Feed Forward", "ffn", enc, 4, PAGES["encoder layer"], True),
        Part("Add & Norm", "norm", enc, 5, PAGES["encoder layer"], True),
        Part("Output Embedding", "embedding", dec, 0, PAGES["embedding"]),
        Part("Positional Encoding", "position", dec, 1, PAGES["position"]),
        Part("Masked Multi-Head Attention", "attention", dec, 2, PAGES["decoder"], True),
        Part("Add & Norm", "norm", dec, 3, PAGES["decoder"], True),
        Part("Multi-Head Attention", "attention", dec, 4, PAGES["decoder"], True),
        Part("Add & Norm", "norm", dec, 5, PAGES["decoder"], True),
        Part("Feed Forward", "ffn", dec, 6, PAGES["decoder"], True),
        Part("Add & Norm", "norm", dec, 7, PAGES["decoder"], True),
        Part("Linear", "linear", dec, 8, PAGES["decoder"]),
        Part("Softmax", "softmax", dec, 9, PAGES["decoder"]),
    ]


def _box(part: Part) -> dict:
    return dict(
        type="rect", x0=part.x - BOX_W / 2, x1=part.x + BOX_W / 2, y0=part.y - BOX_H / 2,
        y1=part.y + BOX_H / 2, fillcolor=FILLS[part.kind], line=dict(color="#444", width=1), layer="below",
    )


def _arrow(x0: float, y0: float, x1: float, y1: float) -> dict:
    """An arrow annotation from (x0, y0) to (x1, y1) in data coordinates."""
    return dict(
        x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="", showarrow=True,
        arrowhead=2, arrowsize=1, arrowwidth=1.2, arrowcolor="#444",
    )


def _layer_frame(x: float, top: float, n_layers: int) -> tuple[dict, dict]:
    frame = dict(
        type="rect", x0=x - BOX_W / 2 - 0.18, x1=x + BOX_W / 2 + 0.18, y0=2 - 0.55, y1=top + 0.55,
        line=dict(color="#888", width=1, dash="dot"), fillcolor="rgba(0,0,0,0)", layer="below",
    )
    side = -1 if x == ENCODER_X else 1  # the "N×" label sits outside the pair of stacks
    label = dict(
        x=x + side * (BOX_W / 2 + 0.32), y=(2 + top) / 2, text=f"N = {n_layers} ×", showarrow=False,
        xanchor="right" if side < 0 else "left", font=dict(size=13),
    )
    return frame, label


def architecture_figure(n_layers: int, height: int = 620) -> go.Figure:
    """Figure 1 with this model's N; clicking a box selects the point whose customdata is its page."""
    parts = figure1_parts()
    shapes = [_box(p) for p in parts]
    label_font = dict(size=12, color="#111")
    notes = [dict(x=p.x, y=p.y, text=p.label, showarrow=False, font=label_font) for p in parts]
    for stack_x in (ENCODER_X, DECODER_X):  # each box feeds the one above it
        rows = sorted(p.y for p in parts if p.x == stack_x)
        notes += [_arrow(stack_x, a + BOX_H / 2, stack_x, b - BOX_H / 2) for a, b in zip(rows, rows[1:])]
        notes.append(_arrow(stack_x, -0.85, stack_x, -BOX_H / 2))
    for x, top in ((ENCODER_X, 5), (DECODER_X, 7)):
        frame, label = _layer_frame(x, top, n_layers)
        shapes.append(frame)
        notes.append(label)
    # The encoder's output enters every decoder layer's second attention as keys and values.
    mid = (ENCODER_X + DECODER_X) / 2
    shapes.append(dict(type="path", path=f"M {ENCODER_X},{5 + BOX_H / 2} V 6.2 H {mid} V 4",
                       line=dict(color="#444", width=1.2)))
    notes.append(_arrow(mid, 4, DECODER_X - BOX_W / 2, 4))
    notes += [
        dict(x=ENCODER_X, y=-1.05, text="Inputs (your English sentence)", showarrow=False),
        dict(x=DECODER_X, y=-1.05, text="Outputs (shifted right)", showarrow=False),
        dict(x=DECODER_X, y=10.75, text="Output probabilities", showarrow=False),
        dict(x=ENCODER_X, y=7.6, text="<b>Encoder</b>", showarrow=False, font=dict(size=14)),
    ]
    notes.append(_arrow(DECODER_X, 9 + BOX_H / 2, DECODER_X, 10.55))
    notes.append(dict(x=DECODER_X + BOX_W / 2 + 0.32, y=8.6, text="<b>Decoder</b>", showarrow=False,
                      xanchor="left", font=dict(size=14)))
    clickable = go.Scatter(
        x=[p.x for p in parts], y=[p.y for p in parts], mode="markers",
        marker=dict(symbol="square", size=36, opacity=0.01, color="#000"),
        customdata=[p.page for p in parts],
        hovertext=[f"{p.label}: open its page" for p in parts], hoverinfo="text", showlegend=False,
    )
    fig = go.Figure(
        data=[clickable],
        layout=dict(
            shapes=shapes, annotations=notes, height=height, dragmode=False, clickmode="event+select",
            margin=dict(l=10, r=10, t=10, b=10), plot_bgcolor="rgba(0,0,0,0)",
            xaxis=dict(visible=False, range=[ENCODER_X - 1.5, DECODER_X + 1.5], fixedrange=True),
            yaxis=dict(visible=False, range=[-1.4, 11.0], fixedrange=True),
        ),
    )
    return fig


def page_of_selection(selection) -> str | None:
    """The page of the first clicked box in a Streamlit plotly selection (None if nothing is).

    The selection comes from the browser, so only a page that the diagram itself offers is returned.
    """
    offered = {p.page for p in figure1_parts()}
    points = selection.get("points") if isinstance(selection, dict) else None
    for point in points if isinstance(points, list) else []:
        page = point.get("customdata") if isinstance(point, dict) else None
        if isinstance(page, list):  # customdata may come back wrapped in a list
            page = page[0] if page else None
        if isinstance(page, str) and page in offered:
            return page
    return None
