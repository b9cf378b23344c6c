"""Format readers of the Debian corpus sources, each on a small fixture built here."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from corpus import build, ddtp, dep11, games, mallard, mo, qm, table
from corpus.text import clean_pairs

# ---- Qt .qm ------------------------------------------------------------------------------------


def test_qm_round_trip_keeps_context_and_unicode():
    catalog = {
        ("Board", "Click on the red ball."): "Klicke auf den roten Ball.",
        ("Menu", "Quit"): "Beenden",
        ("Sky", "The Moon is bright tonight."): "Der Mond ist heute Nacht hell – schön.",
    }
    assert qm.read_qm(qm.write_qm(catalog)) == catalog


def test_qm_skips_untranslated_entries_and_stops_at_unknown_tags():
    def field(tag: int, raw: bytes | None) -> bytes:
        return bytes([tag]) + (
            struct.pack(">I", 0xFFFFFFFF) if raw is None else struct.pack(">I", len(raw)) + raw
        )

    untranslated = field(3, None) + field(6, b"Left in English.") + b"\x01"
    good = field(3, "Gut.".encode("utf-16-be")) + field(6, b"Good.") + b"\x01"
    broken = b"\x7f" + b"garbage"
    body = untranslated + good + broken
    data = qm.MAGIC + b"\x69" + struct.pack(">I", len(body)) + body
    assert qm.read_qm(data) == {("", "Good."): "Gut."}
    with pytest.raises(ValueError):
        qm.read_qm(b"not a qm file at all")


def test_qm_documents_one_per_file(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a/app_de.qm").write_bytes(qm.write_qm({("c", "Open the door now."): "Öffne jetzt die Tür."}))
    (tmp_path / "a/app_fr.qm").write_bytes(qm.write_qm({("c", "Open the door now."): "Ouvre la porte."}))
    assert qm.documents(tmp_path, "**/*de.qm") == {
        "a/app_de.qm": [("Open the door now.", "Öffne jetzt die Tür.")]
    }


# ---- gettext .mo (raw pairs for the filters) ----------------------------------------------------


def test_mo_raw_pairs_drop_header_plurals_and_contexts():
    catalog = {
        "": "Content-Type: text/plain; charset=UTF-8\n",
        "menu\x04Save the file before closing.": "Speichern Sie die Datei vor dem Schließen.",
        "%d file\x00%d files": "%d Datei\x00%d Dateien",
        "Untranslated entry.": "",
        "Quit": "Beenden",
    }
    pairs = mo.raw_pairs(mo.read_mo(mo.write_mo(catalog)))
    assert pairs == [
        ("Quit", "Beenden"),
        ("Save the file before closing.", "Speichern Sie die Datei vor dem Schließen."),
    ]
    assert mo.raw_pairs(catalog, min_words=2) == [pairs[1]]


def _write_catalog(path: Path, catalog: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(mo.write_mo(catalog))


def test_wesnoth_and_freeciv_prefixes_are_removed(tmp_path):
    locale = tmp_path / "usr/share/games/wesnoth/1.16/locale/de/LC_MESSAGES"
    _write_catalog(locale / "wesnoth-tsg.mo", {"female^You shall not pass!": "Ihr kommt hier nicht vorbei!"})
    _write_catalog(locale.parent.parent.parent / "fr/LC_MESSAGES/wesnoth-tsg.mo", {"Hello there.": "Salut."})
    assert games.wesnoth(tmp_path) == {
        "wesnoth-tsg": [("You shall not pass!", "Ihr kommt hier nicht vorbei!")]
    }
    civ = tmp_path / "civ/usr/share/locale/de/LC_MESSAGES/freeciv-nations.mo"
    _write_catalog(civ, {"?plural:The Romans built roads.": "?plural:Die Römer bauten Straßen."})
    assert games.freeciv(tmp_path / "civ") == {
        "freeciv-nations": [("The Romans built roads.", "Die Römer bauten Straßen.")]
    }


def test_wesnoth_help_markup_keeps_the_shown_text_and_drops_heading_lines(tmp_path):
    inline = "Units have two <ref>dst='..traits' text='traits'</ref>, some are <bold>text=quick</bold>."
    assert games.wesnoth_help_text(inline) == "Units have two traits, some are quick."
    # A line of markup only (a heading, a list of links) goes: it would run into the next sentence.
    assert games.wesnoth_help_text("<header>text='Traits'</header>\n\nUnits learn.") == "\n\nUnits learn."
    # Images keep their markup: the placeholder filter drops them with their paragraph.
    image = "<img>src=units/elf.png align=here</img> Elves live here."
    assert games.wesnoth_help_text(image) == image
    locale = tmp_path / "usr/share/games/wesnoth/1.16/locale/de/LC_MESSAGES"
    en = "editor^<bold>text='Traits'</bold>\n\nRecruits get two <ref>dst='t' text='traits'</ref>."
    de = "<bold>text='Merkmale'</bold>\n\nRekruten erhalten zwei <ref>dst='t' text='Merkmale'</ref>."
    _write_catalog(locale / "wesnoth-help.mo", {en: de})
    pairs = games.wesnoth(tmp_path)["wesnoth-help"]
    assert clean_pairs(pairs, {}) == [("Recruits get two traits.", "Rekruten erhalten zwei Merkmale.")]


# ---- DDTP ------------------------------------------------------------------------------------

TRANSLATION_EN = """Package: tuxfoo
Description-md5: 0123456789abcdef0123456789abcdef
Description-en: drawing program for children
 Tux Foo is a drawing program for young children. It is easy to use.
 .
 Features:
  * large buttons
  * funny sounds
 .
 Example:
   tuxfoo --fullscreen

