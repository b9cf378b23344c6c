"""Learning is tested: the project's own model, optimiser, schedule and loss must learn a task with
a known answer on the CPU, and its cross-attention must find the known alignment.

Reversal is the paper's reordering in miniature: to write output i of a length-n sequence the
decoder has to read source position n - 1 - i, so the right cross-attention is the anti-diagonal.
Anything that breaks learning (a mask, the schedule, the loss, the optimiser, the model) fails here.
"""

from __future__ import annotations

import pytest
import torch

from tasks import toy


@pytest.fixture(scope="module")
def reversal():
    threads = torch.get_num_threads()
    task = toy.ToyTask("reverse", n_symbols=16, min_len=4, max_len=8)
    # Bounded by steps, not by time, so a busy machine gets the same model (~20 s on an idle CPU);
    # `seconds` is only a safety net.
    torch.set_num_threads(1)  # a model this small runs no faster on two threads
    run = toy.train_toy(task, steps=400, seconds=300, seed=0)
    torch.set_num_threads(threads)
    return task, run


def test_reversal_is_learnt_exactly(reversal):
    task, run = reversal
    assert run.losses[-1] < run.losses[0] / 3
    assert toy.exact_match(run.model, task, n=300) >= 0.95


def test_cross_attention_finds_the_anti_diagonal(reversal):
    task, run = reversal
    per_layer = toy.alignment_accuracy(run.model, task, n=100)
    assert max(per_layer) >= 0.9, per_layer
    symbols = [5, 9, 7, 12, 4, 6]
    best = max(range(len(per_layer)), key=per_layer.__getitem__)
    attn = toy.cross_attention(run.model, task, symbols)[best]  # (T, S)
    gold = [5, 4, 3, 2, 1, 0]
    argmax = attn[: len(symbols)].argmax(-1).tolist()
    assert sum(a == g for a, g in zip(argmax, gold, strict=True)) >= 5, argmax
    on_gold = attn[range(len(symbols)), gold]  # (6,) weight on the right source position
    assert float(on_gold.mean()) > 0.5


def test_an_untrained_model_does_not_pass():
    """The checks above can fail: a fresh model neither reverses nor aligns."""
    task = toy.ToyTask("reverse")
    run = toy.train_toy(task, steps=1, seed=0)
    assert toy.exact_match(run.model, task, n=50) < 0.1
    assert max(toy.alignment_accuracy(run.model, task, n=30)) < 0.6


def test_gold_alignment_of_each_task():
    assert [toy.ToyTask("reverse").source_of(i, 4) for i in range(4)] == [3, 2, 1, 0]
    assert [toy.ToyTask("copy").source_of(i, 4) for i in range(4)] == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        toy.ToyTask("sort")


class SymbolTokenizer:
    """Words "w4 w5 ..." <-> toy ids, so the health numbers can read the toy model like a translator."""

    specials = {0: "<pad>", 1: "<unk>", 2: "<s>", 3: "</s>"}

    def encode(self, text: str) -> list[int]:
        return [int(word[1:]) for word in text.split()]

    def id_to_piece(self, i: int) -> str:
        return self.specials.get(int(i), f"▁w{int(i)}")


def _toy_pairs(task, n: int, seed: int = 7) -> tuple[list[str], list[str]]:
    import random

    rng = random.Random(seed)
    sources, references = [], []
    for _ in range(n):
        symbols = rng.sample(
            range(toy.FIRST_SYMBOL, task.vocab_size), rng.randint(task.min_len, task.max_len)
        )
        sources.append(" ".join(f"w{s}" for s in symbols))
        references.append(" ".join(f"w{s}" for s in task.answer(symbols)))
    return sources, references


def test_health_numbers_tell_a_trained_model_from_an_untrained_one(reversal):
    from training import health

    task, run = reversal
    lexicon = {(f"w{s}", f"w{s}") for s in range(toy.FIRST_SYMBOL, task.vocab_size)}
    sources, references = _toy_pairs(task, 40)
    trained = health.measure(run.model, SymbolTokenizer(), sources, references, lexicon)
    fresh = toy.train_toy(task, steps=1, seed=3).model
    untrained = health.measure(fresh, SymbolTokenizer(), sources, references, lexicon)

    best = trained.best_layer
    assert trained.alignment_pairs == sum(len(s.split()) for s in sources)  # every word is linked once
    assert trained.alignment_accuracy[best] >= 0.9
    assert trained.cross_entropy_ratio[best] <= 0.6
    assert max(untrained.alignment_accuracy) < 0.6
    assert min(untrained.cross_entropy_ratio) > trained.cross_entropy_ratio[best]
    assert 0.0 < untrained.alignment_chance < 0.25  # one of 5-9 keys (words + </s>)
    assert trained.source_kl > 1.0 > untrained.source_kl >= 0.0
    assert len(trained.position_cosine) == run.model.config.n_layers
    assert all(-1.0 <= c <= 1.0 for c in trained.position_cosine)
    summary = trained.summary()
    assert summary["alignment_best_layer"] == best + 1
    assert "alignment" in health.one_line(summary) and "layer" in health.table(summary)


def test_words_and_lexicon_links():
    from training import health

    pieces = ["▁The", "▁cat", "s", "▁sleep", ".", "</s>"]
    assert health.piece_words(pieces) == [0, 1, 1, 2, 2, -1]
    assert health.word_strings(pieces) == ["the", "cats", "sleep"]
    lexicon = {("cats", "katzen"), ("sleep", "schlafen"), ("the", "die"), ("the", "der")}
    links = health.linked_pairs(["the", "cats", "sleep"], ["die", "katzen", "schlafen", "der"], lexicon)
    # "the" links to both "die" and "der": ambiguous, left out
    assert sorted(links) == [(1, 1), (2, 2)]
    assert health.linked_pairs(["cats", "cats"], ["katzen"], lexicon) == []  # repeated word: ambiguous


def test_initialisation_keeps_source_positions_apart():
    """Six post-LN layers with plain Xavier weights map every source position to nearly the same
    vector before any training (the collapse the shipped model never left); the residual-branch
    gain of 0.5 keeps the positions apart. Measured on random sentences at the shipped width."""
    import torch.nn.functional as F

    from transformer import Transformer, TransformerConfig, hooks

    config = TransformerConfig(vocab_size=500, d_model=128, d_ff=512, n_layers=6, n_heads=8)
    src = torch.randint(4, 500, (8, 20), generator=torch.Generator().manual_seed(0))

    def output_cosine(gain: float) -> float:
        torch.manual_seed(0)
        model = Transformer(config)
        model.reset_parameters(gain)
        with torch.no_grad(), hooks.record() as store:
            model.eval().encode(src)
        unit = F.normalize(store["encoder.layers.5.hook_norm2"], dim=-1)  # (B, S, D)
        cos = unit @ unit.transpose(1, 2)  # (B, S, S)
        off_diagonal = ~torch.eye(20, dtype=torch.bool)
        return float(cos[:, off_diagonal].mean())

    assert output_cosine(1.0) > 0.8
    assert output_cosine(0.5) < 0.5
