"""Translate English to German from the command line: one sentence per line in, one line out.

    echo "The house is small." | python -m transformer.translate --beam 4
    (beam size and length penalty default to the model's own, from its decoding.json)
    python -m transformer.translate --model pretrained < sentences.en > sentences.de

Output line n always belongs to input line n. A line that cannot be translated (empty after cleaning,
or anything that fails) gives an empty output line and a message on stderr; the command goes on.
Each line is flushed at once, so the command also works interactively and in pipes.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import TextIO

from transformer.decoding import beam_search, greedy_decode
from transformer.inputs import encode_source


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


def translate_stream(
    model, tokenizer, lines: TextIO, out: TextIO, err: TextIO, beam: int, alpha: float
) -> int:
    """Translate every line of `lines` to `out`; report problems on `err`. Returns the failed-line count."""
    failed = 0
    for number, line in enumerate(lines, start=1):
        try:
            german, notices = translate_line(model, tokenizer, line.rstrip("\r\n"), beam, alpha)
        except Exception as err_:  # one bad line must not stop the others
            german, notices = "", [f"could not translate ({type(err_).__name__}: {err_})"]
            failed += 1
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
    out = stdout or io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=True)
    try:
        translate_stream(loaded.model, loaded.tokenizer, lines, out, err, d.beam_size, d.alpha)
    except BrokenPipeError:  # the reader went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
