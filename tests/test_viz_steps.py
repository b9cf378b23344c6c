"""The figures of the input and step-by-step pages (viz/embeddings, viz/positional, viz/steps) show
exactly the data given."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from transformer.embeddings import sinusoidal_encoding
from viz import embeddings as viz_embed
from viz import positional as viz_pos
from viz import steps as viz_steps
from viz.heatmap import QUERY_KEY_NOTE


def one_head(t_q: int = 3, t_k: int = 4, d_k: int = 2, causal: bool = False, seed: int = 0) -> dict:
    """A hand-made head: every step computed here from random Q, K, V (not by the model)."""
    g = torch.Generator().manual_seed(seed)
    q, k, v = (torch.randn(t, d_k, generator=g) for t in (t_q, t_k, t_k))
    qk = q @ k.T
    scores = qk / d_k**0.5
    allowed = torch.ones(t_q, t_k, dtype=torch.bool)
    if causal:
        allowed = allowed.tril()
    masked = scores.masked_fill(~allowed, float("-inf"))
    pattern = masked.softmax(-1)
    return dict(q=q, k=k, v=v, qk=qk, scores=scores, allowed=allowed, masked=masked, pattern=pattern,
                z=pattern @ v)


def labels(n: int, prefix: str = "t") -> list[str]:
    return [f"{i}:{prefix}{i}" for i in range(n)]


def z_of(fig) -> np.ndarray:
    return np.asarray(fig.data[0].z, dtype=float)


def test_step_figures_hold_each_step_in_order():
    head = one_head(causal=True, t_q=4)
    figs = viz_steps.step_figures(**head, query_labels=labels(4, "q"), key_labels=labels(4, "k"))
    assert list(figs) == ["q", "k", "v", "qk", "scores", "mask", "masked", "pattern", "z"]
    for name in ("q", "k", "v", "qk", "scores", "pattern", "z"):
        np.testing.assert_allclose(z_of(figs[name]), head[name].numpy(), rtol=0, atol=1e-6, err_msg=name)
    # Blocked cells are gaps (NaN) in the masked scores and in the mask, with their own hover text.
    blocked = ~head["allowed"].numpy()
    assert blocked.any()
    for name in ("masked", "mask"):
        z = z_of(figs[name])
        assert np.isnan(z[blocked]).all() and not np.isnan(z[~blocked]).any()
        assert (np.asarray(figs[name].data[0].text)[blocked] == "−∞ (blocked)").all()
    np.testing.assert_allclose(z_of(figs["masked"])[~blocked], head["masked"].numpy()[~blocked], atol=1e-6)
    assert (z_of(figs["mask"])[~blocked] == 0).all()


def test_step_figures_label_axes_and_say_rows_are_queries():
    head = one_head()
    q_labels, k_labels = labels(3, "q"), labels(4, "k")
    figs = viz_steps.step_figures(**head, query_labels=q_labels, key_labels=k_labels, context="L5 H1")
    for name in ("qk", "scores", "mask", "masked", "pattern"):
        fig = figs[name]
        assert list(fig.data[0].y) == q_labels and list(fig.data[0].x) == k_labels
        assert QUERY_KEY_NOTE in fig.layout.title.text
        # The mask is the same in every layer and head: its title says so instead of naming them, so
        # that moving to another head leaves that figure unchanged (and not drawn again).
        assert ("L5 H1" in fig.layout.title.text) != (name == "mask")
        assert fig.layout.yaxis.autorange == "reversed"
        assert fig.layout.yaxis.scaleanchor == "x"  # square cells
    assert list(figs["k"].data[0].y) == k_labels and list(figs["z"].data[0].y) == q_labels
    assert len(figs["q"].data[0].x) == 2  # one column per dimension of d_k


def test_highlight_frames_the_chosen_query_row_only_where_rows_are_queries():
    head = one_head()
    figs = viz_steps.step_figures(**head, query_labels=labels(3), key_labels=labels(4), highlight=1)
    for name in ("q", "qk", "scores", "mask", "masked", "pattern", "z"):
        (shape,) = figs[name].layout.shapes
        assert (shape.y0, shape.y1) == (0.5, 1.5)
    assert not figs["k"].layout.shapes and not figs["v"].layout.shapes
    plain = viz_steps.step_figures(**head, query_labels=labels(3), key_labels=labels(4))
    assert not plain["pattern"].layout.shapes


@pytest.mark.parametrize(
    "change",
    [
        dict(query_labels=labels(2)),  # too few query labels
        dict(key_labels=labels(5)),  # too many key labels
        dict(z=torch.zeros(3, 5)),  # output width differs from V
        dict(allowed=torch.ones(4, 3, dtype=torch.bool)),  # mask transposed
    ],
)
def test_step_figures_reject_mismatched_shapes_and_labels(change):
    args = dict(one_head(), query_labels=labels(3), key_labels=labels(4))
    args.update(change)
    with pytest.raises(ValueError):
        viz_steps.step_figures(**args)


def test_query_journey_shows_one_row_and_greys_out_blocked_keys():
    head = one_head(t_q=4, t_k=4, causal=True)
    row = 1
    fig = viz_steps.query_journey(head["scores"][row], head["masked"][row], head["pattern"][row],
                                  labels(4), "1:q1")
    np.testing.assert_allclose(fig.data[0].y, head["scores"][row].numpy(), atol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, head["pattern"][row].numpy(), atol=1e-6)
    assert list(fig.data[0].text) == ["", "", "−∞ (blocked)", "−∞ (blocked)"]
    with pytest.raises(ValueError):
        viz_steps.query_journey(head["scores"][row], head["masked"][row], head["pattern"][row],
                                labels(3), "x")


def test_embedding_figures_hold_their_data():
    g = torch.Generator().manual_seed(3)
    rows = torch.randn(5, 8, generator=g)
    toks = labels(5)
    fig = viz_embed.embedding_heatmap(rows, toks, "rows")
    np.testing.assert_allclose(z_of(fig), rows.numpy(), atol=1e-6)
    assert list(fig.data[0].y) == toks and len(fig.data[0].x) == 8
    sim = torch.rand(5, 5, generator=g)
    fig = viz_embed.similarity_heatmap(sim, toks, "cos")
    np.testing.assert_allclose(z_of(fig), sim.numpy(), atol=1e-6)
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)
    norms = [torch.rand(5, generator=g) for _ in range(3)]
    fig = viz_embed.scale_bars(*norms, toks, 2.0)
    for bar, values in zip(fig.data, norms):
        np.testing.assert_allclose(bar.y, values.numpy(), atol=1e-6)
    with pytest.raises(ValueError):
        viz_embed.embedding_heatmap(rows, labels(4), "rows")
    with pytest.raises(ValueError):
        viz_embed.similarity_heatmap(sim, labels(6), "cos")
    with pytest.raises(ValueError):
        viz_embed.scale_bars(*norms, labels(4), 2.0)


def test_positional_figures_hold_their_data():
    pe = sinusoidal_encoding(12, 8)
    fig = viz_pos.pe_heatmap(pe)
    np.testing.assert_allclose(z_of(fig), pe.numpy(), atol=1e-6)
    assert fig.data[0].y[0] == "pos 0" and fig.layout.yaxis.autorange == "reversed"
    fig = viz_pos.pe_curves(pe, [0, 3])
    np.testing.assert_allclose(fig.data[0].y, pe[:, 0].numpy(), atol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, pe[:, 3].numpy(), atol=1e-6)
    assert "sin" in fig.data[0].name and "cos" in fig.data[1].name
    with pytest.raises(ValueError):
        viz_pos.pe_curves(pe, [8])
    matrix = torch.randn(8, 8)
    np.testing.assert_allclose(z_of(viz_pos.shift_matrix_heatmap(matrix, 2)), matrix.numpy(), atol=1e-6)
    np.testing.assert_allclose(z_of(viz_pos.shift_matrix_heatmap(matrix, 2, size=4)), matrix[:4, :4].numpy(),
                               atol=1e-6)
    fig = viz_pos.shift_scatter(pe[:10], pe[2:], 2)
    np.testing.assert_allclose(fig.data[0].x, pe[:10].numpy().ravel(), atol=1e-6)
    with pytest.raises(ValueError):
        viz_pos.shift_scatter(pe[:10], pe[:9], 2)


def test_shuffle_pair_labels_each_order_as_given():
    a, b = torch.rand(3, 3), torch.rand(3, 3)
    mine, shuffled = labels(3), ["2:t2", "0:t0", "1:t1"]
    left, right = viz_pos.shuffle_pair(a, b, mine, shuffled, "no PE")
    np.testing.assert_allclose(z_of(left), a.numpy(), atol=1e-6)
    np.testing.assert_allclose(z_of(right), b.numpy(), atol=1e-6)
    assert list(right.data[0].y) == shuffled and list(right.data[0].x) == shuffled
    assert QUERY_KEY_NOTE in left.layout.title.text
    with pytest.raises(ValueError):
        viz_pos.shuffle_pair(a, b, labels(2), shuffled, "no PE")


def test_qkv_figure_puts_the_three_heatmaps_side_by_side_unchanged():
    for t_q, t_k in ((3, 3), (3, 4)):  # self-attention (same rows), cross-attention (other rows)
        head = one_head(t_q=t_q, t_k=t_k)
        q_labels, k_labels = labels(t_q, "q"), labels(t_k, "q" if t_q == t_k else "k")
        figs = viz_steps.step_figures(**head, query_labels=q_labels, key_labels=k_labels, context="L5 H1")
        fig = viz_steps.qkv_figure(figs["q"], figs["k"], figs["v"], "Q, K and V · L5 H1")
        assert len(fig.data) == 3 and fig.layout.title.text == "Q, K and V · L5 H1"
        for trace, name, axis in zip(fig.data, ("q", "k", "v"), ("", "2", "3"), strict=True):
            np.testing.assert_array_equal(np.asarray(trace.z), np.asarray(figs[name].data[0].z))
            assert (trace.xaxis, trace.yaxis) == (f"x{axis}", f"y{axis}")
            assert fig.layout[f"yaxis{axis}"].scaleanchor == f"x{axis}"  # square cells in each panel
        domains = [fig.layout[f"xaxis{a}"].domain for a in ("", "2", "3")]
        assert len({round(d[1] - d[0], 9) for d in domains}) == 1  # equal widths: equal cells
        assert all(a[1] <= b[0] for a, b in zip(domains, domains[1:]))  # side by side, no overlap
        titles = [figs[n].layout.title.text for n in ("q", "k", "v")]
        assert [a.text for a in fig.layout.annotations] == titles
        # K's rows are labelled only when they are other tokens than Q's; V shares K's rows.
        assert (fig.layout.yaxis2.showticklabels is False) == (t_q == t_k)
        assert fig.layout.yaxis3.showticklabels is False
