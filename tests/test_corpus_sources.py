"""Format readers of the Debian corpus sources, each on a small fixture built here (issue 14)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from transformer.corpus import build, ddtp, dep11, games, mo, qm, table

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


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_unpack_extracts_only_the_named_members(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "DEBIAN/control").write_text(
        "Package: fixture\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: test\n"
    )
    _write_catalog(pkg / "usr/share/locale/de/LC_MESSAGES/app.mo", {"Hello there.": "Hallo."})
    (pkg / "usr/share/big.png").write_bytes(b"\x89PNG")
    deb = tmp_path / "fixture_1.0_all.deb"
    subprocess.run(["dpkg-deb", "-Zgzip", "-b", str(pkg), str(deb)], check=True, capture_output=True)
    build.unpack(deb, tmp_path / "out", ("*/locale/de/LC_MESSAGES/*.mo",))
    found = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert found == ["usr/share/locale/de/LC_MESSAGES/app.mo"]
    build.unpack(deb, tmp_path / "none", ("*/nothing/*",))  # no match is not an error


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
