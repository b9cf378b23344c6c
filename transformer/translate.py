"""Translate English to German from the command line: one sentence per line in, one line out.

    echo "The house is small." | python -m transformer.translate --beam 4
    (beam size and length penalty default to the model's own, from its decoding.json)
    python -m transformer.translate --model pretrained < sentences.en > sentences.de

Output line n always belongs to input line n. A line that cannot be translated (empty after cleaning,
or anything that fails) gives an empty output line and a message on stderr; the command goes on.
The lines already read when the model is free are translated as one batch (at most BATCH_LINES); a
line typed by hand is answered at once, so the command also works interactively and in pipes.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import queue
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import TextIO

import torch

from transformer.decoding import beam_search, beam_translate, greedy_decode, greedy_translate
from transformer.inputs import encode_source

BATCH_LINES = 64  # at most this many lines in one batch: the first answer waits for the whole batch
THREADS = 1  # PyTorch's: a second gains 10–20 % on an idle machine, is several times slower on a busy one


def translate_line(model, tokenizer, line: str, beam: int, alpha: float) -> tuple[str, list[str]]:
    """German for one English line, plus notices about what cleaning changed ("" when nothing is left)."""
    source = encode_source(tokenizer, line, max_tokens=model.config.max_len - 1)
    if source.empty:
        return "", [*source.notices, "nothing to translate"]
    if beam <= 1:
        ids = greedy_decode(model, source.ids).ids
    else:
        ids = beam_search(model, source.ids, beam, alpha)[0].ids
    return tokenizer.decode(ids), source.notices


def translate_batch(model, tokenizer, lines: list[str], beam: int, alpha: float) -> list[tuple]:
    """`translate_line`'s (German, notices) for each line, with all sentences decoded together."""
    answers: list[tuple[str, list[str]]] = [("", [])] * len(lines)
    sources = {}  # line index -> its encoded source, for the lines with something to translate
    for i, line in enumerate(lines):
        source = encode_source(tokenizer, line, max_tokens=model.config.max_len - 1)
        if source.empty:
            answers[i] = ("", [*source.notices, "nothing to translate"])
        else:
            sources[i] = source
    ids = [source.ids for source in sources.values()]
    hyps = greedy_translate(model, ids) if beam <= 1 else beam_translate(model, ids, beam, alpha)
    for (i, source), hyp in zip(sources.items(), hyps, strict=True):
        answers[i] = (tokenizer.decode(hyp.ids), source.notices)
    return answers


def batches(lines: Iterable[str], size: int) -> Iterator[list[str]]:
    """The input in batches: wait for one line, then add the lines already read (at most `size`).
    A thread reads ahead while the model translates, so what arrives meanwhile makes the next batch."""
    ahead: queue.Queue[str | None] = queue.Queue(maxsize=2 * size)

    def read() -> None:
        try:
            for line in lines:
                ahead.put(line)
        finally:
            ahead.put(None)  # the end of the input

    threading.Thread(target=read, daemon=True).start()  # daemon: a reader gone away need not wait for it
    while (line := ahead.get()) is not None:
        batch = [line]
        while len(batch) < size and not ahead.empty():
            if (line := ahead.get()) is None:
                yield batch
                return
            batch.append(line)
        yield batch


def translate_stream(
    model, tokenizer, lines: TextIO, out: TextIO, err: TextIO, beam: int, alpha: float
) -> int:
    """Translate every line of `lines` to `out`; report problems on `err`. Returns the failed-line count."""
    failed = number = 0
    for batch in batches(lines, BATCH_LINES):
        batch = [line.rstrip("\r\n") for line in batch]
        try:
            answers = translate_batch(model, tokenizer, batch, beam, alpha)
        except Exception:  # one bad line must not stop the others: each line again on its own
            answers = []
            for line in batch:
                try:
                    answers.append(translate_line(model, tokenizer, line, beam, alpha))
                except Exception as err_:
                    answers.append(("", [f"could not translate ({type(err_).__name__}: {err_})"]))
                    failed += 1
        for german, notices in answers:
            number += 1
            for notice in notices:
                print(f"line {number}: {notice}", file=err, flush=True)
            out.write(german + "\n")
        out.flush()
    return failed


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="English sentences on stdin, German on stdout.")
    p.add_argument("--model", default="pretrained", help="model directory (config, weights, spm.model)")
    p.add_argument("--beam", type=int, default=None, help="beam size (1: greedy; default: the model's)")
    p.add_argument("--alpha", type=float, default=None, help="length penalty α (default: the model's)")
    p.add_argument("--device", default="auto")
    return p.parse_args(argv)


def main(argv=None, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None):
    from transformer import pretrained
    from transformer.device import select_device

    args = parse_args(argv)
    err = stderr or sys.stderr
    if args.beam is not None and args.beam < 1:
        print("--beam must be at least 1", file=err)
        return 2
    try:
        loaded = pretrained.load_pretrained(args.model, select_device(args.device))
    except pretrained.PretrainedError as e:
        print(e, file=err)
        return 1
    d = loaded.decoding.override(args.beam, args.alpha)
    # Undecodable bytes become U+FFFD instead of raising halfway through the input.
    lines = stdin or io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    out = stdout or io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")
    try:
        translate_stream(loaded.model, loaded.tokenizer, lines, out, err, d.beam_size, d.alpha)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


def run(argv=None) -> None:
    """`main` as a process that ends at once when done (PyTorch's tidy-up at exit outlasts the load)."""
    gc.freeze()  # what the imports made stays: the collector need not walk it again and again
    if "OMP_NUM_THREADS" not in os.environ:  # the user's choice wins; see THREADS
        torch.set_num_threads(THREADS)
    code = main(argv)
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run()
