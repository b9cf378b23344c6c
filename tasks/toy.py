"""Tasks with known answers: copy or reverse a sequence of symbols, learnt by the project's own loop.

A model that really attends must, to reverse "a b c d", look at source position 3 when it writes
its first output, 2 for its second, and so on: the cross-attention's argmax is the anti-diagonal.
Copying gives the diagonal. Because the right answer is known, these tasks check the whole training
path (model, `noam_lr`, Adam of `make_optimizer`, the label-smoothed loss of `train_step`) and show
alignment forming, which the translation model can only approximate.

Ids: the model's specials (pad 0, unk 1, bos 2, eos 3), then symbols 4 .. 4 + n_symbols - 1.
Shapes: B batch, S source positions (symbols + EOS), T target positions (BOS + symbols + EOS).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from tasks.step import make_optimizer, noam_lr, train_step
from transformer import hooks
from transformer.config import TransformerConfig
from transformer.decoding import greedy_decode_batch
from transformer.model import Transformer
from transformer.trace import attn_hook

KINDS = ("copy", "reverse")
FIRST_SYMBOL = 4


@dataclass(frozen=True)
class ToyTask:
    """Which task, over how many symbols, and how long the sequences are (inclusive)."""

    kind: str = "reverse"
    n_symbols: int = 16
    min_len: int = 4
    max_len: int = 8

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if not 1 <= self.min_len <= self.max_len:
            raise ValueError("need 1 <= min_len <= max_len")

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols

    def answer(self, symbols: list[int]) -> list[int]:
        return list(reversed(symbols)) if self.kind == "reverse" else list(symbols)

    def source_of(self, i: int, length: int) -> int:
        """The source position output position i must read (the gold alignment)."""
        return length - 1 - i if self.kind == "reverse" else i

    def sample(self, rng: random.Random) -> list[int]:
        length = rng.randint(self.min_len, self.max_len)
        return [rng.randrange(FIRST_SYMBOL, self.vocab_size) for _ in range(length)]


@dataclass(frozen=True)
class ToyRecipe:
    """Model size and training settings; the defaults learn `reverse` in well under a minute here."""

    d_model: int = 64
    n_heads: int = 4
    d_ff: int = 128
    n_layers: int = 2
    dropout: float = 0.0
    batch_size: int = 64
    warmup: int = 100
    lr_scale: float = 0.1  # noam_lr × 0.1 peaks at 1.25e-3 for d_model 64, warm-up 100
    smoothing: float = 0.1

    def config(self, task: ToyTask) -> TransformerConfig:
        return TransformerConfig(
            vocab_size=task.vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            d_ff=self.d_ff,
            n_layers=self.n_layers,
            dropout=self.dropout,
            max_len=64,
        )


def make_batch(task: ToyTask, rng: random.Random, size: int, pad_id: int = 0):
    """A padded batch: src (B, S) = symbols + EOS, tgt (B, T) = BOS + answer + EOS."""
    rows = [task.sample(rng) for _ in range(size)]
    s_len, t_len = max(len(r) for r in rows) + 1, max(len(r) for r in rows) + 2
    src = torch.full((size, s_len), pad_id, dtype=torch.long)
    tgt = torch.full((size, t_len), pad_id, dtype=torch.long)
    for b, r in enumerate(rows):
        src[b, : len(r) + 1] = torch.tensor([*r, 3])
        tgt[b, : len(r) + 2] = torch.tensor([2, *task.answer(r), 3])
    return src, tgt


def fresh_model(task: ToyTask, recipe: ToyRecipe = ToyRecipe(), seed: int = 0) -> Transformer:
    """The untrained model that a run with this seed starts from (the same weights every time)."""
    torch.manual_seed(seed)
    return Transformer(recipe.config(task))


class ToyTrainer:
    """A fresh model, its optimiser and its batches: `step()` makes one update, so a caller can
    watch, evaluate or stop the run between any two updates.

    Evaluating between steps (`exact_match`, `cross_attention`) switches the model to eval mode;
    every step switches it back to training mode first.
    """

    def __init__(self, task: ToyTask, recipe: ToyRecipe = ToyRecipe(), seed: int = 0) -> None:
        self.task, self.recipe = task, recipe
        self.model = fresh_model(task, recipe, seed)
        self.optimizer = make_optimizer(self.model)
        self.rng = random.Random(seed)
        self.steps = 0  # updates made so far

    def step(self) -> float:
        """One update on a fresh batch; returns its (label-smoothed) loss."""
        cfg, recipe = self.model.config, self.recipe
        self.steps += 1
        src, tgt = make_batch(self.task, self.rng, recipe.batch_size, cfg.pad_id)
        lr = noam_lr(self.steps, cfg.d_model, recipe.warmup, recipe.lr_scale)
        self.model.train()
        return float(train_step(self.model, self.optimizer, src, tgt, lr, cfg.pad_id, recipe.smoothing))


@dataclass
class ToyRun:
    """A trained toy model and its loss curve (one value per step)."""

    model: Transformer
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0


def train_toy(
    task: ToyTask,
    recipe: ToyRecipe = ToyRecipe(),
    steps: int = 600,
    seconds: float = 60.0,
    seed: int = 0,
    on_step: Callable[[int, float, Transformer], bool | None] | None = None,
) -> ToyRun:
    """Train a fresh model on `task` for `steps` updates or `seconds`, whichever comes first.

    `on_step(step, loss, model)` runs after each update; returning True stops the run.
    """
    trainer = ToyTrainer(task, recipe, seed)
    run = ToyRun(trainer.model)
    start = time.perf_counter()
    while trainer.steps < steps:
        loss = trainer.step()
        run.losses.append(loss)
        if on_step is not None and on_step(trainer.steps, loss, trainer.model):
            break
        if time.perf_counter() - start > seconds:
            break
    run.seconds = time.perf_counter() - start
    trainer.model.eval()
    return run


def loss_floor(vocab_size: int, smoothing: float) -> float:
    """The lowest label-smoothed cross-entropy any model can reach: the entropy of the smoothed target.

    PyTorch's `label_smoothing` spreads `smoothing` evenly over all `vocab_size` classes, so a perfect
    model still pays this much per token; a solved task's loss curve levels off here, not at 0.
    """
    gold = 1.0 - smoothing + smoothing / vocab_size
    other = smoothing / vocab_size
    return -(gold * math.log(gold)) - (vocab_size - 1) * other * math.log(other) if other else 0.0


def broadness(attention: torch.Tensor) -> list[float]:
    """Per layer, the mean entropy of the rows of (L, T, S) attention ÷ ln S: 1 = uniform, 0 = one key."""
    entropy = -(attention * attention.clamp_min(1e-12).log()).sum(-1)  # (L, T)
    return (entropy.mean(-1) / math.log(attention.size(-1))).tolist()


@torch.no_grad()
def exact_match(model: Transformer, task: ToyTask, n: int = 200, seed: int = 12345) -> float:
    """Share of fresh sequences whose greedy output is exactly the right answer."""
    rng = random.Random(seed)
    rows = [task.sample(rng) for _ in range(n)]
    hyps = greedy_decode_batch(model.eval(), [[*r, model.config.eos_id] for r in rows])
    return sum(h.ids == task.answer(r) for h, r in zip(hyps, rows, strict=True)) / n


@torch.no_grad()
def cross_attention(model: Transformer, task: ToyTask, symbols: list[int]) -> torch.Tensor:
    """Head-averaged cross-attention per decoder layer on the right answer: (L, T, S).

    Row i is the decoder position that writes output i (the last row writes EOS).
    """
    cfg = model.config
    src = torch.tensor([[*symbols, cfg.eos_id]])  # (1, S)
    tgt = torch.tensor([[cfg.bos_id, *task.answer(symbols)]])  # (1, T)
    with hooks.record() as store:
        model.eval()(src, tgt)
    return torch.stack(
        [store[attn_hook("decoder", "cross", i, "pattern")][0].mean(0) for i in range(cfg.n_layers)]
    )


def alignment_accuracy(model: Transformer, task: ToyTask, n: int = 100, seed: int = 54321) -> list[float]:
    """Per decoder layer: share of output symbols whose cross-attention argmax is the gold position."""
    rng = random.Random(seed)
    hits = torch.zeros(model.config.n_layers)
    total = 0
    for _ in range(n):
        symbols = task.sample(rng)
        attn = cross_attention(model, task, symbols)  # (L, T, S)
        gold = torch.tensor([task.source_of(i, len(symbols)) for i in range(len(symbols))])
        hits += (attn[:, : len(symbols)].argmax(-1) == gold).float().sum(-1)
        total += len(symbols)
    return (hits / total).tolist()
