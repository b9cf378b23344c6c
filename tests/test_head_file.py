"""Head statistics shipped beside the weights (analysis.head_file, training/head_stats.py).

The shipped files must be those of the shipped weights and equal what the app computes fresh; a
missing, stale or broken file must make the app compute, never break it. After new weights are
shipped, `make head-stats` regenerates the files (this test says so when they are stale).
"""

from __future__ import annotations

import shutil

import pytest
import torch

from analysis import head_file
from analysis.heads import ATTENTIONS, STATISTICS
from training.head_stats import sentence_set
from ui import inspector
from ui import model as model_io
from ui.frame import MODELS

REGENERATE = (
    "stale or missing: run `make head-stats` (python -m training.head_stats pretrained pretrained/numbers)"  # noqa: E501
)


def _loaded(name: str):
    return model_io._load(str(MODELS[name][1]), model_io.DEVICE)


def _assert_same(a, b, where: str) -> None:
    for attention in ATTENTIONS:
        for statistic in STATISTICS:
            for part in (0, 1):
                torch.testing.assert_close(
                    a[attention][statistic][part],
                    b[attention][statistic][part],
                    rtol=1e-5,
                    atol=1e-6,
                    equal_nan=True,
                    msg=lambda m, a=attention, s=statistic: f"{where} {a} {s}: {m}",
                )


@pytest.mark.parametrize("name", ["translation", "numbers"])
def test_shipped_statistics_match_a_fresh_computation(name):
    lm = _loaded(name)
    directory = MODELS[name][1]
    shipped = head_file.load(directory / head_file.FILE, lm.model_id)
    assert shipped is not None, f"{directory / head_file.FILE}: {REGENERATE}"
    expected = sentence_set(directory)
    assert set(shipped) == set(expected), REGENERATE
    for sentence in (expected[0], expected[len(expected) // 2], expected[-1]):
        fresh = inspector._sentence_statistics(lm.model_id, sentence)  # the app's own computation
        _assert_same(shipped[sentence], fresh, sentence)


def test_the_inspector_reads_the_file_and_computes_without_it(monkeypatch):
    lm = _loaded("translation")
    sentences = tuple(sentence_set(MODELS["translation"][1])[:2]) + ("A sentence of the reader's own.",)
    with_file = inspector.statistics(lm.model_id, sentences)
    assert set(inspector.shipped(lm.model_id)) >= set(sentences[:2])
    monkeypatch.setattr(inspector, "shipped", lambda model_id: {})  # as if no file were shipped
    without = inspector.statistics(lm.model_id, sentences)
    assert with_file.sentences == without.sentences == list(sentences)
    for attention in ATTENTIONS:
        for statistic in STATISTICS:
            torch.testing.assert_close(
                with_file.mean(attention, statistic),
                without.mean(attention, statistic),
                rtol=1e-5,
                atol=1e-6,
                equal_nan=True,
            )


def test_a_stale_missing_or_broken_file_is_not_used(tmp_path):
    lm = _loaded("translation")
    source = MODELS["translation"][1] / head_file.FILE
    copy = tmp_path / head_file.FILE
    shutil.copy(source, copy)
    assert head_file.load(copy, lm.model_id) is not None
    assert head_file.load(copy, "other-weights") is None  # made for other weights
    assert head_file.load(tmp_path / "missing.safetensors", lm.model_id) is None
    copy.write_bytes(copy.read_bytes()[:1000])  # cut short
    assert head_file.load(copy, lm.model_id) is None


def test_save_and_load_round_trip(tmp_path):
    lm = _loaded("numbers")
    sentences = ["forty-two", "at half past three"]
    results = [inspector._sentence_statistics(lm.model_id, s) for s in sentences]
    path = tmp_path / head_file.FILE
    head_file.save(path, lm.model_id, sentences, results)
    loaded = head_file.load(path, lm.model_id)
    assert list(loaded) == sentences
    for sentence, result in zip(sentences, results, strict=True):
        _assert_same(loaded[sentence], result, sentence)
    with pytest.raises(ValueError):
        head_file.save(path, lm.model_id, sentences, results[:1])
