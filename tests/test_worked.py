"""The worked examples reproduce the seeds' hand-computed numbers, through the model's own code."""

from __future__ import annotations

import math

import pytest
import torch

from analysis import worked


def test_two_token_attention_matches_the_hand_computation():
    steps = worked.attention_steps(worked.SEED_Q, worked.SEED_K, worked.SEED_V)
    assert steps.d_k == 2
    torch.testing.assert_close(steps.qk, torch.eye(2, dtype=torch.float64))
    torch.testing.assert_close(steps.scaled, torch.eye(2, dtype=torch.float64) / math.sqrt(2))
    expected = torch.tensor([[0.67, 0.33], [0.33, 0.67]], dtype=torch.float64)
    torch.testing.assert_close(steps.weights, expected, atol=0.005, rtol=0)
    output = torch.tensor([[2.66, 3.66], [3.34, 4.34]], dtype=torch.float64)
    torch.testing.assert_close(steps.output, output, atol=0.005, rtol=0)
    e = math.exp(1 / math.sqrt(2))  # the seed's e^0.707 ≈ 2.027
    assert steps.weights[0, 0].item() == pytest.approx(e / (e + 1), abs=1e-12)


def test_edited_matrices_change_every_step():
    steps = worked.attention_steps([[2.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[1.0], [2.0], [3.0]])
    assert steps.weights.shape == (1, 3) and steps.output.shape == (1, 1)
    scaled = torch.tensor([2.0, 0.0, 2.0]) / math.sqrt(2)
    torch.testing.assert_close(steps.weights[0], scaled.double().softmax(-1))
    mixed = steps.weights[0] @ torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    assert steps.output[0, 0].item() == pytest.approx(float(mixed))


def test_attention_rejects_matrices_that_do_not_fit():
    with pytest.raises(ValueError, match="d_k"):
        worked.attention_steps([[1.0, 0.0]], [[1.0, 0.0, 0.0]], [[1.0]])
    with pytest.raises(ValueError, match="rows"):
        worked.attention_steps([[1.0]], [[1.0], [2.0]], [[1.0]])


def test_layer_norm_of_the_seed_vector():
    ln = worked.layer_norm(worked.SEED_LAYERNORM)
    assert ln.mean == pytest.approx(4.5)
    assert ln.variance == pytest.approx(5.25)
    assert ln.std == pytest.approx(2.29, abs=0.005)
    torch.testing.assert_close(ln.normalised, torch.tensor([-0.65, 0.22, -1.09, 1.53], dtype=torch.float64),
                               atol=0.005, rtol=0)
    assert ln.normalised.mean().item() == pytest.approx(0.0, abs=1e-12)


def test_softmax_sums_to_one_and_sharpens_when_scores_grow():
    x = torch.tensor([2.0, 1.0, 0.1])
    p1, p5 = worked.softmax(x), worked.softmax(x * 5)
    assert p1.sum().item() == pytest.approx(1.0)
    assert p5.max() > p1.max()
    torch.testing.assert_close(worked.softmax(x, scale=2.0), (x.double() / 2).softmax(-1))


def test_saturation_argument_dot_product_variance_is_d_k():
    sat = worked.saturation(d_ks=(1, 16, 256), samples=4000)
    for d_k, variance in zip(sat.d_k, sat.variance, strict=True):
        assert variance == pytest.approx(d_k, rel=0.15)
    assert sat.max_weight_raw[-1] > 0.85  # unscaled: nearly all weight on one key
    assert all(w < 0.5 for w in sat.max_weight_scaled)  # scaled: stays spread out, whatever d_k


def test_multihead_shapes_split_and_concat():
    shapes = dict(worked.multihead_shapes(tokens=5, d_model=512, n_heads=8))
    assert shapes["input X"] == (5, 512)
    assert shapes["Q = X·W^Q + b^Q, split into h heads"] == (8, 5, 64)
    assert shapes["scores Q·Kᵀ/√d_k, one matrix per head"] == (8, 5, 5)
    assert shapes["head outputs: weights·V"] == (8, 5, 64)
    assert shapes["Concat(head_1, …, head_h)"] == (5, 512)
    assert shapes["output: Concat·W^O + b^O"] == (5, 512)
    with pytest.raises(ValueError):
        worked.multihead_shapes(d_model=10, n_heads=4)


def test_table_1_rows_and_costs():
    rows = {t.name: (t.complexity, t.sequential, t.path_length) for t in worked.TABLE_1}
    assert rows == {
        "Self-attention": ("O(n²·d)", "O(1)", "O(1)"),
        "Recurrent": ("O(n·d²)", "O(n)", "O(n)"),
        "Convolutional": ("O(k·n·d²)", "O(1)", "O(log_k(n))"),
        "Self-attention (restricted)": ("O(r·n·d)", "O(1)", "O(n/r)"),
    }
    n = torch.tensor([10.0, 512.0, 1000.0])
    assert worked.cost("Self-attention", n, d=512).tolist() == [100 * 512, 512**3, 1000**2 * 512]
    assert worked.cost("Recurrent", n, d=512).tolist() == [10 * 512**2, 512**3, 1000 * 512**2]
    assert worked.cost("Convolutional", 10, d=4, k=3).item() == 3 * 10 * 16
    assert worked.cost("Self-attention (restricted)", 10, d=4, r=2).item() == 2 * 10 * 4
    # self-attention is cheaper than recurrence exactly while n < d
    self_attn, recurrent = worked.cost("Self-attention", n, 512), worked.cost("Recurrent", n, 512)
    assert (self_attn < recurrent).tolist() == [True, False, False]
    torch.testing.assert_close(worked.path_length("Convolutional", torch.tensor([9.0, 27.0]), k=3),
                               torch.tensor([2.0, 3.0], dtype=torch.float64))
    assert worked.path_length("Recurrent", 7).item() == 7
    with pytest.raises(ValueError):
        worked.cost("LSTM", 3, 4)


def test_matrix_parsing():
    torch.testing.assert_close(worked.parse_matrix("1 0\n0, 1"), torch.eye(2, dtype=torch.float64))
    assert worked.parse_matrix(worked.format_matrix(worked.SEED_V)).tolist() == worked.SEED_V
    assert worked.parse_vector("3, 5\n2 8").tolist() == worked.SEED_LAYERNORM
    for bad, message in (("", "empty"), ("1 2\n3", "same number"), ("1 x", "only numbers"),
                         ("nan 1", "finite"), ("\n".join(["1"] * 9), "at most")):
        with pytest.raises(ValueError, match=message):
            worked.parse_matrix(bad)
