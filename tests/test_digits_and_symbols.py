"""The shipped model copies numbers digit for digit and keeps symbols: years, prices and
times of the source come out in the German (a currency sign as itself or its German name), and no
printable character becomes ⁇ (byte fallback, digit splitting, symbol pieces, number variants in the
data; before, "In 1869" came out as "In 18699" and "$77.8 billion" as "⁇ 77.8 Billion")."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from transformer.decoding import beam_search
from transformer.inputs import encode_source
from transformer.pretrained import load_pretrained

ROOT = Path(__file__).resolve().parents[1]
# Measured on the shipped step-36,119 model (beam 4, α 1.8), checked by hand: all 10 keep their digit
# strings and symbols. The German is not always right ("We met at 10:30 on May 3." -> "Wir haben uns
# um 10:30 Uhr am 3 Uhr getroffen.", "About 30%" -> "Auf 30 %"): this test checks the digits only.
# A known miss goes here as "sentence": "why"; it is strict, so a model that gets it right flips it.
MISSES: dict[str, str] = {}
SENTENCES = [
    pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=MISSES[s])) if s in MISSES else s
    for s in (
        "In 1869, the town had 4000 inhabitants.",
        "She was born in 1992.",
        "The ticket costs $12.",
        "The book costs 25 €.",
        "The train leaves at 7:45.",
        "We met at 10:30 on May 3.",
        "The war ended in 1945.",
        "He paid £40 for the shoes.",
        "About 30% of the students were ill.",
        "My phone number is 0176 5432.",
    )
]
# A symbol may come out as itself or as the German word for it ("12 Dollar" is right German for "$12").
SYMBOLS = {"$": ("$", "Dollar"), "€": ("€", "Euro"), "£": ("£", "Pfund"), "%": ("%", "Prozent")}


@pytest.fixture(scope="module")
def shipped():
    return load_pretrained(ROOT / "pretrained")


def _translate(shipped, sentence: str) -> str:
    src = encode_source(shipped.tokenizer, sentence)
    d = shipped.decoding
    best = beam_search(shipped.model, src.ids, beam_size=d.beam_size, alpha=d.alpha)[0]
    return shipped.tokenizer.decode(best.ids)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_every_digit_string_and_symbol_of_the_source_is_in_the_translation(shipped, sentence):
    german = _translate(shipped, sentence)
    assert "⁇" not in german, german
    for digits in re.findall(r"\d+", sentence):
        assert re.search(rf"(?<!\d){digits}(?!\d)", german), (sentence, german, digits)
    for symbol, spellings in SYMBOLS.items():
        if symbol in sentence:
            assert any(s in german for s in spellings), (sentence, german, symbol)


def test_no_printable_character_is_unknown_to_the_tokenizer(shipped):
    """Byte fallback: every character is a piece or its UTF-8 bytes, none <unk>; what comes back is
    the text after SentencePiece's NFKC normalisation (½ becomes 1⁄2), never ⁇."""
    tok = shipped.tokenizer
    text = "$77.8 billion, 5 € – 3 £, ½ ° © “quotes” naïve 🙂 ☃"
    assert tok.unk_id not in tok.encode(text)
    assert tok.decode(tok.encode(text)) == unicodedata.normalize("NFKC", text)
