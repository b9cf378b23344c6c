"""GNOME user docs (``gnome-user-docs``, CC-BY-SA-3.0): Mallard ``.page`` files in C and de.

The German pages are generated from the English ones (itstool), so the translatable blocks
(``<p>``, ``<title>``, ``<desc>``) appear in the same order. Where a page pair has the same number
of blocks, block n of one translates block n of the other; other pages are skipped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from corpus import doc_text, docbook, html_blocks
from corpus.text import Pair, align_paragraph

_NS = "{http://projectmallard.org/1.0/}"
_BLOCKS = {_NS + "p", _NS + "title", _NS + "desc"}
# An empty <link xref="…"/> is filled with the target's title at render time; its text is
# missing here, so a block holding one would be a broken sentence.
_LINK = _NS + "link"

# Yelp shows a menu path (<guiseq>) as "View ▸ Zoom" and a key combination (<keyseq>) as "Ctrl+H";
# without the separators the words would run together ("ViewZoom", "CtrlH").
_GUI_STEP = re.compile(r"(</gui>)\s*(<gui[\s>])")
_KEY_STEP = re.compile(r"(</key>)\s*(<key[\s>])")


def _with_separators(xml: str) -> str:
    return _KEY_STEP.sub(r"\1+\2", _GUI_STEP.sub("\\1 \u25b8 \\2", xml))


def blocks(xml: str) -> list[str | None]:
    """Text of each translatable block in document order; None for blocks with a missing link text.

    Blocks nested inside another block (a ``<title>`` inside a ``<p>`` cannot happen, but a
    ``<p>`` inside a ``<note>`` can) are listed once each, never merged into their parent.
    """
    root = ET.fromstring(xml)
    out: list[str | None] = []
    for element in root.iter():
        if element.tag not in _BLOCKS:
            continue
        empty_link = any(
            child.tag == _LINK and not "".join(child.itertext()).strip() for child in element.iter(_LINK)
        )
        out.append(None if empty_link else "".join(element.itertext()))
    return out


def align_pages(en_xml: str, de_xml: str) -> list[Pair]:
    """Sentence pairs of one page (menu paths and keys as Yelp shows them), or [] when the pages differ."""
    en_blocks, de_blocks = blocks(_with_separators(en_xml)), blocks(_with_separators(de_xml))
    if len(en_blocks) != len(de_blocks):
        return []
    pairs: list[Pair] = []
    for en, de in zip(en_blocks, de_blocks):
        if en is not None and de is not None:
            pairs.extend(align_paragraph(en, de))
    return pairs


def parse_tree(help_root: Path) -> list[Pair]:
    """Pairs of every ``C/<doc>/*.page`` with a ``de/<doc>/*.page`` twin, deduplicated."""
    en_root, de_root = help_root / "C", help_root / "de"
    pairs: dict[Pair, None] = {}
    for en_path in sorted(en_root.rglob("*.page")):
        de_path = de_root / en_path.relative_to(en_root)
        if not de_path.is_file():
            continue
        try:
            page_pairs = align_pages(en_path.read_text(encoding="utf-8"), de_path.read_text(encoding="utf-8"))
        except ET.ParseError:  # a malformed translation only costs that page
            continue
        pairs.update(dict.fromkeys(page_pairs))
    return list(pairs)


# --- Help of other packages (the ``mallard_apps`` documentation source) ---------------------------
#
# Other applications ship their help the same way, under /usr/share/help/{C,de}/<doc>/. Their
# pages hold more code and commands (gnome-devel-docs) and untranslated paragraphs, so their
# blocks go through ``doc_text.sentence_pairs``; a few older packages still ship DocBook
# (``<doc>/*.xml``), read by ``docbook``. Pairs are grouped per page, the unit a held-out split
# takes whole.

# Documents that gnome-user-docs ships: the ``gnome`` source reads them.
GNOME_USER_DOCS = frozenset({"gnome-help", "system-admin-guide"})


def page_block_pairs(en_xml: str, de_xml: str) -> list[Pair]:
    """(en, de) blocks of one page pair, or [] when the two pages differ in block count."""
    en_blocks, de_blocks = blocks(_with_separators(en_xml)), blocks(_with_separators(de_xml))
    if len(en_blocks) != len(de_blocks):
        return []
    return [(en, de) for en, de in zip(en_blocks, de_blocks) if en is not None and de is not None]


def parse_documents(help_root: Path, skip: frozenset[str] = GNOME_USER_DOCS) -> dict[str, list[Pair]]:
    """Pairs per page (``<doc>/<page>``) of every C page with a de twin; each pair kept once.

    Mallard ``.page`` and DocBook ``.xml`` pages alike; docs named in ``skip`` are left out.
    """
    en_root, de_root = help_root / "C", help_root / "de"
    seen: set[Pair] = set()
    documents: dict[str, list[Pair]] = {}
    for en_path in sorted([*en_root.rglob("*.page"), *en_root.rglob("*.xml")]):
        rel = en_path.relative_to(en_root)
        de_path = de_root / rel
        if rel.parts[0] in skip or rel.name == "legal.xml" or not de_path.is_file():
            continue
        en_xml, de_xml = en_path.read_text(encoding="utf-8"), de_path.read_text(encoding="utf-8")
        try:
            if en_path.suffix == ".page":
                block_pairs = page_block_pairs(en_xml, de_xml)
            else:
                block_pairs = html_blocks.align_blocks(docbook.blocks(en_xml), docbook.blocks(de_xml))
        except ET.ParseError:  # a malformed translation only costs that page
            continue
        pairs = [p for p in doc_text.sentence_pairs(block_pairs) if p not in seen]
        seen.update(pairs)
        if pairs:
            documents[rel.as_posix()] = pairs
    return documents
