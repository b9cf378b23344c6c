"""English number phrases and their German translations, with the gold word alignment.

A small grammar with four kinds of phrase, each built from the same pieces of meaning:

    cardinal   "three hundred forty-two"            -> "dreihundertzweiundvierzig"
    count      "twenty-one apples"                  -> "einundzwanzig Äpfel"
    date       "on the fifth of March two thousand twenty-one"
                                                    -> "am fünften März zweitausendeinundzwanzig"
    time       "at half past three"                 -> "um halb vier"

Every German phrase is built as *segments* (a morpheme such as "zwei", "und", "vierzig"), and each
segment records which English word produced it (or none: "und" has no English word). That record
is the gold alignment the app compares cross-attention with. German says units before tens
("zweiundvierzig" = two-and-forty), so a correct alignment of "forty-two" must cross.

English follows the American style without "and" ("one hundred one"); German is one word per
number, as Duden writes numbers below a million. `parse` reads any phrase of the grammar back, so
the app can show the gold alignment for a phrase a user types.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ONES_EN = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS_EN = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
            "eighteen", "nineteen"]  # fmt: skip
TENS_EN = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
ONES_DE = ["null", "eins", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun"]
TEENS_DE = ["zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn",
            "achtzehn", "neunzehn"]  # fmt: skip
TENS_DE = ["", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig"]

ORDINAL_EN = {1: "first", 2: "second", 3: "third", 5: "fifth", 8: "eighth", 9: "ninth", 12: "twelfth"}
# German ordinals after "am" (dative): stem + "ten" below 20, + "sten" from 20 on.
ORDINAL_STEM_DE = {1: "ers", 3: "drit", 7: "sieb", 8: "ach"}

MONTHS = [("January", "Januar"), ("February", "Februar"), ("March", "März"), ("April", "April"),
          ("May", "Mai"), ("June", "Juni"), ("July", "Juli"), ("August", "August"),
          ("September", "September"), ("October", "Oktober"), ("November", "November"),
          ("December", "Dezember")]  # fmt: skip
DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

# English singular, English plural, German singular, German plural, German gender (for "one").
NOUNS = [
    ("apple", "apples", "Apfel", "Äpfel", "m"),
    ("dog", "dogs", "Hund", "Hunde", "m"),
    ("tree", "trees", "Baum", "Bäume", "m"),
    ("bird", "birds", "Vogel", "Vögel", "m"),
    ("cat", "cats", "Katze", "Katzen", "f"),
    ("flower", "flowers", "Blume", "Blumen", "f"),
    ("hour", "hours", "Stunde", "Stunden", "f"),
    ("house", "houses", "Haus", "Häuser", "n"),
    ("book", "books", "Buch", "Bücher", "n"),
    ("child", "children", "Kind", "Kinder", "n"),
    ("car", "cars", "Auto", "Autos", "n"),
    ("year", "years", "Jahr", "Jahre", "n"),
]
INDEFINITE_DE = {"m": "ein", "f": "eine", "n": "ein"}

MAX_CARDINAL = 999_999
# Minutes a clock is read with, English word -> German word ("quarter" is "Viertel").
CLOCK_MINUTES = {5: ("five", "fünf"), 10: ("ten", "zehn"), 15: ("quarter", "Viertel"),
                 20: ("twenty", "zwanzig")}  # fmt: skip


@dataclass(frozen=True)
class Example:
    """One phrase pair with its gold alignment.

    `words`: the English words (split at spaces and hyphens); `seps[i]` is what stands before
    word i ("", " " or "-"). `german`: German words, each a tuple of segments (text, index of the
    English word it translates, or None).
    """

    kind: str  # "cardinal", "count", "date" or "time"
    key: tuple  # what decides the held-out split (the number, the date, the clock time)
    words: tuple[str, ...]
    seps: tuple[str, ...]
    german: tuple[tuple[tuple[str, int | None], ...], ...]

    @property
    def source(self) -> str:
        return "".join(sep + word for sep, word in zip(self.seps, self.words, strict=True))

    @property
    def target(self) -> str:
        return " ".join("".join(text for text, _ in word) for word in self.german)

    def target_links(self) -> list[int | None]:
        """For every character of `target`, the English word it comes from (None: none, or a space)."""
        links: list[int | None] = []
        for w, word in enumerate(self.german):
            if w:
                links.append(None)
            for text, link in word:
                links.extend([link] * len(text))
        return links

    def source_spans(self) -> list[tuple[int, int]]:
        """(start, end) character span of each English word in `source`."""
        spans, at = [], 0
        for sep, word in zip(self.seps, self.words, strict=True):
            at += len(sep)
            spans.append((at, at + len(word)))
            at += len(word)
        return spans


class _Builder:
    """Collects English words and German segments, linking each segment to a word index."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.seps: list[str] = []
        self.german: list[list[tuple[str, int | None]]] = []

    def en(self, word: str, sep: str = " ") -> int:
        self.seps.append(sep if self.words else "")
        self.words.append(word)
        return len(self.words) - 1

    def de_word(self, segments: list[tuple[str, int | None]]) -> None:
        self.german.append(segments)

    def build(self, kind: str, key: tuple) -> Example:
        german = tuple(tuple(word) for word in self.german)
        return Example(kind, key, tuple(self.words), tuple(self.seps), german)


