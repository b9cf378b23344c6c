"""A random model folder of opus-mt-en-de's full size in the format `transformer.import_marian` writes:
d_model 512, 6 + 6 layers, 8 heads, d_ff 2048, a 58,101-entry vocabulary, SiLU, half-split positions,
a logits bias, the decoder starting from <pad>. Its weights are random (no download, no licence): it
checks that every page works, and how fast, on a production-sized Marian checkpoint.

    .venv/bin/python tools/random_marian.py /tmp/opus-mt-random

The two SentencePiece models are tiny (trained here on a few hundred made-up sentences); the id table
is filled up to the full size with pieces that no text produces, as the real table's ~58k rows are.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from pathlib import Path

import sentencepiece as spm
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transformer import Transformer, TransformerConfig  # noqa: E402
from transformer.marian_tokenizer import MarianTokenizer  # noqa: E402
from transformer.pretrained import save_model  # noqa: E402

EN = ("the a an house cat dog river bank animal street law application opinion spirit majority government "
      "registration voting process is was did n't will never be perfect but its should just this what we "
      "are missing in my to get across swam I because it too tired wide cross other that of have passed "
      "new laws since making or more difficult American").split()  # fmt: skip
DE = ("der die das ein eine Haus Katze Hund Fluss Ufer Tier Straße Gesetz Anwendung Meinung Geist Mehrheit "
      "Regierung ist war hat nicht wird nie perfekt sein aber seine sollte gerecht dies was wir vermissen "
      "in meiner zu über schwamm ich weil es müde breit andere neue Gesetze seit").split()  # fmt: skip
FULL = dict(vocab_size=58101, d_model=512, n_heads=8, d_ff=2048, n_layers=6, max_len=512)


def _spm(words: list[str], seed: int) -> bytes:
    rng = random.Random(seed)
    lines = [" ".join(rng.choices(words, k=rng.randint(3, 14))) + rng.choice(".!?,") for _ in range(600)]
    lines += [w.capitalize() for w in words] + ["0 1 2 3 4 5 6 7 8 9 ( ) - ' \" : ;"]
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=proto, vocab_size=200, hard_vocab_limit=False,
        character_coverage=1.0, minloglevel=2, num_threads=1,
    )  # fmt: skip
    return proto.getvalue()


def build(out: str | Path, seed: int = 0, **sizes) -> Path:
    """Write the folder `out` (config.json, model.safetensors, source.spm, target.spm, vocab.json,
    MODEL_CARD.md) and return it. `sizes` override FULL (e.g. vocab_size for a smaller test)."""
    out = Path(out)
    size = {**FULL, **sizes}
    source, target = _spm(EN, seed + 1), _spm(DE, seed + 2)
    pieces: list[str] = []
    for data in (source, target):
        sp = spm.SentencePieceProcessor(model_proto=data)
        pieces += [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if not sp.is_control(i)]
    table = ["</s>", "<unk>", *(p for p in dict.fromkeys(pieces) if p != "<unk>")]
    table += [f"▁filler{i}" for i in range(size["vocab_size"] - 1 - len(table))]
    vocab = {piece: i for i, piece in enumerate([*table, "<pad>"])}
    pad = len(vocab) - 1
    config = TransformerConfig(
        **size, dropout=0.1, pad_id=pad, unk_id=1, bos_id=None, eos_id=0, activation="silu",
        pe_layout="half_split", logits_bias=True, decoder_start_id=pad,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = Transformer(config)
    with torch.no_grad():
        model.generator.bias.normal_(0.0, 0.5)
    save_model(model, out)
    MarianTokenizer(source, target, vocab, "random").save(out)
    (out / "MODEL_CARD.md").write_text(
        "# Random Marian model (opus-mt-en-de size)\n\nRandom weights written by `tools/random_marian.py` "
        "to test and measure the app on a production-sized Marian checkpoint. It translates nothing.\n",
        encoding="utf-8",
    )
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"wrote {build(args.out, args.seed)}")
