"""Everyday English-German sentences from the Tatoeba Project, and the everyday held-out splits.

The file ``corpus/tatoeba/deu-eng.tsv.gz`` is committed with the project (CC-BY 2.0, attribution
"www.manythings.org/anki and tatoeba.org"; see ``corpus/tatoeba/README.md``), so a fresh clone
builds the corpus without any download. One pair per line, ``English<TAB>German``.

Tatoeba holds many alternative translations and near-paraphrases of one sentence, so the held-out
splits take whole groups of pairs that share an English or a German sentence (``splits.group_pairs``):
no sentence of ``test-everyday`` or ``valid-everyday`` is a side of any training pair.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from corpus import splits
from corpus.text import Pair, normalize

FILE = Path(__file__).with_name("tatoeba") / "deu-eng.tsv.gz"
ATTRIBUTION = "www.manythings.org/anki and tatoeba.org"
LICENCE = "CC-BY-2.0-FR"
TEST_SIZE = 1000
VALID_SIZE = 1000
MAX_WORDS = 60  # longer lines are not everyday sentences (the file's longest English side has 44)


def load(path: Path = FILE) -> list[Pair]:
    """Every usable pair of the file, in file order: normalised, both sides non-empty, unique."""
    pairs: list[Pair] = []
    seen: set[Pair] = set()
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            en, tab, de = line.rstrip("\n").partition("\t")
            pair = normalize(en), normalize(de.split("\t")[0])
            if not tab or not all(pair) or max(len(s.split()) for s in pair) > MAX_WORDS:
                continue
            if pair not in seen:
                seen.add(pair)
                pairs.append(pair)
    return pairs


def hold_out(pairs: list[Pair]) -> tuple[list[Pair], list[Pair], list[Pair], set[str]]:
    """(train, valid-everyday, test-everyday, held side keys): deterministic, grouped by shared sides."""
    return splits.hold_out(pairs, TEST_SIZE, VALID_SIZE)
