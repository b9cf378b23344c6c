"""Fetch the Debian packages, parse every source, hold out the test sets and write the corpus.

    python -m corpus.build --out data/corpus

Sources are listed in ``corpus.table``. Packages are fetched with ``apt-get download`` (no
installation) into ``data/debs/`` (a cache: present files are not fetched again); the sources
without packages (DDTP, AppStream) read apt's indexes, fetched with ``apt-get update`` into a
private state directory ``data/apt/`` so the machine's own apt state is untouched. Each source's
packages are unpacked (only the members it names) into ``data/raw/<source>/``, parsed, and the
tree is deleted. The same packages give byte-identical output files:

- ``train.en/.de``    sentence pairs of all sources, each repeated by its weight, shuffled
- ``lexicon.en/.de``  Ding word/phrase pairs, kept apart so the trainer samples them at its own rate
- ``valid.en/.de``, ``test.en/.de``  general-language Ding sentences (see ``splits``)
- ``test-story``/``valid-story``  one whole Wesnoth campaign each (``table.TEST_STORY_DOCUMENT``)
- ``test-tech``/``valid-tech``    whole help pages drawn from the technical sources
- ``stats.json``      counts per source (every filter's rejections), split, package and licence
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import subprocess
import time
from pathlib import Path

from corpus import ding, splits, table
from corpus.source import Documents, Source
from corpus.text import Pair, clean_pairs, side_key

SHUFFLE_SEED = 1234
HELD_OUT_SIZE = 500  # story and tech sets: pairs per set
HELD_OUT_WORDS = (5, 25)  # English length of a story/tech held-out pair


# --- Fetching and unpacking -------------------------------------------------------------------


def _deb_path(debs: Path, name: str, version: str | None) -> Path | None:
    found = sorted(debs.glob(f"{name}_{(version or '*').replace(':', '%3a')}_*.deb"))
    return found[-1] if found else None


def fetch(debs: Path, names: tuple[str, ...], pinned: dict[str, str] | None = None) -> dict[str, Path]:
    """Download missing packages with ``apt-get download`` (running ``apt-get update`` if needed)."""
    debs.mkdir(parents=True, exist_ok=True)
    pinned = pinned or {}
    paths: dict[str, Path] = {}
    for name in names:
        version = pinned.get(name)
        if _deb_path(debs, name, version) is None:
            cmd = ["apt-get", "download", f"{name}={version}" if version else name]
            if subprocess.run(cmd, cwd=debs, check=False).returncode != 0:
                subprocess.run(["apt-get", "update"], check=True)
                subprocess.run(cmd, cwd=debs, check=True)
        path = _deb_path(debs, name, version)
        if path is None:
            raise FileNotFoundError(f"apt-get download {name} left no .deb in {debs}")
        paths[name] = path
    return paths


def update_indexes(apt_root: Path) -> None:
    """Fetch the archive's English and German description indexes and DEP-11 metadata, privately."""
    lists = apt_root / "lists"
    if any(lists.glob("*_i18n_Translation-de*")) and any(lists.glob("*_Components-*.yml.gz")):
        return
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    cmd = [
        "apt-get", "update", "-o", f"Dir::State::Lists={lists.resolve()}", "-o", "Acquire::Languages=en,de",
        "-o", "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=true",
    ]  # fmt: skip
    subprocess.run(cmd, check=True)


def unpack(deb: Path, dest: Path, members: tuple[str, ...]) -> None:
    """``dpkg-deb --fsys-tarfile`` piped into ``tar -x``, limited to ``members`` patterns if any."""
    dest.mkdir(parents=True, exist_ok=True)
    with subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE) as deb_tar:
        tar = ["tar", "-x", "-C", str(dest), "--no-same-owner"]
        if members:
            tar += ["--wildcards", *members]
        # tar exits 2 when a pattern matches nothing in this package; that is not an error here
        subprocess.run(tar, stdin=deb_tar.stdout, check=False, stderr=subprocess.DEVNULL)
    if deb_tar.returncode != 0:
        raise RuntimeError(f"dpkg-deb could not read {deb}")


