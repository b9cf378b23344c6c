"""Training: the schedule and loss of paper §5, token-based batches, exact `--resume`, and the
checkpoint averaging of §6.1, on a tiny synthetic corpus with a tiny SentencePiece model."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from tasks.step import loss_fn, noam_lr
from training import data, train
from training.train import cooldown_factor, rewarm_factor
from training.train_tokenizer import train_tokenizer
from transformer import Transformer, TransformerConfig
from transformer.pretrained import load_pretrained, weights_state

WORDS = {
    "the": "die",
    "cat": "Katze",
    "dog": "Hund",
    "sees": "sieht",
    "small": "kleine",
    "big": "große",
    "house": "Haus",
    "runs": "läuft",
    "home": "heim",
    "today": "heute",
    "and": "und",
    "bird": "Vogel",
}
TINY = ["--d-model", "16", "--d-ff", "32", "--n-heads", "2", "--n-layers", "2"]


def write_corpus(directory: Path, seed: int = 0) -> Path:
    """A word-for-word EN->DE corpus (train, valid, lexicon) and a 100-piece SentencePiece model."""

    rng = random.Random(seed)

    def pair(k: int) -> tuple[str, str]:
        words = rng.choices(list(WORDS), k=k)
        en = " ".join(words).capitalize() + "."
        return en, " ".join(WORDS[w] for w in words).capitalize() + "."

    directory.mkdir(parents=True, exist_ok=True)
    splits = {
        "train": [pair(rng.randint(2, 7)) for _ in range(120)],
        "valid": [pair(rng.randint(2, 7)) for _ in range(8)],
        "lexicon": list(WORDS.items()),
    }
    for split, pairs in splits.items():
        (directory / f"{split}.en").write_text("".join(en + "\n" for en, _ in pairs), encoding="utf-8")
        (directory / f"{split}.de").write_text("".join(de + "\n" for _, de in pairs), encoding="utf-8")
    train_tokenizer([directory / "train.en", directory / "train.de"], directory / "spm", vocab_size=100)
    return directory


def trainer_args(corpus: Path, out: Path, *extra: str) -> list[str]:
    return [
        "--corpus", str(corpus), "--spm", str(corpus / "spm.model"), "--out", str(out), *TINY,
        "--max-tokens", "400", "--warmup", "4", "--lr-scale", "1.0", "--eval-every", "1000",
        "--device", "cpu", *extra,
    ]  # fmt: skip


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(autouse=True)
def keep_threads():
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


def run(argv: list[str]) -> train.Trainer:
    trainer = train.Trainer(train.parse_args(argv))
    trainer.train()
    return trainer


def checkpoint(out: Path) -> dict:
    return torch.load(out / "checkpoint.pt", weights_only=True)


# ---- schedule and loss ---------------------------------------------------------------------------


@pytest.mark.parametrize("d_model, warmup", [(512, 4000), (128, 800)])
def test_noam_lr_matches_the_closed_form_and_peaks_at_warmup(d_model, warmup):
    for step in (1, 10, warmup // 2, warmup, warmup + 1, 3 * warmup, 100_000):
        expected = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)
        assert noam_lr(step, d_model, warmup) == pytest.approx(expected, rel=1e-12)
        assert noam_lr(step, d_model, warmup, scale=0.2) == pytest.approx(0.2 * expected, rel=1e-12)
    steps = range(1, 4 * warmup)
    assert max(steps, key=lambda s: noam_lr(s, d_model, warmup)) == warmup
    assert noam_lr(warmup, d_model, warmup) == pytest.approx((d_model * warmup) ** -0.5)
    rates = [noam_lr(s, d_model, warmup) for s in steps]
    assert all(a < b for a, b in zip(rates[: warmup - 1], rates[1:warmup]))  # linear warm-up
    assert all(a > b for a, b in zip(rates[warmup - 1 :], rates[warmup:]))  # then ∝ step^-0.5
    assert noam_lr(0, d_model, warmup) == noam_lr(1, d_model, warmup)  # step 0 is treated as 1


def test_cooldown_factor_is_one_then_falls_linearly_to_zero():
    assert [cooldown_factor(s, 10, 0) for s in (1, 10, 11, 10_000)] == [1.0] * 4  # no cool-down
    assert [cooldown_factor(s, 10, 4) for s in (1, 10, 11, 12, 13, 14, 15, 99)] == [
        1.0, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0, 0.0,
    ]  # fmt: skip


def test_rewarm_factor_climbs_from_zero_after_the_start_step_then_stays_at_one():
    assert [rewarm_factor(s, 100, 0) for s in (1, 101, 5000)] == [1.0] * 3  # no re-warm
    assert [rewarm_factor(s, 100, 4) for s in (100, 101, 102, 103, 104, 105, 9999)] == [
        0.0, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0,
    ]  # fmt: skip


def test_label_smoothed_loss_equals_a_hand_computation():
    eps, pad = 0.1, 0
    logits = torch.tensor([[[2.0, 0.5, -1.0, 0.0], [0.0, 1.0, 3.0, -2.0], [9.0, -9.0, 4.0, 1.0]]])
    gold = torch.tensor([[2, 1, pad]])  # the third position is padding: ignored
    v = 4
    total = 0.0
    for row, target in ((logits[0, 0].tolist(), 2), (logits[0, 1].tolist(), 1)):
        log_z = math.log(sum(math.exp(x) for x in row))
        log_p = [x - log_z for x in row]
        # target distribution: 1 - ε on the gold token, plus ε spread evenly over all V tokens
        q = [(1 - eps) * (k == target) + eps / v for k in range(v)]
        total += -sum(qk * lp for qk, lp in zip(q, log_p))
    expected = total / 2
    assert loss_fn(logits, gold, pad, eps).item() == pytest.approx(expected, rel=1e-6)
    changed = logits.clone()
    changed[0, 2] = torch.tensor([-5.0, 7.0, 0.0, 2.0])
    assert loss_fn(changed, gold, pad, eps).item() == pytest.approx(expected, rel=1e-6)
    plain = loss_fn(logits, gold, pad, 0.0).item()
    assert plain == pytest.approx(
        -(torch.log_softmax(logits[0, 0], -1)[2] + torch.log_softmax(logits[0, 1], -1)[1]).item() / 2
    )


# ---- batches -------------------------------------------------------------------------------------


def synthetic_pairs(n: int, seed: int = 0) -> list[data.Pair]:
    rng = random.Random(seed)
    return [data.Pair(tuple(range(rng.randint(2, 40))), tuple(range(rng.randint(3, 45)))) for _ in range(n)]


@pytest.mark.parametrize("max_tokens", [64, 500, 4096])
def test_make_batches_respects_max_tokens_and_covers_every_pair_once(max_tokens):
    pairs = synthetic_pairs(3000)
    batches = data.make_batches(pairs, max_tokens, seed=3)
    indices = sorted(i for batch in batches for i in batch)
    assert indices == list(range(len(pairs)))
    for batch in batches:
        longest = max(max(len(pairs[i].src), len(pairs[i].tgt)) for i in batch)
        assert len(batch) * longest <= max_tokens or len(batch) == 1
    src, tgt = data.collate(pairs, batches[0], pad_id=0)
    assert src.numel() <= max_tokens and tgt.numel() <= max_tokens


def test_collate_pads_each_row_after_its_own_ids():
    pairs = [data.Pair((5, 6, 3), (2, 7, 3)), data.Pair((9, 3), (2, 8, 8, 8, 3))]
    src, tgt = data.collate(pairs, [1, 0], pad_id=0)
    assert src.tolist() == [[9, 3, 0], [5, 6, 3]]
    assert tgt.tolist() == [[2, 8, 8, 8, 3], [2, 7, 3, 0, 0]]
    assert src.dtype == tgt.dtype == torch.long


def test_make_batches_is_deterministic_per_seed():
    pairs = synthetic_pairs(2000)
    assert data.make_batches(pairs, 500, seed=7) == data.make_batches(pairs, 500, seed=7)
    assert data.make_batches(pairs, 500, seed=7) != data.make_batches(pairs, 500, seed=8)


def test_epoch_pairs_keep_every_sentence_and_sample_the_lexicon():
    sentences, lexicon = synthetic_pairs(100, seed=1), synthetic_pairs(1000, seed=2)
    first = data.epoch_pairs(sentences, lexicon, 0.5, seed=0)
    assert first[:100] == sentences and len(first) == 150
    assert first == data.epoch_pairs(sentences, lexicon, 0.5, seed=0)
    assert first != data.epoch_pairs(sentences, lexicon, 0.5, seed=1)


# ---- the trainer: resume and export -------------------------------------------------------------


def test_resume_continues_exactly(corpus, tmp_path):
    straight = run(trainer_args(corpus, tmp_path / "straight", "--steps", "8"))
    assert straight.progress.step == 8
    assert straight.progress.epoch >= 1, "the run should cross an epoch boundary"
    assert straight.config.dropout > 0  # so the dropout RNG must be restored too

    run(trainer_args(corpus, tmp_path / "split", "--steps", "5"))
    resumed = run(trainer_args(corpus, tmp_path / "split", "--steps", "8", "--resume"))
    assert resumed.progress.step == 8

    a, b = checkpoint(tmp_path / "straight"), checkpoint(tmp_path / "split")
    assert a["model"].keys() == b["model"].keys()
    for name in a["model"]:
        assert torch.equal(a["model"][name], b["model"][name]), name
    assert a["progress"]["tokens"] == b["progress"]["tokens"]
    assert torch.equal(a["torch_rng"], b["torch_rng"])

    # The comparison can fail: resuming with another RNG state (other dropout masks) diverges.
    run(trainer_args(corpus, tmp_path / "reseeded", "--steps", "5"))
    state = checkpoint(tmp_path / "reseeded")
    state["torch_rng"] = torch.Generator().manual_seed(123).get_state()
    torch.save(state, tmp_path / "reseeded" / "checkpoint.pt")
    run(trainer_args(corpus, tmp_path / "reseeded", "--steps", "8", "--resume"))
    c = checkpoint(tmp_path / "reseeded")["model"]
    assert not all(torch.equal(a["model"][k], c[k]) for k in c)


def test_cooldown_takes_the_rate_to_zero_and_ends_the_run(corpus, tmp_path, monkeypatch):
    rates = []
    step = train.train_step
    monkeypatch.setattr(train, "train_step", lambda *a, **k: rates.append(a[4]) or step(*a, **k))
    trainer = run(trainer_args(corpus, tmp_path / "run", "--cooldown-at", "4", "--cooldown-steps", "4"))
    assert trainer.progress.step == 8  # no --steps: the end of the cool-down stops it
    plain = [noam_lr(s, 16, warmup=4) for s in range(1, 9)]
    assert rates[:4] == plain[:4]
    assert rates[4:] == pytest.approx([plain[4] * 0.75, plain[5] * 0.5, plain[6] * 0.25, 0.0])


def test_init_with_start_step_goes_on_with_the_schedule_from_that_step(corpus, tmp_path, monkeypatch):
    out = tmp_path / "first"
    run(trainer_args(corpus, out, "--steps", "3"))
    train.main(["--out", str(out), "--export", str(tmp_path / "model"), "--keep-snapshots", "1"])
    rates = []
    step = train.train_step
    monkeypatch.setattr(train, "train_step", lambda *a, **k: rates.append(a[4]) or step(*a, **k))
    more = ["--init", str(tmp_path / "model"), "--start-step", "3"]
    more += ["--cooldown-at", "3", "--cooldown-steps", "4"]
    trainer = run(trainer_args(corpus, tmp_path / "second", *more))
    assert trainer.progress.step == 7  # steps 4..7, then the cool-down ends the run
    plain = [noam_lr(s, 16, warmup=4) for s in range(4, 8)]
    assert rates == pytest.approx([plain[0] * 0.75, plain[1] * 0.5, plain[2] * 0.25, 0.0])
    with pytest.raises(SystemExit, match="--init"):
        train.Trainer(train.parse_args(trainer_args(corpus, tmp_path / "x", "--start-step", "3")))


def test_resume_at_the_step_limit_does_nothing_more(corpus, tmp_path):
    run(trainer_args(corpus, tmp_path / "run", "--steps", "3"))
    before = checkpoint(tmp_path / "run")["model"]
    again = run(trainer_args(corpus, tmp_path / "run", "--steps", "3", "--resume"))
    assert again.progress.step == 3
    after = checkpoint(tmp_path / "run")["model"]
    assert all(torch.equal(before[k], after[k]) for k in before)


def test_resume_without_a_checkpoint_says_so(corpus, tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint.pt"):
        train.Trainer(train.parse_args(trainer_args(corpus, tmp_path / "empty", "--resume")))


def test_export_averages_the_last_snapshots(corpus, tmp_path):
    out = tmp_path / "run"
    run(trainer_args(corpus, out, "--steps", "2"))
    run(trainer_args(corpus, out, "--steps", "4", "--resume"))
    run(trainer_args(corpus, out, "--steps", "6", "--resume"))
    snaps = sorted((out / "snapshots").glob("step_*.safetensors"))
    assert [s.name for s in snaps] == [f"step_000000{i}.safetensors" for i in (2, 4, 6)]

    train.main(["--out", str(out), "--export", str(tmp_path / "avg"), "--keep-snapshots", "2"])
    states = [load_file(str(s)) for s in snaps[-2:]]
    exported = load_pretrained(tmp_path / "avg").model
    got = weights_state(exported)
    assert got.keys() == states[0].keys()
    for name, value in got.items():
        assert torch.allclose(value, (states[0][name] + states[1][name]) / 2, atol=1e-7), name
    assert not torch.equal(
        got["encoder.layers.0.ffn.w_1.weight"], states[1]["encoder.layers.0.ffn.w_1.weight"]
    )
    assert exported.generator.weight is exported.src_embed.lut.weight  # still tied after averaging

    train.main(["--out", str(out), "--export", str(tmp_path / "last"), "--keep-snapshots", "1"])
    last = weights_state(load_pretrained(tmp_path / "last").model)
    assert all(torch.equal(last[k], states[1][k]) for k in last)

    train.main(["--out", str(out), "--export", str(tmp_path / "half"), "--keep-snapshots", "1", "--half"])
    half = load_file(str(tmp_path / "half" / "model.safetensors"))  # as shipped: float16 on disk
    assert all(half[k].dtype == torch.float16 and torch.equal(half[k], states[1][k].half()) for k in half)


def test_eval_every_zero_never_evaluates(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(train.Trainer, "evaluate", lambda self: pytest.fail("evaluated"))
    assert run(trainer_args(corpus, tmp_path / "run", "--steps", "2", "--eval-every", "0")).progress.step == 2


def test_export_refuses_a_snapshot_of_another_model(corpus, tmp_path):
    out = tmp_path / "run"
    run(trainer_args(corpus, out, "--steps", "1"))
    config = TransformerConfig.load(out / "config.json")
    stranger = weights_state(Transformer(TransformerConfig(**{**config.to_dict(), "n_layers": 1})))
    save_file(stranger, str(out / "snapshots" / "step_0000009.safetensors"))
    with pytest.raises(ValueError, match="step_0000009"):
        train.export(out, tmp_path / "avg", keep=2)


def test_sigterm_stops_cleanly_with_a_checkpoint(corpus, tmp_path):
    """A run told to stop (SIGTERM, as when a session ends) saves where it was, and resumes there."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "run"
    argv = trainer_args(corpus, out, "--steps", "100000", "--threads", "1")
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-m", "training.train", *argv], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    log = out / "log.jsonl"
    deadline = time.time() + 120
    while not (log.is_file() and log.read_text().strip()) and time.time() < deadline:
        time.sleep(0.2)  # the first record is written at step 50
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, output
    assert "signal" in output and "stopped at step" in output
    state = torch.load(out / "checkpoint.pt", weights_only=True)
    assert 50 <= state["progress"]["step"] < 100000
    assert list((out / "snapshots").glob("step_*.safetensors"))


