"""LibreOffice UI message catalogues (``libreoffice-l10n-de``, MPL-2.0), read from ``.mo`` files.

A GNU ``.mo`` file is a header, a table of original strings and a table of translations (each
entry: length and offset). We read it with our own small reader (no pickles, no locale setup) and
also write it, so tests can build fixtures. Keys may carry a context (``ctx\\x04msgid``) and plural
forms are ``\\x00``-separated; both are handled.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

from corpus.text import Pair, align_paragraph

_MAGIC_LE = 0x950412DE
_HEADER = struct.Struct("<7I")  # magic, revision, count, orig table, trans table, hash size, offset
# Placeholders, markup and keyboard accelerators mean the string is a template, not a sentence.
_TEMPLATE = re.compile(r"%|\{|\}|<[^>]*>|~|\$\(|\$[A-Z0-9]|_\w|\\|&\w+;")
MIN_WORDS = 4


def read_mo(data: bytes) -> dict[str, str]:
    """Catalogue of a little- or big-endian ``.mo`` file: key (``ctx\\x04msgid``) -> msgstr."""
    if len(data) < _HEADER.size:
        raise ValueError("not a .mo file: too short")
    (magic,) = struct.unpack_from("<I", data)
    endian = "<" if magic == _MAGIC_LE else ">"
    if struct.unpack_from(endian + "I", data)[0] != _MAGIC_LE:
        raise ValueError("not a .mo file: bad magic number")
    _, _, count, orig_at, trans_at, _, _ = struct.unpack_from(endian + "7I", data)
    catalog: dict[str, str] = {}
    for i in range(count):
        olen, ooff = struct.unpack_from(endian + "2I", data, orig_at + 8 * i)
        tlen, toff = struct.unpack_from(endian + "2I", data, trans_at + 8 * i)
        key = data[ooff : ooff + olen].decode("utf-8")
        catalog[key] = data[toff : toff + tlen].decode("utf-8")
    return catalog


def write_mo(catalog: dict[str, str]) -> bytes:
    """Little-endian ``.mo`` bytes for a catalogue (no hash table; readers do not need one)."""
    keys = sorted(catalog)  # the format requires originals sorted for binary search
    originals = [k.encode("utf-8") for k in keys]
    translations = [catalog[k].encode("utf-8") for k in keys]
    n = len(keys)
    orig_at = _HEADER.size
    trans_at = orig_at + 8 * n
    data_at = trans_at + 8 * n
    tables, blob = [], b""
    for strings in (originals, translations):
        entries = []
        for s in strings:
            entries.append((len(s), data_at + len(blob)))
            blob += s + b"\x00"
        tables.append(entries)
    header = _HEADER.pack(_MAGIC_LE, 0, n, orig_at, trans_at, 0, data_at)
    body = b"".join(struct.pack("<2I", *e) for table in tables for e in table)
    return header + body + blob


def catalog_pairs(catalog: dict[str, str]) -> list[Pair]:
    """Sentence-like (en, de) pairs of one catalogue, in key order."""
    pairs: list[Pair] = []
    for key in sorted(catalog):
        msgid = key.split("\x04", 1)[-1]
        msgstr = catalog[key]
        if not msgid or "\x00" in msgid or not msgstr:  # header entry or plural forms
            continue
        if _TEMPLATE.search(msgid) or _TEMPLATE.search(msgstr):
            continue
        if len(msgid.split()) < MIN_WORDS:
            continue
        pairs.extend(align_paragraph(msgid, msgstr))
    return pairs


def parse_dir(mo_dir: Path) -> list[Pair]:
    """Pairs from every ``*.mo`` under ``mo_dir`` (sorted file order), deduplicated."""
    pairs: dict[Pair, None] = {}
    for path in sorted(mo_dir.rglob("*.mo")):
        pairs.update(dict.fromkeys(catalog_pairs(read_mo(path.read_bytes()))))
    return list(pairs)


def raw_pairs(catalog: dict[str, str], min_words: int = 1) -> list[Pair]:
    """Every translated (msgid, msgstr) of a catalogue, unfiltered, in key order.

    Contexts are dropped and plural entries skipped (their text holds a number placeholder); the
    corpus filters (``text.clean_pairs``) decide what is a usable sentence.
    """
    pairs: list[Pair] = []
    for key in sorted(catalog):
        msgid, msgstr = key.split("\x04", 1)[-1], catalog[key]
        if msgid and msgstr and "\x00" not in msgid and len(msgid.split()) >= min_words:
            pairs.append((msgid, msgstr))
    return pairs


def documents(root: Path, pattern: str, min_words: int = 1) -> dict[str, list[Pair]]:
    """Raw pairs of every ``.mo`` matching ``pattern`` under ``root``, one document per file stem."""
    docs: dict[str, list[Pair]] = {}
    for path in sorted(root.glob(pattern)):
        docs.setdefault(path.stem, []).extend(raw_pairs(read_mo(path.read_bytes()), min_words))
    return docs
