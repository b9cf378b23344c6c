"""More numbers to copy: variants of real training pairs with other numbers and currency signs.

A small model that sees digits one piece at a time loses count in runs of the same digit ("4000"
came out as "400000", "2009" as "20009") and almost never sees € or £ (18 training pairs each), so it
drops or garbles them. This module takes real pairs whose two sides carry the same digit strings
and writes copies with those digit strings replaced by other numbers of the same length (half of
them round, like 4000 or 10:00), and pairs with a dollar amount copies with € and £ instead. The
sentences around the numbers stay the real ones.

# DEVIATION: the paper trains on the WMT text as it is; these variants are data augmentation, a
# small share (a few thousand of ~925k lines) that teaches copying digits and currency signs.
"""

from __future__ import annotations

import random
import re

from corpus.text import Pair, side_key

SEED = 29
_DIGITS = re.compile(r"\d+")
# "$12" / "$1,000" in English; "12 $" / "12 Dollar" in German.
_EN_DOLLAR = re.compile(r"\$(?=\d)")
_DE_DOLLAR = re.compile(r"(?<=\d) ?(\$|Dollars?\b)")
CURRENCIES = (("€", "€", "Euro"), ("£", "£", "Pfund"))  # (English sign, German sign, German word)


def same_numbers(pair: Pair) -> bool:
    """Both sides carry the same digit strings (in any order), at least one, each only once."""
    en, de = (_DIGITS.findall(side) for side in pair)
    return bool(en) and sorted(en) == sorted(de) and len(set(en)) == len(en)


def other_number(digits: str, rng: random.Random, after_colon: bool = False) -> str:
    """A number of the same length: a leading zero stays a zero; half the time a round one."""
    first = "0" if digits[0] == "0" and len(digits) > 1 else str(rng.randint(1, 9))
    if after_colon:  # minutes of a time
        first = str(rng.randint(0, 5))
    if len(digits) == 1:
        return str(rng.randint(1, 9)) if digits != "0" else "0"
    if rng.random() < 0.5:
        return first + "0" * (len(digits) - 1)
    return first + "".join(str(rng.randint(0, 9)) for _ in digits[1:])


def renumber(pair: Pair, rng: random.Random) -> Pair:
    """The pair with each digit string replaced by the same other number on both sides."""
    en, de = pair
    new = {}
    for match in _DIGITS.finditer(en):
        after_colon = match.start() > 0 and en[match.start() - 1] == ":"
        new[match.group()] = other_number(match.group(), rng, after_colon)

    def swap(text: str) -> str:
        return _DIGITS.sub(lambda m: new[m.group()], text)

    return swap(en), swap(de)


def recurrency(pair: Pair) -> list[Pair]:
    """A dollar pair ("$300" / "300 $" or "300 Dollar") as the same pair in € and in £."""
    en, de = pair
    if not _EN_DOLLAR.search(en) or not _DE_DOLLAR.search(de):
        return []
    out = []
    for en_sign, de_sign, de_word in CURRENCIES:

        def german(m: re.Match, sign: str = de_sign, word: str = de_word) -> str:
            return " " + (word if m.group(1).startswith("Dollar") else sign)

        out.append((_EN_DOLLAR.sub(en_sign, en), _DE_DOLLAR.sub(german, de)))
    return out


def digit_blind(key: str) -> str:
    return _DIGITS.sub("#", key)


def variants(pairs: list[Pair], held_keys: set[str], copies: int = 3) -> list[Pair]:
    """``copies`` renumbered variants of every same-number pair, € and £ variants of every dollar
    pair (each renumbered too). A variant whose sentence, digits aside, is a held-out sentence is
    left out, so no test sentence comes back with another year in it."""
    rng = random.Random(SEED)
    held = {digit_blind(k) for k in held_keys}
    out: list[Pair] = []
    for pair in pairs:
        if not same_numbers(pair):
            continue
        en, de = pair
        if digit_blind("en:" + side_key(en)) in held or digit_blind("de:" + side_key(de)) in held:
            continue
        made = [renumber(pair, rng) for _ in range(copies)]
        made += [renumber(p, rng) for p in recurrency(pair) for _ in range(copies)]
        out += [p for p in made if p != pair]
    return list(dict.fromkeys(out))
