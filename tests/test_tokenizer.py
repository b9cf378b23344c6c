"""Tokenizer: fixed special ids, round trips, serialisation and clear errors (tiny trained model)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import sentencepiece as spm

from training.train_tokenizer import train_tokenizer
from transformer.tokenizer import BOS_ID, EOS_ID, PAD_ID, UNK_ID, Tokenizer

SENTENCES = [
    "The cat is sleeping on the sofa.",
    "Die Katze schläft auf dem Sofa.",
    "We have supper at seven.",
    "Wir essen um sieben Abendbrot.",
    "She runs every morning in the park.",
    "Sie läuft jeden Morgen im Park.",
    "Press Ctrl + F to open the toolbar.",
    "Drücken Sie Strg + F, um die Symbolleiste zu öffnen.",
    "It is raining again, isn't it?",
    "Es regnet schon wieder, nicht wahr?",
]
VOCAB_SIZE = 100


def _write_corpus(directory: Path) -> list[Path]:
    en, de = directory / "train.en", directory / "train.de"
    # Repeat with numbers so BPE has enough distinct material for 100 pieces.
    en.write_text("".join(f"{s} {i}\n" for i in range(20) for s in SENTENCES[::2]), "utf-8")
    de.write_text("".join(f"{s} {i}\n" for i in range(20) for s in SENTENCES[1::2]), "utf-8")
    return [en, de]


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Tokenizer, Path]:
    directory = tmp_path_factory.mktemp("spm")
    tok = train_tokenizer(_write_corpus(directory), directory / "spm", vocab_size=VOCAB_SIZE)
    return tok, directory / "spm.model"


def test_train_writes_model_and_vocab_with_fixed_special_ids(trained):
    tok, model_path = trained
    assert model_path.is_file() and model_path.with_suffix(".vocab").is_file()
    assert tok.vocab_size == VOCAB_SIZE
    assert (tok.pad_id, tok.unk_id, tok.bos_id, tok.eos_id) == (0, 1, 2, 3)
    assert [tok.id_to_piece(i) for i in range(4)] == ["<pad>", "<unk>", "<s>", "</s>"]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_round_trip_without_bos_eos(trained, sentence):
    tok, _ = trained
    ids = tok.encode(sentence)
    assert ids and all(4 <= i < VOCAB_SIZE for i in ids)  # no specials added, none unknown
    assert tok.decode(ids) == sentence
    assert "".join(tok.encode_pieces(sentence)).replace("▁", " ").strip() == sentence


def test_decode_ignores_pad_bos_eos(trained):
    tok, _ = trained
    ids = tok.encode(SENTENCES[0])
    assert tok.decode([BOS_ID, *ids, EOS_ID, PAD_ID, PAD_ID]) == SENTENCES[0]


def test_unseen_characters_become_unk(trained):
    tok, _ = trained
    ids = tok.encode("Die Katze ☃")
    assert UNK_ID in ids
    assert 0 < tok.unk_rate(["Die Katze ☃"]) < 1
    assert tok.unk_rate(SENTENCES) == 0.0


def test_bytes_and_pickle_round_trip(trained):
    tok, _ = trained
    for copy in (Tokenizer.from_bytes(tok.to_bytes()), pickle.loads(pickle.dumps(tok))):
        assert copy.to_bytes() == tok.to_bytes()
        assert copy.encode(SENTENCES[1]) == tok.encode(SENTENCES[1])


def test_training_is_deterministic(trained, tmp_path):
    tok, model_path = trained
    again = train_tokenizer(_write_corpus(tmp_path), model_path.with_suffix(""), VOCAB_SIZE)
    assert again.to_bytes() == tok.to_bytes()


def test_load_missing_file_names_it_and_how_to_restore(tmp_path):
    missing = tmp_path / "nowhere" / "spm.model"
    with pytest.raises(FileNotFoundError, match="nowhere/spm.model.*restore"):
        Tokenizer.load(missing)


def test_load_corrupt_file_raises_value_error(tmp_path):
    broken = tmp_path / "spm.model"
    broken.write_bytes(b"this is not a sentencepiece model")
    with pytest.raises(ValueError, match="spm.model is not a valid SentencePiece model"):
        Tokenizer.load(broken)


def test_model_with_other_special_ids_is_rejected(tmp_path):
    corpus = _write_corpus(tmp_path)
    # SentencePiece's own defaults: unk=0, bos=1, eos=2, no pad.
    spm.SentencePieceTrainer.train(
        input=",".join(map(str, corpus)),
        model_prefix=str(tmp_path / "default"),
        vocab_size=VOCAB_SIZE,
        minloglevel=2,
    )
    with pytest.raises(ValueError, match="special ids"):
        Tokenizer.load(tmp_path / "default.model")


def test_repeat_counts_a_small_files_lines_more_often(tmp_path):
    """`repeat`: a word from a few lines of a small general-language file becomes one piece once
    those lines count many times, and stays in pieces when they count once."""
    inputs = _write_corpus(tmp_path)
    everyday = tmp_path / "everyday.en"
    everyday.write_text("The quokka smiles.\nA quokka jumps.\n", "utf-8")
    once = train_tokenizer([*inputs, everyday], tmp_path / "once", vocab_size=VOCAB_SIZE)
    often = train_tokenizer([*inputs, everyday], tmp_path / "often", vocab_size=VOCAB_SIZE,
                            repeat=[(everyday, 40)])  # fmt: skip
    assert len(once.encode_pieces("quokka")) > 1
    assert often.encode_pieces("quokka") == ["▁quokka"]


def test_cli_repeat_wants_an_existing_source(tmp_path, capsys):
    from training.train_tokenizer import main

    _write_corpus(tmp_path)
    with pytest.raises(SystemExit):
        main(["--corpus", str(tmp_path), "--out", str(tmp_path / "spm"), "--repeat", "ding=x"])
    assert "SOURCE=K" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--corpus", str(tmp_path), "--out", str(tmp_path / "spm"), "--repeat", "nope=3"])
    assert "nope.en not found" in capsys.readouterr().err


def test_byte_fallback_spells_unseen_characters_instead_of_unk(tmp_path):
    """With byte fallback an emoji or a currency sign never seen in training round-trips; without, ⁇."""
    inputs = _write_corpus(tmp_path)
    plain = train_tokenizer(inputs, tmp_path / "plain", vocab_size=VOCAB_SIZE)
    bytes_ = train_tokenizer(inputs, tmp_path / "bytes", vocab_size=VOCAB_SIZE + 256, byte_fallback=True)
    text = "The cat costs €5 🐈"
    assert UNK_ID in plain.encode(text)
    assert UNK_ID not in bytes_.encode(text)
    assert bytes_.decode(bytes_.encode(text)) == text
    for number in ("1869", "19992"):  # split_digits: one digit a piece, so a number is copied digit by digit
        digits = [p.strip("▁") for p in bytes_.encode_pieces(number) if p.strip("▁")]
        assert digits == list(number)


def test_whole_word_share_counts_the_most_frequent_words_that_are_one_piece(trained):
    tok, _ = trained
    lines = ["the the the cat cat quokkaquokka", "zzyzx the"]  # the, cat: whole; the others: pieces
    expected = [w for w in ("the", "cat", "quokkaquokka", "zzyzx") if len(tok.encode(w)) == 1]
    assert tok.encode_pieces("quokkaquokka") != ["▁quokkaquokka"]
    assert tok.whole_word_share(lines, top=4) == len(expected) / 4
    assert tok.whole_word_share(lines, top=2) == sum(len(tok.encode(w)) == 1 for w in ("the", "cat")) / 2
    assert tok.whole_word_share([]) == 0
