"""DocBook XML pages (help of older GNOME and MATE packages: aisleriot, mate-user-guide …).

The German page is the English one with its text replaced (xml2po/itstool), so both hold the same
elements in the same order. ``blocks`` lists the text blocks in the shape ``html_blocks`` aligns:
titles of sections become headings, paragraphs and table cells become blocks, program listings
keep their place but give no text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from corpus.html_blocks import Block

_SECTIONS = {"chapter", "sect1", "sect2", "sect3", "sect4", "section", "article", "appendix", "refentry"}
_BLOCKS = {"para", "simpara", "title", "term", "entry", "caption"}
_PRE = {"screen", "programlisting", "literallayout", "synopsis"}
# Entities are declared in external DTDs that are never fetched: each becomes a visible marker,
# so a sentence that needed one is dropped as markup, not silently shortened.
_ENTITY = re.compile(r"&([A-Za-z][\w.-]*);")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}


def _defuse_entities(xml: str) -> str:
    xml = re.sub(r"<!DOCTYPE[^\[>]*(\[.*?\])?\s*>", "", xml, count=1, flags=re.S)
    return _ENTITY.sub(lambda m: m.group(0) if m.group(1) in _XML_ENTITIES else "{" + m.group(1) + "}", xml)


# Yelp shows a menu path as "File ▸ Scripts" and a key combination as "Ctrl+H".
_JOINED = {"menuchoice": " \u25b8 ", "keycombo": "+"}


def _name(element: ET.Element) -> str:  # DocBook 5 puts its elements in a namespace
    return element.tag.rpartition("}")[2] if isinstance(element.tag, str) else ""


def _inline(element: ET.Element) -> str:
    """Text of an inline element, with the separators menu paths and key combinations show."""
    separator = _JOINED.get(_name(element))
    if separator is None:
        return "".join([element.text or "", *(_inline(c) + (c.tail or "") for c in element)])
    return separator.join(" ".join(_inline(c).split()) for c in element)


def blocks(xml: str) -> list[Block]:
    """The page's blocks: (h|para|…|pre, text); a block nested in another comes before it."""
    root = ET.fromstring(_defuse_entities(xml))
    out: list[Block] = []

    def walk(element: ET.Element, heading: bool) -> None:
        tag = _name(element)
        if tag in _PRE:
            out.append(("pre", None))
            return
        if tag in _BLOCKS:
            own = [element.text or ""]
            for child in element:
                child_tag = _name(child)
                if child_tag in _BLOCKS or child_tag in _PRE:
                    walk(child, False)
                else:
                    own.append(_inline(child))
                own.append(child.tail or "")
            text = " ".join("".join(own).split())
            # A cross-reference is filled in with its target's title when the page is rendered;
            # here it is empty, and the sentence around it broken.
            if any(_name(e) == "xref" for e in element.iter()):
                out.append((tag, None))
            elif text:
                out.append(("h" if tag == "title" and heading else tag, text))
            return
        for child in element:  # a section's title may sit in its <info>
            walk(child, tag in _SECTIONS or (heading and tag == "info"))

    walk(root, True)
    return out
