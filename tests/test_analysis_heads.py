"""Head statistics on hand-made matrices, rollout, sentence alignment, and switching heads off."""

from __future__ import annotations

import math

import pytest
import torch

from analysis import compare, heads, rollout
from analysis.compare import head_ablation
from transformer.trace import run_trace

# "▁The ▁t ired . </s>": words by the '▁' rule are [The] [t ired .] [</s>]
PIECES = ["▁The", "▁t", "ired", ".", "</s>"]
PREVIOUS = torch.tensor([  # every row on the previous token (row 0 on itself)
    [1.0, 0, 0, 0, 0],
    [1.0, 0, 0, 0, 0],
    [0, 1.0, 0, 0, 0],
    [0, 0, 1.0, 0, 0],
    [0, 0, 0, 1.0, 0],
])
UNIFORM = torch.full((5, 5), 0.2)


def _stats(pattern, **kwargs):
    return {k: v.tolist() for k, v in heads.mean_statistics(pattern, PIECES, PIECES, **kwargs).items()}


def test_words_and_delimiters():
    assert heads.word_ids(PIECES) == [0, 1, 1, 1, 2]
    assert heads.word_ids(["<s>", "▁Das", "Tier", "</s>"]) == [0, 1, 1, 2]
    assert heads.word_ids(["ab", "c", "▁d"]) == [0, 0, 1]  # a first piece without '▁' still starts a word
    assert [heads.is_delimiter(p) for p in ["▁.", ",", "</s>", "<s>", "▁The", "'", "▁"]] == [
        True, True, True, True, False, True, False]


def test_statistics_of_a_previous_token_head_and_a_uniform_head():
    s = _stats(torch.stack([PREVIOUS, UNIFORM]))  # (H=2, 5, 5)
    assert s["previous"] == pytest.approx([1.0, 0.2])
    assert s["next"] == pytest.approx([0.0, 0.2])
    assert s["self"] == pytest.approx([0.2, 0.2])
    assert s["entropy"] == pytest.approx([0.0, math.log(5)])
    assert s["broadness"] == pytest.approx([0.0, 1.0])
    # |i − j| averaged: previous head 4 rows at distance 1 of 5; uniform (2 + 1.4 + 1.2 + 1.4 + 2) / 5
    assert s["distance"] == pytest.approx([0.8, 1.6])
    # rows 1, 2, 3 belong to the 3-piece word: weight on its other pieces is 0, 1, 1 / 0.4 each
    assert s["same_word"] == pytest.approx([2 / 3, 0.4])
    # '.' and '</s>' are delimiters: only row 4 of the first head looks at one
    assert s["delimiter"] == pytest.approx([0.2, 0.4])


def test_causal_mask_leaves_blocked_neighbours_out():
    allowed = torch.ones(5, 5, dtype=torch.bool).tril()
    causal_uniform = allowed.double() / allowed.sum(-1, keepdim=True)
    rows = heads.row_statistics(causal_uniform[None], PIECES, PIECES, allowed)
    assert torch.isnan(rows["next"]).all()  # the next token is never visible
    assert torch.isnan(rows["broadness"][0, 0])  # one allowed key: nothing to spread over
    assert rows["broadness"][0, 1:].tolist() == pytest.approx([1.0] * 4)
    assert rows["previous"][0].tolist()[1:] == pytest.approx([1 / 2, 1 / 3, 1 / 4, 1 / 5])
    assert math.isnan(rows["previous"][0, 0])


def test_cross_attention_has_no_positional_statistics():
    pattern = torch.full((1, 2, 5), 0.2)
    rows = heads.row_statistics(pattern, ["<s>", "▁Das"], PIECES, positional=False)
    for name in heads.POSITIONAL:
        assert torch.isnan(rows[name]).all()
    assert rows["delimiter"][0].tolist() == pytest.approx([0.4, 0.4])


def test_roles_from_thresholds():
    s = heads.mean_statistics(torch.stack([PREVIOUS, UNIFORM]), PIECES, PIECES)
    values = [{k: float(v[h]) for k, v in s.items()} for h in range(2)]
    assert heads.role(values[0]).label == heads.ROLE_TEXT["previous"]
    assert heads.role(values[0]).reason == "previous = 1.00 ≥ 0.50"
    assert heads.role(values[1]).label == heads.ROLE_TEXT["broadness"]
    # raise the bar for 'previous' above 1 and the same head becomes a word-piece joiner
    assert heads.role(values[0], heads.Thresholds(previous=1.5)).statistic == "same_word"
    assert heads.role({"previous": 0.1}).statistic is None


