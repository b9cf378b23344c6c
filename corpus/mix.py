"""Mix the Debian corpus with the everyday Tatoeba sentences into one training corpus.

    python -m corpus.mix --debian data/corpus-debian --out data/corpus --weight tatoeba=2

``corpus.build`` writes the Debian corpus with ``--per-source`` (each source's unique training pairs
in ``sources/``); this step adds the Tatoeba pairs and writes the corpus the tokenizer and the
trainer read:

- ``train.en/.de``       every source's pairs repeated by its weight (``corpus.table`` weights,
                         ``--weight NAME=W`` overrides them, ``tatoeba`` included), shuffled;
                         ``numbers`` are Tatoeba's and Ding's pairs with other numbers and
                         currency signs (``corpus.number_variants``); ``joined`` are two of
                         them joined into one longer pair (``corpus.joined``; weight 0 unless asked);
- ``valid-everyday``/``test-everyday``  about 1,000 Tatoeba pairs each (``corpus.tatoeba``);
- the Debian held-out splits and the lexicon, copied; ``sources/`` for the tokenizer's counts;
- ``stats.json``         the Debian build's statistics plus the mixture.

No sentence of any held-out split is a side of a training or lexicon pair: the everyday held-out
sentences are removed from the Debian sources and the lexicon, and the Debian held-out sentences
(Ding ``valid``/``test``, story and tech pages) from the Tatoeba training pairs.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from corpus import joined, number_variants, table, tatoeba
from corpus.build import SHUFFLE_SEED, weighted
from corpus.splits import without_held_out
from corpus.text import Pair, side_key

DEBIAN_HELD_OUT = ("valid", "test", "valid-story", "test-story", "valid-tech", "test-tech")
DEFAULT_WEIGHTS = {"tatoeba": 2.0, "numbers": 6.0, "joined": 0.0}
JOINED_PAIRS = 100_000


def read_pairs(prefix: Path) -> list[Pair]:
    en = Path(f"{prefix}.en").read_text(encoding="utf-8").splitlines()
    de = Path(f"{prefix}.de").read_text(encoding="utf-8").splitlines()
    if len(en) != len(de):
        raise ValueError(f"{prefix}.en has {len(en)} lines but {prefix}.de has {len(de)}")
    return list(zip(en, de))


def write_pairs(prefix: Path, pairs: list[Pair]) -> None:
    for lang, index in (("en", 0), ("de", 1)):
        Path(f"{prefix}.{lang}").write_text("".join(p[index] + "\n" for p in pairs), encoding="utf-8")


def side_keys(pairs: list[Pair]) -> set[str]:
    return {"en:" + side_key(en) for en, _ in pairs} | {"de:" + side_key(de) for _, de in pairs}


def mix(debian: Path, out: Path, weights: dict[str, float], everyday: list[Pair] | None = None) -> dict:
    """Write the mixed corpus to ``out``; returns its statistics (also written to ``stats.json``)."""
    sources_dir = debian / "sources"
    if not sources_dir.is_dir():
        raise FileNotFoundError(f"{sources_dir} not found: build the Debian corpus with --per-source")
    everyday = tatoeba.load() if everyday is None else everyday
    tatoeba_train, valid_everyday, test_everyday, everyday_held = tatoeba.hold_out(everyday)
    debian_held = set().union(*(side_keys(read_pairs(debian / s)) for s in DEBIAN_HELD_OUT))

    by_source: dict[str, list[Pair]] = {}
    removed: dict[str, int] = {}
    seen: set[Pair] = set()
    for source in table.SOURCES:
        path = sources_dir / f"{source.name}.en"
        if not path.is_file():
            continue
        pairs = read_pairs(sources_dir / source.name)
        kept = without_held_out(pairs, everyday_held)
        removed[source.name] = len(pairs) - len(kept)
        by_source[source.name] = kept
        seen.update(kept)
    kept = [p for p in without_held_out(tatoeba_train, debian_held) if p not in seen]
    removed["tatoeba"] = len(tatoeba_train) - len(kept)
    by_source["tatoeba"] = kept
    everyday_pairs = by_source["tatoeba"] + by_source.get("ding", [])
    by_source["numbers"] = number_variants.variants(everyday_pairs, everyday_held | debian_held)
    by_source["joined"] = joined.joined(everyday_pairs, JOINED_PAIRS)

    table_weights = {s.name: s.weight for s in table.SOURCES}
    unknown = set(weights) - set(by_source)
    if unknown:
        raise ValueError(f"--weight names unknown sources {sorted(unknown)}; known: {sorted(by_source)}")
    defaults = {**table_weights, **DEFAULT_WEIGHTS}
    used = {name: weights.get(name, defaults.get(name, 1.0)) for name in by_source}
    train: list[Pair] = []
    for name, pairs in by_source.items():
        train += weighted(pairs, used[name])
    random.Random(SHUFFLE_SEED).shuffle(train)

    out.mkdir(parents=True, exist_ok=True)
    (out / "sources").mkdir(exist_ok=True)
    write_pairs(out / "train", train)
    write_pairs(out / "valid-everyday", valid_everyday)
    write_pairs(out / "test-everyday", test_everyday)
    write_pairs(out / "lexicon", without_held_out(read_pairs(debian / "lexicon"), everyday_held))
    for split in DEBIAN_HELD_OUT:
        for lang in ("en", "de"):
            shutil.copyfile(debian / f"{split}.{lang}", out / f"{split}.{lang}")
    for name, pairs in by_source.items():
        write_pairs(out / "sources" / name, pairs)

    stats_path = debian / "stats.json"
    stats = json.loads(stats_path.read_text(encoding="utf-8")) if stats_path.is_file() else {}
    lines = {name: len(weighted(pairs, used[name])) for name, pairs in by_source.items()}
    stats["mixture"] = {
        "weights": used,
        "unique_pairs": {name: len(pairs) for name, pairs in by_source.items()},
        "train_lines": lines,
        "removed_as_held_out": removed,
        "tatoeba": {"file": tatoeba.FILE.name, "licence": tatoeba.LICENCE, "attribution": tatoeba.ATTRIBUTION,
                    "pairs": len(everyday)},
    }  # fmt: skip
    stats.setdefault("splits", {}).update(
        {"train": len(train), "valid-everyday": len(valid_everyday), "test-everyday": len(test_everyday)}
    )
    (out / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return stats


def parse_weights(items: list[str]) -> dict[str, float]:
    weights = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            weights[name] = float(value)
        except ValueError:
            raise SystemExit(f"--weight wants NAME=W (e.g. tatoeba=2), got {item!r}") from None
        if weights[name] < 0:
            raise SystemExit(f"--weight {item}: a weight is at least 0")
    return weights


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debian", type=Path, default=Path("data/corpus-debian"))
    parser.add_argument("--out", type=Path, default=Path("data/corpus"))
    parser.add_argument(
        "--weight", action="append", default=[], metavar="NAME=W",
        help="copies of a source's pairs in train (default: corpus.table's, tatoeba 2)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    stats = mix(args.debian, args.out, parse_weights(args.weight))
    total = sum(stats["mixture"]["train_lines"].values())
    for name, n in stats["mixture"]["train_lines"].items():
        print(f"{name:14} weight {stats['mixture']['weights'][name]:4g}  {n:8,} lines ({n / total:5.1%})")
    for split in ("valid-everyday", "test-everyday"):
        print(f"{split:14} {stats['splits'][split]:,} pairs")
    print(f"wrote {args.out}: {total:,} training lines")


if __name__ == "__main__":
    main()
