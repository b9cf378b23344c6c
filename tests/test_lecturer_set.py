"""The lecturer set (corpus/lecturer/lecturer.tsv): its shape, its split rule, no overlap with training
text, and the command that scores a model on it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import torch

from training import lecturer_eval
from transformer import Transformer, TransformerConfig
from transformer.pretrained import save_model

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_SPM = ROOT / "pretrained" / "spm.model"
TRAIN = ROOT / "data" / "corpus" / "train"  # built by `make data`; absent in a fresh clone
CATEGORIES = {
    "relative", "subordinate", "question", "negation", "date_time", "number_unit", "duration", "passive",
    "comparison", "instruction", "paper",
}  # fmt: skip
PAPER = (
    "The Law will never be perfect, but its application should be just - this is what we are missing, "
    "in my opinion.",
    "It is in this spirit that a majority of American governments have passed new laws since 2009 making the "
    "registration or voting process more difficult.",
)  # fmt: skip


@pytest.fixture(scope="module")
def rows() -> list[lecturer_eval.Row]:
    return lecturer_eval.load()


def test_the_set_has_enough_rows_with_unique_ids_and_both_splits(rows):
    assert len(rows) >= 60
    assert len({r.id for r in rows}) == len(rows)
    assert len({(r.en, r.de) for r in rows}) == len(rows)
    assert len({r.en for r in rows}) == len(rows)
    splits = Counter(r.split for r in rows)
    assert set(splits) == set(lecturer_eval.SPLITS)
    assert min(splits.values()) >= 30
    assert {r.category for r in rows} == CATEGORIES


def test_every_row_is_a_longer_sentence_with_a_german_reference(rows):
    for r in rows:
        assert lecturer_eval.MIN_WORDS <= len(r.en.split()) <= lecturer_eval.MAX_WORDS, r
        assert r.de and r.de != r.en, r
        assert r.en[-1] in ".?!" and r.de[-1] in ".?!", r


def test_the_split_alternates_within_each_category_and_the_papers_sentences_are_test(rows):
    """Fixed rule: in file order within a category, 1st, 3rd, ... dev; 2nd, 4th, ... test; paper: test."""
    seen: Counter = Counter()
    for r in rows:
        expected = "test" if r.category == "paper" else ("dev" if seen[r.category] % 2 == 0 else "test")
        seen[r.category] += 1
        assert r.split == expected, r
    assert {r.en: r.split for r in rows if r.category == "paper"} == dict.fromkeys(PAPER, "test")


def _keys(pairs) -> tuple[set[str], set[str]]:
    return {en.strip().lower() for en, _ in pairs}, {de.strip().lower() for _, de in pairs}


def _assert_no_side_in(rows, pairs, name: str) -> None:
    en, de = _keys(pairs)
    assert not [r.id for r in rows if r.en.lower() in en], f"English sides found in {name}"
    assert not [r.id for r in rows if r.de.lower() in de], f"German sides found in {name}"


def test_no_sentence_is_in_the_committed_tatoeba_file(rows):
    from corpus import tatoeba

    _assert_no_side_in(rows, tatoeba.load(), "corpus/tatoeba")


def test_no_sentence_is_in_the_local_training_file(rows):
    if not (Path(f"{TRAIN}.en").is_file() and Path(f"{TRAIN}.de").is_file()):
        pytest.skip("no data/corpus/train.en/.de here (built by `make data`)")
    from training.data import read_parallel

    en, de = read_parallel(TRAIN)
    _assert_no_side_in(rows, zip(en, de, strict=True), str(TRAIN))


def test_the_dev_rows_become_a_runs_held_out_split_and_the_test_rows_do_not(tmp_path, rows):
    lecturer_eval.main(["--write-split", str(tmp_path)])
    en = (tmp_path / "valid-lecturer.en").read_text(encoding="utf-8").splitlines()
    de = (tmp_path / "valid-lecturer.de").read_text(encoding="utf-8").splitlines()
    dev = [r for r in rows if r.split == "dev"]
    assert list(zip(en, de)) == [(r.en, r.de) for r in dev] and len(dev) >= 30
    assert not set(en) & {r.en for r in rows if r.split == "test"}


def test_load_names_a_malformed_line(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\tcategory\tsplit\ten\tde\nx1\tquestion\tdev\tonly four fields\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.tsv:2"):
        lecturer_eval.load(bad)


@pytest.mark.usefixtures("one_thread")
def test_the_command_scores_a_tiny_model_by_split_and_category(tmp_path, capsys):
    from transformer.tokenizer import Tokenizer

    vocab = Tokenizer.load(SHIPPED_SPM).vocab_size
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=vocab, d_model=16, n_heads=2, d_ff=32, n_layers=2, max_len=64)
    model_dir = tmp_path / "model"
    save_model(Transformer(config).eval(), model_dir, SHIPPED_SPM)
    # the eight question rows (both splits) and the paper's two
    chosen = [r for r in lecturer_eval.load() if r.category in {"question", "paper"}][:10]
    tsv = tmp_path / "set.tsv"
    tsv.write_text(
        "\t".join(lecturer_eval.COLUMNS) + "\n"
        + "".join("\t".join((r.id, r.category, r.split, r.en, r.de)) + "\n" for r in chosen),
        encoding="utf-8",
    )  # fmt: skip
    out = tmp_path / "scores.json"
    result = lecturer_eval.main(
        ["--model", str(model_dir), "--tsv", str(tsv), "--beam", "2", "--alpha", "0.6", "--examples", "3",
         "--device", "cpu", "--out", str(out)]
    )  # fmt: skip
    assert set(result["splits"]) == {"dev", "test"}
    assert set(result["categories"]) == {"question", "paper"}
    for by in (*result["splits"].values(), *result["categories"].values()):
        assert set(by) == {"greedy", "beam"}
        for s in by.values():
            assert 0 <= s["bleu"] <= 100 and 0 <= s["chrf"] <= 100
    assert result["categories"]["paper"]["beam"]["sentences"] == 2
    assert (result["decodings"]["beam"]["beam_size"], result["decodings"]["beam"]["alpha"]) == (2, 0.6)
    assert len(result["examples"]) == 3 and len(result["hypotheses"]) == len(chosen)
    assert json.loads(out.read_text(encoding="utf-8"))["model_id"] == result["model_id"]
    printed = capsys.readouterr().out
    assert "question" in printed and "nrefs:1" in printed

    greedy_only = lecturer_eval.main(["--model", str(model_dir), "--tsv", str(tsv), "--beam", "0",
                                      "--split", "dev", "--examples", "0", "--device", "cpu"])  # fmt: skip
    assert set(greedy_only["splits"]) == {"dev"} and set(greedy_only["decodings"]) == {"greedy"}
