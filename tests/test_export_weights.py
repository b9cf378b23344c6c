"""Attention figures export their weights, not their drawing.

- A head view draws the lines of different heads between the same two tokens side by side (a fan of
  small vertical offsets), and its hover still names head, query, key and weight.
- Figures of attention weights (heads grid, model view, softmax heatmaps, head view) export a tidy CSV:
  one row per weight, columns layer, head, query, key, weight, numbered as the figure shows them.
- Other figures export as before.
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import numpy as np
import plotly.graph_objects as go
import pytest
import torch

from ui.export import WEIGHTS_HEADER, figure_csv, is_attention
from ui.frozen import frozen
from viz import decoding as dec_viz
from viz import grids, multihead
from viz.heatmap import attention_heatmap, heatmap, relative_to_uniform
from viz.labels import token_labels

COLORS = ["#111111", "#222222", "#333333"]


def softmax_rows(*shape: int, seed: int = 0) -> np.ndarray:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).softmax(-1).numpy()


def labels(n: int, prefix: str = "t") -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def heads(n: int, first: int = 1) -> list[str]:
    return [f"head {h + first}" for h in range(n)]


def csv_rows(fig: go.Figure) -> list[list[str]]:
    """The CSV's rows; a weights table's with each position and token as one "3:▁cat" again (the file has
    them in columns of their own: `test_weights_csv_has_a_column_for_each_position_and_token`)."""
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    if rows and rows[0] == WEIGHTS_HEADER:
        glue = lambda position, token: f"{position}:{token}" if position else token  # noqa: E731
        rows = [["layer", "head", "query", "key", "weight"]] + [
            [r[0], r[1], glue(r[2], r[3]), glue(r[4], r[5]), r[6]] for r in rows[1:]]
    return rows


def line_ends(fig: go.Figure) -> dict[tuple[str, int, int], tuple[float, float]]:
    """(head index as legend group, query, key) -> the y of the line's query end and key end."""
    ends = {}
    for trace in fig.data:
        if trace.mode != "lines":
            continue
        for y_q, y_k, gap in np.asarray(trace.y, dtype=float).reshape(-1, 3):
            assert np.isnan(gap)
            ends[(trace.legendgroup, round(y_q), round(y_k))] = (y_q, y_k)
    return ends


# ---- the head view: lines of different heads do not coincide ----------------------------------------


@pytest.mark.parametrize("query", [None, 2])
def test_head_view_lines_of_two_heads_between_the_same_tokens_have_different_ends(query):
    w = softmax_rows(3, 5, 5)
    fig = multihead.head_view(w, labels(5), labels(5), heads(3), COLORS, "t", query=query, min_weight=0.0)
    ends = line_ends(fig)
    queries = range(5) if query is None else [query]
    assert len(ends) == 3 * len(queries) * 5  # every line, none lost
    for q in queries:
        for k in range(5):
            drawn = [ends[(str(h), q, k)] for h in range(3)]
            assert len({y_q for y_q, _ in drawn}) == 3 and len({y_k for _, y_k in drawn}) == 3
            for y_q, y_k in drawn:  # within the tokens' row bands, the same offset at both ends
                assert abs(y_q - q) <= multihead.FAN and abs(y_k - k) <= multihead.FAN
                assert y_q - q == pytest.approx(y_k - k)


def test_head_view_fan_is_small_and_symmetric_around_the_token():
    for n in range(1, 17):
        fan = multihead.fan_offsets(n)
        assert len(fan) == n and np.all(np.diff(fan) > 0)
        np.testing.assert_allclose(fan, -fan[::-1], atol=1e-7)  # symmetric around the row
        assert np.abs(fan).max(initial=0) <= multihead.FAN < 0.5  # well inside the row's band
        assert np.all(np.diff(fan) <= multihead.FAN_STEP + 1e-7)
    np.testing.assert_allclose(multihead.fan_offsets(8)[[0, -1]], [-0.3, 0.3], atol=1e-6)


def test_head_view_drawn_heads_fan_out_in_order_of_drawing():
    """Chosen heads 0 and 2: the two drawn heads take the fan's two places, not heads' places of three."""
    w = softmax_rows(3, 4, 4)
    fig = multihead.head_view(w, labels(4), labels(4), heads(3), COLORS, "t", heads=[0, 2], min_weight=0.0)
    ends = line_ends(fig)
    offsets = multihead.fan_offsets(2)
    for (group, q, _), (y_q, _) in ends.items():
        assert y_q - q == pytest.approx(offsets[{"0": 0, "2": 1}[group]], abs=1e-6)


