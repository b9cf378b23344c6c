"""Saving and loading a model directory: `config.json`, `model.safetensors`, `spm.model`, and
optionally `decoding.json` (the beam size and length penalty chosen for these weights on the dev set).

Weights are stored with safetensors (never pickle). The three uses of the shared embedding matrix
are stored once, under `src_embed.lut.weight`. Every problem with a file raises `PretrainedError`,
whose message names the file and how to restore it.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, save_file

from transformer.config import TransformerConfig
from transformer.model import Transformer

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "spm.model"
DECODING_FILE = "decoding.json"
SNAPSHOT_DIR = "snapshots"  # weights from earlier training steps (the numbers model ships some)
RESTORE_HINT = (
    "restore the shipped files with `git checkout -- pretrained/` "
    "or retrain them with `make train` (see pretrained/MODEL_CARD.md)"
)
# Names under which the shared embedding matrix appears besides its stored name.
TIED_ALIASES = ("tgt_embed.lut.weight", "generator.weight")


class PretrainedError(RuntimeError):
    """A model directory is missing a file, or a file is unreadable or does not fit the model."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = Path(path)
        super().__init__(f"{path}: {problem}. To fix it, {RESTORE_HINT}.")


@dataclass(frozen=True)
class Decoding:
    """How a model's translations are searched for: beam size and length penalty α (§6.1: 4 and 0.6)."""

    beam_size: int = 4
    alpha: float = 0.6
    chosen_on: str = "the paper's values (§6.1)"

    def override(self, beam_size: int | None = None, alpha: float | None = None) -> Decoding:
        """These settings with whatever a caller gave explicitly (None: keep the model's)."""
        return replace(
            self, beam_size=self.beam_size if beam_size is None else beam_size,
            alpha=self.alpha if alpha is None else alpha,
        )  # fmt: skip


@dataclass(frozen=True)
class LoadedModel:
    """A ready model in eval mode, its tokenizer, an id that changes with the weights, and the
    decoding settings that go with them."""

    model: Transformer
    tokenizer: object  # transformer.tokenizer.Tokenizer (imported lazily: sentencepiece optional)
    model_id: str
    decoding: Decoding = field(default_factory=Decoding)


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def weights_state(model: Transformer) -> dict[str, torch.Tensor]:
    """The state dict with the tied embedding stored once, contiguous, on CPU."""
    state = model.state_dict()
    return {k: v.detach().cpu().contiguous() for k, v in state.items() if k not in TIED_ALIASES}


