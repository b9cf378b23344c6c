"""AppStream metadata of the Debian archive (DEP-11 ``Components-amd64.yml``): app descriptions.

``apt-get update -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=true`` stores the archive's
catalogue of applications, one YAML document per component. Its ``Summary`` and ``Description``
map a language to text; the description is HTML (``<p>``, ``<ul><li>``). German and English
(``C``) descriptions are paired block by block when both have the same blocks in the same order.
The file is read by a small reader of the exact shape appstream-generator writes (mappings of
plain or folded ``>-`` scalars), so no YAML library is needed. Licences: each component's
``ProjectLicense``/metadata licence (mostly CC0-1.0 or FSFAP for the metadata).
"""

from __future__ import annotations

import gzip
import html
import re
from collections.abc import Iterator
from pathlib import Path

from corpus.source import Documents
from corpus.text import Pair

_BLOCK = re.compile(r"<(p|li)>(.*?)</\1>", re.DOTALL)


def components(text: str) -> Iterator[dict[str, dict[str, str]]]:
    """``ID``/``Package`` (under key ``""``) and each translated field of every YAML document."""
    for document in text.split("\n---\n"):
        fields: dict[str, dict[str, str]] = {"": {}}
        field = lang = ""
        for line in document.split("\n"):
            if not line.startswith(" ") and ":" in line:  # top-level key
                field, _, value = line.partition(":")
                lang = ""
                if value.strip():
                    fields[""][field] = value.strip()
            elif line.startswith("  ") and not line.startswith("   ") and ":" in line:  # language key
                lang, _, value = line.strip().partition(":")
                value = value.strip()
                folded = value in (">-", ">", "|", "|-")
                fields.setdefault(field, {})[lang] = "" if folded else value.strip("'\"")
            elif line.startswith("    ") and lang:  # continuation of a folded scalar
                fields[field][lang] = (fields[field][lang] + " " + line.strip()).strip()
        yield fields


def blocks(description: str) -> list[str]:
    """Text of each ``<p>`` and ``<li>`` in order (entities decoded, inline tags dropped)."""
    return [html.unescape(re.sub(r"<[^>]+>", "", body)) for _, body in _BLOCK.findall(description)]


def align(english: str, german: str) -> list[Pair]:
    """Block pairs of one description, or [] when the block sequences differ in length."""
    en_blocks, de_blocks = blocks(english), blocks(german)
    return list(zip(en_blocks, de_blocks)) if len(en_blocks) == len(de_blocks) else []


def documents(text: str) -> Documents:
    """Pairs per component ID (summary and description blocks)."""
    docs: Documents = {}
    for fields in components(text):
        cid = fields[""].get("ID")
        desc = fields.get("Description", {})
        if not cid or "C" not in desc or "de" not in desc:
            continue
        pairs = align(desc["C"], desc["de"])
        summary = fields.get("Summary", {})
        if "C" in summary and "de" in summary:
            pairs.insert(0, (summary["C"], summary["de"]))
        docs.setdefault(cid, []).extend(pairs)
    return docs


def parse(apt_root: Path) -> Documents:
    """Pairs of every ``Components-*.yml.gz`` index under ``apt_root/lists``."""
    docs: Documents = {}
    for path in sorted((apt_root / "lists").glob("*_Components-*.yml.gz")):
        for cid, pairs in documents(gzip.decompress(path.read_bytes()).decode("utf-8")).items():
            docs.setdefault(cid, []).extend(pairs)
    return docs
