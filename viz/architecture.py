"""Figure 1 of the paper as a diagram whose parts lead to the app's pages.

The encoder (left) and decoder (right) are drawn bottom-up as in the paper: embeddings, positional
encoding, then one layer's sub-layers inside an "N×" frame, then the decoder's Linear and Softmax.
Every box carries the page that explains the part, so that a click on the box can open that page.

Unlike every other figure in viz/, this one is a Vega-Lite spec (a plain dict), not a Plotly figure.
It is the first thing the home page draws, and on a cold 2-core server Chromium needs ~1.3 s longer to
load and compile Streamlit's 4.7 MB Plotly bundle than its Vega-Lite one before the first figure
shows (bench/README.md, "What changed and why"). The other figures need the model's numbers anyway,
so they stay Plotly.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    "embedding": "pages/Tokens_and_embeddings.py",
    "position": "pages/Positional_encoding.py",
    "encoder attention": "pages/Multi_head_attention.py",
    "encoder layer": "pages/Encoder_layer.py",
    "decoder": "pages/Decoder_and_generation.py",
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


SELECTION = "part"  # the Vega-Lite point selection a click makes; its field is the page
X_RANGE, Y_RANGE = [ENCODER_X - 1.5, DECODER_X + 1.5], [-1.4, 11.0]
INK = "#444"


def _xy(x: str, y: str, x2: str | None = None, y2: str | None = None) -> dict:
    """Position encodings in the diagram's own units (the same fixed scales in every layer)."""
    enc = {
        "x": {"field": x, "type": "quantitative", "scale": {"domain": X_RANGE}, "axis": None},
        "y": {"field": y, "type": "quantitative", "scale": {"domain": Y_RANGE}, "axis": None},
    }
    if x2:
        enc["x2"] = {"field": x2}
    if y2:
        enc["y2"] = {"field": y2}
    return enc


def _layer(mark: dict, rows: list[dict], encoding: dict, **extra) -> dict:
    return {"data": {"values": rows}, "mark": mark, "encoding": encoding, **extra}


def _arrow(x0: float, y0: float, x1: float, y1: float) -> dict:
    """An arrow from (x0, y0) to (x1, y1): a rule row plus the head's position and direction."""
    head = ("triangle-right" if x1 > x0 else "triangle-left") if y0 == y1 else "triangle-up"
    return {"x": x0, "y": y0, "x2": x1, "y2": y1, "head": head}


SUM_Y = 1.5  # the ⊕ where the positional encoding is added, between its box and the layer
RESIDUAL_DX = BOX_W / 2 + 0.1  # residual paths run this far beside a stack, inside the N× frame


def residual_paths(parts: list[Part]) -> tuple[list[dict], list[dict]]:
    """(lines, arrows) of the residual connections: each sub-layer's input, taken from below the
    sub-layer, runs beside it into the Add & Norm above it (left of the encoder, right of the decoder,
    as in the paper's figure)."""
    lines, arrows = [], []
    for part in parts:
        if not part.layer or part.label == "Add & Norm":
            continue
        side = -1 if part.x == ENCODER_X else 1
        start = part.y - 0.5 if part.y > 2 else SUM_Y  # the first sub-layer's input is the ⊕'s sum
        out = part.x + side * RESIDUAL_DX
        lines += [{"x": part.x, "y": start, "x2": out, "y2": start},
                  {"x": out, "y": start, "x2": out, "y2": part.y + 1}]
        arrows.append(_arrow(out, part.y + 1, part.x + side * BOX_W / 2, part.y + 1))
    return lines, arrows


def embedding_sums() -> tuple[list[dict], list[dict]]:
    """(lines, ⊕ marks): the embedding runs beside its positional-encoding box into the ⊕ that adds
    them (the paper draws the encoding as a second input of that ⊕), and the sum goes up."""
    lines, sums = [], []
    for x in (ENCODER_X, DECODER_X):
        beside = x + (RESIDUAL_DX if x == ENCODER_X else -RESIDUAL_DX)  # opposite the residual paths
        lines += [{"x": x + (beside - x) * BOX_W / 2 / RESIDUAL_DX, "y": 0, "x2": beside, "y2": 0},
                  {"x": beside, "y": 0, "x2": beside, "y2": SUM_Y},
                  {"x": beside, "y": SUM_Y, "x2": x, "y2": SUM_Y}]
        sums.append({"x": x, "y": SUM_Y, "text": "⊕", "tip": "embedding × √d_model + positional encoding"})
    return lines, sums


def _notes(n_layers: int) -> list[dict]:
    """Free text, each with its x, y, alignment and weight."""
    side = BOX_W / 2 + 0.32  # the "N×" labels sit outside the pair of stacks
    notes = [
        (ENCODER_X - side, 3.5, f"N = {n_layers} ×", "right", False),
        (DECODER_X + side, 4.5, f"N = {n_layers} ×", "left", False),
        (ENCODER_X, -1.05, "Inputs (your English sentence)", "center", False),
        (DECODER_X, -1.05, "Outputs (shifted right)", "center", False),
        (DECODER_X, 10.75, "Output probabilities", "center", False),
        (ENCODER_X, 7.6, "Encoder", "center", True),
        (DECODER_X + side, 8.6, "Decoder", "left", True),
    ]
    return [dict(zip(("x", "y", "text", "align", "bold"), note)) for note in notes]


