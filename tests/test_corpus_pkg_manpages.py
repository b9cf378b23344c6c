"""The ``pkg_manpages`` corpus source: German man pages that Debian packages ship themselves.

Pages and manuals are written here in the shape of the real ones (po4a/DocBook/pod2man output);
nothing is downloaded.
"""

from __future__ import annotations

import fnmatch
import gzip
from pathlib import Path

from corpus import doc_packages, groff, groff_prepare, pkg_manpages, table

EN_PAGE = r""".\" A made-up page in the shape of DocBook's man output.
.ie \n(.g .ds Aq \(aq
.el       .ds Aq '
.TH DEMO 1
.SH NAME
demo \- greet the user
.SH DESCRIPTION
The
.B demo
program prints a greeting that depends on the time of day.
It doesn\*(Aqt change any file.
.SH OPTIONS
.TP
\fB\-q\fR, \fB\-\-quiet\fR
Print only errors, no greeting.
.SH BUGS
Greetings are in English only.
.PP
Time zones are ignored.
"""

DE_PAGE = r""".\" Its German translation (po4a): the BUGS section merged into one paragraph.
.ie \n(.g .ds Aq \(aq
.el       .ds Aq '
.TH DEMO 1
.SH NAME
demo \- den Benutzer gr\(:u\(sen
.SH BESCHREIBUNG
Das Programm
.B demo
gibt einen Gru\(ss aus, der von der Tageszeit abh\(:angt.
Es \(:andert keine Datei.
.SH OPTIONEN
.TP
\fB\-q\fR, \fB\-\-quiet\fR
Nur Fehler ausgeben, keinen Gru\(ss.
.SH FEHLER
Gr\(:u\(sse gibt es nur auf Englisch, Zeitzonen werden nicht beachtet.
"""

EXPECTED = [
    (
        "The demo program prints a greeting that depends on the time of day.",
        "Das Programm demo gibt einen Gruß aus, der von der Tageszeit abhängt.",
    ),
    ("It doesn't change any file.", "Es ändert keine Datei."),
    ("Print only errors, no greeting.", "Nur Fehler ausgeben, keinen Gruß."),
]


# --- prepare: the groff that groff.blocks does not read -------------------------------------------


def test_page_pairs_align_prose_and_drop_option_lines_and_mismatched_sections():
    pairs = pkg_manpages.page_pairs(EN_PAGE, DE_PAGE)
    assert pairs == EXPECTED
    # The option line is no sentence; the BUGS section has two paragraphs in English and one in
    # German, so which German text translates which English one is unknown: none of it pairs.
    assert not any("--quiet" in en or "English only" in en or "Time zones" in en for en, _ in pairs)


def test_accented_letters_in_every_spelling_become_characters():
    line = r"Gr\(:u\(sse an \[:A]rzte, \('e, \[u00E9]t\[char233] und scho\*:n in \[u0061_0308]."
    assert pkg_manpages.prepare(line) == "Grüße an Ärzte, é, été und schön in ä."


def test_quotes_are_not_read_as_accents_and_unknown_characters_stay_visible():
    assert groff.unescape(pkg_manpages.prepare(r"the \(oq#\(cq sign")) == "the '#' sign"
    # A character nobody knows would be dropped by groff.unescape ("bad" + "" + "word"); here it is
    # kept visible so doc_text drops the sentence instead of keeping a word with a hole in it.
    assert "\\" in groff.unescape(pkg_manpages.prepare(r"bad\(zzword and \[nosuchglyph]"))


def test_strings_take_their_first_definition_and_undefined_ones_stay_visible():
    page = "\n".join(
        [
            r".ie n \{\ ",
            r'.    ds L" ""',
            r'.    ds R" ""',
            r".\}",
            r".el \{\ ",
            r'.    ds L" ``',
            r".\}",
            r".ds -- \(*W-",
            r'Use \*(L"quotes\*(R" \*(-- and \*[UNDEFINED].',
        ]
    )
    text = groff.unescape(pkg_manpages.prepare(page).splitlines()[-1])
    assert text.startswith('Use "quotes" \u2014 and ')
    assert "\\" in text


