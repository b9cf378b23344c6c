"""Write the head inspector's statistics beside a model's weights (`head_statistics.safetensors`).

    .venv/bin/python -m training.head_stats pretrained pretrained/numbers     # or: make head-stats

Run it whenever the weights change (new weights make the old file stale: the app then computes the
statistics itself, at the old speed). Each sentence of the model's built-in sets (the translation
model: `tasks.sentences.SENTENCES`; the numbers model: its grammar's showcase) is
traced exactly as the app traces it: the decoder reads BOS + the greedy translation, stopped at the
app's length limit. tests/test_head_file.py checks the shipped files against the app's own fresh
computation.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from analysis import head_file
from analysis.heads import sentence_statistics
from tasks.sentences import SENTENCES
from transformer.decoding import default_max_len, greedy_decode
from transformer.inputs import encode_source
from transformer.pretrained import LoadedModel, load_pretrained
from transformer.trace import run_trace

NUMBERS = "numbers"  # the numbers model's directory name (ui.frame.MODELS)


def sentence_set(directory: Path) -> list[str]:
    """The built-in sentences the head inspector offers for the model in `directory`."""
    if directory.name == NUMBERS:
        from tasks.numbers.grammar import showcase

        return list(showcase())
    return list(SENTENCES)


def max_len(lm: LoadedModel, src_len: int) -> int:
    """The app's decoding limit (ui.model._max_len): 2·source + 10 tokens at most."""
    return min(default_max_len(lm.model, src_len), 2 * src_len + 10)


@torch.no_grad()
def statistics_of(lm: LoadedModel, sentence: str):
    """`sentence_statistics` of the sentence's trace, as the head inspector computes it (None: empty)."""
    src = encode_source(lm.tokenizer, sentence)
    if src.empty:
        return None
    target = greedy_decode(lm.model, src.ids, max_len=max_len(lm, len(src.ids))).ids
    pieces = ["<s>", *(lm.tokenizer.id_to_piece(i) for i in target)]
    trace = run_trace(lm.model, src.ids, [lm.tokenizer.bos_id, *target], src.pieces, pieces)
    return sentence_statistics(trace)


def write(directory: Path) -> Path:
    lm = load_pretrained(directory, "cpu")
    kept, results = [], []
    for sentence in sentence_set(directory):
        result = statistics_of(lm, sentence)
        if result is not None:
            kept.append(sentence)
            results.append(result)
    path = directory / head_file.FILE
    head_file.save(path, lm.model_id, kept, results)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directories", nargs="+", type=Path, help="model directories (config.json, weights)")
    args = parser.parse_args()
    for directory in args.directories:
        start = time.perf_counter()
        path = write(directory)
        print(f"{path}: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
