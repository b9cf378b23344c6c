"""The corpus filters (each counted), the held-out sets and the sources' weights."""

from __future__ import annotations

import pytest

from corpus import build, splits, table, text
from corpus.text import (
    clean_pairs,
    has_placeholder,
    plausible_chars,
    same_text,
    side_key,
    strip_markup,
)

# ---- markup and placeholders ------------------------------------------------------------------


def test_strip_markup_keeps_the_text_of_tags_entities_and_accelerators():
    assert strip_markup("<b>Save</b> the&nbsp;file &amp; quit.") == "Save the file & quit."
    assert strip_markup("<span color='red'>Run!</span><br/>Now.") == "Run! Now."
    assert strip_markup("&Open the door.") == "Open the door."
    assert strip_markup("First line.\\nSecond line.") == "First line. Second line."


def test_placeholders_mark_templates():
    for template in (
        "Deleted %s files.", "Deleted %1$d files.", "Hello {name}.", "Costs $cost gold.",
        "Welcome %(user)s.", "?unit:Warriors", "Look at image.png now.", "Press ~Ctrl.", "Use _File.",
        "See [[link]].", "Broken <tag text.",
    ):  # fmt: skip
        assert has_placeholder(template), template
    assert not has_placeholder("You win 100% of the time? No, this is plain text.".replace("%", " percent"))
    assert not has_placeholder("The elves, who lived here, fled.")


def test_same_text_ignores_quotes_case_and_spaces():
    assert same_text('He said "Go".', "he said  „Go“.")
    assert not same_text("Go home.", "Geh nach Hause.")


def test_character_ratio():
    assert plausible_chars(
        "We are not well suited to fighting in the caves.", "Wir sind nicht gut darin, in Höhlen zu kämpfen."
    )
    assert not plausible_chars(
        "We've already taken what we wanted from this valley.", "Wir haben, was wir wollten!"
    )


# ---- clean_pairs: every rejection counted ---------------------------------------------------


def test_clean_pairs_counts_each_filter():
    counts: dict[str, int] = {}
    raw = [
        ("<b>Open</b> the door now.", "<b>Öffne</b> jetzt die Tür."),  # markup stripped, kept
        ("Deleted %d files.", "%d Dateien gelöscht."),  # placeholder
        ("The same text here.", "„The same text here.“"),  # identical (quotes normalised)
        ("Run away. Hide now. Then wait.", "Lauf weg und versteck dich."),  # short: kept whole
        (" ".join(["Word"] * 20) + ". " + " ".join(["Word"] * 20) + ".", "Ein Satz hier."),  # unaligned
        ("Cancel", "Abbrechen"),  # not a sentence
        ("Go away, you fool.", "Geh weg, du Narr, du dummer, dummer, dummer, dummer Narr, geh endlich weg."),
        ("The sun rises. The moon sets.", "Die Sonne geht auf. Der Mond geht unter."),  # split in two
    ]
    kept = clean_pairs(raw, counts)
    assert kept == [
        ("Open the door now.", "Öffne jetzt die Tür."),
        ("Run away. Hide now. Then wait.", "Lauf weg und versteck dich."),
        ("The sun rises.", "Die Sonne geht auf."),
        ("The moon sets.", "Der Mond geht unter."),
    ]
    assert counts == {
        "markup_stripped": 1, "placeholder": 1, "identical": 1, "unaligned": 1, "not_sentence": 1,
        "length_ratio": 1,
    }  # fmt: skip


def test_clean_pairs_minimum_words():
    counts: dict[str, int] = {}
    assert clean_pairs([("Go home now.", "Geh jetzt heim.")], counts, min_words=4) == []
    assert counts == {"not_sentence": 1}


# ---- held-out sets, deduplication, weights --------------------------------------------------


def _ding(n: int) -> list[tuple[str, str]]:
    return [(f"The number {i} is on the door of house {i}.", f"Die Zahl {i} steht an der Tür von Haus {i}.")
            for i in range(n)]  # fmt: skip


def _story(doc: str, n: int) -> list[tuple[str, str]]:
    return [(f"Hero {doc} number {i} walks into the forest.", f"Held {doc} Nummer {i} geht in den Wald.")
            for i in range(n)]  # fmt: skip


