"""Two more translated manuals: the KiCad manuals and the GnuCash Guide and Help (HTML, en vs de).

- ``kicad_docs`` (``kicad-doc-en``, ``kicad-doc-de``): one Asciidoctor page per manual (eeschema,
  pcbnew, gerbview, pl_editor, the project manager, getting started), both languages generated
  from the same AsciiDoc source through po4a. The German pages hold the same blocks in the same
  order and fall back to English where a paragraph is not translated (most of KiCad 6's pcbnew
  and eeschema), so ``html_blocks.align_pages`` pairs them as it pairs the GIMP manual and
  ``doc_text.sentence_pairs`` drops what stayed English.
- ``gnucash_docs`` (``gnucash-docs``): the Guide and the Help as chunked DocBook HTML
  (``/usr/share/doc/gnucash-docs/gnucash-{guide,help}-{en,de}/``). The German DocBook is a
  translation kept by hand, years behind the English: chapters are split differently, sections
  are numbered differently, paragraphs were added or dropped on either side. Pages and section
  numbers do not line up, but section ids do (``<h2><a name="basics-backup1">``): sections are
  matched by id, and the blocks of two matched sections by position when their shapes agree,
  else by ``align_blocks_by_content``. A sentence that opens with a label ("Deposit: …") must keep
  it in German (``same_labels``). The HTML is read rather than the DocBook XML beside it
  (``/usr/share/help/{C,de}/``) because in the HTML the entities (``&app;``) and cross-references
  are filled in, which the XML leaves to external DTDs.

Both sources' pairs pass ``doc_text.sentence_pairs`` and keep their parentheses whole
(``whole_sentence_pairs``). Pairs are grouped per page (``kicad/pcbnew.html``; for GnuCash the
English page a section is on, ``gnucash-guide/basics-backup1.html``) and kept once per source
(``unique_documents``).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from corpus import doc_text, html_blocks
from corpus.docs_sources import unique_documents
from corpus.html_blocks import Block
from corpus.source import Documents, Source
from corpus.text import Pair, split_sentences

# --- Block pair costs ----------------------------------------------------------------------------

# German runs ~12% longer than English in characters; a block pair's cost grows with the square of
# how far its log length ratio strays from that, in units of ``_LENGTH_SPREAD``.
_LOG_DE_PER_EN = math.log(1.12)
_LENGTH_SPREAD = 0.2
_LENGTH_SLACK = 20  # characters added to both lengths so short blocks are not judged by a word
_SKIP_COST = 3.0  # leaving one block unpaired
# The most a pair may cost: a length ~1.6 times off the expected one, or anchors that disagree.
MAX_PAIR_COST = 5.0
# Tokens a translator leaves alone: numbers, acronyms, names with inner capitals, file names, code.
_ANCHOR = re.compile(r"\d+|\b[A-Z]{2,}\b|\b[A-Z]?[a-z]+[A-Z]\w*|\b\w+(?:[._:/]+\w+)+")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


@lru_cache(maxsize=1 << 16)  # the alignment asks about every block many times
def anchors(text: str) -> frozenset[str]:
    """Tokens that read the same in English and German: numbers, acronyms, CamelCase, file names."""
    return frozenset(_ANCHOR.findall(text))


@lru_cache(maxsize=1 << 16)
def _sentence_count(text: str) -> int:
    return len(split_sentences(text))


def length_cost(en: str, de: str) -> float:
    """Squared distance of the length ratio from German's usual one, in ``_LENGTH_SPREAD`` units."""
    ratio = math.log((len(de) + _LENGTH_SLACK) / (len(en) + _LENGTH_SLACK)) - _LOG_DE_PER_EN
    return (ratio / _LENGTH_SPREAD) ** 2


def pair_cost(en: str, de: str) -> float:
    """How unlikely it is that ``de`` translates ``en``: 0 for a perfect match; ``math.inf`` when
    the sentence counts differ or the cost passes ``MAX_PAIR_COST``. Length and anchors count."""
    if _sentence_count(en) != _sentence_count(de):
        return math.inf
    cost = length_cost(en, de)
    en_anchors, de_anchors = anchors(en), anchors(de)
    if en_anchors or de_anchors:
        cost += 4 * (1 - len(en_anchors & de_anchors) / len(en_anchors | de_anchors))
    return cost if cost <= MAX_PAIR_COST else math.inf


