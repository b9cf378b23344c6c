"""The documentation sources: help pages, manuals and man pages that Debian ships in both languages.

Each ``Source.parse`` receives the directory its packages were unpacked into (``usr/share/...``
below it) and returns pairs per document, with stable relative paths as document ids
(``"gimp/filters-artistic.html"``, ``"man1/ls.1"``). Every pair is kept once per source, in the
first document (sorted ids) that has it, so a held-out document never shares a pair with training.

- ``mallard_apps``: help of ~90 GNOME/MATE applications (``mallard``, ``docbook``)
- ``gimp_help``: the GIMP user manual (``html_blocks``)
- ``debian_docs``: the Debian handbook, reference, installation guide, FAQ, maintainers' and Debian
  Edu manuals (``html_blocks``)
- ``manpages``: ``manpages-de`` against the English pages of the packages they translate (``groff``)

All pairs pass ``doc_text.sentence_pairs`` (prose only, translated, same numbers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from corpus import doc_packages, doc_text, groff, groff_prepare, html_blocks, mallard
from corpus.source import Documents, Source
from corpus.text import Pair

# (document id prefix, English directory, German directory, English file pattern, German name of a file)
_Manual = tuple[str, str, str, str, Callable[[str], str]]


def _same(name: str) -> str:
    return name


def _en_to_de(name: str) -> str:
    return name.replace(".en.html", ".de.html")


_DOC = "usr/share/doc"
_INSTALL = f"{_DOC}/installation-guide-amd64"
_EDU = f"{_DOC}/debian-edu-doc"
DEBIAN_MANUALS: tuple[_Manual, ...] = (
    ("handbook", f"{_DOC}/debian-handbook/html/en-US", f"{_DOC}/debian-handbook/html/de-DE", "*.html", _same),
    ("reference", "usr/share/debian-reference", "usr/share/debian-reference", "*.en.html", _en_to_de),
    ("install", f"{_INSTALL}/en", f"{_INSTALL}/de", "*.html", _same),
    ("maint-guide", f"{_DOC}/maint-guide/html", f"{_DOC}/maint-guide-de/html", "*.en.html", _en_to_de),
    ("faq", f"{_DOC}/debian/FAQ", f"{_DOC}/debian/FAQ/de", "*.en.html", _en_to_de),
    # The bullseye manual is mostly the bookworm one again: only the newer is read.
    ("edu", f"{_EDU}-en", f"{_EDU}-de", "debian-edu-bookworm-manual.html", _same),
)
GIMP_MANUAL: _Manual = ("gimp", "usr/share/gimp/2.0/help/en", "usr/share/gimp/2.0/help/de", "*.html", _same)


def unique_documents(documents: Iterable[tuple[str, list[Pair]]]) -> Documents:
    """Documents in id order, each pair kept only in the first document that has it."""
    seen: set[Pair] = set()
    out: Documents = {}
    for doc_id, pairs in sorted(documents):
        kept = [p for p in dict.fromkeys(pairs) if p not in seen]
        seen.update(kept)
        if kept:
            out[doc_id] = kept
    return out


def _manual_pages(root: Path, manual: _Manual) -> Iterable[tuple[str, list[Pair]]]:
    prefix, en_dir, de_dir, pattern, de_name = manual
    for en_path in sorted((root / en_dir).glob(pattern)):
        de_path = root / de_dir / de_name(en_path.name)
        if not de_path.is_file():
            continue
        en_html = en_path.read_text(encoding="utf-8", errors="replace")
        de_html = de_path.read_text(encoding="utf-8", errors="replace")
        yield f"{prefix}/{en_path.name}", doc_text.sentence_pairs(html_blocks.align_pages(en_html, de_html))


def parse_manuals(root: Path, manuals: Iterable[_Manual]) -> Documents:
    """Pairs per page of HTML manuals shipped as English and German twins."""
    return unique_documents(doc for manual in manuals for doc in _manual_pages(root, manual))


def parse_debian_docs(root: Path) -> Documents:
    return parse_manuals(root, DEBIAN_MANUALS)


def parse_gimp(root: Path) -> Documents:
    return parse_manuals(root, (GIMP_MANUAL,))


def parse_mallard_apps(root: Path) -> Documents:
    return mallard.parse_documents(root / "usr/share/help")


def parse_manpages(root: Path) -> Documents:
    """Pairs per man page: each German page under ``man/de/`` against its English twin."""
    man = root / "usr/share/man"

    def pages() -> Iterable[tuple[str, list[Pair]]]:
        for de_path in sorted((man / "de").glob("man*/*")):
            en_path = man / de_path.relative_to(man / "de")
            if not en_path.is_file():
                continue
            en_blocks = groff.blocks(groff_prepare.prepare(groff.read(en_path)))
            de_blocks = groff.blocks(groff_prepare.prepare(groff.read(de_path)))
            doc_id = de_path.relative_to(man / "de").as_posix().removesuffix(".gz")
            yield doc_id, doc_text.sentence_pairs(html_blocks.align_blocks(en_blocks, de_blocks))

    return unique_documents(pages())


DOC_SOURCES: list[Source] = [
    Source(
        name="mallard_apps",
        packages=doc_packages.MALLARD,
        licence="GFDL-1.1+ / CC-BY-SA-3.0 / GPL-2+ (per package)",
        description="Help pages of ~90 GNOME and MATE applications (Mallard and DocBook, C vs de)",
        domain="technical",
        parse=parse_mallard_apps,
        # only what ``parse_mallard_apps`` reads: Mallard pages and DocBook files, not the 33 MB of
        # figures, videos and code samples beside them (tar's ``*`` matches across ``/``)
        members=tuple(f"./usr/share/help/{lang}/*.{ext}" for lang in ("C", "de") for ext in ("page", "xml")),
    ),
    Source(
        name="gimp_help",
        packages=doc_packages.GIMP,
        licence="GFDL-NIV-1.2+",
        description="GIMP user manual (HTML), English and German pages aligned by structure",
        domain="technical",
        parse=parse_gimp,
        members=("./usr/share/gimp/2.0/help/en/*.html", "./usr/share/gimp/2.0/help/de/*.html"),
    ),
    Source(
        name="debian_docs",
        packages=doc_packages.DEBIAN_DOCS,
        licence="GPL-2+ (handbook: GPL-2+ or CC-BY-SA-3.0; FAQ: verbatim copying)",
        description="Debian handbook, reference, installation guide, FAQ, maintainers' guide, Edu manual",
        domain="technical",
        parse=parse_debian_docs,
        members=tuple(sorted({f"./{d}/*.html" for _, en, de, _, _ in DEBIAN_MANUALS for d in (en, de)})),
    ),
    Source(
        name="manpages",
        packages=doc_packages.MAN,
        licence="GPL-3+ (manpages-de); English pages under their packages' licences",
        description="German man pages (manpages-de) aligned with the English pages by macro structure",
        domain="technical",
        parse=parse_manpages,
        members=("./usr/share/man/man[1-8]/*", "./usr/share/man/de/man[1-8]/*"),
    ),
]
