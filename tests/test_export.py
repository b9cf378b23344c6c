"""Figure export: the standalone HTML holds the figure's data; the CSV holds exactly its numbers."""

from __future__ import annotations

import base64
import csv
import io
import json
import math
import re
from html.parser import HTMLParser

import numpy as np

from ui.export import figure_csv, figure_html, file_stem
from viz.heatmap import attention_heatmap, heatmap
from viz.inspector import probability_change, side_by_side


def _heatmap_figure():
    weights = np.array([[0.125, 0.875, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    return attention_heatmap(weights, ["0:▁quokka", "1:s"], ["0:▁a", "1:b", "2:</s>"], "export test")


def _decode(array):
    """A Plotly JSON array: a plain list, or {'dtype', 'bdata', 'shape'} (base64)."""
    if isinstance(array, dict):
        values = np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"])
        shape = [int(s) for s in str(array.get("shape", len(values))).split(",")]
        return values.reshape(shape)
    return np.asarray(array, dtype=float)


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open: list[str] = []
        self.seen: set[str] = set()
        self.script_sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.seen.add(tag)
        if tag in ("html", "head", "body", "div", "script"):
            self.open.append(tag)
        if tag == "script":
            self.script_sources += [value for name, value in attrs if name == "src"]

    def handle_endtag(self, tag):
        if tag in ("html", "head", "body", "div", "script"):
            assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
            self.open.pop()


def test_html_is_a_standalone_page_with_the_figure_data():
    fig = _heatmap_figure()
    page = figure_html(fig)
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert parser.open == []  # every html/head/body/div/script tag is closed, in order
    assert {"html", "head", "body", "script"} <= parser.seen
    assert parser.script_sources == []  # plotly.js is embedded: it must work without a network
    assert len(page) > 1_000_000  # the embedded library
    call = re.search(r'Plotly\.newPlot\(\s*"[^"]+",\s*', page)
    assert call is not None
    data, _ = json.JSONDecoder().raw_decode(page, call.end())
    assert data[0]["x"] == list(fig.data[0].x) and data[0]["y"] == list(fig.data[0].y)
    np.testing.assert_array_equal(_decode(data[0]["z"]), np.asarray(fig.data[0].z, dtype=float))


def test_csv_of_a_heatmap_is_its_matrix_with_labels():
    """A heatmap of other numbers than attention weights (those: tests/test_export_weights.py)."""
    weights = np.array([[0.125, 0.875, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    fig = heatmap(weights, ["0:▁quokka", "1:s"], ["0:▁a", "1:b", "2:</s>"], "export test")
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[0][1:] == list(fig.data[0].x)
    assert [r[0] for r in rows[1:]] == list(fig.data[0].y)
    numbers = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    np.testing.assert_array_equal(numbers, np.asarray(fig.data[0].z, dtype=float))  # exact, not rounded


def test_csv_leaves_blocked_cells_blank():
    scores = np.array([[0.5, -math.inf], [0.25, 0.75]])  # −∞ = masked, drawn as a gap
    fig = heatmap(scores, ["a", "b"], ["c", "d"], "masked")
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[1][1:] == ["0.5", ""]
    assert rows[2][1:] == ["0.25", "0.75"]


def test_csv_of_several_heatmaps_lists_every_value_once():
    a = np.array([[0.5, 0.5], [0.2, 0.8]])
    b = np.array([[1.0, 0.0], [0.3, 0.7]])
    fig = side_by_side([a, b], ["first", "second"], ["q0", "q1"], ["k0", "k1"], "two")
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[0] == ["trace", "x", "y", "z"]
    got = {(r[0], r[2], r[1]): float(r[3]) for r in rows[1:]}
    assert len(got) == len(rows) - 1 == 8
    for name, matrix in (("first", a), ("second", b)):
        for i, q in enumerate(["q0", "q1"]):
            for j, k in enumerate(["k0", "k1"]):
                assert got[(name, q, k)] == matrix[i, j]


def test_csv_of_bars_gives_x_and_y():
    fig = probability_change(["▁Das", "▁Tier"], [0.6, 0.1], [0.2, 0.3], "bars")
    rows = list(csv.reader(io.StringIO(figure_csv(fig))))
    assert rows[1:] == [["all heads on", "▁Das", "0.6", ""], ["all heads on", "▁Tier", "0.1", ""],
                        ["chosen heads off", "▁Das", "0.2", ""], ["chosen heads off", "▁Tier", "0.3", ""]]


def test_file_names_are_safe():
    assert file_stem("hi_map") == "hi_map"
    assert file_stem("../../etc/passwd") == "etc_passwd"
    assert file_stem("///") == "figure"