def architecture_spec(n_layers: int, height: int = 620) -> dict:
    """Figure 1 with this model's N, as a Vega-Lite spec.

    A click on a box makes the point selection `SELECTION`, whose one field is the box's page.
    """
    parts = figure1_parts()
    boxes = [
        {"x0": p.x - BOX_W / 2, "x1": p.x + BOX_W / 2, "y0": p.y - BOX_H / 2, "y1": p.y + BOX_H / 2,
         "x": p.x, "y": p.y, "label": p.label.replace("Masked ", "Masked\n"), "fill": FILLS[p.kind],
         "page": p.page, "text_y": p.y + (0.14 if p.label.startswith("Masked ") else 0),  # 2 lines
         "tip": f"{p.label}: open its page"}
        for p in parts
    ]
    frames = [  # the "N×" frame around one layer's sub-layers
        {"x0": x - BOX_W / 2 - 0.18, "x1": x + BOX_W / 2 + 0.18, "y0": 2 - 0.34, "y1": top + 0.55}
        for x, top in ((ENCODER_X, 5), (DECODER_X, 7))
    ]
    arrows = []
    for stack_x in (ENCODER_X, DECODER_X):  # each box feeds the one above it
        rows = sorted(p.y for p in parts if p.x == stack_x)
        arrows += [_arrow(stack_x, a + BOX_H / 2, stack_x, b - BOX_H / 2) for a, b in zip(rows, rows[1:])
                   if (a, b) != (0, 1)]  # the embedding goes beside its encoding, into the ⊕
        arrows.append(_arrow(stack_x, -0.85, stack_x, -BOX_H / 2))
    arrows.append(_arrow(DECODER_X, 9 + BOX_H / 2, DECODER_X, 10.55))
    # The encoder's output enters every decoder layer's second attention as keys and values.
    mid = (ENCODER_X + DECODER_X) / 2
    memory = [{"x": ENCODER_X, "y": 5 + BOX_H / 2, "x2": ENCODER_X, "y2": 6.2},
              {"x": ENCODER_X, "y": 6.2, "x2": mid, "y2": 6.2},
              {"x": mid, "y": 6.2, "x2": mid, "y2": 4}]
    arrows.append(_arrow(mid, 4, DECODER_X - BOX_W / 2, 4))
    residual_lines, residual_arrows = residual_paths(parts)
    sum_lines, sums = embedding_sums()
    arrows += residual_arrows
    memory += residual_lines + sum_lines
    layers = [
        _layer({"type": "rect", "fillOpacity": 0, "stroke": "#888", "strokeDash": [2, 3]}, frames,
               _xy("x0", "y0", "x1", "y1")),
        _layer({"type": "rect", "stroke": INK, "strokeWidth": 1}, boxes,
               {**_xy("x0", "y0", "x1", "y1"), "fill": {"field": "fill", "type": "nominal", "scale": None}}),
        _layer({"type": "rule", "color": INK, "strokeWidth": 1.2}, memory + arrows,
               _xy("x", "y", "x2", "y2")),
        _layer({"type": "point", "filled": True, "color": INK, "size": 40, "opacity": 1}, arrows,
               {**_xy("x2", "y2"), "shape": {"field": "head", "type": "nominal", "scale": None}}),
        _layer({"type": "text", "fontSize": 12, "color": "#111", "lineBreak": "\n"}, boxes,
               {**_xy("x", "text_y"), "text": {"field": "label"}}),
        _layer({"type": "point", "filled": True, "color": "white", "stroke": INK, "size": 170, "opacity": 1},
               sums, _xy("x", "y")),
        _layer({"type": "text", "fontSize": 15, "color": "#111", "baseline": "middle"}, sums,
               {**_xy("x", "y"), "text": {"field": "text"}, "tooltip": {"field": "tip"}}),
    ]
    for align in ("left", "center", "right"):
        for bold in (False, True):
            rows = [n for n in _notes(n_layers) if n["align"] == align and n["bold"] == bold]
            if rows:
                mark = {"type": "text", "align": align, "fontSize": 14 if bold else 13, "color": "#111",
                        "fontWeight": "bold" if bold else "normal"}
                layers.append(_layer(mark, rows, {**_xy("x", "y"), "text": {"field": "text"}}))
    # On top, an invisible copy of the boxes takes the clicks (over the labels too) and the tooltips.
    layers.append(
        _layer({"type": "rect", "opacity": 0.001, "color": "#000", "cursor": "pointer"}, boxes,
               {**_xy("x0", "y0", "x1", "y1"), "tooltip": {"field": "tip"}},
               params=[{"name": SELECTION, "select": {"type": "point", "fields": ["page"]}}])
    )
    return {"height": height, "config": {"view": {"stroke": None}}, "layer": layers}


def page_of_selection(selection) -> str | None:
    """The page of the clicked box in a Streamlit Vega-Lite selection (None if nothing is).

    The selection comes from the browser as {SELECTION: [{"page": ...}, ...]}, so only a page that the
    diagram itself offers is returned.
    """
    offered = {p.page for p in figure1_parts()}
    points = selection.get(SELECTION) if isinstance(selection, dict) else None
    for point in points if isinstance(points, list) else []:
        page = point.get("page") if isinstance(point, dict) else None
        if isinstance(page, str) and page in offered:
            return page
    return None
