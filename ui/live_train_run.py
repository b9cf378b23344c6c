"""One run of Train it yourself: a fresh toy model (`tasks.toy`) trained step by step until the
coordinator says stop, publishing its loss, exact match and the cross-attention of one example."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks import toy

if TYPE_CHECKING:
    from ui.live_train import Coordinator, Run

LETTERS = "ABCDEFGHIJKLMNOP"  # the task's 16 symbols, written as letters
EXAMPLE = "FLAMINGO"  # the example whose cross-attention is drawn: 8 different letters
END = "EOS"  # the end-of-sequence token, as the figures label it
RECIPE = toy.ToyRecipe()  # d_model 64, 4 heads, 2 layers: learns `reverse` in well under a minute here
SEED = 0


def example_symbols() -> list[int]:
    return [toy.FIRST_SYMBOL + LETTERS.index(c) for c in EXAMPLE]


def labels(kind: str) -> tuple[list[str], list[str]]:
    """(rows, columns) of the example's cross-attention: the letter each decoder position writes, and
    the source letters (both ending with the end token)."""
    task = toy.ToyTask(kind)
    written = [LETTERS[s - toy.FIRST_SYMBOL] for s in task.answer(example_symbols())]
    return [*written, END], [*EXAMPLE, END]


def snapshot(model, task: toy.ToyTask) -> tuple[list, list[float]]:
    """(the example's cross-attention per decoder layer, as lists; each layer's broadness)."""
    attention = toy.cross_attention(model, task, example_symbols())  # (L, T, S)
    return [layer.tolist() for layer in attention], toy.broadness(attention)


def train_toy_run(run: Run, coordinator: Coordinator) -> None:
    """The real trainer: a fresh toy model, one update at a time, until the coordinator says stop."""
    caps = coordinator.caps
    task = toy.ToyTask(run.kind)
    trainer = toy.ToyTrainer(task, RECIPE, SEED)
    attention, spread = snapshot(trainer.model, task)
    coordinator.publish(run, attention=attention, broadness=spread)
    while coordinator.stop_reason(run) is None:
        loss = trainer.step()
        step = trainer.steps
        coordinator.publish(run, step=step, loss=loss)
        if step % caps.attention_every == 0:
            attention, spread = snapshot(trainer.model, task)
            coordinator.publish(run, attention=attention, broadness=spread)
        if step % caps.eval_every == 0:
            exact = toy.exact_match(trainer.model, task, n=200)
            coordinator.publish(run, exact=exact, alignment=toy.alignment_accuracy(trainer.model, task, n=50))


def warm_up() -> None:
    """Build a trainer once and throw it away: PyTorch imports `torch._dynamo` (seconds; minutes on a
    busy 2-core server, where it competes with the pages for the interpreter) the first time any
    optimiser is made, and no other page makes one."""
    toy.ToyTrainer(toy.ToyTask(), RECIPE, SEED)


def loss_floor() -> float:
    """The lowest loss the recipe's label smoothing allows (where a solved run levels off)."""
    return toy.loss_floor(toy.ToyTask().vocab_size, RECIPE.smoothing)
