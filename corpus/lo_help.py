"""LibreOffice help pages (``libreoffice-help-en-us`` + ``libreoffice-help-de``, MPL-2.0).

Both packages ship the same HTML paths under ``/usr/share/libreoffice/help/{en-US,de}``, and every
paragraph or heading carries the same ``id="par_id…"``/``"hd_id…"`` in both languages, so pairs come
from matching ids. Platform and module variants (``<span hidden="true" class="MAC">``) are hidden
alternatives of the default text; they are dropped, or "Command Ctrl" artefacts would appear.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from corpus.text import Pair, align_paragraph

_BLOCK_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6"}
_PARAGRAPH_ID = re.compile(r"^(par|hd)_id")


class _ParagraphParser(HTMLParser):
    """Collects the visible text of every id-carrying paragraph, keyed by (id, occurrence)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.paragraphs: dict[tuple[str, int], str] = {}
        self._seen: dict[str, int] = {}
        self._key: tuple[str, int] | None = None
        self._tag = ""
        self._tag_depth = 0  # nesting of the paragraph's own tag name
        self._hidden_depth = 0  # > 0 while inside a hidden variant span
        self._parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if self._key is None:
            pid = attr.get("id") or ""
            if tag in _BLOCK_TAGS and _PARAGRAPH_ID.match(pid):
                # The same id can repeat inside one page (embedded snippets); number them.
                n = self._seen.get(pid, 0)
                self._seen[pid] = n + 1
                self._key, self._tag, self._tag_depth, self._parts = (pid, n), tag, 1, []
            return
        if tag == self._tag:
            self._tag_depth += 1
        if tag == "span" and (self._hidden_depth or ("hidden" in attr and attr.get("class"))):
            # A hidden span with a class is a variant (MAC, WIN, CALC …); the class-less
            # hidden span beside it is the default text and stays.
            self._hidden_depth += 1
        elif tag == "br":
            self._parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._key is None:
            return
        if tag == "span" and self._hidden_depth:
            self._hidden_depth -= 1
        elif tag == self._tag:
            self._tag_depth -= 1
            if self._tag_depth == 0:
                self.paragraphs[self._key] = "".join(self._parts)
                self._key = None

    def handle_data(self, data: str) -> None:
        if self._key is not None and not self._hidden_depth:
            self._parts.append(data)


def paragraphs(html: str) -> dict[tuple[str, int], str]:
    """Visible text of each ``par_id``/``hd_id`` paragraph of one help page."""
    parser = _ParagraphParser()
    parser.feed(html)
    parser.close()
    return parser.paragraphs


def align_pages(en_html: str, de_html: str) -> list[Pair]:
    """Sentence pairs of one page in both languages, in English document order."""
    en_pars, de_pars = paragraphs(en_html), paragraphs(de_html)
    pairs: list[Pair] = []
    for key, en in en_pars.items():
        if key in de_pars:
            pairs.extend(align_paragraph(en, de_pars[key]))
    return pairs


def parse_tree(help_root: Path) -> list[Pair]:
    """All pairs under ``help_root`` (holding ``en-US/`` and ``de/``), deduplicated, sorted paths."""
    en_root, de_root = help_root / "en-US", help_root / "de"
    pairs: dict[Pair, None] = {}
    for en_path in sorted(en_root.rglob("*.html")):
        de_path = de_root / en_path.relative_to(en_root)
        if not de_path.is_file():
            continue
        en_html = en_path.read_text(encoding="utf-8")
        de_html = de_path.read_text(encoding="utf-8")
        pairs.update(dict.fromkeys(align_pages(en_html, de_html)))
    return list(pairs)
