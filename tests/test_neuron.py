"""The neuron view (viz.neuron): one query's dot products with every key, dimension by dimension, add up
to the model's own QKᵀ row, and what the browser switches to for another head or query is what the
server draws for it."""

from __future__ import annotations

import numpy as np
import pytest

from viz import neuron, steps
from viz.labels import token_labels
from viz.live import at_row, unpack


@pytest.fixture
def trace(tiny_trace):
    return tiny_trace


def head(trace, stack: str, kind: str, layer: int, h: int) -> dict:
    return {what: trace.get(trace.attn_name(stack, kind, layer, what))[h].numpy()
            for what in ("q", "k", "qk")}


def labels(trace, stack: str, kind: str) -> tuple[list, list]:
    return token_labels(trace.query_pieces(stack), True), token_labels(trace.key_pieces(stack, kind), True)


def drawn(fig) -> list[np.ndarray]:
    return [np.asarray(t.z, dtype=float) for t in fig.data]


@pytest.mark.parametrize("stack,kind", [("encoder", "self"), ("decoder", "self"), ("decoder", "cross")])
def test_the_terms_add_up_to_the_models_scores(trace, stack, kind):
    t = head(trace, stack, kind, 1, 1)
    q_labels, k_labels = labels(trace, stack, kind)
    row = 2
    fig = neuron.neuron_view(t["q"][row], t["k"], t["qk"][row], k_labels, q_labels[row], context="L2 H2")
    terms, sums, q = drawn(fig)
    assert terms.shape == (len(k_labels), t["q"].shape[1]) and sums.shape == (len(k_labels), 1)
    np.testing.assert_allclose(terms, t["k"] * t["q"][row], rtol=1e-6)  # q_d · k_jd, cell by cell
    np.testing.assert_allclose(terms.sum(axis=1), t["qk"][row], rtol=1e-4, atol=1e-5)  # the rows' sums...
    np.testing.assert_allclose(sums[:, 0], t["qk"][row], rtol=1e-6)  # ...are the model's own scores
    np.testing.assert_allclose(q[0], t["q"][row], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(fig.data[0].customdata, dtype=float), t["k"], rtol=1e-6)
    assert fig.layout.title.text == neuron.neuron_title(q_labels[row], t["q"].shape[1])
    assert "L2 H2" in fig.layout.annotations[0].text
    assert all(trace_.zmid == 0 for trace_ in fig.data)  # every panel's colours centred on 0
    # a narrow figure (the numbers model's d_k = 8) has its title on two lines, for every query alike
    assert "<br>" in neuron.neuron_title("x", 8) and "<br>" not in neuron.neuron_title("x", 32)
    with pytest.raises(ValueError):
        neuron.neuron_view(t["q"][row], t["k"][:-1], t["qk"][row], k_labels, q_labels[row])


@pytest.mark.parametrize("stack,kind", [("encoder", "self"), ("decoder", "cross")])
def test_another_head_and_query_draw_what_the_server_draws(trace, stack, kind):
    """The change for head L2 H2, picked at every followed query as ui/live.js picks it (the terms
    multiplied out from Q and K), is the figure the server draws for that head and query."""
    q_labels, k_labels = labels(trace, stack, kind)
    first = head(trace, stack, kind, 0, 0)
    fig = neuron.neuron_view(first["q"][0], first["k"], first["qk"][0], k_labels, q_labels[0],
                             context="L1 H1")
    other = head(trace, stack, kind, 1, 1)
    data, layout = steps.step_changes({"neuron": fig}, "L1 H1", "L2 H2", other)["neuron"]
    _, by_query = neuron.neuron_by_query(q_labels, first["q"].shape[1])
    for row in range(len(q_labels)):
        want = neuron.neuron_view(other["q"][row], other["k"], other["qk"][row], k_labels, q_labels[row],
                                  context="L2 H2")  # fmt: skip
        got = [at_row(value, row) for value in data["z"]]
        got = [value if isinstance(value, np.ndarray) else unpack(value) for value in got]
        for g, w in zip(got, drawn(want)):
            np.testing.assert_array_equal(g, w.astype(np.float32))  # float32 products, as the browser's
        np.testing.assert_array_equal(unpack(data["customdata"][0]), np.asarray(want.data[0].customdata))
        assert data["customdata"][1:] == [None, None]
        assert at_row(by_query["title.text"], row) == want.layout.title.text
        assert layout == {"annotations[0].text": want.layout.annotations[0].text}
    # the heads differ: a change that kept the first head's numbers would pass the above too
    assert not np.allclose(unpack(data["z"][0]["times_row"][0]), first["q"])
