"""Training the joint English+German SentencePiece BPE model that `transformer.tokenizer` loads.

    python -m training.train_tokenizer --corpus data/corpus --out data/spm --vocab-size 8000

Vocabulary size: 8000 by default. The paper used ~37k shared BPE pieces for 4.5M sentence pairs;
our corpus is ~50k sentence pairs plus a phrase lexicon, and the model trains on a CPU, where the
output softmax and embedding cost grow linearly with the vocabulary. At 8k pieces common words stay
whole and rarer ones split into a few pieces, while each piece still occurs often enough to learn.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import sentencepiece as spm

from transformer.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Tokenizer


def train_tokenizer(
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
    tok = train_tokenizer(
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
