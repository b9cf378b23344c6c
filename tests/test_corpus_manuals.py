"""The KiCad and GnuCash manual sources (``corpus.manuals``).

The parsers run on ``tests/fixtures/corpus_manuals``: made-up pages in the shape of the real ones
(Asciidoctor HTML for KiCad, chunked DocBook HTML for GnuCash); nothing is downloaded.
"""

from __future__ import annotations

import math
from fnmatch import fnmatch
from pathlib import Path

from corpus import manuals

FIXTURES = Path(__file__).parent / "fixtures" / "corpus_manuals"
KICAD = FIXTURES / manuals.KICAD_HELP
GNUCASH = FIXTURES / manuals.GNUCASH_DOC


# --- KiCad ---------------------------------------------------------------------------------------


def test_kicad_pages_align_block_by_block_and_drop_what_is_not_a_translation():
    documents = manuals.parse_kicad(FIXTURES)
    # pcb_calculator.html has no German twin. Of demo.html: the headings are no sentences, the
    # paragraph left in English, the sentence that lost its icon ("()") and the menu path are
    # dropped; section 3 holds one more paragraph in German, so none of its paragraphs pair.
    assert documents == {
        "kicad/demo.html": [
            ("The demo editor draws schematics.", "Der Demo-Editor zeichnet Schaltpläne."),
            ("It saves them in one file per sheet.", "Er speichert sie in einer Datei pro Blatt."),
            ("Supported images are PNG, JPEG, BMP … and a few more.",
             "Unterstützte Bilder sind PNG, JPEG, BMP … und einige mehr."),
            ("Plot the board to a file.", "Die Platine in eine Datei plotten."),
        ]
    }  # fmt: skip


def test_kicad_block_pairs_leave_out_menu_paths_and_blocks_that_lost_an_icon():
    en = (KICAD / "en/demo.html").read_text(encoding="utf-8")
    de = (KICAD / "de/demo.html").read_text(encoding="utf-8")
    pairs = manuals.kicad_block_pairs(en, de)
    assert ("1. Introduction", "1. Einführung") in pairs  # numbered headings pair even in section 3
    assert ("3. Plotting", "3. Plotten") in pairs
    assert all("→" not in en_text for en_text, _ in pairs)
    assert all("()" not in en_text for en_text, _ in pairs)
    assert not any("Plotting writes" in en_text for en_text, _ in pairs)  # block counts differ there
    assert not any("Table of Contents" in en_text for en_text, _ in pairs)  # the header is not read


def test_kicad_content_starts_at_the_manual_and_drops_zero_width_spaces():
    html = '<div id="header"><li>1. Intro</li></div><div id="content"><p>A … &#8203;b\u200bc</p></div>'
    assert manuals.kicad_content(html) == '<div id="content"><p>A … bc</p></div>'
    assert manuals.kicad_content("<p>no content div</p>") == "<p>no content div</p>"


def test_menu_paths():
    assert manuals.is_menu_path("File → New Project → New Project from Template")
    assert manuals.is_menu_path("Preferences ▸ Configure Paths")
    assert not manuals.is_menu_path("Use File → Plot to write the Gerber files.")
    assert not manuals.is_menu_path("Plot the board to a file.")


# --- GnuCash -------------------------------------------------------------------------------------


def test_gnucash_sections_match_by_id_across_pages_numbers_and_block_counts():
    documents = manuals.parse_gnucash(FIXTURES)
    # The German page is named differently and numbers its sections one higher; the sections
    # still match by id. Section basics-save1 has the same shape in both languages (its English
    # paragraph left untranslated is dropped); basics-save-log has one German paragraph more,
    # which pairs with nothing. Sections in one language only (basics-save-new, basics-files1)
    # give nothing, and the help's "Deposit: …" lost its label in German.
    assert documents == {
        "gnucash-guide/basics-save1.html": [
            ("GnuCash keeps your data in one file.", "GnuCash speichert Ihre Daten in einer Datei."),
            ("You choose its name.", "Sie wählen ihren Namen."),
            ("Each time you save, a backup copy with the extension .gnucash is written.",
             "Bei jedem Speichern wird eine Sicherungskopie mit der Endung .gnucash geschrieben."),
            ("GnuCash writes a log file of every change.", "GnuCash schreibt eine Logdatei jeder Änderung."),
            ("Old log files can be deleted after 30 days.",
             "Alte Logdateien können nach 30 Tagen gelöscht werden."),
            ("Open the log with any text editor.",
             "Öffnen Sie die Logdatei mit einem beliebigen Texteditor."),
        ],
        "gnucash-help/help-reconcile.html": [
            ("The reconcile window compares your account with a bank statement.",
             "Das Abgleichsfenster vergleicht Ihr Konto mit einem Kontoauszug."),
        ],
    }  # fmt: skip


