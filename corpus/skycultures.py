"""Stellarium's sky-culture, landscape and 3D-scenery descriptions (``stellarium-data``, GPL-2+).

Beside its ``.qm`` catalogues (the ``stellarium`` source), Stellarium ships one HTML page per sky
culture (``skycultures/NAME/description.LANG.utf8``: ethnographic prose on how a people saw the
sky, its star names and sources), per landscape and per 3D scenery. The German page is a
translation of the English one made with the same markup, and ``html_blocks`` cuts both into
blocks (paragraphs, list items, table cells, headings). Translators restructured some pages,
though, so ``align_pages`` first makes the headings comparable and then pairs sections:

- heading levels become ranks within the page (a German page may start at ``<h2>`` where the
  English starts at ``<h1>``), and the section numbers ``html_blocks`` reads from headings are
  dropped (a German "28 Stationen" for "Twenty-Eight Mansions" is no number);
- sections are matched by shape (heading rank and block kinds) with ``difflib``, and block n of a
  matched section translates block n of its twin;
- where a stretch of sections differs (two English subsections folded into one German section),
  its body blocks still pair one to one when both sides hold the same sequence of block kinds;
  otherwise the stretch gives nothing (a paragraph added or dropped: which one is unknown).

A line break (``<br>``) cuts a block into lines that pair one to one (a table cell holds a figure's
name, a caption and a note on separate lines); a block whose two sides have different numbers of
lines gives nothing. Many German pages are partly untranslated (whole paragraphs left in English)
and the tables hold star names: ``doc_text.sentence_pairs`` keeps only translated prose with the
same numbers, and ``keep`` drops fragments of sentences split at an abbreviation ("Prof. D.
Blume"), references quoting Arabic titles and German sentences that only summarise the English.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from pathlib import Path

from corpus import doc_text, html_blocks
from corpus.source import Documents, Source
from corpus.text import Pair

STELLARIUM = "usr/share/stellarium"
# Kinds of page that come with a description in several languages (directories under STELLARIUM)
KINDS = ("skycultures", "landscapes", "scenery3d")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# A line break inside a table cell separates captions ("Orion<br/>mirrored depiction<br/>The Hare
# ..."): it is kept through ``html_blocks`` (which would make it a space) as a private-use mark.
_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_BREAK_MARK = "\ue000"
# Letters of the scripts an English-German pair may hold: Latin (with transliteration marks such
# as ``Ḥ`` and ``ʿ``) and Greek (Bayer letters, ``α CMi``). Arabic titles of references are not.
_SCRIPTS = ("LATIN", "GREEK", "MODIFIER LETTER")
# German runs ~15 % longer than English. On these hand-translated pages a German sentence shorter
# than this share of its English one is a summary: of the 9 such pairs in the 0.22.2 pages, 6 drop
# a clause ("... for English proofreading and interesting discussions" -> "für interessante
# Diskussionen"). ``text.clean_pairs`` allows 0.7, set for all sources.
MIN_DE_SHARE = 0.84


def comparable(page: list[html_blocks.Block]) -> list[html_blocks.Block]:
    """Blocks with heading levels as ranks within the page and without heading numbers."""
    levels = sorted({kind.partition(" ")[0] for kind, _ in page} & _HEADINGS)
    rank = {level: f"h{i}" for i, level in enumerate(levels, 1)}
    out: list[html_blocks.Block] = []
    for kind, text in page:
        tag = kind.partition(" ")[0]
        out.append((rank.get(tag, tag), text))
    return out


def _body(blocks: list[html_blocks.Block]) -> list[html_blocks.Block]:
    return [block for block in blocks if block[0] not in _HEADINGS]


def _kinds(blocks: list[html_blocks.Block]) -> tuple[str, ...]:
    return tuple(kind for kind, _ in blocks)


def sections(page: list[html_blocks.Block]) -> list[list[html_blocks.Block]]:
    """Cut a page at its headings; consecutive headings open one section (a chapter heading with
    no text of its own stays with its first subsection, so merging subsections keeps the shape)."""
    out: list[list[html_blocks.Block]] = [[]]
    for block in page:
        if block[0] in _HEADINGS and _body(out[-1]):
            out.append([])
        out[-1].append(block)
    return [section for section in out if section]


def align_blocks(en_page: list[html_blocks.Block], de_page: list[html_blocks.Block]) -> list[Pair]:
    """(en, de) texts of the blocks of matching sections and of restructured stretches.

    Sections (``sections``) are matched by shape as in ``html_blocks.align_blocks``. Where a
    stretch of sections differs, its body blocks still pair one to one when both sides hold the
    same sequence of block kinds: the translator moved or merged headings, not paragraphs.
    """
    en_secs, de_secs = sections(en_page), sections(de_page)
    shapes = SequenceMatcher(None, [_kinds(s) for s in en_secs], [_kinds(s) for s in de_secs], autojunk=False)
    pairs: list[tuple[html_blocks.Block, html_blocks.Block]] = []
    for op, i1, i2, j1, j2 in shapes.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                pairs.extend(zip(en_secs[i1 + k], de_secs[j1 + k]))
        elif op == "replace":
            en_body = _body([b for s in en_secs[i1:i2] for b in s])
            de_body = _body([b for s in de_secs[j1:j2] for b in s])
            if _kinds(en_body) == _kinds(de_body):
                pairs.extend(zip(en_body, de_body))
    return [(en[1], de[1]) for en, de in pairs if en[1] is not None and de[1] is not None]


def _page(html: str) -> list[html_blocks.Block]:
    """Comparable blocks of a page, line breaks marked; a block of nothing but breaks is empty."""
    page = html_blocks.blocks(_BREAK.sub(_BREAK_MARK, html))
    return comparable([(k, t) for k, t in page if t is None or t.replace(_BREAK_MARK, " ").strip()])


def _lines(en: str, de: str) -> list[Pair]:
    """A block pair cut at its line breaks: line n with line n when both have as many, else nothing."""
    en_lines = [line.strip() for line in en.split(_BREAK_MARK) if line.strip()]
    de_lines = [line.strip() for line in de.split(_BREAK_MARK) if line.strip()]
    return list(zip(en_lines, de_lines)) if len(en_lines) == len(de_lines) else []


def align_pages(en_html: str, de_html: str) -> list[Pair]:
    """(en, de) block texts of one description in both languages (see the module docstring)."""
    return [line for en, de in align_blocks(_page(en_html), _page(de_html)) for line in _lines(en, de)]


def _balanced(text: str) -> bool:
    """Parentheses close in the sentence that opens them (else it is a fragment of a bad split)."""
    depth = 0
    for char in text:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def _latin_or_greek(text: str) -> bool:
    return all(unicodedata.name(c, "").startswith(_SCRIPTS) for c in text if c.isalpha())


def keep(pair: Pair) -> bool:
    """Whether a sentence pair is whole (``_balanced``), in the two languages' scripts and not a
    German summary of the English (``MIN_DE_SHARE``)."""
    en, de = pair
    return len(de) >= MIN_DE_SHARE * len(en) and all(_balanced(s) and _latin_or_greek(s) for s in pair)


def parse(root: Path) -> Documents:
    """One document per described thing (``skycultures/anutan``): its translated sentence pairs."""
    docs: Documents = {}
    base = root / STELLARIUM
    for kind in KINDS:
        for en_path in sorted((base / kind).glob("*/description.en.utf8")):
            de_path = en_path.with_name("description.de.utf8")
            if not de_path.is_file():
                continue
            en_html = en_path.read_text(encoding="utf-8", errors="replace")
            de_html = de_path.read_text(encoding="utf-8", errors="replace")
            sentences = doc_text.sentence_pairs(align_pages(en_html, de_html))
            pairs = [pair for pair in dict.fromkeys(sentences) if keep(pair)]
            if pairs:
                docs[en_path.parent.relative_to(base).as_posix()] = pairs
    return docs


SOURCES: list[Source] = [
    Source(
        name="skycultures",
        packages=("stellarium-data",),
        licence="GPL-2+",
        description="Stellarium sky-culture, landscape and scenery descriptions (HTML, en vs de pages)",
        domain="astronomy",
        parse=parse,
        weight=1.0,
        members=tuple(
            f"./{STELLARIUM}/{kind}/*/description.{lang}.utf8" for kind in KINDS for lang in ("en", "de")
        ),
    ),
]
