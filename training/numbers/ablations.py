"""The paper's choices taken away one at a time, on the numbers model (`make train-ablations`).

    python -m training.numbers.ablations                      # every variant, every seed (hours)
    python -m training.numbers.ablations --only no-scale --seeds 1 --steps 20   # a smoke test

Each variant is the numbers recipe (`training.numbers.train.RECIPE`) with one thing changed, trained
by the same loop on the same phrases and the shipped tokenizer, for the same number of steps, from
the same seeds. After training, each run is scored on the held-out test phrases:

    exact match       share of phrases whose greedy output is exactly the grammar's German
    alignment         share of German pieces whose cross-attention (heads averaged) peaks on the
                      English word that produced them, per decoder layer and per head
    attention stats   at the milestone steps: variance of q·k and of the softmax's input, the
                      softmax's entropy, its largest weight and the size of its gradient
    word order        the outputs for "three hundred two" and "two hundred three" (the same pieces
                      in another order: a model without positions cannot tell them apart)

The first seed's weights ship (float16) in `pretrained/ablations/<variant>/` with `scores.json`,
which holds every seed's scores, their mean and spread, and the first seed's training curve.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from analysis.scaling import entropy, softmax_gradient
from tasks.numbers import alignment
from training import train as trainer
from training.evaluate import score
from training.numbers import data
from training.numbers.train import train_args
from transformer import hooks, pretrained
from transformer.decoding import greedy_translate
from transformer.model import Transformer
from transformer.trace import attn_hook

SCORES_FILE = "scores.json"
TOKENIZER = Path("pretrained/numbers/spm.model")  # every variant reads the shipped model's pieces
STEPS = 1000  # equal for every variant: the base learns its alignment in a few hundred
SEEDS = (1, 2, 3)
MILESTONES = (0, 100, 300, 600, 1000)  # attention statistics are taken at these steps
WORD_ORDER = ("three hundred two", "two hundred three")
LEARNING_PHRASES = 300  # held-out phrases scored at each milestone (the learning curve)


@dataclass(frozen=True)
class Variant:
    title: str  # what changes, in a few words
    section: str  # where the paper argues for the choice
    args: tuple[str, ...]  # `training.train` arguments that make the change


VARIANTS: dict[str, Variant] = {
    "base": Variant("the paper's choices (h = 8, d_k = d_model/h = 8)", "§3", ()),
    "no-scale": Variant("no 1/√d_k scaling", "§3.2.1", ("--no-scale",)),
    "heads-1": Variant("1 head (d_k = 64)", "§3.2.2, Table 3 A", ("--n-heads", "1")),
    "heads-2": Variant("2 heads (d_k = 32)", "§3.2.2, Table 3 A", ("--n-heads", "2")),
    "heads-4": Variant("4 heads (d_k = 16)", "§3.2.2, Table 3 A", ("--n-heads", "4")),
    "heads-16": Variant("16 heads (d_k = 4)", "§3.2.2, Table 3 A", ("--n-heads", "16")),
    "small-dk": Variant("d_k = 2 for queries and keys (8 heads)", "Table 3 B", ("--key-size", "2")),
    "no-positions": Variant("no positional encoding", "§3.5", ("--positions", "none")),
    "learned-positions": Variant("learned positions", "§3.5, Table 3 E", ("--positions", "learned")),
    "no-residual": Variant("no residual connections", "§3.1", ("--no-residual",)),
    "no-layernorm": Variant("no layer normalisation", "§3.1", ("--norm", "none")),
    "pre-layernorm": Variant("LayerNorm before each sub-layer", "§3.1", ("--norm", "pre")),
    "no-label-smoothing": Variant("no label smoothing", "§5.4, Table 3 D", ("--smoothing", "0")),
    "no-dropout": Variant("no dropout", "§5.4, Table 3 D", ("--dropout", "0")),
}


def variant_args(name: str, corpus: Path, run: Path, steps: int, seed: int, threads: int) -> list[str]:
    """The numbers recipe's arguments with the variant's change and the seed; later flags win."""
    base = train_args(corpus, run, minutes=0, steps=steps, threads=threads)
    base[base.index("--spm") + 1] = str(TOKENIZER)
    base[base.index("--milestones") + 1] = ",".join(str(s) for s in MILESTONES if s <= steps)
    base[base.index("--eval-every") + 1] = str(max(steps // 10, 1))
    base[base.index("--eval-sentences") + 1] = "100"
    base[base.index("--health-sentences") + 1] = "0"
    return [*base, "--seed", str(seed), *VARIANTS[name].args]


# ---- scores of one trained run -----------------------------------------------------------------
@torch.no_grad()
def attention_stats(model: Transformer, tokenizer, sources: list[str]) -> dict:
    """Mean statistics of every attention (encoder self, decoder self, cross; all layers and heads)
    over the real (unmasked) scores of `sources`, teacher-forced on their greedy outputs."""
    cfg = model.config
    sums = {"qk_var": 0.0, "logit_var": 0.0, "entropy": 0.0, "max_weight": 0.0, "softmax_gradient": 0.0}
    rows = 0
    for source in sources:
        src = tokenizer.encode(source) + [cfg.eos_id]
        with hooks.record() as store:
            model(torch.tensor([src]), torch.tensor([[cfg.start_id, *tokenizer.encode(source)[:4]]]))
        for name in store:
            if not name.endswith("hook_pattern"):
                continue
            prefix = name.removesuffix("hook_pattern")
            allowed = store[prefix + "hook_mask"][0, 0]  # (T_q, T_k)
            pattern = store[name][0]  # (H, T_q, T_k)
            keep = allowed.expand_as(pattern)
            sums["qk_var"] += float(store[prefix + "hook_qk"][0][keep].var()) * pattern.size(1)
            sums["logit_var"] += float(store[prefix + "hook_scores"][0][keep].var()) * pattern.size(1)
            sums["entropy"] += float(entropy(pattern).mean()) * pattern.size(1)
            sums["max_weight"] += float(pattern.max(-1).values.mean()) * pattern.size(1)
            sums["softmax_gradient"] += float(softmax_gradient(pattern).mean()) * pattern.size(1)
            rows += pattern.size(1)
    return {k: round(v / max(rows, 1), 4) for k, v in sums.items()}


@torch.no_grad()
def head_agreement(model: Transformer, tokenizer, sources: list[str]) -> list[list[float]]:
    """Gold-alignment agreement of every cross-attention head alone, [layer][head]."""
    cfg = model.config
    hits = [[0] * cfg.n_heads for _ in range(cfg.n_layers)]
    total = 0
    for source in sources:
        example = alignment.grammar.parse(source)
        if example is None:
            continue
        s = tokenizer.encode(source) + [cfg.eos_id]
        out = tokenizer.encode(example.target) + [cfg.eos_id]
        pieces = lambda ids: [tokenizer.id_to_piece(i) for i in ids]
        keys = alignment.gold_keys(example, pieces(s)[:-1], pieces(out)[:-1])
        gold = alignment._matrix(keys, len(out), len(s))
        with hooks.record() as store:
            model(torch.tensor([s]), torch.tensor([[cfg.start_id, *out[:-1]]]))
        for layer in range(cfg.n_layers):
            pattern = store[attn_hook("decoder", "cross", layer, "pattern")][0]  # (H, T, S)
            for head in range(cfg.n_heads):
                hits[layer][head] += alignment.agreement(pattern[head], gold)[0]
        total += int(gold.any(-1).sum())
    return [[round(h / max(total, 1), 4) for h in layer] for layer in hits]


def translate(model: Transformer, tokenizer, sources: list[str]) -> list[str]:
    """Greedy translations, as the numbers pages show them."""
    ids = [tokenizer.encode(s) + [model.config.eos_id] for s in sources]
    return [tokenizer.decode(h.ids) for h in greedy_translate(model, ids)]


def _read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def curve(run: Path) -> dict:
    """Training loss every 50 steps and held-out loss at every evaluation, from the run's log."""
    train, valid = [], []
    for line in _read_lines(run / "log.jsonl"):
        record = json.loads(line)
        if "loss" in record:
            train.append([record["step"], record["loss"]])
        if "valid_loss" in record:
            valid.append([record["step"], round(record["valid_loss"], 4)])
    return {"train_loss": train, "valid_loss": valid}


