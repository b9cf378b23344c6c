"""Readable axis labels for SentencePiece pieces."""

from __future__ import annotations

import html

WORD_START = "▁"


def readable(piece: str) -> str:
    """The piece as Plotly should draw it: '▁' kept as the visible word start, and markup escaped.

    Plotly reads a little HTML in labels, so `</s>` would vanish (and user text could style the
    chart); escaped entities are drawn as the plain characters.
    """
    return html.escape(piece, quote=False) if piece else "∅"


def token_labels(pieces: list[str]) -> list[str]:
    """'position:piece' labels, so that repeated pieces stay distinct categories on an axis."""
    return [f"{i}:{readable(p)}" for i, p in enumerate(pieces)]


def plain(label: str) -> str:
    """A label as plain text again, for widgets that show text literally (select boxes)."""
    return html.unescape(label)
