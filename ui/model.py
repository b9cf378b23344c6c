"""Loading each model once per server (one read-only object shared by every session, never trained or
edited), and its translations and traces, cached by the weights' checksum (`model_id`) and the inputs."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import streamlit as st

from analysis.compare import head_ablation
from attention_atlas import decoder_input as reads
from transformer import hooks
from transformer.decoding import Hypothesis, beam_search, default_max_len, greedy_decode
from transformer.device import select_device
from transformer.inputs import Source, encode_source
from transformer.pretrained import Decoding, LoadedModel, PretrainedError, load_pretrained, snapshot_steps
from transformer.trace import Trace, run_trace
from ui import lecture
from ui.cache_keys import one_spelling
from ui.frame import CHOICE_KEY, DEFAULT_MODEL, MODELS
from ui.turns import TURNS, page_notice, queued

DEVICE = os.environ.get("ATLAS_DEVICE", "auto")


@one_spelling
@st.cache_resource(show_spinner="Loading the model…", max_entries=16)
def _load(directory: str, device: str, snapshot: int | None = None) -> LoadedModel:
    lm = load_pretrained(directory, select_device(device), snapshot)
    # The app never trains: no autograd graph is ever built through the shared weights. (Not
    # torch.set_grad_enabled(False): that is per thread, and would leak into whatever thread loads.)
    lm.model.requires_grad_(False)
    _BY_ID[lm.model_id] = (directory, snapshot)
    return lm


# model_id -> (directory, snapshot) of every model this server has loaded: the cached functions
# below are keyed by model_id and find their model here (several models, one object each).
_BY_ID: dict[str, tuple[str, int | None]] = {}


def available() -> list[str]:
    """Models whose directory holds a config: the translation model is always listed (a broken one
    then says what is wrong when loaded)."""
    return [name for name, (_, d) in MODELS.items() if name == DEFAULT_MODEL or (d / "config.json").is_file()]


def snapshots(name: str) -> list[int]:
    """Training steps the model ships snapshots of (none for the translation model)."""
    return snapshot_steps(MODELS[name][1]) if name in MODELS else []


def parse_choice(params: dict) -> tuple[str, int | None]:
    """(model, snapshot) from URL parameters; anything unknown falls back to the default."""
    name = params.get("model", DEFAULT_MODEL)
    name = name if name in available() else DEFAULT_MODEL
    try:
        step = int(str(params.get("snapshot", "")).strip())
    except ValueError:
        step = None
    return name, step if step in snapshots(name) else None


def choice() -> tuple[str, int | None]:
    """This session's (model, snapshot): from session state, else from the URL it opened."""
    if CHOICE_KEY not in st.session_state:
        st.session_state[CHOICE_KEY] = parse_choice(st.query_params.to_dict())
    return st.session_state[CHOICE_KEY]


def is_numbers() -> bool:
    """Whether this session shows the numbers model (presets, gold alignment, right answers)."""
    return choice()[0] == "numbers"


def choose(name: str, snapshot: int | None = None) -> None:
    """Switch this session to a model (and snapshot), and write the choice to the URL."""
    name = name if name in available() else DEFAULT_MODEL
    snapshot = snapshot if snapshot in snapshots(name) else None
    st.session_state[CHOICE_KEY] = (name, snapshot)
    try:
        params = {k: v for k, v in st.query_params.to_dict().items() if k not in ("model", "snapshot")}
        if name != DEFAULT_MODEL:
            params["model"] = name
        if snapshot is not None:
            params["snapshot"] = str(snapshot)
        st.query_params.from_dict(params)
    except Exception:  # noqa: BLE001 - the URL is a convenience; never break the page over it
        pass


def loaded(snapshots_allowed: bool = False) -> LoadedModel:
    """The chosen model, or a clear error on the page (naming the file and the fix) and stop.

    Only pages with a training-step slider pass `snapshots_allowed`: elsewhere the final weights.
    """
    name, snapshot = choice()
    try:
        return _load(str(MODELS[name][1]), DEVICE, snapshot if snapshots_allowed else None)
    except PretrainedError as err:
        st.error(f"The model could not be loaded. {err}")
        lecture.stop()  # Back and Next stay: the neighbours may not need this model
        raise  # st.stop() raises; this line only satisfies type checkers


