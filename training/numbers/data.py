"""The numbers corpus: phrase pairs of the grammar, split by number so test numbers are never seen.

    python -m training.numbers.data --out data/numbers

Writes ``train``, ``valid`` and ``test`` (``.en``/``.de``, one phrase per line), ``stats.json`` and
``symbols.txt`` (the morphemes the tokenizer keeps whole),
in the layout `training.train` and `training.evaluate` read. Each example's *key* (the
number, the date, the clock time) is hashed into a split, so "three hundred forty-two" in the test
set means 342 never appeared in training, neither alone nor as a count ("342 apples"). The same
seed gives byte-identical files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from tasks.numbers import grammar
from tasks.numbers.grammar import Example

TEST_PERCENT, VALID_PERCENT = 5, 5
# Unique training examples per kind (cardinals and dates are sampled; counts and times are all
# taken), and how often each is written: the 110 clock times would drown otherwise (written 20 times
# each, "half past three" still came out as "halb drei").
CARDINALS, DATES = 120_000, 40_000
REPEAT = {"cardinal": 1, "count": 1, "date": 1, "time": 100}
# "one apple" / "one cat" are word forms ("ein Apfel", "eine Katze": the noun's gender decides), one
# phrase per noun among 170,000: written once each, the model said "ein" for all of them; 30 times
# each, it still mixed the nouns up ("one cat" -> "eine Blume").
REPEAT_SINGULAR = 100
# Held-out sentences per kind in test (valid: half as many).
HELD_OUT = {"cardinal": 500, "count": 200, "date": 300, "time": 100}
SEED = 42


def split_of(key: tuple) -> str:
    """'test', 'valid' or 'train' for an example key, by a hash (stable across runs and machines)."""
    bucket = int(hashlib.sha256(repr(key).encode()).hexdigest(), 16) % 100
    return "test" if bucket < TEST_PERCENT else "valid" if bucket < TEST_PERCENT + VALID_PERCENT else "train"


def _random_cardinal(rng: random.Random) -> int:
    digits = rng.randint(1, 6)  # as many 5-digit as 2-digit numbers: every place value is practised
    return rng.randint(0 if digits == 1 else 10 ** (digits - 1), 10**digits - 1)


def _cardinals(rng: random.Random) -> Iterator[Example]:
    while True:
        yield grammar.cardinal(_random_cardinal(rng))


def _counts() -> Iterator[Example]:
    for n in range(1, 1000):
        if n > 100 and n % 100 == 1:
            continue
        for noun in range(len(grammar.NOUNS)):
            yield grammar.count(n, noun)


def _dates(rng: random.Random) -> Iterator[Example]:
    while True:
        month = rng.randint(1, 12)
        day = rng.randint(1, grammar.DAYS_IN_MONTH[month - 1])
        year = None if rng.random() < 0.2 else rng.randint(1900, 2099)
        yield grammar.date(day, month, year)


def _times() -> Iterator[Example]:
    for hour in range(1, 13):
        for minute in (0, 5, 10, 15, 20, 30, 40, 45, 50, 55):
            yield grammar.time(hour, minute)


def _take(stream: Iterator[Example], split: str, limit: int, seen: set[str]) -> list[Example]:
    """Up to `limit` distinct examples of `split` from `stream` (a finite stream may give fewer)."""
    out: list[Example] = []
    misses = 0
    for ex in stream:
        if split_of(ex.key) != split or ex.source in seen:
            misses += 1
            if misses > 50 * max(limit, 1_000):  # a sampled stream that has run dry
                break
            continue
        seen.add(ex.source)
        out.append(ex)
        if len(out) >= limit:
            break
    return out


def build(seed: int = SEED, scale: float = 1.0) -> dict[str, list[Example]]:
    """Examples of every split, in a fixed order (train shuffled, repeats included). `scale` < 1
    makes every split smaller (a quick smoke test of the pipeline)."""
    splits: dict[str, list[Example]] = {}
    for split in ("train", "valid", "test"):
        rng = random.Random(f"{seed}-{split}")
        sizes = {"cardinal": CARDINALS, "count": 10**6, "date": DATES, "time": 10**6}
        if split != "train":
            sizes = {kind: n * (1 if split == "test" else 0.5) for kind, n in HELD_OUT.items()}
        sizes = {kind: max(1, int(n * scale)) for kind, n in sizes.items()}
        seen: set[str] = set()
        chosen = (
            _take(_cardinals(rng), split, sizes["cardinal"], seen)
            + _take(_counts(), split, sizes["count"], seen)
            + _take(_dates(rng), split, sizes["date"], seen)
            + _take(_times(), split, sizes["time"], seen)
        )
        if split == "train":
            chosen = [ex for ex in chosen for _ in range(_repeats(ex))]
        rng.shuffle(chosen)
        splits[split] = chosen
    return splits


def _repeats(ex: Example) -> int:
    return REPEAT_SINGULAR if ex.kind == "count" and ex.key == ("n", 1) else REPEAT[ex.kind]


def write(splits: dict[str, list[Example]], out: Path) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    for split, examples in splits.items():
        (out / f"{split}.en").write_text("".join(ex.source + "\n" for ex in examples), encoding="utf-8")
        (out / f"{split}.de").write_text("".join(ex.target + "\n" for ex in examples), encoding="utf-8")
    stats = {
        split: {"lines": len(exs), "unique": len({ex.source for ex in exs}),
                "by_kind": dict(sorted(Counter(ex.kind for ex in exs).items()))}
        for split, exs in splits.items()
    }  # fmt: skip
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    # Whole words and morphemes for the tokenizer, bare and word-initial (SentencePiece's "▁").
    symbols = [s for piece in grammar.vocabulary() for s in (piece, "\u2581" + piece)]
    (out / "symbols.txt").write_text("".join(s + "\n" for s in symbols), encoding="utf-8")
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/numbers"))
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    stats = write(build(args.seed), args.out)
    for split, info in stats.items():
        print(f"{split:6} {info['lines']:8,} lines {info['unique']:8,} unique  {info['by_kind']}")


if __name__ == "__main__":
    main()
