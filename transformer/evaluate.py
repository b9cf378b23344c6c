"""Held-out evaluation: sacreBLEU BLEU and chrF of greedy and beam-search translations (paper §6.1).

    python -m transformer.evaluate --model pretrained --split test --beam 4 --alpha 0.6 --out test.json

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

import torch

from transformer import masks
from transformer.decoding import Hypothesis, default_max_len, length_penalty
from transformer.device import select_device
from transformer.inputs import encode_source
from transformer.model import Transformer


def _next_token_logits(
    model: Transformer, tgt: torch.Tensor, memory: torch.Tensor, src_allowed: torch.Tensor
) -> torch.Tensor:
    """Logits for the token after the last target position only: (B, T) -> (B, V).

    `model.decode` projects every position onto the vocabulary; a decoding step only needs the
    last one, and on a CPU the (B, T, V) projection is a large share of a step.
    """
    tgt_allowed = masks.target_mask(tgt, model.config.pad_id)  # (B, 1, T, T)
    y = model.tgt_pos_enc(model.tgt_embed(tgt))  # (B, T, D)
    h = model.decoder(y, memory, tgt_allowed, src_allowed)  # (B, T, D)
    return model.generator(h[:, -1:])[:, 0]  # (B, V)


def _encode_batch(model: Transformer, sources: list[list[int]]):
    """Pad and encode sources: -> src_allowed (B, 1, 1, S), memory (B, S, D)."""
    if not sources or any(len(s) == 0 for s in sources):
        raise ValueError("sources must be non-empty id lists")
    cfg = model.config
    src = torch.full(
        (len(sources), max(map(len, sources))), cfg.pad_id, dtype=torch.long, device=model.device
    )
    for row, ids in enumerate(sources):
        src[row, : len(ids)] = torch.as_tensor(ids, device=model.device)  # (B, S)
    src_allowed = model.src_allowed(src)  # (B, 1, 1, S)
    return src_allowed, model.encode(src, src_allowed)  # (B, S, D)


def _limits(model: Transformer, sources: list[list[int]], max_len: int | None) -> list[int]:
    return [default_max_len(model, len(s)) if max_len is None else max_len for s in sources]


@torch.no_grad()
def greedy_decode_batch(
    model: Transformer, sources: list[list[int]], max_len: int | None = None
) -> list[Hypothesis]:
    """Greedy decoding of several sources at once; the same result as `greedy_decode` on each.

    Each source is a non-empty id list ending in EOS. A sentence stops at EOS or at its own
    maximum length (`max_len`, or the paper's input length + 50) and leaves the batch, so the
    decoder only ever runs on sentences still going (all of the same length: no target padding).
    """
    cfg, device = model.config, model.device
    src_allowed, memory = _encode_batch(model, sources)  # (B, 1, 1, S), (B, S, D)
    limits = _limits(model, sources, max_len)
    ids: list[list[int]] = [[] for _ in sources]
    log_prob = [0.0] * len(sources)
    finished = [False] * len(sources)
    rows = torch.tensor([i for i, limit in enumerate(limits) if limit > 0], dtype=torch.long)  # (R,) going
    tgt = torch.full((len(rows), 1), cfg.bos_id, dtype=torch.long, device=device)  # (R, T)
    step = 0
    while len(rows):
        step += 1
        index = rows.to(device)
        log_probs = _next_token_logits(model, tgt, memory[index], src_allowed[index]).float().log_softmax(-1)
        best_lp, next_id = log_probs.max(-1)  # (R,), (R,)
        keep = []
        for j, (row, lp, token) in enumerate(
            zip(rows.tolist(), best_lp.tolist(), next_id.tolist(), strict=True)
        ):
            log_prob[row] += lp
            if token == cfg.eos_id:
                finished[row] = True
                continue
            ids[row].append(token)
            if step < limits[row]:
                keep.append(j)
        keep_t = torch.tensor(keep, dtype=torch.long)
        rows = rows[keep_t]
        keep_t = keep_t.to(device)
        tgt = torch.cat([tgt[keep_t], next_id[keep_t, None]], dim=1)  # (R', T+1)
    return [Hypothesis(i, lp, lp, f) for i, lp, f in zip(ids, log_prob, finished, strict=True)]


def _choose(cand_lp: torch.Tensor, beam_size: int, eos_id: int):
    """One sentence's beam step, as in `beam_search`: walk the 2W best (row, token) candidates
    (cand_lp: (W, V)) best first; EOS ends a hypothesis, others extend it, until W are extended.

    Returns ended [(row, log_prob)], and rows, tokens, log_probs of the extended prefixes.
    """
    top_lp, top_idx = cand_lp.flatten().topk(min(2 * beam_size, cand_lp.numel()))
    ended, rows, tokens, lps = [], [], [], []
    for lp, flat in zip(top_lp.tolist(), top_idx.tolist(), strict=True):
        row, token = divmod(flat, cand_lp.size(1))
        if token == eos_id:
            ended.append((row, lp))
        else:
            rows.append(row)
            tokens.append(token)
            lps.append(lp)
        if len(rows) == beam_size:
            break
    return ended, rows, tokens, lps


@torch.no_grad()
def beam_search_batch(
    model: Transformer,
    sources: list[list[int]],
    beam_size: int = 4,
    alpha: float = 0.6,
    max_len: int | None = None,
) -> list[list[Hypothesis]]:
    """`transformer.decoding.beam_search` for several sources at once, with the same results.

    The live prefixes of every sentence go through the decoder together (one call per step
    instead of one per sentence and step); choosing, finishing and stopping follow `beam_search`
    rule for rule, sentence by sentence. Returns each sentence's hypotheses, best first.
    """
    if beam_size < 1:
        raise ValueError("beam_size must be at least 1")
    cfg, device = model.config, model.device
    src_allowed, memory = _encode_batch(model, sources)  # (B, 1, 1, S), (B, S, D)
    limits = _limits(model, sources, max_len)
    results: list[list[Hypothesis] | None] = [None] * len(sources)
    finished: list[list[Hypothesis]] = [[] for _ in sources]
    # Live prefixes of all unfinished sentences, R rows, each sentence's rows kept together.
    owner = [i for i, limit in enumerate(limits) if limit > 0]  # (R,) sentence of each row
    for i, limit in enumerate(limits):
        if limit <= 0:
            results[i] = [Hypothesis([], 0.0, 0.0, False)]
    prefixes = torch.full((len(owner), 1), cfg.bos_id, dtype=torch.long, device=device)  # (R, T)
    prefix_lp = torch.zeros(len(owner), device=device)  # (R,)
    step = 0
    while owner:
        step += 1
        rows = torch.tensor(owner, device=device)
        logits = _next_token_logits(model, prefixes, memory[rows], src_allowed[rows])  # (R, V)
        cand_lp = (prefix_lp[:, None] + logits.float().log_softmax(-1)).cpu()  # (R, V)
        keep_rows, keep_tokens, keep_lp, keep_owner = [], [], [], []
        start = 0
        while start < len(owner):
            sent = owner[start]
            end = start
            while end < len(owner) and owner[end] == sent:
                end += 1
            ended, nxt_rows, nxt_tokens, nxt_lp = _choose(cand_lp[start:end], beam_size, cfg.eos_id)
            for row, lp in ended:
                ids = prefixes[start + row, 1:].tolist()
                finished[sent].append(Hypothesis(ids, lp, lp / length_penalty(step, alpha), True))
            nxt_rows = [start + row for row in nxt_rows]
            finished[sent].sort(key=lambda h: h.score, reverse=True)
            if len(finished[sent]) >= beam_size or not nxt_rows:
                results[sent] = finished[sent][:beam_size]
            elif step >= limits[sent]:
                if finished[sent]:
                    results[sent] = finished[sent][:beam_size]
                else:  # nothing ended within max_len: the live prefixes, marked unfinished
                    live = [prefixes[r, 1:].tolist() + [t] for r, t in zip(nxt_rows, nxt_tokens, strict=True)]
                    hyps = [
                        Hypothesis(ids, lp, lp / length_penalty(len(ids), alpha), False)
                        for ids, lp in zip(live, nxt_lp, strict=True)
                    ]
                    results[sent] = sorted(hyps, key=lambda h: h.score, reverse=True)[:beam_size]
            else:
                keep_rows += nxt_rows
                keep_tokens += nxt_tokens
                keep_lp += nxt_lp
                keep_owner += [sent] * len(nxt_rows)
            start = end
        owner = keep_owner
        index = torch.tensor(keep_rows, dtype=torch.long, device=device)
        tokens = torch.tensor(keep_tokens, dtype=torch.long, device=device)
        prefixes = torch.cat([prefixes[index], tokens[:, None]], dim=1)  # (R', T+1)
        prefix_lp = torch.tensor(keep_lp, device=device)
    return results  # type: ignore[return-value]


def _by_length(decode, sources: list[list[int]], batch_size: int) -> list:
    """Run `decode` on batches of similar-length sources; results in input order."""
    order = sorted(range(len(sources)), key=lambda i: len(sources[i]))
    out: list = [None] * len(sources)
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        for i, result in zip(chunk, decode([sources[i] for i in chunk]), strict=True):
            out[i] = result
    return out


def greedy_translate(model: Transformer, sources: list[list[int]], batch_size: int = 64) -> list[Hypothesis]:
    """Greedy hypotheses of any number of sources, in input order."""
    return _by_length(lambda chunk: greedy_decode_batch(model, chunk), sources, batch_size)


def beam_translate(
    model: Transformer, sources: list[list[int]], beam_size: int, alpha: float, batch_size: int = 16
) -> list[Hypothesis]:
    """The best beam-search hypothesis of each source, in input order."""
    decode = lambda chunk: [h[0] for h in beam_search_batch(model, chunk, beam_size, alpha)]
    return _by_length(decode, sources, batch_size)


def score(hypotheses: list[str], references: list[str]) -> dict:
    """Corpus BLEU and chrF with sacreBLEU's defaults, and the signatures that name those settings."""
    import sacrebleu

    bleu, chrf = sacrebleu.metrics.BLEU(), sacrebleu.metrics.CHRF()
    b, c = bleu.corpus_score(hypotheses, [references]), chrf.corpus_score(hypotheses, [references])
    return {
        "bleu": round(b.score, 2),
        "chrf": round(c.score, 2),
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
    rows = [f"{'decoding':<18}{'BLEU':>7}{'chrF':>7}{'seconds':>9}"]
    for key in ("greedy", "beam"):
        if key in result:
            r = result[key]
            name = "greedy" if key == "greedy" else f"beam {r['beam_size']}, α={r['alpha']}"
            rows.append(f"{name:<18}{r['bleu']:>7.2f}{r['chrf']:>7.2f}{r['seconds']:>9.1f}")
    return "\n".join(rows)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="BLEU and chrF of a model directory on a corpus split.")
    p.add_argument("--model", default="pretrained", help="model directory (config, weights, spm.model)")
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument("--split", default="test", help="reads CORPUS/SPLIT.en and CORPUS/SPLIT.de")
    p.add_argument("--beam", type=int, default=4, help="beam size (0: greedy only)")
    p.add_argument("--alpha", type=float, default=0.6, help="length penalty α")
    p.add_argument("--limit", type=int, default=0, help="only the first N sentences (0: all)")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per greedy batch")
    p.add_argument("--device", default="auto")
    p.add_argument("--out", default="", help="write scores, signatures and hypotheses to this JSON file")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    from transformer import data, pretrained

    args = parse_args(argv)
    if args.beam < 0:
        raise SystemExit("--beam must be 0 (greedy only) or more")
    loaded = pretrained.load_pretrained(args.model, select_device(args.device))
    sources, references = data.read_parallel(Path(args.corpus) / args.split)
    if args.limit:
        sources, references = sources[: args.limit], references[: args.limit]
    result = evaluate(
        loaded.model, loaded.tokenizer, sources, references, args.beam, args.alpha, args.batch_size
    )
    result = {
        "model": str(args.model),
        "model_id": loaded.model_id,
        "corpus": str(args.corpus),
        "split": args.split,
        **result,
    }
    print(f"{args.model} on {args.corpus}/{args.split} ({len(sources)} sentences)")
    print(table(result))
    print(result["greedy"]["bleu_signature"])
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