def _version_of(deb: Path) -> str:
    return deb.name.split("_")[1].replace("%3a", ":")


def parse_source(source: Source, debs: Path, raw: Path, apt_root: Path) -> tuple[Documents, dict[str, str]]:
    """Documents of one source and the versions of its packages; the unpacked tree is removed."""
    if not source.packages:
        update_indexes(apt_root)
        release = sorted((apt_root / "lists").glob("*_dists_*_InRelease"))
        return source.parse(apt_root), {"apt indexes": _index_date(release)}
    deb_paths = fetch(debs, source.packages, table.PINNED)
    tree = raw / source.name
    shutil.rmtree(tree, ignore_errors=True)
    try:
        for path in deb_paths.values():
            unpack(path, tree, source.members)
        docs = source.parse(tree)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return docs, {name: _version_of(path) for name, path in deb_paths.items()}


def _index_date(release_files: list[Path]) -> str:
    for path in release_files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("Date:") and "_bookworm_" in path.name:
                return line.split(":", 1)[1].strip()
    return "?"


# --- Held-out sets, weights, statistics ----------------------------------------------------------


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def held_out_pairs(pairs: list[Pair], held_keys: set[str], size: int = HELD_OUT_SIZE) -> list[Pair]:
    """Up to ``size`` pairs of 5-25 English words, one per English side, none sharing a held side."""
    low, high = HELD_OUT_WORDS
    chosen: dict[str, Pair] = {}
    for en, de in sorted(pairs, key=lambda p: _hash(p[0] + "\t" + p[1])):
        key_en, key_de = "en:" + side_key(en), "de:" + side_key(de)
        if low <= len(en.split()) <= high and key_en not in held_keys and key_de not in held_keys:
            if key_en not in chosen:
                chosen[key_en] = (en, de)
        if len(chosen) >= size:
            break
    return list(chosen.values())


def tech_documents(
    cleaned: dict[str, Documents], held_keys: set[str], size: int = HELD_OUT_SIZE
) -> tuple[set[tuple[str, str]], list[Pair], list[Pair]]:
    """Whole pages of ``table.TECH_HELD_OUT_SOURCES`` for test-tech and valid-tech, in hash order.

    Pages are taken until each set holds ``size`` pairs; every side of a taken page joins
    ``held_keys`` so no sentence of it reaches training through another page or source.
    """
    pool = [
        (_hash(f"{name}/{doc}"), name, doc)
        for name, docs in cleaned.items()
        if name in table.TECH_HELD_OUT_SOURCES
        for doc in docs
    ]
    taken: set[tuple[str, str]] = set()
    sets: list[list[Pair]] = [[], []]
    for _, name, doc in sorted(pool):
        target = next((s for s in sets if len(s) < size), None)
        if target is None:
            break
        usable = held_out_pairs(cleaned[name][doc], held_keys, size - len(target))
        if not usable:
            continue
        taken.add((name, doc))
        target.extend(usable)
        for en, de in cleaned[name][doc]:  # every side of the page, also of pairs not chosen
            held_keys.add("en:" + side_key(en))
            held_keys.add("de:" + side_key(de))
    return taken, sets[0], sets[1]


def weighted(pairs: list[Pair], weight: float) -> list[Pair]:
    """``int(weight)`` copies of every pair, plus one more for the hash-chosen fractional share."""
    whole, fraction = int(weight), weight - int(weight)
    out: list[Pair] = []
    for pair in pairs:
        extra = fraction > 0 and int(_hash(pair[0] + "\t" + pair[1])[:8], 16) / 0xFFFFFFFF < fraction
        out.extend([pair] * (whole + extra))
    return out


