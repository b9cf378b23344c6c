"""Cheap checks for what is not an English sentence in the English sentence box, and the notes that say
so: German, and markup (HTML tags).

The model translates English into German; German given to it mostly comes back copied (or garbled),
which looks like a translation that did nothing. The evidence is deliberately simple and shown to the
reader: words that are common in German and not English words (never "die", "was", "war", "hat" or
"will", which English has too), and, beside at least one of them, words with ä, ö, ü or ß. Text is
called German when these outnumber common English words and there are at least two of them.
"""

from __future__ import annotations

import re

GERMAN_WORDS = frozenset(
    "der das dem den des ein eine einen einem einer und oder aber ist sind bist wird werden wurde "
    "habe hast haben hatte nicht nichts kein keine ich du wir ihr sie es mein meine dein deine sich "
    "mit auf für von zu zum zur nach bei über unter auch noch schon nur sehr wie wenn weil dass daß "
    "heute gestern morgen hier dort jetzt immer danke bitte hallo guten geht".split()
)
ENGLISH_WORDS = frozenset(
    "the a an is are was were be been and or of to in on at for with it this that these those not no "
    "i you he she we they my your his her our their have has had do does did would can could should "
    "what which who when where why how there here from by as but if than then very just".split()
)
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
_UMLAUT = re.compile(r"[äöüß]")


def german_evidence(text: str) -> list[str]:
    """The words that make `text` look German (in order, each once), or [] when it does not."""
    words = _WORD.findall(text.lower())
    function = [w for w in words if w in GERMAN_WORDS]
    umlaut = [w for w in words if _UMLAUT.search(w)] if function else []
    english = sum(w in ENGLISH_WORDS for w in words)
    found = function + umlaut
    if len(found) < 2 or len(found) <= english:
        return []
    return list(dict.fromkeys(w for w in words if w in found))


def german_note(evidence: list[str]) -> str:
    """One line for the page: what was seen and what the model does (Markdown; the words are letters)."""
    shown = ", ".join(f"“{w}”" for w in evidence[:4])
    return (f"This looks like German ({shown}). The model translates **English into German**: German "
            "typed here mostly comes back copied rather than translated. Type an English sentence, or pick "
            "a preset.")


_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>`]{0,40})?/?>")  # <b>, </p>, <a href="…">, <br/>


def markup_tags(text: str) -> list[str]:
    """The HTML tags in `text` (in order, each once), or []."""
    return list(dict.fromkeys(_TAG.findall(text)))


def markup_note(tags: list[str]) -> str:
    """One line for the page (Markdown; each tag in a code span, so it shows as typed, never as HTML)."""
    shown = ", ".join(f"`{t}`" for t in tags[:4])
    return (f"Your text contains markup ({shown}). The app shows it as typed, never as formatting; the "
            "model reads it as characters it rarely saw in training, so those parts of the translation mean "
            "little.")
