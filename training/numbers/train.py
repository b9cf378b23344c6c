"""The numbers model in one command: data, tokenizer, training, export (`make train-numbers`).

    python -m training.numbers.train --out pretrained/numbers            # ~15 min on 2 CPU cores
    python -m training.numbers.train --out /tmp/n --steps 5 --run /tmp/r  # a smoke test

Every step is the project's own code, as for the translation model: `training.numbers.data`
writes the corpus, `training.train_tokenizer` the SentencePiece model (with the grammar's morphemes kept
whole, so one piece has one gold link), `training.train` trains and `training.train.export`
writes config, weights and tokenizer. The export adds the weights of a few early steps
(`snapshots/`, float16: the app's training-step slider) and the held-out phrases (`heldout/`, so
`python -m training.evaluate --model pretrained/numbers` needs nothing else).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from training import train as trainer
from training.numbers import data
from training.train_tokenizer import train_tokenizer
from transformer import pretrained

# The recipe (paper architecture, post-LN, h = 8; narrow and shallow: the task is small).
RECIPE = {
    "d_model": 64, "d_ff": 256, "n_layers": 3, "n_heads": 8, "dropout": 0.1,
    "max_len": 48, "max_tokens": 2048, "warmup": 400, "lr_scale": 0.2,
}  # fmt: skip
MINUTES = 15.0
MILESTONES = (0, 50, 100, 200, 500, 1000)  # steps whose weights ship for the training-step slider
VOCAB_SIZE = 385  # the grammar's morphemes (bare and word-initial) + characters + 4 specials


def train_args(corpus: Path, run: Path, minutes: float, steps: int, threads: int) -> list[str]:
    """`training.train` arguments of the recipe."""
    r = RECIPE
    return [
        "--corpus", str(corpus), "--spm", str(corpus / "spm" / "spm.model"), "--out", str(run),
        "--d-model", str(r["d_model"]), "--d-ff", str(r["d_ff"]), "--n-layers", str(r["n_layers"]),
        "--n-heads", str(r["n_heads"]), "--dropout", str(r["dropout"]), "--max-len", str(r["max_len"]),
        "--max-tokens", str(r["max_tokens"]), "--warmup", str(r["warmup"]),
        "--lr-scale", str(r["lr_scale"]), "--lexicon-share", "0", "--minutes", str(minutes),
        "--steps", str(steps), "--eval-every", "500", "--eval-sentences", "200",
        "--health-sentences", "100", "--snapshot-minutes", "3", "--keep-snapshots", "1",
        "--milestones", ",".join(map(str, MILESTONES)), "--threads", str(threads),
    ]  # fmt: skip


def export(run: Path, corpus: Path, out: Path) -> None:
    """Final weights, tokenizer and config (`training.train.export`), the milestones in float16,
    and the held-out phrases."""
    trainer.export(run, out, keep=1)
    snapshots = out / pretrained.SNAPSHOT_DIR
    shutil.rmtree(snapshots, ignore_errors=True)
    snapshots.mkdir()
    for path in sorted((run / "milestones").glob("step_*.safetensors")):
        state = {k: v.to(torch.float16) for k, v in load_file(str(path)).items()}
        save_file(state, str(snapshots / path.name))
    heldout = out / "heldout"
    heldout.mkdir(exist_ok=True)
    for split in ("valid", "test"):
        for lang in ("en", "de"):
            shutil.copyfile(corpus / f"{split}.{lang}", heldout / f"{split}.{lang}")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=Path("pretrained/numbers"), help="model directory to write")
    p.add_argument("--corpus", type=Path, default=Path("data/numbers"))
    p.add_argument("--run", type=Path, default=Path("runs/numbers"), help="training run directory")
    p.add_argument("--minutes", type=float, default=MINUTES)
    p.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: --minutes decides)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--data-scale", type=float, default=1.0, help="< 1: a smaller corpus (smoke tests)")
    args = p.parse_args(argv)

    print(f"1/4 data -> {args.corpus}")
    data.write(data.build(scale=args.data_scale), args.corpus)
    print("2/4 tokenizer")
    train_tokenizer(
        [args.corpus / "train.en", args.corpus / "train.de"], args.corpus / "spm" / "spm",
        vocab_size=VOCAB_SIZE, character_coverage=1.0,
        user_symbols=(args.corpus / "symbols.txt").read_text(encoding="utf-8").split(),
    )  # fmt: skip
    print(f"3/4 training -> {args.run} ({args.minutes:g} min or {args.steps or 'unlimited'} steps)")
    shutil.rmtree(args.run, ignore_errors=True)  # from scratch: the milestones start at step 0
    trainer.main(train_args(args.corpus, args.run, args.minutes, args.steps, args.threads))
    print(f"4/4 export -> {args.out}")
    export(args.run, args.corpus, args.out)


if __name__ == "__main__":
    main()
