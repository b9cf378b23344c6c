"""Training health: numbers that say whether the model uses its source, measured on held-out pairs.

A translation model can write fluent target-language text while ignoring the source: its decoder is
then a language model, the cross-attention is uniform and every "alignment" picture is noise. Loss
and BLEU move slowly when that happens; these four numbers say it directly.

    position cosine    mean cos(x_i, x_j) over pairs of source positions i ≠ j, per encoder layer
                       (1.0: every position holds the same vector, the encoder has collapsed)
    cross entropy ratio  H(row) / ln(S) of the cross-attention, mean over heads and target rows,
                       per decoder layer (1.0: uniform over the S source positions)
    lexicon alignment  share of (English word, German word) pairs linked by a bilingual lexicon for
                       which the head-averaged cross-attention of the German word puts its largest
                       weight on that English word, per decoder layer; `chance` is the same share
                       for a guess uniform over the source words
    source KL          mean KL(p(·|own source) ‖ p(·|another sentence's source)) of the next-token
                       distributions along the reference (0: the source changes nothing)

The German word's row is the decoder position that *produces* it (teacher forcing: the input there
is the token before it), averaged over the word's pieces; an English word's weight is the sum over
its pieces. The end token `</s>` counts as a key of its own, so weight parked there counts as a miss.

Shapes: L layers, H heads, S source positions, T target positions, D = d_model, V vocabulary.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from analysis.heads import WORD_START, word_ids
from transformer import hooks
from transformer.model import Transformer
from transformer.trace import attn_hook, layer_hook

SPECIALS = ("<s>", "</s>", "<pad>")
_LETTERS = re.compile(r"[^\w]+", re.UNICODE)


def word_key(word: str) -> str:
    """Lower case, punctuation stripped: the form in which lexicon and sentence words are compared."""
    return _LETTERS.sub("", word.lower())


def load_lexicon(prefix: str | Path, max_pairs: int | None = None) -> set[tuple[str, str]]:
    """One-word (English, German) pairs from ``prefix.en`` / ``prefix.de`` (e.g. the Ding lexicon)."""
    en_lines = Path(f"{prefix}.en").read_text(encoding="utf-8").splitlines()
    de_lines = Path(f"{prefix}.de").read_text(encoding="utf-8").splitlines()
    pairs: set[tuple[str, str]] = set()
    for en, de in zip(en_lines, de_lines, strict=True):
        if " " in en.strip() or " " in de.strip():
            continue
        e, g = word_key(en), word_key(de)
        if e and g:
            pairs.add((e, g))
            if max_pairs and len(pairs) >= max_pairs:
                break
    return pairs


def piece_words(pieces: Sequence[str]) -> list[int]:
    """Word index of each piece (`heads.word_ids`); -1 for the sentence markers and padding."""
    return [-1 if piece in SPECIALS else w for piece, w in zip(pieces, word_ids(list(pieces)), strict=True)]


def word_strings(pieces: Sequence[str]) -> list[str]:
    """The words of a piece sequence, in order, as `word_key` forms."""
    words: dict[int, str] = {}
    for piece, w in zip(pieces, piece_words(pieces), strict=True):
        if w >= 0:
            words[w] = words.get(w, "") + piece.replace(WORD_START, "")
    return [word_key(words[i]) for i in range(len(words))]


def linked_pairs(
    src_words: Sequence[str], tgt_words: Sequence[str], lexicon: set[tuple[str, str]]
) -> list[tuple[int, int]]:
    """(source word, target word) index pairs that the lexicon links, each word unique on its side."""
    src_once = {w: i for i, w in enumerate(src_words) if w and src_words.count(w) == 1}
    tgt_once = {w: i for i, w in enumerate(tgt_words) if w and tgt_words.count(w) == 1}
    found = [(i, j) for e, i in src_once.items() for g, j in tgt_once.items() if (e, g) in lexicon]
    # A word linked to two words on the other side is ambiguous: keep one-to-one links only.
    src_count: dict[int, int] = {}
    tgt_count: dict[int, int] = {}
    for i, j in found:
        src_count[i] = src_count.get(i, 0) + 1
        tgt_count[j] = tgt_count.get(j, 0) + 1
    return [(i, j) for i, j in found if src_count[i] == 1 and tgt_count[j] == 1]


@dataclass
class Health:
    """The health numbers of one model on a set of sentence pairs (layers 0-based in the lists)."""

    position_cosine: list[float]  # per encoder layer
    cross_entropy_ratio: list[float]  # per decoder layer
    alignment_accuracy: list[float]  # per decoder layer (NaN when no lexicon pair was found)
    alignment_chance: float
    alignment_pairs: int
    source_kl: float
    sentences: int
    extra: dict = field(default_factory=dict)

    @property
    def best_layer(self) -> int:
        """Decoder layer with the highest lexicon alignment accuracy (0-based)."""
        scores = [a if not math.isnan(a) else -1.0 for a in self.alignment_accuracy]
        return max(range(len(scores)), key=scores.__getitem__)

    def summary(self) -> dict:
        """Flat, rounded numbers for a log line or a model card."""
        best = self.best_layer
        return {
            "encoder_position_cosine": [round(c, 3) for c in self.position_cosine],
            "cross_entropy_ratio": [round(r, 3) for r in self.cross_entropy_ratio],
            "alignment_accuracy": [round(a, 3) for a in self.alignment_accuracy],
            "alignment_best_layer": best + 1,  # 1-based, as the app and the paper count
            "alignment_best": round(self.alignment_accuracy[best], 3),
            "alignment_best_entropy_ratio": round(self.cross_entropy_ratio[best], 3),
            "alignment_chance": round(self.alignment_chance, 3),
            "alignment_pairs": self.alignment_pairs,
            "source_kl": round(self.source_kl, 4),
            "health_sentences": self.sentences,
        }


def one_line(summary: dict) -> str:
    """The headline numbers of a `Health.summary()` (or a log record holding one) in one line."""
    if "alignment_best" not in summary:
        return "no health numbers"
    return (
        f"alignment {summary['alignment_best']:.2f} in layer {summary['alignment_best_layer']} "
        f"(chance {summary['alignment_chance']:.2f}), cross entropy ratio "
        f"{summary['alignment_best_entropy_ratio']:.2f}, encoder cosine "
        f"{summary['encoder_position_cosine'][-1]:.2f}, source KL {summary['source_kl']:.3f}"
    )


def table(summary: dict) -> str:
    """A `Health.summary()` as text, one column per layer (1-based, as the app and paper count)."""
    n = len(summary["cross_entropy_ratio"])
    lines = [f"{'layer':<32}" + "".join(f"{i:>7}" for i in range(1, n + 1))]
    for label, key in (
        ("encoder position cosine", "encoder_position_cosine"),
        ("cross-attention entropy / ln S", "cross_entropy_ratio"),
        ("lexicon alignment accuracy", "alignment_accuracy"),
    ):
        lines.append(f"{label:<32}" + "".join(f"{v:>7.3f}" for v in summary[key]))
    lines.append(
        f"best layer {summary['alignment_best_layer']}: alignment {summary['alignment_best']:.3f} "
        f"(chance {summary['alignment_chance']:.3f}, {summary['alignment_pairs']} lexicon pairs), "
        f"source KL {summary['source_kl']:.3f} nats"
    )
    return "\n".join(lines)


def _pieces(tokenizer, ids: Iterable[int]) -> list[str]:
    return [tokenizer.id_to_piece(i) for i in ids]


@torch.no_grad()
def measure(
    model: Transformer,
    tokenizer,
    sources: Sequence[str],
    references: Sequence[str],
    lexicon: set[tuple[str, str]],
    max_len: int = 100,
) -> Health:
    """Health of `model` on (source, reference) pairs, teacher-forced on the references.

    The model is put in eval mode for the measurement and restored afterwards.
    """
    was_training = model.training
    model.eval()
    cfg, device = model.config, model.device
    n_enc = n_dec = cfg.n_layers
    cos_sum = [0.0] * n_enc
    ent_sum = [0.0] * n_dec
    hits = [0] * n_dec
    chance_sum, n_pairs, n_cos, n_ent = 0.0, 0, 0, 0
    encoded = []
    for src_text, ref_text in zip(sources, references, strict=True):
        s = tokenizer.encode(src_text)[: max_len - 1] + [cfg.eos_id]
        t = [cfg.bos_id] + tokenizer.encode(ref_text)[: max_len - 2] + [cfg.eos_id]
        if len(s) >= 2 and len(t) >= 3:
            encoded.append((s, t))
    for s, t in encoded:
        src = torch.tensor([s], device=device)  # (1, S)
        tgt = torch.tensor([t[:-1]], device=device)  # (1, T) decoder input
        with hooks.record() as store:
            model(src, tgt)
        for layer in range(n_enc):
            x = store[layer_hook("encoder", layer, "norm2")][0].float()  # (S, D)
            if x.size(0) >= 2:
                unit = F.normalize(x, dim=-1)
                cos = unit @ unit.T  # (S, S)
                m = x.size(0)
                cos_sum[layer] += float((cos.sum() - cos.diagonal().sum()) / (m * (m - 1)))
        n_cos += 1
        src_len = len(s)
        produced = t[1:]  # the token each decoder position produces
        src_pieces, out_pieces = _pieces(tokenizer, s), _pieces(tokenizer, produced)
        src_word_of = piece_words(src_pieces)
        tgt_word_of = piece_words(out_pieces)
        links = linked_pairs(word_strings(src_pieces), word_strings(out_pieces), lexicon)
        n_src_words = max(src_word_of) + 1 if max(src_word_of) >= 0 else 0
        # keys: each source word, plus `</s>` as a key of its own
        # recorded tensors are CPU copies (transformer.hooks), wherever the model runs
        key_group = torch.tensor([w if w >= 0 else n_src_words for w in src_word_of])
        for layer in range(n_dec):
            pattern = store[attn_hook("decoder", "cross", layer, "pattern")][0].float()  # (H, T, S)
            p = pattern.clamp_min(1e-12)
            row_entropy = -(pattern * p.log()).sum(-1)  # (H, T)
            ent_sum[layer] += float(row_entropy.mean()) / math.log(src_len)
            if not links:
                continue
            mean_rows = pattern.mean(0)  # (T, S) heads averaged
            per_word = torch.zeros(mean_rows.size(0), n_src_words + 1)
            per_word.index_add_(1, key_group, mean_rows)  # (T, words + 1)
            for i, j in links:
                rows = [q for q, w in enumerate(tgt_word_of) if w == j]
                if int(per_word[rows].mean(0).argmax()) == i:
                    hits[layer] += 1
        n_ent += 1
        n_pairs += len(links)
        chance_sum += len(links) / (n_src_words + 1)
    source_kl = _source_kl(model, encoded)
    model.train(was_training)
    return Health(
        position_cosine=[c / max(n_cos, 1) for c in cos_sum],
        cross_entropy_ratio=[e / max(n_ent, 1) for e in ent_sum],
        alignment_accuracy=[h / n_pairs if n_pairs else math.nan for h in hits],
        alignment_chance=chance_sum / n_pairs if n_pairs else math.nan,
        alignment_pairs=n_pairs,
        source_kl=source_kl,
        sentences=len(encoded),
    )


def _source_kl(model: Transformer, encoded: list[tuple[list[int], list[int]]], batch: int = 32) -> float:
    """Mean KL between next-token distributions under the own source and the next pair's source."""
    if len(encoded) < 2:
        return math.nan
    cfg, device = model.config, model.device
    total, count = 0.0, 0
    swapped = encoded[1:] + encoded[:1]
    for start in range(0, len(encoded), batch):
        rows = encoded[start : start + batch]
        others = swapped[start : start + batch]
        tgt = _pad([t[:-1] for _, t in rows], cfg.pad_id, device)  # (B, T)
        own = _pad([s for s, _ in rows], cfg.pad_id, device)  # (B, S)
        other = _pad([s for s, _ in others], cfg.pad_id, device)  # (B, S')
        log_p = model(own, tgt).float().log_softmax(-1)  # (B, T, V)
        log_q = model(other, tgt).float().log_softmax(-1)  # (B, T, V)
        kl = (log_p.exp() * (log_p - log_q)).sum(-1)  # (B, T)
        real = tgt != cfg.pad_id
        total += float(kl[real].sum())
        count += int(real.sum())
    return total / max(count, 1)