def test_mean_over_heads_and_rollout_rows_sum_to_one():
    g = torch.Generator().manual_seed(0)
    patterns = torch.randn(3, 4, 6, 6, generator=g).softmax(-1)  # (L, H, T, T)
    mean = rollout.mean_over_heads(patterns)
    torch.testing.assert_close(mean.sum(-1), torch.ones(3, 6))
    rolled = rollout.rollout(patterns)
    assert rolled.shape == (3, 6, 6)
    torch.testing.assert_close(rolled.sum(-1), torch.ones(3, 6, dtype=torch.float64))
    eye = torch.eye(6, dtype=torch.float64)
    step = [0.5 * mean[i].double() + 0.5 * eye for i in range(3)]
    torch.testing.assert_close(rolled[0], step[0])
    torch.testing.assert_close(rolled[2], step[2] @ step[1] @ step[0])
    raw = rollout.rollout(patterns, residual=0.0)
    torch.testing.assert_close(raw[1], mean[1].double() @ mean[0].double())
    with pytest.raises(ValueError):
        rollout.rollout(torch.rand(2, 2, 3, 4))


def test_alignment_and_difference_of_two_sentences():
    a = ["▁it", "▁was", "▁too", "▁t", "ired", ".", "</s>"]
    b = ["▁it", "▁was", "▁too", "▁wide", ".", "</s>"]
    pairs = compare.align_pieces(a, b)
    assert pairs == [(0, 0), (1, 1), (2, 2), (5, 4), (6, 5)]
    assert compare.unmatched(a, [i for i, _ in pairs]) == ["▁t", "ired"]
    pa = torch.arange(49, dtype=torch.float64).reshape(7, 7)
    pb = torch.zeros(6, 6, dtype=torch.float64)
    diff = compare.aligned_difference(pa, pb, pairs)
    assert diff.shape == (5, 5)
    assert diff[3, 4].item() == pa[5, 6].item()  # A's ('.' → '</s>') minus B's
    same = compare.aligned_difference(pa, pa, [(i, i) for i in range(7)])
    torch.testing.assert_close(same, torch.zeros(7, 7, dtype=torch.float64))


def _trace(model, edits=None, src=(5, 9, 7, 11, 3), tgt=(2, 6, 8, 10)):
    src_pieces, tgt_pieces = [f"▁s{i}" for i in src], [f"▁t{i}" for i in tgt]
    return run_trace(model, list(src), list(tgt), src_pieces, tgt_pieces, edits=edits)


def test_statistics_over_sentences_pool_rows(tiny_model):
    first, second = _trace(tiny_model), _trace(tiny_model, src=(4, 4, 12, 3), tgt=(2, 7))
    collected = heads.HeadStatistics.collect(["one", "two"], [heads.sentence_statistics(first),
                                                             heads.sentence_statistics(second)])
    cfg = tiny_model.config
    for attention in heads.ATTENTIONS:
        assert collected.mean(attention, "entropy").shape == (cfg.n_layers, cfg.n_heads)
    # pooled entropy of encoder layer 1, head 0 = mean over the 5 + 4 query rows of both sentences
    rows = [heads.row_statistics(t.attention("encoder", "self", 1), t.src_pieces, t.src_pieces)["entropy"][0]
            for t in (first, second)]
    expected = torch.cat(rows).mean().item()
    assert collected.mean(("encoder", "self"), "entropy")[1, 0].item() == pytest.approx(expected)
    per = collected.per_sentence(("encoder", "self"), "entropy")[:, 1, 0]
    assert per.tolist() == pytest.approx([rows[0].mean().item(), rows[1].mean().item()])
    # the typical sentence is the one whose own mean is closer to the pooled mean
    gaps = (per - expected).abs()
    assert collected.typical_sentence(("encoder", "self"), "entropy", 1, 0) == int(gaps.argmin())
    assert torch.isnan(collected.mean(("decoder", "cross"), "previous")).all()
    roles = collected.roles(("encoder", "self"))
    assert len(roles) == cfg.n_layers and len(roles[0]) == cfg.n_heads


