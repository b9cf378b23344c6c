"""Colours that tell the truth: every diverging figure is centred on 0, and the colours its scale draws
at the low (negative) and high (positive) end are the ones the captions name (`viz.palette`).

The colours are read from the built figures, as Plotly resolved the named scale, and compared by hue
with the caption's words: Plotly's "RdBu" is red at the low end, which once made a caption say the
opposite of the figure.
"""

from __future__ import annotations

import colorsys
import re
from pathlib import Path

import pytest
import torch

from viz import concat as concat_viz
from viz import embeddings, inspector, layers, positional, steps
from viz.palette import PALETTES, diverging_note

# Hue ranges in degrees (start, end), wrapping through 0 for red.
HUES = {
    "red": (330, 15),
    "orange": (15, 45),
    "yellow": (45, 70),
    "green": (70, 170),
    "blue": (190, 250),
    "purple": (250, 310),
}


def hue_name(colour: str) -> str:
    """The name of an 'rgb(r, g, b)' or '#rrggbb' colour's hue."""
    if colour.startswith("#"):
        rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    else:
        rgb = [float(v) for v in re.findall(r"[\d.]+", colour)[:3]]
    hue = colorsys.rgb_to_hsv(*(v / 255 for v in rgb))[0] * 360
    for name, (start, end) in HUES.items():
        if (start <= hue < end) if start < end else (hue >= start or hue < end):
            return name
    return f"hue {hue:.0f}°"


def test_hue_names():
    assert hue_name("rgb(5,48,97)") == "blue" and hue_name("rgb(103,0,31)") == "red"
    assert hue_name("rgb(127,59,8)") == "orange" and hue_name("rgb(45,0,75)") == "purple"
    assert hue_name("#1f77b4") == "blue" and hue_name("#d62728") == "red"


def caption_ends(note: str) -> tuple[str, str]:
    """The colours a caption names for negative and for positive values."""
    low = re.search(r"(\w+) = negative", note)
    high = re.search(r"(\w+) = positive", note)
    assert low and high, note
    return low.group(1).lower(), high.group(1).lower()


def colour_scales(fig) -> list[tuple[tuple, float | None, float | None, float | None]]:
    """(colourscale, low, high, mid) of every heatmap, through its colour axis when it has one."""
    out = []
    for trace in fig.data:
        if trace.type != "heatmap":
            continue
        if trace.coloraxis:
            axis = fig.layout[trace.coloraxis]
            out.append((axis.colorscale, axis.cmin, axis.cmax, axis.cmid))
        else:
            out.append((trace.colorscale, trace.zmin, trace.zmax, trace.zmid))
    return out


def diverging_figures(scale: str) -> dict:
    """Every figure that viz draws with the diverging scale, on small values of both signs."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 4, generator=g)  # (T, d)
    square = torch.randn(3, 3, generator=g)
    labels = ["a", "b", "c"]
    z = torch.randn(2, 3, 2, generator=g)  # (H, T, d_v)
    concat = torch.cat(list(z), dim=-1)
    w_o = torch.randn(4, 4, generator=g) / 10
    return {
        "embedding rows": embeddings.embedding_heatmap(x, labels, "t", scale),
        "cosine similarity": embeddings.similarity_heatmap(square.clamp(-1, 1), labels, "t", scale),
        "PE table": positional.pe_heatmap(x.clamp(-1, 1), colorscale=scale),
        "M_k": positional.shift_matrix_heatmap(square.clamp(-1, 1), 2, colorscale=scale),
        "Q/K/V/Z": steps.vectors_heatmap(x, labels, "t", "q", scale),
        "scores": steps.scores_heatmap(square, labels, labels, "t", scale),
        "layer stage": layers.activation_heatmap(x, labels, "t", scale),
        "A − B": inspector.difference_map(square, labels, "t", scale),
        "Concat, W^O, output": concat_viz.concat_figure(
            z, concat, w_o, concat @ w_o.T, labels, ["head 1", "head 2"], "t", scale
        ),
    }


@pytest.mark.parametrize("name", list(PALETTES))
def test_diverging_scales_draw_the_colours_the_caption_names(name):
    colors = PALETTES[name]
    low_word, high_word = caption_ends(diverging_note(colors))
    assert (low_word, high_word) == colors["diverging_ends"]
    for what, fig in diverging_figures(colors["diverging"]).items():
        scales = colour_scales(fig)
        assert scales, what
        for colourscale, low, high, mid in scales:
            assert hue_name(colourscale[0][1]) == low_word, (name, what, colourscale[0])
            assert hue_name(colourscale[-1][1]) == high_word, (name, what, colourscale[-1])
            # centred on 0: the low end colours negative values, the high end positive ones
            assert low is not None and high is not None and low < 0 < high, (what, low, high)
            assert low == pytest.approx(-high) or mid == 0.0, (what, low, high, mid)


def test_the_default_is_blue_for_negative_red_for_positive():
    """What the multi-head page used to claim, and what RdBu (red at the low end) contradicted."""
    assert diverging_note(PALETTES["default"]) == "blue = negative, white = 0, red = positive"
    fig = diverging_figures(PALETTES["default"]["diverging"])["Concat, W^O, output"]
    colourscale = colour_scales(fig)[0][0]
    assert (hue_name(colourscale[0][1]), hue_name(colourscale[-1][1])) == ("blue", "red")
    middle = colourscale[len(colourscale) // 2][1]  # white at 0
    assert min(float(v) for v in re.findall(r"[\d.]+", middle)) > 230, middle


def test_colours_are_named_only_in_viz_palette():
    """Pages and ui take diverging colours' names from `diverging_note`, never spell them out."""
    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"\b(blue|red|orange|purple)\s*=\s*(negative|positive)", re.IGNORECASE)
    found = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("pages", "ui")
        for path in sorted((root / folder).glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found
