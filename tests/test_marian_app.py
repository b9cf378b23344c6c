"""Every page of the app on a Marian checkpoint of opus-mt-en-de's full size (d_model 512, 6 + 6 layers,
a 58,101-entry vocabulary, SiLU, half-split positions), with random weights (`tools/random_marian.py`):
no exception, no error, and the pages say what this model uses. The folder is found the way a user's
imported model is: through ATLAS_MODEL_DIRS, listed in the sidebar's model picker."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from charts import page_charts
from server import ROOT, discover_pages
from streamlit.testing.v1 import AppTest

from transformer import decoding
from viz import layers as layer_viz

pytestmark = pytest.mark.timeout(900)
PAGES = discover_pages()
NAME = "opus-mt-random"


def _random_marian():
    spec = importlib.util.spec_from_file_location("random_marian", ROOT / "tools" / "random_marian.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _forget_ui() -> dict:
    names = [m for m in sys.modules if m == "ui" or m.startswith("ui.")]
    return {name: sys.modules.pop(name) for name in names}


@pytest.fixture(scope="module")
def marian_app(tmp_path_factory):
    """The random full-size model in a folder named by ATLAS_MODEL_DIRS; fresh ui modules read it.
    Decoding is capped at a few tokens (a random model never says </s>; the pages do not depend on the
    length), and the original ui modules and caches are put back afterwards."""
    folder = tmp_path_factory.mktemp("models")
    _random_marian().build(folder / NAME)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ATLAS_MODEL_DIRS", str(folder))
        mp.setattr(decoding, "default_max_len", lambda model, src_len: min(6, src_len + 50))
        saved = _forget_ui()
        st.cache_resource.clear()
        st.cache_data.clear()
        try:
            yield folder / NAME
        finally:
            _forget_ui()
            sys.modules.update(saved)
            st.cache_resource.clear()
            st.cache_data.clear()


def run_page(script, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / script), default_timeout=600)
    at.query_params["model"] = NAME
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def texts(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "latex", "text") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("app_page", PAGES, ids=[p.name for p in PAGES])
def test_every_page_renders_on_a_full_size_marian_model(marian_app, app_page):
    at = run_page(app_page.script)
    said = texts(at)
    name = Path(app_page.script).name
    if name == "app.py":
        picker = next(s for s in at.selectbox if s.label == "Model")
        assert picker.value == NAME  # the model the link names
        assert picker.options[-1] == "Random Marian model (opus-mt-en-de size)"  # its card's title
        assert picker.options[0] == "English → German (general)" and len(picker.options) == 3
    if name == "Encoder_layer.py":
        assert "applies **SiLU**" in said and "d_ff = 2048" in said and "d_model = 512" in said
        assert "applies ReLU" not in said
    if name == "Positional_encoding.py":
        assert "Marian's layout" in said and "256 + i" in said
        assert "Dimensions 0 to 255 are sines" in said
    if name == "Attention_step_by_step.py":
        assert "d_k = 64" in said
    if name in ("Attention_step_by_step.py", "Multi_head_attention.py", "Decoder_and_generation.py"):
        assert page_charts(at), "no figure drawn"


def test_the_shipped_models_pages_still_say_relu_and_interleaved():
    """The control: without the Marian choice, the same pages describe the paper's choices."""
    at = AppTest.from_file(str(ROOT / "pages" / "Positional_encoding.py"), default_timeout=600)
    at.run()
    assert not at.exception and "Marian's layout" not in texts(at)
    assert "Even dimensions are sines" in texts(at)


def test_model_folders_are_discovered_under_pretrained_and_in_atlas_model_dirs(tmp_path):
    from ui.frame import SHIPPED_MODELS, discover_models

    base, extra, single = tmp_path / "pretrained", tmp_path / "more", tmp_path / "one model"
    for d in (base / "numbers", base / "opus-mt-en-de", base / "notes", extra / "opus-mt-en-fr", single):
        d.mkdir(parents=True)
    for d in (base / "numbers", base / "opus-mt-en-de", extra / "opus-mt-en-fr", single):
        (d / "config.json").write_text("{}")
    (base / "opus-mt-en-de" / "MODEL_CARD.md").write_text("# opus-mt-en-de (imported)\n\nText.\n")
    models = discover_models(base, f"{extra}:{single}:{tmp_path / 'missing'}")
    assert list(models)[:2] == list(SHIPPED_MODELS)
    assert models["opus-mt-en-de"] == ("opus-mt-en-de (imported)", base / "opus-mt-en-de")
    assert models["opus-mt-en-fr"] == ("opus-mt-en-fr", extra / "opus-mt-en-fr")
    assert models["one-model"] == ("one model", single)  # a link-safe name
    assert "notes" not in models  # no config.json: not a model


def test_silu_hidden_units_are_drawn_with_their_negative_values():
    hidden = np.array([[-0.2, 0.0, 1.5, 2.0], [-0.1, -0.27, 0.3, 0.0]])
    np.testing.assert_allclose(layer_viz.ffn_zero_fraction(hidden, "silu"), [0.5, 0.75])
    fig = layer_viz.ffn_hidden_figure(hidden, ["a", "b"], "t", activation="silu")
    assert fig.data[0].zmin == pytest.approx(-0.27) and "SiLU" in fig.layout.annotations[0].text
    with pytest.raises(ValueError, match="ReLU"):
        layer_viz.ffn_hidden_figure(hidden, ["a", "b"], "t")  # negative values are no ReLU output
