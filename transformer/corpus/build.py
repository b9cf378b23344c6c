"""Fetch the Debian packages, parse every source, hold out valid/test and write the corpus.

    python -m transformer.corpus.build --out data/corpus

Packages are fetched with ``apt-get download`` (no installation) into ``data/debs/`` and unpacked
with ``dpkg-deb -x`` into ``data/raw/``; both steps are skipped when already done. The same
packages give byte-identical output files:

- ``train.en/.de``    sentence pairs of all sources; Ding sentences repeated ``DING_WEIGHT`` times
- ``lexicon.en/.de``  Ding word/phrase pairs, kept apart so the trainer samples them at its own rate
- ``valid.en/.de``, ``test.en/.de``  general-language Ding sentences (see ``splits``)
- ``stats.json``      counts per source and split, and each source's package and licence
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import time
from pathlib import Path

from transformer.corpus import ding, lo_help, mallard, mo, splits
from transformer.corpus.text import Pair

# Ding sentences are the only general-language text (the test set's domain); repeating them 3x
# makes them ~60% of the sentence stream so software help does not dominate what the model learns.
DING_WEIGHT = 3
SHUFFLE_SEED = 1234

# package name, apt version pin (None: whatever the archive has), licence
PACKAGES = {
    "trans-de-en": ("1.9-6", "GPL-2+"),
    "libreoffice-help-en-us": (None, "MPL-2.0"),
    "libreoffice-help-de": (None, "MPL-2.0"),
    "libreoffice-l10n-de": (None, "MPL-2.0"),
    "gnome-user-docs": (None, "CC-BY-SA-3.0"),
}
SOURCES = {  # corpus source -> (packages, licence, what it is)
    "ding": (["trans-de-en"], "GPL-2+", "Ding dictionary (TU Chemnitz), example sentences"),
    "lo_help": (
        ["libreoffice-help-en-us", "libreoffice-help-de"],
        "MPL-2.0",
        "LibreOffice help pages, aligned by paragraph id",
    ),
    "lo_ui": (["libreoffice-l10n-de"], "MPL-2.0", "LibreOffice UI message catalogues (.mo)"),
    "gnome": (["gnome-user-docs"], "CC-BY-SA-3.0", "GNOME user docs (Mallard pages)"),
}


def _deb_path(debs: Path, name: str, version: str | None) -> Path | None:
    found = sorted(debs.glob(f"{name}_{version or '*'}_*.deb"))
    return found[-1] if found else None


def fetch(debs: Path) -> dict[str, Path]:
    """Download missing packages with ``apt-get download`` (running ``apt-get update`` if needed)."""
    debs.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, (version, _) in PACKAGES.items():
        if _deb_path(debs, name, version) is None:
            spec = f"{name}={version}" if version else name
            cmd = ["apt-get", "download", spec]
            if subprocess.run(cmd, cwd=debs, check=False).returncode != 0:
                subprocess.run(["apt-get", "update"], check=True)
                subprocess.run(cmd, cwd=debs, check=True)
        path = _deb_path(debs, name, version)
        if path is None:
            raise FileNotFoundError(f"apt-get download {name} left no .deb in {debs}")
        paths[name] = path
    return paths


def unpack(deb_paths: dict[str, Path], raw: Path) -> None:
    """``dpkg-deb -x`` each package into ``raw``; a stamp file per .deb makes reruns instant."""
    raw.mkdir(parents=True, exist_ok=True)
    for path in deb_paths.values():
        stamp = raw / f".unpacked-{path.name}"
        if not stamp.exists():
            subprocess.run(["dpkg-deb", "-x", str(path), str(raw)], check=True)
            stamp.touch()


def parse_sources(raw: Path) -> tuple[dict[str, list[Pair]], list[Pair]]:
    """Sentence pairs per source (deduplicated across sources, in source order) and the lexicon."""
    ding_sentences, lexicon = ding.parse_file(raw / "usr/share/trans/de-en")
    parsed = {
        "ding": ding_sentences,
        "lo_help": lo_help.parse_tree(raw / "usr/share/libreoffice/help"),
        "lo_ui": mo.parse_dir(raw / "usr/lib/libreoffice/program/resource/de"),
        "gnome": mallard.parse_tree(raw / "usr/share/help"),
    }
    seen: set[Pair] = set()
    sources: dict[str, list[Pair]] = {}
    for name, pairs in parsed.items():  # UI strings often repeat help text: count them once
        sources[name] = [p for p in pairs if p not in seen]
        seen.update(sources[name])
    return sources, lexicon


def _write_pairs(out: Path, stem: str, pairs: list[Pair]) -> None:
    for lang, index in (("en", 0), ("de", 1)):
        text = "".join(pair[index] + "\n" for pair in pairs)
        (out / f"{stem}.{lang}").write_text(text, encoding="utf-8")


def build(
    raw: Path,
    out: Path,
    versions: dict[str, str],
    test_size: int = splits.TEST_SIZE,
    valid_size: int = splits.VALID_SIZE,
) -> dict:
    """Parse, split and write the corpus; returns the statistics written to ``stats.json``."""
    sources, lexicon = parse_sources(raw)
    ding_train, valid, test, held = splits.hold_out(sources["ding"], test_size, valid_size)
    train_by_source = {"ding": splits.without_held_out(ding_train, held)}
    for name in ("lo_help", "lo_ui", "gnome"):
        train_by_source[name] = splits.without_held_out(sources[name], held)
    lexicon_train = splits.without_held_out(lexicon, held)

    train = train_by_source["ding"] * DING_WEIGHT
    for name in ("lo_help", "lo_ui", "gnome"):
        train += train_by_source[name]
    random.Random(SHUFFLE_SEED).shuffle(train)  # spread repeats and sources over the file

    out.mkdir(parents=True, exist_ok=True)
    for stem, pairs in (
        ("train", train), ("lexicon", lexicon_train), ("valid", valid), ("test", test)
    ):  # fmt: skip
        _write_pairs(out, stem, pairs)

    stats = {
        "sources": {
            name: {
                "description": desc,
                "licence": licence,
                "packages": {pkg: versions.get(pkg, "?") for pkg in pkgs},
                "pairs_parsed": len(sources[name]),
                "pairs_train_unique": len(train_by_source[name]),
            }
            for name, (pkgs, licence, desc) in SOURCES.items()
        },
        "ding_weight": DING_WEIGHT,
        "splits": {
            "train": len(train),
            "train_unique": sum(len(p) for p in train_by_source.values()),
            "lexicon": len(lexicon_train),
            "valid": len(valid),
            "test": len(test),
        },
        "words": {
            "train_en": sum(len(en.split()) for en, _ in train),
            "train_de": sum(len(de.split()) for _, de in train),
        },
        "lexicon_parsed": len(lexicon),
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return stats


def _version_of(deb: Path) -> str:
    return deb.name.split("_")[1].replace("%3a", ":")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/corpus"))
    parser.add_argument("--debs", type=Path, default=Path("data/debs"))
    parser.add_argument("--raw", type=Path, default=Path("data/raw"))
    args = parser.parse_args(argv)

    start = time.perf_counter()
    deb_paths = fetch(args.debs)
    unpack(deb_paths, args.raw)
    versions = {name: _version_of(path) for name, path in deb_paths.items()}
    stats = build(args.raw, args.out, versions)
    for name, info in stats["sources"].items():
        print(f"{name:8} parsed {info['pairs_parsed']:7,}  train (unique) "
              f"{info['pairs_train_unique']:7,}  [{info['licence']}]")  # fmt: skip
    for split, count in stats["splits"].items():
        print(f"{split:13} {count:9,}")
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