# ---- cardinals ------------------------------------------------------------------------------


def _below_100(b: _Builder, n: int, final: bool, ordinal: bool = False) -> list[tuple[str, int | None]]:
    """English words of 1 <= n < 100 into `b`; returns the German segments.

    `final`: n ends the number word, so 1 reads "eins" (not "ein", as before "hundert"/"tausend").
    `ordinal`: the last English word is an ordinal ("twenty-first") and German ends in -(s)ten.
    """
    if n < 20:
        i = b.en(_ordinal_en(n) if ordinal else (ONES_EN[n] if n < 10 else TEENS_EN[n - 10]))
        if ordinal:
            return [(_ordinal_de(n), i)]
        if n == 1:
            return [("eins" if final else "ein", i)]
        return [(ONES_DE[n] if n < 10 else TEENS_DE[n - 10], i)]
    tens, ones = divmod(n, 10)
    if ones == 0:
        i = b.en(_ordinal_en(n) if ordinal else TENS_EN[tens])
        return [(TENS_DE[tens] + ("sten" if ordinal else ""), i)]
    t = b.en(TENS_EN[tens])
    o = b.en(_ordinal_en(ones) if ordinal else ONES_EN[ones], sep="-")
    unit = "ein" if ones == 1 else ONES_DE[ones]
    return [(unit, o), ("und", None), (TENS_DE[tens] + ("sten" if ordinal else ""), t)]


def _below_1000(b: _Builder, n: int, final: bool) -> list[tuple[str, int | None]]:
    hundreds, rest = divmod(n, 100)
    segments: list[tuple[str, int | None]] = []
    if hundreds:
        h = b.en(ONES_EN[hundreds])
        segments.append(("ein" if hundreds == 1 else ONES_DE[hundreds], h))
        segments.append(("hundert", b.en("hundred")))
    if rest:
        segments += _below_100(b, rest, final)
    return segments


def _cardinal(b: _Builder, n: int) -> list[tuple[str, int | None]]:
    if not 0 <= n <= MAX_CARDINAL:
        raise ValueError(f"{n} is outside 0..{MAX_CARDINAL:,}")
    if n == 0:
        return [("null", b.en("zero"))]
    thousands, rest = divmod(n, 1000)
    segments: list[tuple[str, int | None]] = []
    if thousands:
        segments += _below_1000(b, thousands, final=False)
        segments.append(("tausend", b.en("thousand")))
    if rest:
        segments += _below_1000(b, rest, final=True)
    return segments


def cardinal(n: int) -> Example:
    """`n` in words: "three hundred forty-two" -> "dreihundertzweiundvierzig"."""
    b = _Builder()
    b.de_word(_cardinal(b, n))
    return b.build("cardinal", ("n", n))


def count(n: int, noun: int) -> Example:
    """`n` things: "twenty-one apples" -> "einundzwanzig Äpfel" ("one cat" -> "eine Katze")."""
    en_one, en_many, de_one, de_many, gender = NOUNS[noun]
    if not 1 <= n <= 999 or (n > 100 and n % 100 == 1):
        raise ValueError(f"no count phrase for {n} (1..999, not 101, 201, ...)")
    b = _Builder()
    if n == 1:
        b.de_word([(INDEFINITE_DE[gender], b.en("one"))])
    else:
        b.de_word(_cardinal(b, n))
    b.de_word([(de_one if n == 1 else de_many, b.en(en_one if n == 1 else en_many))])
    return b.build("count", ("n", n))


# ---- ordinals and dates ----------------------------------------------------------------------