def test_head_view_hover_still_names_head_query_key_and_weight():
    w = softmax_rows(2, 3, 3)
    fig = multihead.head_view(w, labels(3, "q"), labels(3, "k"), heads(2), COLORS, "t", query=1,
                              min_weight=0.0)
    for h in range(2):
        (marker,) = [t for t in fig.data if t.mode == "markers" and t.name == f"head {h + 1}"]
        assert marker.hovertemplate.startswith(f"head {h + 1}<br>%{{text}}<br>weight = %{{customdata[2]")
        assert list(marker.text) == [f"q1 → k{k}" for k in range(3)]
        data = np.asarray(marker.customdata)
        np.testing.assert_array_equal(data[:, 2], w[h, 1])  # exactly the weights (float32)


@pytest.mark.parametrize("query", [None, 0, 3])
def test_head_view_rows_read_back_exactly_the_lines_drawn(query):
    w = softmax_rows(3, 4, 5, seed=1)
    fig = multihead.head_view(w, labels(4, "q"), labels(5, "k"), heads(3), COLORS, "t", query=query,
                              min_weight=0.1)
    rows = multihead.head_view_rows(fig)
    expected = multihead.head_view_lines(w, query, min_weight=0.1)
    assert sorted((f"head {h + 1}", q, k, weight) for h, q, k, weight in expected) == sorted(
        (name, q, k, weight) for name, q, _, k, _, weight in rows)
    assert all(q_label == f"q{q}" and k_label == f"k{k}" for _, q, q_label, k, k_label, _ in rows)
    assert multihead.head_view_rows(grids.heads_grid(w, labels(4), labels(5), heads(3), "t")) is None


def test_head_view_rows_survive_the_trip_through_json_and_freezing():
    """What Streamlit sends (typed arrays as base64) and the page's frozen figures read back the same."""
    w = softmax_rows(2, 4, 4)
    fig = multihead.head_view(w, labels(4), labels(4), heads(2), COLORS, "layer 3 of 6: head view")
    again = go.Figure(json.loads(fig.to_json()))
    assert multihead.head_view_rows(again) == multihead.head_view_rows(fig)
    assert figure_csv(frozen(fig)) == figure_csv(fig)


# ---- tidy CSV of attention weights --------------------------------------------------------------------


def test_csv_of_a_heads_grid_is_one_row_per_weight():
    w = softmax_rows(3, 4, 5)  # (H, T_q, T_k)
    fig = grids.heads_grid(w, labels(4, "q"), labels(5, "k"), heads(3),
                           "encoder self-attention, layer 2 of 6: all 3 heads")
    rows = csv_rows(fig)
    assert rows[0] == ["layer", "head", "query", "key", "weight"]
    assert len(rows) - 1 == 3 * 4 * 5  # a row per cell of a head, none for the gaps between them
    panels = grids.panels_meta(fig)
    drawn = grids.split(np.asarray(fig.data[0].z), panels)  # (H, T_q, T_k): each head's panel
    sums = defaultdict(float)
    for layer, head, query, key, weight in rows[1:]:
        assert layer == "2"
        h, (q, q_text), (k, k_text) = int(head) - 1, query.split(":"), key.split(":")
        assert (q_text, k_text) == (f"q{q}", f"k{k}")  # the labels, with their positions, no marks
        assert float(weight) == float(drawn[h, int(q), int(k)])  # exactly the figure's z
        assert float(weight) == float(w[h, int(q), int(k)])  # in head h's own panel
        sums[(head, query)] += float(weight)
    assert len(sums) == 3 * 4
    assert all(total == pytest.approx(1.0, abs=1e-5) for total in sums.values())  # softmax rows
    again = go.Figure(json.loads(fig.to_json()))  # as Streamlit sends it: typed arrays in base64
    assert figure_csv(again) == figure_csv(frozen(fig)) == figure_csv(fig)


def test_csv_numbers_layers_and_heads_as_the_figure_does():
    w = softmax_rows(2, 2, 2)
    fig = grids.heads_grid(w, labels(2), labels(2), heads(2, first=0), "decoder layer 0 of 6: cross")
    assert {(r[0], r[1]) for r in csv_rows(fig)[1:]} == {("0", "0"), ("0", "1")}
    untitled = grids.heads_grid(w, labels(2), labels(2), heads(2), "all heads")
    assert {(r[0], r[1]) for r in csv_rows(untitled)[1:]} == {("", "1"), ("", "2")}  # no layer named


