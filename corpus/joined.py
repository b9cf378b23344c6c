"""Longer everyday pairs: two real short pairs joined into one sentence by "and", "but" or a full stop.

Tatoeba, the only everyday source, is short (median 6 English words); the sentences a lecturer types
are 10-30 words, and the model loses clauses of them. No redistributable corpus of longer everyday
pairs reaches this machine, so this module makes longer pairs out of the real ones: two training pairs
that are plain statements ("I'm tired." / "Ich bin müde.") joined the way both languages join two main
clauses, where German keeps the word order of each clause:

    "A, and B."  →  "A, und B."       "A, but B."  →  "A, aber B."        "A. B."  →  "A. B."

(German may put a comma before "und" between two main clauses, and must when A ends in a clause of
its own: "Ich weiß nicht, wo Tom ist, und …".)

The second clause's first word loses its capital only where both languages allow it: the word is a
pronoun, article or determiner on both sides ("The dog …" / "Der Hund …"); German "Sie" (she, they or
the polite you) and English "I" never need it, so pairs starting with them keep their capital or are
not used. The meaning of the joined sentence is as loose as the two sentences chosen at random.

# DEVIATION: the paper trains on WMT's real sentences; joined pairs are data augmentation, used only
# where the mixture asks for them (weight 0 by default: `make data` writes the corpus without them).
"""

from __future__ import annotations

import random
import re

from corpus.text import Pair

SEED = 43
MIN_WORDS, MAX_WORDS = 3, 12  # words per side of each part
# (English joiner, German joiner); the English comma goes with the first clause.
JOINERS = ((", and", ", und"), (", but", ", aber"), (".", "."))
# First words that may lose their capital inside a sentence (lower-cased forms).
EN_LOWER = frozenset(
    "the a an he she it we they you this that these those there my your his her our their nobody "
    "everyone everybody someone somebody nothing everything all some many no".split()
)
DE_LOWER = frozenset(
    "der die das den dem des ein eine einen einem einer er es wir du ihr dies diese dieser dieses "
    "diesen mein meine meinen dein deine sein seine unser unsere niemand jeder jede jedes alle "
    "einige viele kein keine man ich".split()
)
_PLAIN = re.compile(r"^[A-ZÄÖÜ][^.?!;:\"“”„«»()\[\]]*\.$")  # one statement: capital, one full stop


def is_statement(pair: Pair) -> bool:
    """Both sides one plain sentence of MIN_WORDS..MAX_WORDS words ending in a full stop."""
    return all(_PLAIN.match(side) and MIN_WORDS <= len(side.split()) <= MAX_WORDS for side in pair)


def _first(side: str) -> str:
    return side.split(" ", 1)[0]


def can_follow(pair: Pair) -> bool:
    """The pair may be a second clause: its first words may lose their capitals on both sides."""
    en, de = _first(pair[0]), _first(pair[1])
    if en == "I":
        return de == "Ich"  # "I" keeps its capital in English; "ich" loses it
    return en.lower() in EN_LOWER and de.lower() in DE_LOWER and de != "Sie"


def _lower_first(side: str) -> str:
    return side[0].lower() + side[1:]


def join(first: Pair, second: Pair, joiner: tuple[str, str]) -> Pair:
    """``first`` and ``second`` as one pair, joined by (English, German) ``joiner``."""
    en_join, de_join = joiner
    if en_join == ".":  # two sentences: both keep their capitals
        return first[0] + " " + second[0], first[1] + " " + second[1]
    en_second = second[0] if _first(second[0]) == "I" else _lower_first(second[0])
    return (
        first[0][:-1] + en_join + " " + en_second,
        first[1][:-1] + de_join + " " + _lower_first(second[1]),
    )


def joined(pairs: list[Pair], n: int, seed: int = SEED) -> list[Pair]:
    """``n`` joined pairs (fewer if there are too few statements), each part a pair of ``pairs``."""
    statements = sorted({p for p in pairs if is_statement(p)})
    followers = [p for p in statements if can_follow(p)]
    if not statements or not followers:
        return []
    rng = random.Random(seed)
    out: set[Pair] = set()
    for _ in range(4 * n):
        if len(out) >= n:
            break
        first, second = rng.choice(statements), rng.choice(followers)
        if first != second:
            out.add(join(first, second, rng.choice(JOINERS)))
    return sorted(out)
