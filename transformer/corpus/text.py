"""Text rules shared by every source: normalisation, sentence test, sentence alignment."""

from __future__ import annotations

import re
import unicodedata

Pair = tuple[str, str]  # (en, de)

# A sentence must not be a dictionary pattern with a placeholder object at the end.
_PLACEHOLDER_ENDINGS = ("sth.", "sb.", "etw.", "jdn.", "jdm.")
_SENTENCE_END = re.compile(r"[.!?]$")
# Split after final punctuation when the next sentence starts with a capital (or opening quote);
# abbreviations such as "e.g." or "z. B." are normally followed by a lower-case word.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[\"„“(]?[A-ZÄÖÜ])")
_SPACES = re.compile(r"\s+")
# Removed inline images leave "the icon ." behind.
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,:;!?])(?=\s|$)")
# Very long segments are paragraphs that failed to split; they only cost padding in training.
MAX_WORDS = 80


def normalize(text: str) -> str:
    """NFC, single spaces, typographic apostrophes as ASCII (Ding uses ’, the help files ')."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u00ad", "")
    return _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", text)).strip()


def is_sentence(text: str) -> bool:
    """DESIGN §2 criteria: upper-case start, final . ! ?, at least 3 words, no sth./etw. ending."""
    words = text.split()
    return (
        3 <= len(words) <= MAX_WORDS
        and text[0].isupper()
        and bool(_SENTENCE_END.search(text))
        and not text.endswith(_PLACEHOLDER_ENDINGS)
    )


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences (heuristic, good enough for help text)."""
    return [s for s in _SENTENCE_BREAK.split(paragraph) if s]


def plausible_lengths(en: str, de: str) -> bool:
    """Reject pairs whose word counts differ so much that one side is likely truncated."""
    a, b = len(en.split()), len(de.split())
    return max(a, b) <= 2 * min(a, b) + 3


def align_paragraph(en: str, de: str) -> list[Pair]:
    """Sentence pairs from two translated paragraphs, only when both split into as many sentences.

    Returns nothing for untranslated text (identical sides) or pairs failing the sentence rules.
    """
    en, de = normalize(en), normalize(de)
    if not en or not de or en == de:
        return []
    en_sents, de_sents = split_sentences(en), split_sentences(de)
    if len(en_sents) != len(de_sents):
        return []
    return [
        (e, d)
        for e, d in zip(en_sents, de_sents)
        if e != d and is_sentence(e) and is_sentence(d) and plausible_lengths(e, d)
    ]


def side_key(text: str) -> str:
    """Loose identity of a segment (case and punctuation ignored), used to keep splits disjoint."""
    return " ".join(re.findall(r"\w+", text.lower()))
