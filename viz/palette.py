"""Colour choices: a default and a colour-blind-safe set (sequential, diverging, categorical).

Every diverging figure is centred on 0 (symmetric zmin/zmax, or zmid 0), so the low end of its scale
colours the negative values, the middle 0 and the high end the positive values. Plotly's named scales
start with their first-named colour ("RdBu" is red at the low end), so the default palette uses the
reversed "RdBu_r": blue = negative, red = positive, as most weight and activation plots draw them.
Captions take the colours' names from `diverging_note`, never spell them out themselves: a test reads
the ends of each built figure's scale and checks them against these words.
"""

from __future__ import annotations

PALETTES = {
    "default": {
        "sequential": "Blues",
        "diverging": "RdBu_r",
        "diverging_ends": ("blue", "red"),  # names of the low (negative) and high (positive) end
        # one colour per head, like the paper's figures
        "categorical": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                        "#17becf"],
    },
    "colour-blind safe": {
        "sequential": "Cividis",
        "diverging": "PuOr",
        "diverging_ends": ("orange", "purple"),
        # Okabe & Ito's eight colours, distinguishable with the common colour-vision deficiencies
        "categorical": ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
                        "#CC79A7"],
    },
}


def palette(name: str) -> dict:
    return PALETTES.get(name, PALETTES["default"])


def diverging_note(colors: dict) -> str:
    """What a diverging figure's colours mean, for its caption: "blue = negative, white = 0, ..."."""
    low, high = colors["diverging_ends"]
    return f"{low} = negative, white = 0, {high} = positive"