def score_run(run: Path, heldout: Path, n_test: int, n_align: int) -> dict:
    """Exact match, alignment (per layer and per head), attention statistics at each milestone, the
    word-order probe and the training curve of one finished run."""
    model = Transformer(pretrained.load_config(run))
    tokenizer, _ = pretrained.load_tokenizer(run)
    sources = _read_lines(heldout / "test.en")[:n_test]
    references = _read_lines(heldout / "test.de")[:n_test]
    probe = sources[:40]
    stats, learning = {}, {}
    for path in sorted((run / "milestones").glob("step_*.safetensors")):
        pretrained.load_weights(model, path)
        model.eval()
        step = str(int(path.stem.removeprefix("step_")))
        stats[step] = attention_stats(model, tokenizer, probe)
        if step != "0":  # how fast it learns: exact match on the first phrases at each milestone
            outputs = translate(model, tokenizer, sources[:LEARNING_PHRASES])
            learning[step] = score(outputs, references[:LEARNING_PHRASES])["exact_match"]
    pretrained.load_weights(model, sorted((run / "snapshots").glob("step_*.safetensors"))[-1])
    model.eval()
    hypotheses = translate(model, tokenizer, sources)
    align = alignment.measure(model, tokenizer, sources[:n_align])
    stats["final"] = attention_stats(model, tokenizer, probe)
    curves = curve(run)
    return {
        "exact_match": score(hypotheses, references)["exact_match"],
        "alignment": align["per_layer"],
        "alignment_last_layer": align["per_layer"][-1],
        "alignment_per_head": head_agreement(model, tokenizer, sources[:n_align]),
        "attention": stats,
        "exact_match_by_step": learning,
        "word_order": dict(zip(WORD_ORDER, translate(model, tokenizer, list(WORD_ORDER)), strict=True)),
        "final_valid_loss": curves["valid_loss"][-1][1] if curves["valid_loss"] else None,
        "curve": curves,
    }


