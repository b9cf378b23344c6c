"""Debian's translated package descriptions (DDTP: ``Translation-en`` and ``Translation-de``).

``apt-get update -o Acquire::Languages=en,de`` fetches one index per language; every stanza holds
a ``Description-md5`` (of the English text) and ``Description-<lang>``. Joining the two indexes on
the md5 pairs each German description with the exact English text it was translated from. A
description is a synopsis line and a long text whose paragraphs are separated by a `` .`` line;
paragraphs are paired in order when both sides have as many, and bullet lists item by item.
The descriptions are written by Debian maintainers and translators (licence: that of each package;
the DDTP texts themselves are offered under the packages' terms).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

from corpus.source import Documents
from corpus.text import Pair

_BULLET = re.compile(r"^\s*[*+o-]\s+")


def stanzas(text: str) -> Iterator[dict[str, str]]:
    """Fields of each stanza of a Translation index (continuation lines kept with their newline)."""
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        name = ""
        for line in block.split("\n"):
            if line.startswith(" ") and name:
                fields[name] += "\n" + line
            elif ":" in line:
                name, _, value = line.partition(":")
                fields[name] = value.strip()
        if fields:
            yield fields


def descriptions(text: str, lang: str) -> dict[str, tuple[str, str]]:
    """Description-md5 -> (first package, description text) of one index."""
    out: dict[str, tuple[str, str]] = {}
    for fields in stanzas(text):
        md5, desc = fields.get("Description-md5"), fields.get(f"Description-{lang}")
        if md5 and desc:
            out.setdefault(md5, (fields.get("Package", md5), desc))
    return out


def paragraphs(description: str) -> list[list[str]]:
    """Long-description paragraphs, each a list of blocks (one block per bullet item, else one).

    Lines indented by two spaces or more are verbatim (code, tables) and make the whole paragraph
    unusable; such paragraphs become an empty list so paragraph counts still line up.
    """
    lines = description.split("\n")[1:]  # line 0 is the synopsis
    out: list[list[str]] = []
    current: list[str] = []
    for line in lines + [" ."]:
        if line.strip() == ".":
            if current:
                out.append(_blocks(current))
            current = []
        else:
            current.append(line[1:] if line.startswith(" ") else line)
    return out


def _blocks(lines: list[str]) -> list[str]:
    if any(line.startswith(" ") and not _BULLET.match(line) for line in lines):
        return []
    blocks: list[str] = []
    for line in lines:
        if _BULLET.match(line) or not blocks:
            blocks.append(_BULLET.sub("", line))
        else:
            blocks[-1] += " " + line.strip()
    return [" ".join(b.split()) for b in blocks]


def align(en_desc: str, de_desc: str) -> list[Pair]:
    """Block pairs of one description, or [] when the structures differ."""
    en_pars, de_pars = paragraphs(en_desc), paragraphs(de_desc)
    if len(en_pars) != len(de_pars):
        return []
    pairs: list[Pair] = []
    for en_blocks, de_blocks in zip(en_pars, de_pars):
        if len(en_blocks) == len(de_blocks):
            pairs.extend(zip(en_blocks, de_blocks))
    return pairs


def join(en_text: str, de_text: str) -> Documents:
    """Pairs per package (the first package carrying each description), in md5 order."""
    english = descriptions(en_text, "en")
    docs: Documents = {}
    for md5, (package, de_desc) in sorted(descriptions(de_text, "de").items()):
        if md5 in english:
            pairs = align(english[md5][1], de_desc)
            if pairs:
                docs.setdefault(package, []).extend(pairs)
    return docs


def _read_index(path: Path) -> str:
    """Text of an index as apt stored it (lz4, xz, gz or plain), decompressed by apt itself."""
    cmd = ["/usr/lib/apt/apt-helper", "cat-file", str(path)]
    return subprocess.run(cmd, check=True, capture_output=True).stdout.decode("utf-8", errors="replace")


def parse(apt_root: Path) -> Documents:
    """Pairs from the ``main`` Translation-en/-de indexes under ``apt_root/lists``."""
    lists = apt_root / "lists"
    found = {lang: sorted(lists.glob(f"*_dists_*_main_i18n_Translation-{lang}*")) for lang in ("en", "de")}
    en_text = "\n\n".join(_read_index(p) for p in found["en"])
    de_text = "\n\n".join(_read_index(p) for p in found["de"])
    return join(en_text, de_text)
