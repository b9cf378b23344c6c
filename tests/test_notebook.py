"""docs/notebook.ipynb runs from top to bottom: a kernel executes every cell on the shipped
model, so the notebook cannot rot as the code changes, and it draws its figures with the functions the
pages use. Nothing here knows the shipped model's sizes or translations: it is retrained now and then."""

from __future__ import annotations

import json
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
PLOTLY = "application/vnd.plotly.v1+json"
# The figure functions of the pages it shows (head view, one head's steps, the cross-attention).
PAGE_FUNCTIONS = ("multihead.head_view(", "steps.step_figures(", "dec_viz.alignment_heatmap(")


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})  # fmt: skip
    client.execute()  # raises CellExecutionError, with the cell and its traceback, if a cell fails
    return notebook


def test_the_notebook_is_committed_without_outputs():
    """Outputs are rebuilt by running it; committed, they would be megabytes of Plotly JSON."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    assert 8 <= len(cells) <= 20
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(not c["outputs"] and c["execution_count"] is None for c in code)


def test_every_cell_runs_and_the_figures_come_from_the_pages_functions(executed):
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    source = "\n".join(c.source for c in code)
    assert all(call in source for call in PAGE_FUNCTIONS), PAGE_FUNCTIONS
    figures = [json.loads(o.data[PLOTLY]) if isinstance(o.data[PLOTLY], str) else o.data[PLOTLY]
               for c in code for o in c.outputs if "data" in o and PLOTLY in o.data]  # fmt: skip
    assert len(figures) >= 4, len(figures)  # head view, masked scores, weights, cross-attention
    titles = " ".join(str(f["layout"].get("title", {}).get("text", "")) for f in figures)
    assert "head view" in titles and "cross-attention" in titles, titles


def test_the_translation_printed_is_the_models(executed):
    """The trace cell prints the beam translation; it is what the model gives for that sentence."""
    from transformer.decoding import beam_search
    from transformer.inputs import encode_source
    from transformer.pretrained import load_pretrained

    trace_cell = next(c for c in executed.cells if c.cell_type == "code" and "run_trace(" in c.source)
    printed = "".join(o.get("text", "") for o in trace_cell.outputs).splitlines()
    sentence = next(line for line in trace_cell.source.splitlines() if line.startswith("sentence ="))
    sentence = sentence.split('"')[1]
    lm = load_pretrained(ROOT / "pretrained")
    src = encode_source(lm.tokenizer, sentence)
    best = beam_search(lm.model, src.ids, beam_size=lm.decoding.beam_size, alpha=lm.decoding.alpha)[0]
    assert printed[0] == lm.tokenizer.decode(best.ids)
