"""Games and learning software: their message catalogues hold stories, lore and instructions.

Each game ships the German catalogues beside the English originals (gettext ``.mo`` or Qt ``.qm``);
a catalogue file is one document. Only the ``de`` catalogues are unpacked. Game-specific prefixes
that are not text are removed here; markup and placeholders are the corpus filters' job
(``text.clean_pairs``).

- Wesnoth marks a string's sense with ``context^text`` (``female^Hello``); the context goes.
- Wesnoth's help writes links and emphasis as attributes, ``<ref>dst='x' text='traits'</ref>``,
  ``<bold>text='Villages'</bold>``: inside a sentence the element becomes its ``text``; a line
  holding nothing else is a heading or a list of links and goes.
- Freeciv qualifies names with ``?qualifier:text`` (``?unit:Warriors``); the qualifier goes.
- Hedgewars keeps mission texts in a Lua table keyed by the English (``["Hello"] = "Hallo",``)
  beside its Qt catalogue of the user interface.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from corpus import mo, qm
from corpus.source import Documents
from corpus.text import Pair, normalize, split_sentences, strip_markup

WESNOTH_CAMPAIGNS = (  # every campaign Debian ships, except wesnoth-1.16-httt (outside evaluation)
    "did", "dm", "dw", "ei", "l", "low", "nr", "sof", "sota", "sotbe", "thot", "trow", "tsg", "ttb", "utbs",
)  # fmt: skip
_MO_DE = "*/locale/de/LC_MESSAGES/*.mo"
_WESNOTH_SENSE = re.compile(r"^[\w -]{1,30}\^")
_FREECIV_QUALIFIER = re.compile(r"^\?[\w -]+:")
# An element of Wesnoth's help markup: only key=value attributes between its tags.
_HELP_ELEMENT = re.compile(r"<(\w+)>((?:\s*\w+=(?:'[^']*'|[^\s<>']*))+)\s*</\1>")
_HELP_TEXT = re.compile(r"\btext=(?:'([^']*)'|([^\s<>']*))")
_LUA_STRING = r'"((?:[^"\\]|\\.)*)"'
_LUA_ENTRY = re.compile(r"^\s*\[" + _LUA_STRING + r"\]\s*=\s*" + _LUA_STRING, re.MULTILINE)
_LUA_ESCAPE = re.compile(r"\\(.)")


def _each_side(clean: Callable[[str], str], docs: Documents) -> Documents:
    return {doc: [(clean(en), clean(de)) for en, de in pairs] for doc, pairs in docs.items()}


def wesnoth_help_text(text: str) -> str:
    """Wesnoth help markup as the reader sees it: ``<ref>dst='x' text='traits'</ref>`` -> ``traits``.

    Elements without a ``text`` attribute (``<img>src=…</img>``) are left for the placeholder filter.
    """

    def shown(match: re.Match[str]) -> str:
        found = _HELP_TEXT.search(match.group(2))
        if found is None:
            return match.group(0)
        return found.group(1) if found.group(1) is not None else found.group(2)

    def heading(line: str) -> bool:
        return "text=" in line and not _HELP_ELEMENT.sub("", line).strip()

    return "\n".join("" if heading(line) else _HELP_ELEMENT.sub(shown, line) for line in text.split("\n"))


def wesnoth(root: Path) -> Documents:
    """One document per textdomain (``wesnoth-tsg`` is the whole campaign The South Guard)."""
    docs = mo.documents(root, "**/locale/de/LC_MESSAGES/*.mo")
    return _each_side(lambda text: wesnoth_help_text(_WESNOTH_SENSE.sub("", text)), docs)


def wesnoth_lore(root: Path) -> Documents:
    """``wesnoth`` for the units, help and multiplayer texts, single-sentence entries only.

    Their German is often a free adaptation: in the review, 8 of the 37 pairs cut from
    multi-sentence entries said something else, and all 13 single-sentence entries were right.
    """

    def one_sentence(text: str) -> bool:
        return len(split_sentences(normalize(strip_markup(text)))) == 1

    return {
        doc: [(en, de) for en, de in pairs if one_sentence(en) and one_sentence(de)]
        for doc, pairs in wesnoth(root).items()
    }


def freeciv(root: Path) -> Documents:
    """Help texts, nation legends and ruleset descriptions (``freeciv-core``, ``freeciv-nations``)."""
    docs = mo.documents(root, "**/locale/de/LC_MESSAGES/freeciv-*.mo")
    return _each_side(lambda text: _FREECIV_QUALIFIER.sub("", text), docs)


def widelands(root: Path) -> Documents:
    """Campaign stories, tutorials, encyclopedia, one catalogue per scenario or subsystem."""
    return mo.documents(root, "**/locale/de/LC_MESSAGES/*.mo")


def gettext_de(root: Path) -> Documents:
    """Every German ``.mo`` of the unpacked packages (Tux Paint, Warzone 2100, ...)."""
    return mo.documents(root, "**/locale/de/LC_MESSAGES/*.mo")


def qt_de(root: Path) -> Documents:
    """Every German ``.qm`` of the unpacked packages (GCompris, Stellarium, ...)."""
    return qm.documents(root, "**/*de.qm")


def lua_table(text: str) -> list[Pair]:
    """(English key, German value) of each ``["…"] = "…"`` line of a Hedgewars locale table."""

    def unescape(value: str) -> str:
        return _LUA_ESCAPE.sub(lambda m: " " if m.group(1) == "n" else m.group(1), value)

    return [(unescape(en), unescape(de)) for en, de in _LUA_ENTRY.findall(text)]


def hedgewars(root: Path) -> Documents:
    """Mission and campaign texts (``Locale/de.lua``) and the interface catalogue (``.qm``)."""
    docs = qt_de(root)
    for path in sorted(root.glob("**/Locale/de.lua")):
        docs[str(path.relative_to(root))] = lua_table(path.read_text(encoding="utf-8", errors="replace"))
    return docs


def pairs_of(docs: Documents) -> list[Pair]:
    """All pairs of a parse result, in document order (for quick looks and tests)."""
    return [pair for doc in sorted(docs) for pair in docs[doc]]
