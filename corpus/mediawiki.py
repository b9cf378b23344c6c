"""MediaWiki's interface messages (Debian ``mediawiki``, GPL-2+), English against German.

MediaWiki keeps every message of the core, its API, installer, skins and bundled extensions as
JSON objects ``{"message-key": "text", ...}``, one file per language in each ``i18n/`` directory
(``languages/i18n/en.json`` and ``de.json``, ``includes/api/i18n/``, ``extensions-core/NAME/i18n/``,
...). A message key joins the English text to its German translation; each ``i18n`` directory is
one document. ``de.json`` is the standard (informal, "du") German; ``de-formal.json`` only
overrides some of it and is not read.

Messages are wikitext templates, so ``message_pairs`` turns them into plain text or drops them:

- a message with a parameter (``$1``) or a template/magic word (``{{PLURAL:$1|...}}``,
  ``{{SITENAME}}``, ``{{int:other-key}}``) is a template the program fills in: dropped. Only
  ``{{GENDER:|you}}`` with a single form (the reader's own gender, one word) is replaced by that word;
- ``[[target|label]]`` becomes its label, ``[[target]]`` its target unless the target names a
  namespace (``[[Special:Log]]``, not a word of the sentence): then the message is dropped;
  ``[https://... label]`` becomes its label, a bare external link drops the message;
- ``'''bold'''`` and ``''italic''`` lose their quotes;
- a message on several lines pairs line by line when both sides have as many lines, else whole;
  list markers (``*``, ``#``, ``:``) are removed; definition lines (``;term:definition``),
  headings, ``<pre>`` blocks, HTML comments and query strings (``format=json``) drop the message;
- numeric character references are decoded (``&#x7B;slot}`` is a ``{slot}`` placeholder for the
  filters to see); named entities and HTML tags are left to ``text.clean_pairs`` (stripped, counted
  as ``markup_stripped``);
- style sheets and scripts that are messages too (``common.css``, ``group-user.js``) are skipped.

Most messages are labels, buttons and error lines (UI text), and the API help describes
parameters in one short sentence each: ``clean_pairs`` keeps the whole sentences.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from corpus.source import Documents, Source
from corpus.text import Pair

MEDIAWIKI = "usr/share/mediawiki"
_NOT_TEXT_KEYS = re.compile(r"\.(?:css|js|json)$|^@")
_PARAMETER = re.compile(r"\$\d")
_GENDER = re.compile(r"\{\{GENDER:\|([^|{}]*)\}\}")
_INTERNAL_LINK = re.compile(r"\[\[([^\[\]|]*)(?:\|([^\[\]]*))?\]\]")
_EXTERNAL_LINK = re.compile(r"\[(?:https?:)?//[^\s\]]+(?:\s+([^\]]*))?\]")
_EMPHASIS = re.compile(r"'{2,}")
_LIST_MARKER = re.compile(r"^[*#:]+\s*")
# What marks a message as code or page layout rather than prose.
_LAYOUT = re.compile(r"\{\{|\}\}|<pre|<!--|^;|^=+.*=+$|__[A-Z]+__|\w=\w", re.MULTILINE)
# ``&#x7B;slot}`` hides a ``{slot}`` placeholder from the filters; named entities stay for them.
_NUMERIC_ENTITY = re.compile(r"&#(?:x[0-9a-fA-F]+|\d+);")


class NotText(ValueError):
    """The message is a template or page layout, not a sentence to translate."""


def _link(match: re.Match[str]) -> str:
    target, label = match.group(1), match.group(2)
    if label is not None:
        return label
    if ":" in target:
        raise NotText(f"namespace link [[{target}]]")
    return target


def _external(match: re.Match[str]) -> str:
    if not match.group(1):
        raise NotText("bare external link")
    return match.group(1)


def plain_lines(message: str) -> list[str]:
    """The lines of a message as plain text (see the module docstring); raises ``NotText``."""
    text = _NUMERIC_ENTITY.sub(lambda m: html.unescape(m.group(0)), message)
    if _PARAMETER.search(text):
        raise NotText("parameter")
    text = _GENDER.sub(r"\1", text)
    if _LAYOUT.search(text):
        raise NotText("template or layout")
    text = _INTERNAL_LINK.sub(_link, text)
    text = _EXTERNAL_LINK.sub(_external, text)
    text = _EMPHASIS.sub("", text)
    return [_LIST_MARKER.sub("", line).strip() for line in text.splitlines() if line.strip()]


def message_pairs(en: dict[str, str], de: dict[str, str]) -> list[Pair]:
    """(en, de) texts of the messages present in both catalogues, joined on their keys."""
    pairs: list[Pair] = []
    for key, en_message in en.items():
        de_message = de.get(key)
        if _NOT_TEXT_KEYS.search(key) or not isinstance(en_message, str) or not isinstance(de_message, str):
            continue
        try:
            en_lines, de_lines = plain_lines(en_message), plain_lines(de_message)
        except NotText:
            continue
        if len(en_lines) == len(de_lines):
            pairs.extend(zip(en_lines, de_lines))
        elif en_lines and de_lines:
            pairs.append((" ".join(en_lines), " ".join(de_lines)))
    return pairs


def _catalogue(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def parse(root: Path) -> Documents:
    """One document per ``i18n`` directory (``languages/i18n``, ``extensions-core/Cite/i18n``).

    A pair already given by an earlier directory (sorted) is left out: three copies of OOUI's
    catalogue ship in the package.
    """
    base = root / MEDIAWIKI
    docs: Documents = {}
    seen: set[Pair] = set()
    for en_path in sorted(base.glob("**/i18n/**/en.json")):
        de_path = en_path.with_name("de.json")
        if not de_path.is_file():
            continue
        try:
            pairs = message_pairs(_catalogue(en_path), _catalogue(de_path))
        except (ValueError, UnicodeDecodeError):  # a broken catalogue only costs itself
            continue
        kept = [pair for pair in dict.fromkeys(pairs) if pair not in seen]
        seen.update(kept)
        if kept:
            docs[en_path.parent.relative_to(base).as_posix()] = kept
    return docs


SOURCES: list[Source] = [
    Source(
        name="mediawiki",
        packages=("mediawiki",),
        licence="GPL-2+",
        description="MediaWiki interface, API help and extension messages (JSON i18n, joined on keys)",
        domain="ui",
        parse=parse,
        weight=0.5,
        members=("*/i18n/en.json", "*/i18n/de.json", "*/i18n/*/en.json", "*/i18n/*/de.json"),
    ),
]