def test_top_k_union_and_sequence_log_prob():
    before = torch.tensor([0.5, 0.3, 0.1, 0.1])
    after = torch.tensor([0.1, 0.2, 0.6, 0.1])
    assert compare.top_k_union(before, after, k=1) == [2, 0]
    probs = torch.tensor([[0.5, 0.5], [0.25, 0.75]])
    assert compare.sequence_log_prob(probs, [0, 1]) == pytest.approx(math.log(0.5) + math.log(0.75))


def test_ablating_no_head_reproduces_the_baseline_exactly(tiny_model):
    base = _trace(tiny_model)
    same = _trace(tiny_model, edits=head_ablation(()))
    assert set(base.tensors) == set(same.tensors)
    for name, tensor in base.tensors.items():
        assert torch.equal(tensor, same.tensors[name]), name


def test_ablating_heads_zeroes_exactly_those_heads(tiny_model):
    chosen = (("encoder", "self", 0, 1), ("decoder", "cross", 1, 0))
    base = _trace(tiny_model)
    cut = _trace(tiny_model, edits=head_ablation(chosen))
    k = tiny_model.config.d_k

    z_base = base.get("encoder.layers.0.self_attn.hook_z")  # (H, S, K)
    z_cut = cut.get("encoder.layers.0.self_attn.hook_z")
    assert torch.equal(z_cut[1], torch.zeros_like(z_cut[1]))
    assert torch.equal(z_cut[0], z_base[0])  # the other head of the layer is untouched
    assert torch.equal(cut.get("encoder.layers.0.self_attn.hook_pattern"),
                       base.get("encoder.layers.0.self_attn.hook_pattern"))  # weights are not changed
    # W^O no longer receives head 1: the output loses exactly that head's share
    w_o = tiny_model.encoder.layers[0].self_attn.w_o.weight  # (D, D)
    share = z_base[1] @ w_o[:, k:2 * k].T  # (S, D)
    torch.testing.assert_close(cut.get("encoder.layers.0.self_attn.hook_out"),
                               base.get("encoder.layers.0.self_attn.hook_out") - share)
    assert not torch.equal(cut.get("encoder.layers.0.self_attn.hook_out"),
                           base.get("encoder.layers.0.self_attn.hook_out"))

    z = cut.get("decoder.layers.1.cross_attn.hook_z")
    assert torch.equal(z[0], torch.zeros_like(z[0]))
    assert torch.equal(cut.get("decoder.layers.1.cross_attn.hook_concat")[:, :k], torch.zeros_like(z[0]))
    assert z[1].abs().sum() > 0
    # nothing else was switched off: every other head's output is non-zero
    for stack, kind in heads.ATTENTIONS:
        for layer in range(tiny_model.config.n_layers):
            zs = cut.get(f"{stack}.layers.{layer}.{kind}_attn.hook_z")  # (H, T, K)
            for head in range(zs.size(0)):
                if (stack, kind, layer, head) not in chosen:
                    assert zs[head].abs().sum() > 0
    assert not torch.equal(cut.get("generator.hook_logits"), base.get("generator.hook_logits"))


def test_broadness_grid_and_most_focused_head(tiny_model):
    """A head made to look at one key is found as the most focused, and uniform heads are named."""
    from analysis.heads import broadness_grid, most_focused, uniform_heads
    from transformer.trace import run_trace

    src, tgt = [5, 6, 7, 8, 3], [2, 9, 10]
    name = "decoder.layers.1.cross_attn.hook_pattern"

    def focus_head_1(pattern):  # head 1 of layer 2 puts all its weight on key 2; head 0 uniform
        out = torch.zeros_like(pattern)
        out[:, 0] = 1.0 / pattern.size(-1)
        out[:, 1, :, 2] = 1.0
        return out

    trace = run_trace(tiny_model, src, tgt, list("abcde"), list("xyz"), edits={name: focus_head_1})
    grid = broadness_grid(trace, "decoder", "cross")  # (L, H)
    assert grid.shape == (2, 2)
    assert abs(float(grid[1, 0]) - 1.0) < 1e-6 and float(grid[1, 1]) < 1e-6
    assert most_focused(trace, "decoder", "cross") == (1, 1)
    assert uniform_heads(grid[1]) == [0]
