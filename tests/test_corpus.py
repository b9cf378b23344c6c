"""Corpus parsers, cleaning rules, held-out splits and the build, on hand-written fixtures."""

from __future__ import annotations

import gettext
import io
import random
import shutil
from pathlib import Path

import pytest

from corpus import build, ding, lo_help, mallard, mo, splits, table, text

FIXTURES = Path(__file__).parent / "fixtures" / "corpus" / "raw"
DING_FILE = FIXTURES / "usr/share/trans/de-en"
HELP_DIR = FIXTURES / "usr/share/libreoffice/help"
MALLARD_DIR = FIXTURES / "usr/share/help"


# ---- shared text rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidate", "expected"),
    [
        ("The cat is asleep.", True),
        ("Is it raining?", True),
        ("Give my regards!", True),
        ("the cat is asleep.", False),  # lower-case start
        ("The cat sleeps", False),  # no final punctuation
        ("Go away.", False),  # two words
        ("Give it to sb.", False),  # dictionary placeholder
        ("Gib es jdm.", False),
    ],
)
def test_is_sentence(candidate, expected):
    assert text.is_sentence(candidate) is expected


def test_normalize_unifies_apostrophes_spaces_and_detached_punctuation():
    assert text.normalize("It\u2019s  the\u00a0icon .") == "It's the icon."


def test_align_paragraph_pairs_sentences_only_when_counts_match():
    assert text.align_paragraph("One two three. Four five six.", "Eins zwei drei. Vier fünf sechs.") == [
        ("One two three.", "Eins zwei drei."),
        ("Four five six.", "Vier fünf sechs."),
    ]
    assert text.align_paragraph("One two three. Four five six.", "Eins zwei drei vier.") == []
    assert text.align_paragraph("Not translated at all.", "Not translated at all.") == []


# ---- Ding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("segment", "expected"),
    [
        ("Abendbrot {n}; Nachtmahl {n} [Ös.]", "Abendbrot"),  # grammar, region, synonyms
        ("railway station [Br.]; train station [Am.]", "railway station"),
        ("Bahnhof {m} <Bhf.> [transp.]", "Bahnhof"),  # search keyword
        ("name-dropping <name-drop> <name--dropping <namedrop>>", "name-dropping"),  # nested
        ("Allgemeine Geschäftsbedingungen {pl} /AGB/", "Allgemeine Geschäftsbedingungen"),
        ("Brief {m} (Schriftstück)", "Brief"),  # trailing note
        ("Aale {pl} (Anguilliformes) (Ordnung)", "Aale"),  # stacked trailing notes
        ("Gib es ihm.; Gib es ihr.", "Gib es ihm."),  # alternative sentences: first one
        ("er/sie läuft", "er läuft"),
        ("ich/er/sie lief", "er lief"),
        ("He/She has his/her coat.", "He has his coat."),
        ("(schnell) laufen {vi}", None),  # leftover parenthesis: ambiguous
        ("Erklär mir das / dies bitte.", None),  # spaced alternatives
        ("Das Ende vom Lied …", None),  # elided fragment
        ("{m}", None),  # nothing left
    ],
)
def test_clean_segment(segment, expected):
    assert ding.clean_segment(segment) == expected


def test_split_line_pairs_segments_and_rejects_malformed_lines():
    assert ding.split_line("Hund {m} | Hunde {pl} :: dog | dogs") == [
        ("dog", "Hund {m}"),
        ("dogs", "Hunde {pl}"),
    ]
    assert ding.split_line("# Version :: devel") == []
    assert ding.split_line("Hund {m} | kaputt :: dog") == []  # segment counts differ


def test_parse_file_separates_sentences_from_lexicon():
    sentences, phrases = ding.parse_file(DING_FILE)
    assert ("We have supper at seven.", "Wir essen um sieben Abendbrot.") in sentences
    assert ("She runs every morning.", "Sie läuft jeden Morgen.") in sentences
    assert ("Give it to him.", "Gib es ihm.") in sentences
    assert ("supper", "Abendbrot") in phrases
    assert ("he runs", "er läuft") in phrases
    assert ("to give sb. sth.", "jdm. etw. geben") in phrases  # placeholders: lexicon, not sentence
    assert not set(sentences) & set(phrases)
    every_side = {side for pair in sentences + phrases for side in pair}
    assert not any(mark in side for side in every_side for mark in "{}[]<>()…")
    # Dropped: ambiguous " / ", elided "…", the line whose segment counts differ.
    english = [en for en, _ in sentences + phrases]
    assert "Please explain this to me." not in english
    assert not any("song" in en or "dog" in en for en in english)
    assert len(sentences) == len(set(sentences))


# ---- LibreOffice help ----------------------------------------------------------------------


def _help_page(lang: str) -> str:
    return (HELP_DIR / lang / "text/shared/find_toolbar.html").read_text(encoding="utf-8")


def test_help_paragraphs_drop_hidden_variants_but_keep_the_default():
    paragraphs = lo_help.paragraphs(_help_page("en-US"))
    shortcut = " ".join(paragraphs[("par_id103", 0)].split())
    assert shortcut == "Press Ctrl + F to open the toolbar."
    assert "Command" not in "".join(paragraphs.values())


