"""Sample translations for the model card, with a screen of their cross-attention alignment.

    python -m training.samples --model pretrained --split test --n 10

Translates the first N sentences of a corpus split with beam search (the model's beam size and α), traces each
translation, and prints a Markdown table: English, the model's German, the reference, and the
alignment screen of the last decoder layer's cross-attention averaged over the heads
(`analysis.decoding.cross_alignment`). The screen only flags candidates: the card
states how many samples show a clean word-to-word alignment after looking at them in the app.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from analysis.decoding import cross_alignment
from training import data
from transformer import pretrained
from transformer.decoding import beam_search
from transformer.inputs import encode_source
from transformer.trace import run_trace


def sample_rows(loaded: pretrained.LoadedModel, sources: list[str], references: list[str],
                beam: int = 4, alpha: float = 0.6) -> list[dict]:
    """One row per sentence: source, hypothesis, reference and its alignment screen."""
    tok, model = loaded.tokenizer, loaded.model
    last = model.config.n_layers - 1
    rows = []
    for en, de in zip(sources, references, strict=True):
        src = encode_source(tok, en)
        hyp = beam_search(model, src.ids, beam_size=beam, alpha=alpha)[0]
        pieces = ["<s>", *(tok.id_to_piece(i) for i in hyp.ids)]
        trace = run_trace(model, src.ids, [tok.bos_id, *hyp.ids], src.pieces, pieces)
        weights = trace.attention("decoder", "cross", last).mean(dim=0)[1:]  # (T, S): generated tokens
        rows.append({"source": en, "model": tok.decode(hyp.ids), "reference": de,
                     "alignment": cross_alignment(weights)})
    return rows


def markdown(rows: list[dict]) -> str:
    cell = lambda text: text.replace("|", "\\|")  # noqa: E731
    lines = ["| English | model (beam 4) | reference | ρ | on `</s>` | screen |",
             "|---|---|---|---:|---:|---|"]
    for r in rows:
        a = r["alignment"]
        lines.append(f"| {cell(r['source'])} | {cell(r['model'])} | {cell(r['reference'])} | "
                     f"{a.monotonic:.2f} | {a.on_end:.2f} | {'pass' if a.clean else '—'} |")
    passed = sum(r["alignment"].clean for r in rows)
    lines.append(f"\n{passed} of {len(rows)} pass the screen (ρ ≥ 0.5 and ≤ 0.3 on `</s>`).")
    return "\n".join(lines)


def main(argv=None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="pretrained")
    p.add_argument("--corpus", default="data/corpus")
    p.add_argument("--split", default="test")
    p.add_argument("--n", type=int, default=10)
    args = p.parse_args(argv)
    loaded = pretrained.load_pretrained(args.model)
    sources, references = data.read_parallel(Path(args.corpus) / args.split)
    d = loaded.decoding
    text = markdown(sample_rows(loaded, sources[: args.n], references[: args.n], d.beam_size, d.alpha))
    print(text)
    return text


if __name__ == "__main__":
    main()
