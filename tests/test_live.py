"""What the browser changes when a reader steps to another layer or head (viz.live and the step-by-step
figures' changes) is exactly what the server would have drawn for that layer and head."""

from __future__ import annotations

import numpy as np
import pytest

from viz import steps
from viz.heatmap import relative_to_uniform
from viz.labels import token_labels
from viz.live import at_row, matrix, retitle, retitled, unpack


@pytest.fixture
def trace(tiny_trace):
    return tiny_trace


def tensors(trace, stack: str, kind: str, layer: int, head: int) -> dict:
    def get(what: str):
        return trace.get(trace.attn_name(stack, kind, layer, what))[head]

    return dict(q=get("q"), k=get("k"), v=get("v"), qk=get("qk"), scores=get("scores"),
                masked=get("masked_scores"), pattern=get("pattern"), z=get("z"))  # fmt: skip


def figures(trace, stack: str, kind: str, layer: int, head: int, contrast: bool) -> dict:
    t = tensors(trace, stack, kind, layer, head)
    q_labels = token_labels(trace.query_pieces(stack), True)
    k_labels = token_labels(trace.key_pieces(stack, kind), True)
    context = f"L{layer + 1} H{head + 1}"
    figs = steps.step_figures(
        t["q"], t["k"], t["v"], t["qk"], t["scores"],
        trace.get(trace.attn_name(stack, kind, layer, "mask"))[0], t["masked"], t["pattern"], t["z"],
        q_labels, k_labels, context=context, highlight=1,
    )  # fmt: skip
    figs["qkv"] = steps.qkv_figure(figs["q"], figs["k"], figs["v"], f"Queries, keys and values · {context}")
    figs["journey"] = steps.query_journey(t["scores"][1], t["masked"][1], t["pattern"][1], k_labels, "x")
    if contrast:
        figs["pattern"] = relative_to_uniform(figs["pattern"], "RdBu_r")
    return figs


@pytest.mark.parametrize("stack,kind", [("encoder", "self"), ("decoder", "self"), ("decoder", "cross")])
@pytest.mark.parametrize("contrast", [False, True])
def test_a_step_change_draws_what_the_server_draws_for_that_head(trace, stack, kind, contrast):
    drawn = figures(trace, stack, kind, 0, 0, contrast)
    wanted = figures(trace, stack, kind, 1, 1, contrast)
    changes = steps.step_changes(drawn, "L1 H1", "L2 H2", tensors(trace, stack, kind, 1, 1))
    assert set(changes) == set(drawn) - {"mask"}  # the mask is the same for every layer and head
    for name, (data, layout) in changes.items():
        for i, want in enumerate(wanted[name].data):
            for attr, values in data.items():
                got, ref = at_row(values[i], 1), getattr(want, attr)  # the journey follows query 1
                if isinstance(got, dict):
                    np.testing.assert_allclose(unpack(got), np.asarray(ref, dtype=float), rtol=1e-6)
                elif attr == "text":
                    assert got == (None if ref is None else [list(r) for r in ref]), name
                else:
                    np.testing.assert_allclose(got, ref, rtol=1e-6, err_msg=f"{name}.{attr}")
        for where, text in layout.items():
            ref = (
                wanted[name].layout.title.text
                if where == "title.text"
                else wanted[name].layout.annotations[int(where.split("[")[1].split("]")[0])].text
            )
            assert text == ref, (name, where)
    # the figures do differ between the heads: a change that changed nothing would pass the above too
    assert not np.allclose(unpack(changes["pattern"][0]["z"][0]), np.asarray(drawn["pattern"].data[0].z))
    assert "L2 H2" in changes["qk"][1]["title.text"] and "L1 H1" in drawn["qk"].layout.title.text