def test_csv_of_a_heads_grid_drawn_relative_to_uniform_gives_the_weights():
    w = softmax_rows(2, 3, 3)
    fig = grids.heads_grid(w, labels(3), labels(3), heads(2), "layer 1 of 6")
    relative = relative_to_uniform(fig, "RdBu")
    drawn = grids.split(np.asarray(relative.data[0].z), grids.panels_meta(relative))
    assert not np.allclose(drawn, w)  # drawn as ratios to 1/T ...
    assert csv_rows(relative) == csv_rows(fig)  # ... exported as the weights
    assert [float(r[4]) for r in csv_rows(relative)[1:]] == pytest.approx(w.ravel(), rel=1e-6)


def test_csv_of_the_model_view_names_each_thumbnails_layer_and_head():
    w = softmax_rows(2, 3, 4, 4)  # (L, H, T, T)
    fig = grids.model_view(list(w), ["layer 1", "layer 2"], heads(3), "model view",
                           query_labels=labels(4), key_labels=labels(4))
    rows = csv_rows(fig)[1:]
    assert len(rows) == 2 * 3 * 4 * 4
    for layer, head, query, key, weight in rows:
        shown = np.asarray(fig.data[(int(layer) - 1) * 3 + int(head) - 1].z)  # whole percents
        q, k = int(query.split(":")[0]), int(key.split(":")[0])
        assert float(weight) == shown[q, k] / 100


def test_a_long_sentences_model_view_names_its_tokens_once_and_its_csv_still_names_them():
    n = grids.LONG + 1  # past it, a thumbnail's cells are a pixel or two wide
    w = softmax_rows(2, 3, n, n)
    pieces = [f"▁w{i}" for i in range(n)]
    fig = grids.model_view(list(w), ["layer 1", "layer 2"], heads(3), "model view",
                           query_labels=token_labels(pieces), key_labels=token_labels(pieces))
    assert all(t.x is None and t.y is None for t in fig.data)  # hover gives positions
    assert "query at %{y}, key at %{x}" in fig.data[0].hovertemplate
    assert fig.layout.meta["tokens"]["query"][3] == "3:▁w3"
    rows = csv_rows(fig)[1:]
    assert len(rows) == 2 * 3 * n * n and rows[n + 2][2:4] == ["1:▁w1", "2:▁w2"]
    short = grids.model_view(list(w[:, :, :4, :4]), ["layer 1", "layer 2"], heads(3), "model view",
                             query_labels=token_labels(pieces[:4]), key_labels=token_labels(pieces[:4]))
    assert list(short.data[0].y)[1] == "1:▁w1" and "tokens" not in short.layout.meta  # on every one


def test_csv_of_a_softmax_heatmap_uses_token_labels_with_positions_as_plain_text():
    pieces = ["▁The", "▁cat", "</s>"]
    weights = softmax_rows(3, 3)
    fig = attention_heatmap(weights, token_labels(pieces), token_labels(pieces),
                            "encoder self-attention, layer 5 of 6, head 3 of 8")
    rows = csv_rows(fig)
    assert rows[0] == ["layer", "head", "query", "key", "weight"]
    assert [r[2] for r in rows[1::3]] == ["0:▁The", "1:▁cat", "2:</s>"]  # not "2:&lt;/s&gt;"
    assert [r[3] for r in rows[1:4]] == ["0:▁The", "1:▁cat", "2:</s>"]
    assert {(r[0], r[1]) for r in rows[1:]} == {("5", "3")}
    got = np.array([float(r[4]) for r in rows[1:]]).reshape(3, 3)
    np.testing.assert_array_equal(got, np.asarray(fig.data[0].z, dtype=float))


def test_csv_of_a_masked_softmax_heatmap_leaves_blocked_weights_blank():
    weights = np.array([[1.0, 0.0], [0.25, 0.75]])
    fig = dec_viz.masked_attention_heatmap(weights, np.tril(np.ones((2, 2), dtype=bool)), labels(2),
                                           labels(2), "decoder layer 1 of 6, head 2: masked")
    assert csv_rows(fig)[1:] == [["1", "2", "0:t0", "0:t0", "1.0"], ["1", "2", "0:t0", "1:t1", ""],
                                 ["1", "2", "1:t1", "0:t0", "0.25"], ["1", "2", "1:t1", "1:t1", "0.75"]]