def test_pod_verbatim_blocks_are_preformatted_and_macro_bodies_and_ig_blocks_are_not_read():
    page = "\n".join(
        [
            '.de Vb \\" Begin verbatim text',
            ".ft CW",
            ".nf",
            "..",
            '.de Ve \\" End verbatim text',
            ".fi",
            "..",
            ".ig",
            "A comment block that is never printed.",
            "..",
            ".PP",
            "Run it like this:",
            ".Vb 1",
            "\\&  demo --quiet",
            ".Ve",
            "It prints nothing.",
        ]
    )
    assert groff.blocks(pkg_manpages.prepare(page)) == [
        ("p", "Run it like this:"),
        ("pre", None),
        ("p", "It prints nothing."),
    ]


# --- parse: pages and manuals of an unpacked tree ----------------------------------------------


def _write_gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode("utf-8")))


def _tree(root: Path) -> None:
    man = root / "usr/share/man"
    _write_gz(man / "man1/demo.1.gz", EN_PAGE)
    _write_gz(man / "de/man1/demo.1.gz", DE_PAGE)
    (man / "man1/hello.1.gz").symlink_to("demo.1.gz")  # a second name of the same page
    (man / "de/man1/hello.1.gz").symlink_to("demo.1.gz")
    _write_gz(man / "de/man8/orphan.8.gz", DE_PAGE)  # no English twin: skipped
    guide = root / "usr/share/doc/apt-doc"
    (guide / "guide.html").mkdir(parents=True)
    (guide / "guide.de.html").mkdir()
    (guide / "guide.html/ch1.html").write_text(
        "<html><body><h2>1. Basics</h2><p>The sources list names the archives to download from.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    (guide / "guide.de.html/ch1.html").write_bytes(
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
        "</head><body><h2>1. Grundlagen</h2><p>Die Quellenliste nennt die Archive, aus denen "
        "heruntergeladen wird. Sie enthält Zeilen.</p></body></html>".encode("latin-1")
    )


def test_parse_reads_each_page_once_skips_orphans_and_decodes_latin1_manuals(tmp_path):
    _tree(tmp_path)
    documents = pkg_manpages.parse(tmp_path)
    # hello.1 is demo.1 again; the German manual paragraph has one sentence more than the English
    # one and is short, so it is kept whole, decoded from Latin-1 (no replacement characters).
    assert documents == {
        "man1/demo.1": EXPECTED,
        "apt-guide/ch1.html": [
            (
                "The sources list names the archives to download from.",
                "Die Quellenliste nennt die Archive, aus denen heruntergeladen wird. Sie enthält Zeilen.",
            )
        ],
    }


def test_members_cover_every_file_the_parser_reads(tmp_path):
    _tree(tmp_path)
    (source,) = pkg_manpages.SOURCES
    read = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "orphan.8.gz"]
    for path in read:
        member = "./" + path.relative_to(tmp_path).as_posix()
        assert any(fnmatch.fnmatch(member, pattern) for pattern in source.members), member


# --- the source table -------------------------------------------------------------------------


def test_source_is_registered_after_manpages_and_reads_no_forbidden_packages():
    (source,) = pkg_manpages.SOURCES
    assert source.name == "pkg_manpages" and source.domain == "technical" and source.weight == 1.0
    assert source.members and source.licence and source.description
    assert len(set(source.packages)) == len(source.packages)
    assert "wesnoth-1.16-httt" not in source.packages
    assert not any(p.startswith("dict-freedict") for p in source.packages)
    # Pages of these packages are read by the manpages source already.
    assert not set(source.packages) & set(doc_packages.MAN)
    names = [s.name for s in table.SOURCES]
    assert names.count("pkg_manpages") == 1 and names.index("pkg_manpages") > names.index("manpages")
    # Held-out tech pages come from a fixed list of sources, which this one must not change.
    assert "pkg_manpages" not in table.TECH_HELD_OUT_SOURCES


def test_prepare_ends_a_macro_definition_at_an_indented_terminator():
    # Asciidoctor's pages (util-linux: mount, fdisk, ...) close `.am` with ".  .": reading on to the
    # next ".." would swallow the whole page.
    page = ".if \\n[.g] \\{\\\n.  am URL\n.    ad l\n.  .\n.\\}\n.SH NAME\nmount \\- mount a filesystem\n"
    assert "mount \\- mount a filesystem" in groff_prepare.prepare(page)
    assert "ad l" not in groff_prepare.prepare(page)