@pytest.mark.parametrize("stack,kind", [("encoder", "self"), ("decoder", "self")])
def test_following_another_query_draws_what_the_server_draws_for_it(trace, stack, kind):
    """The journey's change for every query, picked at a row as the browser picks it, is the journey
    the server draws for that query; the frame the browser moves is the shape named QUERY_FRAME."""
    t = tensors(trace, stack, kind, 0, 1)
    q_labels = token_labels(trace.query_pieces(stack), True)
    k_labels = token_labels(trace.key_pieces(stack, kind), True)
    by_query = steps.journey_by_query(t["masked"], q_labels, "#123456")
    by_head = steps.step_changes({"journey": steps.query_journey(t["scores"][0], t["masked"][0],
                                                                 t["pattern"][0], k_labels, q_labels[0])},
                                 "", "", t)["journey"]  # fmt: skip
    greys = set()
    for row in range(len(q_labels)):
        want = steps.query_journey(t["scores"][row], t["masked"][row], t["pattern"][row], k_labels,
                                   q_labels[row], "#123456")  # fmt: skip
        assert at_row(by_query[1]["title.text"], row) == want.layout.title.text
        for i, trace_ in enumerate(want.data):
            colours = at_row(by_query[0]["marker.color"][i], row)
            assert list(np.atleast_1d(colours)) == list(np.atleast_1d(trace_.marker.color))
            text = at_row(by_query[0]["text"][i], row)
            assert text == (None if trace_.text is None else list(trace_.text))
            np.testing.assert_allclose(at_row(by_head[0]["y"][i], row), trace_.y, rtol=1e-6)
        greys.add(tuple(at_row(by_query[0]["marker.color"][0], row)))
    # causal: the rows differ in what is blocked (a change that picked one row for all would pass above)
    assert (len(greys) > 1) == (stack == "decoder")
    mask = trace.get(trace.attn_name(stack, kind, 0, "mask"))[0]
    framed = steps.step_figures(t["q"], t["k"], t["v"], t["qk"], t["scores"], mask, t["masked"],
                                t["pattern"], t["z"], q_labels, k_labels, highlight=2)  # fmt: skip
    assert [s.y0 for s in framed["pattern"].layout.shapes if s.name == steps.QUERY_FRAME] == [1.5]
    assert not [s for s in framed["k"].layout.shapes if s.name == steps.QUERY_FRAME]  # K's rows are keys


def test_blocked_cells_travel_as_gaps_with_their_text(trace):
    masked = tensors(trace, "decoder", "self", 0, 0)["masked"]
    figs = figures(trace, "decoder", "self", 0, 0, False)
    data, _ = steps.step_changes(figs, "L1 H1", "L1 H1", tensors(trace, "decoder", "self", 0, 0))["masked"]
    z = unpack(data["z"][0])
    assert np.isnan(z[0, 1:]).all() and not np.isnan(z[-1]).any()  # causal: row 0 sees key 0 only
    assert data["text"][0][0][1] == "−∞ (blocked)"
    assert np.isfinite(masked.numpy()[0, 0])


def test_matrices_round_trip_as_float32_with_gaps():
    z = np.array([[0.5, np.nan], [-1.25, 3.0]], dtype=np.float32)
    packed = matrix(z)
    assert packed["shape"] == [2, 2]
    np.testing.assert_array_equal(unpack(packed), z)


def test_retitle_finds_the_words_across_a_wrapped_title():
    assert retitle("Q Kᵀ · L1 <br>H2", "L1 H2", "L3 H4") == "Q Kᵀ · L3 <br>H4"
    assert retitle("layer 2 of 6: all heads", "layer 2 of 6", "layer 3 of 6") == "layer 3 of 6: all heads"
    with pytest.raises(ValueError):
        retitle("The mask", "L1 H2", "L3 H4")


def test_retitled_leaves_titles_without_the_context_alone(trace):
    figs = figures(trace, "encoder", "self", 0, 0, False)
    assert retitled(figs["mask"], "L1 H1", "L2 H1") == {}
    layout = retitled(figs["qkv"], "L1 H1", "L2 H1")
    assert set(layout) == {"title.text", "annotations[0].text", "annotations[1].text", "annotations[2].text"}


