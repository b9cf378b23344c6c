"""Readable axis labels for SentencePiece pieces.

By default a token reads as the reader writes it: no `▁` word-start mark, no position prefix.
Repeated words must still be distinct categories on a Plotly axis (two "the" would otherwise share
one row), so a repeat carries zero-width spaces that no one sees. The piece-and-position form
("3:▁cat") is an option (`show_pieces`), for readers who want to see the tokenizer at work.
"""

from __future__ import annotations

import html
from collections import Counter

WORD_START = "▁"
ZERO_WIDTH = "\u200b"  # appended to a repeated label: a distinct category that reads the same


def readable(piece: str) -> str:
    """The piece as Plotly should draw it: '▁' kept as the visible word start, and markup escaped.

    Plotly reads a little HTML in labels, so `</s>` would vanish (and user text could style the
    chart); escaped entities are drawn as the plain characters.
    """
    return html.escape(piece, quote=False) if piece else "∅"


def word(piece: str) -> str:
    """The piece as written in a sentence: the `▁` word-start mark dropped (a bare `▁` is a space)."""
    text = piece.removeprefix(WORD_START)
    if piece and not text:
        return "␣"
    return text if piece else ""


class Label(str):
    """A token label that reads as the word and knows its position and piece (`hover`, e.g. "3:▁cat").

    Figures draw the word as the tick and show `hover` when the pointer is on the token
    (`viz.heatmap.axis_labels`), so the pieces and positions are one hover away.
    """

    hover: str

    def __new__(cls, text: str, hover: str) -> Label:
        label = super().__new__(cls, text)
        label.hover = hover
        return label

    def __reduce__(self):  # cached traces and figures are pickled
        return Label, (str(self), self.hover)


def token_labels(pieces: list[str], show_pieces: bool = False) -> list[str]:
    """Axis labels for a token sequence, escaped for Plotly and distinct even where words repeat.

    Args:
        pieces: SentencePiece pieces in order.
        show_pieces: label with position and piece ("3:▁cat") instead of the word ("cat").
    Returns:
        One `Label` per piece, whose `hover` is the piece-and-position form (with `show_pieces`, the
        label itself). Default labels of repeated words differ only by trailing zero-width spaces, so
        they read the same but stay separate categories.
    """
    if show_pieces:
        return [Label(f"{i}:{readable(p)}", f"{i}:{readable(p)}") for i, p in enumerate(pieces)]
    labels, used = [], set()
    for p in pieces:
        label = readable(word(p))
        while label in used:
            label += ZERO_WIDTH
        used.add(label)
        labels.append(Label(label, f"{len(labels)}:{readable(p)}"))
    return labels


WRITES = " → "  # between what a decoder row reads and what it writes: "Die → Kinder"


def writes_labels(read: list[str], written: list[str | None], show_pieces: bool = False) -> list[str]:
    """Labels for decoder rows that say which token each row writes, after the one it reads.

    Under teacher forcing the row that reads "Die" is the one that writes the next token, "Kinder";
    labelled by its input alone, its cross-attention seems to belong to the wrong word. A token not
    known (`None`) reads "?".

    Args:
        read: the decoder input pieces (BOS first), one per row.
        written: the piece each row writes (`analysis.decoding.written_ids`, as pieces).
        show_pieces: position and pieces ("1:▁Die → ▁Kinder") instead of words ("Die → Kinder").
    Returns:
        One label per row, distinct even where two rows read the same ("Die → Kinder"), each a `Label`
        whose `hover` names the position and both pieces.
    """
    if len(read) != len(written):
        raise ValueError(f"{len(read)} rows read, {len(written)} written")
    wrote = ["?" if w is None else w for w in written]
    if show_pieces:
        return [Label(text, text) for i, (r, w) in enumerate(zip(read, wrote))
                for text in [f"{i}:{readable(r)}{WRITES}{readable(w)}"]]
    labels, used = [], set()
    for i, (r, w) in enumerate(zip(read, wrote)):
        label = readable(word(r)) + WRITES + readable(word(w))
        while label in used:
            label += ZERO_WIDTH
        used.add(label)
        labels.append(Label(label, f"{i}:{readable(r)}{WRITES}{readable(w)}"))
    return labels


def plain(label: str) -> str:
    """A label as plain text again, for widgets that show text literally (select boxes)."""
    return html.unescape(label).replace(ZERO_WIDTH, "")


def choices(labels: list[str]) -> list[str]:
    """Labels as a select box's options: plain text, and a text that repeats numbered by occurrence.

    Streamlit tells a select box's options apart by their text, so two that read the same ("the" and
    "the") would be one option, always the last; "the (1)" and "the (2)" are two.
    """
    texts = [plain(label) for label in labels]
    repeats, seen = Counter(texts), Counter()
    out = []
    for text in texts:
        seen[text] += 1
        out.append(f"{text} ({seen[text]})" if repeats[text] > 1 else text)
    return out


def span_label(labels: list[str], positions, show_pieces: bool = False) -> str:
    """Plain text for a word made of several tokens, numbered the way the figures number them.

    Default labels join into the word as written ("appl" + "ication"); piece labels keep their
    positions ("5:▁appl 6:ication").
    """
    return (" " if show_pieces else "").join(plain(labels[i]) for i in positions)
