"""AppTest for the head inspector and the worked examples, with the shipped pretrained/ model.

The shipped weights may be a placeholder or a trained model, so nothing here depends on what the model
outputs: only on structure and on relations (before/after, edited/not edited).
"""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest
import torch
from charts import page_charts
from streamlit.testing.v1 import AppTest

from analysis import heads, worked
from ui import experiments, inspector, uniform
from ui import model as model_io
from ui.predict import SCORE_KEY, score_guess
from ui.state import DEFAULT_SENTENCE

HEAD_INSPECTOR = "../pages/Head_inspector.py"
WORKED = "../pages/Worked_examples.py"
TIMEOUT = 60
pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py: one PyTorch thread


def _run(path: str) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT).run()
    _no_exception(at)
    return at


def _no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def _figure(at: AppTest, key: str) -> dict:
    """The Plotly figure rendered with `key`, as JSON."""
    for chart in page_charts(at):
        if chart.proto.id.endswith(f"-{key}"):
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart with key {key!r}")


def _array(values) -> np.ndarray:
    if isinstance(values, dict):  # Plotly's base64 encoding of numeric arrays
        data = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
        return data.reshape([int(s) for s in str(values.get("shape", len(data))).split(",")])
    return np.asarray(values, dtype=float)


def test_head_inspector_renders_every_section():
    at = _run(HEAD_INSPECTOR)
    head_map = _figure(at, "hi_map")
    z = _array(head_map["data"][0]["z"])
    assert z.shape == (6, 8)  # layers × heads of the shipped model
    assert head_map["data"][0]["y"][0] == "layer 1"  # numbered as the sidebar says (1-based default)
    assert "1-based" in head_map["layout"]["title"]["text"]
    for key in ("hi_typical", "hi_rollout", "hi_compare_fig_a", "hi_compare_fig_b", "hi_difference",
                "hi_probs"):
        assert _figure(at, key)["data"], key
    typical = _figure(at, "hi_typical")
    assert typical["layout"]["yaxis"]["autorange"] == "reversed"
    assert "rows = queries" in typical["layout"]["title"]["text"]
    rollout = _figure(at, "hi_rollout")  # raw head, mean over heads, rollout (encoder self by default)
    assert len(rollout["data"]) == 3
    for trace in rollout["data"]:
        np.testing.assert_allclose(_array(trace["z"]).sum(-1), 1.0, atol=1e-5)
    assert at.get("download_button")  # export buttons under the figures

    # compare: changing sentence B changes the matched tokens of the difference map
    before = _figure(at, "hi_difference")["data"][0]["y"]
    at.text_input(key="hi_compare_b").input("The animal didn't cross the road.").run()
    _no_exception(at)
    after = _figure(at, "hi_difference")["data"][0]["y"]
    assert before != after
    assert all("|" in label for label in after)  # 'position in A|position in B:piece'


def _page_trace(sentence: str = DEFAULT_SENTENCE):
    """The very trace the head inspector reads (the same cached object: AppTest runs in this process): the
    decoder reads the default decoder input, the beam translation Home shows."""
    return inspector.attention_trace(model_io.loaded().model_id, sentence, ("beam", ""))


def _sliders(at: AppTest) -> tuple[int, int]:
    return at.slider(key="atlas_layer").value, at.slider(key="atlas_head").value


def test_head_inspector_opens_on_the_sentences_most_focused_head():
    layer, head = heads.most_focused(_page_trace(), "encoder", "self")
    at = _run(HEAD_INSPECTOR)
    assert _sliders(at) == (layer + 1, head + 1)  # 1-based
    assert (at.query_params["layer"], at.query_params["head"]) == (str(layer + 1), str(head + 1))
    caption = next(c.value for c in at.caption if "the paper's choice" in c.value)
    assert caption.startswith(f"Layer 5 is the paper's choice; this sentence's most focused head is layer "
                              f"{layer + 1}, head {head + 1} ") and "opens there" in caption
    # Moving the head keeps the layer on screen: both are the reader's choice from now on.
    other = 2 if head + 1 != 2 else 3
    at.slider(key="atlas_head").set_value(other).run()
    _no_exception(at)
    assert _sliders(at) == (layer + 1, other)
    assert at.session_state["atlas_selection"].chosen == {"layer", "head"}


