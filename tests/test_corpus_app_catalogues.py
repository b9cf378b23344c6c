"""The application catalogue sources (``app_ui``, ``qt_ui``) on small catalogues built here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from corpus import app_catalogues, build, mo, qm, table
from corpus.text import clean_pairs

LOCALE = "usr/share/locale/{}/LC_MESSAGES/{}.mo"


def _write(root: Path, relative: str, data: bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_mo_keeps_messages_of_six_words_from_german_catalogues_only(tmp_path):
    sentence = ("The file could not be saved to disk.", "Die Datei konnte nicht gespeichert werden.")
    context = ("Close all open windows at once.", "Alle offenen Fenster auf einmal schließen.")
    _write(tmp_path, LOCALE.format("de", "editor"), mo.write_mo({
        "": "Content-Type: text/plain; charset=UTF-8\n",
        sentence[0]: sentence[1],
        "Save the file now.": "Datei jetzt speichern.",  # five words: a label, not kept
        "menu\x04" + context[0]: context[1],
        "%d file was deleted from disk.\x00%d files were deleted from disk.": "%d Datei\x00%d Dateien",
    }))  # fmt: skip
    # gettext catalogues of Python programs may lie outside locale/ (Deluge: i18n/de/LC_MESSAGES)
    torrent = ("The torrent has finished downloading now.", "Der Torrent ist jetzt fertig.")
    _write(tmp_path, "usr/lib/python3/dist-packages/torrent/i18n/de/LC_MESSAGES/torrent.mo",
           mo.write_mo(dict([torrent])))  # fmt: skip
    _write(tmp_path, LOCALE.format("fr", "editor"), mo.write_mo({sentence[0]: "Le fichier est perdu."}))
    _write(tmp_path, LOCALE.format("de_CH", "editor"), mo.write_mo({sentence[0]: "Die Datei ist weg."}))
    assert app_catalogues.parse_mo(tmp_path) == {
        # key order: contexts ("menu\x04...") sort after plain messages
        "editor": [sentence, context],
        "torrent": [torrent],
    }


def test_qm_reads_the_german_files_under_every_naming_scheme(tmp_path):
    pair = ("Could not connect to the map server.", "Keine Verbindung zum Kartenserver möglich.")
    catalog = qm.write_qm({("Map", pair[0]): pair[1], ("Menu", "Zoom in"): "Vergrößern"})
    for name in ("qgis/i18n/qgis_de.qm", "valentina/translations/valentina_de_DE.qm", "lmms/locale/de.qm"):
        _write(tmp_path, "usr/share/" + name, catalog)
    _write(tmp_path, "usr/share/qgis/i18n/qgis_fr.qm", qm.write_qm({("Map", pair[0]): "Pas de serveur."}))
    _write(tmp_path, "usr/share/qgis/i18n/qgis_nds.qm", qm.write_qm({("Map", pair[0]): "Keen Server."}))
    assert app_catalogues.parse_qm(tmp_path) == {
        "usr/share/lmms/locale/de.qm": [pair],
        "usr/share/qgis/i18n/qgis_de.qm": [pair],
        "usr/share/valentina/translations/valentina_de_DE.qm": [pair],
    }


def test_ui_pairs_drop_what_the_corpus_filters_would_damage_or_miss():
    kept = ("<b>Note:</b> The <i>file</i> is damaged.", "<b>Hinweis:</b> Die <i>Datei</i> ist beschädigt.")
    dropped = [
        ("There are %n outdated parts in this sketch.", "Es gibt %n veraltete Bauteile in dieser Skizze."),
        ('The folder "%B" cannot be copied here.', "Der Ordner »%B« kann nicht kopiert werden."),
        ("Version %L1 of the program is installed.", "Version %L1 des Programms ist installiert."),
        # literal words in angle brackets would be stripped as tags: "Press when you are done."
        ("Press <Enter> when you are done.", "Drücken Sie <Eingabe>, wenn Sie fertig sind."),
        ("Extra fields are written inside the <extensions> tag.", "Zusatzfelder stehen im <extensions>-Tag."),
        # a bold label run into its text, and two sentences without a space, cannot be split
        ("<b>Title Bar</b>The title bar shows the name.", "<b>Titelleiste</b>Die Leiste zeigt den Namen."),
        ("Remove the entry from the list.The calendar stays.", "Den Eintrag entfernen.Der Kalender bleibt."),
    ]
    assert app_catalogues.ui_pairs([kept, *dropped]) == [kept]
    glued = ("<b>Note:</b>This can stay empty.", "<b>Hinweis:</b>Dies kann leer bleiben.")
    assert clean_pairs(app_catalogues.ui_pairs([glued]), {}) == [
        ("Note: This can stay empty.", "Hinweis: Dies kann leer bleiben.")
    ]


def test_headings_go_and_block_tags_separate_the_sentences_they_end():
    en = (
        "<title>Title Bar</title><para>The title bar shows the session title.</para>"
        "<para>Click it to rename the session.</para><nl/>It can also be hidden."
    )
    de = (
        "<title>Titelleiste</title><para>Die Titelleiste zeigt den Sitzungstitel.</para>"
        "<para>Klicken Sie darauf, um die Sitzung umzubenennen.</para><nl/>Sie lässt sich auch ausblenden."
    )
    assert clean_pairs(app_catalogues.ui_pairs([(en, de)]), {}) == [
        ("The title bar shows the session title.", "Die Titelleiste zeigt den Sitzungstitel."),
        ("Click it to rename the session.", "Klicken Sie darauf, um die Sitzung umzubenennen."),
        ("It can also be hidden.", "Sie lässt sich auch ausblenden."),
    ]
    # the markup filter alone glues "title." to "Click" and keeps the heading: one long segment
    glued = clean_pairs([(en, de)], {})
    assert glued and "Title Bar" in glued[0][0]


def test_sources_are_ui_strings_at_half_weight_with_explicit_package_lists():
    app_ui, qt_ui = app_catalogues.SOURCES
    assert (app_ui.name, qt_ui.name) == ("app_ui", "qt_ui")
    for source in (app_ui, qt_ui):
        assert source.domain == "ui" and source.weight == 0.5 and source.members
        assert len(set(source.packages)) == len(source.packages) >= 20
        assert not set(source.packages) & set(table.UI_PACKAGES)  # the ui source reads those
        assert not [p for p in source.packages if p.startswith("dict-freedict") or "httt" in p]
    assert not set(app_ui.packages) & set(qt_ui.packages)
    assert app_catalogues.MIN_WORDS == table.UI_MIN_WORDS


def _deb(tmp_path: Path, files: list[str]) -> Path:
    pkg = tmp_path / "pkg"
    (pkg / "DEBIAN").mkdir(parents=True)
    (pkg / "DEBIAN/control").write_text(
        "Package: fixture\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: test\n"
    )
    for name in files:
        _write(pkg, name, b"catalogue")
    deb = tmp_path / "fixture_1.0_all.deb"
    subprocess.run(["dpkg-deb", "-Zgzip", "-b", str(pkg), str(deb)], check=True, capture_output=True)
    return deb


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
@pytest.mark.parametrize("index", [0, 1])
def test_members_unpack_only_the_german_catalogues(tmp_path, index):
    wanted = [
        [LOCALE.format("de", "app"), "usr/lib/python3/dist-packages/app/i18n/de/LC_MESSAGES/app.mo"],
        ["usr/share/app/translations/app_de.qm", "usr/share/app/app_de_DE.qm", "usr/share/lmms/locale/de.qm"],
    ][index]  # fmt: skip
    others = [LOCALE.format("fr", "app"), LOCALE.format("de_CH", "app"), "usr/share/app/i18n/app_fr.qm",
              "usr/share/doc/app/changelog.gz", "usr/share/app/icons/de.png"]  # fmt: skip
    deb = _deb(tmp_path, wanted + others)
    out = tmp_path / "out"
    build.unpack(deb, out, app_catalogues.SOURCES[index].members)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == sorted(wanted)
