"""Where a training step's time goes on a GPU, and which batch size trains fastest there.

    python -m training.gpu_probe --init runs/w256-gpu --corpus data/corpus --out $OUT

For each batch size (padded tokens per side) it takes real batches of the training corpus, runs a few
steps to warm the allocator, then times steps with the GPU synchronised (collation included), and
prints target tokens per second. One batch size is also run under torch.profiler: the operators with
the most GPU and CPU time go to OUT/profile.txt. The last line printed is the fastest batch size, which
`training/gpu_run.sh` passes on to the run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from tasks.step import make_optimizer, train_step
from training import data
from transformer import pretrained
from transformer.model import Transformer
from transformer.tokenizer import Tokenizer


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _steps(model, optimizer, pairs, batches, config, amp: bool) -> int:
    """Train on `batches`; returns the target tokens seen."""
    tokens, device = 0, next(model.parameters()).device
    for indices in batches:
        src, tgt = data.collate(pairs, indices, config.pad_id)
        tokens += int((tgt[:, 1:] != config.pad_id).sum())
        src, tgt = src.to(device, non_blocking=True), tgt.to(device, non_blocking=True)
        train_step(model, optimizer, src, tgt, 1e-5, config.pad_id, 0.1, amp)
    return tokens


def _profile(model, optimizer, pairs, batches, config) -> str:
    """The operators with the most GPU time and the most CPU time over `batches`, as two tables."""
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    try:
        with torch.profiler.profile(activities=activities) as prof:
            _steps(model, optimizer, pairs, batches, config, amp=True)
            _sync(next(model.parameters()).device)
        table = prof.key_averages()
        return "\n".join(
            table.table(sort_by=key, row_limit=25) for key in ("device_time_total", "self_cpu_time_total")
        )
    except Exception as error:  # the probe's timing matters more than its profile
        return f"profiler failed: {error!r}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--init", required=True, help="a model directory (config, weights, spm.model)")
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument("--out", default=".")
    p.add_argument("--sizes", default="16000,32000,64000")
    p.add_argument("--lines", type=int, default=200_000, help="training lines to batch from")
    p.add_argument("--timed", type=int, default=15, help="timed steps per batch size")
    p.add_argument("--device", default="cuda")
    a = p.parse_args()

    if torch.device(a.device).type == "cuda":
        torch.backends.cuda.enable_cudnn_sdp(False)  # as the trainer does (training/train.py says why)
    config = pretrained.load_config(a.init)
    tokenizer = Tokenizer.load(Path(a.init) / "spm.model")
    src_lines, tgt_lines = data.read_parallel(Path(a.corpus) / "train")
    pairs = data.encode_pairs(tokenizer, src_lines[: a.lines], tgt_lines[: a.lines], config, 128)
    best, best_rate = 0, 0.0
    report = []
    for size in (int(s) for s in a.sizes.split(",")):
        model = Transformer(config).to(a.device)
        pretrained.load_weights(model, Path(a.init) / pretrained.WEIGHTS_FILE)
        model.train()
        optimizer = make_optimizer(model)
        batches = data.make_batches(pairs, size, seed=size)
        _steps(model, optimizer, pairs, batches[:4], config, amp=True)  # allocator and kernels warm
        _sync(model_device := torch.device(a.device))
        t0 = time.time()
        tokens = _steps(model, optimizer, pairs, batches[4 : 4 + a.timed], config, amp=True)
        _sync(model_device)
        seconds = time.time() - t0
        rate = tokens / seconds
        line = f"max-tokens {size}: {rate:,.0f} target tokens/s, {seconds / a.timed * 1000:.0f} ms a step"
        print(line, flush=True)
        report.append(line)
        if rate > best_rate:
            best, best_rate = size, rate
        if size == int(a.sizes.split(",")[0]):
            report.append(_profile(model, optimizer, pairs, batches[4 + a.timed : 8 + a.timed], config))
        del model, optimizer
        if model_device.type == "cuda":
            torch.cuda.empty_cache()
    Path(a.out, "profile.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(best)


if __name__ == "__main__":
    main()
