"""Generated man pages rewritten into the groff that ``groff.blocks`` reads.

Pages made by po4a, DocBook, pod2man or KDE's kdoctools use more of groff than hand-written ones,
and ``groff.blocks`` drops what it does not know silently, cutting letters out of words
("enth\\(:alt" -> "enthlt", "doesn\\*(Aqt" -> "doesnt"). ``prepare`` rewrites a page first:
accented letters (``\\(:a``, ``\\[:u]``, ``\\[u00E4]``, pod2man's ``a\\*:``), strings defined with
``.ds`` (DocBook's ``\\*(Aq``, pod2man's ``\\*(L"``), pod2man's verbatim blocks (``.Vb``/``.Ve``),
macro definitions and ``.ig`` blocks (left out). A special character it does not know becomes a
visible backslash, so ``doc_text`` drops the sentence rather than keep a word with a hole.
Both man page sources (``manpages``, ``pkg_manpages``) read every page through it.
"""

from __future__ import annotations

import re
import unicodedata

from corpus import groff

# --- groff beyond what groff.blocks reads ----------------------------------------------------------

# groff's accent names (the first character of ``\(:a``) as combining marks.
# (``\(oq`` is a quote, not a ring over q: the ring (``\(oa``) is in ``_CHARACTERS``.)
_ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", ",": "\u0327"}
_ACCENTED = re.compile(r"""\\(?:\(([:'`^~,])([A-Za-z])|\[([:'`^~,])([A-Za-z])\])""")
# pod2man of old writes the accent after its letter ("scho\*:ner"); ``\*8`` is its sharp s.
_POSTFIX_ACCENT = re.compile(r"""([A-Za-z])\\\*([:'`^~,])""")
_CHARACTERS = {
    "ss": "\u00df", "ae": "\u00e6", "AE": "\u00c6", "oe": "\u0153", "OE": "\u0152", "/l": "\u0142",
    "/L": "\u0141", "/o": "\u00f8", "/O": "\u00d8", "oa": "\u00e5", "oA": "\u00c5", "co": "\u00a9",
    "rg": "\u00ae", "tm": "\u2122", "de": "\u00b0", "mu": "\u00d7", "di": "\u00f7", "->": "\u2192",
    "<-": "\u2190", "<=": "\u2264", ">=": "\u2265", "S1": "\u00b9", "S2": "\u00b2", "S3": "\u00b3",
    "oq": "'", "cq": "'", "or": "|", "sl": "/", "lB": "[", "rB": "]", "sh": "#", "aa": "\u00b4",
    "*W": "-", "*p": "\u03c0", "*b": "\u03b2", "md": "\u22c5", "pd": "\u2202", "shc": "\u00ad",
    "CR": "", "hy": "-", "Eu": "\u20ac", "eu": "\u20ac", "Po": "\u00a3", "ct": "\u00a2",
    "ps": "\u00b6", "sc": "\u00a7", "12": "\u00bd", "14": "\u00bc", "34": "\u00be", "+-": "\u00b1",
    "!=": "\u2260", "pl": "+", "eq": "=", "%0": "\u2030",
}  # fmt: skip
_SPECIAL = re.compile(r"\\(?:\((..)|\[([^\]\s]+)\])")
_STRING = re.compile(r"\\\*(?:\((..)|\[([^\]\s]+)\]|([^(\[]))")
# ``.ds NAME VALUE``, also as the body of a condition (``.ie \n(.g .ds Aq \(aq``, ``.el .ds Aq '``)
_DEFINE = re.compile(
    r"^[.'][ \t]*(?:(?:ie|if)[ \t]+\S+[ \t]+[.'][ \t]*|el[ \t]+[.'][ \t]*)?ds[ \t]+(\S+)[ \t]?(.*)$"
)
# Blocks read up to ".." and left out: macro definitions and ``.ig`` (a comment block)
# ... and their end: ".." or, indented as in Asciidoctor's pages, ".  ."
_MACRO_END = re.compile(r"^[.'][ \t]*\.[ \t]*$")
_MACRO_START = re.compile(r"^[.'][ \t]*(?:(?:de|de1|am)[ \t]+\S|ig\b)")
# Strings that read better than their nroff definition: pod2man's dash is "\(*W-" there.
_STRING_VALUES = {"--": "\u2014"}
_UNKNOWN = "\\?"  # left visible by groff.unescape: the sentence holding it is dropped


def _compose(letter: str, accent: str) -> str:
    return unicodedata.normalize("NFC", letter + _ACCENTS[accent])


def _special(match: re.Match) -> str:
    name = match.group(1) or match.group(2)
    if name in _CHARACTERS:
        return _CHARACTERS[name]
    if re.fullmatch(r"u[0-9A-F]{4,5}(?:_[0-9A-F]{4,5})*", name):  # \[u00E4], \[u0061_0308]
        return unicodedata.normalize("NFC", "".join(chr(int(c, 16)) for c in name[1:].split("_")))
    if re.fullmatch(r"char\d+", name):
        char = chr(int(name[4:]))
        return "\\&" + char if char in ".'" else char  # not read as a request at a line start
    if groff.unescape(match.group(0)) == "":  # neither here nor in groff.py: not silently dropped
        return _UNKNOWN
    return match.group(0)


def _definitions(lines: list[str]) -> dict[str, str]:
    """Strings a page defines with ``.ds``; the first definition wins (nroff's branch comes first)."""
    strings: dict[str, str] = {}
    for line in lines:
        match = _DEFINE.match(line)
        if match and match.group(1) not in strings:
            value = match.group(2)
            strings[match.group(1)] = value[1:] if value.startswith('"') else value
    return strings


def prepare(source: str) -> str:
    """A man page rewritten into the groff ``groff.blocks`` reads (see the module docstring)."""
    lines: list[str] = []
    in_macro = False
    for line in source.splitlines():
        if in_macro:
            in_macro = not _MACRO_END.match(line)
        elif _MACRO_START.match(line):
            in_macro = True
        else:
            lines.append(line)
    strings = _definitions(lines)

    def string(match: re.Match) -> str:
        name = match.group(1) or match.group(2) or match.group(3)
        if name in _STRING_VALUES:
            return _STRING_VALUES[name]
        if name == "8":  # pod2man's sharp s
            return "\u00df"
        return _STRING.sub(lambda m: "", strings[name]) if name in strings else _UNKNOWN

    out: list[str] = []
    for line in lines:
        if "\\" not in line and not line.startswith((".V", "'V")):  # most lines: nothing to rewrite
            out.append(line)
            continue
        if _DEFINE.match(line):
            continue
        stripped = line.strip()
        if stripped.startswith((".Vb", "'Vb")):  # pod2man's verbatim block
            line = ".nf"
        elif stripped in (".Ve", "'Ve"):
            line = ".fi"
        line = _POSTFIX_ACCENT.sub(lambda m: _compose(m.group(1), m.group(2)), line)
        line = _STRING.sub(string, line)
        line = _ACCENTED.sub(lambda m: _compose(m.group(2) or m.group(4), m.group(1) or m.group(3)), line)
        out.append(_SPECIAL.sub(_special, line))
    return "\n".join(out)
