"""training.send_weights: a GPU run's weights come back in parts a returned file can hold (16 MiB each),
and are joined into the same model here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from training import send_weights
from transformer import Transformer, TransformerConfig
from transformer.pretrained import load_pretrained, load_weights, weights_state

RETURNED_FILE = 16 * 2**20  # the most a file sent back from the GPU machine may hold


def _folder_with_config(path, config: TransformerConfig):
    path.mkdir(parents=True, exist_ok=True)
    config.save(path / "config.json")
    return path


def test_parts_join_into_the_same_weights(tmp_path, tiny_config, tiny_model):
    state = weights_state(tiny_model)  # as a snapshot holds them: the tied matrix once
    sent = _folder_with_config(tmp_path / "sent", tiny_config)
    limit = sum(v.numel() for v in state.values()) * 2 // 3  # float16 bytes of a third, then some
    parts = send_weights.split(state, sent, limit=limit)
    assert len(parts) >= 3 and [p.name for p in parts][:3] == [f"weights-{c}.safetensors" for c in "abc"]
    joined = send_weights.join(sent, tmp_path / "model", spm=_any_tokenizer())
    model = Transformer(tiny_config)
    load_weights(model, joined / "model.safetensors")
    for name, value in weights_state(model).items():
        torch.testing.assert_close(value, state[name].half().float(), rtol=0, atol=0)


def test_a_tensor_larger_than_a_part_is_refused(tmp_path):
    with pytest.raises(ValueError, match="cannot fit"):
        send_weights.split({"big": torch.zeros(1000)}, tmp_path, limit=1000)


@pytest.mark.parametrize("vocab_size, parts", [(16_000, 2), (32_000, 3)])
def test_the_wide_models_parts_each_fit_in_a_returned_file(tmp_path, vocab_size, parts):
    """The shipped size (16,000 pieces) and the 32,000-piece tokenizer planned for a run from scratch."""
    shipped = json.loads(open("pretrained/config.json", encoding="utf-8").read())
    config = TransformerConfig(**{**shipped, "vocab_size": vocab_size})
    paths = send_weights.split(weights_state(Transformer(config)), tmp_path)
    assert len(paths) == parts
    assert all(p.stat().st_size < RETURNED_FILE for p in paths), [p.stat().st_size for p in paths]


def test_the_shipped_weights_survive_a_round_trip(tmp_path):
    lm = load_pretrained("pretrained")
    sent = _folder_with_config(tmp_path / "sent", lm.model.config)
    send_weights.split(weights_state(lm.model), sent)
    joined = load_pretrained(send_weights.join(sent, tmp_path / "model", spm=_any_tokenizer()))
    for (name, a), b in zip(lm.model.state_dict().items(), joined.model.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, msg=name)  # the shipped weights are float16 values


def _any_tokenizer() -> Path:
    return Path("pretrained/spm.model")  # join copies it; the weights do not depend on it