def test_head_inspector_keeps_the_layer_and_head_a_link_names():
    at = AppTest.from_file(HEAD_INSPECTOR, default_timeout=TIMEOUT)
    at.query_params.update({"layer": "3", "head": "2"})
    at.run()
    _no_exception(at)
    assert _sliders(at) == (3, 2)
    captions = " ".join(c.value for c in at.caption)
    assert "Showing the layer and head that you (or your link) picked" in captions

    at = AppTest.from_file(HEAD_INSPECTOR, default_timeout=TIMEOUT)
    at.query_params["layer"] = "6"  # the layer only: its most focused head
    at.run()
    _no_exception(at)
    trace = _page_trace()
    best = uniform.heads_by_focus(trace, "encoder", "self", 5)[0]
    assert _sliders(at) == (6, best + 1)
    note = uniform.note_text(trace, "encoder", "self", 5, best)
    assert note is None or note in [i.value for i in at.info]  # even the best head of layer 6 may be flat


def _stats(rows_per_sentence: dict[tuple[str, str], list[int]]) -> heads.HeadStatistics:
    """Head statistics (2 layers, 3 heads) holding only each sentence's number of query rows."""
    counts = {
        attention: {"entropy": torch.tensor(rows, dtype=torch.float64)[:, None, None].expand(-1, 2, 3)}
        for attention, rows in rows_per_sentence.items()
    }
    return heads.HeadStatistics(["a", "b"], {}, counts)


def test_entropy_map_runs_from_0_to_ln_of_the_longest_row():
    stats = _stats({("encoder", "self"): [5, 9], ("decoder", "self"): [4, 12]})
    spread = torch.tensor([[0.5, 1.0, 2.0], [0.1, 1.5, 2.1]])
    scale = inspector.map_scale(stats, ("encoder", "self"), "entropy", spread)
    assert (scale.zmin, scale.zmax) == (0.0, pytest.approx(math.log(9)))
    assert "ln 9" in scale.note and "equal" not in scale.note

    def top(attention, statistic):
        return inspector.map_scale(stats, attention, statistic, spread).zmax

    assert top(("decoder", "cross"), "entropy") == pytest.approx(math.log(9))  # keys: the source
    assert top(("decoder", "self"), "entropy") == pytest.approx(math.log(12))
    assert top(("encoder", "self"), "previous") == 1.0
    fitted = inspector.map_scale(stats, ("encoder", "self"), "distance", spread)
    assert (fitted.zmin, fitted.zmax) == (None, None)


def test_identical_heads_are_called_equal():
    stats = _stats({("encoder", "self"): [5, 9]})
    same = torch.full((2, 3), 2.5061)
    same[1, 2] = 2.5069  # 2.506…2.507: fitted to the values, these would span the whole colour scale
    scale = inspector.map_scale(stats, ("encoder", "self"), "entropy", same)
    assert scale.note.startswith("All heads equal: 2.506") and scale.zmax == pytest.approx(math.log(9))
    same[0, 0] = float("nan")  # undefined cells do not count
    assert "All heads equal" in inspector.map_scale(stats, ("encoder", "self"), "distance", same).note
    same[0, 1] = 2.6
    assert "equal" not in inspector.map_scale(stats, ("encoder", "self"), "entropy", same).note


def test_head_map_of_identical_heads_on_the_page(monkeypatch):
    """The page draws the entropy map on 0…ln T and says when every head has the same value."""
    monkeypatch.setattr(
        heads.HeadStatistics,
        "mean",
        lambda self, attention, name: torch.full((6, 8), 2.5064, dtype=torch.float64),
    )
    at = _run(HEAD_INSPECTOR)
    head_map = _figure(at, "hi_map")["data"][0]
    assert head_map["zmin"] == 0.0
    n_keys = math.exp(head_map["zmax"])
    assert n_keys == pytest.approx(round(n_keys)) and round(n_keys) >= 5  # ln T for a whole number T
    captions = [c.value for c in at.caption if "All heads equal" in c.value]
    assert captions and "2.506" in captions[0] and f"ln {round(n_keys)}" in captions[0]