def test_help_pages_align_by_id_not_by_position():
    pairs = lo_help.align_pages(_help_page("en-US"), _help_page("de"))
    assert pairs == [
        ("The Find toolbar searches the open document.",
         "Die Symbolleiste Suchen durchsucht das geöffnete Dokument."),
        ("Press Ctrl + F to open the toolbar.",
         "Drücken Sie Strg + F, um die Symbolleiste zu öffnen."),
        ("Shows the next match in the text.", "Zeigt den nächsten Treffer im Text."),
        ("Click the icon to close the toolbar.",
         "Klicken Sie auf das Symbol um die Leiste zu schließen."),
    ]  # fmt: skip
    # Not paired: the heading (no sentence), 2 vs 1 sentences, no twin, untranslated text.


def test_help_tree_walks_matching_paths():
    assert len(lo_help.parse_tree(HELP_DIR)) == 4


# ---- .mo catalogues ------------------------------------------------------------------------

CATALOG = {
    "": "Content-Type: text/plain; charset=UTF-8\n",
    "STR_SAVE\x04Save the document before closing it.": "Speichern Sie das Dokument vor dem Schließen.",
    "STR_OPEN\x04Open the file in a new window.": "Öffnen Sie die Datei in einem neuen Fenster.",
    "STR_COUNT\x04Replaced %1 entries in the table.": "%1 Einträge in der Tabelle ersetzt.",
    "STR_ACCEL\x04~Save the whole document now.": "Das ganze Dokument jetzt ~speichern.",
    "STR_TAG\x04Click <b>here</b> to continue now.": "Klicken Sie <b>hier</b>, um fortzufahren.",
    "STR_SHORT\x04Save it.": "Speichern.",
    "STR_PLURAL\x04One row was deleted now.\x00Rows were deleted now.": "Zeile weg.\x00Zeilen weg.",
}


def test_mo_round_trip_and_python_gettext_reads_our_files():
    data = mo.write_mo(CATALOG)
    assert mo.read_mo(data) == CATALOG
    reference = gettext.GNUTranslations(io.BytesIO(data))  # the standard library as referee
    assert reference.pgettext("STR_OPEN", "Open the file in a new window.") == (
        "Öffnen Sie die Datei in einem neuen Fenster."
    )


def test_mo_rejects_other_files():
    with pytest.raises(ValueError, match="magic"):
        mo.read_mo(b"\x00" * 64)


def test_catalog_pairs_keep_only_plain_sentences():
    assert mo.catalog_pairs(CATALOG) == [
        ("Open the file in a new window.", "Öffnen Sie die Datei in einem neuen Fenster."),
        ("Save the document before closing it.", "Speichern Sie das Dokument vor dem Schließen."),
    ]


# ---- Mallard -------------------------------------------------------------------------------


def test_mallard_aligns_blocks_and_skips_missing_link_text_and_mismatched_pages():
    pairs = mallard.parse_tree(MALLARD_DIR)
    assert pairs == [
        ("Ignore quickly repeated key presses.", "Schnell wiederholte Tastendrücke ignorieren."),
        ("Turn on Bounce Keys to ignore repeated key presses.",
         "Schalten Sie Tastenprellung ein, um wiederholte Tastendrücke zu ignorieren."),
        ("Your keyboard might also have a setting for this.",
         "Ihre Tastatur hat dafür eventuell auch eine Einstellung."),
    ]  # fmt: skip
    # fixture-mismatch.page has 3 blocks in C and 2 in de: nothing from it.
    assert not any("pointer" in en for en, _ in pairs)


# ---- splits --------------------------------------------------------------------------------


def _synthetic_pairs(n: int = 300) -> list[text.Pair]:
    """Pairs with shared sides: every 7th English sentence has two German translations and
    every 11th German sentence two English sources, so groups span several pairs."""
    pairs = [(f"Sentence number {i} here.", f"Satz Nummer {i} hier.") for i in range(n)]
    pairs += [(f"Sentence number {i} here.", f"Der Satz {i} steht hier.") for i in range(0, n, 7)]
    pairs += [(f"This is sentence {i}!", f"Satz Nummer {i} hier.") for i in range(0, n, 11)]
    return pairs


def _sides(pairs):
    return {("en", text.side_key(en)) for en, _ in pairs} | {("de", text.side_key(de)) for _, de in pairs}


def test_hold_out_sizes_and_disjoint_sides():
    train, valid, test, held = splits.hold_out(_synthetic_pairs(), test_size=30, valid_size=20)
    assert 30 <= len(test) < 34 and 20 <= len(valid) < 24  # whole groups, stop once reached
    assert not _sides(train) & _sides(valid)
    assert not _sides(train) & _sides(test)
    assert not _sides(valid) & _sides(test)
    # One reference per English sentence in held-out splits.
    assert len({en for en, _ in test}) == len(test)
    assert {f"{lang}:{key}" for lang, key in _sides(test) | _sides(valid)} <= held


