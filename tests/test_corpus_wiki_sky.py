"""The MediaWiki messages and Stellarium descriptions sources, on tiny trees built here."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from corpus import build, mediawiki, skycultures
from corpus.text import clean_pairs

# ---- MediaWiki JSON messages --------------------------------------------------------------------


def _write_json(path: Path, messages: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"@metadata": {"authors": ["Someone"]}, **messages}), encoding="utf-8")


def test_messages_join_on_keys_and_keep_only_translated_ones():
    en = {"a": "The page was saved.", "b": "Your edit was lost.", "c": "Only in English."}
    de = {"b": "Deine Bearbeitung ging verloren.", "a": "Die Seite wurde gespeichert.", "z": "Nur deutsch."}
    assert mediawiki.message_pairs(en, de) == [
        ("The page was saved.", "Die Seite wurde gespeichert."),
        ("Your edit was lost.", "Deine Bearbeitung ging verloren."),
    ]


def test_templates_and_layout_are_dropped_not_stripped():
    en = {
        "param": "The page $1 was deleted.",
        "plural": "{{PLURAL:3|One file|Many files}} were removed.",
        "site": "Welcome to {{SITENAME}}.",
        "ns-link": "See [[Special:Log]] for details.",
        "bare-url": "Read [https://www.mediawiki.org] first.",
        "query": "Please specify <kbd>format=json</kbd> explicitly.",
        "deflist": "What to get:\n;name:The name.",
        "style.css": "/* CSS placed here applies to all skins. */",
    }
    de = {key: "Ein deutscher Satz." for key in en}
    assert mediawiki.message_pairs(en, de) == []


def test_wikitext_becomes_plain_text():
    en = {
        "link": "Read the [[Help:Contents|help pages]] or the [[FAQ]] first.",
        "ext": "Ask on the [https://www.mediawiki.org/wiki/Talk mailing list] for help.",
        "bold": "This action '''cannot''' be ''undone''.",
        "gender": "Would {{GENDER:|you}} like to continue?",
        "entity": "Format of totext-&#x7B;slot}.",
    }
    de = {
        "link": "Lies zuerst die [[Help:Contents|Hilfeseiten]] oder die [[FAQ]].",
        "ext": "Frage auf der [https://www.mediawiki.org/wiki/Talk Mailingliste] nach Hilfe.",
        "bold": "Diese Aktion kann '''nicht''' ''rückgängig'' gemacht werden.",
        "gender": "Möchtest {{GENDER:|du}} fortfahren?",
        "entity": "Format von totext-&#x7B;slot}.",
    }
    assert mediawiki.message_pairs(en, de) == [
        ("Read the help pages or the FAQ first.", "Lies zuerst die Hilfeseiten oder die FAQ."),
        ("Ask on the mailing list for help.", "Frage auf der Mailingliste nach Hilfe."),
        ("This action cannot be undone.", "Diese Aktion kann nicht rückgängig gemacht werden."),
        ("Would you like to continue?", "Möchtest du fortfahren?"),
        ("Format of totext-{slot}.", "Format von totext-{slot}."),  # now visible to the filters
    ]
    counts: dict[str, int] = {}
    assert len(clean_pairs(mediawiki.message_pairs(en, de), counts)) == 4
    assert counts["placeholder"] == 1


def test_lines_pair_one_to_one_when_counts_agree_else_the_message_stays_whole():
    en = {
        "lines": "The filter is disabled.\n* Enable it in the settings.",
        "uneven": "This page is protected.\nOnly administrators can edit it.",
    }
    de = {
        "lines": "Der Filter ist deaktiviert.\n* Aktiviere ihn in den Einstellungen.",
        "uneven": "Diese Seite ist geschützt, nur Administratoren können sie bearbeiten.",
    }
    assert mediawiki.message_pairs(en, de) == [
        ("The filter is disabled.", "Der Filter ist deaktiviert."),
        ("Enable it in the settings.", "Aktiviere ihn in den Einstellungen."),
        ("This page is protected. Only administrators can edit it.",
         "Diese Seite ist geschützt, nur Administratoren können sie bearbeiten."),
    ]  # fmt: skip


def test_mediawiki_parse_one_document_per_i18n_directory(tmp_path):
    base = tmp_path / mediawiki.MEDIAWIKI
    _write_json(base / "languages/i18n/en.json", {"saved": "The page was saved."})
    _write_json(base / "languages/i18n/de.json", {"saved": "Die Seite wurde gespeichert."})
    _write_json(base / "languages/i18n/fr.json", {"saved": "La page a été enregistrée."})
    _write_json(base / "extensions-core/Cite/i18n/api/en.json", {"x": "Returns the references."})
    _write_json(base / "extensions-core/Cite/i18n/api/de.json", {"x": "Gibt die Einzelnachweise zurück."})
    # a second copy of a catalogue (OOUI ships three times) adds nothing
    _write_json(base / "vendor/oojs/i18n/en.json", {"saved": "The page was saved."})
    _write_json(base / "vendor/oojs/i18n/de.json", {"saved": "Die Seite wurde gespeichert."})
    _write_json(base / "skins/Broken/i18n/en.json", {"a": "An English message."})
    (base / "skins/Broken/i18n/de.json").write_text("{ not json", encoding="utf-8")
    assert mediawiki.parse(tmp_path) == {
        "extensions-core/Cite/i18n/api": [("Returns the references.", "Gibt die Einzelnachweise zurück.")],
        "languages/i18n": [("The page was saved.", "Die Seite wurde gespeichert.")],
    }


# ---- Stellarium descriptions --------------------------------------------------------------------

EN_PAGE = """<h1>Anutan</h1>
<p>Anuta is a tiny volcanic island. Stars guide its navigators.</p>
<h2>Names</h2>
<table><tr><td>Te Tino A Manu</td><td>The Bird's Body is the brightest star of the sky.</td></tr></table>
<h2>Author</h2>
<p>This sky culture was written by a careful author.</p>
"""
# The German page starts one heading level lower, as several translated pages do.
DE_PAGE = """<h2>Anutan</h2>
<p>Anuta ist eine kleine Vulkaninsel. Sterne leiten ihre Seefahrer.</p>
<h3>Namen</h3>
<table><tr><td>Te Tino A Manu</td><td>Der Vogelkörper ist der hellste Stern des Himmels.</td></tr></table>
<h3>Autor</h3>
<p>Diese Himmelskultur wurde von einem sorgfältigen Autor geschrieben.</p>
"""


def test_heading_levels_become_ranks_and_paragraphs_align():
    assert skycultures.align_pages(EN_PAGE, DE_PAGE) == [
        ("Anutan", "Anutan"),
        ("Anuta is a tiny volcanic island. Stars guide its navigators.",
         "Anuta ist eine kleine Vulkaninsel. Sterne leiten ihre Seefahrer."),
        ("Names", "Namen"),
        ("Te Tino A Manu", "Te Tino A Manu"),
        ("The Bird's Body is the brightest star of the sky.",
         "Der Vogelkörper ist der hellste Stern des Himmels."),
        ("Author", "Autor"),
        ("This sky culture was written by a careful author.",
         "Diese Himmelskultur wurde von einem sorgfältigen Autor geschrieben."),
    ]  # fmt: skip


def test_merged_subsections_still_pair_their_paragraphs():
    en = "<h1>Greek</h1><h2>How it was made</h2><h3>Star names</h3><h3>Lines</h3><p>First.</p><p>Second.</p>"
    de = "<h1>Griechisch</h1><h2>Wie sie entstand</h2><p>Erstens.</p><p>Zweitens.</p>"
    pairs = skycultures.align_pages(en, de)
    assert ("First.", "Erstens.") in pairs and ("Second.", "Zweitens.") in pairs


def test_a_section_with_a_paragraph_missing_gives_nothing():
    en = "<h1>Egyptian</h1><p>One.</p><p>Two.</p><p>Three.</p><h2>Author</h2><p>By Karrie.</p>"
    de = "<h1>Ägyptisch</h1><p>Eins.</p><p>Drei.</p><h2>Autor</h2><p>Von Karrie.</p>"
    assert skycultures.align_pages(en, de) == [("Author", "Autor"), ("By Karrie.", "Von Karrie.")]


def test_line_breaks_cut_cells_into_lines_that_pair_only_when_counts_agree():
    en = (
        "<table><tr><td>Orion<br/><i>mirrored</i><br />The Hare was removed from this picture.</td>"
        "<td>Cancer<br/>The crab was lightened.</td><td><br/></td></tr></table>"
    )
    de = (
        "<table><tr><td>Orion<br/><i>gespiegelt</i><br />Der Hase wurde aus diesem Bild entfernt.</td>"
        "<td>Krebs: Der Krebs wurde aufgehellt.</td><td><br/></td></tr></table>"
    )
    assert skycultures.align_pages(en, de) == [
        ("Orion", "Orion"),
        ("mirrored", "gespiegelt"),
        ("The Hare was removed from this picture.", "Der Hase wurde aus diesem Bild entfernt."),
    ]  # the second cell has two lines in English, one in German; the empty cell is no block


def test_fragments_of_bad_splits_foreign_scripts_and_summaries_are_not_kept():
    assert skycultures.keep(("The star is bright (see the table).", "Der Stern ist hell (siehe Tabelle)."))
    assert skycultures.keep(
        ("Source is the Ḥayel region near α Ori.", "Ursprung ist die Region Ḥayel bei α Ori.")
    )
    assert not skycultures.keep(("Blume, Jena, for planetariums).", "Blume, Jena, für Planetarien)."))
    assert not skycultures.keep(("It was taken (provided by Prof.", "Es wurde übernommen (von Prof."))
    assert not skycultures.keep(
        ("Proverbs, Riyadh, 2007. الأمثال الشعبية.", "Sprichwörter, Riad, 2007. الأمثال.")
    )
    summary = (
        "The authors thank Georg Zotti for English proofreading and interesting discussions.",
        "Die Autorinnen danken Georg Zotti für interessante Diskussionen.",
    )
    assert not skycultures.keep(summary)


def _write_description(root: Path, rel: str, lang: str, html: str) -> None:
    path = root / skycultures.STELLARIUM / rel / f"description.{lang}.utf8"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")


def test_skycultures_parse_keeps_translated_prose_of_paired_pages(tmp_path):
    _write_description(tmp_path, "skycultures/anutan", "en", EN_PAGE)
    _write_description(tmp_path, "skycultures/anutan", "de", DE_PAGE)
    _write_description(tmp_path, "skycultures/zulu", "en", EN_PAGE)  # no German page
    # a German page left in English gives nothing
    untranslated = "<p>The landscape of the Moon is grey.</p>"
    _write_description(tmp_path, "landscapes/moon", "en", "<h2>Moon</h2>" + untranslated)
    _write_description(tmp_path, "landscapes/moon", "de", "<h2>Mond</h2>" + untranslated)
    docs = skycultures.parse(tmp_path)
    assert list(docs) == ["skycultures/anutan"]
    assert docs["skycultures/anutan"] == [
        ("Anuta is a tiny volcanic island.", "Anuta ist eine kleine Vulkaninsel."),
        ("Stars guide its navigators.", "Sterne leiten ihre Seefahrer."),
        ("The Bird's Body is the brightest star of the sky.",
         "Der Vogelkörper ist der hellste Stern des Himmels."),
        ("This sky culture was written by a careful author.",
         "Diese Himmelskultur wurde von einem sorgfältigen Autor geschrieben."),
    ]  # fmt: skip


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_members_unpack_only_the_english_and_german_texts(tmp_path):
    """Each Source's tar patterns, applied by ``build.unpack`` to a package built here."""
    pkg = tmp_path / "pkg"
    files = (
        "usr/share/mediawiki/languages/i18n/en.json", "usr/share/mediawiki/languages/i18n/de.json",
        "usr/share/mediawiki/languages/i18n/fr.json", "usr/share/mediawiki/includes/api/i18n/de.json",
        "usr/share/mediawiki/extensions-core/Cite/i18n/api/en.json", "usr/share/mediawiki/includes/Setup.php",
        "usr/share/stellarium/skycultures/inuit/description.de.utf8",
        "usr/share/stellarium/skycultures/inuit/description.fr.utf8",
        "usr/share/stellarium/landscapes/moon/description.en.utf8",
        "usr/share/stellarium/landscapes/moon/landscape.ini",
        "usr/share/stellarium/translations/stellarium/de.qm",
    )  # fmt: skip
    for rel in files:
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("{}", encoding="utf-8")
    (pkg / "DEBIAN").mkdir()
    (pkg / "DEBIAN/control").write_text(
        "Package: fixture\nVersion: 1\nArchitecture: all\nMaintainer: x <x@example.org>\nDescription: x\n"
    )
    deb = tmp_path / "fixture_1_all.deb"
    subprocess.run(["dpkg-deb", "-Zgzip", "-b", str(pkg), str(deb)], check=True, capture_output=True)
    unpacked = {}
    for module in (mediawiki, skycultures):
        (source,) = module.SOURCES
        out = tmp_path / source.name
        build.unpack(deb, out, source.members)
        unpacked[source.name] = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert unpacked == {
        "mediawiki": [
            "usr/share/mediawiki/extensions-core/Cite/i18n/api/en.json",
            "usr/share/mediawiki/includes/api/i18n/de.json",
            "usr/share/mediawiki/languages/i18n/de.json",
            "usr/share/mediawiki/languages/i18n/en.json",
        ],
        "skycultures": [
            "usr/share/stellarium/landscapes/moon/description.en.utf8",
            "usr/share/stellarium/skycultures/inuit/description.de.utf8",
        ],
    }