def test_switching_heads_off_changes_the_probabilities():
    at = _run(HEAD_INSPECTOR)
    bars = _figure(at, "hi_probs")["data"]
    np.testing.assert_array_equal(_array(bars[0]["y"]), _array(bars[1]["y"]))  # nothing switched off yet
    assert not at.metric[0].delta  # no "+0.000" that would read as a result: a note instead
    assert experiments.NOTHING_OFF in [c.value for c in at.caption]
    picker = at.multiselect(key="hi_ablate")
    assert "decoder cross · layer 6 · head 1" in picker.options  # labels numbered as the sidebar says
    for head in range(8):
        picker.select(f"decoder.cross.5.{head}")  # the codes a link stores: 0-based
    at.run()
    _no_exception(at)
    bars = _figure(at, "hi_probs")["data"]
    assert [b["name"] for b in bars] == ["all heads on", "chosen heads off"]
    assert not np.allclose(_array(bars[0]["y"]), _array(bars[1]["y"]))
    assert at.metric[0].delta.endswith(" vs all heads on") and at.metric[0].delta != "+0.000 vs all heads on"
    assert experiments.NOTHING_OFF not in [c.value for c in at.caption]


def test_predict_then_reveal_scores_once_per_question():
    at = _run(HEAD_INSPECTOR)
    assert not any(c.proto.id.endswith("-hi_predict_figure") for c in at.get("plotly_chart"))  # hidden
    at.selectbox(key="hi_predict_query").select_index(1)
    at.selectbox(key="hi_predict_guess").select_index(0)
    at.run()
    at.button(key="hi_predict_reveal").click().run()
    _no_exception(at)
    reveal = _figure(at, "hi_predict_figure")
    weights = _array(reveal["data"][0]["y"])
    right, _ = score_guess(weights, 0)
    assert at.session_state[SCORE_KEY] == {"right": int(right), "tried": 1}
    at.run()  # a rerun must not count the same question again
    assert at.session_state[SCORE_KEY]["tried"] == 1
    at.selectbox(key="hi_predict_query").select_index(0).run()  # another query: hidden again
    assert not any(c.proto.id.endswith("-hi_predict_figure") for c in at.get("plotly_chart"))


def test_score_guess_ties_and_misses():
    assert score_guess([0.1, 0.7, 0.2], 1) == (True, 1)
    assert score_guess([0.1, 0.7, 0.2], 2) == (False, 1)
    assert score_guess([0.5, 0.5], 1) == (True, 0)  # equal weights: either answer is right


@pytest.mark.parametrize("path, key", [(HEAD_INSPECTOR, "hi_map"), (WORKED, "wk_steps")])
def test_presenter_mode_and_palette(path, key):
    at = _run(path)
    default_scale = _figure(at, key)["data"][0]["colorscale"]
    assert at.get("download_button")
    at.toggle(key="atlas_presenter").set_value(True).run()
    _no_exception(at)
    assert not at.get("download_button")  # fewer controls on a projected screen
    assert _figure(at, key)["data"]  # the figures stay
    at.radio(key="atlas_palette").set_value("colour-blind safe").run()
    _no_exception(at)
    assert _figure(at, key)["data"][0]["colorscale"] != default_scale


def test_numbering_toggle_relabels_the_head_map():
    at = _run(HEAD_INSPECTOR)
    at.toggle(key="atlas_one_based").set_value(False).run()
    _no_exception(at)
    head_map = _figure(at, "hi_map")
    assert head_map["data"][0]["y"][0] == "layer 0" and head_map["data"][0]["x"][0] == "head 0"
    assert "0-based" in head_map["layout"]["title"]["text"]


def test_worked_examples_follow_edits():
    at = _run(WORKED)
    steps = _figure(at, "wk_steps")["data"]
    np.testing.assert_allclose(_array(steps[3]["z"]), [[2.66, 3.66], [3.34, 4.34]], atol=0.005)
    at.text_area(key="wk_v").input("1 0\n0 1").run()
    _no_exception(at)
    expected = worked.attention_steps(worked.SEED_Q, worked.SEED_K, [[1, 0], [0, 1]]).output
    np.testing.assert_allclose(_array(_figure(at, "wk_steps")["data"][3]["z"]), expected.numpy(), atol=1e-6)
    at.text_area(key="wk_q").input("1 0 0\n0 1 0").run()  # d_k no longer matches K
    _no_exception(at)
    assert any("d_k" in e.value for e in at.error)
    at.button(key="wk_reset").click().run()
    assert at.text_area(key="wk_q").value == "1 0\n0 1"
    assert not at.error
    at.text_input(key="wk_ln").input("1 2 3").run()
    table = next(d.value for d in at.dataframe if list(d.value.columns) == ["step", "value"])
    assert table["value"].iloc[0] == "2.0000"  # mean of 1, 2, 3
    at.select_slider(key="wk_d").set_value(64).run()
    cost = _figure(at, "wk_cost")
    assert "d = 64" in cost["layout"]["title"]["text"]