def test_hold_out_is_independent_of_input_order():
    pairs = _synthetic_pairs()
    shuffled = pairs[:]
    random.Random(7).shuffle(shuffled)
    first = splits.hold_out(pairs, test_size=30, valid_size=20)
    second = splits.hold_out(shuffled, test_size=30, valid_size=20)
    assert first[1] == second[1] and first[2] == second[2] and first[3] == second[3]
    assert sorted(first[0]) == sorted(second[0])


def test_without_held_out_matches_sides_ignoring_case_and_punctuation():
    held = {"en:the cat is asleep", "de:es regnet"}
    pairs = [
        ("THE CAT IS ASLEEP!", "Ganz anders."),
        ("Something else.", "Es regnet."),
        ("The cat is awake.", "Die Katze ist wach."),
    ]
    assert splits.without_held_out(pairs, held) == [("The cat is awake.", "Die Katze ist wach.")]


# ---- build ---------------------------------------------------------------------------------


@pytest.fixture
def raw_tree(tmp_path: Path) -> Path:
    """The fixture tree plus a generated .mo catalogue, laid out like the unpacked packages."""
    raw = tmp_path / "raw"
    shutil.copytree(FIXTURES, raw)
    mo_dir = raw / "usr/lib/libreoffice/program/resource/de/LC_MESSAGES"
    mo_dir.mkdir(parents=True)
    (mo_dir / "sw.mo").write_bytes(mo.write_mo(CATALOG))
    return raw


def _read_pairs(out: Path, stem: str) -> list[text.Pair]:
    en = (out / f"{stem}.en").read_text(encoding="utf-8").splitlines()
    de = (out / f"{stem}.de").read_text(encoding="utf-8").splitlines()
    assert len(en) == len(de)
    return list(zip(en, de))


def _parse_fixture(raw: Path) -> dict:
    """The fixture tree parsed by the table's own parsers, as ``build`` would after unpacking."""
    parsers = {s.name: s.parse for s in table.SOURCES}
    return {name: parsers[name](raw) for name in ("ding", "lo_help", "lo_ui", "gnome")}


def _write(out: Path, raw: Path) -> dict:
    outputs, train_by_source, _ = build.assemble(_parse_fixture(raw), ding.parse_file(DING_FILE)[1], 2, 2, 1)
    out.mkdir()
    for stem, pairs in outputs.items():
        build._write_pairs(out, stem, pairs)
    return train_by_source


def test_build_writes_aligned_disjoint_deterministic_files(raw_tree, tmp_path):
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    train_by_source = _write(out_a, raw_tree)
    _write(out_b, raw_tree)
    names = sorted(p.name for p in out_a.iterdir())
    stems = ("train", "lexicon", "valid", "test", "valid-story", "test-story", "valid-tech", "test-tech")
    assert names == sorted(f"{s}.{lang}" for s in stems for lang in ("en", "de"))
    for name in names:
        assert (out_a / name).read_bytes() == (out_b / name).read_bytes(), name

    train, valid, test = (_read_pairs(out_a, s) for s in ("train", "valid", "test"))
    lexicon = _read_pairs(out_a, "lexicon")
    assert len(test) >= 2 and len(valid) >= 2
    held = set()
    for stem in ("valid", "test", "valid-tech", "test-tech"):
        held |= _sides(_read_pairs(out_a, stem))
    assert not _sides(train) & held
    assert not _sides(valid) & _sides(test)
    ding_sentences = ding.parse_file(DING_FILE)[0]
    for pair in ding_sentences:  # Ding training sentences appear DING_WEIGHT times
        if pair in train:
            assert train.count(pair) == table.DING_WEIGHT
    assert set(valid) | set(test) <= set(ding_sentences)
    assert ("supper", "Abendbrot") in lexicon
    assert train_by_source["lo_ui"]  # UI strings are not held out; help pages may be (tech sets)


def test_report_tables_list_every_source_with_its_counts():
    from corpus import report

    stats = {
        "sources": {
            "ding": {"packages": {"trans-de-en": "1.9-6"}, "licence": "GPL-2+", "domain": "general",
                     "weight": 3, "pairs_parsed": 10, "pairs_train_unique": 8, "filtered": {"held_out": 2}},
            "ui": {"packages": {f"p{i}": f"{i}.0" for i in range(5)}, "licence": "GPL", "domain": "ui",
                   "weight": 0.5, "pairs_parsed": 1200, "pairs_train_unique": 1000,
                   "filtered": {"placeholder": 200}},
        },
        "totals": {"sources": 2, "train_unique": 1008},
    }  # fmt: skip
    sources = report.sources_table(stats)
    assert sources[2] == "| ding | `trans-de-en` 1.9-6 | GPL-2+ | general | 3 | 10 | 8 |"
    assert sources[3].startswith("| ui | 5 packages (p0, p1, p2, …")
    assert sources[3].endswith("| 0.5 | 1,200 | 1,000 |")
    assert sources[-1].endswith("**1,008** (2 sources) |")
    filters = report.filters_table(stats)
    assert filters[2].split(" | ")[report.FILTERS.index("held_out") + 1] == "2"
    assert filters[3].split(" | ")[report.FILTERS.index("placeholder") + 1] == "200"
