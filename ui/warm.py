"""A warm server: what the pages compute for the preset sentences, prepared in the background once per
server process, so that a class arriving after the lecturer finds every first visit on a preset as quick
as a later one.

app.py calls `start()` after every page it runs; the first call on a real server starts one daemon
thread for the life of the process (none under AppTest, and none with ATLAS_WARM_UP=0). The thread
stands aside for real sessions:

- it starts working only once no session is running its script (the page that started it has
  finished), so the lecturer's first page never shares the CPU with it, not even with its imports;
- it runs at a lower CPU priority than the sessions (Linux: nice +10, for this thread alone);
- its work comes in small pieces (one cached call each), each in a spare turn of the model's line
  (`ui.turns.Turns.spare`): taken only when no session waits for the model or works with it and none
  runs its script, so a session arriving meanwhile waits for one piece at most.

The pieces are the cached calls the pages make (`pieces`), with the same arguments (and `ui.model`
spells every call one way, `one_spelling`, so a piece is found however a page spells it): each shipped
model and its tokenizer, the head statistics shipped with it, and for each preset sentence the greedy
and beam translations (Home, the decoder page), the full trace of what the decoder reads by default
(the attention pages, the decoder page), the encoder's trace (tokens, positions, encoder layer, paper
figures), and everything the head inspector computes on a first visit, with the quick set's sentences
its "typical pattern" draws. tests/test_warm.py draws the head inspector on a preset after a warm-up
and checks it computes nothing.

The server's log says when it starts and when it is done ("Attention Atlas: warm-up done …", which
bench/warm.py waits for); `STATUS` says where it is. Nothing here is imported beyond the standard
library until the thread starts: app.py imports this module before every page.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

ENV = "ATLAS_WARM_UP"  # "0" (or "off", "no", "false") switches the warm-up off
THREAD_NAME = "atlas-warm-up"
MODELS_WARMED = ("translation", "numbers")  # the shipped models, in this order (ui.frame.SHIPPED_MODELS)
QUIET_S = 0.5  # no session waiting, working or running its script for this long before a piece starts
PATIENCE_S = 60.0  # a script running longer than this (a live training page) no longer holds pieces back
POLL_S = 0.1
# Nice values above the server's: a session's thread gets about 9 times this thread's share of a busy
# core (at 19, the lowest, any other busy process on the machine would starve the warm-up).
NICE_STEP = 10
DONE_LINE = "Attention Atlas: warm-up done"  # how the log line said when every piece is done begins


@dataclass
class Status:
    """Where the warm-up of this process is."""

    state: str = "not started"  # then "waiting" (for the first page), "warming", "done" (or "stopped")
    done: int = 0  # pieces done
    seconds: float = 0.0  # from the start of the work to its last piece done, waits for sessions included
    failed: list[str] = field(default_factory=list)  # pieces that raised (named; the server goes on)


STATUS = Status()
_START = threading.Lock()
_thread: threading.Thread | None = None


def enabled() -> bool:
    """Whether ATLAS_WARM_UP leaves the warm-up on (the default)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def _serving() -> bool:
    """Whether this process is a Streamlit server (`streamlit run`, `make run`): AppTest runs pages under
    a stand-in runtime, and tests warm up by calling `warm_up` themselves. The stand-in is a mock made
    to pass `isinstance(..., Runtime)` (unittest.mock's `spec`), so the type itself is compared."""
    try:
        from streamlit.runtime import Runtime

        return Runtime.exists() and type(Runtime.instance()) is Runtime
    except Exception:  # noqa: BLE001 - a Streamlit without these names: no warm-up, never an error
        return False


def start() -> bool:
    """Start this process's warm-up thread unless it runs already (or is off, or this is no server).
    Returns whether this call started it. Cheap: called after every page."""
    global _thread
    if _thread is not None or not enabled() or not _serving():
        return False
    with _START:
        if _thread is not None:
            return False
        _thread = threading.Thread(target=_main, name=THREAD_NAME, daemon=True)
        _thread.start()
    return True


def _say(line: str) -> None:
    print(line, flush=True)  # the server's log, beside the launcher's "Attention Atlas: open …"


