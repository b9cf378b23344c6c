"""analysis/inputs.py: similarity, the PE shift map M_k, and attention without positions."""

from __future__ import annotations

import math

import pytest
import torch

from analysis import inputs as analysis
from transformer import hooks
from transformer.embeddings import sinusoidal_encoding


def test_cosine_similarity_is_one_on_the_diagonal_and_symmetric():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(6, 16, generator=g) * torch.arange(1, 7)[:, None]  # rows of very different lengths
    x[4] = x[1] * 3.0  # same direction, other length
    x[5] = -x[2]
    sim = analysis.cosine_similarity(x)
    assert sim.shape == (6, 6)
    torch.testing.assert_close(sim.diagonal(), torch.ones(6, dtype=sim.dtype))
    torch.testing.assert_close(sim, sim.T)
    assert sim[1, 4].item() == pytest.approx(1.0, abs=1e-9)
    assert sim[2, 5].item() == pytest.approx(-1.0, abs=1e-9)
    assert (sim.abs() <= 1.0).all()
    manual = torch.dot(x[0], x[3]) / (x[0].norm() * x[3].norm())
    assert sim[0, 3].item() == pytest.approx(manual.item(), abs=1e-6)


def test_a_shared_direction_raises_every_cosine_and_centring_removes_it():
    """Rows = a common vector + their own noise: random pairs look alike (cosine near |c|² / (|c|² + σ²D)),
    until the mean row is taken away."""
    g = torch.Generator().manual_seed(0)
    common = torch.full((32,), 1.0)  # |c|² = 32, the noise's σ²D = 32: raw cosine near 0.5
    rows = common + torch.randn(4000, 32, generator=g)
    base = analysis.vocabulary_similarity(rows, pairs=5000)
    assert (base.rows, base.pairs) == (4000, 5000)
    assert base.raw == pytest.approx(0.5, abs=0.03) and abs(base.centred) < 0.02
    assert base.along_mean == pytest.approx(math.sqrt(0.5), abs=0.03)
    torch.testing.assert_close(base.mean_row, rows.mean(0), atol=1e-5, rtol=0)
    assert analysis.vocabulary_similarity(rows, pairs=5000).raw == base.raw  # seeded: the same pairs
    sim = torch.tensor([[1.0, 0.2, 0.4], [0.2, 1.0, 0.6], [0.4, 0.6, 1.0]])
    assert analysis.mean_off_diagonal(sim) == pytest.approx(0.4)
    assert math.isnan(analysis.mean_off_diagonal(torch.ones(1, 1)))
    with pytest.raises(ValueError):
        analysis.vocabulary_similarity(torch.ones(1, 4))


def test_position_similarity_depends_only_on_distance():
    pe = sinusoidal_encoding(40, 32)
    sim = analysis.position_similarity(pe)
    torch.testing.assert_close(sim.diagonal(), torch.full((40,), 16.0, dtype=sim.dtype), atol=1e-5, rtol=0)
    for offset in (1, 5, 17):
        band = sim.diagonal(offset)
        assert (band - band[0]).abs().max() < 1e-5
    assert sim[0, 1] > sim[0, 10]


def test_shift_matrix_is_block_diagonal_rotations():
    d = 16
    m = analysis.shift_matrix(5, d)
    blocks = torch.block_diag(*(m[i : i + 2, i : i + 2] for i in range(0, d, 2)))
    torch.testing.assert_close(m, blocks, atol=0, rtol=0)  # nothing outside the 2x2 blocks
    torch.testing.assert_close(m @ m.T, torch.eye(d, dtype=m.dtype), atol=1e-12, rtol=0)  # rotations
    for i in range(0, d, 2):
        assert torch.det(m[i : i + 2, i : i + 2]).item() == pytest.approx(1.0, abs=1e-12)
    # The first pair turns by exactly k radians (ω_0 = 1); M_0 is the identity.
    assert m[0, 0].item() == pytest.approx(math.cos(5)) and m[0, 1].item() == pytest.approx(math.sin(5))
    torch.testing.assert_close(analysis.shift_matrix(0, d), torch.eye(d, dtype=m.dtype))
    # M_a M_b = M_{a+b}: moving 2 then 3 positions is moving 5.
    torch.testing.assert_close(analysis.shift_matrix(2, d) @ analysis.shift_matrix(3, d), m)


