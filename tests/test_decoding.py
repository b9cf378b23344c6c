"""Greedy decoding and beam search: their rules on a scripted model, their agreement on real ones,
and a tiny model trained with the real training step that decodes a toy task exactly."""

from __future__ import annotations

import math

import pytest
import torch

from tasks.step import loss_fn, make_optimizer, noam_lr
from training.evaluate import evaluate
from transformer import Transformer, TransformerConfig
from transformer.decoding import (
    Hypothesis,
    beam_search,
    beam_search_batch,
    greedy_decode,
    greedy_decode_batch,
    length_penalty,
)

PAD, BOS, EOS = 0, 2, 3
A, B, C = 4, 5, 6  # plain tokens of the scripted model


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """These models are tiny: one thread is faster than several and leaves the other cores alone."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class Scripted:
    """A stand-in model whose next-token distribution is a table keyed by the prefix (BOS left out).

    Tokens not in a prefix's entry get probability 0, so the search rules can be checked on
    numbers worked out by hand.
    """

    def __init__(self, table: dict[tuple[int, ...], dict[int, float]], default: dict[int, float]) -> None:
        self.config = TransformerConfig(vocab_size=8, d_model=2, n_heads=1, d_ff=2, n_layers=1, max_len=64)
        self.device = torch.device("cpu")
        self.table, self.default = table, default

    def src_allowed(self, src: torch.Tensor) -> torch.Tensor:
        return torch.ones(src.size(0), 1, 1, src.size(1), dtype=torch.bool)

    def encode(self, src: torch.Tensor, src_allowed: torch.Tensor) -> torch.Tensor:
        return torch.zeros(src.size(0), src.size(1), 2)

    def decode(self, tgt: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor,
               last_only: bool = False) -> torch.Tensor:
        rows = []
        for prefix in tgt.tolist():
            probs = torch.zeros(self.config.vocab_size)
            for token, p in self.table.get(tuple(prefix[1:]), self.default).items():
                probs[token] = p
            rows.append(probs.log())
        return torch.stack(rows)[:, None]  # (W, 1, V): the decoders read only the last position


def test_length_penalty_is_wu_et_al():
    assert length_penalty(1, 0.6) == pytest.approx(1.0)
    assert length_penalty(7, 0.6) == pytest.approx(2.0**0.6)
    assert length_penalty(13, 1.0) == pytest.approx(3.0)
    assert length_penalty(9, 0.0) == 1.0


def test_beam_search_finds_what_greedy_misses():
    # Greedy takes A (0.6) and then EOS (0.4): P = 0.24. B (0.4) then EOS (0.9) has P = 0.36.
    model = Scripted(
        {(): {A: 0.6, B: 0.4}, (A,): {EOS: 0.4, B: 0.3, C: 0.3}, (B,): {EOS: 0.9, C: 0.1}}, {C: 1.0}
    )
    greedy = greedy_decode(model, [A, EOS])
    assert greedy.ids == [A] and greedy.finished
    assert greedy.log_prob == pytest.approx(math.log(0.24), abs=1e-6)
    hyps = beam_search(model, [A, EOS], beam_size=2, alpha=0.0)
    assert [h.ids for h in hyps] == [[B], [A]]
    assert [h.log_prob for h in hyps] == pytest.approx([math.log(0.36), math.log(0.24)], abs=1e-6)
    assert all(h.finished and h.score == h.log_prob for h in hyps)  # α = 0: no penalty


def test_length_penalty_decides_between_short_and_long():
    # [] ends at once with P = 0.5; [A, B] ends with P = 0.48 * 0.995 * 0.99 ≈ 0.473.
    table = {
        (): {EOS: 0.5, A: 0.48, C: 0.02},
        (A,): {B: 0.995, C: 0.005},
        (A, B): {EOS: 0.99, C: 0.01},
    }
    model = Scripted(table, {C: 1.0})
    plain = beam_search(model, [A, EOS], beam_size=2, alpha=0.0)
    assert [h.ids for h in plain] == [[], [A, B]]
    penalised = beam_search(model, [A, EOS], beam_size=2, alpha=0.6)
    assert [h.ids for h in penalised] == [[A, B], []]
    for h in penalised:  # the length counts the EOS the hypothesis ended with
        assert h.score == pytest.approx(h.log_prob / ((5 + len(h.ids) + 1) / 6) ** 0.6)
    assert penalised[0].log_prob == pytest.approx(math.log(0.48 * 0.995 * 0.99), abs=1e-6)


def test_eos_first_gives_an_empty_finished_translation():
    model = Scripted({(): {EOS: 0.7, A: 0.3}}, {A: 1.0})
    greedy = greedy_decode(model, [A, EOS])
    assert greedy == Hypothesis([], pytest.approx(math.log(0.7)), pytest.approx(math.log(0.7)), True)
    best = beam_search(model, [A, EOS], beam_size=1)[0]
    assert best.ids == [] and best.finished


def test_max_len_cuts_a_model_that_never_ends():
    model = Scripted({}, {A: 0.7, B: 0.3})
    greedy = greedy_decode(model, [A, EOS], max_len=5)
    assert greedy.ids == [A] * 5 and not greedy.finished
    assert greedy.log_prob == pytest.approx(5 * math.log(0.7), abs=1e-5)
    hyps = beam_search(model, [A, EOS], beam_size=3, alpha=0.6, max_len=5)
    assert len(hyps) == 3 and not any(h.finished for h in hyps)
    assert hyps[0].ids == [A] * 5 and all(len(h.ids) == 5 for h in hyps)
    assert hyps[0].score == pytest.approx(5 * math.log(0.7) / length_penalty(5, 0.6), abs=1e-5)


def test_beam_size_must_be_positive(tiny_model):
    with pytest.raises(ValueError):
        beam_search(tiny_model, [5, 6, EOS], beam_size=0)
    with pytest.raises(ValueError):
        greedy_decode(tiny_model, [])


def _random_sources(n: int, vocab: int, seed: int, lo: int = 2, hi: int = 9) -> list[list[int]]:
    g = torch.Generator().manual_seed(seed)
    sources = []
    for _ in range(n):
        length = int(torch.randint(lo, hi + 1, (1,), generator=g))
        sources.append(torch.randint(4, vocab, (length,), generator=g).tolist() + [EOS])
    return sources


def test_beam_size_one_equals_greedy_on_a_random_model(tiny_model):
    for src in _random_sources(6, tiny_model.config.vocab_size, seed=0):
        greedy = greedy_decode(tiny_model, src, max_len=12)
        beam = beam_search(tiny_model, src, beam_size=1, alpha=0.6, max_len=12)
        assert len(beam) == 1
        assert beam[0].ids == greedy.ids and beam[0].finished == greedy.finished
        assert beam[0].log_prob == pytest.approx(greedy.log_prob, abs=1e-4)


@pytest.mark.parametrize("beam_size", [2, 4])
def test_beam_results_are_sorted_and_within_max_len(tiny_model, beam_size):
    for src in _random_sources(4, tiny_model.config.vocab_size, seed=1):
        hyps = beam_search(tiny_model, src, beam_size=beam_size, alpha=0.6, max_len=8)
        assert 1 <= len(hyps) <= beam_size
        scores = [h.score for h in hyps]
        assert scores == sorted(scores, reverse=True)
        for h in hyps:
            assert len(h.ids) <= 8 and EOS not in h.ids and BOS not in h.ids
            length = len(h.ids) + 1 if h.finished else len(h.ids)
            assert h.score == pytest.approx(h.log_prob / length_penalty(length, 0.6), rel=1e-6)


def test_default_max_len_is_source_plus_50_within_the_table(tiny_model):
    src = [7] * 5 + [EOS]
    assert len(greedy_decode(tiny_model, src).ids) <= len(src) + 50
    long_src = [7] * 40 + [EOS]  # 41 + 50 would pass the 64-position table
    assert len(greedy_decode(tiny_model, long_src).ids) <= tiny_model.config.max_len - 1


def _assert_same(batched: list[Hypothesis], single: list[Hypothesis]) -> None:
    assert [h.ids for h in batched] == [h.ids for h in single]
    assert [h.finished for h in batched] == [h.finished for h in single]
    assert [h.score for h in batched] == pytest.approx([h.score for h in single], abs=1e-4)


def test_batched_decoders_match_one_sentence_at_a_time(tiny_model):
    sources = _random_sources(5, tiny_model.config.vocab_size, seed=2, lo=1, hi=10)
    # Default max_len: each row has its own limit (source length + 50).
    _assert_same(greedy_decode_batch(tiny_model, sources), [greedy_decode(tiny_model, s) for s in sources])
    for beam_size in (1, 3):
        batched = beam_search_batch(tiny_model, sources, beam_size, 0.6, max_len=9)
        for hyps, src in zip(batched, sources, strict=True):
            _assert_same(hyps, beam_search(tiny_model, src, beam_size, 0.6, max_len=9))


# ---- a tiny model trained with the real training step on a toy task ------------------------------

TOY_VOCAB = 20  # 4 specials + 16 symbols


def toy_batch(g: torch.Generator, n: int, lo: int = 2, hi: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """Reversal task: src = x EOS, tgt = BOS reverse(x) EOS, padded."""
    lengths = torch.randint(lo, hi + 1, (n,), generator=g).tolist()
    src = torch.full((n, max(lengths) + 1), PAD)
    tgt = torch.full((n, max(lengths) + 2), PAD)
    for row, length in enumerate(lengths):
        x = torch.randint(4, TOY_VOCAB, (length,), generator=g)
        src[row, :length], src[row, length] = x, EOS
        tgt[row, 0], tgt[row, 1 : length + 1], tgt[row, length + 1] = BOS, x.flip(0), EOS
    return src, tgt


@pytest.fixture(scope="module")
def toy(one_thread):
    """Train until solved (about 450 steps, ~12 s on one idle core; seeded, so the same run every
    time); returns the model and the last 50 training losses. At this learning rate the loss
    spikes now and then, so a fixed step count can stop on a spike."""
    torch.manual_seed(0)
    config = TransformerConfig(
        vocab_size=TOY_VOCAB, d_model=32, n_heads=4, d_ff=64, n_layers=2, dropout=0.0, max_len=32
    )
    model = Transformer(config)
    optimizer = make_optimizer(model)
    g = torch.Generator().manual_seed(0)
    losses = []
    model.train()
    for step in range(1, 2001):
        src, tgt = toy_batch(g, 64)
        for group in optimizer.param_groups:
            group["lr"] = noam_lr(step, config.d_model, warmup=100, scale=1.0)
        # smoothing 0 so that "solved" means a loss near 0 (with ε_ls it cannot go below ~0.1)
        loss = loss_fn(model(src, tgt[:, :-1]), tgt[:, 1:], PAD, smoothing=0.0)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step >= 200 and sum(losses[-50:]) / 50 < 0.01:
            break
    return model.eval(), losses[-50:]


def held_out(n: int = 20) -> list[list[int]]:
    return [s[:-1] for s in _random_sources(n, TOY_VOCAB, seed=123, lo=2, hi=8)]


def test_toy_training_reaches_near_zero_loss(toy):
    _, losses = toy
    assert sum(losses) / len(losses) < 0.05
    model, _ = toy
    g = torch.Generator().manual_seed(99)  # unseen batch, plain cross-entropy
    src, tgt = toy_batch(g, 128)
    with torch.no_grad():
        assert loss_fn(model(src, tgt[:, :-1]), tgt[:, 1:], PAD, smoothing=0.0).item() < 0.05


def test_toy_model_decodes_exactly_greedy_and_beam(toy):
    model, _ = toy
    for x in held_out(12):
        greedy = greedy_decode(model, x + [EOS])
        assert greedy.ids == x[::-1] and greedy.finished
        best = beam_search(model, x + [EOS], beam_size=4, alpha=0.6)[0]
        assert best.ids == x[::-1] and best.finished
        one = beam_search(model, x + [EOS], beam_size=1)[0]
        assert one.ids == greedy.ids and one.log_prob == pytest.approx(greedy.log_prob, abs=1e-4)


def test_toy_model_batched_decoders_match(toy):
    model, _ = toy
    sources = [x + [EOS] for x in held_out(12)]
    _assert_same(greedy_decode_batch(model, sources), [greedy_decode(model, s) for s in sources])
    for hyps, src in zip(beam_search_batch(model, sources, 4, 0.6), sources, strict=True):
        _assert_same(hyps, beam_search(model, src, 4, 0.6))
        assert hyps[0].finished


class Letters:
    """Tokenizer stand-in for the toy model: words 'a'..'p' are ids 4..19."""

    eos_id = EOS

    def encode(self, text: str) -> list[int]:
        return [4 + ord(w) - ord("a") for w in text.split()]

    def decode(self, ids) -> str:
        return " ".join(chr(ord("a") + i - 4) for i in ids if i >= 4)

    def id_to_piece(self, i: int) -> str:
        return self.decode([i])


def test_evaluate_scores_a_perfect_system_100_and_keeps_order(toy):
    model, _ = toy
    tok = Letters()
    sources = [tok.decode(x) for x in held_out(10)]
    sources.insert(3, "   ")  # cleans to nothing: an empty translation, not a crash
    references = [" ".join(reversed(s.split())) for s in sources]
    result = evaluate(model, tok, sources, references, beam=4, alpha=0.6, batch_size=4)
    for key in ("greedy", "beam"):
        assert result[key]["bleu"] == pytest.approx(100.0)
        assert result[key]["chrf"] == pytest.approx(100.0)
        assert result[key]["bleu_signature"].startswith("nrefs:1|")
    assert result["beam"]["beam_size"] == 4 and result["beam"]["alpha"] == 0.6
    assert [h["greedy"] for h in result["hypotheses"]] == references
    assert [h["beam"] for h in result["hypotheses"]] == references
    assert result["hypotheses"][3]["greedy"] == ""
    wrong = evaluate(model, tok, sources, list(reversed(references)), beam=0)
    assert "beam" not in wrong and wrong["greedy"]["bleu"] < 50
