"""A Marian (OPUS-MT) checkpoint imported with `transformer.import_marian` computes exactly what Hugging
Face's `MarianMTModel` computes: logits, every attention pattern and the greedy translation, and its
tokenizer cuts and numbers text exactly as `MarianTokenizer` does. No download: a small random
`MarianMTModel` (SiLU, half-split positions, a non-zero output bias) and tiny SentencePiece models are
built here. `transformers` is a test-only dependency; the importer itself must not need it."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sentencepiece as spm
import torch

transformers = pytest.importorskip("transformers")

from transformer import hooks  # noqa: E402
from transformer.decoding import greedy_decode  # noqa: E402
from transformer.import_marian import MarianImportError, import_marian  # noqa: E402
from transformer.marian_tokenizer import MarianTokenizer  # noqa: E402
from transformer.pretrained import load_pretrained  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EN = "the a house cat dog river bank is was small big old new green I you we they swim swam across to get " \
     "other because it too tired wide street animal did n't cross law will never be perfect but its " \
     "application should just this what are missing in my opinion".split()  # fmt: skip
DE = "der die das Haus Katze Hund Fluss Ufer ist war klein groß alt neu grün ich du wir sie schwimmen " \
     "schwamm über um zu kommen andere weil es zu müde breit Straße Tier hat nicht Gesetz wird nie " \
     "perfekt sein aber seine Anwendung sollte gerecht dies was meiner Meinung".split()  # fmt: skip


def sentences(words: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        line = " ".join(rng.choice(words) for _ in range(rng.randint(2, 12)))
        out.append(line[0].upper() + line[1:] + rng.choice([".", "!", "?", ",", " 42.", " (1999)."]))
    return out


def train_spm(lines: list[str], prefix: Path, vocab_size: int) -> Path:
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_prefix=str(prefix), vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, minloglevel=2, num_threads=1,
    )  # fmt: skip
    return prefix.with_suffix(".model")


@pytest.fixture(scope="module")
def marian_dir(tmp_path_factory) -> Path:
    """A Hugging Face MarianMTModel folder: random weights, tiny spm models, one shared vocab.json."""
    d = tmp_path_factory.mktemp("opus-mt-tiny")
    src_spm = train_spm(sentences(EN, 400, 1), d / "src", 90)
    tgt_spm = train_spm(sentences(DE, 400, 2), d / "tgt", 110)
    shutil.move(src_spm, d / "source.spm")
    shutil.move(tgt_spm, d / "target.spm")
    pieces: list[str] = []
    for path in ("source.spm", "target.spm"):
        sp = spm.SentencePieceProcessor(model_file=str(d / path))
        pieces += [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if not sp.is_control(i)]
    # As in OPUS-MT: </s> 0, <unk> 1, the pieces of both models, <pad> last. A few pieces are left out
    # on purpose: the tokenizer must turn them into <unk> as Marian's does.
    table = ["</s>", "<unk>"] + [p for p in dict.fromkeys(pieces) if p not in ("<unk>", "▁der", "s")]
    vocab = {p: i for i, p in enumerate(table + ["<pad>"])}
    (d / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    pad = len(vocab) - 1
    config = transformers.MarianConfig(
        vocab_size=len(vocab), d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
        decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, activation_function="swish",
        max_position_embeddings=64, pad_token_id=pad, eos_token_id=0, decoder_start_token_id=pad,
        forced_eos_token_id=None, scale_embedding=True, share_encoder_decoder_embeddings=True,
    )  # fmt: skip
    config._attn_implementation = "eager"  # output_attentions needs the explicit attention
    torch.manual_seed(0)
    model = transformers.MarianMTModel(config).eval()
    with torch.no_grad():  # spread every weight (LayerNorms too) so that a wrong mapping shows
        for name, p in model.named_parameters():
            if "embed_positions" not in name:
                p.normal_(0.0, 0.3 if p.dim() > 1 else 0.5).add_(1.0 if "layer_norm.weight" in name else 0.0)
        model.final_logits_bias.normal_(0.0, 1.0)
        model.final_logits_bias[0, 0] += 7.0  # </s> likely enough that some translations end
    model.save_pretrained(d)
    (d / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n# tiny test model\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def hf_model(marian_dir):
    return transformers.MarianMTModel.from_pretrained(marian_dir, attn_implementation="eager").eval()


@pytest.fixture(scope="module")
def imported(marian_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("imported")
    import_marian(marian_dir, out)
    return out, load_pretrained(out)


def test_the_importer_writes_the_projects_format_without_transformers(marian_dir, tmp_path):
    out = tmp_path / "model"
    code = (
        "import sys; sys.modules['transformers'] = None  # importing it now fails\n"
        "from transformer.import_marian import main\n"
        f"sys.exit(main([{str(marian_dir)!r}, '--out', {str(out)!r}]))"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    names = {p.name for p in out.iterdir()}
    assert {
        "config.json",
        "model.safetensors",
        "source.spm",
        "target.spm",
        "vocab.json",
        "MODEL_CARD.md",
    } <= names
    cfg = json.loads((out / "config.json").read_text())
    assert (cfg["activation"], cfg["pe_layout"], cfg["logits_bias"], cfg["bos_id"]) == (
        "silu", "half_split", True, None,
    )  # fmt: skip
    assert (
        cfg["decoder_start_id"]
        == cfg["pad_id"]
        == json.loads((marian_dir / "config.json").read_text())["decoder_start_token_id"]
    )
    card = (out / "MODEL_CARD.md").read_text()
    assert "cc-by-4.0" in card and marian_dir.name in card and "not trained by this project" in card


def test_logits_and_every_attention_pattern_match(hf_model, imported):
    _, lm = imported
    tok, cfg = lm.tokenizer, lm.model.config
    texts = sentences(EN, 2, 7)
    rows = [tok.encode(t) + [tok.eos_id] for t in texts]
    width = max(map(len, rows))
    src = torch.tensor([r + [cfg.pad_id] * (width - len(r)) for r in rows])  # padding in one row
    tgt = torch.tensor([[cfg.pad_id, 5, 9, 11, 3, 7]] * 2)
    with torch.no_grad():
        hf = hf_model(
            input_ids=src, attention_mask=src != cfg.pad_id, decoder_input_ids=tgt, output_attentions=True
        )
        with hooks.record() as store:
            ours = lm.model(src, tgt)
    assert (src == cfg.pad_id).any()
    assert ours.shape == hf.logits.shape
    assert torch.allclose(ours, hf.logits, atol=1e-5, rtol=0)
    assert hf.logits.std() > 1.0  # numbers big enough that a wrong weight would show
    stacks = [("encoder", "self", hf.encoder_attentions), ("decoder", "self", hf.decoder_attentions),
              ("decoder", "cross", hf.cross_attentions)]  # fmt: skip
    for stack, kind, theirs in stacks:
        assert len(theirs) == cfg.n_layers == 2
        for layer, pattern in enumerate(theirs):
            mine = store[f"{stack}.layers.{layer}.{kind}_attn.hook_pattern"]
            assert torch.allclose(mine, pattern, atol=1e-5, rtol=0), (stack, kind, layer)


def test_greedy_translations_match(hf_model, imported):
    _, lm = imported
    tok, cfg = lm.tokenizer, lm.model.config
    ended = 0
    for text in sentences(EN, 10, 11):
        src = tok.encode(text) + [tok.eos_id]
        hyp = greedy_decode(lm.model, src, max_len=12)
        out = hf_model.generate(
            torch.tensor([src]), max_new_tokens=12, num_beams=1, do_sample=False, min_length=0,
            bad_words_ids=[[cfg.pad_id]], forced_eos_token_id=None, no_repeat_ngram_size=0,
        )[0].tolist()  # fmt: skip
        assert out[0] == cfg.decoder_start_id
        theirs = out[1:]
        if tok.eos_id in theirs:
            theirs = theirs[: theirs.index(tok.eos_id)]
            ended += 1
        assert hyp.ids == theirs and hyp.finished == (len(out) > 1 + len(theirs))
        assert tok.decode(hyp.ids) == tok.decode(theirs)
    assert 0 < ended < 10  # some translations end with </s> before the limit, some do not


def test_tokenizer_matches_marian_tokenizer_on_50_sentences(marian_dir, imported):
    ours = imported[1].tokenizer
    theirs = transformers.MarianTokenizer(
        str(marian_dir / "source.spm"), str(marian_dir / "target.spm"), str(marian_dir / "vocab.json")
    )
    unknown = 0
    for en, de in zip(
        sentences(EN, 25, 3) + sentences(DE, 25, 4), sentences(DE, 25, 5) + sentences(EN, 25, 6)
    ):
        assert ours.encode_pieces(en) == theirs.tokenize(en)
        assert ours.encode(en) + [ours.eos_id] == theirs(en)["input_ids"]
        target = theirs(text_target=de)["input_ids"]
        assert ours.encode_target(de) + [ours.eos_id] == target
        assert ours.decode(target) == theirs.decode(target[:-1], use_source_tokenizer=False)
        unknown += target.count(ours.unk_id)
    assert unknown  # pieces missing from vocab.json became <unk> on both sides
    assert ours.encode_pieces(">>de<< Hello") == theirs.tokenize(">>de<< Hello")


def test_unsupported_checkpoints_are_refused_with_a_reason(marian_dir, tmp_path):
    def variant(name: str, **changes) -> Path:
        d = tmp_path / name
        shutil.copytree(marian_dir, d)
        cfg = json.loads((d / "config.json").read_text())
        (d / "config.json").write_text(json.dumps({**cfg, **changes}))
        return d

    cases = [
        (variant("bart", model_type="bart"), "only MarianMTModel"),
        (variant("prenorm", normalize_before=True), "pre-LayerNorm"),
        (variant("gelu", activation_function="gelu"), "activation_function"),
        (variant("unscaled", scale_embedding=False), "scale_embedding"),
        (variant("uneven", decoder_layers=1), "decoder_layers"),
        (variant("untied", share_encoder_decoder_embeddings=False), "separate source and target"),
    ]
    missing = variant("missing")
    (missing / "target.spm").unlink()
    cases.append((missing, "target.spm is missing"))
    for src, message in cases:
        with pytest.raises(MarianImportError, match=message):
            import_marian(src, tmp_path / f"out-{src.name}")


def test_pickled_and_reloaded_tokenizer_is_the_same(imported):
    import pickle  # a Trace holding a tokenizer must survive st.cache_data: never a file from outside

    tok = imported[1].tokenizer
    assert isinstance(tok, MarianTokenizer)
    again = pickle.loads(pickle.dumps(tok))
    text = sentences(EN, 1, 9)[0]
    assert again.encode(text) == tok.encode(text) and again.vocab_size == tok.vocab_size


def test_a_pytorch_model_bin_gives_the_same_model(marian_dir, imported, tmp_path):
    """Older folders ship pytorch_model.bin: read with weights_only=True (tensors only), same weights."""
    from safetensors.torch import load_file

    src = tmp_path / "bin"
    shutil.copytree(marian_dir, src)
    torch.save(load_file(str(src / "model.safetensors")), src / "pytorch_model.bin")
    (src / "model.safetensors").unlink()
    import_marian(src, tmp_path / "out")
    ours, again = (
        load_file(str(imported[0] / "model.safetensors")),
        load_file(str(tmp_path / "out" / "model.safetensors")),
    )
    assert ours.keys() == again.keys() and all(torch.equal(ours[k], again[k]) for k in ours)
