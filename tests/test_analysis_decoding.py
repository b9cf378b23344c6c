"""Step-by-step decoding state and the head finder (analysis/decoding.py)."""

from __future__ import annotations

import pytest
import torch

from analysis.decoding import (
    decoding_step,
    find_word,
    link_weights,
    rank_heads,
    step_from_trace,
    step_limit,
    words,
)
from transformer.trace import run_trace

SRC = [5, 9, 13, 17, 21, 3]  # ends in EOS (id 3)
PREFIX = [2, 7, 11, 19, 23]  # BOS, then four target tokens


def trace_of(model, src=SRC, tgt=PREFIX):
    return run_trace(model, src, tgt, [f"p{i}" for i in src], [f"t{i}" for i in tgt])


def test_top_k_are_the_softmax_of_the_last_logits(tiny_model):
    step = decoding_step(tiny_model, SRC, PREFIX, k=5)
    with torch.no_grad():
        logits = tiny_model(torch.tensor([SRC]), torch.tensor([PREFIX]))[0, -1]  # (V,)
    probs = logits.softmax(-1)
    expected = probs.topk(5)
    assert step.top_ids == expected.indices.tolist()
    torch.testing.assert_close(torch.tensor(step.top_probs), expected.values)
    assert step.top_probs == sorted(step.top_probs, reverse=True)
    assert 0.0 < sum(step.top_probs) <= 1.0 + 1e-6
    assert step.next_id == int(probs.argmax())
    assert step.tgt_ids == PREFIX


def test_k_larger_than_vocabulary_gives_every_token_and_sums_to_one(tiny_model, tiny_config):
    step = decoding_step(tiny_model, SRC, PREFIX, k=10_000)
    assert sorted(step.top_ids) == list(range(tiny_config.vocab_size))
    assert sum(step.top_probs) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5])
def test_step_rows_are_the_rows_of_the_full_trace(tiny_model, tiny_config, length):
    """Causal masking: the newest row at step k equals row k-1 of a trace of the longer prefix."""
    full = trace_of(tiny_model)
    step = decoding_step(tiny_model, SRC, PREFIX[:length])
    assert set(step.rows) == {(kind, i) for kind in ("self", "cross") for i in range(tiny_config.n_layers)}
    for layer in range(tiny_config.n_layers):
        self_row = step.rows[("self", layer)]  # (H, length)
        assert self_row.shape == (tiny_config.n_heads, length)
        full_self = full.attention("decoder", "self", layer)[:, length - 1, :]  # (H, T)
        torch.testing.assert_close(self_row, full_self[:, :length])
        assert torch.all(full_self[:, length:] == 0)  # the future keys got no weight
        cross_row = step.rows[("cross", layer)]  # (H, S)
        assert cross_row.shape == (tiny_config.n_heads, len(SRC))
        torch.testing.assert_close(cross_row, full.attention("decoder", "cross", layer)[:, length - 1, :])


def test_step_from_trace_agrees_with_decoding_step(tiny_model):
    direct = decoding_step(tiny_model, SRC, PREFIX, k=4)
    cached = step_from_trace(trace_of(tiny_model), k=4)
    assert cached.top_ids == direct.top_ids
    torch.testing.assert_close(torch.tensor(cached.top_probs), torch.tensor(direct.top_probs))
    for key, row in direct.rows.items():
        torch.testing.assert_close(cached.rows[key], row)


def test_decoding_step_rejects_empty_input(tiny_model):
    with pytest.raises(ValueError):
        decoding_step(tiny_model, SRC, [])
    with pytest.raises(ValueError):
        decoding_step(tiny_model, SRC, PREFIX, k=0)


def test_words_group_pieces_at_word_starts():
    pieces = ["▁The", "▁L", "aw", "▁per", "fect", ",", "▁its", "</s>"]
    got = [(w.text, w.positions) for w in words(pieces)]
    assert got == [("The", (0,)), ("Law", (1, 2)), ("perfect,", (3, 4, 5)), ("its", (6,)), ("</s>", (7,))]
    assert find_word(pieces, "law").positions == (1, 2)
    assert find_word(pieces, "perfect").positions == (3, 4, 5)  # trailing punctuation ignored
    assert find_word(pieces, "missing") is None


def test_link_weights_sum_key_pieces_and_average_query_pieces():
    patterns = torch.zeros(1, 1, 3, 3)  # (L, H, T_q, T_k)
    patterns[0, 0, 0] = torch.tensor([0.2, 0.3, 0.5])
    patterns[0, 0, 1] = torch.tensor([0.6, 0.1, 0.3])
    weight = link_weights(patterns, query_positions=(0, 1), key_positions=(1, 2))
    # query row 0 puts 0.3 + 0.5 on the key word, row 1 puts 0.1 + 0.3: the mean is 0.6
    torch.testing.assert_close(weight, torch.tensor([[0.6]]))
    with pytest.raises(ValueError):
        link_weights(patterns, (), (1,))


def test_rank_heads_is_sorted_and_matches_the_trace(tiny_model, tiny_config):
    tr = trace_of(tiny_model)
    query, key = (1, 2), (4,)
    ranking = rank_heads(tr, query, key)
    assert len(ranking) == tiny_config.n_layers * tiny_config.n_heads
    assert {(s.layer, s.head) for s in ranking} == {
        (i, h) for i in range(tiny_config.n_layers) for h in range(tiny_config.n_heads)
    }
    weights = [s.weight for s in ranking]
    assert weights == sorted(weights, reverse=True)
    for s in ranking:
        pattern = tr.attention("encoder", "self", s.layer)[s.head]  # (S, S)
        expected = pattern[list(query)][:, list(key)].sum(-1).mean()
        assert s.weight == pytest.approx(float(expected), abs=1e-6)


def test_rank_heads_on_cross_attention_uses_the_cross_weights(tiny_model):
    tr = trace_of(tiny_model)
    ranking = rank_heads(tr, (3,), (0, 1), stack="decoder", kind="cross")
    best = ranking[0]
    expected = tr.attention("decoder", "cross", best.layer)[best.head, 3, :2].sum()
    assert best.weight == pytest.approx(float(expected), abs=1e-6)


def test_step_limit_is_the_papers_input_length_plus_50_within_the_pe_table(tiny_model, tiny_config):
    assert step_limit(tiny_model, 5) == 55
    assert step_limit(tiny_model, 40) == tiny_config.max_len - 1  # capped by the 64-position PE table
