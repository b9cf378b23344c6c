"""The head inspector's computations: attention over a sentence set, and switching heads off.

Statistics need only the attention weights, not the ~15 MB of everything a full trace records, so
the sentence-set traces keep only softmax weights and masks (`ui.model.trace(..., keep=…)`). The
decoder reads BOS + the model's greedy translation, like every other page.
"""

from __future__ import annotations

import streamlit as st
import torch

from transformer.analysis import heads
from transformer.trace import Trace
from ui import model as model_io

ATTENTION_LABELS = {("encoder", "self"): "encoder self", ("decoder", "self"): "decoder self",
                    ("decoder", "cross"): "decoder cross"}


def attention_trace(model_id: str, sentence: str) -> Trace | None:
    """A trace of `sentence` keeping only the attention weights and masks (None when empty)."""
    return model_io.trace(model_id, sentence, keep=model_io.ATTENTION_ONLY)


@st.cache_data(max_entries=256, show_spinner=False)
def _sentence_statistics(model_id: str, sentence: str) -> dict | None:
    trace = attention_trace(model_id, sentence)
    return None if trace is None else heads.sentence_statistics(trace)


def statistics(model_id: str, sentences: tuple[str, ...]) -> heads.HeadStatistics:
    """Head statistics over `sentences` (empty ones skipped), each sentence computed once and cached."""
    kept, per_sentence = [], []
    progress = st.progress(0.0, text="Measuring the heads…") if len(sentences) > 1 else None
    for i, sentence in enumerate(sentences):
        result = _sentence_statistics(model_id, sentence)
        if result is not None:
            kept.append(sentence)
            per_sentence.append(result)
        if progress is not None:
            progress.progress((i + 1) / len(sentences), text=f"Measuring the heads… {i + 1}/{len(sentences)}")
    if progress is not None:
        progress.empty()
    return heads.HeadStatistics.collect(kept, per_sentence)


def layer_patterns(trace: Trace, stack: str, kind: str) -> torch.Tensor:
    """Every layer's weights of one attention: (L, H, T_q, T_k)."""
    return torch.stack([trace.attention(stack, kind, layer) for layer in range(trace.config.n_layers)])


def head_options(n_layers: int, n_heads: int, offset: int) -> dict[str, tuple[str, str, int, int]]:
    """Label -> (stack, kind, layer, head) for every head, labels numbered with `offset`."""
    return {f"{label} · layer {layer + offset} · head {head + offset}": (stack, kind, layer, head)
            for (stack, kind), label in ATTENTION_LABELS.items()
            for layer in range(n_layers) for head in range(n_heads)}


def ablation(model_id: str, sentence: str, ablate: tuple) -> dict:
    """Greedy translations and next-token probabilities with all heads on and with `ablate` heads off.

    Both probability tables read the same decoder input (BOS + the normal greedy translation), so
    they differ only because of the switched-off heads.
    """
    before = model_io.greedy(model_id, sentence)
    after = model_io.greedy(model_id, sentence, ablate) if ablate else before
    target = tuple(before["ids"])
    probs_before = model_io.trace(model_id, sentence, target).get("generator.hook_probs")  # (T, V)
    probs_after = (model_io.trace(model_id, sentence, target, ablate=ablate).get("generator.hook_probs")
                   if ablate else probs_before)
    lm = model_io.loaded()
    return {
        "before": before,
        "after": after,
        "probs_before": probs_before,
        "probs_after": probs_after,
        "decoder_input": ["<s>", *before["pieces"]],
        "target_ids": [*target, lm.tokenizer.eos_id],  # what each decoder position should predict
        "piece": lm.tokenizer.id_to_piece,
    }
