"""Ding dictionary (Debian ``trans-de-en``, GPL-2+): example sentences and a phrase lexicon.

Each line reads ``DE-seg | DE-seg … :: EN-seg | EN-seg …``; the n-th German segment translates the
n-th English one. A segment lists synonyms separated by ``; `` and carries annotations
(``{f}``, ``[Am.]``, ``<keyword>``, `` /ABBR/``, ``(notes)``) that are not part of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from corpus.text import Pair, is_sentence, normalize

# Annotations removed before anything else; none of them is ever translated text.
_BRACES = re.compile(r"\s*\{[^{}]*\}")  # grammar: {m} {f} {pl} {vt} {adj} …
_BRACKETS = re.compile(r"\s*\[[^\[\]]*\]")  # register / field: [Am.] [coll.] [med.] …
_ANGLES = re.compile(r"\s*<[^<>]*>")  # search keywords: <Aalmolch>
_ABBR = re.compile(r"\s/[^/\s]+/(?=\s|$|;)")  # abbreviation marker: " /AGB/"
_TRAILING_NOTE = re.compile(r"\s*\([^()]*\)\s*$")
# Pronoun lists in conjugation tables: keep one reading so the pair is not ambiguous.
_ER_SIE = re.compile(r"\b(?:[Ii]ch/)?([Ee])r/[Ss]ie\b")
_HE_SHE = re.compile(r"\b(?:I/)?([Hh])e/[Ss]he\b")
_HIS_HER = re.compile(r"\b([Hh])(is|im)/her\b")
# Signs of a segment that still holds alternatives or an elided part.
_AMBIGUOUS = re.compile(r"[()]| / |…|\.\.\.")
# Unspaced word/word alternatives ("provided/supplied") are tolerable in a lexicon entry but
# make a sentence pair ambiguous.
_SLASHED = re.compile(r"\w/\w")


def split_line(line: str) -> list[Pair]:
    """Raw ``(en, de)`` segment pairs of one dictionary line; [] for comments or malformed lines."""
    line = line.strip()
    if not line or line.startswith("#") or line.count(" :: ") != 1:
        return []
    de_part, en_part = line.split(" :: ")
    de_segs, en_segs = de_part.split(" | "), en_part.split(" | ")
    if len(de_segs) != len(en_segs):
        return []
    return list(zip(en_segs, de_segs))


def _first_alternative(segment: str) -> str:
    """Text before the first ``; `` outside parentheses (synonyms, alternative sentences)."""
    cut = segment.find("; ")
    if cut < 0 or "(" not in segment[:cut]:  # fast path: most segments have no parentheses
        return segment if cut < 0 else segment[:cut]
    depth = 0
    for i, char in enumerate(segment):
        depth += (char == "(") - (char == ")")
        if depth == 0 and segment.startswith("; ", i):
            return segment[:i]
    return segment


def clean_segment(segment: str) -> str | None:
    """One clean text from a segment, or None when it is empty or ambiguous."""
    text = _BRACES.sub("", segment)
    text = _BRACKETS.sub("", text)
    while _ANGLES.search(text):  # keywords nest: <name--dropping <namedrop>>
        text = _ANGLES.sub("", text)
    text = _ABBR.sub("", text)
    text = _first_alternative(text)
    while True:  # notes may stack: "Aale (Anguilliformes) (zoologische Ordnung)"
        stripped = _TRAILING_NOTE.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = _HE_SHE.sub(r"\1e", _ER_SIE.sub(r"\1r", text))
    text = _HIS_HER.sub(r"\1\2", text)
    text = normalize(text.rstrip(";"))
    if not text or _AMBIGUOUS.search(text):
        return None
    return text


def parse_lines(lines: Iterable[str]) -> tuple[list[Pair], list[Pair]]:
    """Clean pairs of a dictionary, split into (sentences, phrases), in file order, deduplicated."""
    sentences: dict[Pair, None] = {}  # dicts keep first-seen order and drop duplicates
    phrases: dict[Pair, None] = {}
    for en_seg, de_seg in _segments(lines):
        en, de = clean_segment(en_seg), clean_segment(de_seg)
        if en is None or de is None:
            continue
        if is_sentence(en) and is_sentence(de):
            if _SLASHED.search(en) or _SLASHED.search(de):
                continue
            sentences[(en, de)] = None
        elif not (is_sentence(en) or is_sentence(de)):
            # A sentence on one side only is a free rendering ("Cheers!" :: "Prost!" is fine,
            # but half-sentence pairs teach nothing reliable as a lexicon entry).
            phrases[(en, de)] = None
    return list(sentences), list(phrases)


def _segments(lines: Iterable[str]) -> Iterator[Pair]:
    for line in lines:
        yield from split_line(line)


def parse_file(path: Path) -> tuple[list[Pair], list[Pair]]:
    """Parse ``/usr/share/trans/de-en`` (or a fixture in its format)."""
    with open(path, encoding="utf-8") as f:
        return parse_lines(f)