Package: other
Description-md5: ffffffffffffffffffffffffffffffff
Description-en: no translation exists
 This text has no German version.
"""
TRANSLATION_DE = """Package: tuxfoo
Description-md5: 0123456789abcdef0123456789abcdef
Description-de: Malprogramm für Kinder
 Tux Foo ist ein Malprogramm für kleine Kinder. Es ist leicht zu
 bedienen.
 .
 Funktionen:
  * große Knöpfe
  * lustige Klänge
 .
 Beispiel:
   tuxfoo --fullscreen
"""


def test_ddtp_joins_on_md5_and_pairs_paragraphs_and_bullets():
    docs = ddtp.join(TRANSLATION_EN, TRANSLATION_DE)
    assert docs == {
        "tuxfoo": [
            ("Tux Foo is a drawing program for young children. It is easy to use.",
             "Tux Foo ist ein Malprogramm für kleine Kinder. Es ist leicht zu bedienen."),
            ("Features:", "Funktionen:"),
            ("large buttons", "große Knöpfe"),
            ("funny sounds", "lustige Klänge"),
        ]
    }  # fmt: skip


def test_ddtp_skips_descriptions_whose_paragraphs_differ():
    de = TRANSLATION_DE.replace(" .\n Beispiel:\n   tuxfoo --fullscreen\n", "")
    assert ddtp.join(TRANSLATION_EN, de) == {}


# ---- AppStream (DEP-11) -----------------------------------------------------------------------

COMPONENTS = """File: DEP-11
Version: '0.12'
---
Type: desktop-application
ID: org.example.Paint
Package: paint
Summary:
  C: Paint pictures
  de: Bilder malen
Description:
  C: >-
    <p>Paint is a simple program
    for drawing.</p>
    <ul>
      <li>Many brushes</li>
    </ul>
  de: >-
    <p>Paint ist ein einfaches Programm
    zum Zeichnen.</p>
    <ul>
      <li>Viele Pinsel</li>
    </ul>
---
Type: desktop-application
ID: org.example.Mismatch
Summary:
  C: Only English blocks
  de: Nur deutsche Blöcke
Description:
  C: >-
    <p>One.</p><p>Two.</p>
  de: >-
    <p>Eins. Zwei.</p>
