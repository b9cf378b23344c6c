"""Games and learning software: their message catalogues hold stories, lore and instructions.

Each game ships the German catalogues beside the English originals (gettext ``.mo`` or Qt ``.qm``);
a catalogue file is one document. Only the ``de`` catalogues are unpacked. Game-specific prefixes
that are not text are removed here; markup and placeholders are the corpus filters' job
(``text.clean_pairs``).

- Wesnoth marks a string's sense with ``context^text`` (``female^Hello``); the context goes.
- Freeciv qualifies names with ``?qualifier:text`` (``?unit:Warriors``); the qualifier goes.
- Hedgewars keeps mission texts in a Lua table keyed by the English (``["Hello"] = "Hallo",``)
  beside its Qt catalogue of the user interface.
"""

from __future__ import annotations

import re
from pathlib import Path

from transformer.corpus import mo, qm
from transformer.corpus.source import Documents
from transformer.corpus.text import Pair

WESNOTH_CAMPAIGNS = (  # every campaign Debian ships, except wesnoth-1.16-httt (outside evaluation)
    "did", "dm", "dw", "ei", "l", "low", "nr", "sof", "sota", "sotbe", "thot", "trow", "tsg", "ttb", "utbs",
)  # fmt: skip
_MO_DE = "*/locale/de/LC_MESSAGES/*.mo"
_WESNOTH_SENSE = re.compile(r"^[\w -]{1,30}\^")
_FREECIV_QUALIFIER = re.compile(r"^\?[\w -]+:")
_LUA_STRING = r'"((?:[^"\\]|\\.)*)"'
_LUA_ENTRY = re.compile(r"^\s*\[" + _LUA_STRING + r"\]\s*=\s*" + _LUA_STRING, re.MULTILINE)
_LUA_ESCAPE = re.compile(r"\\(.)")


def _without(pattern: re.Pattern[str], docs: Documents) -> Documents:
    return {
        doc: [(pattern.sub("", en), pattern.sub("", de)) for en, de in pairs] for doc, pairs in docs.items()
    }


def wesnoth(root: Path) -> Documents:
    """One document per textdomain (``wesnoth-tsg`` is the whole campaign The South Guard)."""
    return _without(_WESNOTH_SENSE, mo.documents(root, "**/locale/de/LC_MESSAGES/*.mo"))


def freeciv(root: Path) -> Documents:
    """Help texts, nation legends and ruleset descriptions (``freeciv-core``, ``freeciv-nations``)."""
    return _without(_FREECIV_QUALIFIER, mo.documents(root, "**/locale/de/LC_MESSAGES/freeciv-*.mo"))


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