def _tag(block: Block) -> str:
    return block[0].partition(" ")[0]


def _shape(blocks: list[Block]) -> list[str]:
    return [_tag(b) for b in blocks]


def _match_cost(en: Block, de: Block) -> float:
    if _tag(en) != _tag(de):
        return math.inf
    if en[1] is None or de[1] is None:  # two code listings: a free landmark, no text
        return 0.0 if en[1] is None and de[1] is None else math.inf
    return pair_cost(en[1], de[1])


# --- A word lexicon learnt from the pairs that structure alone aligned ---------------------------

_WORD = re.compile(r"[a-zäöüß]{3,}")
_EN_STOP = frozenset(
    "the and for you your this that with are from can will not which into then than have has been was "
    "were they them their its there when what where also all any each may more such use used using only "
    "other one two".split()
)  # fmt: skip
_DE_STOP = frozenset(
    "der die das und für sie ihr ihre ihren dies diese dieser diesem dass mit sind von kann wird nicht den "
    "dem des ein eine einen einem einer auf aus bei als wie wenn auch zum zur oder nur werden wurde hat "
    "haben ist im in es sich man noch alle jede jeder andere".split()
)  # fmt: skip
LEXICON_MIN_COUNT = 2  # a word pair seen together at least this often
LEXICON_MIN_DICE = 0.3  # 2 * together / (English count + German count)
# A landmark without a shared anchor must have at least this share of its known English words
# translated (per the lexicon) somewhere in the German block.
MIN_LEXICAL_SCORE = 0.3
# ... and be close in length while its neighbours on the other side are clearly worse.
DISTINCT_COST = 1.0
DISTINCT_MARGIN = 2.0

Lexicon = dict[str, frozenset[str]]  # English word -> German words it was seen translated by


def _words(text: str, stop: frozenset[str]) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in stop}


def learn_lexicon(pairs: Iterable[Pair]) -> Lexicon:
    """Word translations from aligned pairs: word pairs whose co-occurrence (Dice) stands out.

    A manual's own vocabulary ("Buchung" for "transaction", "Kontenblatt" for "register") is what
    tells two paragraphs of a section apart; a general dictionary knows little of it.
    """
    en_count: Counter[str] = Counter()
    de_count: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    for en, de in pairs:
        en_words, de_words = _words(en, _EN_STOP), _words(de, _DE_STOP)
        en_count.update(en_words)
        de_count.update(de_words)
        together.update((e, d) for e in en_words for d in de_words)
    lexicon: dict[str, set[str]] = {}
    for (e, d), count in together.items():
        if count >= LEXICON_MIN_COUNT and 2 * count / (en_count[e] + de_count[d]) >= LEXICON_MIN_DICE:
            lexicon.setdefault(e, set()).add(d)
    return {e: frozenset(ds) for e, ds in lexicon.items()}


def lexical_score(lexicon: Lexicon, en: str, de: str) -> float:
    """Share of the English words the lexicon knows whose translation occurs in ``de`` (0 if none)."""
    known = [w for w in _words(en, _EN_STOP) if w in lexicon]
    de_words = _words(de, _DE_STOP)
    return sum(bool(lexicon[w] & de_words) for w in known) / len(known) if known else 0.0


# --- Sentence pairs --------------------------------------------------------------------------------


def balanced(text: str) -> bool:
    """Every parenthesis closed: a sentence split inside "(e.g. Custom Invoice)" leaves halves."""
    return text.count("(") == text.count(")")


def whole_sentence_pairs(blocks: Iterable[Pair]) -> list[Pair]:
    """``doc_text.sentence_pairs`` less the pairs with a side cut inside a parenthesis."""
    return [(en, de) for en, de in doc_text.sentence_pairs(blocks) if balanced(en) and balanced(de)]


