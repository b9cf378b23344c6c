"""The numbers grammar, its data splits and its gold alignment.

The German and English of every cardinal are checked against num2words, a separate, widely used
library; where the two disagree the case is named (num2words writes "einstausend" for 101,000 and
the like, which Duden writes "eintausend"; it reads 2010 as "twenty ten" where our phrases say
"two thousand ten").
"""

from __future__ import annotations

import random

import pytest
import torch
from num2words import num2words

from tasks.numbers import alignment, grammar
from training.numbers import data


def _en(n: int, **kw) -> str:  # American style: no "and", no commas
    return num2words(n, lang="en", **kw).replace(" and", "").replace(",", "")


@pytest.mark.parametrize("numbers", [range(0, 2500), random.Random(7).sample(range(2500, 1_000_000), 4000)])
def test_cardinals_agree_with_num2words(numbers):
    for n in numbers:
        ex = grammar.cardinal(n)
        assert ex.source == _en(n)
        reference = num2words(n, lang="de")
        if "einstausend" in reference:  # num2words' slip: "hunderteins" before "tausend"
            reference = reference.replace("einstausend", "eintausend")
        assert ex.target == reference, n


def test_ordinals_and_years_agree_with_num2words():
    for day in range(1, 32):
        words = grammar.date(day, 1).target.split()
        assert words[1] == num2words(day, lang="de", to="ordinal") + "n"  # dative after "am"
        assert grammar.date(day, 1).source.split()[2] == _en(day, to="ordinal")
    for year in range(1900, 2100):
        ex = grammar.date(1, 1, year)
        assert ex.target.split()[-1] == num2words(year, lang="de", to="year")
        english = " ".join(ex.source.split()[5:])
        if 1910 <= year <= 1999 or year in (1900, 2000):
            assert english == _en(year, to="year")


@pytest.mark.parametrize(
    "phrase, german",
    [  # checked by hand
        ("forty-two", "zweiundvierzig"),
        ("twenty-one apples", "einundzwanzig Äpfel"),
        ("one cat", "eine Katze"),
        ("on the fifth of March two thousand twenty-one", "am fünften März zweitausendeinundzwanzig"),
        ("on the third of July nineteen oh five", "am dritten Juli neunzehnhundertfünf"),
        ("at quarter past three", "um Viertel nach drei"),
        ("at half past three", "um halb vier"),
        ("at half past twelve", "um halb eins"),
        ("at ten to four", "um zehn vor vier"),
        ("at one o'clock", "um ein Uhr"),
    ],
)
def test_hand_checked_phrases_parse(phrase, german):
    ex = grammar.parse(phrase)
    assert ex is not None and ex.target == german


@pytest.mark.parametrize("text", ["", "hello world", "forty forty", "one hundred and one", "at 3:15",
                                  "on the thirtieth of February", "three apples and two pears"])
def test_phrases_outside_the_grammar(text):
    assert grammar.parse(text) is None


def test_every_kind_round_trips_through_parse():
    rng = random.Random(3)
    examples = [grammar.cardinal(rng.randint(0, 999_999)) for _ in range(50)]
    examples += [grammar.count(rng.choice([1, 2, 21, 342, 999]), rng.randrange(len(grammar.NOUNS)))
                 for _ in range(20)]  # fmt: skip
    examples += [grammar.date(rng.randint(1, 28), rng.randint(1, 12), rng.choice([None, 1950, 2021]))
                 for _ in range(20)]  # fmt: skip
    examples += [grammar.time(h, m) for h in (1, 7, 12) for m in (0, 15, 30, 45, 50)]
    for ex in examples:
        assert grammar.parse(ex.source) == ex


def test_the_gold_alignment_of_forty_two_crosses():
    ex = grammar.parse("forty-two")
    keys = alignment.gold_keys(ex, ["▁forty", "-", "two", "</s>"], ["▁zwei", "und", "vierzig"])
    assert keys == [{2}, set(), {0}]  # zwei <- two, und <- nothing, vierzig <- forty


def test_gold_alignment_links_the_coming_hour_for_halb():
    ex = grammar.parse("at half past three")
    keys = alignment.gold_keys(ex, ["▁at", "▁half", "▁past", "▁three"], ["▁um", "▁halb", "▁vier"])
    assert keys == [{0}, {1}, {3}]  # "vier" is made from "three" (German names the coming hour)


def test_no_gold_for_a_wrong_translation():
    assert alignment.gold_matrix("forty-two", ["▁forty", "-", "two"], ["▁zwei", "und", "fünfzig"]) is None
    assert alignment.gold_matrix("hello", ["▁hello"], ["▁hallo"]) is None


def test_agreement_counts_rows_with_a_gold_word():
    gold = torch.tensor([[False, False, True], [False, False, False], [True, False, False]])
    rows = torch.tensor([[0.1, 0.1, 0.8], [0.3, 0.3, 0.4], [0.2, 0.7, 0.1]])
    assert alignment.agreement(rows, gold) == (1, 2)  # row 0 hits, row 1 has no gold, row 2 misses


def test_splits_hold_out_whole_numbers(monkeypatch):
    monkeypatch.setattr(data, "CARDINALS", 3000)
    monkeypatch.setattr(data, "DATES", 1000)
    splits = data.build(seed=5)
    keys = {name: {ex.key for ex in exs} for name, exs in splits.items()}
    assert not keys["test"] & keys["train"] and not keys["valid"] & keys["train"]
    assert all(data.split_of(ex.key) == name for name, exs in splits.items() for ex in exs)
    assert {ex.kind for ex in splits["test"]} == {"cardinal", "count", "date", "time"}
    again = data.build(seed=5)
    assert [ex.source for ex in again["train"]] == [ex.source for ex in splits["train"]]
