"""The head inspector's computations: attention over a sentence set, and switching heads off.

Statistics need only the attention weights, not the ~15 MB of everything a full trace records, so
the sentence-set traces keep only softmax weights and masks (`ui.model.trace(..., keep=…)`). Over the
sentence set the decoder reads BOS + each sentence's greedy translation (as the statistics shipped with the
weights were measured); for the reader's sentence, the session's decoder input like every other page
(`ui.model.decoder_input`: by default the beam translation Home shows).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import streamlit as st
import torch

from analysis import head_file, heads
from tasks.sentences import DEFAULT_SUBSET, SENTENCES
from transformer.trace import Trace
from ui import model as model_io
from ui.presets import PRESETS
from ui.state import shown

ATTENTION_LABELS = {("encoder", "self"): "encoder self", ("decoder", "self"): "decoder self",
                    ("decoder", "cross"): "decoder cross"}
# Statistics that are a share of one row's weight, or a ratio to the largest possible value: 0..1.
UNIT_STATISTICS = ("broadness", "previous", "next", "self", "same_word", "delimiter")
EQUAL_WITHIN = 1e-3  # heads whose values all lie this close together are called equal


@dataclass(frozen=True)
class MapScale:
    """The head map's colour range (None: fitted to the values) and what to say about it."""

    zmin: float | None
    zmax: float | None
    note: str


def sentence_sets(numbers: bool | None = None) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, str]]:
    """(quick set, full set, a pair to compare) of built-in sentences for the chosen model, or for the
    numbers model (`numbers` True) or the translation model (False) outside a session."""
    if model_io.is_numbers() if numbers is None else numbers:
        from tasks.numbers.grammar import showcase

        phrases = tuple(showcase())
        return phrases[::4], phrases, ("forty-two", "forty-three")
    return (tuple(DEFAULT_SUBSET), tuple(SENTENCES),
            (PRESETS["The animal … too tired"], PRESETS["The animal … too wide"]))  # fmt: skip


def attention_trace(model_id: str, sentence: str, choice: tuple[str, str] | None = None) -> Trace | None:
    """A trace of `sentence` keeping only the attention weights and masks (None when empty). The decoder
    reads `choice` (`Selection.decoder_choice`), or with None the greedy translation (the sentence set)."""
    if choice is None:
        return model_io.trace(model_id, sentence, keep=model_io.ATTENTION_ONLY)
    return model_io.decoder_trace(model_id, sentence, choice, keep=model_io.ATTENTION_ONLY)


@st.cache_data(max_entries=256, show_spinner=False)
def _sentence_statistics(model_id: str, sentence: str) -> dict | None:
    trace = attention_trace(model_id, sentence)
    return None if trace is None else heads.sentence_statistics(trace)


@st.cache_resource(max_entries=8, show_spinner=False)
def shipped(model_id: str) -> dict:
    """sentence -> statistics, read from the `head_statistics.safetensors` shipped beside these weights
    (`analysis.head_file`); empty when the file is missing or stale (made for other weights)."""
    directory = model_io.directory_of(model_id)
    found = head_file.load(directory / head_file.FILE, model_id) if directory is not None else None
    return found or {}


def statistics(model_id: str, sentences: tuple[str, ...]) -> heads.HeadStatistics:
    """Head statistics over `sentences` (empty ones skipped): read from the file shipped with the weights
    where it has them, else computed once per sentence and cached; collected once per set (a head change
    reads the collection)."""
    ready = shipped(model_id)
    missing = [s for s in sentences if s not in ready]
    if len(missing) > 1:  # measured one by one into the per-sentence cache, with a progress bar
        progress = st.progress(0.0, text="Measuring the heads…")
        for i, sentence in enumerate(missing):
            _sentence_statistics(model_id, sentence)
            progress.progress((i + 1) / len(missing), text=f"Measuring the heads… {i + 1}/{len(missing)}")
        progress.empty()
    return _collected(model_id, sentences, tuple(s in ready for s in sentences))


@st.cache_resource(max_entries=16, show_spinner=False)
def _collected(
    model_id: str, sentences: tuple[str, ...], from_file: tuple[bool, ...]
) -> heads.HeadStatistics:
    """The statistics of `sentences` collected into one object (read-only, shared by every session):
    each sentence's from the shipped file where `from_file` says so, else from `_sentence_statistics`."""
    ready = shipped(model_id)
    kept, per_sentence = [], []
    for sentence, filed in zip(sentences, from_file, strict=True):
        result = ready[sentence] if filed else _sentence_statistics(model_id, sentence)
        if result is not None:
            kept.append(sentence)
            per_sentence.append(result)
    return heads.HeadStatistics.collect(kept, per_sentence)


def key_count(stats: heads.HeadStatistics, attention: tuple[str, str]) -> int:
    """The most keys any query row of the set attended over.

    Entropy is counted once per query row, so its count per sentence is the number of queries: the
    source length for encoder self-attention, the target length for decoder self-attention. Keys are
    the same tokens there; cross-attention's keys are the source, the encoder's queries.
    """
    rows = ("encoder", "self") if attention[1] == "cross" else attention
    return int(stats.counts[rows]["entropy"].max())


