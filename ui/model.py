"""Loading the shipped model once, and cached translations and traces.

The model is one read-only object shared by every browser session (`st.cache_resource`): never
`.train()`, never edited, nothing attached. Translations and traces are cached by the weights'
checksum (`model_id`) plus the inputs, so a rerun after moving a slider is cheap.
"""

from __future__ import annotations

import contextlib
import os

import streamlit as st
import torch

from transformer import hooks
from transformer.decoding import Hypothesis, beam_search, default_max_len, greedy_decode
from transformer.device import select_device
from transformer.inputs import Source, encode_source
from transformer.pretrained import LoadedModel, PretrainedError, load_pretrained
from transformer.trace import Trace, run_trace
from ui.frame import MODEL_DIR

DEVICE = os.environ.get("ATLAS_DEVICE", "auto")


@st.cache_resource(show_spinner="Loading the model…")
def _load(directory: str, device: str) -> LoadedModel:
    lm = load_pretrained(directory, select_device(device))
    # The app never trains: no autograd graph is ever built through the shared weights. (Not
    # torch.set_grad_enabled(False): that is per thread, and would leak into whatever thread loads.)
    lm.model.requires_grad_(False)
    return lm


def loaded() -> LoadedModel:
    """The shared model, or a clear error on the page (naming the file and the fix) and stop."""
    try:
        return _load(str(MODEL_DIR), DEVICE)
    except PretrainedError as err:
        st.error(f"The model could not be loaded. {err}")
        st.stop()
        raise  # st.stop() raises; this line only satisfies type checkers


def loaded_or_none() -> LoadedModel | None:
    """The shared model, or None when it cannot be loaded (for callers outside a page)."""
    try:
        return _load(str(MODEL_DIR), DEVICE)
    except PretrainedError:
        return None


def source(sentence: str) -> Source:
    return encode_source(loaded().tokenizer, sentence)


def _max_len(lm: LoadedModel, src_len: int) -> int:
    # DEVIATION: the app stops at 2·source + 10 tokens (the paper: source + 50) so that a model
    # that loops cannot keep a page busy; translations of real sentences end long before either.
    return min(default_max_len(lm.model, src_len), 2 * src_len + 10)


def _ablated(ablate: tuple):
    return hooks.intervene(head_ablation(ablate)) if ablate else contextlib.nullcontext()


@st.cache_data(max_entries=256, show_spinner=False)
def greedy(model_id: str, sentence: str, ablate: tuple = ()) -> dict | None:
    """The greedy translation of `sentence` (None when it is empty); `ablate` as in `trace`."""
    lm, src = loaded(), source(sentence)
    if src.empty:
        return None
    with _ablated(ablate):
        return _as_dict(lm, greedy_decode(lm.model, src.ids, max_len=_max_len(lm, len(src.ids))))


@st.cache_data(max_entries=256, show_spinner=False)
def beam(model_id: str, sentence: str, beam_size: int = 4, alpha: float = 0.6, ablate: tuple = ()) -> list:
    """Beam-search candidates of `sentence`, best first (empty when the sentence is empty)."""
    lm, src = loaded(), source(sentence)
    if src.empty:
        return []
    with _ablated(ablate):
        hyps = beam_search(lm.model, src.ids, beam_size=beam_size, alpha=alpha,
                           max_len=_max_len(lm, len(src.ids)))
    return [_as_dict(lm, h) for h in hyps]


def translate(
    model_id: str, sentence: str, beam_size: int = 4, alpha: float = 0.6, ablate: tuple = ()
) -> dict:
    """Greedy and beam translations of `sentence`: {'greedy': dict | None, 'beam': [dict, …]}."""
    return {"greedy": greedy(model_id, sentence, ablate),
            "beam": beam(model_id, sentence, beam_size, alpha, ablate)}


def _as_dict(lm: LoadedModel, hyp: Hypothesis) -> dict:
    return {
        "text": lm.tokenizer.decode(hyp.ids),
        "ids": hyp.ids,
        "pieces": [lm.tokenizer.id_to_piece(i) for i in hyp.ids],
        "log_prob": hyp.log_prob,
        "score": hyp.score,
        "finished": hyp.finished,
    }


ATTENTION_ONLY = ("hook_pattern", "hook_mask")


# A resource cache hands every rerun the same Trace object: `cache_data` would unpickle about a
# hundred tensors on each rerun (~70 ms per head change). Pages only read traces, never write them
# (tests/test_cache.py checks that a cached trace is unchanged after every page has drawn it).
@st.cache_resource(max_entries=64, show_spinner=False)
def trace(
    model_id: str,
    sentence: str,
    target_ids: tuple[int, ...] | None = None,
    ablate: tuple = (),
    keep: tuple[str, ...] = (),
) -> Trace | None:
    """Trace of `sentence` with the decoder fed BOS + `target_ids` (default: the greedy output).

    `ablate` is a tuple of (stack, kind, layer, head) whose head outputs are zeroed before W^O for
    this call only (through the hook session, never by editing the shared model). `keep`: name
    endings of the hook points to keep (e.g. ATTENTION_ONLY, a few % of a full trace); () keeps all.
    """
    lm, src = loaded(), source(sentence)
    if src.empty:
        return None
    if target_ids is None:
        target_ids = tuple(greedy(model_id, sentence, ablate)["ids"])
    tgt_ids = [lm.tokenizer.bos_id, *target_ids]
    tgt_pieces = ["<s>", *(lm.tokenizer.id_to_piece(i) for i in target_ids)]
    full = run_trace(lm.model, src.ids, tgt_ids, src.pieces, tgt_pieces, edits=head_ablation(ablate))
    return full.only(keep) if keep else full


def head_ablation(heads: tuple) -> dict[str, hooks.Edit]:
    """Hook edits that zero the chosen heads' outputs (hook_z) before concatenation and W^O."""
    by_name: dict[str, list[int]] = {}
    for stack, kind, layer, head in heads:
        by_name.setdefault(f"{stack}.layers.{layer}.{kind}_attn.hook_z", []).append(head)

    def zero(heads_to_zero: list[int]):
        def edit(z: torch.Tensor) -> torch.Tensor:  # z: (B, H, T, K)
            z = z.clone()
            z[:, heads_to_zero] = 0.0
            return z

        return edit

    return {name: zero(hs) for name, hs in by_name.items()}
