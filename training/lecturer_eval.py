"""BLEU and chrF on the lecturer set: longer sentences a teacher would type, translated by hand.

    python -m training.lecturer_eval --model pretrained
    python -m training.lecturer_eval --model runs/candidate --split dev --out lecturer.json

`corpus/lecturer/lecturer.tsv` (columns id, category, split, en, de; its README says who wrote it and
how) holds 10-30-word sentences by kind: relative and subordinate clauses, questions, negation,
dates and times, numbers with units, durations, passive, comparison, classroom instructions, and the
two sentences of the paper's Figures 3-5. Every row is translated once, greedily and with the model's
beam settings (`decoding.json`, or --beam/--alpha), through `training.evaluate.evaluate`; the scores
are then taken per split and per category with sacreBLEU's defaults, so that candidates are compared
on exactly the same footing as on the other held-out splits.
"""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import dataclass
from pathlib import Path

from training.evaluate import evaluate, score

TSV = Path(__file__).resolve().parents[1] / "corpus" / "lecturer" / "lecturer.tsv"
COLUMNS = ("id", "category", "split", "en", "de")
SPLITS = ("dev", "test")
MIN_WORDS, MAX_WORDS = 10, 30


@dataclass(frozen=True)
class Row:
    id: str
    category: str
    split: str
    en: str
    de: str


def load(path: str | Path = TSV) -> list[Row]:
    """The set's rows in file order; a malformed file raises ValueError naming the line."""
    path = Path(path)
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if tuple(header or ()) != COLUMNS:
            raise ValueError(f"{path}: header must be {'/'.join(COLUMNS)}, not {header}")
        rows = []
        for number, fields in enumerate(reader, start=2):
            if len(fields) != len(COLUMNS):
                raise ValueError(f"{path}:{number}: {len(fields)} fields, not {len(COLUMNS)}")
            rows.append(Row(*(field.strip() for field in fields)))
    return rows


def write_split(corpus: str | Path, split: str = "dev", path: str | Path = TSV) -> int:
    """The set's `split` rows as a held-out split of a training corpus, CORPUS/valid-lecturer.en/.de, so
    that a run logs its loss there (`training.train --valid-splits ...,valid-lecturer`); returns the
    number of pairs. Only dev rows belong there: the test rows stay unseen until a model is judged."""
    rows = [r for r in load(path) if r.split == split]
    for lang in ("en", "de"):
        text = "".join(getattr(r, lang) + "\n" for r in rows)
        (Path(corpus) / f"valid-lecturer.{lang}").write_text(text, encoding="utf-8")
    return len(rows)


def corpus_scores(hypotheses: list[str], references: list[str]) -> dict:
    """BLEU and chrF of a subset (sacreBLEU defaults), without the signatures."""
    s = score(hypotheses, references)
    return {"sentences": len(references), "bleu": s["bleu"], "chrf": s["chrf"]}


def breakdown(rows: list[Row], outputs: dict[str, list[str]]) -> dict:
    """Scores of each decoding per split and per category (categories over every split given)."""
    result: dict = {"splits": {}, "categories": {}}
    groups: dict[str, dict[str, list[int]]] = {"splits": {}, "categories": {}}
    for i, r in enumerate(rows):  # names in order of first appearance
        groups["splits"].setdefault(r.split, []).append(i)
        groups["categories"].setdefault(r.category, []).append(i)
    for kind, named in groups.items():
        for name, idx in named.items():
            result[kind][name] = {
                decoding: corpus_scores([hyps[i] for i in idx], [rows[i].de for i in idx])
                for decoding, hyps in outputs.items()
            }
    return result