def _main() -> None:
    _lower_priority()
    STATUS.state = "waiting"
    _wait_quiet(None)  # the page that started the thread has finished: then the imports (PyTorch)
    _quiet_missing_context_warnings()
    _say("Attention Atlas: warm-up started: the shipped models and what the pages compute for the preset "
         f"sentences are prepared in the background ({ENV}=0 switches this off).")
    try:
        from ui.turns import TURNS

        warm_up(turns=TURNS, status=STATUS)
    except Exception as err:  # noqa: BLE001 - the pages work without it, only slower at first
        STATUS.state = "stopped"
        _say(f"Attention Atlas: warm-up stopped after {STATUS.done} pieces: {type(err).__name__}: {err}")
        return
    failed = f"; {len(STATUS.failed)} failed: {', '.join(STATUS.failed)}" if STATUS.failed else ""
    _say(f"{DONE_LINE}: {STATUS.done} pieces in {STATUS.seconds:.1f} s{failed}.")


def warm_up(models: tuple[str, ...] = MODELS_WARMED, sentences: dict[str, tuple[str, ...]] | None = None,
            turns=None, status: Status | None = None) -> Status:
    """Do every piece of `pieces(models, sentences)` in this thread, counted in `status`: with `turns`
    (the server's thread) each in a spare turn at a quiet moment, without (tests) one after another."""
    status = status if status is not None else Status()
    status.state = "warming"
    began = time.monotonic()
    busy = [began]  # when a session was last seen busy
    for name, piece in pieces(models, sentences):
        while turns is not None:
            _wait_quiet(turns, busy)
            with turns.spare() as got:
                if got:
                    _do(name, piece, status)
                    break
            busy[0] = time.monotonic()  # a session took the model first
        if turns is None:
            _do(name, piece, status)
        status.seconds = round(time.monotonic() - began, 1)
    status.state = "done"
    return status


def _do(name: str, piece: Callable[[], object], status: Status) -> None:
    try:
        piece()
    except Exception as err:  # noqa: BLE001 - a broken model is the pages' to report; warm the rest
        status.failed.append(f"{name} ({type(err).__name__}: {err})"[:200])
    else:
        status.done += 1


def pieces(models: tuple[str, ...] = MODELS_WARMED,
           sentences: dict[str, tuple[str, ...]] | None = None) -> Iterator[tuple[str, Callable[[], object]]]:
    """(name, call) of every piece of the warm-up, in order: for each model, loading it, then each preset
    sentence (`sentences[model]`, default: the model's presets) as the pages compute it, then the quick
    set the head inspector's typical pattern draws. A model that does not load is skipped (each page
    says what is wrong with it). Each piece is done before the next is asked for."""
    # What the head inspector imports, imported here: a first visit then finds them imported too.
    from ui import experiments, inspector, uniform
    from ui import model as model_io
    from ui.frame import MODELS
    from ui.presets import NUMBER_PRESETS, PRESETS
    from ui.state import Selection
    from viz.palette import palette

    default = Selection()  # what a session's first page shows: the default decoder input and palette
    choice = default.decoder_choice
    colors = tuple(palette(default.palette)["categorical"][:2])  # as "Switch heads off" draws them
    for name in models:
        if name not in MODELS or name not in model_io.available():
            continue
        loaded: list = []
        # As `ui.model.loaded` loads it for every page but those with a training-step slider.
        load = partial(model_io._load, str(MODELS[name][1]), model_io.DEVICE, None)
        yield f"{name}: model", lambda load=load, loaded=loaded: loaded.append(load())
        if not loaded:
            continue
        mid = loaded[0].model_id
        quick, _, pair = inspector.sentence_sets(numbers=name == "numbers")
        presets = (NUMBER_PRESETS if name == "numbers" else PRESETS).values()
        chosen = tuple(dict.fromkeys(sentences[name] if sentences and name in sentences else presets))
        yield f"{name}: head statistics file", partial(inspector.shipped, mid)
        for s in chosen:
            text = model_io.source(s, mid).text  # the sentence as a page passes it on (`Page.src.text`)
            label = f"{name}: {s[:30]}"
            # Home and the decoder page: greedy and beam translations (two pieces, then both together).
            yield f"{label}, greedy", partial(model_io.greedy, mid, text)
            yield f"{label}, beam", partial(model_io.beam, mid, text)
            yield f"{label}, translations", partial(model_io.translate, mid, text)
            # The attention pages, the decoder page, switching heads off: everything recorded while the
            # decoder reads `<s>` and the default decoder input.
            yield f"{label}, decoder trace", partial(model_io.decoder_trace, mid, text, choice)
            # Tokens, positions, the encoder layer, the paper figures, the decoder page's first step.
            yield f"{label}, encoder trace", partial(model_io.trace, mid, text, target_ids=())
            # The head inspector (pages/Head_inspector.py), as a first visit computes it.
            yield f"{label}, attention trace", partial(_focus, inspector, uniform, mid, text, choice)
            yield f"{label}, greedy attention trace", partial(inspector.attention_trace, mid, text)
            yield f"{label}, head statistics", partial(_statistics, inspector, mid, (text, *quick))
            yield f"{label}, heads switched off", partial(experiments._ablation, mid, text, (), choice)
            yield (f"{label}, probability figure",
                   partial(experiments._probability_figure, mid, text, (), choice, 0, colors))
        for s in dict.fromkeys([*quick, *pair]):  # the typical pattern's sentences, the pair to compare
            yield f"{name}: {s[:30]}, attention", partial(inspector.attention_trace, mid, s)