def _write_pairs(out: Path, stem: str, pairs: list[Pair]) -> None:
    for lang, index in (("en", 0), ("de", 1)):
        text = "".join(pair[index] + "\n" for pair in pairs)
        (out / f"{stem}.{lang}").write_text(text, encoding="utf-8")


def _add_keys(keys: set[str], pairs: list[Pair]) -> None:
    for en, de in pairs:
        keys.add("en:" + side_key(en))
        keys.add("de:" + side_key(de))


def assemble(
    parsed: dict[str, Documents],
    lexicon: list[Pair],
    test_size: int = splits.TEST_SIZE,
    valid_size: int = splits.VALID_SIZE,
    held_out_size: int = HELD_OUT_SIZE,
) -> tuple[dict[str, list[Pair]], dict[str, list[Pair]], dict]:
    """Filter, hold out and deduplicate: (pairs per split, training pairs per source, statistics).

    ``parsed`` maps each source of ``table.SOURCES`` to its documents, in table order; the Ding
    sentences are the first source's only document, split exactly as when Ding was the only source,
    so ``test`` and ``valid`` keep their bytes.
    """
    ding_sentences = parsed["ding"]["ding"]
    _, valid, test, held = splits.hold_out(ding_sentences, test_size, valid_size)
    filters: dict[str, dict[str, int]] = {name: {} for name in parsed}
    cleaned: dict[str, Documents] = {}
    for name, docs in parsed.items():
        min_words = 3
        cleaned[name] = {doc: clean_pairs(pairs, filters[name], min_words) for doc, pairs in docs.items()}
    held_docs: set[tuple[str, str]] = set()
    story = {}
    story_docs = (("test-story", table.TEST_STORY_DOCUMENT), ("valid-story", table.VALID_STORY_DOCUMENT))
    for split, doc in story_docs:
        story[split] = held_out_pairs(cleaned.get(table.STORY_SOURCE, {}).get(doc, []), held, held_out_size)
        held_docs.add((table.STORY_SOURCE, doc))
        _add_keys(held, cleaned.get(table.STORY_SOURCE, {}).get(doc, []))
    tech_docs, test_tech, valid_tech = tech_documents(cleaned, held, held_out_size)
    held_docs |= tech_docs

    seen: set[Pair] = set()
    train_by_source: dict[str, list[Pair]] = {}
    for name, docs in cleaned.items():
        counts = filters[name]
        kept: list[Pair] = []
        for doc in sorted(docs) if name != "ding" else list(docs):
            if (name, doc) in held_docs:
                counts["held_out_document"] = counts.get("held_out_document", 0) + len(docs[doc])
                continue
            for pair in docs[doc]:
                if "en:" + side_key(pair[0]) in held or "de:" + side_key(pair[1]) in held:
                    counts["held_out"] = counts.get("held_out", 0) + 1
                elif pair in seen:
                    counts["duplicate"] = counts.get("duplicate", 0) + 1
                else:
                    seen.add(pair)
                    kept.append(pair)
        train_by_source[name] = kept

    train: list[Pair] = []
    for source in table.SOURCES:
        if source.name in train_by_source:
            train += weighted(train_by_source[source.name], source.weight)
    random.Random(SHUFFLE_SEED).shuffle(train)  # spread repeats and sources over the file
    lexicon_train = splits.without_held_out(lexicon, held)
    outputs = {
        "train": train, "lexicon": lexicon_train, "valid": valid, "test": test,
        "valid-story": story["valid-story"], "test-story": story["test-story"],
        "valid-tech": valid_tech, "test-tech": test_tech,
    }  # fmt: skip
    return outputs, train_by_source, {"filters": filters, "held_documents": sorted(map(list, held_docs))}