def test_section_blocks_cut_at_headings_with_an_id():
    html = (
        '<div class="navheader"><th>2.5. Saving</th></div>'
        '<h2 class="title"><a name="one"></a>1. One</h2><p>First.</p>'
        '<p class="title"><b>Figure 1.1. A figure</b></p>'
        '<h3 class="title"><a name="two"></a>1.1. Two</h3><p>Second.</p>'
    )
    assert list(manuals.section_blocks(html)) == [
        ("one", [("h2 1", "1. One"), ("p", "First."), ("p", "Figure 1.1. A figure")]),
        ("two", [("h3 1.1", "1.1. Two"), ("p", "Second.")]),
    ]


def test_matched_sections_name_the_english_page():
    sections = manuals.matched_sections(GNUCASH / "gnucash-guide-en", GNUCASH / "gnucash-guide-de", "guide")
    assert [(doc_id, en[0][1], de[0][1]) for doc_id, en, de in sections] == [
        ("guide/basics-save1.html", "2.5. Saving Your Data", "2.6. Ihre Daten speichern"),
        ("guide/basics-save1.html", "2.5.1. The Log File", "2.6.1. Die Logdatei"),
    ]


# --- Aligning sections whose shapes differ -------------------------------------------------------


def test_pair_cost_judges_length_sentences_and_anchors():
    en = "Old log files can be deleted after 30 days."
    assert manuals.pair_cost(en, "Alte Logdateien können nach 30 Tagen gelöscht werden.") < 1
    assert manuals.pair_cost(en, "Alte Logdateien können nach 60 Tagen gelöscht werden.") > 1  # 30 vs 60
    assert manuals.pair_cost(en, "Alte Dateien. Sie können gelöscht werden.") == math.inf  # 1 vs 2 sentences
    assert manuals.pair_cost(en, "Nein.") == math.inf  # far too short
    assert manuals.anchors("Open QIF files with GnuCash 4.13 or myfile.gnucash.") == {
        "QIF", "GnuCash", "4", "13", "myfile.gnucash"
    }  # fmt: skip


def test_a_stretch_between_landmarks_pairs_only_when_both_sides_hold_the_same_blocks():
    en = [("h2 1", "1. Reports"),
          ("p", "A report shows the balances of all your accounts, one line per account."),
          ("p", "Reports can be printed."), ("p", "Version 4.13 added 12 reports."),
          ("p", "Each report has options.")]  # fmt: skip
    de = [("h2 2", "2. Berichte"),
          ("p", "Ein Bericht zeigt die Salden aller Ihrer Konten, eine Zeile pro Konto."),
          ("p", "Ein Absatz ohne Gegenstück. Er steht nur hier."), ("p", "Berichte können gedruckt werden."),
          ("p", "Version 4.13 brachte 12 Berichte."), ("p", "Jeder Bericht hat Optionen.")]  # fmt: skip
    # Landmarks: the headings and the paragraph with 4.13 and 12. Before it, two English
    # paragraphs face three German ones: which pairs belong together is not known, none is made.
    assert manuals.align_blocks_by_content(en, de) == [
        ("1. Reports", "2. Berichte"),
        ("Version 4.13 added 12 reports.", "Version 4.13 brachte 12 Berichte."),
        ("Each report has options.", "Jeder Bericht hat Optionen."),
    ]
    # A lexicon that knows "report"/"Bericht" and "printed"/"gedruckt" makes landmarks of the
    # pairs it backs whose blocks fit their neighbours clearly worse; the extra paragraph stays out.
    lexicon = manuals.learn_lexicon(
        [("The report is ready.", "Der Bericht ist fertig."), ("Print the report.", "Den Bericht drucken."),
         ("Reports can be printed now.", "Berichte können jetzt gedruckt werden."),
         ("The reports are printed.", "Die Berichte werden gedruckt.")]
    )  # fmt: skip
    assert "gedruckt" in lexicon["printed"] and "bericht" in lexicon["report"]
    assert manuals.align_blocks_by_content(en, de, lexicon) == [
        ("1. Reports", "2. Berichte"),
        ("A report shows the balances of all your accounts, one line per account.",
         "Ein Bericht zeigt die Salden aller Ihrer Konten, eine Zeile pro Konto."),
        ("Reports can be printed.", "Berichte können gedruckt werden."),
        ("Version 4.13 added 12 reports.", "Version 4.13 brachte 12 Berichte."),
        ("Each report has options.", "Jeder Bericht hat Optionen."),
    ]  # fmt: skip