def test_evaluation_logs_health_and_the_health_cli_writes_it(corpus, tmp_path):
    """Every evaluation writes the health numbers to the run log; `training.health`
    measures an exported model directory and writes the same summary for the app."""
    import json

    from training import health

    out = tmp_path / "run"
    run(trainer_args(corpus, out, "--steps", "4", "--eval-every", "2", "--health-sentences", "8"))
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    evaluations = [r for r in records if "valid_loss" in r]
    assert [r["step"] for r in evaluations] == [2, 4]
    for r in evaluations:
        assert len(r["encoder_position_cosine"]) == len(r["cross_entropy_ratio"]) == 2
        assert all(0.0 < x <= 1.0 for x in r["cross_entropy_ratio"])
        assert r["alignment_pairs"] > 0  # the corpus's lexicon links its words
        assert 0.0 <= r["alignment_best"] <= 1.0 and r["source_kl"] >= 0.0

    train.main(["--out", str(out), "--export", str(tmp_path / "model"), "--keep-snapshots", "1"])
    target = tmp_path / "model" / "health.json"
    summary = health.main(["--model", str(tmp_path / "model"), "--corpus", str(corpus), "--out", str(target)])
    assert json.loads(target.read_text()) == summary
    assert summary["split"] == "valid" and summary["health_sentences"] == 8


