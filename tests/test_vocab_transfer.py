"""training.vocab_transfer: layers copied exactly, rows of shared pieces kept, each new piece's row the
mean of the old rows of the pieces the old tokenizer cuts it into, the shared matrix still shared."""

from __future__ import annotations

import torch
from test_train import TINY, write_corpus

from training import vocab_transfer
from training.train_tokenizer import train_tokenizer
from transformer.config import TransformerConfig
from transformer.model import Transformer
from transformer.pretrained import load_pretrained, save_model
from transformer.tokenizer import Tokenizer


def test_transfer_copies_layers_and_composes_rows(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    old_tok = Tokenizer.load(corpus / "spm.model")
    d = {k.removeprefix("--").replace("-", "_"): int(v) for k, v in zip(TINY[::2], TINY[1::2])}
    config = TransformerConfig(vocab_size=old_tok.vocab_size, **d)
    torch.manual_seed(0)
    old_model = Transformer(config)
    save_model(old_model, tmp_path / "old", corpus / "spm.model")
    (tmp_path / "quokka.txt").write_text("A quokka.\n", encoding="utf-8")
    inputs = [corpus / "train.en", corpus / "train.de", tmp_path / "quokka.txt"]
    repeat = [(tmp_path / "quokka.txt", 60)]
    new_tok = train_tokenizer(inputs, tmp_path / "new", vocab_size=120, repeat=repeat)

    counts = vocab_transfer.transfer(tmp_path / "old", tmp_path / "new.model", tmp_path / "out")
    new = load_pretrained(tmp_path / "out").model
    assert new.config.vocab_size == 120 and sum(counts.values()) == 120
    assert counts["composed"] > 5 and counts["same"] > 50
    old_state = old_model.state_dict()
    for name, tensor in new.state_dict().items():
        if "lut" not in name and name != "generator.weight":
            assert torch.equal(tensor, old_state[name]), name
    old_rows, rows = old_model.src_embed.lut.weight, new.src_embed.lut.weight
    assert torch.equal(rows[:4], old_rows[:4])  # pad, unk, bos, eos keep their rows
    for new_id in range(4, 120):  # a piece both tokenizers have keeps its row, whatever its id
        old_id = old_tok._sp.piece_to_id(new_tok.id_to_piece(new_id))
        if old_id != old_tok.unk_id:
            assert torch.equal(rows[new_id], old_rows[old_id])
    quokka = new_tok.encode("quokka")
    assert len(quokka) == 1  # a whole piece in the new tokenizer, several in the old
    old_ids = [i for i in old_tok.encode("quokka") if i != old_tok.unk_id]  # "q" is unknown to the old one
    assert len(old_ids) > 1 and torch.allclose(rows[quokka[0]], old_rows[old_ids].mean(0))
    assert new.generator.weight.data_ptr() == rows.data_ptr() == new.tgt_embed.lut.weight.data_ptr()


def test_old_ids_for_a_word_inner_piece_drop_the_word_start(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    tok = Tokenizer.load(corpus / "spm.model")
    word = tok.encode_pieces("Katze")
    assert word[0].startswith("▁")
    assert vocab_transfer.old_ids_for("▁Katze", tok) == tok.encode("Katze")
    inner = vocab_transfer.old_ids_for("atze", tok)
    assert inner and not tok.id_to_piece(inner[0]).startswith("▁")


def test_byte_pieces_keep_their_rows_when_both_tokenizers_have_byte_fallback(tmp_path):
    corpus = write_corpus(tmp_path / "corpus")
    inputs = [corpus / "train.en", corpus / "train.de"]
    old_tok = train_tokenizer(inputs, tmp_path / "old_spm", vocab_size=330, byte_fallback=True)
    new_tok = train_tokenizer(inputs, tmp_path / "new", vocab_size=330, byte_fallback=True, user_symbols="€")
    d = {k.removeprefix("--").replace("-", "_"): int(v) for k, v in zip(TINY[::2], TINY[1::2])}
    torch.manual_seed(0)
    old_model = Transformer(TransformerConfig(vocab_size=old_tok.vocab_size, **d))
    save_model(old_model, tmp_path / "old", tmp_path / "old_spm.model")

    vocab_transfer.transfer(tmp_path / "old", tmp_path / "new.model", tmp_path / "out")
    rows = load_pretrained(tmp_path / "out").model.src_embed.lut.weight
    old_rows = old_model.src_embed.lut.weight
    byte = new_tok._sp.piece_to_id("<0x41>")
    assert torch.equal(rows[byte], old_rows[old_tok._sp.piece_to_id("<0x41>")])
    assert not torch.equal(rows[byte], old_rows[old_tok.unk_id])
    euro = new_tok.encode("€")[-1]  # a piece of its own now, three byte pieces before
    old_bytes = [old_tok._sp.piece_to_id(p) for p in ("<0xE2>", "<0x82>", "<0xAC>")]
    assert torch.allclose(rows[euro], old_rows[old_bytes].mean(0))
