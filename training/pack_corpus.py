"""Pack a training corpus small enough to travel to a lent GPU, and unpack it there.

The mixture repeats sources by weight (Tatoeba 4 times, Ding 6): 947,150 training lines hold 373,523
distinct pairs. The pack keeps each distinct pair once with its count, beside the held-out splits and
the lexicon, in one .tar.xz (23.5 MB as a plain tar.xz, too large beside the repository). Unpacking
gives the same multiset of training pairs; their order differs, which the trainer's seeded shuffle
makes irrelevant.

    python -m training.pack_corpus pack data/corpus .gpu/corpus.tar.xz
    python -m training.pack_corpus unpack .gpu/corpus.tar.xz data/corpus
"""

from __future__ import annotations

import argparse
import collections
import io
import tarfile
from pathlib import Path

SPLITS = ("train", "lexicon", "valid", "valid-everyday", "valid-tech", "valid-story", "test", "test-everyday",
          "test-tech", "test-story")  # fmt: skip
OPTIONAL = ("valid-lecturer",)  # packed where the corpus has it (the lecturer set's dev rows)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _add(tar: tarfile.TarFile, name: str, lines: list[str]) -> None:
    data = ("\n".join(lines) + "\n").encode("utf-8")
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def pack(corpus: Path, archive: Path) -> None:
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "w:xz", preset=9) as tar:
        for split in SPLITS + tuple(s for s in OPTIONAL if (corpus / f"{s}.en").is_file()):
            en, de = _lines(corpus / f"{split}.en"), _lines(corpus / f"{split}.de")
            if split == "train":
                counts = collections.Counter(zip(en, de, strict=True))
                en, de = [e for e, _ in counts], [d for _, d in counts]
                _add(tar, "train.count", [str(n) for n in counts.values()])
            _add(tar, f"{split}.en", en)
            _add(tar, f"{split}.de", de)


def unpack(archive: Path, corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "r:xz") as tar:
        files = {m.name: tar.extractfile(m).read().decode("utf-8").splitlines() for m in tar.getmembers()}
    counts = [int(n) for n in files.pop("train.count")]
    for lang in ("en", "de"):
        files[f"train.{lang}"] = [line for line, n in zip(files[f"train.{lang}"], counts, strict=True)
                                  for _ in range(n)]  # fmt: skip
    for name, lines in files.items():
        (corpus / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"unpacked {len(files['train.en'])} training lines ({len(counts)} distinct) into {corpus}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("what", choices=["pack", "unpack"])
    p.add_argument("source", type=Path)
    p.add_argument("target", type=Path)
    a = p.parse_args(argv)
    (pack if a.what == "pack" else unpack)(a.source, a.target)


if __name__ == "__main__":
    main()
