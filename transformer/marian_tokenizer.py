"""The tokenizer of Marian's OPUS-MT checkpoints: two SentencePiece models, one id table.

The paper's model shares one vocabulary between source and target (§3.4), and so do these
checkpoints, with a twist: the source language is cut into pieces by `source.spm`, the target
language by `target.spm`, and every piece of either is looked up in one table, `vocab.json`
(piece -> id, ~58k entries for opus-mt-en-de). A piece that is not in the table becomes `<unk>`.
The ids of the two SentencePiece models themselves are never used.

Special ids come from the table: `</s>` ends a sequence, `<pad>` pads it and also starts the
decoder (there is no `<s>`: `bos_id` is None, see `TransformerConfig.decoder_start_id`).
A text may begin with a language code such as `>>fr<<` (multilingual checkpoints): it is kept as
one piece. The behaviour follows Hugging Face's `MarianTokenizer`, which the tests compare against.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import sentencepiece as spm

SOURCE_SPM, TARGET_SPM, VOCAB_FILE = "source.spm", "target.spm", "vocab.json"
FILES = (SOURCE_SPM, TARGET_SPM, VOCAB_FILE)
PAD, UNK, EOS = "<pad>", "<unk>", "</s>"


def _processor(data: bytes, source: str) -> spm.SentencePieceProcessor:
    processor = spm.SentencePieceProcessor()
    try:
        processor.LoadFromSerializedProto(data)
    except (RuntimeError, OSError, TypeError) as err:
        raise ValueError(f"{source} is not a valid SentencePiece model") from err
    return processor


def check_vocab(vocab: object, source: str = VOCAB_FILE) -> dict[str, int]:
    """`vocab` as piece -> id, checked: ids 0..V-1 each used once, and `<pad>`, `<unk>`, `</s>` present."""
    if not isinstance(vocab, dict) or not all(isinstance(k, str) for k in vocab):
        raise ValueError(f"{source}: expected a JSON object mapping pieces to ids")
    ids = list(vocab.values())
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids) or sorted(ids) != list(
        range(len(ids))
    ):
        raise ValueError(f"{source}: ids must be the whole numbers 0..{len(ids) - 1}, each used once")
    missing = [p for p in (PAD, UNK, EOS) if p not in vocab]
    if missing:
        raise ValueError(f"{source}: the special pieces {missing} are missing")
    return vocab


class MarianTokenizer:
    """Source pieces from one SentencePiece model, target pieces from another, ids from one table."""

    def __init__(
        self, source_model: bytes, target_model: bytes, vocab: dict[str, int], name: str = "<bytes>"
    ):
        self._models = (source_model, target_model)
        self._source = _processor(source_model, f"{name}/{SOURCE_SPM}")
        self._target = _processor(target_model, f"{name}/{TARGET_SPM}")
        self._vocab = check_vocab(vocab, f"{name}/{VOCAB_FILE}")
        self._pieces = sorted(self._vocab, key=self._vocab.__getitem__)  # id -> piece
        self._name = name

    @classmethod
    def load(cls, directory: str | Path) -> MarianTokenizer:
        """Read `source.spm`, `target.spm` and `vocab.json` from `directory`.

        Raises:
            FileNotFoundError: a file is missing.
            ValueError: a file is not what it should be (the message names it).
        """
        directory = Path(directory)
        for name in FILES:
            if not (directory / name).is_file():
                raise FileNotFoundError(f"{directory / name} not found")
        try:
            vocab = json.loads((directory / VOCAB_FILE).read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as err:
            raise ValueError(f"{directory / VOCAB_FILE} is not valid JSON ({err})") from err
        source, target = ((directory / name).read_bytes() for name in (SOURCE_SPM, TARGET_SPM))
        return cls(source, target, vocab, str(directory))

    def save(self, directory: str | Path) -> None:
        """Write the three files into `directory`."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / SOURCE_SPM).write_bytes(self._models[0])
        (directory / TARGET_SPM).write_bytes(self._models[1])
        text = json.dumps(self._vocab, ensure_ascii=False, indent=2)
        (directory / VOCAB_FILE).write_text(text + "\n", encoding="utf-8")

    def __getstate__(self) -> dict:
        # SentencePieceProcessor is not picklable; the serialized models are.
        return {"models": self._models, "vocab": self._vocab, "name": self._name}

    def __setstate__(self, state: dict) -> None:
        self.__init__(*state["models"], state["vocab"], state["name"])

    # ---- source side (what the user types) --------------------------------------------------

    def _pieces_of(self, processor: spm.SentencePieceProcessor, text: str) -> list[str]:
        code = []
        if text.startswith(">>") and (end := text.find("<<")) != -1:  # a language code, e.g. >>fr<<
            code, text = [text[: end + 2]], text[end + 2 :]
        return code + processor.encode(text, out_type=str)

    def _ids_of(self, pieces: list[str]) -> list[int]:
        unk = self.unk_id
        return [self._vocab.get(piece, unk) for piece in pieces]

    def encode_pieces(self, text: str) -> list[str]:
        """Source pieces of `text` (from `source.spm`; ``▁`` marks the start of a word)."""
        return self._pieces_of(self._source, text)

    def encode(self, text: str) -> list[int]:
        """Ids of the source pieces of `text` (no `</s>`: the caller appends it)."""
        return self._ids_of(self.encode_pieces(text))

    # ---- target side (what the model writes) ------------------------------------------------

    def encode_target_pieces(self, text: str) -> list[str]:
        """Target pieces of `text` (from `target.spm`), e.g. for a reference translation."""
        return self._pieces_of(self._target, text)

    def encode_target(self, text: str) -> list[int]:
        """Ids of the target pieces of `text` (no `</s>`)."""
        return self._ids_of(self.encode_target_pieces(text))

    def decode(self, ids: Iterable[int]) -> str:
        """Target text of `ids`, skipping `<pad>` and `</s>`; `<unk>` is written as itself."""
        skip = (self.pad_id, self.eos_id)
        pieces = [self._pieces[int(i)] for i in ids if int(i) not in skip]
        out, run = "", []
        for piece in pieces:
            if piece == UNK:  # special pieces never go through SentencePiece
                out += self._target.decode_pieces(run) + piece + " "
                run = []
            else:
                run.append(piece)
        out += self._target.decode_pieces(run)
        return out.replace("▁", " ").strip()

    # ---- the table ----------------------------------------------------------------------------

    def id_to_piece(self, piece_id: int) -> str:
        """The piece string of one id."""
        return self._pieces[int(piece_id)]

    @property
    def vocab_size(self) -> int:
        """Number of ids in the shared table."""
        return len(self._pieces)

    pad_id = property(lambda self: self._vocab[PAD], doc="Padding id (also where the decoder starts).")
    unk_id = property(lambda self: self._vocab[UNK], doc="Unknown-piece id.")
    eos_id = property(lambda self: self._vocab[EOS], doc="End-of-sentence id.")
    bos_id = None  # no <s> in Marian's vocabulary: the decoder starts from <pad>
