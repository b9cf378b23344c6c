"""Held-out evaluation: sacreBLEU BLEU and chrF of greedy and beam-search translations (paper §6.1).

    python -m training.evaluate --model pretrained --split test --beam 4 --alpha 0.6 --out test.json

Both decoders run many sentences at once (`greedy_decode_batch`, `beam_search_batch`): on a CPU a
decoding step of this small model costs little more for 64 rows than for one, so batching is what
makes a 1,100-sentence test set take minutes. They give the results of `greedy_decode` and
`beam_search` in `transformer.decoding` (tests compare them). Scores are corpus-level and detokenised, with
sacreBLEU's default settings; its signature goes into the JSON so the model card can cite exactly
what was measured.

Shapes: B sentences in a batch, S source positions, T target positions so far, D = d_model, V vocabulary.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from transformer.decoding import beam_translate, greedy_translate
from transformer.device import select_device
from transformer.inputs import encode_source
from transformer.model import Transformer


def score(hypotheses: list[str], references: list[str]) -> dict:
    """Corpus BLEU and chrF with sacreBLEU's defaults, and the signatures that name those settings;
    and the exact-match share (the numbers model's measure: its answers are right or wrong)."""
    import sacrebleu

    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    b, c = bleu.corpus_score(hypotheses, [references]), chrf.corpus_score(hypotheses, [references])
    exact = sum(h.strip() == r.strip() for h, r in zip(hypotheses, references, strict=True))
    return {
        "bleu": round(b.score, 2),
        "chrf": round(c.score, 2),
        "exact_match": round(100 * exact / max(len(references), 1), 2),
        "bleu_detail": str(b),
        "bleu_signature": str(bleu.get_signature()),
        "chrf_signature": str(chrf.get_signature()),
    }


def evaluate(
    model: Transformer,
    tokenizer,
    sources: list[str],
    references: list[str],
    beam: int = 4,
    alpha: float = 0.6,
    batch_size: int = 64,
) -> dict:
    """Translate `sources` greedily and (if beam > 0) with beam search; score both against `references`.

    Source lines go through `encode_source` like user input (cut to the model's length limit); a
    line that cleans to nothing gets an empty translation.
    """
    max_tokens = model.config.max_len - 1  # EOS is appended after
    encoded = [encode_source(tokenizer, s, max_tokens=max_tokens).ids for s in sources]
    usable = [i for i, ids in enumerate(encoded) if ids]
    result: dict = {"sentences": len(sources)}
    outputs: dict[str, list[str]] = {}

    t0 = time.perf_counter()
    greedy = [""] * len(sources)
    for i, hyp in zip(usable, greedy_translate(model, [encoded[i] for i in usable], batch_size), strict=True):
        greedy[i] = tokenizer.decode(hyp.ids)
    outputs["greedy"] = greedy
    result["greedy"] = {**score(greedy, references), "seconds": round(time.perf_counter() - t0, 1)}

    if beam > 0:
        t0 = time.perf_counter()
        beamed = [""] * len(sources)
        hyps = beam_translate(model, [encoded[i] for i in usable], beam, alpha, max(1, batch_size // beam))
        for i, hyp in zip(usable, hyps, strict=True):
            beamed[i] = tokenizer.decode(hyp.ids)
        outputs["beam"] = beamed
        result["beam"] = {
            **score(beamed, references),
            "beam_size": beam,
            "alpha": alpha,
            "seconds": round(time.perf_counter() - t0, 1),
        }

    result["hypotheses"] = [
        {"source": s, "reference": r, **{k: v[i] for k, v in outputs.items()}}
        for i, (s, r) in enumerate(zip(sources, references, strict=True))
    ]
    return result


def table(result: dict) -> str:
    """A small text table of the scores."""
    rows = [f"{'decoding':<18}{'BLEU':>7}{'chrF':>7}{'exact %':>9}{'seconds':>9}"]
    for key in ("greedy", "beam"):
        if key in result:
            r = result[key]
            name = "greedy" if key == "greedy" else f"beam {r['beam_size']}, α={r['alpha']}"
            rows.append(
                f"{name:<18}{r['bleu']:>7.2f}{r['chrf']:>7.2f}{r['exact_match']:>9.2f}{r['seconds']:>9.1f}"
            )
    return "\n".join(rows)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="BLEU and chrF of a model directory on a corpus split.")
    p.add_argument("--model", default="pretrained", help="model directory (config, weights, spm.model)")
    p.add_argument(
        "--corpus", default="",
        help="where SPLIT.en/.de are (default: MODEL/heldout when the model ships one, else data/corpus)",
    )  # fmt: skip
    p.add_argument("--split", default="test", help="reads CORPUS/SPLIT.en and CORPUS/SPLIT.de")
    p.add_argument("--beam", type=int, default=None, help="beam size (0: greedy only; default: the model's)")
    p.add_argument("--alpha", type=float, default=None, help="length penalty α (default: the model's)")
    p.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per greedy batch")
    p.add_argument("--device", default="auto")
    p.add_argument(
        "--health",
        type=int,
        default=500,
        help="measure training health on the first N pairs (0: skip; needs CORPUS/lexicon.en/.de)",
    )
    p.add_argument("--out", default="", help="write scores, signatures and hypotheses to this JSON file")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    from training import data
    from transformer import pretrained

    args = parse_args(argv)
    if args.beam is not None and args.beam < 0:
        raise SystemExit("--beam must be 0 (greedy only) or more")
    loaded = pretrained.load_pretrained(args.model, select_device(args.device))
    d = loaded.decoding.override(args.beam, args.alpha)
    if not args.corpus:
        shipped = Path(args.model) / "heldout"
        args.corpus = str(shipped if shipped.is_dir() else Path("data/corpus"))
    sources, references = data.read_parallel(Path(args.corpus) / args.split)
    if args.limit:
        sources, references = sources[: args.limit], references[: args.limit]
    result = evaluate(
        loaded.model, loaded.tokenizer, sources, references, d.beam_size, d.alpha, args.batch_size
    )
    result = {
        "model": str(args.model),
        "model_id": loaded.model_id,
        "corpus": str(args.corpus),
        "split": args.split,
        **result,
    }
    lexicon = Path(args.corpus) / "lexicon"
    if args.health and Path(f"{lexicon}.en").is_file():
        from training import health

        measured = health.measure(
            loaded.model, loaded.tokenizer, sources[: args.health], references[: args.health],
            health.load_lexicon(lexicon),
        )  # fmt: skip
        result["health"] = measured.summary()
    from tasks.numbers import alignment, grammar

    if sources and all(grammar.parse(s) is not None for s in sources):  # phrases with a right answer
        result["gold_alignment"] = alignment.measure(loaded.model, loaded.tokenizer, sources)
    print(f"{args.model} on {args.corpus}/{args.split} ({len(sources)} sentences)")
    print(table(result))
    if "health" in result:
        print(health.table(result["health"]))
    if "gold_alignment" in result:
        g = result["gold_alignment"]
        best = f"layer {g['best_layer'] + 1}, {100 * g['best']:.1f}% of {g['pieces']} pieces"
        print(f"gold alignment per decoder layer (heads averaged): {g['per_layer']}; best: {best}")
    print(result["greedy"]["bleu_signature"])
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