@pytest.mark.parametrize("k", [1, 3, 17, 100])
def test_pe_shift_is_linear_on_the_models_real_table(k):
    # The shipped model's table (max_len 256, d_model 128), and the buffer a model actually adds.
    shipped = sinusoidal_encoding(256, 128)
    check = analysis.check_shift(shipped, k)
    assert check.max_error < 1e-5
    assert check.predicted.shape == (256 - k, 128)
    torch.testing.assert_close(check.actual, shipped[k:].double())


def test_pe_shift_on_a_model_buffer_and_a_wrong_matrix_fails(tiny_model):
    table = tiny_model.src_pos_enc.pe  # (max_len, d_model), what the forward pass adds
    assert analysis.check_shift(table, 7).max_error < 1e-5
    # The check can fail: the M_k for another k does not map PE(pos) onto PE(pos + 7).
    wrong = table[:-7].double() @ analysis.shift_matrix(6, table.shape[1]).T
    assert (wrong - table[7:].double()).abs().max() > 1e-2
    with pytest.raises(ValueError):
        analysis.check_shift(table, table.shape[0])


def test_scale_summary_measures_the_scaling():
    g = torch.Generator().manual_seed(1)
    embed = torch.randn(5, 16, generator=g) * 0.25
    pe = sinusoidal_encoding(5, 16)
    s = analysis.scale_summary(embed, embed * 4.0, pe)
    assert s.sqrt_d_model == 4.0
    assert s.rms_scaled == pytest.approx(4.0 * s.rms_embed)
    assert s.rms_pe == pytest.approx(math.sqrt(0.5), abs=1e-6)  # sin² + cos² = 1 per pair
    torch.testing.assert_close(s.norm_scaled, 4.0 * s.norm_embed)
    with pytest.raises(ValueError):
        analysis.scale_summary(embed, embed[:4], pe)


def test_word_shuffle_moves_whole_words_and_keeps_eos_last():
    pieces = ["▁The", "▁stre", "et", "▁was", "▁t", "ired", ".", "</s>"]
    for seed in range(5):
        order = analysis.word_shuffle(pieces, seed)
        assert sorted(order) == list(range(len(pieces)))
        assert order != list(range(len(pieces)))
        assert order[-1] == 7
        shuffled = [pieces[i] for i in order]
        text = " ".join(shuffled)
        assert "▁stre et" in text and "▁t ired ." in text  # words are not cut apart
    assert analysis.word_shuffle(["▁Hi", "</s>"]) == [0, 1]  # one word: nothing to shuffle


def test_permute_pattern_reorders_rows_and_columns():
    p = torch.arange(9.0).view(3, 3)
    out = analysis.permute_pattern(p, [2, 0, 1])
    assert out[0, 1].item() == p[2, 0].item() and out[1, 2].item() == p[0, 1].item()


def test_without_positions_shuffled_attention_is_the_permuted_original(tiny_model):
    src_ids = [5, 17, 9, 33, 5, 21, 3]  # a repeated token, EOS (id 3) last
    order = [3, 4, 0, 2, 1, 5, 6]
    result = analysis.without_positions(tiny_model, src_ids, order)
    n_layers, n_heads = tiny_model.config.n_layers, tiny_model.config.n_heads
    assert result.plain.shape == (n_layers, n_heads, 7, 7)
    torch.testing.assert_close(result.shuffled, analysis.permute_pattern(result.plain, order),
                               atol=1e-5, rtol=0)
    assert result.max_diff_without_pe < 1e-5
    torch.testing.assert_close(result.restored(), result.plain, atol=1e-5, rtol=0)
    # With positions the model does see the order: shuffling really changes the weights.
    assert result.max_diff_with_pe > 1e-3
    assert (result.plain - result.plain_with_pe).abs().max() > 1e-3


def test_removing_pe_is_a_hook_edit_for_that_call_only(tiny_model):
    src_ids = [5, 17, 9, 3]
    before = analysis.encoder_patterns(tiny_model, src_ids, positions=True)
    buffer = tiny_model.src_pos_enc.pe.clone()
    with hooks.record({analysis.PE_HOOK: torch.zeros_like}) as store:
        tiny_model.encode(torch.tensor([src_ids]))
    assert (store[analysis.PE_HOOK] == 0).all()
    analysis.without_positions(tiny_model, src_ids, [1, 0, 2, 3])
    assert not hooks.active()
    torch.testing.assert_close(tiny_model.src_pos_enc.pe, buffer, atol=0, rtol=0)
    torch.testing.assert_close(analysis.encoder_patterns(tiny_model, src_ids, positions=True), before)
    with pytest.raises(ValueError):
        analysis.without_positions(tiny_model, src_ids, [0, 0, 1, 2])
