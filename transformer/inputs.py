"""From what a user typed to source token ids: cleaning, limits and clear messages.

User text can be anything: empty, huge, emoji, control characters, markup. It is never rejected
with an exception; it is cleaned, cut to the model's limits, and every change is reported.
"""

from __future__ import annotations

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
    pieces = [tokenizer.id_to_piece(i) for i in ids] + ["</s>"]
    return Source(clean, ids + [tokenizer.eos_id], pieces, notices)
