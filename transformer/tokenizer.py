"""Joint English+German SentencePiece BPE tokenizer with fixed special ids.

The model shares one embedding matrix between source, target and output projection (paper §3.4),
so both languages use one vocabulary. Ids are fixed: ``pad=0, unk=1, bos=2, eos=3``; ``encode``
adds no bos/eos (the caller decides where they go). Training one is a job of its own:
``training.train_tokenizer``.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
RESTORE_HINT = (
    "restore it with `git checkout -- <path>` (shipped models live in pretrained/) or rebuild it "
    "with `python -m training.train_tokenizer --corpus data/corpus --out data/spm`"
)


class Tokenizer:
    """Thin wrapper around ``sentencepiece.SentencePieceProcessor`` with checked special ids."""

    def __init__(self, processor: spm.SentencePieceProcessor, source: str = "<bytes>") -> None:
        specials = (processor.pad_id(), processor.unk_id(), processor.bos_id(), processor.eos_id())
        if specials != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
            raise ValueError(
                f"{source}: special ids (pad, unk, bos, eos) are {specials}, expected "
                f"{(PAD_ID, UNK_ID, BOS_ID, EOS_ID)}; train it with training.train_tokenizer"
            )
        self._sp = processor
        self._source = source

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        """Load a ``.model`` file.

        Raises:
            FileNotFoundError: the file does not exist.
            ValueError: the file is not a SentencePiece model or has other special ids.
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"tokenizer model {path} not found; {RESTORE_HINT}")
        return cls.from_bytes(path.read_bytes(), source=str(path))

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Tokenizer:
        """Build from a serialized model (``to_bytes``), e.g. one held in a trace or cache."""
        processor = spm.SentencePieceProcessor()
        try:
            processor.LoadFromSerializedProto(data)
        except (RuntimeError, OSError, TypeError) as err:
            raise ValueError(f"{source} is not a valid SentencePiece model; {RESTORE_HINT}") from err
        return cls(processor, source)

    def to_bytes(self) -> bytes:
        """The serialized model; ``Tokenizer.from_bytes`` turns it back into an equal tokenizer."""
        return self._sp.serialized_model_proto()

    def __getstate__(self) -> dict:
        # SentencePieceProcessor is not picklable; its serialized proto is.
        return {"model": self.to_bytes(), "source": self._source}

    def __setstate__(self, state: dict) -> None:
        other = Tokenizer.from_bytes(state["model"], state["source"])
        self._sp, self._source = other._sp, other._source

    def encode(self, text: str | list[str]) -> list[int] | list[list[int]]:
        """Piece ids of ``text`` (no bos/eos); of each text of a list, on all cores."""
        return self._sp.encode(text, out_type=int)

    def encode_pieces(self, text: str) -> list[str]:
        """Pieces of ``text``; ``▁`` marks the start of a word."""
        return self._sp.encode(text, out_type=str)

    def decode(self, ids: Iterable[int]) -> str:
        """Text of ``ids``, skipping pad/bos/eos (accepts a list, tuple or 1-d tensor)."""
        skip = (PAD_ID, BOS_ID, EOS_ID)
        return self._sp.decode([int(i) for i in ids if int(i) not in skip])

    def id_to_piece(self, piece_id: int) -> str:
        """The piece string of one id."""
        return self._sp.id_to_piece(int(piece_id))

    @property
    def vocab_size(self) -> int:
        """Number of ids, specials included."""
        return self._sp.get_piece_size()

    pad_id = property(lambda self: PAD_ID, doc="Padding id (0).")
    unk_id = property(lambda self: UNK_ID, doc="Unknown-piece id (1).")
    bos_id = property(lambda self: BOS_ID, doc="Begin-of-sentence id (2).")
    eos_id = property(lambda self: EOS_ID, doc="End-of-sentence id (3).")

    def whole_word_share(self, lines: Iterable[str], top: int = 3000) -> float:
        """Share of the ``top`` most frequent words of ``lines`` that are one piece on their own.

        A word is a run of letters (digits and punctuation end it), counted as written (case kept).
        """
        counts = collections.Counter(word for line in lines for word in _WORD.findall(line))
        words = [word for word, _ in counts.most_common(top)]
        return sum(len(self.encode(word)) == 1 for word in words) / max(len(words), 1)

    def unk_rate(self, lines: Iterable[str]) -> float:
        """Fraction of pieces that are ``unk`` over ``lines`` (0.0 for no pieces)."""
        total = unknown = 0
        for line in lines:
            ids = self.encode(line)
            total += len(ids)
            unknown += ids.count(UNK_ID)
        return unknown / total if total else 0.0
