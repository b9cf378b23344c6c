"""Markdown tables of a built corpus, from its ``stats.json``: for docs/CORPUS.md and the model card.

    python -m corpus.report data/corpus/stats.json           # sources, then filters
    python -m corpus.report data/corpus/stats.json --sources # the sources table only

Each source is one row: its packages with their versions (a long list is shortened to its first
three names and the number of packages), licence, domain, weight, pairs parsed and unique training
pairs. The filter table counts every rejection by its reason, as ``build`` recorded it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

FILTERS = (
    "markup_stripped", "placeholder", "identical", "unaligned", "not_sentence", "length_ratio",
    "duplicate", "held_out", "held_out_document",
)  # fmt: skip
SHOWN_PACKAGES = 3  # a source with more packages is shortened to "N packages (first, ...)"


def packages_cell(packages: dict[str, str]) -> str:
    """``pkg`` version for up to three packages; else the count, the first names and the versions."""
    if len(packages) <= SHOWN_PACKAGES:
        return ", ".join(f"`{name}` {version}" for name, version in packages.items())
    names = ", ".join(list(packages)[:SHOWN_PACKAGES])
    return f"{len(packages)} packages ({names}, …; versions listed in stats.json)"


def _weight(value: float) -> str:
    return f"{value:g}"


def sources_table(stats: dict) -> list[str]:
    """One row per source, in table order, and a total row."""
    rows = [
        "| source | packages (version) | licence | domain | weight | pairs parsed | unique training pairs |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for name, info in stats["sources"].items():
        rows.append(
            f"| {name} | {packages_cell(info['packages'])} | {info['licence']} | {info['domain']} | "
            f"{_weight(info['weight'])} | {info['pairs_parsed']:,} | {info['pairs_train_unique']:,} |"
        )
    totals = stats["totals"]
    rows.append(
        f"| **total** | | | | | | **{totals['train_unique']:,}** ({totals['sources']} sources) |"
    )
    return rows


def filters_table(stats: dict) -> list[str]:
    """Rejections per source and reason."""
    rows = ["| source | " + " | ".join(FILTERS) + " |", "|---|" + "---:|" * len(FILTERS)]
    for name, info in stats["sources"].items():
        counts = info["filtered"]
        rows.append(f"| {name} | " + " | ".join(f"{counts.get(f, 0):,}" for f in FILTERS) + " |")
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stats", type=Path, help="a corpus's stats.json")
    parser.add_argument("--sources", action="store_true", help="print the sources table only")
    args = parser.parse_args(argv)
    stats = json.loads(args.stats.read_text(encoding="utf-8"))
    print("\n".join(sources_table(stats)))
    if not args.sources:
        print()
        print("\n".join(filters_table(stats)))


if __name__ == "__main__":
    main()
