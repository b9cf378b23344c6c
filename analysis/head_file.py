"""Head statistics shipped beside the weights: `head_statistics.safetensors` in a model's directory.

The head inspector describes every head by statistics over a set of built-in sentences
(`analysis.heads.sentence_statistics` of each sentence's trace). Computing them on a
server's first visit took up to a minute on 2 cores; computed once when the weights are exported and
shipped with them, the first visit only reads them. The file holds, for each sentence, the row sums
and row counts of every statistic of every attention, layer and head, under the checksum of the
weights they were computed with (`LoadedModel.model_id`) and the statistics' names. A file for other
weights, other statistics or another format is stale: `load` returns None and the app computes
(and so it does when the file is missing). `training/head_stats.py` writes it; a test checks the
shipped file against a fresh computation.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, safe_open, save_file

from analysis.heads import ATTENTIONS, STATISTICS

FILE = "head_statistics.safetensors"
FORMAT = "1"

PerSentence = dict[tuple[str, str], dict[str, tuple[torch.Tensor, torch.Tensor]]]  # sentence_statistics()


def _name(attention: tuple[str, str], statistic: str, part: str) -> str:
    return f"{attention[0]}.{attention[1]}.{statistic}.{part}"


def save(path: str | Path, model_id: str, sentences: list[str], per_sentence: list[PerSentence]) -> None:
    """Write the statistics of `sentences` (one `sentence_statistics` result each, same order)."""
    if len(sentences) != len(per_sentence) or not sentences:
        raise ValueError("need one sentence_statistics result per sentence, and at least one")
    tensors = {}
    for attention in ATTENTIONS:
        for statistic in STATISTICS:
            for part, index in (("sums", 0), ("counts", 1)):
                rows = [s[attention][statistic][index] for s in per_sentence]
                tensors[_name(attention, statistic, part)] = torch.stack(rows).contiguous()  # (N, L, H)
    metadata = {"format": FORMAT, "model_id": model_id, "sentences": json.dumps(sentences),
                "statistics": json.dumps(list(STATISTICS))}  # fmt: skip
    save_file(tensors, str(path), metadata=metadata)


def load(path: str | Path, model_id: str) -> dict[str, PerSentence] | None:
    """sentence -> its `sentence_statistics`, from the file; None when it is missing, unreadable or
    stale (other weights, other statistics, another format)."""
    try:
        with safe_open(str(path), framework="pt") as f:
            metadata = f.metadata() or {}
        if (metadata.get("format") != FORMAT or metadata.get("model_id") != model_id
                or json.loads(metadata.get("statistics", "[]")) != list(STATISTICS)):  # fmt: skip
            return None
        sentences = json.loads(metadata["sentences"])
        tensors = load_file(str(path))
        table = {(a, s): (tensors[_name(a, s, "sums")], tensors[_name(a, s, "counts")])
                 for a in ATTENTIONS for s in STATISTICS}  # fmt: skip
    except (OSError, SafetensorError, KeyError, ValueError):
        return None
    if any(len(sums) != len(sentences) or len(counts) != len(sentences) for sums, counts in table.values()):
        return None
    return {
        sentence: {a: {s: (table[a, s][0][i], table[a, s][1][i]) for s in STATISTICS} for a in ATTENTIONS}
        for i, sentence in enumerate(sentences)
    }