def test_code_listings_are_landmarks_without_text():
    en = [("p", "Run the command below to start it."), ("pre", None), ("p", "It prints its version.")]
    de = [("p", "Führen Sie den folgenden Befehl aus."), ("p", "Zusätzlich gibt es einen Hinweis."),
          ("pre", None), ("p", "Es gibt seine Version aus.")]  # fmt: skip
    pairs = manuals.align_blocks_by_content(en, de)
    assert pairs == [("It prints its version.", "Es gibt seine Version aus.")]


def test_lexical_score_counts_known_words_found_in_the_german():
    lexicon = {"report": frozenset({"bericht"}), "account": frozenset({"konto"})}
    assert manuals.lexical_score(lexicon, "The report of the account.", "Der Bericht über das Konto.") == 1.0
    assert manuals.lexical_score(lexicon, "The report of the account.", "Der Bericht über die Bank.") == 0.5
    assert manuals.lexical_score(lexicon, "Nothing known here.", "Nichts bekannt.") == 0.0


def test_sentences_cut_inside_a_parenthesis_are_dropped():
    # A sentence split inside "(e.g. Custom Invoice)" leaves each half with one parenthesis.
    blocks = [
        ("Enter a name (e.g. Bank. Then press OK.", "Geben Sie einen Namen ein (z.B. Bank. Dann OK drücken."),
        ("Plot files (PDF format), for documentation.", "Plot Dateien (PDF Format), für Dokumentation."),
    ]
    assert manuals.whole_sentence_pairs(blocks) == [("Then press OK.", "Dann OK drücken."), blocks[1]]
    assert not manuals.balanced("Custom Invoice) and select the Fancy Template.")


def test_labels_must_appear_on_both_sides():
    assert manuals.same_labels("Deposit: The amount paid in.", "Einzahlung: Der eingezahlte Betrag.")
    assert not manuals.same_labels("Deposit: The amount paid in.", "Der eingezahlte Betrag.")
    assert manuals.same_labels("Click OK.", "Klicken Sie OK.")


# --- The table entries -----------------------------------------------------------------------------


def test_sources_name_their_packages_and_unpack_only_english_and_german_pages():
    kicad, gnucash = manuals.SOURCES
    assert (kicad.name, kicad.packages) == ("kicad_docs", ("kicad-doc-en", "kicad-doc-de"))
    assert (gnucash.name, gnucash.packages) == ("gnucash_docs", ("gnucash-docs",))
    for source in manuals.SOURCES:
        assert (source.domain, source.weight) == ("technical", 1.0)
        assert source.licence and source.members

    def unpacked(source, path: str) -> bool:
        return any(fnmatch(f"./{path}", pattern) for pattern in source.members)

    for path in FIXTURES.rglob("*.html"):
        relative = path.relative_to(FIXTURES).as_posix()
        source = kicad if "kicad" in relative else gnucash
        assert unpacked(source, relative), relative
    assert not unpacked(gnucash, f"{manuals.GNUCASH_DOC}/gnucash-guide-it/index.html")
    assert not unpacked(gnucash, "usr/share/help/C/gnucash-guide/ch_basics.xml")
    assert not unpacked(gnucash, f"{manuals.GNUCASH_DOC}/gnucash-guide-en/figures/main.png")
    assert not unpacked(kicad, f"{manuals.KICAD_HELP}/en/images/icon.png")
