"""Qt ``.qm`` translation files (GCompris, Stellarium, Hedgewars, Scribus …), read without Qt.

A ``.qm`` file is a 16-byte magic number followed by tagged sections (one tag byte, a big-endian
32-bit length, the data). Only the *messages* section matters here: a run of records, each a
sequence of tagged fields closed by an end tag. The fields we keep are the source text (UTF-8),
the context (UTF-8) and the translation (UTF-16BE; several for plural forms, the first is the
singular). Hash and context tables only speed up Qt's lookups and are skipped. ``write_qm`` builds
the same layout so tests need no binary fixture.
"""

from __future__ import annotations

import struct
from pathlib import Path

MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")
_SECTION_MESSAGES = 0x69
_END, _TRANSLATION, _OBSOLETE1, _SOURCE, _CONTEXT, _COMMENT = 1, 3, 5, 6, 7, 8
_NULL = 0xFFFFFFFF  # a translation of this length is absent (untranslated entry)


def _messages(data: bytes) -> bytes:
    if not data.startswith(MAGIC):
        raise ValueError("not a .qm file: bad magic number")
    at = len(MAGIC)
    while at + 5 <= len(data):
        tag, length = data[at], struct.unpack_from(">I", data, at + 1)[0]
        at += 5
        if tag == _SECTION_MESSAGES:
            return data[at : at + length]
        at += length
    return b""


def read_qm(data: bytes) -> dict[tuple[str, str], str]:
    """Catalogue of a ``.qm`` file: (context, source text) -> first translation (singular)."""
    messages = _messages(data)
    catalog: dict[tuple[str, str], str] = {}
    at, source, context, translations = 0, "", "", []
    while at < len(messages):
        tag = messages[at]
        at += 1
        if tag == _END:
            if source and translations:
                catalog.setdefault((context, source), translations[0])
            source, context, translations = "", "", []
        elif tag == _OBSOLETE1:
            at += 4
        elif tag in (_TRANSLATION, _SOURCE, _CONTEXT, _COMMENT):
            (length,) = struct.unpack_from(">I", messages, at)
            at += 4
            if length == _NULL:
                continue
            raw = messages[at : at + length]
            at += length
            if tag == _TRANSLATION:
                translations.append(raw.decode("utf-16-be", errors="replace"))
            elif tag == _SOURCE:
                source = raw.rstrip(b"\x00").decode("utf-8", errors="replace")
            elif tag == _CONTEXT:
                context = raw.rstrip(b"\x00").decode("utf-8", errors="replace")
        else:  # an unknown field has no known length: the rest of the section cannot be read
            break
    return catalog


def write_qm(catalog: dict[tuple[str, str], str]) -> bytes:
    """``.qm`` bytes holding only a messages section, for fixtures."""
    body = b""
    for (context, source), translation in sorted(catalog.items()):
        de = translation.encode("utf-16-be")
        body += bytes([_TRANSLATION]) + struct.pack(">I", len(de)) + de
        for tag, text in ((_SOURCE, source), (_CONTEXT, context)):
            raw = text.encode("utf-8")
            body += bytes([tag]) + struct.pack(">I", len(raw)) + raw
        body += bytes([_END])
    return MAGIC + bytes([_SECTION_MESSAGES]) + struct.pack(">I", len(body)) + body


def read_file(path: Path) -> dict[str, str]:
    """msgid -> translation of one file, contexts dropped (the first context's text wins)."""
    catalog: dict[str, str] = {}
    for (_, source), translation in sorted(read_qm(path.read_bytes()).items()):
        catalog.setdefault(source, translation)
    return catalog


def documents(root: Path, pattern: str, min_words: int = 1) -> dict[str, list[tuple[str, str]]]:
    """Raw (source, translation) pairs of every ``.qm`` matching ``pattern``, one document per file."""
    docs: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(root.glob(pattern)):
        pairs = [(en, de) for en, de in read_file(path).items() if de and len(en.split()) >= min_words]
        docs[str(path.relative_to(root))] = pairs
    return docs