def summary(values: list[float]) -> dict:
    """Mean and spread (max - min) over seeds."""
    return {"mean": round(statistics.fmean(values), 2), "spread": round(max(values) - min(values), 2)}


def finished(runs: Path, name: str) -> dict[int, Path]:
    """Seed -> run folder of every scored run of a variant (earlier calls' included)."""
    found = {}
    for run in runs.glob(f"{name}-seed*"):
        seed = run.name.removeprefix(f"{name}-seed")
        if seed.isdigit() and (run / SCORES_FILE).is_file():
            found[int(seed)] = run
    return dict(sorted(found.items()))


def learning_summary(seeds: list[dict]) -> dict:
    """Step -> exact match mean and spread over the seeds that measured it at every milestone."""
    runs = [s["exact_match_by_step"] for s in seeds if s.get("exact_match_by_step")]
    steps = sorted(set.intersection(*(set(r) for r in runs)), key=int) if runs else []
    return {step: summary([r[step] for r in runs]) for step in steps}


def ship(name: str, runs: dict[int, Path], out: Path) -> Path:
    """Write the variant's model folder: the first seed's weights in float16, config, tokenizer, and
    scores.json (every seed's scores, mean and spread)."""
    target = out / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    first = runs[min(runs)]
    last = sorted((first / "snapshots").glob("step_*.safetensors"))[-1]
    half = {k: v.to(torch.float16) for k, v in load_file(str(last)).items()}
    save_file(half, str(target / pretrained.WEIGHTS_FILE))
    shutil.copyfile(first / pretrained.CONFIG_FILE, target / pretrained.CONFIG_FILE)
    shutil.copyfile(TOKENIZER, target / pretrained.TOKENIZER_FILE)
    seeds = {seed: json.loads((run / SCORES_FILE).read_text(encoding="utf-8")) for seed, run in runs.items()}
    variant = VARIANTS[name]
    scores = {
        "variant": name,
        "title": variant.title,
        "section": variant.section,
        "steps": int(last.stem.removeprefix("step_")),
        "seeds": sorted(seeds),
        "exact_match": summary([s["exact_match"] for s in seeds.values()]),
        "alignment": summary([100 * s["alignment_last_layer"] for s in seeds.values()]),
        "learning": learning_summary(list(seeds.values())),
        "per_seed": {str(seed): {k: v for k, v in s.items() if k != "curve"} for seed, s in seeds.items()},
        "curve": seeds[min(seeds)]["curve"],
    }
    (target / SCORES_FILE).write_text(json.dumps(scores, indent=1) + "\n", encoding="utf-8")
    return target