def loaded_or_none() -> LoadedModel | None:
    """The chosen model, or None when it cannot be loaded (for callers outside a page)."""
    try:
        return _load(str(MODELS[choice()[0]][1]), DEVICE)
    except PretrainedError:
        return None


def by_id(model_id: str) -> LoadedModel:
    """The loaded model whose weights have this id (the session's choice if the server has none)."""
    if model_id in _BY_ID:
        directory, snapshot = _BY_ID[model_id]
        return _load(directory, DEVICE, snapshot)
    return loaded()


def directory_of(model_id: str) -> Path | None:
    """The directory this server loaded the weights with this id from (None: not loaded, or a snapshot
    of training, whose files are not the directory's own)."""
    directory, snapshot = _BY_ID.get(model_id, (None, None))
    return Path(directory) if directory is not None and snapshot is None else None


def source(sentence: str, model_id: str | None = None) -> Source:
    lm = by_id(model_id) if model_id else loaded()
    return encode_source(lm.tokenizer, sentence)


def _max_len(lm: LoadedModel, src_len: int) -> int:
    # DEVIATION: the app stops at 2·source + 10 tokens (the paper: source + 50) so that a model
    # that loops cannot keep a page busy; translations of real sentences end long before either.
    return min(default_max_len(lm.model, src_len), 2 * src_len + 10)


def _ablated(ablate: tuple):
    return hooks.intervene(head_ablation(ablate)) if ablate else contextlib.nullcontext()


# Heavy work takes turns, first come first served (ui.turns): outside the cache, so a cache hit never
# waits in line, and a page shows its place while it waits.
@one_spelling
@queued(TURNS, page_notice)
@st.cache_data(max_entries=256, show_spinner=False)
def greedy(model_id: str, sentence: str, ablate: tuple = ()) -> dict | None:
    """The greedy translation of `sentence` (None when it is empty); `ablate` as in `trace`."""
    lm, src = by_id(model_id), source(sentence, model_id)
    if src.empty:
        return None
    with _ablated(ablate):
        return _as_dict(lm, greedy_decode(lm.model, src.ids, max_len=_max_len(lm, len(src.ids))))


@one_spelling
@queued(TURNS, page_notice)
@st.cache_data(max_entries=256, show_spinner=False)
def beam(
    model_id: str, sentence: str, beam_size: int | None = None, alpha: float | None = None, ablate: tuple = ()
) -> list:
    """Beam-search candidates of `sentence`, best first (empty when the sentence is empty); beam size
    and α default to the model's own (`LoadedModel.decoding`)."""
    lm, src = by_id(model_id), source(sentence, model_id)
    if src.empty:
        return []
    d = lm.decoding.override(beam_size, alpha)
    with _ablated(ablate):
        hyps = beam_search(lm.model, src.ids, beam_size=d.beam_size, alpha=d.alpha,
                           max_len=_max_len(lm, len(src.ids)))
    return [_as_dict(lm, h) for h in hyps]


@one_spelling
@queued(TURNS, page_notice)  # one turn for both searches
def translate(
    model_id: str, sentence: str, beam_size: int | None = None, alpha: float | None = None, ablate: tuple = ()
) -> dict:
    """Greedy and beam translations of `sentence`: {'greedy': dict | None, 'beam': [dict, …]}."""
    return {"greedy": greedy(model_id, sentence, ablate),
            "beam": beam(model_id, sentence, beam_size, alpha, ablate)}