# --- Aligning two sections whose block shapes differ ------------------------------------------


def _path(en_blocks: list[Block], de_blocks: list[Block]) -> list[tuple[int, int]]:
    """Index pairs of the minimum-cost alignment (dynamic programming, as Gale and Church align
    sentences): a block pairs with a block of the same tag for ``pair_cost`` or stays alone."""
    n, m = len(en_blocks), len(de_blocks)
    best = [[math.inf] * (m + 1) for _ in range(n + 1)]  # best[i][j]: first i en and j de blocks
    step = [[""] * (m + 1) for _ in range(n + 1)]
    best[0][0] = 0.0
    for i in range(n + 1):
        for j in range(m + 1):
            here = best[i][j]
            if i < n and here + _SKIP_COST < best[i + 1][j]:
                best[i + 1][j], step[i + 1][j] = here + _SKIP_COST, "en"
            if j < m and here + _SKIP_COST < best[i][j + 1]:
                best[i][j + 1], step[i][j + 1] = here + _SKIP_COST, "de"
            if i < n and j < m:
                cost = here + _match_cost(en_blocks[i], de_blocks[j])
                if cost < best[i + 1][j + 1]:
                    best[i + 1][j + 1], step[i + 1][j + 1] = cost, "pair"
    path: list[tuple[int, int]] = []
    i, j = n, m
    while i or j:
        move = step[i][j]
        if move == "pair":
            path.append((i - 1, j - 1))
        i, j = i - (move != "de"), j - (move != "en")
    return path[::-1]


def _own_anchors(blocks: list[Block]) -> list[set[str]]:
    """Per block, the anchors no other block of the list has."""
    sets = [anchors(text or "") for _, text in blocks]
    counts = Counter(a for s in sets for a in s)
    return [{a for a in s if counts[a] == 1} for s in sets]


def _distinct(en_blocks: list[Block], de_blocks: list[Block], i: int, j: int, lexicon: Lexicon) -> bool:
    """A close pair the lexicon supports, whose blocks fit their neighbours clearly worse."""
    cost = _match_cost(en_blocks[i], de_blocks[j])
    en, de = en_blocks[i][1] or "", de_blocks[j][1] or ""
    if cost > DISTINCT_COST or lexical_score(lexicon, en, de) < MIN_LEXICAL_SCORE:
        return False
    rivals = [(i, j - 1), (i, j + 1), (i - 1, j), (i + 1, j)]
    return all(
        _match_cost(en_blocks[a], de_blocks[b]) >= cost + DISTINCT_MARGIN
        for a, b in rivals
        if 0 <= a < len(en_blocks) and 0 <= b < len(de_blocks)
    )


def _similar_length(en: Block, de: Block) -> bool:
    return en[1] is None or de[1] is None or length_cost(en[1], de[1]) <= MAX_PAIR_COST


def align_blocks_by_content(
    en_blocks: list[Block], de_blocks: list[Block], lexicon: Lexicon | None = None
) -> list[Pair]:
    """(en, de) texts of two block lists that differ in shape: a block added, dropped or moved.

    Lengths alone cannot tell two list items or two short paragraphs apart, so only *landmarks*
    are trusted: pairs of the minimum-cost alignment (``_path``) that share an anchor no other
    block of their section has (a number, a file name, an acronym), pairs the ``lexicon`` backs
    that fit nothing next to them (``_distinct``), code listings, and the section headings.
    Between two landmarks the blocks pair one to one when both languages hold the same tags there
    and every pair is of plausible length; a stretch that differs gives nothing.
    """
    en_own, de_own = _own_anchors(en_blocks), _own_anchors(de_blocks)
    landmarks = [
        (i, j)
        for i, j in _path(en_blocks, de_blocks)
        if en_blocks[i][1] is None
        or (i == j == 0 and _tag(en_blocks[i]) in _HEADINGS)
        or en_own[i] & de_own[j]
        or (lexicon is not None and _distinct(en_blocks, de_blocks, i, j, lexicon))
    ]
    pairs: list[tuple[int, int]] = []
    ends = [*landmarks, (len(en_blocks), len(de_blocks))]
    for (i0, j0), (i1, j1) in zip([(-1, -1), *landmarks], ends):
        run = list(zip(range(i0 + 1, i1), range(j0 + 1, j1)))
        same_shape = _shape(en_blocks[i0 + 1 : i1]) == _shape(de_blocks[j0 + 1 : j1])
        if same_shape and all(_similar_length(en_blocks[i], de_blocks[j]) for i, j in run):
            pairs.extend(run)
        if i1 < len(en_blocks):
            pairs.append((i1, j1))
    texts = [(en_blocks[i][1], de_blocks[j][1]) for i, j in pairs]
    return [(en, de) for en, de in texts if en is not None and de is not None]