def build(
    debs: Path, raw: Path, apt_root: Path, out: Path, only: set[str] | None = None, per_source: bool = False
) -> dict:
    """Fetch, parse, split and write the corpus; returns the statistics written to ``stats.json``."""
    parsed: dict[str, Documents] = {}
    versions: dict[str, dict[str, str]] = {}
    sources = [s for s in table.SOURCES if only is None or s.name in only or s.name == "ding"]
    for i, source in enumerate(sources, 1):
        start = time.perf_counter()
        what = f"{len(source.packages)} package(s)" if source.packages else "apt indexes"
        print(f"[{i}/{len(sources)}] {source.name}: {what} ...", flush=True)
        parsed[source.name], versions[source.name] = parse_source(source, debs, raw, apt_root)
        n_pairs = sum(len(p) for p in parsed[source.name].values())
        print(f"      {len(parsed[source.name]):,} documents, {n_pairs:,} raw pairs "
              f"({time.perf_counter() - start:.1f} s)", flush=True)  # fmt: skip
    lexicon_tree = raw / "lexicon"
    try:
        _, lexicon = ding.parse_file(_ding_file(debs, lexicon_tree))
    finally:
        shutil.rmtree(lexicon_tree, ignore_errors=True)
    outputs, train_by_source, extra = assemble(parsed, lexicon)

    out.mkdir(parents=True, exist_ok=True)
    for stem, pairs in outputs.items():
        _write_pairs(out, stem, pairs)
    if per_source:  # for reviewing a source: its unique training pairs, in table order
        (out / "sources").mkdir(exist_ok=True)
        for name, pairs in train_by_source.items():
            _write_pairs(out / "sources", name, pairs)
    stats = {
        "sources": {
            s.name: {
                "description": s.description,
                "domain": s.domain,
                "licence": s.licence,
                "weight": s.weight,
                "packages": versions[s.name],
                "documents": len(parsed[s.name]),
                "pairs_parsed": sum(len(p) for p in parsed[s.name].values()),
                "filtered": dict(sorted(extra["filters"][s.name].items())),
                "pairs_train_unique": len(train_by_source[s.name]),
            }
            for s in sources
        },
        "ding_weight": table.DING_WEIGHT,
        "held_out_documents": extra["held_documents"],
        "totals": {
            "sources": sum(1 for pairs in train_by_source.values() if pairs),
            "train_unique": sum(len(p) for p in train_by_source.values()),
        },
        "splits": {stem: len(pairs) for stem, pairs in outputs.items()},
        "words": {
            "train_en": sum(len(en.split()) for en, _ in outputs["train"]),
            "train_de": sum(len(de.split()) for _, de in outputs["train"]),
        },
        "lexicon_parsed": len(lexicon),
    }
    (out / "stats.json").write_text(json.dumps(stats, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return stats


def _ding_file(debs: Path, tree: Path) -> Path:
    """The Ding dictionary for the lexicon, unpacked once more (a 4 MB file) into ``tree``."""
    deb = fetch(debs, ("trans-de-en",), table.PINNED)["trans-de-en"]
    unpack(deb, tree, ("*/trans/de-en",))
    return tree / table.DING_FILE


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("data/corpus"))
    parser.add_argument("--debs", type=Path, default=Path("data/debs"))
    parser.add_argument("--raw", type=Path, default=Path("data/raw"))
    parser.add_argument("--apt", type=Path, default=Path("data/apt"), help="private apt state (indexes)")
    parser.add_argument("--only", nargs="*", help="only these sources (and Ding), for a quick look")
    parser.add_argument("--per-source", action="store_true", help="also write sources/NAME.en/.de")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    only = set(args.only) if args.only else None
    stats = build(args.debs, args.raw, args.apt, args.out, only, args.per_source)
    for name, info in stats["sources"].items():
        print(f"{name:14} parsed {info['pairs_parsed']:7,}  train (unique) "
              f"{info['pairs_train_unique']:7,}  [{info['licence']}]")  # fmt: skip
    for split, count in stats["splits"].items():
        print(f"{split:13} {count:9,}")
    totals = stats["totals"]
    print(f"{totals['train_unique']:,} unique training pairs from {totals['sources']} sources")
    print(f"wrote {args.out} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