def _ordinal_en(n: int) -> str:
    if n in ORDINAL_EN:
        return ORDINAL_EN[n]
    if n < 10:
        return ONES_EN[n] + "th"
    if n < 20:
        return TEENS_EN[n - 10] + "th"
    return TENS_EN[n // 10][:-1] + "ieth"  # twenty -> twentieth (tens only: n % 10 == 0)


def _ordinal_de(n: int) -> str:
    """Dative ordinal of 1 <= n < 20 after "am": "ersten", "dritten", "neunzehnten"."""
    stem = ORDINAL_STEM_DE.get(n, ONES_DE[n] if n < 10 else TEENS_DE[n - 10])
    return stem + "ten"


def _year(b: _Builder, year: int) -> list[tuple[str, int | None]]:
    """1900-2099 as English reads years: "nineteen ninety-nine", "nineteen oh five", "two thousand"."""
    if 2000 <= year <= 2099:
        return _cardinal(b, year)
    if not 1900 <= year <= 1999:
        raise ValueError(f"years are 1900..2099, not {year}")
    century, rest = divmod(year, 100)
    segments = [(TEENS_DE[century - 10], b.en(TEENS_EN[century - 10]))]
    if rest == 0:
        return segments + [("hundert", b.en("hundred"))]
    segments.append(("hundert", None))  # German says the hundred that English leaves out
    if rest < 10:
        b.en("oh")  # "nineteen oh five": no German word of its own
    return segments + _below_100(b, rest, final=True)


def date(day: int, month: int, year: int | None = None) -> Example:
    """"on the fifth of March two thousand twenty-one" -> "am fünften März zweitausendeinundzwanzig"."""
    if not 1 <= month <= 12 or not 1 <= day <= DAYS_IN_MONTH[month - 1]:
        raise ValueError(f"no date {day}.{month}.")
    b = _Builder()
    on = b.en("on")
    b.en("the")
    b.de_word([("am", on)])
    b.de_word(_below_100(b, day, final=True, ordinal=True))
    b.en("of")
    b.de_word([(MONTHS[month - 1][1], b.en(MONTHS[month - 1][0]))])
    if year is not None:
        b.de_word(_year(b, year))
    return b.build("date", ("date", day, month, year))


# ---- clock times -----------------------------------------------------------------------------


def _hour(b: _Builder, hour: int, german_hour: int) -> list[tuple[str, int | None]]:
    """English `hour`, German `german_hour` (one more for "half past" and "to"), both 1..12."""
    i = b.en(ONES_EN[hour] if hour < 10 else TEENS_EN[hour - 10])
    return [(ONES_DE[german_hour] if german_hour < 10 else TEENS_DE[german_hour - 10], i)]


def time(hour: int, minute: int) -> Example:
    """Clock times as spoken: "at three o'clock", "at quarter past three", "at half past three"
    ("um halb vier": German names the coming hour), "at ten to four"."""
    if not 1 <= hour <= 12 or minute not in (0, 30, *CLOCK_MINUTES, *(60 - m for m in CLOCK_MINUTES)):
        raise ValueError(f"no clock phrase for {hour}:{minute:02d}")
    b = _Builder()
    b.de_word([("um", b.en("at"))])
    next_hour = hour % 12 + 1
    if minute == 0:
        b.de_word(_hour(b, hour, hour))
        if hour == 1:  # "um ein Uhr": before "Uhr", one is "ein"
            b.german[-1] = [("ein", b.german[-1][0][1])]
        b.de_word([("Uhr", b.en("o'clock"))])
    elif minute == 30:
        half = b.en("half")
        b.en("past")
        b.de_word([("halb", half)])
        b.de_word(_hour(b, hour, next_hour))
    else:
        past = minute < 30
        en_min, de_min = CLOCK_MINUTES[minute if past else 60 - minute]
        b.de_word([(de_min, b.en(en_min))])
        b.de_word([("nach" if past else "vor", b.en("past" if past else "to"))])
        # "at ten to four" is said of 3:50: the English hour is already the coming one.
        b.de_word(_hour(b, hour if past else next_hour, hour if past else next_hour))
    key_hour = hour if (minute <= 30) else next_hour
    return b.build("time", ("time", key_hour, minute))


# ---- reading a phrase back ---------------------------------------------------------------------

_WORD = re.compile(r"[a-z']+")


def _all_examples_for_words(words: list[str]) -> Example | None:
    """The example whose English words are `words`, found by reading the number they spell."""
    if not words:
        return None
    if words[0] == "at":
        for hour in range(1, 13):
            for minute in (0, 30, 5, 10, 15, 20, 40, 45, 50, 55):
                ex = time(hour, minute)
                if list(ex.words) == words:
                    return ex
        return None
    if words[:2] == ["on", "the"]:
        return _parse_date(words)
    noun = _noun_index(words[-1])
    if noun is not None:
        n = _read_cardinal(words[:-1])
        try:
            ex = count(n, noun) if n is not None else None
        except ValueError:
            return None
        return ex if ex is not None and list(ex.words) == words else None
    n = _read_cardinal(words)
    if n is None:
        return None
    ex = cardinal(n)
    return ex if list(ex.words) == words else None


def _noun_index(word: str) -> int | None:
    for i, (one, many, *_) in enumerate(NOUNS):
        if word in (one, many):
            return i
    return None


def _read_cardinal(words: list[str]) -> int | None:
    """The number `words` spell (None if they are not one). Checked against `cardinal` by callers."""
    values = {w: i for i, w in enumerate(ONES_EN)} | {w: 10 + i for i, w in enumerate(TEENS_EN)}
    values |= {w: 10 * i for i, w in enumerate(TENS_EN) if w}
    total, current = 0, 0
    if not words:
        return None
    for w in words:
        if w in values:
            current += values[w]
        elif w == "hundred":
            current *= 100
        elif w == "thousand":
            total, current = (total + current) * 1000, 0
        else:
            return None
    n = total + current
    return n if 0 <= n <= MAX_CARDINAL else None


def _parse_date(words: list[str]) -> Example | None:
    months = [en.lower() for en, _ in MONTHS]
    month_at = next((i for i, w in enumerate(words) if w in months), None)
    if month_at is None:
        return None
    month = months.index(words[month_at]) + 1
    same = lambda ex: [w.lower() for w in ex.words] == words  # noqa: E731
    for day in range(1, DAYS_IN_MONTH[month - 1] + 1):
        ex = date(day, month)
        if [w.lower() for w in ex.words] == words[: month_at + 1]:
            break
    else:
        return None
    if month_at == len(words) - 1:
        return ex
    return next((ex for year in range(1900, 2100) if same(ex := date(day, month, year))), None)


@lru_cache(maxsize=256)  # a page asks for the same sentence several times per rerun
def parse(text: str) -> Example | None:
    """The grammar's example for an English phrase (case, spaces and a final full stop are
    forgiven), or None when the phrase is outside the grammar. Examples are frozen: safe to share."""
    words = _WORD.findall(text.lower().replace("-", " "))
    if not words or len(words) > 16:
        return None
    ex = _all_examples_for_words(words)
    if ex is None:
        return None
    return ex if [w.lower() for w in ex.words] == words else None


def vocabulary() -> list[str]:
    """Every German segment and English word the grammar uses, sorted (for the tokenizer, which
    keeps each whole so that one piece is one morpheme with one gold link)."""
    examples = [cardinal(n) for n in (*range(1000), 1000, 21_000)]
    examples += [count(n, noun) for n in (1, 2) for noun in range(len(NOUNS))]
    examples += [date(day, 1, year) for day in range(1, 32) for year in (1900, 1905, 1999, 2021)]
    examples += [date(1, month) for month in range(1, 13)]
    examples += [time(hour, m) for hour in range(1, 13) for m in (0, 5, 10, 15, 20, 30, 40, 45, 50, 55)]
    pieces = {text for ex in examples for word in ex.german for text, _ in word}
    return sorted(pieces | {w for ex in examples for w in ex.words})


def showcase() -> list[str]:
    """40 phrases of every kind, fixed: the head inspector's built-in set for the numbers model."""
    numbers = [7, 13, 42, 99, 342, 808, 1001, 2024, 15_300, 76_549, 300_000, 785_963]
    counts = [(1, 4), (1, 0), (2, 7), (21, 0), (56, 9), (342, 3), (7, 5), (99, 10)]
    dates = [(5, 3, 2021), (31, 12, 1999), (1, 1, None), (3, 7, 1905), (22, 6, 1900), (14, 2, 2008),
             (9, 11, None), (28, 2, 2099)]  # fmt: skip
    times = [(3, 15), (3, 30), (3, 45), (12, 30), (1, 0), (7, 10), (9, 50), (11, 20), (6, 55), (10, 5),
             (2, 40), (8, 0)]  # fmt: skip
    return ([cardinal(n).source for n in numbers] + [count(n, noun).source for n, noun in counts]
            + [date(*d).source for d in dates] + [time(h, m).source for h, m in times])  # fmt: skip