def _focus(inspector, uniform, mid: str, sentence: str, choice: tuple[str, str]) -> None:
    """The head inspector's trace of the reader's sentence, and its heads' broadness (`focus_default`
    and the notes under the figures read it)."""
    trace = inspector.attention_trace(mid, sentence, choice)
    if trace is not None:
        for stack, kind in inspector.ATTENTION_LABELS:
            uniform.grid(trace, stack, kind)


def _statistics(inspector, mid: str, sentences: tuple[str, ...]):
    """`ui.inspector.statistics` of the sentence set the head inspector opens on (the reader's sentence
    first, then the quick set), without its progress bar (there is no page to draw it on)."""
    sentences = tuple(dict.fromkeys(sentences))
    ready = inspector.shipped(mid)
    for sentence in sentences:
        if sentence not in ready:
            inspector._sentence_statistics(mid, sentence)
    return inspector._collected(mid, sentences, tuple(s in ready for s in sentences))


def _scripts_running() -> bool:
    """Whether a session is running its script now: Streamlit runs each script run in a thread of its
    own, marked with the session's ScriptRunContext, that ends with the run."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import SCRIPT_RUN_CONTEXT_ATTR_NAME
    except ImportError:  # another Streamlit: only the turns tell
        return False
    me = threading.current_thread()
    return any(t is not me and getattr(t, SCRIPT_RUN_CONTEXT_ATTR_NAME, None) is not None
               for t in threading.enumerate())


def _wait_quiet(turns, busy: list[float] | None = None) -> None:
    """Wait until, for QUIET_S, no session has run its script and (with `turns`) none has waited for
    the model or worked with it. A script running past PATIENCE_S stops counting."""
    busy = busy if busy is not None else [time.monotonic()]
    waiting_since = time.monotonic()
    while True:
        now = time.monotonic()
        patient = now - waiting_since < PATIENCE_S
        if (turns is not None and not turns.idle) or (patient and _scripts_running()):
            busy[0] = now
        elif now - busy[0] >= QUIET_S:
            return
        time.sleep(POLL_S)


def _lower_priority() -> None:
    """This thread (and the threads it starts, PyTorch's among them) NICE_STEP lower than the server's
    sessions: Linux gives each thread a nice value of its own. Elsewhere nothing changes."""
    try:
        me = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + NICE_STEP))
    except (AttributeError, OSError):
        pass


def _quiet_missing_context_warnings() -> None:
    """This thread belongs to no session: the cached calls it makes would log Streamlit's "missing
    ScriptRunContext" warning, which says nothing wrong here. This thread's are dropped, no other's."""
    import logging

    class OtherThreads(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            return record.threadName != THREAD_NAME

    for name in ("streamlit.runtime.scriptrunner_utils.script_run_context",
                 "streamlit.runtime.scriptrunner.script_run_context"):
        logging.getLogger(name).addFilter(OtherThreads())