def save_model(model: Transformer, directory: str | Path, tokenizer_file: str | Path | None = None,
               half: bool = False):
    """Write config.json and model.safetensors (and copy the SentencePiece model if given). `half`
    stores the weights as float16, half the bytes on disk; loading computes in float32 either way."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model.config.save(directory / CONFIG_FILE)
    state = weights_state(model)
    save_file({k: v.half() if half else v for k, v in state.items()}, str(directory / WEIGHTS_FILE))
    if tokenizer_file is not None:
        data = Path(tokenizer_file).read_bytes()
        (directory / TOKENIZER_FILE).write_bytes(data)


def load_config(directory: str | Path) -> TransformerConfig:
    path = Path(directory) / CONFIG_FILE
    if not path.is_file():
        raise PretrainedError(path, "file is missing")
    try:
        return TransformerConfig.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError, UnicodeDecodeError) as err:
        raise PretrainedError(path, f"not a valid model config ({err})") from err


# DEVIATION: the paper chose beam 4 and α = 0.6 "after experimentation on the development set"
# (§6.1). We do the same for our weights: a model directory may say in decoding.json what its own dev
# sweep chose (the shipped model's sweep is in its model card). Without the file, the paper's values.
def load_decoding(directory: str | Path) -> Decoding:
    """The directory's `decoding.json`, or the paper's beam 4 and α = 0.6 when it has none."""
    path = Path(directory) / DECODING_FILE
    if not path.is_file():
        return Decoding()
    try:
        values = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise PretrainedError(path, f"not valid JSON ({err})") from err
    if not isinstance(values, dict) or set(values) - {"beam_size", "alpha", "chosen_on"}:
        raise PretrainedError(path, 'expected {"beam_size": int, "alpha": number, "chosen_on": text}')
    beam, alpha = values.get("beam_size", 4), values.get("alpha", 0.6)
    if isinstance(beam, bool) or not isinstance(beam, int) or not 1 <= beam <= 16:
        raise PretrainedError(path, f"beam_size must be a whole number from 1 to 16, not {beam!r}")
    number = isinstance(alpha, int | float) and not isinstance(alpha, bool)
    if not number or not (math.isfinite(alpha) and 0 <= alpha <= 5):
        raise PretrainedError(path, f"alpha must be a number from 0 to 5, not {alpha!r}")
    chosen_on = values.get("chosen_on", "")
    if not isinstance(chosen_on, str):
        raise PretrainedError(path, f"chosen_on must be text, not {chosen_on!r}")
    return Decoding(beam, float(alpha), chosen_on or "not stated")


def load_weights(model: Transformer, path: str | Path) -> None:
    """Load safetensors weights into `model`, checking every name and shape first."""
    path = Path(path)
    if not path.is_file():
        raise PretrainedError(path, "file is missing")
    try:
        state = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as err:
        raise PretrainedError(path, f"file is truncated or corrupt ({err})") from err
    expected = weights_state(model)
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise PretrainedError(
            path, f"weights do not match config.json (missing {missing[:3]}, unexpected {unexpected[:3]})"
        )
    for name, tensor in state.items():
        if tensor.shape != expected[name].shape:
            raise PretrainedError(
                path,
                f"{name} has shape {tuple(tensor.shape)}, config.json expects {tuple(expected[name].shape)}",
            )
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise PretrainedError(path, f"{name} contains NaN or infinite values")
    model.load_state_dict(state, strict=False)  # the tied aliases share the loaded matrix


def snapshot_steps(directory: str | Path) -> list[int]:
    """Training steps of the snapshots a model directory ships (`snapshots/step_N.safetensors`)."""
    steps = []
    for path in Path(directory, SNAPSHOT_DIR).glob("step_*.safetensors"):
        try:
            steps.append(int(path.stem.removeprefix("step_")))
        except ValueError:
            continue
    return sorted(steps)


def snapshot_file(directory: str | Path, step: int) -> Path:
    return Path(directory, SNAPSHOT_DIR, f"step_{step:07d}.safetensors")


def load_tokenizer(directory: Path) -> tuple[object, Path]:
    """The directory's tokenizer and the file it is named by: `spm.model` (ours), or Marian's
    `source.spm` + `target.spm` + `vocab.json` (an imported checkpoint, `transformer.import_marian`)."""
    from transformer.marian_tokenizer import VOCAB_FILE, MarianTokenizer
    from transformer.tokenizer import Tokenizer

    marian = (directory / VOCAB_FILE).is_file() and not (directory / TOKENIZER_FILE).is_file()
    path = directory / (VOCAB_FILE if marian else TOKENIZER_FILE)
    try:
        return (MarianTokenizer.load(directory) if marian else Tokenizer.load(path)), path
    except (OSError, ValueError, RuntimeError) as err:
        raise PretrainedError(path, f"tokenizer cannot be loaded ({err})") from err


def load_pretrained(
    directory: str | Path, device: str | torch.device = "cpu", snapshot: int | None = None
) -> LoadedModel:
    """Build the model from `directory` on `device`, in eval mode, with its tokenizer; with
    `snapshot`, the weights that directory kept from that training step instead of the final ones."""
    directory = Path(directory)
    config = load_config(directory)
    decoding = load_decoding(directory)
    model = Transformer(config)
    weights = directory / WEIGHTS_FILE if snapshot is None else snapshot_file(directory, snapshot)
    load_weights(model, weights)
    tokenizer, spm_path = load_tokenizer(directory)
    if tokenizer.vocab_size != config.vocab_size:
        raise PretrainedError(
            spm_path,
            f"tokenizer has {tokenizer.vocab_size} pieces but config.json says {config.vocab_size}",
        )
    model.to(device).eval()
    return LoadedModel(model, tokenizer, file_sha256(weights)[:16], decoding)
