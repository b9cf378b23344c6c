""" "Why these choices?": the paper's choices, the shipped variants without them, and what they show.

The variants are the numbers model trained without one choice each (`training.numbers.ablations`),
shipped in `pretrained/ablations/<variant>/` with their scores (`scores.json`). Every statement the
page makes is computed here from those scores, so new runs change the text with the numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import streamlit as st
import torch

from transformer.decoding import greedy_translate
from transformer.pretrained import LoadedModel, PretrainedError, load_pretrained
from transformer.trace import run_trace
from ui.frame import MODEL_DIR

FOLDER = MODEL_DIR / "ablations"
BASE = "base"
SCORES_FILE = "scores.json"


@dataclass(frozen=True)
class Choice:
    label: str  # the choice, as the picker names it
    claim: str  # what the paper says about it, in our words, with its section
    variants: tuple[str, ...]  # the shipped variants that take it away
    expect: tuple[str, ...]  # per variant: "worse" (the paper's claim) or "same" (no difference)
    statistic: str = ""  # the page's extra view: "scaling", "heads" or "positions"


CHOICES = {
    "scaling": Choice(
        "Scaling the scores by 1/√d_k (§3.2.1)",
        "§3.2.1 and its footnote 4: dot products of d_k-wide vectors grow with d_k; large scores push the "
        "softmax into regions where it is nearly one-hot and its gradient is tiny, so the paper divides "
        "them by √d_k.",
        ("no-scale",),
        ("worse",),
        "scaling",
    ),
    "heads": Choice(
        "Several heads (§3.2.2, Table 3 rows A)",
        "§3.2.2: several heads attend to different things at once, where one head would average them. "
        "In Table 3 (rows A), one head scored 0.9 BLEU below eight at the same cost, and 16 or 32 heads "
        "were also slightly worse.",
        ("heads-1", "heads-2", "heads-4", "heads-16"),
        ("worse", "worse", "worse", "worse"),
        "heads",
    ),
    "key_size": Choice(
        "The key size d_k (Table 3 rows B)",
        "Table 3 (rows B): making the keys narrower hurts; the paper reads this as a sign that deciding "
        "which words match is not easy for a dot product.",
        ("small-dk",),
        ("worse",),
    ),
    "positions": Choice(
        "Positional encoding (§3.5)",
        "§3.5: the model has no recurrence and no convolution, so the order of the words reaches it only "
        "through the positional encodings added to the embeddings.",
        ("no-positions",),
        ("worse",),
        "positions",
    ),
    "learned": Choice(
        "Sinusoids against learned positions (§3.5, Table 3 row E)",
        "§3.5 and Table 3 (row E): learned position embeddings gave nearly identical results; the paper "
        "keeps the sinusoids because they may extend to sequences longer than any seen in training.",
        ("learned-positions",),
        ("same",),
    ),
    "residual": Choice(
        "Residual connections (§3.1)",
        "§3.1: every sub-layer's output is added to its input, x + Sublayer(x). The paper takes this from "
        "deep image networks, where it lets deep stacks train; it does not measure the model without it.",
        ("no-residual",),
        ("worse",),
    ),
    "layernorm": Choice(
        "Layer normalisation (§3.1)",
        "§3.1: each sub-layer's sum is normalised, LayerNorm(x + Sublayer(x)). The paper does not try the "
        "model without it, nor with the normalisation moved before the sub-layer (a later variant).",
        ("no-layernorm", "pre-layernorm"),
        ("worse", "same"),
    ),
    "smoothing": Choice(
        "Label smoothing (§5.4, Table 3 rows D)",
        "§5.4: label smoothing (ε = 0.1) makes the model less sure of itself. It hurts perplexity (the "
        "held-out loss) but improves accuracy and BLEU.",
        ("no-label-smoothing",),
        ("worse",),
    ),
    "dropout": Choice(
        "Dropout (§5.4, Table 3 rows D)",
        "Table 3 (rows D): dropout (P = 0.1) is very helpful in avoiding over-fitting; without it the "
        "base model scored 0.7 BLEU lower on English–German.",
        ("no-dropout",),
        ("worse",),
    ),
}


def read_scores(folder: Path = FOLDER) -> tuple[dict[str, dict], list[str]]:
    """(variant -> its scores, problems): every folder under `folder` with a readable scores.json."""
    scores, problems = {}, []
    for path in sorted(folder.glob(f"*/{SCORES_FILE}")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            float(data["exact_match"]["mean"]), float(data["alignment"]["mean"])  # noqa: B018
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
            problems.append(f"{path.parent.name}: {SCORES_FILE} is unreadable ({type(err).__name__})")
            continue
        scores[path.parent.name] = data
    return scores, problems


@st.cache_data(show_spinner=False)
def cached_scores() -> tuple[dict[str, dict], list[str]]:
    return read_scores()


def compare(base: dict, variant: dict) -> tuple[str, float, float]:
    """("worse" | "same" | "better", difference in points, margin) of two {"mean", "spread"} scores:
    a difference counts beyond the larger of 1 point and the spread between seeds of either."""
    diff = variant["mean"] - base["mean"]
    margin = max(1.0, base["spread"], variant["spread"])
    return ("worse" if diff < -margin else "better" if diff > margin else "same"), diff, margin


def outcome(base: dict, variant: dict) -> tuple[str, float, float]:
    """The variant's exact match at the end of training against the paper's model's."""
    return compare(base["exact_match"], variant["exact_match"])


def learning_outcome(base: dict, variant: dict) -> tuple[str, str, float, float] | None:
    """(step, result, base %, variant %) at the milestone where the paper's model is half-way through
    learning (the first at which it has ≥ 50% right), or None without learning curves."""
    b, v = base.get("learning") or {}, variant.get("learning") or {}
    steps = [s for s in sorted(set(b) & set(v), key=int) if b[s]["mean"] >= 50]
    if not steps:
        return None
    step = steps[0]
    return step, compare(b[step], v[step])[0], b[step]["mean"], v[step]["mean"]


