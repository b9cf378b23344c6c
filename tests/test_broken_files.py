"""Broken files in the model directory: one clear error naming the file and the fix, no traceback.

A copy of pretrained/ is damaged one way per case (a file deleted, truncated, overwritten with
random bytes, a config that does not parse or does not fit the weights, a corrupt tokenizer), the
app is pointed at it with ATLAS_MODEL_DIR, and every page must show exactly one st.error that names
the damaged file and says how to restore it (`git checkout -- pretrained/`), with no exception.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import streamlit as st
from server import ROOT, discover_pages
from streamlit.testing.v1 import AppTest

pytestmark = pytest.mark.timeout(600)

SHIPPED = ROOT / "pretrained"
CONFIG, WEIGHTS, TOKENIZER = "config.json", "model.safetensors", "spm.model"
RESTORE = "git checkout -- pretrained/"
PAGES = discover_pages()


def _delete(name: str) -> Callable[[Path], None]:
    return lambda d: (d / name).unlink()


def _truncate(name: str, keep: float) -> Callable[[Path], None]:
    def damage(d: Path) -> None:
        data = (d / name).read_bytes()
        (d / name).write_bytes(data[: int(len(data) * keep)])

    return damage


def _random_bytes(name: str, size: int | None = None) -> Callable[[Path], None]:
    def damage(d: Path) -> None:
        n = size if size is not None else (d / name).stat().st_size
        (d / name).write_bytes(random.Random(1234).randbytes(n))

    return damage


def _write(name: str, text: str) -> Callable[[Path], None]:
    return lambda d: (d / name).write_text(text, encoding="utf-8")


def _edit_config(**changes) -> Callable[[Path], None]:
    def damage(d: Path) -> None:
        config = json.loads((d / CONFIG).read_text(encoding="utf-8"))
        config.update(changes)
        (d / CONFIG).write_text(json.dumps(config), encoding="utf-8")

    return damage


def _flip_header_length(d: Path) -> None:
    """A safetensors file whose 8-byte header length points past the end of the file."""
    data = bytearray((d / WEIGHTS).read_bytes())
    data[:8] = (len(data) * 4).to_bytes(8, "little")
    (d / WEIGHTS).write_bytes(bytes(data))


def _double_d_model(d: Path) -> None:
    config = json.loads((d / CONFIG).read_text(encoding="utf-8"))
    _edit_config(d_model=config["d_model"] * 2, d_ff=config["d_ff"] * 2)(d)


def _remove_dir(d: Path) -> None:
    shutil.rmtree(d)


# (id, damage, files the error may name: the one broken, or for a mismatch either side of it)
CASES = [
    ("delete-config", _delete(CONFIG), (CONFIG,)),
    ("delete-weights", _delete(WEIGHTS), (WEIGHTS,)),
    ("delete-tokenizer", _delete(TOKENIZER), (TOKENIZER,)),
    ("truncate-weights-half", _truncate(WEIGHTS, 0.5), (WEIGHTS,)),
    ("truncate-weights-header", _truncate(WEIGHTS, 0.0001), (WEIGHTS,)),
    ("empty-weights", _truncate(WEIGHTS, 0.0), (WEIGHTS,)),
    ("random-weights", _random_bytes(WEIGHTS), (WEIGHTS,)),
    ("weights-bad-header-length", _flip_header_length, (WEIGHTS,)),
    ("config-not-json", _write(CONFIG, "{not json at all"), (CONFIG,)),
    ("config-empty", _write(CONFIG, ""), (CONFIG,)),
    ("config-a-list", _write(CONFIG, "[1, 2, 3]"), (CONFIG,)),
    ("config-wrong-type", _edit_config(n_heads="eight"), (CONFIG,)),
    ("config-impossible", _edit_config(d_model=130), (CONFIG,)),  # 130 is not divisible by 8 heads
    ("config-random-bytes", _random_bytes(CONFIG, 300), (CONFIG,)),
    ("mismatch-d_model", _double_d_model, (CONFIG, WEIGHTS)),
    ("mismatch-layers", _edit_config(n_layers=5), (CONFIG, WEIGHTS)),
    ("mismatch-vocab", _edit_config(vocab_size=1234), (CONFIG, WEIGHTS, TOKENIZER)),
    ("tokenizer-random-bytes", _random_bytes(TOKENIZER), (TOKENIZER,)),
    ("tokenizer-truncated", _truncate(TOKENIZER, 0.3), (TOKENIZER,)),
    ("tokenizer-empty", _truncate(TOKENIZER, 0.0), (TOKENIZER,)),
    ("tokenizer-is-text", _write(TOKENIZER, "this is not a sentencepiece model\n"), (TOKENIZER,)),
    ("decoding-not-json", _write("decoding.json", '{"alpha": 0.6,'), ("decoding.json",)),
    ("decoding-impossible", _write("decoding.json", '{"beam_size": 0}'), ("decoding.json",)),
    ("directory-missing", _remove_dir, (CONFIG,)),
]


@pytest.fixture
def model_dir(tmp_path, monkeypatch):
    """A damaged copy of pretrained/ that the app will load (fresh ui modules read the env var)."""
    target = tmp_path / "pretrained"
    shutil.copytree(SHIPPED, target)
    monkeypatch.setenv("ATLAS_MODEL_DIR", str(target))
    # ui.model reads ATLAS_MODEL_DIR when it is imported: make the app import ui afresh, and put the
    # original modules back afterwards so other tests see the shipped model.
    saved = _forget_ui()
    st.cache_resource.clear()
    st.cache_data.clear()
    try:
        yield target
    finally:
        _forget_ui()
        sys.modules.update(saved)
        st.cache_resource.clear()
        st.cache_data.clear()


def _forget_ui() -> dict:
    names = [m for m in sys.modules if m == "ui" or m.startswith("ui.")]
    return {name: sys.modules.pop(name) for name in names}


def run_app(script: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / script), default_timeout=300)
    at.run()
    return at


def assert_one_clear_error(at: AppTest, names: tuple[str, ...], what: str) -> None:
    assert not at.exception, f"{what}: exception instead of a message: {[e.message for e in at.exception]}"
    errors = [e.value for e in at.error]
    assert len(errors) == 1, f"{what}: expected one error, got {errors}"
    text = errors[0]
    assert any(name in text for name in names), f"{what}: the error does not name {names}: {text}"
    assert RESTORE in text, f"{what}: the error does not say how to restore the files: {text}"
    assert "Traceback" not in text, f"{what}: traceback in the message"


def test_shipped_directory_loads(monkeypatch):
    """The control case: the same procedure on an undamaged copy gives no error at all."""
    monkeypatch.setenv("ATLAS_MODEL_DIR", str(SHIPPED))
    at = run_app("app.py")
    assert not at.exception and not at.error, [e.value for e in at.error]


def test_env_var_reaches_the_app(model_dir):
    """Guards the mechanism: the fresh ui.model really reads the damaged copy, not pretrained/."""
    (model_dir / CONFIG).unlink()
    at = run_app("app.py")
    assert str(model_dir) in at.error[0].value, [e.value for e in at.error]


def test_missing_model_card_is_named_on_the_home_page(model_dir):
    """The card is documentation, not needed to run: the home page works and says how to restore it."""
    (model_dir / "MODEL_CARD.md").unlink()
    at = run_app("app.py")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.text, "no translation shown"
    note = at.expander[0].markdown[0].value
    assert "MODEL_CARD.md" in note and "git checkout pretrained/" in note, note


def test_a_valid_decoding_json_sets_the_beam_the_home_page_names(model_dir):
    """Not damage: the control for the decoding.json cases. The home page says which α it searched with."""
    (model_dir / "decoding.json").write_text('{"beam_size": 3, "alpha": 1.7}', encoding="utf-8")
    at = run_app("app.py")
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = [m.value for m in at.markdown if m.value.startswith("**Beam search**")]
    assert labels and "beam 3, length penalty α = 1.7" in labels[0], labels
    assert "paper's: 4 and 0.6" in labels[0], labels


@pytest.mark.parametrize(("case", "damage", "names"), CASES, ids=[c[0] for c in CASES])
def test_home_page_names_the_broken_file(model_dir, case, damage, names):
    damage(model_dir)
    at = run_app("app.py")
    assert_one_clear_error(at, names, case)


@pytest.mark.parametrize("app_page", PAGES[1:], ids=[p.name for p in PAGES[1:]])
@pytest.mark.parametrize(
    ("case", "damage", "names"), [CASES[1], CASES[6], CASES[14]], ids=[CASES[1][0], CASES[6][0], CASES[14][0]]
)
def test_every_page_names_the_broken_file(model_dir, app_page, case, damage, names):
    damage(model_dir)
    at = run_app(app_page.script)
    assert_one_clear_error(at, names, f"{app_page.script}, {case}")


def test_nothing_was_written_to_the_shipped_directory():
    """The damage happened to copies only."""
    assert {p.name for p in SHIPPED.iterdir()} >= {CONFIG, WEIGHTS, TOKENIZER}
    assert os.environ.get("ATLAS_MODEL_DIR") in (None, str(SHIPPED))
    frame = sys.modules.get("ui.frame")  # where the app reads ATLAS_MODEL_DIR
    assert frame is None or Path(frame.MODEL_DIR).resolve() == SHIPPED.resolve(), frame.MODEL_DIR


@pytest.mark.parametrize(
    ("damage", "params", "names"),
    [
        (_truncate("numbers/" + WEIGHTS, 0.5), {"model": "numbers"}, ("numbers/" + WEIGHTS,)),
        (_delete("numbers/" + TOKENIZER), {"model": "numbers"}, ("numbers/" + TOKENIZER,)),
        (_random_bytes("numbers/snapshots/step_0000050.safetensors"), {"model": "numbers", "snapshot": "50"},
         ("step_0000050.safetensors",)),
    ],
    ids=["numbers-weights", "numbers-tokenizer", "numbers-snapshot"],
)
def test_a_broken_numbers_model_is_named_too(model_dir, damage, params, names):
    damage(model_dir)
    at = AppTest.from_file(str(ROOT / "pages" / "Decoder_and_generation.py"), default_timeout=300)
    at.query_params.update({"s": "forty-two", **params})
    at.run()
    assert_one_clear_error(at, names, f"numbers model, {params}")