def examples(rows: list[Row], outputs: dict[str, list[str]], n: int) -> list[dict]:
    """n rows spread evenly over the set (the same rows for every model), with each decoding's output."""
    if n <= 0 or not rows:
        return []
    picks = sorted({i * len(rows) // min(n, len(rows)) for i in range(min(n, len(rows)))})
    return [
        {"id": rows[i].id, "category": rows[i].category, "en": rows[i].en, "de": rows[i].de,
         **{decoding: hyps[i] for decoding, hyps in outputs.items()}}
        for i in picks
    ]  # fmt: skip


def report(result: dict) -> str:
    """The text the command prints: split scores, per-category chrF, the examples."""
    decodings = [d for d in ("greedy", "beam") if d in result["decodings"]]
    beam = result["decodings"].get("beam")
    names = {"greedy": "greedy", "beam": f"beam {beam['beam_size']}, α={beam['alpha']}" if beam else ""}
    lines = [f"{'split':<13}{'n':>4}" + "".join(f"{names[d] + ' BLEU/chrF':>28}" for d in decodings)]
    for split, by in result["splits"].items():
        cells = "".join(f"{by[d]['bleu']:>20.2f} / {by[d]['chrf']:>5.2f}" for d in decodings)
        lines.append(f"{split:<13}{by[decodings[0]]['sentences']:>4}{cells}")
    lines += ["", f"{'category':<13}{'n':>4}" + "".join(f"{names[d] + ' chrF':>28}" for d in decodings)]
    for category, by in result["categories"].items():
        cells = "".join(f"{by[d]['chrf']:>28.2f}" for d in decodings)
        lines.append(f"{category:<13}{by[decodings[0]]['sentences']:>4}{cells}")
    for ex in result["examples"]:
        lines += ["", f"[{ex['id']} {ex['category']}] EN: {ex['en']}", f"  ref:    {ex['de']}"]
        lines += [f"  {d + ':':<7} {ex[d]}" for d in decodings]
    lines += ["", result["bleu_signature"], result["chrf_signature"]]
    return "\n".join(lines)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="BLEU and chrF of a model directory on the lecturer set.")
    p.add_argument("--model", default="pretrained", help="model directory (config, weights, spm.model)")
    p.add_argument("--tsv", default=str(TSV), help="the set (columns id, category, split, en, de)")
    p.add_argument("--split", default="all", choices=[*SPLITS, "all"], help="which rows (default: both)")
    p.add_argument("--beam", type=int, default=None, help="beam size (0: greedy only; default: the model's)")
    p.add_argument("--alpha", type=float, default=None, help="length penalty α (default: the model's)")
    p.add_argument("--limit", type=int, default=0, help="only the first N rows (0: all)")
    p.add_argument("--examples", type=int, default=10, help="how many outputs to print")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per greedy batch")
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default="", help="write scores and every output to this JSON file")
    p.add_argument("--write-split", default="", metavar="CORPUS",
                   help="only write the dev rows as CORPUS/valid-lecturer.en/.de (a run's dev split)")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    from transformer import pretrained
    from transformer.device import select_device

    args = parse_args(argv)
    if args.write_split:
        n = write_split(args.write_split, path=args.tsv)
        print(f"wrote {n} dev pairs to {args.write_split}/valid-lecturer.en/.de")
        return {"written": n}
    if args.beam is not None and args.beam < 0:
        raise SystemExit("--beam must be 0 (greedy only) or more")
    rows = [r for r in load(args.tsv) if args.split == "all" or r.split == args.split]
    if args.limit:
        rows = rows[: args.limit]
    loaded = pretrained.load_pretrained(args.model, select_device(args.device))
    d = loaded.decoding.override(args.beam, args.alpha)
    measured = evaluate(
        loaded.model, loaded.tokenizer, [r.en for r in rows], [r.de for r in rows], d.beam_size, d.alpha,
        args.batch_size,
    )  # fmt: skip
    outputs = {k: [h[k] for h in measured["hypotheses"]] for k in ("greedy", "beam") if k in measured}
    decodings = {k: {x: v for x, v in measured[k].items() if not x.endswith(("signature", "detail"))}
                 for k in outputs}  # fmt: skip
    result = {
        "model": str(args.model),
        "model_id": loaded.model_id,
        "tsv": str(args.tsv),
        "split": args.split,
        "decodings": decodings,
        **breakdown(rows, outputs),
        "examples": examples(rows, outputs, args.examples),
        "bleu_signature": measured["greedy"]["bleu_signature"],
        "chrf_signature": measured["greedy"]["chrf_signature"],
        "hypotheses": [{"id": r.id, **h} for r, h in zip(rows, measured["hypotheses"], strict=True)],
    }
    print(f"{args.model} on {args.tsv} ({args.split}, {len(rows)} sentences)")
    print(report(result))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
