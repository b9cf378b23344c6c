"""Translated HTML manuals aligned by structure (DocBook-generated HTML: GIMP help, Debian docs).

An English page and its German twin come out of the same DocBook source through the same
stylesheet, so they hold the same blocks (paragraphs, headings, list items, table cells) in the
same order. A page is cut into sections at its headings; sections are matched by their *shape*
(heading level and the tags of their blocks) with ``difflib``, so a section added or dropped in one
translation costs only that section, and block n of a matched section translates block n of its
twin. Preformatted blocks (``<pre>``: commands, file listings) keep their place but give no pairs.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from html.parser import HTMLParser

# Blocks whose text is one unit. A block inside another (a <p> in an <li>) is its own unit and the
# outer one keeps only its direct text.
_BLOCKS = {"p", "li", "dt", "dd", "td", "th", "caption", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_VOID = {"br", "img", "hr", "meta", "link", "input", "col", "area", "base", "wbr"}
# Navigation bars repeat neighbouring page titles; scripts and styles are no text.
_SKIP_CLASSES = {
    "navheader", "navfooter", "docnav", "toc", "list-of-figures", "list-of-tables", "list-of-examples"
}  # fmt: skip
# Publican (the Debian Administrator's Handbook) writes paragraphs as <div class="para">.
_PARA_CLASSES = {"para"}
_SKIP_TAGS = {"head", "script", "style"}

Block = tuple[str, str | None]  # (tag, text); text None for blocks that never give pairs (<pre>)


class _BlockParser(HTMLParser):
    """Collects (tag, text) of every block in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[list] = []  # [kind, parts] in order of their start tags
        self._open: list[tuple[str, int]] = []  # open blocks: (tag, index into self.blocks)
        self._tags: list[tuple[str, bool]] = []  # open elements: (tag, starts a skipped region)
        self._skip = 0  # > 0 inside a skipped region

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            if tag == "br" and self._open and not self._skip:
                self.blocks[self._open[-1][1]][1].append(" ")
            return
        classes = set((dict(attrs).get("class") or "").split())
        skip = tag in _SKIP_TAGS or bool(classes & _SKIP_CLASSES)
        self._tags.append((tag, skip))
        if skip:
            self._skip += 1
        elif not self._skip and (tag in _BLOCKS or (tag == "div" and classes & _PARA_CLASSES)):
            self._open.append((tag, len(self.blocks)))
            self.blocks.append([tag if tag in _BLOCKS else "p", []])

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _ in self._tags):
            return  # a stray end tag
        while self._tags:  # close everything left open inside ``tag`` (HTML leaves <p>/<li> open)
            open_tag, skip = self._tags.pop()
            if skip:
                self._skip -= 1
            elif self._open and self._open[-1][0] == open_tag and not self._skip:
                self._open.pop()
            if open_tag == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open and not self._skip:
            self.blocks[self._open[-1][1]][1].append(data)


_NUMBER = re.compile(r"^\s*((?:\d+|[A-Z])(?:\.\d+)*)\.?\s")


def blocks(html: str) -> list[Block]:
    """The page's blocks in document order; empty blocks are left out.

    A numbered heading ("6.2.1. Syntax") carries its number in its kind (``"h3 6.2.1"``): both
    languages number sections alike, so the number tells two sections of the same shape apart.
    """
    parser = _BlockParser()
    parser.feed(html)
    parser.close()
    out: list[Block] = []
    for tag, parts in parser.blocks:
        text = " ".join("".join(parts).split())
        if not text:
            continue
        number = _NUMBER.match(text) if tag in _HEADINGS else None
        kind = f"{tag} {number.group(1)}" if number else tag
        out.append((kind, None if tag == "pre" else text))
    return out


Section = list[Block]


def _tag(block: Block) -> str:
    return block[0].partition(" ")[0]


def sections(page: list[Block]) -> list[Section]:
    """Cut a page's blocks at every heading (the heading opens its section)."""
    out: list[Section] = [[]]
    for block in page:
        if _tag(block) in _HEADINGS and out[-1]:
            out.append([])
        out[-1].append(block)
    return [s for s in out if s]


def _shape(section: Section) -> tuple[str, ...]:
    return tuple(kind for kind, _ in section)


def _anchored(en_blocks: list[Block], de_blocks: list[Block]) -> list[tuple[Block, Block]]:
    """Pairs from two differing stretches of blocks that are safe without a matching section: a
    *signed* kind both sides share (a numbered heading, a man page term with its options) and the
    definition right after a signed term. Runs of plain paragraphs are ambiguous and left out."""
    matcher = SequenceMatcher(None, _shape(en_blocks), _shape(de_blocks), autojunk=False)
    out: list[tuple[Block, Block]] = []
    for op, i1, i2, j1, _ in matcher.get_opcodes():
        if op != "equal":
            continue
        for k in range(i2 - i1):
            en, de = en_blocks[i1 + k], de_blocks[j1 + k]
            after_term = k > 0 and en_blocks[i1 + k - 1][0].startswith("dt ") and en[0] == "dd"
            if " " in en[0] or after_term:
                out.append((en, de))
    return out


def align_blocks(en_page: list[Block], de_page: list[Block]) -> list[tuple[str, str]]:
    """(en, de) text of the blocks of the sections whose shapes match, in English order.

    Where sections differ, signed blocks are still paired (see ``_anchored``), so one added option
    in a man page does not cost the whole option list.
    """
    en_secs, de_secs = sections(en_page), sections(de_page)
    matcher = SequenceMatcher(
        None, [_shape(s) for s in en_secs], [_shape(s) for s in de_secs], autojunk=False
    )
    pairs: list[tuple[Block, Block]] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                pairs.extend(zip(en_secs[i1 + k], de_secs[j1 + k]))
        elif op == "replace":
            en_blocks = [b for s in en_secs[i1:i2] for b in s]
            pairs.extend(_anchored(en_blocks, [b for s in de_secs[j1:j2] for b in s]))
    return [(en[1], de[1]) for en, de in pairs if en[1] is not None and de[1] is not None]


def align_pages(en_html: str, de_html: str) -> list[tuple[str, str]]:
    """Block pairs of one HTML page in both languages."""
    return align_blocks(blocks(en_html), blocks(de_html))
