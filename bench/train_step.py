"""Training speed: target tokens per second of one optimiser step, on this machine.

Compares plain eager PyTorch with `torch.compile` (Inductor, dynamic shapes, since token-based batches
change shape every step) and with bf16 autocast, on the shipped configuration and a realistic batch
(~4,000 target tokens, sentences of mixed length as `training.data.make_batches` makes them).
Compile time is reported apart from the steady-state speed.

Run: `.venv/bin/python bench/train_step.py [--threads N] [--steps N] [--modes eager,compile,bf16]`.
Nothing else should use the CPU meanwhile (a training run would halve every figure).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tasks.step import loss_fn, make_optimizer  # noqa: E402
from transformer import Transformer, TransformerConfig  # noqa: E402

SHAPES = [(128, 30), (96, 41), (160, 24), (64, 62), (112, 35)]  # (sentences, tokens): ~4,000 each


def batches(cfg: TransformerConfig, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    for b, t in SHAPES:
        src = torch.randint(4, cfg.vocab_size, (b, t), generator=g)
        tgt = torch.randint(4, cfg.vocab_size, (b, t + 2), generator=g)
        tgt[:, 0] = cfg.bos_id
        yield src, tgt


def run(mode: str, steps: int, cfg: TransformerConfig) -> dict:
    torch.manual_seed(0)
    model = Transformer(cfg).train()
    optimizer = make_optimizer(model)
    forward = torch.compile(model, dynamic=True) if mode == "compile" else model

    def step(src, tgt) -> int:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=mode == "bf16"):
            logits = forward(src, tgt[:, :-1])
            loss = loss_fn(logits, tgt[:, 1:], cfg.pad_id, 0.1)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return int((tgt[:, 1:] != cfg.pad_id).sum())

    data = list(batches(cfg))
    start = time.perf_counter()
    for src, tgt in data:  # every shape once: compilation (and recompilation) happens here
        step(src, tgt)
    warmup_s = time.perf_counter() - start
    tokens, start = 0, time.perf_counter()
    for i in range(steps):
        tokens += step(*data[i % len(data)])
    elapsed = time.perf_counter() - start
    return {"mode": mode, "warmup_s": round(warmup_s, 1), "steps": steps,
            "tok_s": round(tokens / elapsed), "s_per_step": round(elapsed / steps, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--modes", default="eager,compile,bf16")
    parser.add_argument("--config", default=str(ROOT / "pretrained" / "config.json"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg = TransformerConfig.load(args.config)
    results = [run(mode, args.steps, cfg) for mode in args.modes.split(",")]
    for r in results:
        print(f"{r['mode']:8s} {r['tok_s']:6d} target tok/s  ({r['s_per_step']} s/step; first "
              f"{len(SHAPES)} steps incl. compilation {r['warmup_s']} s)")
    out = ROOT / "artifacts"
    out.mkdir(exist_ok=True)
    (out / "bench_train_step.json").write_text(json.dumps(
        {"threads": args.threads, "d_model": cfg.d_model, "results": results}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