def map_scale(
    stats: heads.HeadStatistics, attention: tuple[str, str], statistic: str, values: torch.Tensor
) -> MapScale:
    """A fixed colour range where the statistic has one, and a caption note; `values`: (L, H) means.

    Fitted to the values, a map of identical heads (2.506 to 2.507) would still run from the lightest
    colour to the darkest. Entropy is drawn from 0 (all weight on one key) to ln T, its largest value
    for the T keys of the set's longest row; shares and broadness from 0 to 1. When every head's value
    lies within EQUAL_WITHIN of the others, the note says so.
    """
    if statistic == "entropy":
        n_keys = max(key_count(stats, attention), 2)
        zmin, zmax = 0.0, math.log(n_keys)
        note = (
            f"Colours run from 0 (all weight on one key) to ln {n_keys} = {zmax:.2f} (weight spread "
            f"evenly over {n_keys} keys, the longest row in the set)."
        )
    elif statistic in UNIT_STATISTICS:
        zmin, zmax, note = 0.0, 1.0, "Colours run from 0 to 1."
    else:
        zmin, zmax, note = None, None, "Colours run from the smallest value on the map to the largest."
    defined = values[~values.isnan()]
    if defined.numel() and float(defined.max() - defined.min()) < EQUAL_WITHIN:
        common = float(defined.mean())
        note = f"All heads equal: {common:.3f} on every head (to within {EQUAL_WITHIN:g}). {note}"
    return MapScale(zmin, zmax, note)


def mix_parts(sel, stacked, n_heads: int) -> tuple[list, list[str]]:
    """The selected head beside its layer's mean over heads and, for self-attention, the rollout up to its
    layer: the matrices (T_q, T_k) and their titles. `sel`: a `ui.state.Selection`; `stacked`:
    (L, H, T_q, T_k), `layer_patterns`."""
    matrices = [stacked[sel.layer, sel.head], heads.mean_over_heads(stacked[sel.layer])]
    titles = [f"head {sel.show_head()}", f"mean of {n_heads} heads"]
    if sel.kind == "self":
        matrices.append(heads.rollout(stacked)[sel.layer])
        titles.append(f"rollout, layers {sel.show_layer(0)}…{sel.show_layer()}")
    return matrices, titles


def layer_patterns(trace: Trace, stack: str, kind: str) -> torch.Tensor:
    """Every layer's weights of one attention: (L, H, T_q, T_k)."""
    return torch.stack([trace.attention(stack, kind, layer) for layer in range(trace.config.n_layers)])


def head_options(n_layers: int, n_heads: int, offset: int) -> dict[str, str]:
    """Code -> label for every head. The code ("decoder.cross.2.5", 0-based) is what a link stores
    (`head_from_code` reads it back); the label is numbered with `offset`."""
    return {f"{stack}.{kind}.{layer}.{head}":
            f"{label} · layer {shown(layer, offset)} · head {shown(head, offset)}"
            for (stack, kind), label in ATTENTION_LABELS.items()
            for layer in range(n_layers) for head in range(n_heads)}


def head_from_code(code: str) -> tuple[str, str, int, int]:
    """(stack, kind, layer, head) of a `head_options` code."""
    stack, kind, layer, head = code.split(".")
    return stack, kind, int(layer), int(head)


def ablation(model_id: str, sentence: str, ablate: tuple, choice: tuple[str, str] = ("beam", "")) -> dict:
    """Translations and next-token probabilities with all heads on and with `ablate` heads off.

    Both probability tables read the same decoder input, the session's (`choice`, as on every page that
    draws the decoder), so they differ only because of the switched-off heads. The translations are
    searched as the decoder input was: greedy for "greedy", else the beam search Home shows.
    """
    chosen = model_io.decoder_input(model_id, sentence, choice)
    if chosen.used == "greedy":
        before = model_io.greedy(model_id, sentence, ())
        after = model_io.greedy(model_id, sentence, ablate) if ablate else before
    else:
        before = model_io.beam(model_id, sentence, None, None, ())[0]
        after = model_io.beam(model_id, sentence, None, None, ablate)[0] if ablate else before
    target = chosen.ids
    probs_before = model_io.trace(model_id, sentence, target).get("generator.hook_probs")  # (T, V)
    probs_after = (model_io.trace(model_id, sentence, target, ablate=ablate).get("generator.hook_probs")
                   if ablate else probs_before)
    lm = model_io.by_id(model_id)
    # What each decoder position should predict: the next token of the input, and after a whole
    # translation </s>; after a prefix of the reader's own nothing is known, so its last row is left out.
    written = [*target, lm.tokenizer.eos_id] if chosen.finished is not None else list(target)
    return {
        "before": before,
        "after": after,
        "search": "greedy" if chosen.used == "greedy" else "beam search",
        "reads": chosen.used,
        "probs_before": probs_before,
        "probs_after": probs_after,
        "decoder_input": [lm.tokenizer.id_to_piece(i) for i in (lm.model.config.start_id, *target)],
        "target_ids": written,
        "piece": lm.tokenizer.id_to_piece,
    }