def _seeds(scores: dict) -> str:
    n = len(scores.get("seeds", [])) or 1
    return f"{n} seed{'s' if n > 1 else ''}"


def verdict(base: dict, variant: dict, expect: str) -> str:
    """What the runs show about one variant, with its numbers, and whether the paper's claim holds."""
    result, diff, margin = outcome(base, variant)
    b, v = base["exact_match"]["mean"], variant["exact_match"]["mean"]
    ab, av = base["alignment"]["mean"], variant["alignment"]["mean"]
    numbers = (
        f"**{variant['title']}**: {v:.1f}% of the held-out phrases exactly right at the end against "
        f"{b:.1f}% for the paper's model ({_seeds(variant)} against {_seeds(base)}, "
        f"{variant.get('steps', '?')} steps each); the last decoder layer's cross-attention points at the "
        f"right English word for {av:.0f}% of the German pieces against {ab:.0f}%."
    )
    diff = round(v, 1) - round(b, 1)  # of the numbers shown, so that a reader's subtraction agrees
    if result == "same":
        found = f"The difference ({diff:+.1f} points) is within the noise (±{margin:.1f} points)."
    else:
        found = f"That is {abs(diff):.1f} points {result} than the paper's model (noise: ±{margin:.1f})."
    speed = learning_outcome(base, variant)
    pace = ""
    if speed is not None:
        step, fast, lb, lv = speed
        noise = compare(base["learning"][step], variant["learning"][step])[2]
        how = {"worse": "more slowly than", "same": "as fast as", "better": "faster than"}[fast]
        pace = (
            f" Learning speed: after {step} steps it had {lv:.1f}% right against {lb:.1f}% (noise between "
            f"seeds: ±{noise:.1f}): it learned {how} the paper's model."
        )
    if result == expect:
        agree = "This agrees with the paper."
    elif expect == "worse" and result == "same" and speed is not None and speed[1] == "worse":
        agree = (
            "At the end both solve this small task; the choice shows in how fast the model gets "
            "there, the direction the paper argues."
        )
    elif expect == "worse" and result == "same":
        agree = (
            "The paper's claim does not show on this small task: both models solve it equally well "
            "within this budget."
        )
    else:
        agree = "This is not what the paper reports: a small model on a toy task can behave differently."
    return f"{numbers} {found}{pace} {agree}"


def loss_note(base: dict, variant: dict) -> str:
    """Held-out loss of both (label smoothing trades it against accuracy)."""
    b, v = base["per_seed"], variant["per_seed"]
    mean = lambda runs: sum(r["final_valid_loss"] for r in runs.values()) / len(runs)  # noqa: E731
    return (
        f"Held-out loss per German piece at the end: {mean(v):.3f} without it, {mean(b):.3f} with it "
        "(lower is better; the paper expects smoothing to raise it)."
    )


def scaling_note(base: dict, variant: dict) -> str:
    """The softmax's input, entropy and gradient size at the end of training, with and without scaling."""
    first = lambda s: s["per_seed"][str(min(s["seeds"]))]["attention"]["final"]  # noqa: E731
    b, v = first(base), first(variant)
    return (
        f"At the end of training (first seed, all attention layers and heads): the softmax's input has "
        f"variance {v['logit_var']:.2f} without scaling against {b['logit_var']:.2f} with it; entropy "
        f"{v['entropy']:.2f} against {b['entropy']:.2f} nats; largest weight {v['max_weight']:.2f} against "
        f"{b['max_weight']:.2f}; softmax gradient size {v['softmax_gradient']:.3f} against "
        f"{b['softmax_gradient']:.3f}. Here d_k = 8, so unscaled scores are only √8 ≈ 2.8 times larger: "
        "the slider below shows what happens at the paper's d_k = 64."
    )


def right_answer(phrase: str) -> str | None:
    """The German the numbers grammar gives `phrase`, or None when the phrase is outside it."""
    from tasks.numbers import grammar

    example = grammar.parse(phrase)
    return None if example is None else example.target


@st.cache_resource(show_spinner=False, max_entries=16)
def model(name: str) -> LoadedModel | None:
    try:
        return load_pretrained(FOLDER / name)
    except (PretrainedError, OSError, ValueError):
        return None


@torch.no_grad()
def answer(lm: LoadedModel, phrase: str) -> dict:
    """The model's greedy translation of `phrase` and its last decoder layer's cross-attention (heads
    averaged, teacher-forced on that translation): {'text', 'src', 'tgt' (the decoder's input), 'written'
    (what each decoder row writes: the next piece, `</s>` last, None if it was cut off), 'rows' (T, S)}."""
    cfg, tok = lm.model.config, lm.tokenizer
    src_ids = tok.encode(phrase)[: cfg.max_len - 2] + [cfg.eos_id]
    best = greedy_translate(lm.model, [src_ids])[0]
    tgt_ids = [cfg.start_id, *best.ids]
    pieces = lambda ids: [tok.id_to_piece(i) for i in ids]  # noqa: E731
    trace = run_trace(lm.model, src_ids, tgt_ids, pieces(src_ids), pieces(tgt_ids))
    rows = trace.attention("decoder", "cross", cfg.n_layers - 1).mean(0)  # (T, S)
    written = [*pieces(best.ids), tok.id_to_piece(cfg.eos_id) if best.finished else None]
    return {"text": tok.decode(best.ids), "src": pieces(src_ids), "tgt": pieces(tgt_ids), "written": written,
            "rows": rows}