def _parsed() -> dict:
    shared = ("The king rides to the castle at night.", "Der König reitet nachts zur Burg.")
    ding = _ding(40)
    return {
        "ding": {"ding": ding},
        "wesnoth": {
            table.TEST_STORY_DOCUMENT: _story("tsg", 12),
            table.VALID_STORY_DOCUMENT: _story("sof", 12),
            "wesnoth-l": [*_story("l", 6), shared, ding[0]],  # ding[0] may be held out: must go
        },
        "lo_help": {f"page{i}.html": [(f"Click the button {i} to open the dialog box now.",
                                       f"Klicken Sie auf Schaltfläche {i}, um den Dialog zu öffnen.")]
                    for i in range(30)},
        "ui": {"gimp20": [shared, ("Select the image with one click.", "Wählt das Bild mit einem Klick.")]},
    }  # fmt: skip


def _sides(pairs) -> set[str]:
    return {"en:" + side_key(en) for en, _ in pairs} | {"de:" + side_key(de) for _, de in pairs}


def test_assemble_holds_out_story_and_tech_and_keeps_them_out_of_training():
    parsed = _parsed()
    outputs, train_by_source, extra = build.assemble(parsed, [], test_size=4, valid_size=3, held_out_size=5)
    _, valid, test, _ = splits.hold_out(parsed["ding"]["ding"], 4, 3)
    assert outputs["test"] == test and outputs["valid"] == valid  # the Ding sets are unchanged
    assert all("tsg" in en for en, _ in outputs["test-story"]) and len(outputs["test-story"]) == 5
    assert all("sof" in en for en, _ in outputs["valid-story"]) and len(outputs["valid-story"]) == 5
    assert len(outputs["test-tech"]) == 5 and len(outputs["valid-tech"]) == 5
    held = set()
    for split in ("test", "valid", "test-story", "valid-story", "test-tech", "valid-tech"):
        held |= _sides(outputs[split])
    train = [pair for pairs in train_by_source.values() for pair in pairs]
    assert not _sides(train) & held  # no test or valid sentence appears in training
    assert not [p for p in train if "tsg" in p[0] or "sof" in p[0]]  # the whole campaigns are out
    assert extra["filters"]["ui"]["duplicate"] == 1  # the line wesnoth-l already gave
    assert len(train) == len(set(train))


def test_assemble_weights_sources_in_train():
    outputs, train_by_source, _ = build.assemble(_parsed(), [], test_size=4, valid_size=3, held_out_size=5)
    train = outputs["train"]
    for pair in train_by_source["ding"]:
        assert train.count(pair) == table.DING_WEIGHT
    for pair in train_by_source["wesnoth"]:
        assert train.count(pair) == 2


def test_fractional_weight_keeps_a_stable_share():
    pairs = [(f"Sentence number {i} is here.", f"Satz Nummer {i} ist hier.") for i in range(1000)]
    half = build.weighted(pairs, 0.5)
    assert 400 < len(half) < 600 and half == build.weighted(pairs, 0.5)
    assert build.weighted(pairs, 2.0) == [p for p in pairs for _ in range(2)]


@pytest.mark.parametrize(
    "paragraph, sentences",
    [
        # cases read in the freeciv, wesnoth_data and stellarium reviews (docs/CORPUS.md)
        ("Im 19. Jh. wuchs das Land. Dann kam der Krieg.",
         ["Im 19. Jh. wuchs das Land.", "Dann kam der Krieg."]),
        ("Oz was created by L. Frank Baum. It has four parts.",
         ["Oz was created by L. Frank Baum.", "It has four parts."]),
        ("Manche Einheiten (z.B. Trolle) heilen. Andere nicht.",
         ["Manche Einheiten (z.B. Trolle) heilen.", "Andere nicht."]),
        ("Ende des 19. Jahrhunderts zerfiel das Reich. Dann kam der Krieg.",
         ["Ende des 19. Jahrhunderts zerfiel das Reich.", "Dann kam der Krieg."]),
        ("Das ist z. B. gut. Am 3. Mai kam er.", ["Das ist z. B. gut.", "Am 3. Mai kam er."]),
        ("He met Dr. Smith. She was late.", ["He met Dr. Smith.", "She was late."]),
        # a year or a version number still ends a sentence
        ("It was founded in 1810. At the expense of Peru it grew.",
         ["It was founded in 1810.", "At the expense of Peru it grew."]),
        ("Version 2. New features are here!", ["Version 2.", "New features are here!"]),
    ],
)  # fmt: skip
def test_sentence_split_keeps_abbreviations_initials_and_ordinals_inside(paragraph, sentences):
    assert text.split_sentences(paragraph) == sentences
