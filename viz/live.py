"""What changes in a drawn figure when the reader steps to another layer or head: its numbers and its
title, not its frame (axes, labels, sizes, colours).

A page sends the browser these changes for every layer and head once (`ui.live`), and the browser
applies them without asking the server (`ui/live.js`, with Plotly's own `Plotly.update`). A change is
`(data, layout)`, the two update arguments of `Plotly.update`: `data` maps a trace attribute to one value
per trace, in trace order; `layout` maps a dotted layout attribute ("title.text") to its value.
Matrices travel as float32 in base64 (`matrix`), as Plotly itself sends arrays.

A value wrapped by `by_row` holds one value per query row; the browser draws the row of the query the
reader follows (`at_row` says which value that is), so one change serves every followed query. A
`times_row` value is a matrix the browser computes for the followed query.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from viz.heatmap import as_array, cell_values, uniform_ratio

Change = tuple[dict, dict]  # (data, layout): the arguments of Plotly.update


def matrix(values) -> dict:
    """A matrix for the browser: {"shape": [rows, columns], "f4": float32 bytes in base64} (NaN kept)."""
    a = np.ascontiguousarray(np.asarray(values, dtype=np.float32))
    return {"shape": list(a.shape), "f4": base64.b64encode(a.tobytes()).decode("ascii")}


def unpack(m: dict) -> np.ndarray:
    """The array `matrix` packed (what ui/live.js decodes in the browser)."""
    return np.frombuffer(base64.b64decode(m["f4"]), dtype=np.float32).reshape(m["shape"])


def by_row(values) -> dict:
    """One value per query row (a matrix travels packed): the browser takes the followed query's."""
    if isinstance(values, np.ndarray) or hasattr(values, "numpy"):
        return {"row": matrix(values)}
    return {"row": list(values)}


def times_row(a, b) -> dict:
    """The matrix `b` (T_k, d) with every row multiplied elementwise by the followed query's row of `a`
    (T_q, d), computed by the browser: T_q·d + T_k·d numbers travel instead of T_q·T_k·d."""
    return {"times_row": [matrix(a), matrix(b)]}


def at_row(value, row: int):
    """What the browser draws for `value` when it follows query `row`: a `by_row` value's row, a
    `times_row` value's product, else the value itself (ui/live.js does the same)."""
    if isinstance(value, dict) and "times_row" in value:
        a, b = (unpack(m) for m in value["times_row"])
        return b * a[row]
    if not (isinstance(value, dict) and "row" in value):
        return value
    rows = value["row"]
    return unpack(rows)[row] if isinstance(rows, dict) else rows[row]


def symmetric_bound(z: np.ndarray) -> float:
    """The largest |value| among the finite ones (1 when there is none, or all are 0): a diverging
    colour scale centred on 0 runs from minus this to this."""
    finite = np.abs(z[np.isfinite(z)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def heatmap_data(matrices: list, symmetric: bool = False, contrast: bool = False) -> dict:
    """The `data` of a change for heatmap traces (one matrix each) drawn by `viz.heatmap.heatmap`:
    their values, text (gaps for −∞) and, with `symmetric`, a colour range centred on 0. `contrast`:
    attention weights drawn relative to uniform (`viz.heatmap.relative_to_uniform`)."""
    data: dict[str, list] = {"z": [], "text": []}
    if contrast:
        data["customdata"] = []
    if symmetric:
        data["zmin"], data["zmax"] = [], []
    for values in matrices:
        z = as_array(values)
        shown, text = cell_values(z)
        if contrast:
            data["customdata"].append(matrix(shown))
            shown = uniform_ratio(shown.astype(float)).astype(np.float32)
        data["z"].append(matrix(shown))
        data["text"].append(None if text is None else text.tolist())
        if symmetric:
            bound = symmetric_bound(z)
            data["zmin"].append(-bound)
            data["zmax"].append(bound)
    if all(text is None for text in data["text"]):  # nothing to print, as in the drawn figure: less to redo
        del data["text"]
    return data


def heatmap_change(fig, context: str, new_context: str, values, symmetric: bool = False) -> Change:
    """What changes in a figure of one heatmap trace drawn for `context` (e.g. "layer 1 of 6") to show
    the matrix `values` of `new_context`; contrast (weights relative to uniform) is read off the figure."""
    data = heatmap_data([values], symmetric=symmetric, contrast=fig.data[0].customdata is not None)
    return data, retitled(fig, context, new_context)


def retitle(title: str, old: str, new: str) -> str:
    """`title` with the words `old` (e.g. "L1 H2", "layer 3 of 6") replaced by `new`, the same number of
    words, keeping where the title was wrapped between two of them (a line break instead of a space)."""
    match = _words(old).search(title)
    if match is None:
        raise ValueError(f"{old!r} is not in the title {title!r}")
    words, breaks = new.split(" "), match.groups()
    if len(words) != len(breaks) + 1:
        raise ValueError(f"{new!r} has not as many words as {old!r}")
    replaced = words[0] + "".join(sep + word for sep, word in zip(breaks, words[1:]))
    return title[: match.start()] + replaced + title[match.end() :]


def retitled(fig, old: str, new: str) -> dict:
    """The `layout` of a change: the figure's title and every annotation (a panel's title) that name
    `old` (e.g. "L1 H2"), naming `new` instead."""
    layout = {}
    texts = [("title.text", fig.layout.title.text)]
    texts += [(f"annotations[{i}].text", a.text) for i, a in enumerate(fig.layout.annotations)]
    for where, text in texts:
        if text and _words(old).search(text):
            layout[where] = retitle(text, old, new)
    return layout


def _words(old: str) -> re.Pattern:
    return re.compile(r"((?:\s|<br>)+)".join(re.escape(word) for word in old.split(" ")))