def align_sections(
    en_blocks: list[Block], de_blocks: list[Block], lexicon: Lexicon | None = None
) -> list[Pair]:
    """Block pairs of one section in both languages: by position when the shapes agree."""
    if _shape(en_blocks) != _shape(de_blocks):
        return align_blocks_by_content(en_blocks, de_blocks, lexicon)
    texts = [(en, de) for (_, en), (_, de) in zip(en_blocks, de_blocks)]
    return [(en, de) for en, de in texts if en is not None and de is not None]


# --- GnuCash: chunked DocBook HTML, sections matched by id ------------------------------------

GNUCASH_DOC = "usr/share/doc/gnucash-docs"
GNUCASH_MANUALS = ("gnucash-guide", "gnucash-help")
# A DocBook section heading carries the section's id as an anchor: <h2 class="title"><a name="ID">.
_SECTION_HEADING = re.compile(r"<h[1-6]\b[^>]*>\s*<a\s+(?:name|id)=\"([^\"]+)\"")

Section = tuple[str, list[Block], list[Block]]  # (document id, English blocks, German blocks)


def section_blocks(html: str) -> Iterator[tuple[str, list[Block]]]:
    """(section id, blocks) of every section that starts on a page, up to the next heading."""
    starts = list(_SECTION_HEADING.finditer(html))
    for here, after in zip(starts, [*starts[1:], None]):
        end = after.start() if after else len(html)
        yield here.group(1), html_blocks.blocks(html[here.start() : end])


def manual_sections(directory: Path) -> dict[str, tuple[str, list[Block]]]:
    """Section id -> (page name, blocks) for every page of a chunked manual."""
    sections: dict[str, tuple[str, list[Block]]] = {}
    for page in sorted(directory.glob("*.html")):
        for section_id, blocks in section_blocks(page.read_text(encoding="utf-8", errors="replace")):
            sections.setdefault(section_id, (page.name, blocks))
    return sections


def matched_sections(en_dir: Path, de_dir: Path, prefix: str) -> list[Section]:
    """The sections with the same id in both languages, with the English page as document id."""
    en, de = manual_sections(en_dir), manual_sections(de_dir)
    return [(f"{prefix}/{page}", blocks, de[sid][1]) for sid, (page, blocks) in en.items() if sid in de]


# "Deposit: Apply this header to …": a label and its description. The older German pages often
# give the label as a term of its own; a German sentence without it misses a part.
_LABEL = re.compile(r"^[^:.!?]{1,40}:\s")


def same_labels(en: str, de: str) -> bool:
    """Both sentences open with a label ("Name: …") or neither does."""
    return bool(_LABEL.match(en)) == bool(_LABEL.match(de))


def _sentence_pairs(blocks: list[Pair]) -> list[Pair]:
    return [(en, de) for en, de in whole_sentence_pairs(blocks) if same_labels(en, de)]


def align_manual(sections: list[Section]) -> Iterator[tuple[str, list[Pair]]]:
    """Sentence pairs per section in two passes: the first, by structure and anchors alone,
    teaches the lexicon that lets the second trust more landmarks (``align_blocks_by_content``)."""
    first = [_sentence_pairs(align_sections(en, de)) for _, en, de in sections]
    lexicon = learn_lexicon(pair for pairs in first for pair in pairs)
    for doc_id, en, de in sections:
        yield doc_id, _sentence_pairs(align_sections(en, de, lexicon))


