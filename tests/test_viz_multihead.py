"""Figures of the multi-head, layer, decoder and paper pages: viz/multihead.py, viz/layers.py,
viz/decoding.py, viz/paper.py.

Each figure must carry exactly the numbers it was given, label its axes consistently, and refuse
shapes or labels that do not fit.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.decoding import HeadScore
from viz import concat as concat_viz
from viz import decoding as dec_viz
from viz import grids, multihead, paper
from viz import layers as layer_viz
from viz.heatmap import QUERY_KEY_NOTE, relative_to_uniform
from viz.labels import readable, token_labels

COLORS = ["#111111", "#222222", "#333333"]


def softmax_rows(*shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).softmax(-1)


def labels(n: int, prefix: str = "t") -> list[str]:
    return [f"{i}:{prefix}{i}" for i in range(n)]


def heads(n: int) -> list[str]:
    return [f"head {h + 1}" for h in range(n)]


# ---- viz/multihead.py ----------------------------------------------------------------------------


def test_heads_grid_is_one_heatmap_with_each_heads_weights_in_its_panel():
    w = softmax_rows(5, 4, 6)  # (H, T_q, T_k): five heads, four to a row
    fig = grids.heads_grid(w, labels(4, "q"), labels(6, "k"), heads(5), "layer 5")
    assert len(fig.data) == 1 and fig.data[0].type == "heatmap"
    panels = grids.panels_meta(fig)
    assert panels["grid"] == [2, 4] and panels["size"] == [4, 6] and panels["heads"] == heads(5)
    step_q, step_k = panels["step"]
    assert step_q > 4 and step_k > 6  # a gap of empty cells between two panels
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (step_q + 4, 3 * step_k + 6)
    for h in range(5):  # head h in panel row h // 4, column h % 4
        top, left = h // 4 * step_q, h % 4 * step_k
        np.testing.assert_allclose(z[top : top + 4, left : left + 6], w[h].numpy(), rtol=1e-6)
    assert np.isfinite(z).sum() == w.numel()  # the gaps and the three empty panels hold nothing
    np.testing.assert_allclose(grids.split(z, panels), w.numpy(), rtol=1e-6)
    assert [note.text for note in fig.layout.annotations] == heads(5)
    # row 0 at the top, square cells, the axes spanning exactly the matrix (a colour bar pushing the
    # margin shrinks the matrix; it cannot add rows above it)
    x_axis, y_axis = fig.layout.xaxis, fig.layout.yaxis
    assert tuple(y_axis.range) == (z.shape[0] - 0.5, -0.5) and tuple(x_axis.range) == (-0.5, z.shape[1] - 0.5)
    assert y_axis.scaleanchor == "x" and y_axis.constrain == x_axis.constrain == "domain"
    assert QUERY_KEY_NOTE in fig.layout.title.text
    assert fig.layout.coloraxis.cmin == 0 and fig.layout.coloraxis.cmax == 1


def test_heads_grid_hover_names_the_head_query_and_key_of_each_cell_and_gaps_have_none():
    w = softmax_rows(3, 4, 5).numpy()  # (H, T_q, T_k)
    q_labels = token_labels(["▁Die", "▁Katze", "▁die", "</s>"])
    k_labels = token_labels(["▁The", "▁cat", "▁the", "▁mat", "</s>"])
    fig = grids.heads_grid(w, q_labels, k_labels, heads(3), "layer 5", max_cols=2)  # 2 rows × 2 columns
    trace, (step_q, step_k) = fig.data[0], grids.panels_meta(fig)["step"]
    z, text = np.asarray(trace.z, dtype=float), np.asarray(trace.text, dtype=object)
    for h in range(3):
        for i in range(4):
            for j in range(5):
                row, col = h // 2 * step_q + i, h % 2 * step_k + j
                assert text[row, col] == h + 1  # the head's number, one byte a cell
                # the category reads as the token's hover form, after invisible marks of its panel
                assert trace.y[row] == grids.PANEL_MARK * (h // 2) + q_labels[i].hover
                assert trace.x[col] == grids.PANEL_MARK * (h % 2) + k_labels[j].hover
                assert z[row, col] == pytest.approx(w[h, i, j], rel=1e-6)
    assert trace.hovertemplate.startswith("head %{text}<br>query %{y}<br>key %{x}<br>weight = %{z:.4f}")
    assert np.asarray(trace.text).dtype == np.uint8  # sent as a typed array, not 30,000 strings
    gaps = ~np.isfinite(z)
    assert trace.hoverongaps is False and gaps[4:step_q].all() and (text[gaps] == 0).all()
    # contrast: drawn relative to each head's own uniform share 1/T_k, hover gives the weight itself
    relative = relative_to_uniform(fig, "RdBu_r")
    kept = np.asarray(relative.data[0].customdata, dtype=float)
    np.testing.assert_allclose(kept, z, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(relative.data[0].z, dtype=float), z * 5, rtol=1e-5)
    assert "%{customdata:.4f}" in relative.data[0].hovertemplate
    # names that are not a prefix and a number go as they are
    named = grids.heads_grid(w, q_labels, k_labels, ["previous", "next", "self"], "layer 5", max_cols=2)
    text = np.asarray(named.data[0].text, dtype=object)
    assert text[0, 0] == "previous" and text[step_q, 0] == "self" and text[gaps].tolist() == [""] * gaps.sum()
    assert named.data[0].hovertemplate.startswith("%{text}<br>")


def test_heads_grid_gives_a_long_sentence_two_panels_to_a_row():
    w = np.full((8, 31, 31), 1 / 31)
    fig = grids.heads_grid(w, labels(31), labels(31), heads(8), "t")
    assert grids.panels_meta(fig)["grid"] == [4, 2] and fig.layout.xaxis.tickangle == -90
    assert len(fig.layout.xaxis.tickvals) == 2 * 31 and len(fig.layout.yaxis.tickvals) == 4 * 31
    assert list(fig.layout.yaxis.ticktext) == labels(31) * 4  # every token of every panel row labelled


def test_heads_grid_rejects_labels_that_do_not_fit():
    w = softmax_rows(2, 4, 4)
    with pytest.raises(ValueError):
        grids.heads_grid(w, labels(3), labels(4), heads(2), "t")
    with pytest.raises(ValueError):
        grids.heads_grid(w, labels(4), labels(4), heads(3), "t")


def test_model_view_places_layer_l_head_h_at_trace_l_times_h_plus_h():
    w = softmax_rows(2, 3, 4, 4)  # (L, H, T, T)
    fig = grids.model_view(list(w), ["layer 1", "layer 2"], heads(3), "model view")
    assert len(fig.data) == 6
    for layer in range(2):
        for h in range(3):
            trace = fig.data[layer * 3 + h]
            # thumbnails carry whole percentages in one byte each (payload), rounded to nearest
            z = np.asarray(trace.z)
            assert z.dtype == np.uint8
            np.testing.assert_array_equal(z, np.rint(w[layer, h].numpy() * 100))
            assert np.abs(z / 100 - w[layer, h].numpy()).max() <= 0.005
            assert trace.name == f"layer {layer + 1}, head {h + 1}"
            assert "%{z}%" in trace.hovertemplate
    assert all(fig.layout[f"yaxis{'' if i == 0 else i + 1}"].autorange == "reversed" for i in range(6))
    assert fig.layout.coloraxis.cmax == 100


def test_head_view_lines_are_exactly_the_weights_above_the_threshold():
    w = softmax_rows(3, 5, 5)
    for q in range(5):
        fig = multihead.head_view(w, labels(5), labels(5), heads(3), COLORS, "t", query=q, min_weight=0.1)
        columns = set()
        for h in range(3):
            (marker,) = [t for t in fig.data if t.name == f"head {h + 1}"]
            got = {(int(q_), int(k)): w_ for q_, k, w_ in np.asarray(marker.customdata)}
            expected = {(q, k): float(w[h, q, k]) for k in range(5) if w[h, q, k] >= 0.1}
            assert got.keys() == expected.keys()
            for key, value in expected.items():
                assert got[key] == pytest.approx(value, rel=1e-6)
            np.testing.assert_array_equal(np.asarray(marker.y), [k for _, k in got])  # at the key's row
            assert marker.marker.color == COLORS[h]
            columns |= set(np.asarray(marker.x).tolist())
        assert len(columns) == 3  # one column of points per head: none hidden under another head's


def test_head_view_of_all_queries_has_a_legend_entry_per_head_and_no_hover_points():
    w = softmax_rows(3, 5, 5)
    fig = multihead.head_view(w, labels(5), labels(5), heads(3), COLORS, "t", min_weight=0.0)
    named = [t for t in fig.data if t.name and t.name.startswith("head ")]
    assert [t.name for t in named] == ["head 1", "head 2", "head 3"]
    assert all(len(t.x) == 0 and t.marker.color == COLORS[i] for i, t in enumerate(named))
    lines = [t for t in fig.data if t.mode == "lines"]
    assert sum(np.isnan(np.asarray(t.y)).sum() for t in lines) == 3 * 5 * 5  # still every line
    for t in lines:  # each line: query end at x=0, key end at x=1, then a gap (NaN y) at x=0
        x, y = np.asarray(t.x), np.asarray(t.y).reshape(-1, 3)
        assert x.dtype == np.uint8  # one byte per point on the wire
        np.testing.assert_array_equal(x.reshape(-1, 3), np.tile([0, 1, 0], (len(y), 1)))
        assert np.isnan(y[:, 2]).all() and not np.isnan(y[:, :2]).any()


def test_head_view_isolates_one_query_and_chosen_heads():
    w = softmax_rows(3, 5, 5)
    fig = multihead.head_view(
        w, labels(5), labels(5), heads(3), COLORS, "t", query=2, heads=[0, 2], min_weight=0.0
    )
    markers = [t for t in fig.data if t.mode == "markers"]
    assert [t.name for t in markers] == ["head 1", "head 3"]
    for t in markers:
        data = np.asarray(t.customdata)
        assert set(data[:, 0].astype(int)) == {2}  # only lines leaving query 2
        assert len(data) == 5
    lines = [t for t in fig.data if t.mode == "lines"]
    assert lines, "lines must be drawn"
    strong = max(lines, key=lambda t: t.line.width)
    weak = min(lines, key=lambda t: t.line.width)
    assert strong.opacity >= weak.opacity


def test_head_view_rejects_a_query_out_of_range():
    with pytest.raises(ValueError):
        multihead.head_view(softmax_rows(2, 3, 3), labels(3), labels(3), heads(2), COLORS, "t", query=3)


def test_head_view_escapes_token_text():
    w = softmax_rows(1, 2, 2)
    fig = multihead.head_view(w, ["0:<b>x</b>", "1:y"], ["0:a", "1:</s>"], heads(1), COLORS, "t")
    texts = [text for t in fig.data if t.mode == "text" for text in t.text]
    assert "0:&lt;b&gt;x&lt;/b&gt;" in texts and "1:&lt;/s&gt;" in texts
    assert multihead.escape_text("a &lt; b & c") == "a &lt; b &amp; c"  # never escaped twice


def test_concat_figure_shows_concat_w_o_and_output():
    g = torch.Generator().manual_seed(3)
    z = torch.randn(2, 3, 4, generator=g)  # (H, T, d_v)
    concat = torch.cat(list(z), dim=-1)  # (T, H·d_v)
    w_o = torch.randn(6, 8, generator=g)  # Linear weight: (d_model, H·d_v)
    out = concat @ w_o.T  # (T, d_model)
    fig = concat_viz.concat_figure(z, concat, w_o, out, labels(3), heads(2), "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), concat.numpy(), rtol=1e-6)
    # W^O (H·d_v, d_model) in units of 10⁻⁵, whole numbers in two bytes each; hover says the unit
    w_o = w_o / 10  # a trained W^O's size (|w| < 0.33 fits int16 at that unit)
    fig = concat_viz.concat_figure(z, concat, w_o, concat @ w_o.T, labels(3), heads(2), "t")
    assert np.asarray(fig.data[1].z).dtype == np.int16 and "× 10⁻⁵" in fig.data[1].hovertemplate
    np.testing.assert_allclose(np.asarray(fig.data[1].z) / 1e5, w_o.T.numpy(), atol=0.5e-5)
    np.testing.assert_allclose(np.asarray(fig.data[2].z), (concat @ w_o.T).numpy(), rtol=1e-6)
    # each concat column names its head in the hover (x label), with no per-cell customdata
    assert list(fig.data[0].x) == [f"{j} (head {j // 4 + 1})" for j in range(8)]
    assert fig.data[0].customdata is None and "dim %{x}" in fig.data[0].hovertemplate
    assert list(fig.layout.xaxis.ticktext) == ["0", "4"]  # where each head's block starts
    titles = " ".join(a.text for a in fig.layout.annotations)
    assert "3 × 2·4 = 3 × 8" in titles and "W^O<br>8 × 6" in titles and "output<br>3 × 6" in titles
    # the panel titles lean towards W^O (centred, they touched in a 560-px column): the concat's ends at
    # its panel's right edge, W^O's is centred on its panel, the output's starts at its panel's left edge
    panel_titles = [a for a in fig.layout.annotations if a.yref == "paper" and a.y == 1.0]
    assert [a.text.split("<br>")[0] for a in panel_titles] == ["Concat(head₁…head₂)", "W^O", "output"]
    domains = [fig.layout.xaxis.domain, fig.layout.xaxis2.domain, fig.layout.xaxis3.domain]
    edges = [(domains[0][1], "right"), (sum(domains[1]) / 2, "center"), (domains[2][0], "left")]
    for a, (x, side) in zip(panel_titles, edges):
        assert (a.x, a.xanchor, a.align) == (pytest.approx(x), side, side), a.text
    with pytest.raises(ValueError):
        concat_viz.concat_figure(z, concat.flip(-1), w_o, out, labels(3), heads(2), "t")
    with pytest.raises(ValueError):
        concat_viz.concat_figure(z, concat, w_o[:, :5], out, labels(3), heads(2), "t")


def test_concat_and_output_share_one_symmetric_scale_and_one_colourbar():
    """Concat and output are token vectors: one colour means one value in both panels. W^O (weights,
    on a much smaller scale) has a colour axis and colourbar of its own."""
    g = torch.Generator().manual_seed(4)
    z = torch.randn(2, 3, 4, generator=g)
    concat = torch.cat(list(z), dim=-1)
    w_o = torch.randn(6, 8, generator=g) / 10
    out = 3 * concat @ w_o.T  # larger than concat: the shared bound comes from the output
    fig = concat_viz.concat_figure(z, concat, w_o, out, labels(3), heads(2), "t")
    concat_trace, w_trace, out_trace = fig.data
    assert concat_trace.coloraxis == out_trace.coloraxis == "coloraxis"
    assert w_trace.coloraxis == "coloraxis2"
    shared = fig.layout.coloraxis
    bound = float(max(concat.abs().max(), out.abs().max()))
    assert shared.cmid == 0.0 and shared.cmin == pytest.approx(-bound) and shared.cmax == pytest.approx(bound)
    weights = fig.layout.coloraxis2
    w_bound = float(w_o.abs().max()) * 1e5  # W^O's colours in its units of 10⁻⁵
    assert weights.cmid == 0.0 and weights.cmax == pytest.approx(w_bound, abs=0.5) == -weights.cmin
    # weights too large for int16 at that unit stay float32, still in units of 10⁻⁵
    big = concat_viz.concat_figure(z, concat, w_o * 100, 300 * concat @ w_o.T, labels(3), heads(2), "t")
    assert np.asarray(big.data[1].z).dtype == np.float32
    np.testing.assert_allclose(np.asarray(big.data[1].z) / 1e5, 100 * w_o.T.numpy(), atol=0.5e-5)
    # one colourbar per colour axis, none per trace: the two vector panels show one colourbar together
    assert all(t.showscale is None and t.zmin is None and t.colorscale is None for t in fig.data)
    assert shared.showscale is not False and weights.showscale is not False
    assert {a.colorbar.title.text for a in (shared, weights)} == {"Concat,<br>output", "W^O"}
    # W^O's bar is labelled in the weights' own numbers: each label is its tick value ÷ 10⁵
    bar = weights.colorbar
    shown = [float(t.replace("−", "-")) for t in bar.ticktext]
    assert shown == pytest.approx([v / 1e5 for v in bar.tickvals])
    assert bar.tickvals[0] == -bar.tickvals[-1] and 0 < bar.tickvals[-1] <= w_bound


# ---- viz/layers.py -------------------------------------------------------------------------------


def test_ffn_zero_fraction_and_figure():
    hidden = torch.tensor([[0.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.5]])
    np.testing.assert_allclose(layer_viz.ffn_zero_fraction(hidden), [0.5, 0.75])
    fig = layer_viz.ffn_hidden_figure(hidden, labels(2), "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), hidden.numpy())
    np.testing.assert_allclose(np.asarray(fig.data[1].x), [0.5, 0.75])
    with pytest.raises(ValueError):
        layer_viz.ffn_hidden_figure(-hidden - 1, labels(2), "t")  # not a ReLU output


def test_activation_heatmap_keeps_values_and_centres_the_scale():
    values = torch.tensor([[1.0, -3.0], [0.5, 2.0]])
    fig = layer_viz.activation_heatmap(values, labels(2), "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), values.numpy())
    assert fig.data[0].zmin == -3.0 and fig.data[0].zmax == 3.0
    assert fig.layout.yaxis.autorange == "reversed"


def test_stage_norms_are_vector_lengths():
    a = torch.tensor([[3.0, 4.0], [0.0, 1.0]])
    fig = layer_viz.stage_norms([("in", a), ("out", 2 * a)], labels(2), "t")
    np.testing.assert_allclose(fig.data[0].y, [5.0, 10.0])
    np.testing.assert_allclose(fig.data[1].y, [1.0, 2.0])


def test_layer_changes_cosine_and_norms():
    reps = torch.tensor(
        [[[1.0, 0.0], [0.0, 2.0]], [[1.0, 1.0], [0.0, -2.0]], [[0.0, 3.0], [0.0, -1.0]]]
    )  # (L+1 = 3, T = 2, D = 2)
    cos = layer_viz.consecutive_cosine(reps)  # (L, T)
    np.testing.assert_allclose(cos, [[1 / np.sqrt(2), -1.0], [1 / np.sqrt(2), 1.0]], atol=1e-6)
    fig = layer_viz.layer_changes(reps, labels(2), ["input", "layer 1", "layer 2"], "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), cos.T, atol=1e-6)
    np.testing.assert_allclose(fig.data[1].y, [1.0, np.sqrt(2), 3.0], atol=1e-6)
    assert (fig.data[0].zmin, fig.data[0].zmax) == (-1.0, 1.0)  # the colours span what was measured
    close = layer_viz.layer_changes(torch.stack([reps[0], reps[0] * 2, reps[0] + 0.2]), labels(2),
                                    ["input", "layer 1", "layer 2"], "t")  # cosines 0.98 to 1
    assert close.data[0].zmin == 0.9 and np.nanmin(np.asarray(close.data[0].z)) >= 0.9
    with pytest.raises(ValueError):
        layer_viz.layer_changes(reps, labels(3), ["input", "layer 1", "layer 2"], "t")


def test_eleven_tokens_lines_do_not_look_alike():
    """Ten colours, then the same colours dashed: the 1st and the 11th token were both plain blue."""
    a = torch.rand(11, 4)
    for fig in (layer_viz.stage_norms([("in", a), ("out", a)], labels(11), "t"),
                layer_viz.layer_changes(torch.stack([a, a]), labels(11), ["input", "layer 1"], "t")):
        lines = [(t.line.color, t.line.dash) for t in fig.data if t.type == "scatter"]
        assert len(lines) == 11 == len(set(lines))


# ---- viz/decoding.py -----------------------------------------------------------------------------


def test_masked_attention_heatmap_marks_blocked_cells():
    allowed = torch.tril(torch.ones(3, 3, dtype=torch.bool))
    w = softmax_rows(3, 3).masked_fill(~allowed, 0.0)
    w = w / w.sum(-1, keepdim=True)
    fig = dec_viz.masked_attention_heatmap(w, allowed, labels(3), labels(3), "t")
    z = np.asarray(fig.data[0].z, dtype=float)
    assert np.isnan(z[0, 1]) and np.isnan(z[0, 2]) and np.isnan(z[1, 2])
    np.testing.assert_allclose(z[allowed.numpy()], w[allowed].numpy(), rtol=1e-6)
    assert fig.data[0].text[0][2] == dec_viz.BLOCKED_TEXT
    with pytest.raises(ValueError):
        dec_viz.masked_attention_heatmap(w, allowed[:2], labels(3), labels(3), "t")


def test_alignment_heatmap_averages_heads_or_picks_one():
    w = softmax_rows(4, 3, 5)  # (H, T, S)
    avg = dec_viz.alignment_heatmap(w, labels(3), labels(5), "t")
    np.testing.assert_allclose(np.asarray(avg.data[0].z), w.mean(0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(avg.data[0].z).sum(-1), 1.0, rtol=1e-6)
    one = dec_viz.alignment_heatmap(w, labels(3), labels(5), "t", head=2)
    np.testing.assert_allclose(np.asarray(one.data[0].z), w[2].numpy(), rtol=1e-6)
    with pytest.raises(ValueError):
        dec_viz.alignment_heatmap(w, labels(3), labels(5), "t", head=4)


def test_step_rows_and_layer_rows():
    rows = softmax_rows(2, 3, 4)  # (L, H, T_k)
    fig = dec_viz.step_rows_heatmap(rows[1], labels(4), heads(3), "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), rows[1].numpy(), rtol=1e-6)
    assert list(fig.data[0].y) == heads(3)
    fig = dec_viz.layer_rows_heatmap(list(rows), labels(4), ["layer 1", "layer 2"], "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), rows.mean(1).numpy(), rtol=1e-6)


def test_topk_bar_and_beam_rows():
    fig = dec_viz.topk_bar(["▁die", "▁der", "</s>"], [0.5, 0.3, 0.1], "t")
    assert list(fig.data[0].x) == [0.5, 0.3, 0.1]
    assert list(fig.data[0].y) == ["1. die", "2. der", f"3. {readable('</s>')}"]
    assert list(fig.data[0].customdata) == ["▁die", "▁der", readable("</s>")]  # pieces on hover
    shown = dec_viz.topk_bar(["▁die", "▁der", "</s>"], [0.5, 0.3, 0.1], "t", show_pieces=True)
    assert list(shown.data[0].y) == ["1. ▁die", "2. ▁der", f"3. {readable('</s>')}"]
    with pytest.raises(ValueError):
        dec_viz.topk_bar(["a"], [0.5, 0.5], "t")
    beam = [
        {"text": "Hallo", "ids": [7, 8], "log_prob": -1.0, "score": -0.9, "finished": True},
        {"text": "Hi", "ids": [9], "log_prob": -2.0, "score": -1.9, "finished": False},
    ]
    rows = dec_viz.beam_rows(beam)
    assert [r["rank"] for r in rows] == [1, 2]
    assert [r[dec_viz.LENGTH] for r in rows] == [3, 1]  # "</s>" counted where it ended the candidate
    assert rows[0]["translation"] == "Hallo" and rows[1]["ended with </s>"] is False
    fig = dec_viz.beam_figure(beam, "t")
    assert list(fig.data[1].y) == [-0.9, -1.9]


# ---- viz/paper.py --------------------------------------------------------------------------------


def test_query_rows_heatmap_is_one_row_per_head():
    w = softmax_rows(3, 4, 4)
    fig = paper.query_rows_heatmap(w, labels(4), 2, heads(3), "t")
    np.testing.assert_allclose(np.asarray(fig.data[0].z), w[:, 2, :].numpy(), rtol=1e-6)
    with pytest.raises(ValueError):
        paper.query_rows_heatmap(w, labels(4), 4, heads(3), "t")


def test_figure3_draws_only_the_query_token():
    w = softmax_rows(3, 4, 4)
    fig = paper.figure3(w, labels(4), 1, heads(3), COLORS, "t")
    for t in fig.data:
        if t.mode == "markers":
            assert set(np.asarray(t.customdata)[:, 0].astype(int)) == {1}
    with pytest.raises(ValueError):
        paper.figure_full(w, labels(4), [], heads(3), COLORS, "t")


def test_ranking_rows_use_the_displayed_numbering():
    scores = [HeadScore(4, 0, 0.9), HeadScore(0, 7, 0.5), HeadScore(1, 1, 0.1)]
    one_based = paper.ranking_rows(scores, lambda i: i + 1, lambda h: h + 1, limit=2)
    assert one_based == [
        {"rank": 1, "layer": 5, "head": 1, "weight": 0.9},
        {"rank": 2, "layer": 1, "head": 8, "weight": 0.5},
    ]
    zero_based = paper.ranking_rows(scores, lambda i: i, lambda h: h)
    assert [(r["layer"], r["head"]) for r in zero_based] == [(4, 0), (0, 7), (1, 1)]