def test_csv_of_rows_per_head_names_the_head_of_each_row():
    rows_per_head = softmax_rows(2, 3)  # the newest query's row in each head
    fig = dec_viz.step_rows_heatmap(rows_per_head, labels(3, "k"), heads(2), "decoder layer 4 of 6")
    rows = csv_rows(fig)[1:]
    assert [(r[0], r[1], r[2], r[3]) for r in rows[:4]] == [
        ("4", "1", "", "0:k0"), ("4", "1", "", "1:k1"), ("4", "1", "", "2:k2"), ("4", "2", "", "0:k0")]
    np.testing.assert_array_equal([float(r[4]) for r in rows], np.asarray(fig.data[0].z).ravel())


def test_csv_of_a_head_view_is_its_lines_weights():
    w = softmax_rows(3, 4, 4)
    q_labels, k_labels = token_labels(["▁a", "▁b", "<s>", "▁d"]), token_labels(["▁w", "▁x", "▁y", "▁z"])
    fig = multihead.head_view(w, q_labels, k_labels, heads(3), COLORS,
                              "encoder self-attention, layer 5 of 6: head view", min_weight=0.2)
    rows = csv_rows(fig)
    assert rows[0] == ["layer", "head", "query", "key", "weight"]
    queries, keys = ["0:▁a", "1:▁b", "2:<s>", "3:▁d"], ["0:▁w", "1:▁x", "2:▁y", "3:▁z"]
    expected = {("5", str(h + 1), queries[q], keys[k]): weight
                for h, q, k, weight in multihead.head_view_lines(w, min_weight=0.2)}
    got = {tuple(r[:4]): float(r[4]) for r in rows[1:]}
    assert got == expected and len(rows) - 1 == len(expected)  # exact weights, not line coordinates


def test_only_attention_figures_are_exported_as_weights():
    w = softmax_rows(2, 3, 3)
    assert is_attention(grids.heads_grid(w, labels(3), labels(3), heads(2), "t"))
    assert is_attention(multihead.head_view(w, labels(3), labels(3), heads(2), COLORS, "t"))
    assert not is_attention(heatmap(w[0], labels(3), labels(3), "scores"))


# ---- other figures: as before -------------------------------------------------------------------------


def test_csv_of_a_figure_that_is_not_attention_is_unchanged():
    scores = np.array([[0.5, -2.0], [0.25, 0.75]])
    fig = heatmap(scores, ["a", "b"], ["c", "d"], "scores, layer 1, head 1")
    assert figure_csv(fig) == "row \\ column,c,d\r\na,0.5,-2.0\r\nb,0.25,0.75\r\n"
    line = go.Figure(go.Scatter(x=[0, 1], y=[0.5, 1.5], name="loss"))
    assert figure_csv(line) == "trace,x,y,z\r\nloss,0.0,0.5,\r\nloss,1.0,1.5,\r\n"


def test_weights_csv_has_a_column_for_each_position_and_token():
    """The tidy layout a spreadsheet filters on: layer, head, query position, query token, key position,
    key token, weight; tokens as plain text ("</s>", not "&lt;/s&gt;")."""
    w = softmax_rows(1, 2, 3)
    queries, keys = token_labels(["▁The", "</s>"], True), token_labels(["▁a", "▁b", "</s>"], True)
    fig = attention_heatmap(w[0], queries, keys, "encoder self-attention, layer 5 of 6, head 3")
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[0] == WEIGHTS_HEADER
    assert WEIGHTS_HEADER == ["layer", "head", "query_position", "query_token", "key_position", "key_token",
                              "weight"]
    assert rows[1][:6] == ["5", "3", "0", "▁The", "0", "▁a"]
    assert rows[-1][:6] == ["5", "3", "1", "</s>", "2", "</s>"]
    assert float(rows[-1][6]) == float(w[0, 1, 2])


def test_a_step_by_step_title_names_its_layer_and_head_short():
    """ "softmax: attention weights · L5 H1": the step-by-step page's titles; the CSV's layer and head were
    blank."""
    w = softmax_rows(1, 2, 2)
    fig = attention_heatmap(w[0], labels(2), labels(2), "softmax: attention weights · L5 H1")
    assert {(r[0], r[1]) for r in csv_rows(fig)[1:]} == {("5", "1")}
