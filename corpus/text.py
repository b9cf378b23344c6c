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
    """A sentence: upper-case start, final . ! ?, at least 3 words, no sth./etw. ending."""
    words = text.split()
    return (
        3 <= len(words) <= MAX_WORDS
        and text[0].isupper()
        and bool(_SENTENCE_END.search(text))
        and not text.endswith(_PLACEHOLDER_ENDINGS)
    )


# A full stop that does not end a sentence: after an initial or a one-letter abbreviation ("L.",
# "z. B."), a dotted abbreviation ("e.g.", "z.B."), or one of these words.
_ABBREVIATIONS = frozenset(
    "Jh Jhd Jhdt bzw ca vgl Nr Dr Prof St Mr Mrs Ms evtl ggf inkl sog usw etc engl lat griech".split()
)
_DOTTED = re.compile(r"(?:^|[\s(\"„“])(?:[^\W\d_]\.)+$")  # letters only: "2." may end a sentence
# A German ordinal ("im 19. Jahrhundert", "des 19. Jahrhunderts", "am 3. Mai"): one or two digits,
# then one of these words.
_ORDINAL_NEXT = re.compile(
    r"(?:Jh|Jhd|Jhdt|Jahrhunderts?|Jahrtausends?|Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August"
    r"|September|Oktober|November|Dezember)\b"
)


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the break between ``before`` (ending in . ! ?) and ``after`` ends a sentence."""
    if not before.endswith("."):
        return True
    word = before.rsplit(None, 1)[-1].lstrip("(\"„“")
    if _DOTTED.search(before) or word[:-1] in _ABBREVIATIONS:
        return False
    return not (word[:-1].isdigit() and len(word) <= 3 and _ORDINAL_NEXT.match(after))


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences (heuristic, good enough for help text).

    A break is a ``.``, ``!`` or ``?`` before a capital, except after an initial, an abbreviation
    or a German ordinal: "Im 19. Jh. wuchs das Land." and "L. Frank Baum wrote it." stay whole.
    """
    pieces = [s for s in _SENTENCE_BREAK.split(paragraph) if s]
    sentences: list[str] = []
    for piece in pieces:
        if sentences and not _ends_sentence(sentences[-1], piece):
            sentences[-1] += " " + piece
        else:
            sentences.append(piece)
    return sentences


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


# --- Filters of the Debian sources; every rejection is counted by its reason. --------------------

# Markup that wraps text: Pango/HTML/Wesnoth/Widelands tags and entities are removed, their text kept.
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_BREAK_TAG = re.compile(r"<br\s*/?>|<p\b[^<>]*>|</p>", re.IGNORECASE)
_ENTITY = re.compile(r"&(?:[a-z]+|#\d+|#x[0-9a-f]+);", re.IGNORECASE)
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&nbsp;": " "}
_QT_ACCELERATOR = re.compile(r"&(?=\w)")  # "&Open" in Qt catalogues
_LITERAL_BREAK = re.compile(r"\\n|\n")
# What cannot be stripped without breaking the sentence: printf/Python/shell/Qt/Lua placeholders,
# Freeciv's "?qualifier:" prefixes, Wesnoth/Widelands images and help references, leftover markup.
_PLACEHOLDER = re.compile(
    r"%(?:\d+\$)?[-+ #0]*\d*(?:\.\d+)?l*[sdifgcuxXeEpS]|%\d|%\(\w+\)|%[A-Za-z_]+%"
    r"|\{[^{}]*\}|\$\w+|\$\{|\$\(|\[\[|\]\]|@\w+@|^\?\w+:|&\w+\.png|\.png\b|[<>]|\\|~|\b_\w|\|"
)
_QUOTES = str.maketrans("", "", "\"„“”«»‚‘’'")
_SENTENCE_LIKE_END = re.compile(r"[.!?…][\"'“”»)]*$")
_OPENING = re.compile(r"^[\"'„“»(]*[A-ZÄÖÜ0-9]")
MAX_WHOLE_WORDS = 30  # paragraphs whose sentences do not line up are kept whole up to this length


def strip_markup(text: str) -> str:
    """Text without tags, entities and Qt accelerators; line breaks become spaces."""
    text = _BREAK_TAG.sub(" ", text)
    text = _TAG.sub("", text)
    text = _ENTITY.sub(lambda m: _ENTITIES.get(m.group(0).lower(), m.group(0)), text)
    text = _QT_ACCELERATOR.sub("", text)
    return _LITERAL_BREAK.sub(" ", text)


def has_placeholder(text: str) -> bool:
    """Whether a segment is a template (its sentence would be incomplete without the program)."""
    return bool(_PLACEHOLDER.search(text))


def same_text(en: str, de: str) -> bool:
    """German identical to English once quotes are dropped and case and spacing normalised."""

    def key(text: str) -> str:
        return " ".join(text.translate(_QUOTES).casefold().split())

    return key(en) == key(de)


def is_sentence_like(text: str, min_words: int = 3) -> bool:
    """A whole sentence: capital or digit start (after quotes), final . ! ? … (before closing quotes)."""
    words = text.split()
    return (
        min_words <= len(words) <= MAX_WORDS
        and bool(_OPENING.search(text))
        and bool(_SENTENCE_LIKE_END.search(text))
    )


def plausible_chars(en: str, de: str) -> bool:
    """German length within 0.7-2.0 times the English (±8 characters of slack for short pairs).

    German runs ~15% longer than English; the 1st and 99th percentiles of the Ding-only corpus
    are 0.71 and 1.93. Free game translations that drop half a line fall below 0.7.
    """
    a, b = len(en), len(de)
    return 0.7 * a - 8 <= b <= 2.0 * a + 8


def clean_pairs(raw: list[Pair], counts: dict[str, int], min_words: int = 3) -> list[Pair]:
    """Sentence pairs of raw (en, de) segments; each rejection adds one to ``counts[reason]``.

    Markup is stripped; templates are dropped; paragraphs split into sentences when both sides
    have as many, else kept whole if at most ``MAX_WHOLE_WORDS`` words; then sentence shape, word
    and character length ratios and untranslated text are checked per pair.
    """
    out: list[Pair] = []

    def count(reason: str) -> None:
        counts[reason] = counts.get(reason, 0) + 1

    for en, de in raw:
        stripped = strip_markup(en), strip_markup(de)
        if stripped != (en, de):
            count("markup_stripped")
        if has_placeholder(stripped[0]) or has_placeholder(stripped[1]):
            count("placeholder")
            continue
        en, de = normalize(stripped[0]), normalize(stripped[1])
        if not en or not de or same_text(en, de):
            count("identical")
            continue
        en_sents, de_sents = split_sentences(en), split_sentences(de)
        if len(en_sents) != len(de_sents):
            if max(len(en.split()), len(de.split())) > MAX_WHOLE_WORDS:
                count("unaligned")
                continue
            en_sents, de_sents = [en], [de]
        for e, d in zip(en_sents, de_sents):
            if same_text(e, d):
                count("identical")
            elif not (is_sentence_like(e, min_words) and is_sentence_like(d, 2)):
                count("not_sentence")
            elif not (plausible_lengths(e, d) and plausible_chars(e, d)):
                count("length_ratio")
            else:
                out.append((e, d))
    return out
