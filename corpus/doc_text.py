"""Pair checks for documentation sources (manuals, help pages, man pages).

Documentation mixes prose with what is not a translation: commands and code, option lists,
file names, markup the parser left behind, and paragraphs a translator never reached (still in
English). ``sentence_pairs`` turns aligned blocks into sentence pairs and drops those.

Manuals introduce lists and examples with a colon ("GIMP provides three fill types:"); such a
block counts as a sentence when both sides end with one. A paragraph whose two sides split into
different numbers of sentences is kept whole when it is short (``WHOLE_MAX_WORDS``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from corpus.text import Pair, is_sentence, normalize, plausible_lengths, split_sentences

_EN_WORDS = frozenset("the and of to is are you with this that for it be can not which from".split())
_DE_WORDS = frozenset("der die das und ist sind sie mit nicht ein eine zu den auf für wird von im es".split())
_WORD = re.compile(r"[a-zäöüß]+")
# What only code, markup or a broken parse leaves in a sentence.
_LEFTOVER = re.compile(r"[<>{}|\\]|&[a-z]+;|&#\d+;|\$\(|\$\{|^\.|\s\.[A-Z]{1,2}\s|\bhttps?://")
# A token that reads as code, a path or an option rather than a word.
_TECHNICAL = re.compile(r"^(?:-{1,2}\w|/\w|\w+/\w|\w*[_=]\w|\w+\(\)|\w+\.\w+\.\w+)")
_DIGITS = re.compile(r"\d+")
# Quotes differ between the languages even where a translator left the text in English.
_QUOTES = str.maketrans({c: '"' for c in "\u201c\u201d\u201e\u00ab\u00bb\u2039\u203a"})
WHOLE_MAX_WORDS = 50


def looks_english(de: str) -> bool:
    """True when the 'German' side has more English than German function words (left untranslated)."""
    words = _WORD.findall(de.lower())
    en = sum(w in _EN_WORDS for w in words)
    return en > 0 and en >= sum(w in _DE_WORDS for w in words)


def looks_technical(text: str) -> bool:
    """True for commands, code, options and markup leftovers rather than prose."""
    if _LEFTOVER.search(text):
        return True
    tokens = text.split()
    technical = sum(bool(_TECHNICAL.match(t.strip("\"'„“(),.:;"))) for t in tokens)
    return technical * 4 > len(tokens)


def same_numbers(en: str, de: str) -> bool:
    """Both sides name the same numbers (1,000 and 1.000 alike); a mismatch is a misalignment."""
    return sorted(_DIGITS.findall(en)) == sorted(_DIGITS.findall(de))


def is_prose(text: str) -> bool:
    """A sentence by ``text.is_sentence``, or one that ends with a colon instead of a full stop."""
    return is_sentence(text) or (text.endswith(":") and is_sentence(text[:-1] + "."))


def same_words(en: str, de: str) -> bool:
    """Both sides are the same text once quotes and case are set aside (left untranslated)."""
    return en.translate(_QUOTES).casefold() == de.translate(_QUOTES).casefold()


def _translation(en: str, de: str) -> bool:
    return (
        not same_words(en, de)
        and is_prose(en)
        and is_prose(de)
        and en.endswith(":") == de.endswith(":")
        and plausible_lengths(en, de)
        and not looks_english(de)
        and not looks_technical(en)
        and not looks_technical(de)
        and same_numbers(en, de)
    )


def sentence_pairs(blocks: Iterable[Pair]) -> list[Pair]:
    """Sentence pairs of aligned (en, de) blocks that are real translations of prose."""
    out: list[Pair] = []
    for en_block, de_block in blocks:
        en_block, de_block = normalize(en_block), normalize(de_block)
        if same_words(en_block, de_block) or looks_english(de_block):
            continue
        en_sents, de_sents = split_sentences(en_block), split_sentences(de_block)
        if len(en_sents) != len(de_sents):
            short = max(len(en_block.split()), len(de_block.split())) <= WHOLE_MAX_WORDS
            en_sents, de_sents = ([en_block], [de_block]) if short else ([], [])
        out.extend((en, de) for en, de in zip(en_sents, de_sents) if _translation(en, de))
    return out
