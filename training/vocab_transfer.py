"""Carry a trained model over to a new tokenizer: same layers, new embedding rows.

    python -m training.vocab_transfer --model pretrained --spm data/spm/spm.model --out runs/transfer

The encoder and decoder layers do not depend on the vocabulary, so they are copied as they are. The
one shared embedding/output matrix (§3.4) gets a row per new piece. Special tokens and pieces the
old tokenizer also has (byte pieces included) keep their trained rows; any other piece starts as the
mean of the old rows of the pieces the old tokenizer cuts its text into (a new "▁garden" as the mean
of the old "▁gar" and "den"), and byte pieces the old tokenizer lacked from the old ``<unk>`` row.
Training then goes on from these weights (``training.train --init OUT``).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import torch

from transformer.config import TransformerConfig
from transformer.model import Transformer
from transformer.pretrained import load_pretrained, save_model
from transformer.tokenizer import Tokenizer

_BYTE = re.compile(r"<0x[0-9A-F]{2}>")


def old_ids_for(piece: str, old: Tokenizer) -> list[int]:
    """Old ids whose pieces spell ``piece``: word-initial pieces as a word, others without the ▁."""
    text = piece.replace("▁", " ")
    ids = old.encode(text.strip()) if text.strip() else []
    if not piece.startswith("▁") and ids:
        first = old.id_to_piece(ids[0]).removeprefix("▁")
        inner = old._sp.piece_to_id(first) if first else old.unk_id
        if first and inner != old.unk_id:
            ids[0] = inner
        elif not first:
            ids = ids[1:]
    return [i for i in ids if i != old.unk_id]


def transfer(model_dir: Path, spm_path: Path, out: Path) -> dict[str, int]:
    """Write ``out`` (config, weights, tokenizer) for ``spm_path``; returns how rows were made."""
    old = load_pretrained(model_dir)
    new_tok = Tokenizer.load(spm_path)
    config = TransformerConfig.from_dict({**old.model.config.to_dict(), "vocab_size": new_tok.vocab_size})
    model = Transformer(config)
    tied = ("src_embed.lut.weight", "tgt_embed.lut.weight", "generator.weight")
    state = {k: v for k, v in old.model.state_dict().items() if k not in tied}
    missing = model.load_state_dict(state, strict=False).missing_keys
    if set(missing) - set(tied):
        raise ValueError(f"{model_dir}: layers that do not carry over: {sorted(set(missing) - set(tied))}")
    old_rows = old.model.src_embed.lut.weight.detach()  # (V_old, d_model)
    rows = torch.empty(new_tok.vocab_size, config.d_model)
    counts = {"special": 0, "same": 0, "byte": 0, "composed": 0, "unknown": 0}
    specials = {new_tok.pad_id, new_tok.unk_id, new_tok.bos_id, new_tok.eos_id}
    for new_id in range(new_tok.vocab_size):
        piece = new_tok.id_to_piece(new_id)
        if new_id in specials:
            rows[new_id], kind = old_rows[new_id], "special"  # the same fixed ids in both tokenizers
        elif (same := old.tokenizer._sp.piece_to_id(piece)) != old.tokenizer.unk_id:
            rows[new_id], kind = old_rows[same], "same"  # a piece both have: its trained row
        elif _BYTE.fullmatch(piece):  # the old tokenizer had no byte fallback
            rows[new_id], kind = old_rows[old.tokenizer.unk_id], "byte"
        elif ids := old_ids_for(piece, old.tokenizer):
            rows[new_id], kind = old_rows[ids].mean(0), "composed"
        else:
            rows[new_id], kind = old_rows[old.tokenizer.unk_id], "unknown"
        counts[kind] += 1
    with torch.no_grad():
        model.src_embed.lut.weight.copy_(rows)  # shared with tgt_embed and the generator
    save_model(model, out, spm_path)
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=Path("pretrained"))
    parser.add_argument("--spm", type=Path, default=Path("data/spm/spm.model"))
    parser.add_argument("--out", type=Path, default=Path("runs/transfer"))
    args = parser.parse_args(argv)
    counts = transfer(args.model, args.spm, args.out)
    print(f"wrote {args.out}: embedding rows {counts}")


if __name__ == "__main__":
    main()