def table(out: Path) -> str:
    """README's table of the shipped variants: exact match and alignment, mean ± half the spread."""
    lines = [
        "| variant | paper | seeds | exact match (%) | at step 600 (%) | alignment (%) |",
        "|---|---|---|---|---|---|",
    ]
    pm = lambda s, digits: f"{s['mean']:.{digits}f} ± {s['spread'] / 2:.{digits}f}"
    for name in VARIANTS:
        path = out / name / SCORES_FILE
        if not path.is_file():
            continue
        s = json.loads(path.read_text(encoding="utf-8"))
        mid = s.get("learning", {}).get("600")
        lines.append(
            f"| {s['title']} | {s['section']} | {len(s['seeds'])} | {pm(s['exact_match'], 1)} | "
            f"{pm(mid, 1) if mid else '–'} | {pm(s['alignment'], 0)} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", default="", help="comma-separated variants (default: all)")
    p.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    p.add_argument("--steps", type=int, default=STEPS)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--corpus", type=Path, default=Path("data/numbers"))
    p.add_argument("--runs", type=Path, default=Path("runs/ablations"))
    p.add_argument("--out", type=Path, default=Path("pretrained/ablations"))
    p.add_argument("--heldout", type=Path, default=Path("pretrained/numbers/heldout"))
    p.add_argument("--test-phrases", type=int, default=1004)
    p.add_argument("--align-phrases", type=int, default=300)
    p.add_argument("--data-scale", type=float, default=1.0, help="< 1: a smaller corpus (smoke tests)")
    p.add_argument("--rescore", action="store_true", help="score the finished runs again and ship them")
    p.add_argument("--table", action="store_true", help="print README's table of the shipped variants")
    p.add_argument("--ship", action="store_true", help="ship every variant's finished runs again, then stop")
    args = p.parse_args(argv)
    if args.table:
        print(table(args.out))
        return
    if args.ship:
        for name in VARIANTS:
            if finished(args.runs, name):
                ship(name, finished(args.runs, name), args.out)
        return
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(VARIANTS)
    unknown = set(names) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; known: {', '.join(VARIANTS)}")
    seeds = [int(s) for s in args.seeds.split(",")]
    if not (args.corpus / "train.en").is_file():
        data.write(data.build(scale=args.data_scale), args.corpus)
    torch.set_num_threads(args.threads)
    for seed in seeds:  # every variant's first seed before any second seed: a stopped run still ships
        for name in names:
            run = args.runs / f"{name}-seed{seed}"
            if (run / SCORES_FILE).is_file() and not args.rescore:
                continue  # done in an earlier call
            if args.rescore:
                if (run / SCORES_FILE).is_file():
                    scores = score_run(run, args.heldout, args.test_phrases, args.align_phrases)
                    (run / SCORES_FILE).write_text(json.dumps(scores) + "\n", encoding="utf-8")
                    ship(name, finished(args.runs, name), args.out)
                continue
            train = variant_args(name, args.corpus, run, args.steps, seed, args.threads)
            if (run / "checkpoint.pt").is_file():
                trainer.main([*train, "--resume"])  # stopped part-way in an earlier call
            else:
                shutil.rmtree(run, ignore_errors=True)
                trainer.main(train)
            scores = score_run(run, args.heldout, args.test_phrases, args.align_phrases)
            (run / SCORES_FILE).write_text(json.dumps(scores) + "\n", encoding="utf-8")
            ship(name, finished(args.runs, name), args.out)
            print(f"{name} seed {seed}: exact match {scores['exact_match']}%", flush=True)


if __name__ == "__main__":
    main()
