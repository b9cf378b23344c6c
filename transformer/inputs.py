"""From what a user typed to source token ids: cleaning, limits and clear messages.

User text can be anything: empty, huge, emoji, control characters, markup. It is never rejected
with an exception; it is cleaned, cut to the model's limits, and every change is reported.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

MAX_CHARS = 1000  # longer input is cut before tokenising (a sentence, not a book)
MAX_SOURCE_TOKENS = 60  # source pieces the app traces (EOS added after): keeps figures readable


@dataclass(frozen=True)
class Source:
    """A cleaned sentence and its token ids (EOS last) and pieces, plus what was changed."""

    text: str
    ids: list[int]
    pieces: list[str]
    notices: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.text


def clean_text(text: object, max_chars: int = MAX_CHARS) -> tuple[str, list[str]]:
    """Normalise to NFC, drop control/format characters, collapse whitespace, cut to max_chars."""
    notices: list[str] = []
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = unicodedata.normalize("NFC", text)
    kept = []
    dropped = 0
    for ch in text:
        category = unicodedata.category(ch)
        if ch in "\t\n\r":
            kept.append(" ")
        elif category in ("Cc", "Cf", "Cs", "Co", "Cn"):
            dropped += 1  # control, zero-width/format, surrogate, private-use, unassigned
        else:
            kept.append(ch)
    if dropped:
        notices.append(f"Removed {dropped} invisible or control character(s).")
    text = " ".join("".join(kept).split())
    if len(text) > max_chars:
        text = text[:max_chars].rstrip()
        notices.append(f"The text was longer than {max_chars} characters and was cut.")
    return text, notices


def encode_source(
    tokenizer, text: object, max_tokens: int = MAX_SOURCE_TOKENS, max_chars: int = MAX_CHARS
) -> Source:
    """Clean `text` and tokenise it; cut to `max_tokens` pieces (EOS is appended after)."""
    clean, notices = clean_text(text, max_chars)
    if not clean:
        return Source("", [], [], notices)
    ids = tokenizer.encode(clean)
    if len(ids) > max_tokens:
        ids = ids[:max_tokens]
        notices.append(
            f"The sentence has more than {max_tokens} tokens; only the first {max_tokens} are used."
        )
    notice = unknown_notice(tokenizer, clean, ids)
    if notice:
        notices.append(notice)
    pieces = [tokenizer.id_to_piece(i) for i in ids] + ["</s>"]
    return Source(clean, ids + [tokenizer.eos_id], pieces, notices)


_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")  # a byte-fallback piece


def unknown_notice(tokenizer, text: str, ids: list[int]) -> str | None:
    """What to say when pieces of `text` are not in the vocabulary (emoji, other scripts), or None.

    Such characters become the unknown piece `<unk>` (one and the same token for all of them) or, with a
    byte-fallback tokenizer, their UTF-8 bytes (`<0xF0>` …, one piece per byte, rarely seen in training).
    """
    unk = getattr(tokenizer, "unk_id", None)

    def foreign(i: int) -> bool:
        return i == unk or _BYTE_PIECE.fullmatch(tokenizer.id_to_piece(i)) is not None

    if not (n_unknown := sum(map(foreign, ids))):
        return None
    word_start = {i for i in ids if tokenizer.id_to_piece(i) == "▁"}  # a bare word start says nothing
    chars = [c for c in dict.fromkeys(text) if not c.isspace() and any(map(foreign, tokenizer.encode(c)))]
    # Letters and symbols only: the notice is Markdown, and no such character is Markdown syntax.
    shown = [c for c in chars if unicodedata.category(c)[0] in "LSN"]
    examples = f" ({' '.join(shown[:5])}{' …' * (len(shown) > 5)})" if shown else ""
    n_unk = sum(i == unk for i in ids)  # the rest are bytes: say which the text became, not "or"
    became = " and ".join(["the unknown token `<unk>`"] * bool(n_unk) + ["raw bytes (a piece per UTF-8 byte)"]
                          * (n_unknown > n_unk))
    if all(foreign(i) or i in word_start for i in ids):
        return (f"Nothing in this text is in the model's vocabulary{examples}: everything became {became}, "
                "so the translation and the attention say little about what you typed. Type English words.")
    n = sum(c in chars for c in text)  # characters, counted as often as they occur
    return (f"The model's vocabulary lacks {n} character{'s' * (n != 1)} of this text{examples}, spelled as "
            f"{n_unknown} piece{'s' * (n_unknown != 1)}: {became}, which the model rarely saw in training.")
