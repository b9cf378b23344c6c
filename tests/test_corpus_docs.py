"""Documentation sources of the corpus: HTML manuals, man pages, Mallard and DocBook help.

Every parser runs on the small unpacked tree in ``tests/fixtures/corpus_docs`` (made-up pages in
the shape of the real ones) or on text built here; nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path

from corpus import doc_packages, doc_text, docbook, docs_sources, groff, html_blocks, mallard

FIXTURES = Path(__file__).parent / "fixtures" / "corpus_docs"
SHARE = FIXTURES / "usr/share"


# --- doc_text ----------------------------------------------------------------------------------


def test_untranslated_german_is_recognised():
    assert doc_text.looks_english("This paragraph was never translated.")
    assert not doc_text.looks_english("Dieser Absatz wurde übersetzt, und das ist gut.")
    assert not doc_text.looks_english("GIMP")  # no function words at all: not judged English


def test_code_options_and_markup_are_technical():
    assert doc_text.looks_technical("Run ./configure --prefix=/usr && make install.")
    assert doc_text.looks_technical("Use <b>bold</b> text here.")
    assert doc_text.looks_technical("-a, --all --almost-all -b")
    assert not doc_text.looks_technical("The file /etc/fstab lists the file systems to mount at boot.")


def test_numbers_must_agree_and_thousands_separators_do_not_matter():
    assert doc_text.same_numbers("It costs 1,000 euros.", "Es kostet 1.000 Euro.")
    assert not doc_text.same_numbers("Wait 5 seconds.", "Warten Sie 6 Sekunden.")


def test_sentence_pairs_split_keep_colons_and_short_uneven_paragraphs():
    blocks = [
        ("Open the menu. Choose a file.", "Öffnen Sie das Menü. Wählen Sie eine Datei."),
        ("GIMP provides three fill types:", "GIMP stellt drei Füllarten zur Verfügung:"),
        ("Click it. It opens.", "Ein Klick darauf öffnet es."),  # 2 vs 1 sentence: kept whole
        ("Wait 5 seconds for the result.", "Warten Sie 6 Sekunden auf das Ergebnis."),
        ("Left in English by the translator.", "Left in English by the translator."),
    ]
    assert doc_text.sentence_pairs(blocks) == [
        ("Open the menu.", "Öffnen Sie das Menü."),
        ("Choose a file.", "Wählen Sie eine Datei."),
        ("GIMP provides three fill types:", "GIMP stellt drei Füllarten zur Verfügung:"),
        ("Click it. It opens.", "Ein Klick darauf öffnet es."),
    ]


# --- html_blocks -------------------------------------------------------------------------------


def test_html_blocks_skip_navigation_keep_pre_in_place_and_read_publican_paragraphs():
    page = html_blocks.blocks((SHARE / "gimp/2.0/help/en/demo.html").read_text())
    assert page[0] == ("h2 1", "1. The demo filter")
    assert page[1] == ("p", "This filter paints the image in bright colours.")
    assert ("pre", None) in page
    assert ("p", "Changes are shown in the preview at once.") in page  # <div class="para">
    assert all("Previous page" not in (text or "") for _, text in page)


def test_html_sections_missing_in_one_language_cost_only_themselves():
    en = [
        ("h2 1", "A"),
        ("p", "one"),
        ("h2 2", "B"),
        ("p", "two"),
        ("h2 3", "C"),
        ("p", "three"),
        ("p", "four"),
    ]
    de = [("h2 1", "A'"), ("p", "eins"), ("h2 2", "B'"), ("p", "zwei"), ("p", "extra"), ("h2 3", "C'"),
          ("p", "drei"), ("p", "vier")]  # fmt: skip
    # Section 2 has an extra paragraph in German: its numbered heading still pairs, its paragraphs
    # do not (which of the two German ones translates "two" is unknown); sections 1 and 3 pair whole.
    assert html_blocks.align_blocks(en, de) == [
        ("A", "A'"), ("one", "eins"), ("B", "B'"), ("C", "C'"), ("three", "drei"), ("four", "vier")
    ]  # fmt: skip


def test_numbered_headings_carry_their_number():
    page = html_blocks.blocks("<h3>6.2.1. Syntax</h3><h3>A. Appendix</h3><h2>Index</h2>")
    assert [kind for kind, _ in page] == ["h3 6.2.1", "h3 A", "h2"]


def test_gimp_manual_fixture_pairs():
    documents = docs_sources.parse_gimp(FIXTURES)
    assert list(documents) == ["gimp/demo.html"]
    assert documents["gimp/demo.html"] == [
        ("This filter paints the image in bright colours.", "Dieser Filter malt das Bild in hellen Farben."),
        ("It works on layers with an alpha channel.", "Er wirkt auf Ebenen mit einem Alphakanal."),
        ("The radius is 10 pixels by default.", "Der Radius beträgt standardmäßig 10 Pixel."),
        ("Changes are shown in the preview at once.", "Änderungen werden sofort in der Vorschau gezeigt."),
    ]


# --- groff -------------------------------------------------------------------------------------


def test_groff_escapes_and_arguments():
    assert groff.unescape(r"\fB\-\-all\fP and \(aqx\(aq \[lq]y\[rq]\&") == "--all and 'x' \u201cy\u201d"
    assert groff.arguments(r'"two words" \fBbold\fR ""') == ["two words", r"\fBbold\fR", ""]


def test_groff_blocks_carry_the_options_of_terms():
    page = groff.blocks((SHARE / "man/man1/demo.1").read_text())
    assert ("h2", "NAME") in page
    assert ("dt -a --all", "-a, --all") in page
    assert ("dd", "Print every greeting it knows.") in page
    assert ("pre", None) in page
    assert page[-1] == ("p", "The demo program was written for the tests of this project.")  # .B: inline


def test_man_pages_align_and_skip_terms_whose_options_differ():
    documents = docs_sources.parse_manpages(FIXTURES)
    assert list(documents) == ["man1/demo.1"]
    # The description differs in one option (--color / --colour): its blocks still pair after the
    # shared term -a, but neither the changed term nor anything after it in the section does.
    assert documents["man1/demo.1"] == [
        ("Print every greeting it knows.", "Jeden Gruß ausgeben, den es kennt."),
        ("The demo program was written for the tests of this project.",
         "Das Programm demo wurde für die Tests dieses Projekts geschrieben."),
    ]  # fmt: skip


# --- Mallard and DocBook help ------------------------------------------------------------------


def test_docbook_blocks_namespaces_entities_and_xrefs():
    xml = (
        '<chapter xmlns="http://docbook.org/ns/docbook"><info><title>Basics</title></info>'
        "<para>Start &app; now.</para><para>See <xref linkend='x'/>.</para>"
        "<screen>ls</screen></chapter>"
    )
    assert docbook.blocks(xml) == [
        ("h", "Basics"),
        ("para", "Start {app} now."),
        ("para", None),
        ("pre", None),
    ]


def test_docbook_menu_paths_and_key_combinations_keep_their_separators():
    xml = (
        "<para>Choose <menuchoice><guimenu>File</guimenu><guimenuitem>Scripts</guimenuitem></menuchoice>"
        " or press <keycombo><keycap>Ctrl</keycap><keycap>S</keycap></keycombo>.</para>"
    )
    assert docbook.blocks(xml) == [("para", "Choose File ▸ Scripts or press Ctrl+S.")]


def test_mallard_documents_skip_gnome_user_docs_and_keep_each_pair_once():
    documents = mallard.parse_documents(SHARE / "help")
    assert sorted(documents) == ["demo/intro.page", "demo/rules.xml"]
    assert documents["demo/intro.page"] == [
        (
            "Open the Demo application from the activities overview.",
            "Öffnen Sie die Anwendung Demo aus der Aktivitäten-Übersicht.",
        ),
        (
            "Your score is saved when you close the window.",
            "Ihr Punktestand wird gespeichert, wenn Sie das Fenster schließen.",
        ),
    ]
    # The score sentence is in both pages: only the first (sorted ids) keeps it; the xref
    # paragraph has no link text and gives nothing.
    assert documents["demo/rules.xml"] == [
        ("Deal seven cards face up to each player.", "Teilen Sie jedem Spieler sieben Karten offen aus."),
        (
            "You win when all cards are on the foundation.",
            "Sie gewinnen, wenn alle Karten auf den Ablagen liegen.",
        ),
    ]


def test_gnome_user_docs_parse_is_unchanged():
    pairs = mallard.parse_tree(SHARE / "help")
    assert ("Open the Demo application from the activities overview.",
            "Öffnen Sie die Anwendung Demo aus der Aktivitäten-Übersicht.") in pairs  # fmt: skip


# --- the source table --------------------------------------------------------------------------


def test_doc_sources_are_named_once_and_never_read_forbidden_packages():
    names = [source.name for source in docs_sources.DOC_SOURCES]
    assert len(names) == len(set(names)) == 4
    packages = {p for source in docs_sources.DOC_SOURCES for p in source.packages}
    assert "wesnoth-1.16-httt" not in packages
    assert not any(p.startswith("dict-freedict") for p in packages)
    assert "gnome-user-docs" not in doc_packages.MALLARD
    for source in docs_sources.DOC_SOURCES:
        assert source.packages and source.licence and source.description


def test_unique_documents_keep_a_pair_in_its_first_document_only():
    docs = docs_sources.unique_documents([("b", [("x", "y"), ("z", "w")]), ("a", [("x", "y"), ("x", "y")])])
    assert docs == {"a": [("x", "y")], "b": [("z", "w")]}


def test_text_left_in_english_with_german_quotes_is_untranslated():
    en, de = (
        "Top layer at 100% opacity using “Addition” mode.",
        "Top layer at 100% opacity using „Addition“ mode.",
    )
    assert doc_text.same_words(en, de)
    assert doc_text.sentence_pairs([(en, de)]) == []


def test_mallard_menu_paths_and_key_combinations_keep_their_separators():
    en = (
        '<page xmlns="http://projectmallard.org/1.0/"><p>Choose <guiseq><gui>View</gui><gui>Zoom</gui>'
        "</guiseq> or press <keyseq><key>Ctrl</key><key>H</key></keyseq> to zoom.</p></page>"
    )
    de = (
        '<page xmlns="http://projectmallard.org/1.0/"><p>Wählen Sie <guiseq><gui>Ansicht</gui><gui>Zoom</gui>'
        "</guiseq> oder drücken Sie <keyseq><key>Strg</key><key>H</key></keyseq> zum Zoomen.</p></page>"
    )
    assert mallard.page_block_pairs(en, de) == [
        (
            "Choose View ▸ Zoom or press Ctrl+H to zoom.",
            "Wählen Sie Ansicht ▸ Zoom oder drücken Sie Strg+H zum Zoomen.",
        )
    ]
