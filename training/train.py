"""Training (paper §5): token-based batches, Adam with warm-up, dropout, label smoothing.

    lrate = d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5)          (§5.3)

Runs on CPU or CUDA (auto), one process or several under `torchrun` (DistributedDataParallel).
Checkpoints hold everything needed for `--resume` to continue exactly; model-only snapshots are
written at intervals and the last ones are averaged at export, as the paper did (§6.1).

    python -m training.train --out runs/base --minutes 120
    python -m training.train --out runs/base --resume            # continue where it stopped
    python -m training.train --out runs/base --export pretrained # average snapshots and ship
    torchrun --nproc_per_node 2 -m training.train --out runs/ddp # DDP: one process per GPU/CPU slot
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from tqdm import tqdm

from tasks.step import make_optimizer, noam_lr, train_step
from training import data, health
from transformer import pretrained
from transformer.config import TransformerConfig
from transformer.decoding import greedy_decode_batch
from transformer.device import select_device
from transformer.model import RESIDUAL_INIT_GAIN, Transformer


# DEVIATION: an optional cool-down at the end of a run (paper: the schedule above to the last step,
# then the last checkpoints averaged). Averaging snapshots minutes apart mixed in weights from well
# before the end of a short CPU run; lowering the rate to zero over the last steps is meant to settle
# the weights instead (what it gained is in the model card). Off unless --cooldown-at is given.
def cooldown_factor(step: int, start: int, length: int) -> float:
    """1 up to `start`, then falling linearly to 0 at `start + length` (1-based steps); start 0: off."""
    if not start or not length or step <= start:
        return 1.0
    return max(0.0, 1.0 - (step - start) / length)


def rewarm_factor(step: int, start: int, length: int) -> float:
    """From 0 up to 1 over `length` steps after `start` (a restart from --init weights), then 1."""
    if length <= 0:
        return 1.0
    return min(1.0, max(step - start, 0) / length)


@dataclass
class Progress:
    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0
    tokens: int = 0  # target tokens seen
    seconds: float = 0.0  # training wall time so far, across resumes


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument(
        "--spm", default=None,
        help="SentencePiece model (default: data/spm/spm.model; on --resume, the run's own OUT/spm.model)",
    )  # fmt: skip
    p.add_argument("--out", default="runs/base")
    # DEVIATION: compact width (paper base: d_model 512, d_ff 2048; shipped: 256, 1024); N=6, h=8 kept.
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--n-layers", type=int, default=6)
    p.add_argument("--n-heads", type=int, default=8)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--max-len", type=int, default=128, help="longest sentence in tokens")
    # Ablations of the paper's choices (TransformerConfig; `training.numbers.ablations`).
    p.add_argument("--no-scale", action="store_true", help="ablation: no 1/√d_k on the scores")
    p.add_argument("--key-size", type=int, default=0, help="ablation: query/key width (0: d_model/h)")
    p.add_argument("--positions", default="sinusoidal", choices=["sinusoidal", "learned", "none"])
    p.add_argument("--no-residual", action="store_true", help="ablation: no x + around the sub-layers")
    p.add_argument("--norm", default="post", choices=["post", "pre", "none"], help="where LayerNorm goes")
    # DEVIATION: ~1k padded tokens per batch per side (paper: ~25k source + 25k target tokens). A
    # CPU processes about as many tokens per second either way; small batches give 4x the updates.
    p.add_argument("--max-tokens", type=int, default=1024, help="padded tokens per batch per side")
    # DEVIATION: 800 warm-up steps and a factor 0.2 on the paper's formula (paper: 4000 and 1): at
    # d_model=128 the plain formula peaks at 1.4e-3, where post-LayerNorm runs stalled in a probe.
    p.add_argument("--warmup", type=int, default=800)
    p.add_argument("--lr-scale", type=float, default=0.2)
    p.add_argument(
        "--init-gain",
        type=float,
        default=RESIDUAL_INIT_GAIN,
        help="Xavier gain of W^V, W^O, W_1, W_2 at initialisation (1.0: plain Xavier; see model.py)",
    )
    p.add_argument(
        "--cooldown-at", type=int, default=0,
        help="from this step on, take the learning rate linearly down to 0 (0: never)",
    )  # fmt: skip
    p.add_argument(
        "--cooldown-steps", type=int, default=2000,
        help="steps the cool-down lasts; the run stops when it ends",
    )  # fmt: skip
    p.add_argument(
        "--cooldown-minutes", type=float, default=0,
        help="with --minutes: cool down over this many last minutes (steps estimated from the speed)",
    )  # fmt: skip
    p.add_argument("--smoothing", type=float, default=0.1)
    p.add_argument("--lexicon-share", type=float, default=0.5)
    p.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: no limit)")
    p.add_argument("--minutes", type=float, default=0, help="stop after this much time (0: none)")
    p.add_argument("--eval-every", type=int, default=500, help="0: never")
    p.add_argument(
        "--valid-splits", default="valid",
        help="comma-separated held-out splits whose loss each evaluation logs; the first also gives "
        "the greedy BLEU, the sample and the health numbers (e.g. valid-everyday,valid,valid-tech)",
    )  # fmt: skip
    p.add_argument("--eval-sentences", type=int, default=150)
    p.add_argument(
        "--health-sentences", type=int, default=150, help="valid pairs for the health numbers (0: none)"
    )
    p.add_argument("--snapshot-minutes", type=float, default=10.0)
    p.add_argument("--keep-snapshots", type=int, default=5)
    p.add_argument(
        "--milestones", default="",
        help="steps whose weights are kept in OUT/milestones (e.g. 0,50,200,1000): heads forming",
    )  # fmt: skip
    # DEVIATION: the shipped model trained with bf16 autocast on its GPU (the paper does not say; fp32 here).
    p.add_argument(
        "--amp",
        choices=["none", "bf16"],
        default="none",
        help="bf16 autocast: faster on GPUs and CPUs with bf16 units; 18x slower here",
    )
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch default)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint.pt")
    p.add_argument("--init", default="", help="start from the weights of a model directory")
    p.add_argument(
        "--start-step", type=int, default=0,
        help="with --init: the step those weights were trained to, so the learning-rate schedule "
        "goes on from there instead of warming up again (the optimiser's moments start at zero)",
    )  # fmt: skip
    p.add_argument(
        "--rewarm-steps", type=int, default=0,
        help="with --init: take the learning rate up linearly over this many steps from --start-step "
        "(Adam's moments start at zero; the full rate at once made the loss jump)",
    )  # fmt: skip
    p.add_argument("--export", default="", help="average the last snapshots into this directory")
    # DEVIATION: the shipped weights are stored as float16 (half the bytes); the app computes in float32.
    p.add_argument("--half", action="store_true", help="with --export: float16 weights (as shipped)")
    return p.parse_args(argv)


class Trainer:
    """One training run: data, model, optimiser, the loop, evaluation, checkpoints."""

    def __init__(self, args: argparse.Namespace) -> None:
        if args.start_step and not args.init:
            raise SystemExit("--start-step continues the schedule of --init weights: give --init too")
        self.args = args
        self.out = Path(args.out)
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.device = select_device(args.device)
        if self.world > 1:
            dist.init_process_group("nccl" if self.device.type == "cuda" else "gloo")
            if self.device.type == "cuda":
                self.device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
                torch.cuda.set_device(self.device)
        if args.threads:
            torch.set_num_threads(args.threads)
        if self.device.type == "cuda":
            # cuDNN's attention builds a plan for every new (batch, length) shape, and token-based batches
            # bring a new shape nearly every step: profiled on an H200, 3-4 ms of CPU per call, five
            # times the GPU's whole step. The flash and memory-efficient kernels compute the same.
            torch.backends.cuda.enable_cudnn_sdp(False)
        torch.manual_seed(args.seed)

        from transformer.tokenizer import Tokenizer

        self.spm_path = self._tokenizer_path()
        self.tokenizer = Tokenizer.load(self.spm_path)
        tok = self.tokenizer
        self.config = self._config(tok.vocab_size)
        self.model = Transformer(self.config)
        if not args.init and not args.resume:
            self.model.reset_parameters(args.init_gain)
        self.model = self.model.to(self.device)
        if args.init:
            pretrained.load_weights(self.model, Path(args.init) / pretrained.WEIGHTS_FILE)
        self.ddp = torch.nn.parallel.DistributedDataParallel(self.model) if self.world > 1 else self.model
        self.optimizer = make_optimizer(self.model)
        self.progress = Progress(step=args.start_step)
        self.stop_requested = False  # set by SIGTERM/SIGINT: stop after this step, checkpoint saved
        self.milestones = {int(s) for s in args.milestones.split(",") if s.strip()}
        self._load_data()
        if args.resume:
            self._load_checkpoint()

    def _tokenizer_path(self) -> Path:
        """A resumed run keeps the tokenizer it was trained with: its ids are what the weights know."""
        a, own = self.args, self.out / "spm.model"
        if a.resume and own.is_file():
            if a.spm and Path(a.spm).read_bytes() != own.read_bytes():
                raise SystemExit(f"{self.out} was trained with its own {own.name}, not {a.spm}: drop --spm")
            return own
        return Path(a.spm or "data/spm/spm.model")

    def _config(self, vocab_size: int) -> TransformerConfig:
        a = self.args
        cfg_path = self.out / "config.json"
        if a.resume and cfg_path.is_file():
            return TransformerConfig.load(cfg_path)
        if a.init:
            return pretrained.load_config(a.init)
        return TransformerConfig(
            vocab_size=vocab_size,
            d_model=a.d_model,
            n_heads=a.n_heads,
            d_ff=a.d_ff,
            n_layers=a.n_layers,
            dropout=a.dropout,
            max_len=max(256, a.max_len + 1),
            scale_scores=not a.no_scale,
            key_size=a.key_size or None,
            positions=a.positions,
            residual=not a.no_residual,
            norm=a.norm,
        )

    def _load_data(self) -> None:
        a, corpus = self.args, Path(self.args.corpus)
        encode = lambda prefix: data.encode_pairs(  # noqa: E731
            self.tokenizer, *data.read_parallel(corpus / prefix), self.config, a.max_len
        )
        t0 = time.time()
        self.sentences = encode("train")
        lexicon_prefix = corpus / "lexicon"
        self.lexicon = encode("lexicon") if Path(f"{lexicon_prefix}.en").is_file() else []
        self.valid_splits = [name.strip() for name in a.valid_splits.split(",") if name.strip()]
        self.valid_sets = {name: encode(name) for name in self.valid_splits}
        self.valid = self.valid_sets[self.valid_splits[0]]
        self.valid_src, self.valid_ref = data.read_parallel(corpus / self.valid_splits[0])
        self.health_lexicon = (
            health.load_lexicon(lexicon_prefix) if Path(f"{lexicon_prefix}.en").is_file() else set()
        )
        self.log(
            f"data: {len(self.sentences)} sentence pairs, {len(self.lexicon)} lexicon pairs, "
            f"{len(self.valid)} valid pairs ({time.time() - t0:.0f}s to tokenise)"
        )

    # ---- bookkeeping ---------------------------------------------------------------------
    def log(self, message: str) -> None:
        if self.rank == 0:
            tqdm.write(message)

    def log_json(self, record: dict) -> None:
        if self.rank == 0:
            with open(self.out / "log.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")

    def _checkpoint_path(self) -> Path:
        return self.out / "checkpoint.pt"

    def _save_checkpoint(self) -> None:
        if self.rank:
            return
        state = {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "progress": vars(self.progress),
            "torch_rng": torch.get_rng_state(),  # dropout masks continue where they stopped
        }
        if self.device.type == "cuda":
            state["cuda_rng"] = torch.cuda.get_rng_state(self.device)  # dropout on the GPU draws from here
        tmp = self._checkpoint_path().with_suffix(".tmp")
        torch.save(state, tmp)
        tmp.replace(self._checkpoint_path())  # atomic: a crash never leaves half a checkpoint

    def _load_checkpoint(self) -> None:
        path = self._checkpoint_path()
        if not path.is_file():
            raise FileNotFoundError(f"{path} not found: nothing to resume (drop --resume)")
        state = torch.load(path, map_location=self.device, weights_only=True)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.progress = Progress(**state["progress"])
        torch.set_rng_state(state["torch_rng"].cpu())
        if self.device.type == "cuda" and "cuda_rng" in state:  # older checkpoints lack it
            torch.cuda.set_rng_state(state["cuda_rng"].cpu(), self.device)
        self.log(f"resumed at step {self.progress.step}, epoch {self.progress.epoch}")

    def _save_snapshot(self) -> None:
        if self.rank:
            return
        snaps = self.out / "snapshots"
        snaps.mkdir(exist_ok=True)
        save_file(
            pretrained.weights_state(self.model), str(snaps / f"step_{self.progress.step:07d}.safetensors")
        )
        for old in sorted(snaps.glob("step_*.safetensors"))[: -self.args.keep_snapshots]:
            old.unlink()

    def _save_milestone(self) -> None:
        """Weights at a step named by --milestones, never pruned (the app's training-step slider)."""
        if self.rank or self.progress.step not in self.milestones:
            return
        path = self.out / "milestones" / f"step_{self.progress.step:07d}.safetensors"
        path.parent.mkdir(exist_ok=True)
        save_file(pretrained.weights_state(self.model), str(path))

    def _request_stop(self, signum, frame) -> None:
        self.log(f"signal {signum}: stopping after this step (checkpoint and snapshot follow)")
        self.stop_requested = True

    def _should_stop(self, deadline: float) -> bool:
        """Whether to stop now. Under DDP every rank must agree: clocks differ, and a rank that
        stopped alone would leave the others waiting forever in the next gradient all-reduce."""
        a, step = self.args, self.progress.step
        stop = bool(a.steps and step >= a.steps) or time.time() > deadline
        stop = stop or bool(a.cooldown_at and step >= a.cooldown_at + a.cooldown_steps)
        stop = stop or self.stop_requested
        if self.world > 1:
            flag = torch.tensor([float(stop)], device=self.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            stop = bool(flag.item())
        return stop

    # ---- evaluation ----------------------------------------------------------------------
    def _loss(self, pairs: list[data.Pair]) -> float:
        """Mean cross-entropy per target token of held-out pairs (no smoothing, no dropout)."""
        total, count = 0.0, 0
        for indices in data.make_batches(pairs, self.args.max_tokens, seed=0):
            src, tgt = (t.to(self.device) for t in data.collate(pairs, indices, self.config.pad_id))
            logits = self.model(src, tgt[:, :-1])
            count += int((tgt[:, 1:] != self.config.pad_id).sum())
            total += float(
                F.cross_entropy(
                    logits.float().flatten(0, 1), tgt[:, 1:].flatten(),
                    ignore_index=self.config.pad_id, reduction="sum",
                )
            )  # fmt: skip
        return total / max(count, 1)

    @torch.no_grad()
    def evaluate(self) -> dict:
        import sacrebleu

        self.model.eval()
        losses = {name: self._loss(pairs) for name, pairs in self.valid_sets.items()}
        k = self.args.eval_sentences
        eos, limit = self.config.eos_id, self.args.max_len
        sources = [self.tokenizer.encode(s)[:limit] + [eos] for s in self.valid_src[:k]]
        hyps = [self.tokenizer.decode(h.ids) for h in greedy_decode_batch(self.model, sources)]
        bleu = sacrebleu.corpus_bleu(hyps, [self.valid_ref[:k]]).score
        result = {"valid_loss": losses[self.valid_splits[0]], "valid_bleu_greedy": bleu, "sample": hyps[:3]}
        if len(losses) > 1:
            result["valid_losses"] = losses
        n = self.args.health_sentences
        if n:
            src, ref = self.valid_src[:n], self.valid_ref[:n]
            result.update(health.measure(self.model, self.tokenizer, src, ref, self.health_lexicon).summary())
        self.model.train()
        return result

    def _plan_cooldown(self, deadline: float) -> None:
        """--cooldown-minutes: once that much time is left, cool down over the steps it should hold."""
        a, p = self.args, self.progress
        if not a.cooldown_minutes or a.cooldown_at or deadline == math.inf or not p.seconds:
            return
        if deadline - time.time() > a.cooldown_minutes * 60:
            return
        seconds_per_step = (time.time() - self._started) / max(p.step - self._start_step, 1)
        a.cooldown_at = p.step
        a.cooldown_steps = max(1, int(a.cooldown_minutes * 60 / seconds_per_step))
        self.log(f"cool-down from step {a.cooldown_at} over {a.cooldown_steps} steps (resume: --cooldown-at)")
        self.log_json({"step": p.step, "cooldown_at": a.cooldown_at, "cooldown_steps": a.cooldown_steps})

    # ---- the loop ------------------------------------------------------------------------
    def train(self) -> None:
        a, p = self.args, self.progress
        self.out.mkdir(parents=True, exist_ok=True)
        if self.rank == 0:
            self.config.save(self.out / "config.json")
            if self.spm_path != self.out / "spm.model":
                (self.out / "spm.model").write_bytes(self.spm_path.read_bytes())
        deadline = time.time() + a.minutes * 60 if a.minutes else math.inf
        self._started, self._start_step = time.time(), p.step
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, self._request_stop)
        last_snapshot = time.time()
        self.model.train()
        # No bar in a log file (nohup, a remote run): log.jsonl holds the speed every 50 steps.
        quiet = self.rank != 0 or not sys.stderr.isatty()
        bar = tqdm(disable=quiet, initial=p.step, unit="step", dynamic_ncols=True)
        amp = a.amp == "bf16"
        done = self._should_stop(deadline)  # a resumed run may already be at --steps
        self._save_milestone()  # step 0: the initial weights
        while not done:
            pairs = data.epoch_pairs(
                self.sentences, self.lexicon, a.lexicon_share, seed=a.seed * 1000 + p.epoch
            )
            batches = data.make_batches(pairs, a.max_tokens, seed=a.seed * 1000 + p.epoch)
            usable = len(batches) - len(batches) % self.world
            for b in range(p.batch_in_epoch, usable // self.world):
                indices = batches[b * self.world + self.rank]
                src, tgt = data.collate(pairs, indices, self.config.pad_id)
                n_tokens = int((tgt[:, 1:] != self.config.pad_id).sum()) * self.world  # on the CPU: no sync
                src, tgt = src.to(self.device, non_blocking=True), tgt.to(self.device, non_blocking=True)
                t0 = time.time()
                self._plan_cooldown(deadline)
                lr = noam_lr(p.step + 1, self.config.d_model, a.warmup, a.lr_scale)
                lr *= cooldown_factor(p.step + 1, a.cooldown_at, a.cooldown_steps)
                lr *= rewarm_factor(p.step + 1, a.start_step, a.rewarm_steps)
                loss = train_step(
                    self.ddp, self.optimizer, src, tgt, lr, self.config.pad_id, a.smoothing, amp
                )
                dt = time.time() - t0
                p.step, p.batch_in_epoch = p.step + 1, b + 1
                p.tokens += n_tokens
                p.seconds += dt
                bar.update(1)
                self._save_milestone()
                if p.step % 50 == 0:  # loss.item() waits for the GPU: not every step
                    bar.set_postfix(
                        loss=f"{loss.item():.3f}", lr=f"{lr:.2e}", tok_s=f"{n_tokens / dt:.0f}", ep=p.epoch
                    )
                    self.log_json(
                        {
                            "step": p.step,
                            "epoch": p.epoch,
                            "loss": round(loss.item(), 4),
                            "lr": lr,
                            "tokens": p.tokens,
                            "seconds": round(p.seconds, 1),
                            "tok_s": round(n_tokens / dt),
                        }
                    )
                if a.eval_every and p.step % a.eval_every == 0 and self.rank == 0:
                    result = self.evaluate()
                    self.log(
                        f"step {p.step}: valid loss {result['valid_loss']:.3f}"
                        + "".join(f" {k} {v:.3f}" for k, v in result.get("valid_losses", {}).items())
                        + ", "
                        f"greedy BLEU {result['valid_bleu_greedy']:.2f}, {health.one_line(result)} | "
                        f"{result['sample'][0]}"
                    )
                    self.log_json(
                        {"step": p.step, "tokens": p.tokens, "seconds": round(p.seconds, 1), **result}
                    )
                if time.time() - last_snapshot > a.snapshot_minutes * 60:
                    self._save_snapshot()
                    self._save_checkpoint()
                    last_snapshot = time.time()
                if self._should_stop(deadline):
                    done = True
                    break
            else:
                p.epoch, p.batch_in_epoch = p.epoch + 1, 0
        bar.close()
        self._save_checkpoint()
        self._save_snapshot()
        self.log(f"stopped at step {p.step}: {p.tokens} target tokens in {p.seconds / 60:.1f} min")


def export(run_dir: str | Path, target: str | Path, keep: int, half: bool = False) -> Path:
    """Average the last `keep` snapshots of a run into a model directory (paper §6.1); float16 if `half`."""
    run_dir, target = Path(run_dir), Path(target)
    snaps = sorted((run_dir / "snapshots").glob("step_*.safetensors"))[-keep:]
    if not snaps:
        raise FileNotFoundError(f"no snapshots under {run_dir / 'snapshots'}")
    states = [load_file(str(s)) for s in snaps]
    config = TransformerConfig.load(run_dir / "config.json")
    model = Transformer(config)
    expected = {k: v.shape for k, v in pretrained.weights_state(model).items()}
    for snap, state in zip(snaps, states, strict=True):
        if {k: v.shape for k, v in state.items()} != expected:  # e.g. left over from another config
            raise ValueError(f"{snap} does not hold the weights of {run_dir / 'config.json'}")
    averaged = {k: sum(s[k].float() for s in states) / len(states) for k in expected}
    model.load_state_dict(averaged, strict=False)  # strict=False: the tied aliases share src_embed
    pretrained.save_model(model, target, run_dir / "spm.model", half=half)
    print(f"exported the average of {len(snaps)} snapshots ({snaps[0].name} .. {snaps[-1].name}) to {target}")
    return target


def main(argv=None) -> None:
    args = parse_args(argv)
    if args.export:
        export(args.out, args.export, args.keep_snapshots, args.half)
        return
    trainer = Trainer(args)
    try:
        trainer.train()
    finally:
        if trainer.world > 1:
            dist.destroy_process_group()


if __name__ == "__main__":
    main()
