"""Man pages (groff ``man`` macros) in English and German, aligned by their macro sequence.

``manpages-de`` translates the pages of other packages with po4a, which keeps the English page's
structure: the same headings (``.SH``/``.SS``), paragraphs (``.PP``, ``.IP``), tagged paragraphs
(``.TP``) and preformatted regions (``.nf``/``.EX``). A page becomes a list of blocks in the same
shape ``html_blocks`` uses (headings, paragraphs, terms and their bodies), and ``html_blocks``
aligns them section by section. A term's kind carries the options it names (``dt -a --all``),
so two versions of a page whose option lists differ never pair one option's text with another's;
that version skew (the German pages lag or lead the English ones) costs only the sections it
touches. Font requests (``.B``, ``.BR`` …) and escapes (``\\fB``, ``\\-``, ``\\(aq`` …) are inline
text and are rendered as plain characters.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from corpus.html_blocks import Block

_HEADINGS = {"SH": "h2", "SS": "h3"}
_PARAGRAPHS = {"PP", "P", "LP", "IP", "HP", "sp", "RS", "RE"}  # .RS/.RE: an indented body starts/ends
_PRE_START, _PRE_END = {"nf", "EX"}, {"fi", "EE"}
_FONT_JOINED = {"B", "I", "SM", "SB"}  # arguments joined with spaces
_FONT_ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}  # arguments joined without spaces
_ESCAPES = {
    "(aq": "'", "(dq": '"', "(lq": "\u201c", "(rq": "\u201d", "(Fo": "\u00ab", "(Fc": "\u00bb",
    "(bu": "\u2022", "(em": "\u2014", "(en": "\u2013", "(hy": "-", "(co": "\u00a9", "(ti": "~",
    "(ha": "^", "(at": "@", "(sh": "#", "(rs": "\\", "(oq": "'", "(cq": "'", "(mi": "-",
    "(Bq": "\u201e", "(bq": "\u201a", "(fo": "\u2039", "(fc": "\u203a", "(ga": "`", "(dg": "\u2020",
}  # fmt: skip
_ESCAPE = re.compile(
    r"\\(?:f(?:\[[^\]]*\]|\(..|.)"  # font changes
    r"|\*(?:\[[^\]]*\]|\(..|.)"  # string interpolation (left out)
    r"|\((..)"  # special characters (two letters)
    r"|\[([^\]]*)\]"  # special characters (long names)
    r"|s[+-]?\d"  # size changes
    r"|(.))"  # one-character escapes
)
_SINGLE = {"-": "-", "e": "\\", " ": " ", "~": " ", "&": "", "%": "", ",": "", "/": "", "c": "", "|": "",
           "^": "", "0": " ", ".": ".", "'": "'", "`": "`"}  # fmt: skip
_LONG = {"aq": "'", "dq": '"', "lq": "\u201c", "rq": "\u201d", "Fo": "\u00ab", "Fc": "\u00bb", "em": "\u2014",
         "en": "\u2013", "bu": "\u2022", "rs": "\\", "ti": "~", "ha": "^", "Bq": "\u201e"}  # fmt: skip
_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")


def unescape(text: str) -> str:
    """Plain text of one line of groff: fonts dropped, special characters rendered."""

    def replace(match: re.Match) -> str:
        two, long, one = match.group(1), match.group(2), match.group(3)
        if two is not None:
            return _ESCAPES.get("(" + two, "")
        if long is not None:
            return _LONG.get(long, "")
        if one is not None:
            return _SINGLE.get(one, "\\" + one)  # unknown: left visible so the pair is dropped
        return ""

    return _ESCAPE.sub(replace, text)


_ARG = re.compile(r'"((?:[^"]|"")*)"?|(\S+)')


def arguments(args: str) -> list[str]:
    """A request's arguments: blank-separated, double quotes group ("" is a literal quote)."""
    return [q.replace('""', '"') if w is None or q else w for q, w in _ARG.findall(args)]


def _request_text(name: str, args: str) -> str:
    return ("" if name in _FONT_ALTERNATING else " ").join(arguments(args))


class _Reader:
    """Turns the lines of a man page into blocks (one pass, no lookahead)."""

    def __init__(self) -> None:
        self.out: list[Block] = []
        self.kind = "p"  # kind of the block being read
        self.lines: list[str] = []
        self.pre = False
        self.pending = ""  # "dt" or "h2"/"h3": the next text line is a term or a heading

    def close(self) -> None:
        text = " ".join(unescape(" ".join(self.lines)).split())
        if text:
            kind = self.kind
            if kind == "dt":  # the options a term names are part of its kind (see module doc)
                kind = " ".join(["dt", *_OPTION.findall(text)])
            self.out.append((kind, None if kind == "pre" else text))
        self.lines = []

    def start(self, kind: str) -> None:
        self.close()
        self.kind = kind

    def text(self, line: str) -> None:
        self.lines.append(line)
        if self.pending:  # a term or heading is one line; its body follows
            self.pending = ""
            self.start("dd" if self.kind == "dt" else "p")

    def request(self, name: str, args: str) -> None:
        if self.pre and name not in _PRE_END:
            return
        if name in _HEADINGS:
            self.start(_HEADINGS[name])
            if args.strip():
                self.lines.append(_request_text(name, args))
                self.start("p")
            else:
                self.pending = self.kind
        elif name in _PARAGRAPHS:
            self.start("p")
            tag = (arguments(args) or [""])[0] if name == "IP" else ""
            if tag and tag not in _BULLETS:  # ".IP term": a tagged paragraph
                self.start("dt")
                self.lines.append(tag)
                self.start("dd")
        elif name in ("TP", "TQ"):
            self.start("dt")
            self.pending = "dt"
        elif name in _PRE_START:
            self.start("pre")
            self.pre = True
        elif name in _PRE_END:
            self.start("p")
            self.pre = False
        elif name in _FONT_JOINED or name in _FONT_ALTERNATING:
            self.text(_request_text(name, args))


_BULLETS = {"\\(bu", "\\[bu]", "*", "-", "\\-", "o", "\u2022"}


def blocks(source: str) -> list[Block]:
    """A man page's blocks in order: (h2|h3|p|dt OPTIONS|dd|pre, text); pre blocks carry no text."""
    reader = _Reader()
    for raw in source.splitlines():
        if raw.startswith(('.\\"', "'\\\"")) or raw.strip() in (".", "'"):
            continue  # comments and empty requests
        if raw.startswith((".", "'")):
            name, _, args = raw[1:].strip().partition(" ")
            reader.request(name, args)
        elif reader.pre:
            reader.lines.append(raw)
        else:
            reader.text(raw)
    reader.close()
    return reader.out


def read(path: Path) -> str:
    """A man page's source (gzip or plain), undecodable bytes replaced."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")
