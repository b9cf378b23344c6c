"""Joint English+German SentencePiece BPE tokenizer with fixed special ids.

The model shares one embedding matrix between source, target and output projection (paper §3.4),
so both languages use one vocabulary. Ids are fixed: ``pad=0, unk=1, bos=2, eos=3``; ``encode``
adds no bos/eos (the caller decides where they go).

    python -m transformer.tokenizer --corpus data/corpus --out data/spm --vocab-size 8000

Vocabulary size: 8000 by default. The paper used ~37k shared BPE pieces for 4.5M sentence pairs;
our corpus is ~50k sentence pairs plus a phrase lexicon, and the model trains on a CPU, where the
output softmax and embedding cost grow linearly with the vocabulary. At 8k pieces common words stay
whole and rarer ones split into a few pieces, while each piece still occurs often enough to learn.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import sentencepiece as spm

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
RESTORE_HINT = (
    "restore it with `git checkout -- <path>` (shipped models live in pretrained/) or rebuild it "
    "with `python -m transformer.tokenizer --corpus data/corpus --out data/spm`"
)


class Tokenizer:
    """Thin wrapper around ``sentencepiece.SentencePieceProcessor`` with checked special ids."""

    def __init__(self, processor: spm.SentencePieceProcessor, source: str = "<bytes>") -> None:
        specials = (processor.pad_id(), processor.unk_id(), processor.bos_id(), processor.eos_id())
        if specials != (PAD_ID, UNK_ID, BOS_ID, EOS_ID):
            raise ValueError(
                f"{source}: special ids (pad, unk, bos, eos) are {specials}, expected "
                f"{(PAD_ID, UNK_ID, BOS_ID, EOS_ID)}; train it with Tokenizer.train"
            )
        self._sp = processor
        self._source = source

    # ---- construction ---------------------------------------------------------------------

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

    @staticmethod
    def train(
        input_paths: Sequence[str | Path],
        model_prefix: str | Path,
        vocab_size: int = 8000,  # DEVIATION: paper ~37k; a small vocabulary keeps the CPU softmax cheap
        character_coverage: float = 0.9999,
        num_threads: int = 2,
        user_symbols: Sequence[str] = (),
        repeat: Sequence[tuple[str | Path, int]] = (),
        byte_fallback: bool = False,
    ) -> Tokenizer:
        """Train a joint BPE model on the lines of ``input_paths``; writes ``<prefix>.model/.vocab``.

        Lines are deduplicated (repeated training pairs would only skew piece counts) and all of
        them are used in file order, without sampling or shuffling, so the result is reproducible.
        ``user_symbols`` are always kept whole as one piece (the numbers model's morphemes).
        ``repeat`` lists ``(file, k)``: that file's lines count ``k`` times in the piece statistics
        (once among the inputs, ``k - 1`` more passes), so everyday words of a small general-language
        source stay whole pieces beside a large technical corpus. ``byte_fallback`` spells a character
        outside the vocabulary as its UTF-8 bytes (256 more pieces) instead of ``<unk>``, so no
        printable character becomes ⁇ in a translation.
        """
        prefix = Path(model_prefix)
        prefix.parent.mkdir(parents=True, exist_ok=True)
        spm.SentencePieceTrainer.train(
            sentence_iterator=itertools.chain(_unique_lines(input_paths), _extra_passes(repeat)),
            model_prefix=str(prefix),
            model_type="bpe",
            vocab_size=vocab_size,
            character_coverage=character_coverage,
            pad_id=PAD_ID,
            unk_id=UNK_ID,
            bos_id=BOS_ID,
            eos_id=EOS_ID,
            input_sentence_size=0,  # 0 = use every line: no random sample
            shuffle_input_sentence=False,
            split_digits=True,  # numbers as digit sequences, not thousands of number pieces
            byte_fallback=byte_fallback,
            user_defined_symbols=list(user_symbols),
            num_threads=num_threads,
            minloglevel=2,
        )
        return Tokenizer.load(prefix.with_suffix(".model"))

    # ---- use ------------------------------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """Piece ids of ``text`` (no bos/eos)."""
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


def _unique_lines(paths: Sequence[str | Path]) -> Iterator[str]:
    seen: set[str] = set()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if line and line not in seen:
                    seen.add(line)
                    yield line


def _extra_passes(repeat: Sequence[tuple[str | Path, int]]) -> Iterator[str]:
    for path, k in repeat:
        for _ in range(k - 1):
            with open(path, encoding="utf-8") as f:
                yield from (line.rstrip("\n") for line in f if line.strip())


def _lexicon_sample(corpus: Path, out: Path, every: int) -> list[Path]:
    """Write every ``every``-th lexicon pair (both sides) to ``out``: enough words to shape the
    pieces of rare words and compounds, too few to let one-word entries dominate piece counts."""
    paths = []
    for lang in ("en", "de"):
        with open(corpus / f"lexicon.{lang}", encoding="utf-8") as f:
            lines = [line for i, line in enumerate(f) if i % every == 0]
        path = out / f"lexicon_sample.{lang}"
        path.write_text("".join(lines), encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Train the joint EN+DE SentencePiece model.")
    parser.add_argument("--corpus", type=Path, default=Path("data/corpus"))
    parser.add_argument("--out", type=Path, default=Path("data/spm"))
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--lexicon-every", type=int, default=3, help="lexicon sampling stride")
    parser.add_argument("--symbols", type=Path, help="file of pieces to keep whole, one per line")
    parser.add_argument("--character-coverage", type=float, default=0.9999)
    parser.add_argument("--byte-fallback", action="store_true", help="unknown characters as UTF-8 bytes")
    parser.add_argument(
        "--repeat", action="append", default=[], metavar="SOURCE=K",
        help="count the lines of CORPUS/sources/SOURCE.en/.de K times (e.g. ding=10)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    repeat = []
    for item in args.repeat:
        name, _, k = item.partition("=")
        if not k.isdigit() or int(k) < 1:
            parser.error(f"--repeat wants SOURCE=K with K >= 1, got {item!r}")
        repeat += [(args.corpus / "sources" / f"{name}.{lang}", int(k)) for lang in ("en", "de")]
    for path, _ in repeat:
        if not path.is_file():
            parser.error(f"--repeat: {path} not found")

    args.out.mkdir(parents=True, exist_ok=True)
    inputs = [args.corpus / "train.en", args.corpus / "train.de"]
    samples = []
    if (args.corpus / "lexicon.en").is_file():  # the numbers corpus has no lexicon
        samples = _lexicon_sample(args.corpus, args.out, args.lexicon_every)
    symbols = args.symbols.read_text(encoding="utf-8").split() if args.symbols else ()
    tok = Tokenizer.train(
        inputs + samples, args.out / "spm", vocab_size=args.vocab_size,
        character_coverage=args.character_coverage, user_symbols=symbols, repeat=repeat,
        byte_fallback=args.byte_fallback,
    )  # fmt: skip
    for path in samples:
        path.unlink()
    print(f"wrote {args.out / 'spm.model'} (vocab {tok.vocab_size})")
    for split in ("valid", "test", "test-tech", "test-everyday"):
        for lang in ("en", "de"):
            path = args.corpus / f"{split}.{lang}"
            if not path.is_file():
                continue
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
            pieces = sum(len(tok.encode(line)) for line in lines)
            words = sum(len(line.split()) for line in lines)
            print(f"{split}.{lang}: unk rate {tok.unk_rate(lines):.5%}, "
                  f"{pieces / max(words, 1):.2f} pieces/word")  # fmt: skip
    for name in ("tatoeba", "ding"):
        for lang in ("en", "de"):
            path = args.corpus / "sources" / f"{name}.{lang}"
            if path.is_file():
                share = tok.whole_word_share(path.read_text(encoding="utf-8").splitlines())
                print(f"sources/{name}.{lang}: {share:.1%} of the 3,000 most frequent words are one piece")


if __name__ == "__main__":
    main()