def decoder_input(
    model_id: str, sentence: str, choice: tuple[str, str] = ("beam", "")
) -> reads.DecoderInput | None:
    """What the decoder reads after `<s>` on every page that draws it (None when the sentence is empty).

    `choice` is `Selection.decoder_choice`: ("beam", "") the beam translation Home shows (the model's own
    beam size and α), ("greedy", ""), or ("own", German prefix). A prefix the model cannot read falls
    back to the beam translation, and `problem` says why (`attention_atlas.decoder_input`).
    """
    how, prefix = choice
    lm, src = by_id(model_id), source(sentence, model_id)
    if src.empty:
        return None

    def translation(used: str) -> tuple[list[int], bool]:
        # Called as Home's `translate` calls them, so that both read one cache entry.
        if used == "greedy":
            best = greedy(model_id, sentence, ())
        else:
            best = beam(model_id, sentence, None, None, ())[0]
        return best["ids"], best["finished"]

    how = how if how in reads.CHOICES else reads.DEFAULT
    return reads.resolve(lm.tokenizer, how, prefix, translation, prefix_limit(lm))


def prefix_limit(lm: LoadedModel) -> int:
    """The most pieces an own German prefix may have: the app's limit, or fewer where the model has fewer
    positions (`<s>` takes one)."""
    return min(reads.MAX_PREFIX_PIECES, lm.model.config.max_len - 1)


def decoder_trace(
    model_id: str, sentence: str, choice: tuple[str, str], keep: tuple[str, ...] = ()
) -> Trace | None:
    """`trace` of `sentence` with the decoder reading `<s>` + `decoder_input(…, choice)`."""
    chosen = decoder_input(model_id, sentence, choice)
    return None if chosen is None else trace(model_id, sentence, chosen.ids, keep=keep)


def ends_translation(model_id: str, sentence: str, ids: tuple[int, ...]) -> bool | None:
    """Whether `ids` are the greedy or the beam translation of `sentence` and it ended with `</s>`;
    None when they are neither (a prefix of the reader's own)."""
    best = greedy(model_id, sentence, ())
    if best is not None and tuple(best["ids"]) != tuple(ids):  # the beam translation only when needed
        best = next(iter(beam(model_id, sentence, None, None, ())), None)
    return best["finished"] if best is not None and tuple(best["ids"]) == tuple(ids) else None


def decoding_words(d: Decoding, how: bool = False) -> str:
    """The beam settings in words, e.g. "beam 4, length penalty α = 0.6, as in the paper"; with `how`,
    also how they were chosen (`chosen_on` of the model's decoding.json)."""
    paper = Decoding()
    said = f"beam {d.beam_size}, length penalty α = {d.alpha:g}"
    if (d.beam_size, d.alpha) == (paper.beam_size, paper.alpha):
        return f"{said}, as in the paper"
    said = f"{said}, chosen for this model on its development set as the paper did (the paper's: 4 and 0.6)"
    return f"{said}. How: {d.chosen_on}" if how else said


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
@one_spelling
@queued(TURNS, page_notice)
@st.cache_resource(max_entries=64, show_spinner=False)
def trace(
    model_id: str,
    sentence: str,
    target_ids: tuple[int, ...] | None = None,
    ablate: tuple = (),
    keep: tuple[str, ...] = (),
) -> Trace | None:
    """Trace of `sentence` with the decoder fed the start token + `target_ids` (default: the greedy output).

    `ablate` is a tuple of (stack, kind, layer, head) whose head outputs are zeroed before W^O for
    this call only (through the hook session, never by editing the shared model). `keep`: name
    endings of the hook points to keep (e.g. ATTENTION_ONLY, a few % of a full trace); () keeps all.
    """
    lm, src = by_id(model_id), source(sentence, model_id)
    if src.empty:
        return None
    if target_ids is None:
        target_ids = tuple(greedy(model_id, sentence, ablate)["ids"])
    start = lm.model.config.start_id  # <s>; <pad> for a Marian checkpoint
    tgt_ids = [start, *target_ids]
    tgt_pieces = [lm.tokenizer.id_to_piece(i) for i in tgt_ids]
    full = run_trace(lm.model, src.ids, tgt_ids, src.pieces, tgt_pieces, edits=head_ablation(ablate))
    return full.only(keep) if keep else full