def test_resume_keeps_the_runs_own_tokenizer(corpus, tmp_path):
    """A resumed run reads OUT/spm.model, not whatever data/spm holds now (a retrained tokenizer would
    give the weights ids they never saw), and refuses an --spm that differs from it."""
    out = tmp_path / "run"
    run(trainer_args(corpus, out, "--steps", "2"))
    other = tmp_path / "other"
    other.mkdir()
    train_tokenizer([corpus / "train.de"], other / "spm", vocab_size=90)
    argv = trainer_args(corpus, out, "--steps", "3", "--resume")
    del argv[argv.index("--spm") : argv.index("--spm") + 2]  # no --spm: the run's own
    resumed = run(argv)
    assert resumed.spm_path == out / "spm.model" and resumed.progress.step == 3
    assert (out / "spm.model").read_bytes() == (corpus / "spm.model").read_bytes()
    with pytest.raises(SystemExit, match="drop --spm"):
        train.Trainer(train.parse_args([*argv, "--spm", str(other / "spm.model")]))


def test_valid_splits_log_one_loss_each_and_the_first_drives_bleu(corpus, tmp_path):
    """--valid-splits: each evaluation logs every listed split's loss; the first is `valid_loss`."""
    import json
    import shutil

    two = tmp_path / "corpus"
    shutil.copytree(corpus, two)
    for lang in ("en", "de"):  # a second held-out split: the first half of valid, reversed
        lines = (corpus / f"valid.{lang}").read_text(encoding="utf-8").splitlines()[:4][::-1]
        (two / f"valid-half.{lang}").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "run"
    run(trainer_args(two, out, "--steps", "2", "--eval-every", "2", "--health-sentences", "0",
                     "--valid-splits", "valid-half,valid"))  # fmt: skip
    lines = (out / "log.jsonl").read_text().splitlines()
    record = next(json.loads(line) for line in lines if "valid_loss" in line)
    losses = record["valid_losses"]
    assert list(losses) == ["valid-half", "valid"] and losses["valid-half"] != losses["valid"]
    assert record["valid_loss"] == losses["valid-half"]