def parse_gnucash(root: Path) -> Documents:
    """Pairs per English page of the GnuCash Guide and Help."""
    doc = root / GNUCASH_DOC
    sections = [s for m in GNUCASH_MANUALS for s in matched_sections(doc / f"{m}-en", doc / f"{m}-de", m)]
    merged: dict[str, list[Pair]] = {}  # a page holds several sections
    for doc_id, pairs in align_manual(sections):
        merged.setdefault(doc_id, []).extend(pairs)
    return unique_documents(merged.items())


# --- KiCad: one Asciidoctor page per manual, same blocks in both languages ------------------------

KICAD_HELP = "usr/share/doc/kicad/help"
# Asciidoctor writes the title, author and table of contents into <div id="header"> and the
# manual into <div id="content">; the table of contents (class "toc2") is not one html_blocks
# skips, so a page is read from its content on.
_CONTENT = '<div id="content">'
_ZERO_WIDTH = re.compile("&#8203;|\u200b")  # after an ellipsis ("…&#8203;") in Asciidoctor output
# A block that only names a menu path: "File → Plot", "Preferences ▸ Configure Paths".
_MENU_PATH = re.compile(r"^[^.!?]*(?:\s(?:→|▸|->|>)\s[^.!?]*)+$")
# An inline icon, removed with its image, leaves "()" or "( )" behind.
_EMPTY_PARENS = re.compile(r"\(\s*\)")


def kicad_content(html: str) -> str:
    """The manual part of an Asciidoctor page: no header, table of contents or zero-width spaces."""
    start = html.find(_CONTENT)
    return _ZERO_WIDTH.sub("", html[start:] if start >= 0 else html)


def is_menu_path(text: str) -> bool:
    """A block that only names a menu path ("File → New Project → New Project from Template")."""
    return bool(_MENU_PATH.match(text))


def _damaged(text: str) -> bool:
    return is_menu_path(text) or bool(_EMPTY_PARENS.search(text))


def kicad_block_pairs(en_html: str, de_html: str) -> list[Pair]:
    """Block pairs of one KiCad page, less menu paths and blocks that lost an inline icon."""
    pairs = html_blocks.align_pages(kicad_content(en_html), kicad_content(de_html))
    return [(en, de) for en, de in pairs if not (_damaged(en) or _damaged(de))]


def _kicad_pages(root: Path) -> Iterator[tuple[str, list[Pair]]]:
    help_root = root / KICAD_HELP
    for de_path in sorted((help_root / "de").glob("*.html")):
        en_path = help_root / "en" / de_path.name
        if not en_path.is_file():
            continue
        en_html = en_path.read_text(encoding="utf-8", errors="replace")
        de_html = de_path.read_text(encoding="utf-8", errors="replace")
        yield f"kicad/{de_path.name}", whole_sentence_pairs(kicad_block_pairs(en_html, de_html))


def parse_kicad(root: Path) -> Documents:
    """Pairs per KiCad manual present in both languages."""
    return unique_documents(_kicad_pages(root))


SOURCES: list[Source] = [
    Source(
        name="kicad_docs",
        packages=("kicad-doc-en", "kicad-doc-de"),
        licence="GPL-3+ or CC-BY-3.0+",
        description="KiCad 6 manuals (Asciidoctor HTML, en vs de), aligned block by block",
        domain="technical",
        parse=parse_kicad,
        members=(f"./{KICAD_HELP}/en/*.html", f"./{KICAD_HELP}/de/*.html"),
    ),
    Source(
        name="gnucash_docs",
        packages=("gnucash-docs",),
        licence="GFDL-NIV-1.1+",
        description="GnuCash Guide and Help (DocBook HTML, en vs de), sections matched by id",
        domain="technical",
        parse=parse_gnucash,
        members=tuple(f"./{GNUCASH_DOC}/{m}-{lang}/*.html" for m in GNUCASH_MANUALS for lang in ("en", "de")),
    ),
]
