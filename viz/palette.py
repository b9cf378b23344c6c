"""Colour choices: a default and a colour-blind-safe set (sequential, diverging, categorical)."""

from __future__ import annotations

PALETTES = {
    "default": {
        "sequential": "Blues",
        "diverging": "RdBu",
        # one colour per head, like the paper's figures
        "categorical": ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                        "#17becf"],
    },
    "colour-blind safe": {
        "sequential": "Cividis",
        "diverging": "PuOr",
        # Okabe & Ito's eight colours, distinguishable with the common colour-vision deficiencies
        "categorical": ["#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00",
                        "#CC79A7"],
    },
}


def palette(name: str) -> dict:
    return PALETTES.get(name, PALETTES["default"])