@pytest.mark.parametrize("contrast", [False, True])
def test_a_layer_change_of_the_heads_grid_and_concat_draws_what_the_server_draws(trace, tiny_model, contrast):
    from viz import concat, grids

    labels = token_labels(trace.query_pieces("encoder"), True)
    names = ["head 1", "head 2"]

    def grid(layer):
        fig = grids.heads_grid(
            trace.attention("encoder", "self", layer),
            labels,
            labels,
            names,
            f"layer {layer + 1} of 2: all heads",
        )
        return relative_to_uniform(fig, "RdBu_r") if contrast else fig

    def get(layer, what):
        return trace.get(trace.attn_name("encoder", "self", layer, what))

    def concat_fig(layer):
        w_o = tiny_model.encoder.layers[layer].self_attn.w_o.weight
        return concat.concat_figure(
            get(layer, "z"),
            get(layer, "concat"),
            w_o,
            get(layer, "out"),
            labels,
            names,
            f"layer {layer + 1} of 2: Concat(heads) · W^O",
        )

    data, layout = grids.grid_changes(
        grid(0), "layer 1 of 2", "layer 2 of 2", trace.attention("encoder", "self", 1)
    )
    want, drawn = grid(1), grid(0)
    assert len(want.data) == 1 and set(data) == ({"z", "customdata"} if contrast else {"z"})
    for attr, values in data.items():  # one matrix of every head's panel (and gaps: NaN == NaN)
        ref = np.asarray(getattr(want.data[0], attr), dtype=float)
        assert len(values) == 1 and unpack(values[0]).shape == ref.shape
        np.testing.assert_allclose(unpack(values[0]), ref, rtol=1e-6)
        assert not np.allclose(ref, np.asarray(getattr(drawn.data[0], attr), dtype=float), equal_nan=True)
    assert layout["title.text"] == want.layout.title.text
    np.testing.assert_array_equal(want.data[0].text, drawn.data[0].text)  # heads' names stay: not sent
    w_o = tiny_model.encoder.layers[1].self_attn.w_o.weight
    data, layout = concat.concat_changes(
        concat_fig(0), "layer 1 of 2", "layer 2 of 2", get(1, "concat"), w_o, get(1, "out")
    )
    want = concat_fig(1)
    for i, trace_ in enumerate(want.data):
        np.testing.assert_allclose(unpack(data["z"][i]), np.asarray(trace_.z, dtype=float), rtol=1e-6)
    for axis in ("coloraxis", "coloraxis2"):
        assert layout[f"{axis}.cmax"] == pytest.approx(want.layout[axis].cmax)
        assert layout[f"{axis}.cmin"] == pytest.approx(want.layout[axis].cmin)
    for key in ("tickvals", "ticktext"):  # W^O's bar relabelled for the new layer's range
        assert list(layout[f"coloraxis2.colorbar.{key}"]) == list(want.layout.coloraxis2.colorbar[key])
    assert layout["title.text"] == want.layout.title.text


@pytest.mark.parametrize("contrast", [False, True])
def test_a_head_change_of_the_decoders_masked_self_attention_draws_what_the_server_draws(trace, contrast):
    from viz import decoding

    labels = token_labels(trace.tgt_pieces, True)
    allowed = trace.get(trace.attn_name("decoder", "self", 0, "mask"))[0]

    def masked(layer, head):
        fig = decoding.masked_attention_heatmap(trace.attention("decoder", "self", layer)[head], allowed,
                                                labels, labels, f"decoder layer {layer + 1} of 2, head "
                                                f"{head + 1}: masked self-attention")  # fmt: skip
        return relative_to_uniform(fig, "RdBu_r") if contrast else fig

    data, layout = decoding.masked_changes(masked(0, 0), "layer 1 of 2, head 1", "layer 2 of 2, head 2",
                                           trace.attention("decoder", "self", 1)[1], allowed)  # fmt: skip
    want = masked(1, 1)
    np.testing.assert_allclose(unpack(data["z"][0]), np.asarray(want.data[0].z, dtype=float), rtol=1e-6)
    assert np.isnan(unpack(data["z"][0])[0, 1:]).all()  # the future stays a gap
    assert data["text"][0] == np.asarray(want.data[0].text).tolist()  # "0 (blocked: …)" on hover
    assert layout["title.text"] == want.layout.title.text
    assert ("customdata" in data) == contrast


def test_a_layer_change_of_the_cross_attention_average_draws_what_the_server_draws(trace):
    from viz import decoding
    from viz.live import heatmap_change

    tgt, src = token_labels(trace.tgt_pieces, True), token_labels(trace.src_pieces, True)

    def average(layer):
        return decoding.alignment_heatmap(trace.attention("decoder", "cross", layer), tgt, src,
                                          f"decoder layer {layer + 1} of 2: cross-attention")  # fmt: skip

    weights = trace.attention("decoder", "cross", 1)
    data, layout = heatmap_change(average(0), "layer 1 of 2", "layer 2 of 2", weights.mean(0))
    want = average(1)
    np.testing.assert_allclose(unpack(data["z"][0]), np.asarray(want.data[0].z, dtype=float), rtol=1e-6)
    assert not np.allclose(unpack(data["z"][0]), np.asarray(average(0).data[0].z, dtype=float))
    assert layout == {"title.text": want.layout.title.text}


