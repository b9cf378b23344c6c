"""Import a Marian (OPUS-MT) checkpoint into the project's format: the paper's architecture, trained
elsewhere, shown by every page of the app.

    python -m transformer.import_marian SRC_DIR --out pretrained/opus-mt-en-de

SRC_DIR is a local copy of a Hugging Face `MarianMTModel` folder (e.g. `huggingface-cli download
Helsinki-NLP/opus-mt-en-de --local-dir SRC_DIR`, on a machine with internet): `config.json`,
`model.safetensors` (or `pytorch_model.bin`, read with `torch.load(weights_only=True)`: tensors only,
never code), `source.spm`, `target.spm` and `vocab.json`. Nothing is downloaded and `transformers` is
not needed. The output folder holds `config.json`, `model.safetensors`, the three tokenizer files, a
generated `MODEL_CARD.md` naming the source and its licence, and the source's own card if it had one.

These checkpoints are the paper's post-LayerNorm encoder-decoder (§3) with four differences, each a
config option of `TransformerConfig`: SiLU in the FFN (Marian's "swish"), sines and cosines in two
halves of the positional encoding, a bias on the output logits, and a decoder that starts from
`<pad>`. Anything else (pre-LayerNorm, learned positions, an embedding LayerNorm, separate source and
target vocabularies, untied output weights) is refused with a message that says what differs.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import torch

from transformer.config import TransformerConfig
from transformer.embeddings import sinusoidal_encoding
from transformer.marian_tokenizer import FILES, MarianTokenizer
from transformer.model import Transformer
from transformer.pretrained import WEIGHTS_FILE, file_sha256, save_model, weights_state

HOW_TO_GET = (
    "download the whole model folder on a machine with internet, e.g. "
    "`huggingface-cli download Helsinki-NLP/opus-mt-en-de --local-dir DIR`"
)
ACTIVATIONS = {"swish": "silu", "silu": "silu", "relu": "relu"}
# Legacy config keys (from BART, which Marian's config once shared) whose non-default value would mean
# another architecture: key -> (the value this importer can read, what the other value would mean).
LEGACY_FLAGS = {
    "normalize_before": (False, "pre-LayerNorm layers (the paper's are post-LayerNorm)"),
    "add_final_layer_norm": (False, "a LayerNorm after the last layer"),
    "normalize_embedding": (False, "a LayerNorm on the embeddings"),
    "static_position_embeddings": (True, "learned positions (the paper's are sinusoidal)"),
    "add_bias_logits": (False, "a second output bias"),
    "share_encoder_decoder_embeddings": (True, "separate source and target embeddings"),
    "tie_word_embeddings": (True, "an output projection not tied to the embeddings"),
}
# Hugging Face name -> ours, inside one layer.
LAYER_NAMES = {
    "self_attn.q_proj": "self_attn.w_q", "self_attn.k_proj": "self_attn.w_k",
    "self_attn.v_proj": "self_attn.w_v", "self_attn.out_proj": "self_attn.w_o",
    "encoder_attn.q_proj": "cross_attn.w_q", "encoder_attn.k_proj": "cross_attn.w_k",
    "encoder_attn.v_proj": "cross_attn.w_v", "encoder_attn.out_proj": "cross_attn.w_o",
    "fc1": "ffn.w_1", "fc2": "ffn.w_2", "self_attn_layer_norm": "norm1",
}  # fmt: skip
LAST_NORM = {"encoder": ("final_layer_norm", "norm2"), "decoder": ("final_layer_norm", "norm3")}


class MarianImportError(ValueError):
    """The folder is not a checkpoint this importer can read; the message says what and why."""


def read_config(path: Path, unk_id: int) -> TransformerConfig:
    """Our config from a Hugging Face `MarianConfig` JSON, refusing what the model cannot express."""
    try:
        hf = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as err:
        raise MarianImportError(f"{path}: not readable JSON ({err})") from err
    kind = hf.get("model_type")
    if kind != "marian" or hf.get("is_encoder_decoder") is False:
        arch = hf.get("architectures") or kind
        raise MarianImportError(f"{path}: model_type {kind!r} ({arch}) is not supported: only MarianMTModel")
    for key, (ours, meaning) in LEGACY_FLAGS.items():
        if key in hf and hf[key] != ours:
            raise MarianImportError(f"{path}: {key} = {hf[key]!r} means {meaning}; not supported")
    if hf.get("scale_embedding") is not True:  # Hugging Face's default is False
        raise MarianImportError(
            f"{path}: scale_embedding is not true: the paper scales embeddings by √d_model"
        )
    if hf.get("decoder_vocab_size") not in (None, hf.get("vocab_size")):
        raise MarianImportError(f"{path}: decoder_vocab_size differs from vocab_size (two vocabularies)")
    pairs = [("encoder_layers", "decoder_layers"), ("encoder_attention_heads", "decoder_attention_heads"),
             ("encoder_ffn_dim", "decoder_ffn_dim")]  # fmt: skip
    for enc, dec in pairs:
        if hf.get(enc) != hf.get(dec):
            raise MarianImportError(
                f"{path}: {enc} = {hf.get(enc)} but {dec} = {hf.get(dec)}; the paper's encoder and decoder "
                "have the same size, and so does this model"
            )
    activation = ACTIVATIONS.get(hf.get("activation_function"))
    if activation is None:
        raise MarianImportError(f"{path}: activation_function {hf.get('activation_function')!r} is not "
                                f"supported (only {sorted(ACTIVATIONS)})")  # fmt: skip
    eos = hf.get("eos_token_id")
    try:
        return TransformerConfig(
            vocab_size=hf["vocab_size"], d_model=hf["d_model"], n_heads=hf["encoder_attention_heads"],
            d_ff=hf["encoder_ffn_dim"], n_layers=hf["encoder_layers"], dropout=float(hf.get("dropout", 0.1)),
            max_len=hf.get("max_position_embeddings", 512), pad_id=hf["pad_token_id"], unk_id=unk_id,
            bos_id=None, eos_id=eos[0] if isinstance(eos, list) else eos, activation=activation,
            pe_layout="half_split", logits_bias=True, decoder_start_id=hf["decoder_start_token_id"],
        )  # fmt: skip
    except KeyError as err:
        raise MarianImportError(f"{path}: the key {err} is missing") from err
    except ValueError as err:
        raise MarianImportError(f"{path}: {err}") from err


def read_state(directory: Path) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors by their Hugging Face names (safetensors, else a tensors-only .bin)."""
    safetensors_path, bin_path = directory / "model.safetensors", directory / "pytorch_model.bin"
    try:
        if safetensors_path.is_file():
            from safetensors.torch import load_file

            return load_file(str(safetensors_path))
        if bin_path.is_file():
            return torch.load(bin_path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any reader error: say which file
        raise MarianImportError(f"cannot read the weights ({err})") from err
    raise MarianImportError(f"{directory}: no model.safetensors or pytorch_model.bin; {HOW_TO_GET}")


def convert_state(hf: dict[str, torch.Tensor], config: TransformerConfig) -> dict[str, torch.Tensor]:
    """Hugging Face tensor names -> ours, checking the ties and the positional table on the way."""
    hf = {k.removeprefix("model."): v.float() for k, v in hf.items()}
    shared = hf.pop("shared.weight", None)
    if shared is None:
        shared = hf.get("encoder.embed_tokens.weight")
    if shared is None:
        raise MarianImportError("the weights have no shared.weight (the embedding matrix)")
    for tied in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"):
        if tied in hf and not torch.equal(hf.pop(tied), shared):
            raise MarianImportError(f"{tied} is not the shared embedding matrix: the paper ties them (§3.4)")
    table = sinusoidal_encoding(config.max_len, config.d_model, "half_split")
    for stack in ("encoder", "decoder"):
        positions = hf.pop(f"{stack}.embed_positions.weight", None)
        if positions is not None and not torch.allclose(positions[: config.max_len], table, atol=1e-5):
            raise MarianImportError(
                f"{stack}.embed_positions are not Marian's sinusoids (learned positions?)"
            )
    ours = {"src_embed.lut.weight": shared}
    bias = hf.pop("final_logits_bias", torch.zeros(1, config.vocab_size))
    ours["generator.bias"] = bias.reshape(-1)
    pattern = re.compile(r"(encoder|decoder)\.layers\.(\d+)\.(.+)\.(weight|bias)")
    for name in list(hf):
        match = pattern.fullmatch(name)
        if not match:
            continue
        stack, layer, part, kind = match.groups()
        names = {**LAYER_NAMES, LAST_NORM[stack][0]: LAST_NORM[stack][1]}
        if stack == "decoder":
            names["encoder_attn_layer_norm"] = "norm2"
        if part in names:
            ours[f"{stack}.layers.{layer}.{names[part]}.{kind}"] = hf.pop(name)
    if hf:
        raise MarianImportError(f"weights this importer does not know: {sorted(hf)[:5]}")
    return ours


def write_card(out: Path, src: Path, config: TransformerConfig, name: str, licence: str) -> None:
    """A short MODEL_CARD.md: where the weights come from, under which licence, and what they use."""
    hf_card = "the source's own card (the folder had none: find it where you downloaded the model)"
    if (out / "SOURCE_README.md").is_file():
        hf_card = "`SOURCE_README.md` (the source's own card, copied)"
    lines = [
        f"# {name} (imported)",
        "",
        f"Imported with `python -m transformer.import_marian {src} --out {out}` on "
        f"{datetime.now(UTC):%Y-%m-%d}. These weights were **not trained by this project**: their data, "
        f"training, scores and limits are in {hf_card}.",
        "",
        f"- **Source:** {name} (a Hugging Face `MarianMTModel` folder)",
        f"- **Licence:** {licence}",
        f"- **Architecture:** the paper's post-LayerNorm encoder-decoder, N = {config.n_layers} + "
        f"{config.n_layers}, h = {config.n_heads}, d_model = {config.d_model}, d_ff = {config.d_ff}, "
        f"d_k = {config.d_k}, one {config.vocab_size:,}-entry vocabulary shared by source, target and "
        "output (two SentencePiece models, `source.spm` and `target.spm`, one id table, `vocab.json`).",
        f"- **Departures from the paper** (config options): FFN activation {config.activation} (SiLU, "
        "Marian's swish) instead of ReLU where it says silu; sines in the first half of the "
        "positional-encoding dimensions and cosines in the second instead of interleaved; a learned "
        "bias on the output logits; the decoder starts from `<pad>`, not `<s>`.",
        f"- **Weights:** `{WEIGHTS_FILE}`, sha256 `{file_sha256(out / WEIGHTS_FILE)}`.",
        "",
    ]
    (out / "MODEL_CARD.md").write_text("\n".join(lines), encoding="utf-8")


def source_licence(src: Path) -> str | None:
    """The `license:` of the source card's front matter (Hugging Face README.md), if any."""
    try:
        text = (src / "README.md").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    front = text.split("---")[1] if text.startswith("---") and text.count("---") >= 2 else ""
    match = re.search(r"^licen[cs]e:\s*(\S.*)$", front, re.MULTILINE)
    return match.group(1).strip().strip("'\"") if match else None


def import_marian(src: str | Path, out: str | Path, name: str | None = None, licence: str | None = None):
    """Read the checkpoint folder `src`, check it, and write the project's model folder `out`.

    Returns the written folder's config. Raises `MarianImportError` for anything unsupported or missing.
    """
    src, out = Path(src), Path(out)
    for file in ("config.json", *FILES):
        if not (src / file).is_file():
            raise MarianImportError(f"{src / file} is missing; {HOW_TO_GET}")
    try:
        tokenizer = MarianTokenizer.load(src)
    except ValueError as err:
        raise MarianImportError(str(err)) from err
    if (src / "tokenizer_config.json").is_file():
        if json.loads((src / "tokenizer_config.json").read_text(encoding="utf-8")).get("separate_vocabs"):
            raise MarianImportError(f"{src}/tokenizer_config.json: separate source and target vocabularies")
    config = read_config(src / "config.json", tokenizer.unk_id)
    if (tokenizer.vocab_size, tokenizer.pad_id, tokenizer.eos_id) != (
        config.vocab_size,
        config.pad_id,
        config.eos_id,
    ):
        raise MarianImportError(
            f"{src}: vocab.json ({tokenizer.vocab_size} entries, <pad> {tokenizer.pad_id}, </s> "
            f"{tokenizer.eos_id}) does not match config.json "
            f"({config.vocab_size}, {config.pad_id}, {config.eos_id})"
        )
    state = convert_state(read_state(src), config)
    if not state["generator.bias"].any():  # an all-zero bias is the paper's projection: leave it out
        state.pop("generator.bias")
        config = TransformerConfig.from_dict({**config.to_dict(), "logits_bias": False})
    model = Transformer(config)
    expected = weights_state(model)
    shapes = {k: tuple(v.shape) for k, v in state.items()}
    if shapes != {k: tuple(v.shape) for k, v in expected.items()}:
        wrong = sorted(set(shapes) ^ set(expected)) or [k for k in shapes if shapes[k] != expected[k].shape]
        raise MarianImportError(f"the weights do not fit config.json: {wrong[:5]}")
    model.load_state_dict(state, strict=False)  # the tied aliases share the loaded matrix
    out.mkdir(parents=True, exist_ok=True)
    save_model(model, out)
    tokenizer.save(out)
    if (src / "README.md").is_file():
        shutil.copyfile(src / "README.md", out / "SOURCE_README.md")
    licence = licence or source_licence(src) or "not stated in the folder: check the source before sharing"
    write_card(out, src, config, name or src.resolve().name, licence)
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Import a Marian (OPUS-MT) checkpoint folder.")
    parser.add_argument(
        "src", type=Path, help="local MarianMTModel folder (config.json, weights, spm, vocab)"
    )
    parser.add_argument("--out", type=Path, required=True, help="model folder to write, e.g. pretrained/NAME")
    parser.add_argument("--name", help="the model's name in the card (default: the folder's name)")
    parser.add_argument("--licence", help="licence for the card when the source's README.md does not say")
    args = parser.parse_args(argv)
    try:
        config = import_marian(args.src, args.out, args.name, args.licence)
    except MarianImportError as err:
        print(f"import_marian: {err}", file=sys.stderr)
        return 1
    print(f"wrote {args.out} (d_model {config.d_model}, {config.n_layers}+{config.n_layers} layers, "
          f"{config.vocab_size:,} pieces, activation {config.activation})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