"""


def test_dep11_pairs_summary_and_blocks_in_order():
    docs = dep11.documents(COMPONENTS)
    assert docs["org.example.Paint"] == [
        ("Paint pictures", "Bilder malen"),
        ("Paint is a simple program for drawing.", "Paint ist ein einfaches Programm zum Zeichnen."),
        ("Many brushes", "Viele Pinsel"),
    ]
    assert docs["org.example.Mismatch"] == [("Only English blocks", "Nur deutsche Blöcke")]


# ---- the table and the package plumbing ----------------------------------------------------------


def test_table_names_are_unique_and_forbidden_packages_absent():
    names = [s.name for s in table.SOURCES]
    assert len(names) == len(set(names)) and names[0] == "ding"
    packages = [p for s in table.SOURCES for p in s.packages]
    assert "wesnoth-1.16-httt" not in packages  # reserved for an evaluation outside the project
    assert not [p for p in packages if p.startswith("dict-freedict")]  # generated from Ding: leaks test
    story = next(s for s in table.SOURCES if s.name == table.STORY_SOURCE)
    for doc in (table.TEST_STORY_DOCUMENT, table.VALID_STORY_DOCUMENT):
        assert f"wesnoth-1.16-{doc.removeprefix('wesnoth-')}" in story.packages
    assert all(s.weight > 0 for s in table.SOURCES)


def test_fetch_skips_download_when_debs_exist(tmp_path, monkeypatch):
    (tmp_path / "trans-de-en_1.9-6_all.deb").write_bytes(b"")
    (tmp_path / "trans-de-en_1.9-7_all.deb").write_bytes(b"")
    (tmp_path / "gimp-data_2.10.34-1_all.deb").write_bytes(b"")
    (tmp_path / "gimp_2.10.34-1_amd64.deb").write_bytes(b"")

    def no_network(*args, **kwargs):
        raise AssertionError(f"unexpected subprocess call {args}")

    monkeypatch.setattr(build.subprocess, "run", no_network)
    paths = build.fetch(tmp_path, ("trans-de-en", "gimp"), {"trans-de-en": "1.9-6"})
    assert paths["trans-de-en"].name == "trans-de-en_1.9-6_all.deb"
    assert paths["gimp"].name == "gimp_2.10.34-1_amd64.deb"


def _fixture_deb(tmp_path: Path, files: dict[str, bytes]) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "DEBIAN/control").write_text(
        "Package: fixture\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: test\n"
    )
    for name, data in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_bytes(data)
    deb = tmp_path / "fixture_1.0_all.deb"
    subprocess.run(["dpkg-deb", "-Zgzip", "-b", str(pkg), str(deb)], check=True, capture_output=True)
    return deb


def _unpacked(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_unpack_extracts_only_the_named_members(tmp_path):
    mo_file = "usr/share/locale/de/LC_MESSAGES/app.mo"
    deb = _fixture_deb(
        tmp_path, {mo_file: mo.write_mo({"Hello there.": "Hallo."}), "usr/share/big.png": b"\x89PNG"}
    )
    build.unpack(deb, tmp_path / "out", ("*/locale/de/LC_MESSAGES/*.mo",))
    assert _unpacked(tmp_path / "out") == [mo_file]
    build.unpack(deb, tmp_path / "none", ("*/nothing/*",))  # no match is not an error


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_mallard_apps_unpacks_the_pages_and_docbook_files_of_every_help_tree_only(tmp_path):
    read = [
        "usr/share/help/C/app/index.page", "usr/share/help/de/app/index.page",
        "usr/share/help/C/old-app/old-app.xml", "usr/share/help/de/old-app/old-app.xml",
    ]  # fmt: skip
    skipped = ["usr/share/help/C/app/figures/shot.png", "usr/share/help/de/app/media/intro.ogv"]
    skipped.append("usr/share/help/fr/app/index.page")
    deb = _fixture_deb(tmp_path, {name: b"<page/>" for name in read + skipped})
    [mallard_apps] = [s for s in table.SOURCES if s.name == "mallard_apps"]
    build.unpack(deb, tmp_path / "out", mallard_apps.members)
    assert _unpacked(tmp_path / "out") == sorted(read)


def test_hedgewars_lua_table_reads_keys_escapes_and_comments():
    lua = (
        'locale = {\n["..."]="…",\n'
        '["Say \\"hello\\" to Bob!"] = "Sag \\"Hallo\\" zu Bob!", -- A_Mission\n'
        '--   ["Commented out."] = "Auskommentiert.",\n'
        '["Line one\\nline two."] = "Zeile eins\\nZeile zwei.",\n}\n'
    )
    assert games.lua_table(lua) == [
        ("...", "…"),
        ('Say "hello" to Bob!', 'Sag "Hallo" zu Bob!'),
        ("Line one line two.", "Zeile eins Zeile zwei."),
    ]


# ---- GNOME user docs (Mallard) -----------------------------------------------------------------


def test_gnome_pages_keep_menu_path_and_key_separators():
    page = '<page xmlns="http://projectmallard.org/1.0/"><p>{}</p></page>'
    en = page.format(
        "Press <keyseq><key>Super</key><key>Tab</key></keyseq> or choose "
        "<guiseq><gui>File</gui><gui>Print</gui></guiseq> to go on."
    )
    de = page.format(
        "Drücken Sie <keyseq><key>Super</key><key>Tabulator</key></keyseq> oder wählen Sie "
        "<guiseq><gui>Datei</gui><gui>Drucken</gui></guiseq>, um fortzufahren."
    )
    assert mallard.align_pages(en, de) == [
        (
            "Press Super+Tab or choose File \u25b8 Print to go on.",
            "Drücken Sie Super+Tabulator oder wählen Sie Datei \u25b8 Drucken, um fortzufahren.",
        )
    ]


def test_wesnoth_lore_keeps_single_sentence_entries_only(tmp_path):
    locale = tmp_path / "usr/share/games/wesnoth/1.16/locale/de/LC_MESSAGES"
    lore = {
        "Elves live in the forest.": "Elfen leben im Wald.",
        # freely adapted lore: two sentences that do not map one to one
        "Trolls are strong. They heal fast.": "Trolle, stark und zäh, heilen. Das ist bekannt.",
        "Mr. Smith was here.": "Herr Smith war hier.",  # "Mr." is no sentence end
    }
    _write_catalog(locale / "wesnoth-units.mo", lore)
    assert games.wesnoth_lore(tmp_path) == {
        "wesnoth-units": [("Elves live in the forest.", "Elfen leben im Wald."),
                          ("Mr. Smith was here.", "Herr Smith war hier.")]
    }  # fmt: skip
    assert len(games.wesnoth(tmp_path)["wesnoth-units"]) == 3