def _pad(rows: list[list[int]], pad_id: int, device) -> torch.Tensor:
    out = torch.full((len(rows), max(len(r) for r in rows)), pad_id, dtype=torch.long, device=device)
    for i, r in enumerate(rows):
        out[i, : len(r)] = torch.tensor(r)
    return out


def main(argv: list[str] | None = None) -> dict:
    """Measure a model directory on a corpus split and write the summary as JSON (for the app)."""
    import argparse
    import json

    from training import data
    from transformer import pretrained

    parser = argparse.ArgumentParser(description="Training health of a model directory.")
    parser.add_argument("--model", default="pretrained")
    parser.add_argument("--corpus", default="data/corpus")
    parser.add_argument("--split", default="valid")
    parser.add_argument("--sentences", type=int, default=750)
    parser.add_argument("--out", default="", help="write the summary here (e.g. pretrained/health.json)")
    args = parser.parse_args(argv)
    loaded = pretrained.load_pretrained(args.model)
    sources, references = data.read_parallel(Path(args.corpus) / args.split)
    lexicon = load_lexicon(Path(args.corpus) / "lexicon")
    n = args.sentences
    summary = measure(loaded.model, loaded.tokenizer, sources[:n], references[:n], lexicon).summary()
    summary = {"model_id": loaded.model_id, "split": args.split, **summary}
    print(table(summary))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
    return summary


if __name__ == "__main__":
    main()
