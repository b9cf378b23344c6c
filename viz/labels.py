"""Readable axis labels for SentencePiece pieces."""

from __future__ import annotations

WORD_START = "▁"


def readable(piece: str) -> str:
    """Show the word-start marker as a visible '▁' prefix, and special tokens as they are."""
    return piece if piece else "∅"


def token_labels(pieces: list[str]) -> list[str]:
    """'position:piece' labels, so that repeated pieces stay distinct categories on an axis."""
    return [f"{i}:{readable(p)}" for i, p in enumerate(pieces)]
