"""Joined pairs: two real statements made one longer pair, with German punctuation and capitals right,
never from a held-out sentence, and only in the mixture when it is asked for."""

from __future__ import annotations

import re

from corpus import joined, mix, tatoeba

TIRED = ("I'm tired.", "Ich bin müde.")
DOG = ("The dog is sleeping in the garden.", "Der Hund schläft im Garten.")
SHE = ("She lives in Berlin.", "Sie wohnt in Berlin.")
TOM = ("Tom is reading a book.", "Tom liest ein Buch.")
I_KNOW = ("I know where he lives.", "Ich weiß, wo er wohnt.")


def test_only_plain_statements_of_a_few_words_are_parts():
    assert joined.is_statement(DOG)
    assert not joined.is_statement(("Are you tired?", "Bist du müde?"))
    assert not joined.is_statement(("Stop!", "Halt!"))
    assert not joined.is_statement(("Go.", "Geh."))  # one word
    assert not joined.is_statement(('He said "no".', "Er sagte „nein“."))
    assert not joined.is_statement(("Mr. Smith is here.", "Herr Smith ist hier."))  # two full stops
    assert not joined.is_statement(("The dog is sleeping", "Der Hund schläft"))  # no full stop


def test_a_second_clause_must_lose_its_capital_on_both_sides():
    assert joined.can_follow(DOG)
    assert joined.can_follow(I_KNOW)  # "I" stays, "ich" loses it
    assert not joined.can_follow(TOM)  # a name keeps its capital
    assert not joined.can_follow(SHE)  # "Sie" could be the polite you, which keeps it
    assert not joined.can_follow(("Berlin is big.", "Berlin ist groß."))


def test_joining_follows_each_languages_rules():
    assert joined.join(TIRED, DOG, (", and", ", und")) == (
        "I'm tired, and the dog is sleeping in the garden.",
        "Ich bin müde, und der Hund schläft im Garten.",
    )
    assert joined.join(TOM, I_KNOW, (", but", ", aber")) == (
        "Tom is reading a book, but I know where he lives.",
        "Tom liest ein Buch, aber ich weiß, wo er wohnt.",
    )
    assert joined.join(SHE, TOM, (".", ".")) == (
        "She lives in Berlin. Tom is reading a book.",
        "Sie wohnt in Berlin. Tom liest ein Buch.",
    )


def test_joined_pairs_are_longer_deterministic_and_made_of_the_given_pairs():
    pairs = [TIRED, DOG, SHE, TOM, I_KNOW, ("Are you tired?", "Bist du müde?")]
    out = joined.joined(pairs, 20)
    assert out == joined.joined(pairs, 20)
    assert 10 <= len(out) <= 20  # a handful of parts give fewer than asked
    parts_en = {p[0][:-1] for p in pairs}
    for en, de in out:
        assert "?" not in en and "Bist" not in de
        assert any(en.startswith(p) for p in parts_en)
        assert len(en.split()) >= 2 * joined.MIN_WORDS
        assert not re.search(r"\bSie\b", de[1:]) or de.startswith("Sie")  # never a lowered "Sie"
    assert joined.joined([TOM], 5) == []  # nothing may follow


def test_the_mixture_has_no_joined_pairs_unless_asked_and_none_from_held_out_sentences(tmp_path):
    debian = tmp_path / "debian"
    (debian / "sources").mkdir(parents=True)
    everyday = [(f"The number is {i} today.", f"Die Zahl ist heute {i}.") for i in range(3000)]
    for split in ("valid", "test", "valid-story", "test-story", "valid-tech", "test-tech", "lexicon"):
        mix.write_pairs(debian / split, [(f"{split} only.", f"nur {split}.")])
    (debian / "stats.json").write_text("{}", encoding="utf-8")

    plain = mix.mix(debian, tmp_path / "plain", {"tatoeba": 1}, everyday=everyday)
    assert plain["mixture"]["train_lines"]["joined"] == 0
    assert all(len(en.split()) == 5 for en, _ in mix.read_pairs(tmp_path / "plain" / "train"))

    stats = mix.mix(debian, tmp_path / "out", {"tatoeba": 1, "joined": 1}, everyday=everyday)
    assert stats["mixture"]["train_lines"]["joined"] > 0
    _, valid, test, _ = tatoeba.hold_out(everyday)
    held = {en.rstrip(".").lower() for en, _ in valid + test}
    long_pairs = [p for p in mix.read_pairs(tmp_path / "out" / "train") if len(p[0].split()) > 5]
    assert len(long_pairs) == stats["mixture"]["train_lines"]["joined"]
    for en, _ in long_pairs:
        assert not {part.rstrip(".").lower() for part in re.split(r", and |, but |\. ", en)} & held
