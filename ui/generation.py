"""The decoder page's "Next token" state, rebuilt from a link: how many tokens had been generated."""

from __future__ import annotations

from ui import model as model_io


def greedy_prefix(model_id: str, sentence: str, n: int) -> list[int]:
    """The first `n` token ids that pressing "Next token" `n` times appends, at most the whole output.

    "Next token" appends the most probable token each time, so its tokens are the greedy translation
    followed by EOS (when the translation ended with one). A link stores only `n`.
    """
    if n <= 0:
        return []
    result = model_io.greedy(model_id, sentence)
    if result is None:
        return []
    ids = list(result["ids"])
    if result["finished"]:
        ids.append(model_io.by_id(model_id).tokenizer.eos_id)
    return ids[:n]