def test_the_head_maps_frame_moves_to_the_chosen_head():
    from viz import inspector as viz_inspector

    values = np.arange(6, dtype=float).reshape(2, 3)
    drawn = viz_inspector.head_map(values, "t", selected=(0, 0))
    _, layout = viz_inspector.frame_change(1, 2)
    want = viz_inspector.head_map(values, "t", selected=(1, 2)).layout.shapes[0]
    assert len(drawn.layout.shapes) == 1  # the frame is the map's only shape
    assert layout == {f"shapes[0].{a}": getattr(want, a) for a in ("x0", "x1", "y0", "y1")}


@pytest.mark.parametrize("kind", ["self", "cross"])
def test_a_head_or_layer_change_of_head_mean_and_rollout_draws_what_the_server_draws(trace, kind):
    from dataclasses import replace

    from ui import inspector, inspector_live
    from ui.state import Selection
    from viz import inspector as viz_inspector

    stack = "decoder" if kind == "cross" else "encoder"
    stacked = inspector.layer_patterns(trace, stack, kind)  # (L, H, T_q, T_k)
    q = token_labels(trace.query_pieces(stack), True)
    k = token_labels(trace.key_pieces(stack, kind), True)

    def figure(sel):
        matrices, titles = inspector.mix_parts(sel, stacked, 2)
        return viz_inspector.side_by_side(matrices, titles, q, k, f"attention, layer {sel.show_layer()}")

    first = Selection(stack=stack, kind=kind, layer=0, head=0)
    changes = inspector_live._mix_changes("tiny", f"{kind} test", first, trace, figure(first))
    assert set(changes) == {(layer, head) for layer in range(2) for head in range(2)}
    data, layout = changes[(1, 1)]["hi_rollout"]
    want = figure(replace(first, layer=1, head=1))
    assert layout["title.text"] == want.layout.title.text
    for i, annotation in enumerate(want.layout.annotations):  # "head 2", "mean of 2 heads", "rollout, …"
        assert layout[f"annotations[{i}].text"] == annotation.text
    assert len(data["z"]) == len(want.data) == (3 if kind == "self" else 2)  # head, mean (, rollout)
    for packed, drawn in zip(data["z"], want.data):
        np.testing.assert_allclose(unpack(packed), np.asarray(drawn.z, dtype=float), rtol=1e-6)


@pytest.mark.parametrize("query", [None, 0, 2])
@pytest.mark.parametrize("presenting", [False, True])
def test_another_query_token_draws_the_head_view_the_server_draws_for_it(trace, query, presenting):
    """The head view's traces for a query token, as the browser gets them (`head_view_data`, arrays as
    Plotly sends them, the tokens' text as large as in the drawn figure), are the traces of the head
    view the server draws for that token, in presenter mode too."""
    from ui.frozen import frozen
    from ui.live import plain
    from viz import multihead
    from viz.present import presenter_fonts

    weights = trace.attention("encoder", "self", 0)
    labels = token_labels(trace.query_pieces("encoder"), True)
    names = [f"head {h + 1}" for h in range(weights.shape[0])]
    args = (weights, labels, labels, names, ["#111111", "#222222"])
    fig = multihead.head_view(*args, "title", query=query, heads=[1, 0])
    want = frozen(presenter_fonts(fig, 1.4) if presenting else fig).to_dict()
    size = want["data"][-1]["textfont"]["size"]
    assert size == (18 if presenting else 13)
    data, lines = multihead.head_view_data(*args, query=query, heads=[1, 0], text_size=size)
    assert plain(data) == plain(want["data"])
    assert len(lines) == len(multihead.head_view_lines(weights, query, [1, 0]))
    shown = [t for t in data if t.get("mode") == "text"][0]["text"]  # the query column: its token in bold
    assert [i for i, text in enumerate(shown) if text.startswith("<b>")] == ([] if query is None else [query])
