"""KDE handbooks (``kde_docs``): kdoctools caches read, split into pages and sections, aligned.

The fixtures are a made-up handbook "demo" in the shape of a real ``index.cache.bz2`` (pages
wrapped in ``<FILENAME>``, header, navigation bars and footer around ``contentBody``), kept as
readable HTML in ``tests/fixtures/corpus_kde_docs`` and compressed into a tree here; nothing is
downloaded.
"""

from __future__ import annotations

import bz2
from fnmatch import fnmatch
from pathlib import Path

import pytest

from corpus import kde_docs

FIXTURES = Path(__file__).parent / "fixtures" / "corpus_kde_docs"
EN = (FIXTURES / "en.cache.html").read_text(encoding="utf-8")
DE = (FIXTURES / "de.cache.html").read_text(encoding="utf-8")


def _write_cache(root: Path, lang: str, app: str, html: str, encoding: str = "utf-8") -> Path:
    path = root / kde_docs.HTML_ROOT / lang / app / kde_docs.CACHE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bz2.compress(html.encode(encoding)))
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """An unpacked tree: "demo" in both languages, "lonely" in English only."""
    _write_cache(tmp_path, "en", "demo", EN)
    _write_cache(tmp_path, "de", "demo", DE)
    _write_cache(tmp_path, "en", "lonely", EN)
    return tmp_path


def test_a_handbook_pairs_section_by_section_and_drops_what_is_not_a_translation(tree: Path):
    # usage.html: the paragraph left in English, the menu entry "File → Open...", the shortcut
    # table's cells, the sentence ending in "e.g." before its code listing and the credits (one
    # German paragraph more: the translator) give nothing. "Saving" has a generated id that
    # differs between the languages and still pairs, by its place after "menus"; "A Typical Game"
    # pairs although its heading reads as numbered "A". After "tips" German has two generated
    # sections to the English one, so only "tips" itself pairs. whatsnew.html is English only,
    # and "lonely" has no German handbook.
    assert kde_docs.parse(tree) == {
        "demo/index.html": [
            ("Demo is a small program that shows how handbooks are read.",
             "Demo ist ein kleines Programm, das zeigt, wie Handbücher gelesen werden."),
        ],
        "demo/usage.html": [
            ("Start Demo from the application launcher.", "Starten Sie Demo aus dem Anwendungsstarter."),
            ("The main window opens at once.", "Das Hauptfenster öffnet sich sofort."),
            ("Opens an existing file.", "Öffnet eine vorhandene Datei."),
            ("Save your work often.", "Speichern Sie Ihre Arbeit oft."),
            ("Every game lasts ten minutes.", "Jedes Spiel dauert zehn Minuten."),
            ("Keep the main window small.", "Halten Sie das Hauptfenster klein."),
        ],
    }  # fmt: skip


def test_handbooks_need_a_cache_in_both_languages(tree: Path):
    _write_cache(tree, "en", "kcontrol5/fonts", EN)
    _write_cache(tree, "de", "kcontrol5/fonts", DE)
    assert list(kde_docs.handbooks(tree)) == ["demo", "kcontrol5/fonts"]


def test_cache_is_decoded_by_the_charset_it_declares(tmp_path: Path):
    latin = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>Größe</p>'
    assert "<p>Größe</p>" in kde_docs.read_cache(_write_cache(tmp_path, "de", "a", latin, "iso-8859-1"))
    undeclared = "<p>Größe</p>"  # the glossary declares none: UTF-8
    assert kde_docs.read_cache(_write_cache(tmp_path, "de", "b", undeclared)) == undeclared
    unknown = '<meta http-equiv="Content-Type" content="text/html; charset=x-nonesuch"><p>Größe</p>'
    assert kde_docs.read_cache(_write_cache(tmp_path, "de", "c", unknown)) == unknown


def test_pages_are_cut_to_the_handbook_text():
    pages = kde_docs.pages(EN)
    assert list(pages) == ["index.html", "usage.html", "whatsnew.html"]
    usage = pages["usage.html"]
    assert usage.startswith('<div id="contentBody">')
    assert "Would you like to make a comment" not in usage  # the footer
    assert "navigation" not in usage  # the navigation bars above and below


def test_generated_sections_follow_the_named_one_before_them():
    sections = [(name, [("h2", name)]) for name in ("idm5", "intro", "idm7", "idm9", "usage")]
    assert {key: [name for name, _ in run] for key, run in kde_docs.runs(sections).items()} == {
        "": ["idm5"],
        "intro": ["intro", "idm7", "idm9"],
        "usage": ["usage"],
    }


def test_sections_of_a_different_shape_do_not_pair():
    en = '<h2><a name="s"></a>S</h2><p>One.</p><p>Two.</p>'
    de = '<h2><a name="s"></a>S</h2><p>Eins.</p><p>Zusatz.</p><p>Zwei.</p>'
    assert list(kde_docs.matched_sections(en, de)) == []
    assert list(kde_docs.matched_sections(en, de.replace("<p>Zusatz.</p>", ""))) == [
        ([("h2", "S"), ("p", "One."), ("p", "Two.")], [("h2", "S"), ("p", "Eins."), ("p", "Zwei.")])
    ]


def test_menu_entries_with_ellipsis_or_shortcut():
    assert kde_docs.is_menu_entry("Settings → Configure KCalc...")
    assert kde_docs.is_menu_entry("Game → Pause (P)")
    assert kde_docs.is_menu_entry("Datei → Öffnen … (Strg+O)")
    assert kde_docs.is_menu_entry("Help → What's This?")
    assert kde_docs.is_menu_entry("Open Feed → New Folder....")
    assert not kde_docs.is_menu_entry("Choose File → Open to load a file.")
    assert not kde_docs.is_menu_entry("Opens an existing file.")


def test_sentences_ending_before_their_example_are_incomplete():
    assert not kde_docs.complete("Start it with an option, e.g.")
    assert not kde_docs.complete("Starten Sie es mit einer Option, z. B.")
    assert kde_docs.complete("Keep the main window small.")


def test_source_unpacks_only_english_and_german_caches():
    (source,) = kde_docs.SOURCES
    assert (source.name, source.domain, source.weight) == ("kde_docs", "technical", 1.0)
    assert len(source.packages) == len(set(source.packages)) == 158
    assert not {"ktuberling-data", "klettres-data", "marble-data", "minuet-data", "kalzium-data"} & set(
        source.packages
    )

    def unpacked(path: str) -> bool:
        return any(fnmatch(f"./{path}", pattern) for pattern in source.members)

    html = kde_docs.HTML_ROOT
    assert unpacked(f"{html}/en/kate/{kde_docs.CACHE}")
    assert unpacked(f"{html}/de/kcontrol5/fonts/{kde_docs.CACHE}")
    assert not unpacked(f"{html}/fr/kate/{kde_docs.CACHE}")
    assert not unpacked(f"{html}/en/kate/index.docbook")
    assert not unpacked(f"{html}/de/kate/screenshot.png")
